"""`python -m benchmarks [WHICH] [options]`: accuracy, speed and robustness, as ratios and counts.

Each benchmark is a module with a `run(...)` of its own over the corpora of `corpora.py`
(generated once per run) or a synthesised ledger: `accuracy.py`, `generic.py` (the generic
reader alone), `realworld.py`, `stages.py` (parse time per stage), `scans.py`, `speed.py`,
`overhead.py`, `ledger.py`, `reconcile.py`, `start.py`, `memory.py`, `exports.py` (bank
exports beside their PDFs), and `fuzz.py` and `foreign_scans.py` (scans from another
producer), which run only when asked. This entry point
only parses the options and dispatches, so a new benchmark is a new module and a line here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import (
    accuracy,
    dask_scale,
    exports,
    foreign_scans,
    fuzz,
    generic,
    ledger,
    memory,
    overhead,
    realworld,
    reconcile,
    scans,
    speed,
    stages,
    start,
)

EVERY = ["accuracy", "generic", "realworld", "stages", "scans", "speed", "overhead",
         "ledger", "reconcile", "start", "memory", "exports"]


def _sizes(text: str) -> list[int]:
    return [int(n) for n in text.split(",") if n.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("which", nargs="?", default="all",
                    choices=[*EVERY, "fuzz", "foreign-scans", "dask", "all"],
                    help="all: every benchmark but fuzz, foreign-scans and dask, which run "
                         "on their own")
    ap.add_argument("--statements", type=int, default=204, help="plain corpus size")
    ap.add_argument("--varied", type=int, default=200,
                    help="varied corpus size for accuracy, and statements generated for the "
                         "readers' speed comparison")
    ap.add_argument("--scans", type=int, default=0,
                    help="also measure OCR on this many varied scans, per scan quality")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--skip-flow", action="store_true")
    ap.add_argument("--workers", type=int, default=2,
                    help="scans, fuzz, overhead, memory: parse worker processes (scans: 0 "
                         "parses in this process)")
    ap.add_argument("--keep", type=Path,
                    help="fuzz: keep crashing and wrong mutants here; reconcile: the ledger")
    ap.add_argument("--realworld", type=Path, default=None,
                    help="realworld: the folder of real statements (default: "
                         "../shared/realworld beside the checkout)")
    ap.add_argument("--verbose", action="store_true",
                    help="realworld: each reading's first problem or reason as well")
    ap.add_argument("--scan-statements", type=int, default=200,
                    help="scans: statements scanned")
    ap.add_argument("--scan-dpi", type=int, default=None,
                    help="scans: draw every scan at this resolution")
    ap.add_argument("--cost-pages", type=int, default=6,
                    help="scans: pages timed against bare tesseract on the same image")
    ap.add_argument("--engines", default="both",
                    help="scans: comma-separated OCR engine combinations read in turn (both, "
                         "first: tesseract alone, second: the second engine alone)")
    ap.add_argument("--ocr-cache", type=Path, default=None,
                    help="scans, foreign-scans: keep tesseract's answers here and reuse them "
                         "(rules only)")
    ap.add_argument("--dir", type=Path, default=None,
                    help="scans, foreign-scans: where the scan corpus is written, reused by "
                         "later runs")
    ap.add_argument("--foreign", type=int, default=48,
                    help="foreign-scans: statements photocopied by another producer")
    ap.add_argument("--files", type=_sizes, default=None,
                    help="overhead: text statements through `stmtflow import` (default 100); "
                         "dask: the batch's size (default 200); "
                         "memory: comma-separated batch sizes compared (default 100,2000)")
    ap.add_argument("--jobs", type=int, default=20_000, help="reconcile: ledger size")
    ap.add_argument("--cycles", type=int, default=1000,
                    help="ledger: files claimed and finished on each ledger")
    ap.add_argument("--rounds", type=int, default=3, help="reconcile, start: interleaved rounds")
    ap.add_argument("--sample", type=int, default=1000,
                    help="reconcile: statements the book takes one by one and batched")
    ap.add_argument("--n", type=int, default=1000, help="fuzz: mutants to parse")
    ap.add_argument("--base", type=int, default=24, help="fuzz: generated statements mutated")
    ap.add_argument("--reader", default="pdfium", help="fuzz: the page reader")
    ap.add_argument("--fuzz-varied", action="store_true",
                    help="fuzz: mutate statements drawn with variations, not plain layouts")
    ap.add_argument("--only", type=int, nargs="+", help="fuzz: these mutant indices only")
    ap.add_argument("--minutes", type=float, help="fuzz: start no mutant after this long")
    ap.add_argument("--start", type=int, default=0,
                    help="fuzz: the first mutant index (a run cut short goes on from there)")
    args = ap.parse_args()
    chosen = EVERY if args.which == "all" else [args.which]
    runs = {
        "accuracy": lambda: accuracy.run(args.statements, args.seed, args.varied, args.scans),
        "generic": lambda: generic.run(args.varied, args.seed),
        "realworld": lambda: realworld.run(args.realworld, args.workers, args.verbose),
        "stages": lambda: stages.run(min(args.statements, 40), args.seed, args.realworld),
        "scans": lambda: scans.run(args.scan_statements, args.seed, args.workers, args.dir,
                                   args.scan_dpi, args.cost_pages, args.ocr_cache,
                                   tuple(args.engines.split(","))),
        "speed": lambda: speed.run(args.statements, args.seed, args.varied, args.skip_flow),
        "overhead": lambda: overhead.run((args.files or [100])[0], args.seed, args.workers),
        "ledger": lambda: ledger.run(args.cycles),
        "memory": lambda: memory.run(args.files or [100, 2000], args.seed, args.workers),
        "reconcile": lambda: reconcile.run(args.jobs, args.rounds, args.sample, args.seed,
                                           args.keep),
        "start": lambda: start.run(args.rounds),
        "exports": lambda: exports.run(min(args.statements, 60), args.seed),
        "dask": lambda: dask_scale.run((args.files or [200])[0], args.seed),
        "foreign-scans": lambda: foreign_scans.run(args.foreign, args.seed, args.workers,
                                                   args.dir, args.ocr_cache),
        "fuzz": lambda: fuzz.run(args.n, args.seed, args.base, args.workers, args.reader,
                                 args.keep, args.only, args.minutes, args.start,
                                 args.fuzz_varied),
    }
    for name in chosen:
        try:
            runs[name]()
        except fuzz.HarnessBroken as exc:
            sys.exit(f"fuzz: the harness is broken, no count above means anything: {exc}")
        print()


if __name__ == "__main__":
    main()
