"""Scans of varied quality: exact, flagged, refused and wrong per dpi, noise, blur and skew.

Meridian's statements drawn as scans (150-300 dpi, skew, speckle noise, blur, JPEG), seeded,
parsed in parse worker processes (tesseract runs one thread per page, so the run scales
with the workers given). A **wrong** scan is one that validated yet differs from the truth
the generator wrote: the count that must stay 0. The corpus is written once per size and
seed into `--dir` and reused by later runs, so a change is measured on the same scans;
`--scan-dpi` reads only the scans of one resolution.

`--engines` reads the same scans with each combination of OCR engines named (`ocr.ENGINES`:
tesseract with the second engine as its witness, tesseract alone, the second engine alone on
tesseract's words), one table each and a line per combination to compare them.

The cost of OCR is measured against bare tesseract on the same rendered image, in the same
run: a few pages are read each way, one after the other, and the CPU time of this process
and its tesseract children compared (wall time on a shared machine says more about the
neighbours than about the pages). Bare is one tesseract process per page with default
settings; `ocr_page` keeps its tesseract processes for all pages, and their start is counted
once over the pages measured; the second engine's model is loaded before (once per parse
worker, counted apart).
"""

from __future__ import annotations

import functools
import json
import re
import resource
import statistics
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

from benchmarks import corpora, ocr_cache
from benchmarks.accuracy import Result, Tally, read, table
from corpus import Sample, generate
from parsers.api import parse_pdf
from parsers.limits import Limits
from parsers.ocr.tesseract import TESSERACT_CONFIG, ocr_page, render_page, tesseract_env
from parsers.ocr.tesseract_stream import close_all, started
from parsers.ocr.witness import _recogniser
from parsers.pdf.pdfium_reader import PdfiumReader
from parsers.worker.pool import ParsePool


def samples(statements: int, seed: int, where: Path | None, dpi: int | None = None
            ) -> list[Sample]:
    """The scans (every one at `dpi` if given), generated into `where` unless a run with
    the same size, seed and dpi did."""
    if where is None:
        return corpora.scans(statements, seed, dpi)
    out = where / (f"scans-{statements}-{seed}" + (f"-{dpi}dpi" if dpi else ""))
    done = out / "complete"
    if not done.exists():
        generate(out, ("meridian",), statements, seed, varied=True, dpi=dpi)
        done.write_text("")
    found = []
    for truth in sorted(out.glob("*.truth.json")):
        stem = truth.name.removesuffix(".truth.json")
        described = out / f"{stem}.variant.json"
        variant = json.loads(described.read_text()) if described.exists() else {}
        found.append(Sample(out / f"{stem}.pdf", truth, "meridian", None, variant))
    return found


def levels(r: Result) -> list[str]:
    """The quality levels a scan belongs to: its dpi, noise, blur, skew and JPEG quality,
    whether it is a photograph, a long statement or prints references."""
    knobs = r.sample.variant.get("knobs", {})
    q = knobs.get("scan") or {}
    skew = abs(q.get("skew", 0.0))
    photo = bool(q.get("perspective") or q.get("light"))
    return [f"dpi {q.get('dpi')}", f"noise {q.get('noise')}", f"blur {q.get('blur')}",
            f"skew {'>=1' if skew >= 1 else '<1'}", f"jpeg {q.get('jpeg')}",
            f"photo {'yes' if photo else 'no'}", f"pages {'>1' if r.pages > 1 else '1'}",
            f"references {'yes' if knobs.get('references') else 'no'}"]


def by_level(results: list[Result]) -> dict[str, Tally]:
    out: dict[str, Tally] = defaultdict(Tally)
    for r in results:
        out["all"].add(r)
        for level in levels(r):
            out[level].add(r)
    return dict(sorted(out.items(), key=lambda kv: (kv[0] != "all", _natural(kv[0]))))


def _natural(key: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))


def why_flagged(results: list[Result], top: int = 12) -> list[tuple[str, int]]:
    """The commonest problems of flagged and refused scans, figures blanked so alike
    problems count together (each counted once per scan)."""
    seen: Counter[str] = Counter()
    for r in results:
        if r.outcome in ("flagged", "refused"):
            seen.update({re.sub(r"\d[\d,.]*", "#", p)[:90] for p in r.problems})
    return seen.most_common(top)


