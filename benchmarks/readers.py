"""`python -m benchmarks.readers [--statements N]`: page reading, parsing and the parse
workers, each as a ratio against a floor measured in the same run on the same files:

- page reading per reader against the plain PDFium text floor (open, load each page, its
  text page, `get_text_range()` of the whole page): the target is 2x for PDFium's reader;
- `parse_pdf` per text page against the same floor (target 3x);
- the parse pool's overhead per file against `parse_pdf` in the calling process;
- 1 against 2 parse workers over 100 statements fed from two threads (both cores);
- OCR of a page against bare tesseract on the same rendered image (target 1.1x), with
  what the difference is made of (rendering, the rest).

Each timing is the best of a few interleaved rounds, so that a busy machine disturbs the
ratios less; the page ratios are also given from each file's fastest round with the runs
taking turns file by file, which a host whose speed drifts within seconds disturbs less.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium

from benchmarks import corpora
from parsers.api import parse_pdf
from parsers.limits import Limits
from parsers.ocr.tesseract import TESSERACT_CONFIG, ocr_page, render_page
from parsers.pdf.pdfium_reader import PdfiumReader
from parsers.pdf.pdfplumber_reader import PdfplumberReader
from parsers.worker.pool import ParsePool


def best(runs: dict[str, Callable[[], object]], rounds: int = 3) -> dict[str, float]:
    """Seconds of each run's fastest round; rounds interleave the runs, so that a burst of
    load elsewhere on the machine falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: min(t) for name, t in times.items()}


def floor(files: list[bytes]) -> None:
    for data in files:
        doc = pdfium.PdfDocument(data)
        for page in doc:
            page.get_textpage().get_text_range()
        doc.close()


def each(read: Callable[[bytes], object], files: list[bytes]) -> None:
    """`read` every file, each result let go before the next file, as a parse worker lets
    it go once sent (a round that kept them all would time the collector's walks over
    them too)."""
    for data in files:
        read(data)


def reading(files: list[bytes], pages: int) -> dict[str, float]:
    """ms per page: the floor, each reader, and `parse_pdf` with the default reader."""
    limits = Limits()
    seconds = best({
        "plain text (floor)": lambda: floor(files),
        "pdfium reader": lambda: each(lambda d: PdfiumReader().read(d, limits), files),
        "parse_pdf (pdfium)": lambda: each(lambda d: parse_pdf(d, limits=limits), files),
    })
    seconds.update(best({"pdfplumber reader": lambda: each(
        lambda d: PdfplumberReader().read(d, limits), files)}, rounds=1))
    return {name: 1000 * s / pages for name, s in seconds.items()}


def per_file(files: list[bytes], rounds: int = 7) -> dict[str, float]:
    """Each run's time as a multiple of the floor's, from each file's fastest round, the
    three runs taking turns file by file: a machine whose speed drifts within seconds (a
    shared host) moves whole rounds apart, but hardly one file's three runs."""
    limits = Limits()
    runs: dict[str, Callable[[bytes], object]] = {
        "plain text (floor)": lambda d: floor([d]),
        "pdfium reader": lambda d: PdfiumReader().read(d, limits),
        "parse_pdf (pdfium)": lambda d: parse_pdf(d, limits=limits),
    }
    times = {name: [math.inf] * len(files) for name in runs}
    for _ in range(rounds):
        for i, data in enumerate(files):
            for name, run in runs.items():
                started = time.perf_counter()
                run(data)
                times[name][i] = min(times[name][i], time.perf_counter() - started)
    base = sum(times["plain text (floor)"])
    return {name: sum(t) / base for name, t in times.items()}


def pool_overhead(files: list[bytes]) -> tuple[float, float]:
    """(ms per file in process, ms per file through a one-worker pool), same files."""
    with ParsePool(1) as pool:
        pool.parse(files[0])  # the worker's start is paid once per process, not per file
        seconds = best({"in process": lambda: [parse_pdf(d) for d in files],
                        "pool": lambda: [pool.parse(d) for d in files]})
    return 1000 * seconds["in process"] / len(files), 1000 * seconds["pool"] / len(files)


