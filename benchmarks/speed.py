"""Speed, always as a ratio against a baseline measured in the same run on the same files:

- page reading: pdfplumber words (what layouts use) against PDFium words and plain text;
- OCR: ms per page at the default 200 dpi against 300 dpi, with the exact rate of each;
- writing a statement's outputs: the direct CSV and Parquet writers against the same objects
  made through a pandas data frame;
- generating the corpus: varied statements against plain ones;
- the import flow: files per second with one worker against `STMTFLOW_WORKERS`, and the
  start of Prefect's ephemeral API.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import corpora
from benchmarks.accuracy import by_bank, read
from corpus import BANKS, SCANNED, Sample, drawable, generate
from flows.config import Settings
from flows.parser import Parser
from parsers.codes import Status
from parsers.limits import Limits


def page_reading(samples: list[Sample]) -> dict[str, float]:
    """ms per page of each reader on the same text pages; pypdfium2 plain text is the floor."""
    import pypdfium2 as pdfium

    from parsers.pdf.pdfium_reader import PdfiumReader
    from parsers.pdf.pdfplumber_reader import PdfplumberReader

    text = [s.pdf.read_bytes() for s in samples if s.bank not in SCANNED][:60]
    pages = sum(len(pdfium.PdfDocument(d)) for d in text)
    out = {}
    for name, reader in [("pdfplumber", PdfplumberReader().read), ("pdfium", PdfiumReader().read)]:
        t0 = time.perf_counter()
        for d in text:
            reader(d, Limits())
        out[name] = 1000 * (time.perf_counter() - t0) / pages
    t0 = time.perf_counter()
    for d in text:
        doc = pdfium.PdfDocument(d)
        for p in doc:
            p.get_textpage().get_text_range()
        doc.close()
    out["plain text"] = 1000 * (time.perf_counter() - t0) / pages
    return out


def ocr_dpi(samples: list[Sample]) -> dict[int, tuple[float, float]]:
    """(ms per OCR page, exact share) of twelve scans at 200 and at 300 dpi."""
    scans = [s for s in samples if s.bank == "meridian"][:12]
    out = {}
    for dpi in (200, 300):
        tally = by_bank([read(s, Limits(ocr_dpi=dpi)) for s in scans])["meridian"]
        out[dpi] = (1000 * tally.seconds / max(tally.ocr_pages, 1), tally.share("exact"))
    return out


def output_writing(rounds: int = 5) -> tuple[float, float]:
    """ms per statement to make its three objects: (direct writers, through a data frame),
    medians of interleaved rounds over forty statements of the reference layouts."""
    import io

    import pandas as pd

    from corpus import statement
    from flows.job_files import COLUMNS, output_files, statement_document
    from parsers.api import ParseResult
    from parsers.validate import Validation
    from reconcile.records import Job

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    job = Job("j-1", "b-1", "/s.pdf", "/i", 1, "0" * 64, t0, t0, "c", "o", "p",
              Status.PROCESSING)
    results = [ParseResult(statement(bank, index=i, seed=3).truth, Validation(ok=True), bank,
                           1, 0) for bank in BANKS for i in range(8)]

    def through_pandas(r: ParseResult) -> dict[str, bytes]:
        doc = statement_document(r, job)
        rows = [{"account_last4": a["account_last4"], "currency": a["currency"], **t}
                for a in doc["accounts"] for t in a["transactions"]]
        frame = pd.DataFrame(rows, columns=COLUMNS).astype("string")
        parquet = io.BytesIO()
        frame.to_parquet(parquet, index=False)
        return {"statement.json": json.dumps(doc, indent=1, sort_keys=True).encode() + b"\n",
                "transactions.csv": frame.to_csv(index=False).encode(),
                "transactions.parquet": parquet.getvalue()}

    direct, frames = [], []
    for _ in range(rounds):
        for make, out in ((lambda r: output_files(r, job), direct), (through_pandas, frames)):
            t = time.perf_counter()
            for r in results:
                make(r)
            out.append(1000 * (time.perf_counter() - t) / len(results))
    return statistics.median(direct), statistics.median(frames)


def generation(statements: int, seed: int) -> tuple[float, float]:
    """Seconds to generate `statements` plain and `statements` varied statements."""
    times = []
    for varied in (False, True):
        work = Path(tempfile.mkdtemp(prefix="stmtflow-gen-"))
        t0 = time.perf_counter()
        generate(work, BANKS, statements, seed, varied=varied)
        times.append(time.perf_counter() - t0)
    return times[0], times[1]


def flow_throughput(workers: int, folder: Path) -> tuple[float, float]:
    """(seconds for the batch, seconds to the first progress line) of `stmtflow import`."""
    home = tempfile.mkdtemp(prefix="stmtflow-bench-")
    env = {**os.environ, "STMTFLOW_HOME": home, "STMTFLOW_WORKERS": str(workers)}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli", "import", str(folder), "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = None
    if proc.stderr is None:
        raise RuntimeError("no stderr from the import")
    for line in proc.stderr:
        if first is None and line.startswith("["):
            first = time.perf_counter() - started
    out = proc.stdout.read() if proc.stdout else ""
    proc.wait()
    report = json.loads(out)
    return float(report["seconds"]), first or float("nan")


def run(statements: int, seed: int, generate_statements: int, skip_flow: bool) -> None:
    samples = corpora.plain(statements, seed)
    ms = page_reading(samples)
    print(f"page reading (ms/page): pdfplumber words {ms['pdfplumber']:.1f}, PDFium words "
          f"{ms['pdfium']:.1f} (baseline); ratio {ms['pdfplumber'] / ms['pdfium']:.1f}x; "
          f"PDFium plain text, no positions: {ms['plain text']:.2f}")

    timings = ocr_dpi(samples)
    print(f"OCR: 200 dpi {timings[200][0]:.0f} ms/page ({timings[200][1]:.0%} exact), 300 dpi "
          f"{timings[300][0]:.0f} ms/page ({timings[300][1]:.0%} exact, baseline); ratio "
          f"{timings[200][0] / timings[300][0]:.2f}")

    direct, frames = output_writing()
    print(f"writing a statement's outputs (ms): through a pandas data frame {frames:.1f} "
          f"(baseline), direct writers {direct:.1f}; ratio {frames / direct:.1f}x")

    if generate_statements:
        plain, varied = generation(generate_statements, seed)
        print(f"generating {generate_statements} statements: plain {plain:.1f} s (baseline), "
              f"varied {varied:.1f} s; ratio {varied / plain:.2f}")

    if not skip_flow:
        batch = corpora.work() / "batch"
        settings = Settings.from_env()
        generate(batch, drawable(Parser.from_settings(settings).banks), 40, 99)
        workers = settings.workers
        one, start_one = flow_throughput(1, batch)
        many, start_many = flow_throughput(workers, batch)
        print(f"import flow, 40 files: 1 worker {one:.1f} s ({1000 * one / 40:.0f} ms/file, "
              f"baseline), {workers} workers {many:.1f} s ({1000 * many / 40:.0f} ms/file); "
              f"speed-up {one / many:.2f}x")
        print(f"ephemeral Prefect API up and first file done after "
              f"{statistics.mean([start_one, start_many]):.1f} s")
