"""`python -m benchmarks [--statements N] [--skip-flow]`: accuracy and speed, as ratios.

Every speed figure is printed beside a baseline measured in the same run on the same files,
so that the ratio, not the machine, is what is compared:

- parsing accuracy per layout on a generated corpus (exact statements, exact transaction
  fields, statements validated yet different from truth — which must be 0, OCR repairs);
- page reading: pdfplumber words (what layouts use) against pypdfium2's plain text;
- OCR: ms per page at the default 200 dpi against 300 dpi, with the exact rate of each;
- the import flow: files per second with one worker against `STMTFLOW_WORKERS`, and the
  start of Prefect's ephemeral API.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from corpus import ALL_LAYOUTS, generate
from parsers.api import parse_pdf
from parsers.errors import StatementError
from parsers.limits import Limits


def accuracy(samples: list, limits: Limits) -> dict[str, dict[str, float]]:
    per: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for s in samples:
        truth = json.loads(s.truth.read_text())
        row = per[s.bank]
        row["statements"] += 1
        started = time.perf_counter()
        try:
            r = parse_pdf(s.pdf.read_bytes(), limits=limits)
        except StatementError:
            row["errors"] += 1
            continue
        row["seconds"] += time.perf_counter() - started
        row["pages"] += r.pages
        row["ocr_pages"] += r.ocr_pages
        got = r.statement.to_dict()
        row["exact"] += got == truth
        row["validated"] += r.validation.ok
        row["validated_but_wrong"] += r.validation.ok and got != truth
        row["repairs"] += len(r.validation.repairs)
        fields, right = _fields(got, truth)
        row["fields"] += fields
        row["fields_exact"] += right
    return per


def _fields(got: dict, truth: dict) -> tuple[int, int]:
    """Every field of every transaction in the truth, and how many were read exactly."""
    total = right = 0
    for i, acct in enumerate(truth["accounts"]):
        mine = got["accounts"][i]["transactions"] if i < len(got["accounts"]) else []
        for j, t in enumerate(acct["transactions"]):
            other = mine[j] if j < len(mine) else {}
            for key, value in t.items():
                total += 1
                right += other.get(key) == value
    return total, right


def page_reading(samples: list) -> dict[str, float]:
    """ms per page of each reader on the same text pages; pypdfium2 plain text is the floor."""
    import pypdfium2 as pdfium

    from parsers.pdfium_reader import PdfiumReader
    from parsers.reader import PdfplumberReader

    text = [s.pdf.read_bytes() for s in samples if s.bank != "meridian"][:60]
    pages = sum(len(pdfium.PdfDocument(d)) for d in text)
    out = {}
    for name, read in [("pdfplumber", PdfplumberReader().read), ("pdfium", PdfiumReader().read)]:
        t0 = time.perf_counter()
        for d in text:
            read(d, Limits())
        out[name] = 1000 * (time.perf_counter() - t0) / pages
    t0 = time.perf_counter()
    for d in text:
        doc = pdfium.PdfDocument(d)
        for p in doc:
            p.get_textpage().get_text_range()
        doc.close()
    out["plain text"] = 1000 * (time.perf_counter() - t0) / pages
    return out


def flow_throughput(workers: int, folder: Path) -> tuple[float, float]:
    """(seconds for the batch, seconds to the first progress line) of `stmtflow import`."""
    home = tempfile.mkdtemp(prefix="stmtflow-bench-")
    env = {**os.environ, "STMTFLOW_HOME": home, "STMTFLOW_WORKERS": str(workers)}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli", "import", str(folder), "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = None
    assert proc.stderr is not None
    for line in proc.stderr:
        if first is None and line.startswith("["):
            first = time.perf_counter() - started
    out = proc.stdout.read() if proc.stdout else ""
    proc.wait()
    report = json.loads(out)
    return float(report["seconds"]), first or float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("--statements", type=int, default=204)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--skip-flow", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="stmtflow-corpus-"))
    samples = generate(work, ALL_LAYOUTS, args.statements, args.seed)

    print(f"corpus: {len(samples)} statements in {work}\n")
    per = accuracy(samples, Limits())
    print(f"{'layout':<10} {'stmts':>5} {'exact':>7} {'fields':>8} {'valid':>6} "
          f"{'valid!=truth':>12} {'repairs':>7} {'errors':>6} {'ms/page':>8}")
    for bank, r in sorted(per.items()):
        pages = max(r["pages"], 1)
        print(f"{bank:<10} {r['statements']:>5.0f} {r['exact'] / r['statements']:>7.1%} "
              f"{r['fields_exact'] / max(r['fields'], 1):>8.2%} {r['validated']:>6.0f} "
              f"{r['validated_but_wrong']:>12.0f} {r['repairs']:>7.0f} {r['errors']:>6.0f} "
              f"{1000 * r['seconds'] / pages:>8.1f}")

    ms = page_reading(samples)
    print(f"\npage reading (ms/page): pdfplumber words {ms['pdfplumber']:.1f}, PDFium words "
          f"{ms['pdfium']:.1f} (baseline); ratio {ms['pdfplumber'] / ms['pdfium']:.1f}x; "
          f"PDFium plain text, no positions: {ms['plain text']:.2f}")

    scans = [s for s in samples if s.bank == "meridian"][:12]
    timings = {}
    for dpi in (200, 300):
        r = accuracy(scans, Limits(ocr_dpi=dpi))["meridian"]
        timings[dpi] = (1000 * r["seconds"] / max(r["ocr_pages"], 1), r["exact"] / r["statements"])
    print(f"OCR: 200 dpi {timings[200][0]:.0f} ms/page ({timings[200][1]:.0%} exact), 300 dpi "
          f"{timings[300][0]:.0f} ms/page ({timings[300][1]:.0%} exact, baseline); ratio "
          f"{timings[200][0] / timings[300][0]:.2f}")

    if not args.skip_flow:
        batch = Path(tempfile.mkdtemp(prefix="stmtflow-batch-"))
        generate(batch, ("northwind", "bluebird", "harbor", "alpenbank", "meridian"), 40, 99)
        workers = int(os.environ.get("STMTFLOW_WORKERS", os.cpu_count() or 2))
        one, start_one = flow_throughput(1, batch)
        many, start_many = flow_throughput(workers, batch)
        print(f"import flow, 40 files: 1 worker {one:.1f} s ({1000 * one / 40:.0f} ms/file, "
              f"baseline), {workers} workers {many:.1f} s ({1000 * many / 40:.0f} ms/file); "
              f"speed-up {one / many:.2f}x")
        print(f"ephemeral Prefect API up and first file done after "
              f"{statistics.mean([start_one, start_many]):.1f} s")


if __name__ == "__main__":
    main()
