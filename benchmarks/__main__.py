"""`python -m benchmarks [accuracy|speed|reconcile|start|all] [options]`: accuracy and speed,
as ratios.

Each benchmark is a module with a `run(...)` of its own (`accuracy.py`, `speed.py` over the
corpora of `corpora.py`, generated once per run; `reconcile.py` over a synthesised ledger;
`start.py` over one-task flow runs);
this entry point only parses the options and dispatches, so a new benchmark is a new module
and a line here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import accuracy, reconcile, speed, start


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("which", nargs="?", default="all",
                    choices=["accuracy", "speed", "reconcile", "start", "all"])
    ap.add_argument("--statements", type=int, default=204, help="plain corpus size")
    ap.add_argument("--varied", type=int, default=200,
                    help="varied corpus size for accuracy, and statements generated for the "
                         "generation timing (0: none)")
    ap.add_argument("--scans", type=int, default=0,
                    help="also measure OCR on this many varied scans, per scan quality")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--skip-flow", action="store_true")
    ap.add_argument("--jobs", type=int, default=20_000, help="reconcile: ledger size")
    ap.add_argument("--rounds", type=int, default=3, help="reconcile, start: interleaved rounds")
    ap.add_argument("--sample", type=int, default=1000,
                    help="reconcile: statements the book takes one by one and batched")
    ap.add_argument("--keep", type=Path, help="reconcile: keep the synthesised ledger here")
    args = ap.parse_args()
    if args.which in ("accuracy", "all"):
        accuracy.run(args.statements, args.seed, args.varied, args.scans)
        print()
    if args.which in ("speed", "all"):
        speed.run(args.statements, args.seed, args.varied, args.skip_flow)
        print()
    if args.which in ("reconcile", "all"):
        reconcile.run(args.jobs, args.rounds, args.sample, args.seed, args.keep)
        print()
    if args.which in ("start", "all"):
        start.run(args.rounds)


if __name__ == "__main__":
    main()
