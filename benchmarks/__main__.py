"""`python -m benchmarks [accuracy|scans|speed|all] [options]`: accuracy, scans and speed.

Each benchmark is a module with a `run(...)` of its own (`accuracy.py`, `scans.py`,
`speed.py`) over
the corpora of `corpora.py`, generated once per run; this entry point only parses the
options and dispatches, so a new benchmark is a new module and a line here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import accuracy, scans, speed


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("which", nargs="?", default="all",
                    choices=["accuracy", "scans", "speed", "all"])
    ap.add_argument("--statements", type=int, default=204, help="plain corpus size")
    ap.add_argument("--varied", type=int, default=200,
                    help="varied corpus size for accuracy, and statements generated for the "
                         "generation timing (0: none)")
    ap.add_argument("--scans", type=int, default=0,
                    help="also measure OCR on this many varied scans, per scan quality")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--scan-statements", type=int, default=200,
                    help="scans for the scan benchmark (`scans`)")
    ap.add_argument("--workers", type=int, default=2,
                    help="parse worker processes of the scan benchmark (0: in this process)")
    ap.add_argument("--dir", type=Path, default=None,
                    help="where the scan benchmark writes its corpus, reused by later runs")
    ap.add_argument("--skip-flow", action="store_true")
    args = ap.parse_args()
    if args.which in ("accuracy", "all"):
        accuracy.run(args.statements, args.seed, args.varied, args.scans)
        print()
    if args.which in ("scans", "all"):
        scans.run(args.scan_statements, args.seed, args.workers, args.dir)
        print()
    if args.which in ("speed", "all"):
        speed.run(args.statements, args.seed, args.varied, args.skip_flow)


if __name__ == "__main__":
    main()