def workers(files: list[bytes]) -> tuple[float, float]:
    """Seconds for `files` through a pool of one worker fed by one thread, and of two fed
    by two threads, each pool's workers started beforehand."""
    with ParsePool(1) as one, ParsePool(2) as two:
        for pool in (one, two, two):
            pool.parse(files[0])
        seconds = best({"1": lambda: _feed(one, files, 1), "2": lambda: _feed(two, files, 2)})
    return seconds["1"], seconds["2"]


def _feed(pool: ParsePool, files: list[bytes], threads: int) -> None:
    todo = list(files)
    lock = threading.Lock()

    def feed() -> None:
        while True:
            with lock:
                if not todo:
                    return
                data = todo.pop()
            pool.parse(data)

    running = [threading.Thread(target=feed) for _ in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join()


def ocr(scans: list[bytes]) -> dict[str, float]:
    """ms per page: rendering alone, bare tesseract on the rendered image, `ocr_page`."""
    limits = Limits()
    out = {"render": 0.0, "bare tesseract": 0.0, "ocr_page": 0.0}
    folder = Path(tempfile.mkdtemp(prefix="stmtflow-ocr-"))
    for index, data in enumerate(scans):
        doc = pdfium.PdfDocument(data)
        page = doc[0]
        image = folder / f"{index}.pgm"
        render_page(page, 0, limits).save(image)
        bare = ["tesseract", str(image), "stdout", *TESSERACT_CONFIG.split(), "tsv"]
        seconds = best({
            "render": lambda p=page: render_page(p, 0, limits),
            "bare tesseract": lambda b=bare: subprocess.run(b, capture_output=True, check=True),
            "ocr_page": lambda p=page: ocr_page(p, 0, limits),
        })
        for name, s in seconds.items():
            out[name] += s
        doc.close()
    return {k: 1000 * v / len(scans) for k, v in out.items()}


def run(statements: int, seed: int) -> None:
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    samples = corpora.plain(statements, seed)
    files = [s.pdf.read_bytes() for s in samples if s.bank != "meridian"]
    pages = sum(len(pdfium.PdfDocument(d)) for d in files)
    print(f"readers: {len(files)} text statements, {pages} pages; best of 3 interleaved "
          "rounds (pdfplumber: 1)")
    ms = reading(files, pages)
    base = ms["plain text (floor)"]
    for name, value in ms.items():
        print(f"  {name:<20} {value:7.2f} ms/page  {value / base:5.2f}x the floor")
    ratios = per_file(files)
    print(f"  the same, each file's fastest of 7 rounds taken in turns file by file: pdfium "
          f"reader {ratios['pdfium reader']:.2f}x, parse_pdf {ratios['parse_pdf (pdfium)']:.2f}x")

    in_process, pooled = pool_overhead(files[:40])
    print(f"pool overhead: parse_pdf in process {in_process:.1f} ms/file, through a one-worker "
          f"pool {pooled:.1f} ms/file: +{pooled - in_process:.2f} ms/file "
          f"({pooled / in_process:.2f}x)")

    hundred = (files * (100 // len(files) + 1))[:100]
    one, two = workers(hundred)
    print(f"100 statements: 1 worker {one:.2f} s, 2 workers {two:.2f} s: {one / two:.2f}x "
          f"on {os.cpu_count()} cores")

    scans = [s.pdf.read_bytes() for s in samples if s.bank == "meridian"][:4]
    o = ocr(scans)
    bare = o["bare tesseract"]
    print(f"OCR (ms/page, first page of {len(scans)} scans): bare tesseract on the rendered "
          f"image {bare:.0f}; ocr_page {o['ocr_page']:.0f} ({o['ocr_page'] / bare:.2f}x), of "
          f"which rendering {o['render']:.0f} and the rest "
          f"{o['ocr_page'] - bare - o['render']:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.readers")
    ap.add_argument("--statements", type=int, default=72,
                    help="plain corpus size (its scans are the OCR pages)")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    run(args.statements, args.seed)


if __name__ == "__main__":
    main()
