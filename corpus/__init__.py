"""The generated sample corpus: statements of the reference layouts with their truth.

`generate(out, banks, statements, seed)` writes `<stem>.pdf` and `<stem>.truth.json` per
statement; bad inputs get `<stem>.truth.json` holding the reason code they must fail with.
Variation is cycled by index so that every corpus of a few dozen files has each kind.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from corpus.bad import BAD_INPUTS, BASIC_BAD
from corpus.banks import RENDERERS
from corpus.scan import to_scan
from corpus.truth import Draw

BANKS = ("northwind", "bluebird", "harbor", "alpenbank", "meridian")
ALL_LAYOUTS = (*BANKS, "cedar")


@dataclass(frozen=True)
class Sample:
    pdf: Path
    truth: Path
    bank: str
    #: The reason code a bad input must fail with; None for a statement.
    reason: str | None = None


def draw_for(index: int, rng: random.Random, scan: bool) -> Draw:
    """The variation of statement `index`: zero, long, large and negative cycle through."""
    if index % 11 == 5:
        count = 0
    elif index % 29 == 13 and not scan:
        count = rng.randint(600, 900)  # 15-30 pages
    else:
        count = rng.randint(3, 12 if scan else 45)
    return Draw(rng, count, large=index % 7 == 2, negative=index % 5 == 1)


def generate(out: Path, banks: tuple[str, ...] = BANKS, statements: int = 10, seed: int = 7,
             bad: tuple[str, ...] = ()) -> list[Sample]:
    out.mkdir(parents=True, exist_ok=True)
    unknown = set(banks) - set(ALL_LAYOUTS)
    if unknown:
        raise ValueError(f"unknown bank {sorted(unknown)}; choose from {', '.join(ALL_LAYOUTS)}")
    samples = []
    good = b""
    for i in range(statements):
        bank = banks[i % len(banks)]
        rng = random.Random(f"{seed}:{i}")
        pdf, truth = RENDERERS[bank](draw_for(i, rng, bank == "meridian"))
        if bank == "meridian":
            pdf = to_scan(pdf, rng)
        good = good or pdf
        stem = out / f"{bank}-{seed}-{i:03d}"
        samples.append(_write(stem, pdf, json.dumps(truth.to_dict(), indent=1), bank))
    for name in bad:
        reason, make = BAD_INPUTS[name]
        body = json.dumps({"error": reason})
        samples.append(_write(out / f"bad-{name}", make(good or _fallback()), body, "bad", reason))
    return samples


def _fallback() -> bytes:
    return RENDERERS["northwind"](draw_for(0, random.Random(0), False))[0]


def _write(stem: Path, pdf: bytes, truth: str, bank: str, reason: str | None = None) -> Sample:
    pdf_path, truth_path = stem.with_suffix(".pdf"), stem.with_suffix(".truth.json")
    pdf_path.write_bytes(pdf)
    truth_path.write_text(truth + "\n")
    return Sample(pdf_path, truth_path, bank, reason)


__all__ = ["ALL_LAYOUTS", "BAD_INPUTS", "BANKS", "BASIC_BAD", "Sample", "generate"]
