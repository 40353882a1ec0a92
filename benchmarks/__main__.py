"""`python -m benchmarks [accuracy|speed|fuzz|all] [options]`: accuracy, speed, fuzzing.

Each benchmark is a module with a `run(...)` of its own (`accuracy.py`, `speed.py`, `fuzz.py`) over
the corpora of `corpora.py`, generated once per run; this entry point only parses the
options and dispatches, so a new benchmark is a new module and a line here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import accuracy, fuzz, speed


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("which", nargs="?", default="all", choices=["accuracy", "speed", "fuzz", "all"],
                    help="all: accuracy and speed (fuzz runs on its own)")
    ap.add_argument("--statements", type=int, default=204, help="plain corpus size")
    ap.add_argument("--varied", type=int, default=200,
                    help="varied corpus size for accuracy, and statements generated for the "
                         "generation timing (0: none)")
    ap.add_argument("--scans", type=int, default=0,
                    help="also measure OCR on this many varied scans, per scan quality")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--skip-flow", action="store_true")
    ap.add_argument("--n", type=int, default=1000, help="fuzz: mutants to parse")
    ap.add_argument("--base", type=int, default=24, help="fuzz: generated statements mutated")
    ap.add_argument("--workers", type=int, default=2, help="fuzz: parse worker processes")
    ap.add_argument("--reader", default="pdfium", help="fuzz: the page reader")
    ap.add_argument("--keep", type=Path, help="fuzz: folder to keep crashing and wrong mutants")
    ap.add_argument("--only", type=int, nargs="+", help="fuzz: these mutant indices only")
    ap.add_argument("--minutes", type=float, help="fuzz: start no mutant after this long")
    args = ap.parse_args()
    if args.which in ("accuracy", "all"):
        accuracy.run(args.statements, args.seed, args.varied, args.scans)
        print()
    if args.which == "fuzz":
        fuzz.run(args.n, args.seed, args.base, args.workers, args.reader, args.keep, args.only,
                 args.minutes)
    if args.which in ("speed", "all"):
        speed.run(args.statements, args.seed, args.varied, args.skip_flow)


if __name__ == "__main__":
    main()
