"""`python -m benchmarks.readers [--statements N]`: page reading, parsing and the parse
workers, each as a ratio against a floor measured in the same run on the same files:

- page reading per reader against the plain PDFium text floor (open, load each page, its
  text page, `get_text_range()` of the whole page): the target is 2x for PDFium's reader;
- `parse_pdf` per text page against the same floor (target 3x);
- the parse pool's overhead per file against `parse_pdf` in the calling process;
- 1 against 2 parse workers over 100 statements fed from two threads (both cores);
- OCR of a page against bare tesseract on the same rendered image (target 1.1x), with
  what the difference is made of (rendering, the rest).

Each timing is the best of a few rounds, so that a busy machine disturbs the ratio less.
"""

from __future__ import annotations

import argparse
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
from parsers.ocr import TESSERACT_CONFIG, ocr_page, render_page
from parsers.pdfium_reader import PdfiumReader
from parsers.pool import ParsePool
from parsers.reader import PdfplumberReader


def best(run: Callable[[], object], rounds: int = 3) -> float:
    """Seconds of the fastest of `rounds` runs."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def floor(files: list[bytes]) -> None:
    for data in files:
        doc = pdfium.PdfDocument(data)
        for page in doc:
            page.get_textpage().get_text_range()
        doc.close()


def reading(files: list[bytes], pages: int) -> dict[str, float]:
    """ms per page: the floor, each reader, and `parse_pdf` with the default reader."""
    limits = Limits()
    runs: dict[str, Callable[[], object]] = {
        "plain text (floor)": lambda: floor(files),
        "pdfium reader": lambda: [PdfiumReader().read(d, limits) for d in files],
        "pdfplumber reader": lambda: [PdfplumberReader().read(d, limits) for d in files],
        "parse_pdf (pdfium)": lambda: [parse_pdf(d, limits=limits) for d in files],
    }
    return {name: 1000 * best(run, 1 if "pdfplumber" in name else 3) / pages
            for name, run in runs.items()}


def pool_overhead(files: list[bytes]) -> tuple[float, float]:
    """(ms per file in process, ms per file through a one-worker pool), same files."""
    with ParsePool(1) as pool:
        pool.parse(files[0])  # the worker's start is paid once per process, not per file
        through_pool = best(lambda: [pool.parse(d) for d in files])
    in_process = best(lambda: [parse_pdf(d) for d in files])
    return 1000 * in_process / len(files), 1000 * through_pool / len(files)


def workers(files: list[bytes], count: int) -> float:
    """Seconds for `files` through a pool of `count` workers fed by `count` threads."""
    with ParsePool(count) as pool:
        for _ in range(count):
            pool.parse(files[0])
        todo = list(files)
        lock = threading.Lock()

        def feed() -> None:
            while True:
                with lock:
                    if not todo:
                        return
                    data = todo.pop()
                pool.parse(data)

        started = time.perf_counter()
        threads = [threading.Thread(target=feed) for _ in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - started


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
        runs: dict[str, Callable[[], object]] = {
            "render": lambda p=page: render_page(p, 0, limits),
            "bare tesseract": lambda b=bare: subprocess.run(b, capture_output=True, check=True),
            "ocr_page": lambda p=page: ocr_page(p, 0, limits),
        }
        for name, step in runs.items():
            out[name] += best(step)
        doc.close()
    return {k: 1000 * v / len(scans) for k, v in out.items()}


def run(statements: int, seed: int) -> None:
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    samples = corpora.plain(statements, seed)
    files = [s.pdf.read_bytes() for s in samples if s.bank != "meridian"]
    pages = sum(len(pdfium.PdfDocument(d)) for d in files)
    print(f"readers: {len(files)} text statements, {pages} pages; best of 3 rounds "
          "(pdfplumber: 1)")
    ms = reading(files, pages)
    base = ms["plain text (floor)"]
    for name, value in ms.items():
        print(f"  {name:<20} {value:7.2f} ms/page  {value / base:5.2f}x the floor")

    in_process, pooled = pool_overhead(files[:40])
    print(f"pool overhead: parse_pdf in process {in_process:.1f} ms/file, through a one-worker "
          f"pool {pooled:.1f} ms/file: +{pooled - in_process:.2f} ms/file "
          f"({pooled / in_process:.2f}x)")

    hundred = (files * (100 // len(files) + 1))[:100]
    one, two = workers(hundred, 1), workers(hundred, 2)
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
