"""The generated corpora the benchmarks share, made once per run and per size and seed."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from corpus import ALL_LAYOUTS, BANKS, Sample, generate


@cache
def work() -> Path:
    return Path(tempfile.mkdtemp(prefix="stmtflow-corpus-"))


@cache
def plain(statements: int, seed: int) -> list[Sample]:
    """Every layout, the unknown bank included, as the reference layouts print them."""
    return generate(work() / f"plain-{statements}-{seed}", ALL_LAYOUTS, statements, seed)


@cache
def varied(statements: int, seed: int) -> list[Sample]:
    """The five reference layouts with the variations real statements show."""
    return generate(work() / f"varied-{statements}-{seed}", BANKS, statements, seed,
                    varied=True)


@cache
def scans(statements: int, seed: int, dpi: int | None = None) -> list[Sample]:
    """Meridian's scans only, each of a drawn quality (150-300 dpi unless `dpi` is given,
    skew, noise, blur, JPEG, photographs)."""
    return generate(work() / f"scans-{statements}-{seed}-{dpi}", ("meridian",), statements,
                    seed, varied=True, dpi=dpi)