def cpu() -> float:
    """CPU seconds of this process and its finished children (tesseract)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def bare_tesseract(image: Image.Image) -> None:
    """Bare tesseract on a rendered page: a `tesseract FILE stdout --psm 4 tsv` process of its
    own with default settings, the image handed over as `ocr_page` hands it (an 8-bit PGM
    file)."""
    with tempfile.NamedTemporaryFile(prefix="stmtflow-bare-", suffix=".pgm") as pgm:
        pgm.write(b"P5\n%d %d\n255\n" % image.size + image.convert("L").tobytes())
        pgm.flush()
        subprocess.run(["tesseract", pgm.name, "stdout", *TESSERACT_CONFIG.split(), "tsv"],
                       capture_output=True, check=True, env=tesseract_env())


def tesseract_start(times: int = 9) -> float:
    """CPU ms of starting tesseract: the median of `bare_tesseract` on a blank image."""
    spent = []
    for _ in range(times):
        started = cpu()
        bare_tesseract(Image.new("L", (16, 16), 255))
        spent.append(cpu() - started)
    return 1000 * statistics.median(spent)


def ocr_cost(found: list[Sample], pages: int, limits: Limits, engines: str = "both"
             ) -> tuple[float, float, int]:
    """(bare, ours, starts): CPU ms per page of rendering plus `bare_tesseract`, and of
    `ocr_page` with `engines` (rendering, first and second readings, the second engine,
    ink), on the first page of `pages` scans. `ocr_page` keeps its tesseract processes from
    page to page: they are started afresh for this measure and ended after it, so that all
    their CPU time, their start included, is counted; `starts` is how many of them started."""
    close_all()
    processes = started()
    bare = ours = 0.0
    for s in found[:pages]:
        page = pdfium.PdfDocument(s.pdf.read_bytes())[0]
        begun = cpu()
        bare_tesseract(render_page(page, 0, limits))
        middle = cpu()
        ocr_page(page, 0, limits, engines)
        bare, ours = bare + middle - begun, ours + cpu() - middle
    begun = cpu()
    close_all()
    ours += cpu() - begun
    n = max(min(pages, len(found)), 1)
    return 1000 * bare / n, 1000 * ours / n, started() - processes


def model_load() -> float:
    """CPU ms of loading the second engine's model, once per process (before its use is
    timed)."""
    begun = cpu()
    _recogniser()
    return 1000 * (cpu() - begun)


def target(engines: str, cache: Path | None) -> functools.partial:
    """What a parse worker runs to read scans with `engines` (`ocr.ENGINES`), tesseract's
    answers kept in `cache` if given."""
    reader = PdfiumReader(ocr=functools.partial(ocr_page, engines=engines))
    return functools.partial(ocr_cache.parser(cache) if cache else parse_pdf, reader=reader)


def run(statements: int, seed: int, workers: int, where: Path | None = None,
        dpi: int | None = None, cost_pages: int = 6, cache: Path | None = None,
        engines: tuple[str, ...] = ("both",)) -> list[Result]:
    """Measure and print each combination of `engines`; returns the results (one per scan)
    of the first."""
    found = samples(statements, seed, where, dpi)
    print(f"varied scans: {len(found)} statements in {found[0].pdf.parent}, "
          f"{workers} parse worker(s)\n")
    read_by = {which: _run(found, which, workers, where if which == engines[0] else None,
                           cost_pages, cache) for which in engines}
    summary = {which: by_level(results)["all"] for which, results in read_by.items()}
    if len(engines) > 1:
        print("each combination of engines on the same scans (exact / flagged / refused / "
              "wrong):")
        for which, tally in summary.items():
            print(f"  {which:>6}: " + " / ".join(
                f"{tally.outcomes[o]}" for o in ("exact", "flagged", "refused", "wrong"))
                  + f" of {tally.statements} ({100 * tally.share('exact'):.1f}% exact)")
    return read_by[engines[0]]


def read_all(found: list[Sample], engines: str, workers: int, cache: Path | None
             ) -> list[Result]:
    """Read `found` with `engines`: in `workers` parse workers, or here with none (where
    tesseract's answers may come from `cache`)."""
    limits = Limits()
    parse = target(engines, cache)
    if workers:
        with ParsePool(workers, limits, target=parse) as pool, \
                ThreadPoolExecutor(workers) as threads:
            return list(threads.map(lambda s: read(s, limits, pool.parse), found))
    results = [read(s, limits, lambda data: parse(data, limits=limits)) for s in found]
    ocr_cache.install(None)
    return results


def _run(found: list[Sample], engines: str, workers: int, where: Path | None,
         cost_pages: int, cache: Path | None) -> list[Result]:
    """Read `found` with `engines`, print its tables, and return the results."""
    print(f"--- engines: {engines}")
    started = time.perf_counter()
    results = read_all(found, engines, workers, cache)
    wall = time.perf_counter() - started
    if where is not None:
        (found[0].pdf.parent / "results.json").write_text(json.dumps(
            [{"scan": r.sample.pdf.name, "outcome": r.outcome, "problems": r.problems}
             for r in results], indent=1) + "\n")
    print(table("varied scans, per quality level", by_level(results), "level"))
    pages = sum(r.pages for r in results)
    print(f"\n{pages} pages in {wall:.0f} s wall ({1000 * wall / max(pages, 1):.0f} ms/page "
          f"with {workers} worker(s))")
    if cost_pages:
        loaded = model_load() if engines != "first" else 0.0
        bare, ours, starts = ocr_cost(found, cost_pages, Limits(), engines)
        print(f"OCR CPU per page on {min(cost_pages, len(found))} pages: {ours:.0f} ms against "
              f"{bare:.0f} ms for bare tesseract on the same image ({ours / bare:.2f}x)\n"
              f"  bare: render, then one `tesseract --psm 4` process per page with default "
              f"settings;\n  ours: ocr_page, engines {engines} (render, first and second "
              f"readings in two tesseract processes kept for all pages, their start counted "
              f"once, the second engine, ink)"
              + (f";\n  the second engine's model loaded once per worker: {loaded:.0f} ms"
                 if loaded else ""))
        n, start = min(cost_pages, len(found)), tesseract_start()
        bare_alone, ours_alone = bare - start, ours - starts * start / n
        print(f"  without tesseract's starts ({start:.0f} ms each, a blank image read by a "
              f"fresh process): {ours_alone:.0f} ms against {bare_alone:.0f} "
              f"({ours_alone / bare_alone:.2f}x)")
    print("\nwhy scans were flagged or refused (scans with each problem):")
    for problem, n in why_flagged(results):
        print(f"  {n:>4}  {problem}")
    wrong = [r.sample.pdf.name for r in results if r.outcome == "wrong"]
    print(f"\nWRONG (validated, differs from the truth): {len(wrong)}"
          + (f": {', '.join(wrong)}" if wrong else ""))
    crashed = [f"{r.sample.pdf.name} ({r.reason})" for r in results if r.outcome == "crashed"]
    if crashed:
        print(f"crashed: {', '.join(crashed)}")
    return results
