"""The generated sample corpus: statements of the reference layouts with their truth.

`generate(out, banks, statements, seed)` writes `<stem>.pdf` and `<stem>.truth.json` per
statement; bad inputs get `<stem>.truth.json` holding the reason code they must fail with.
Variation is cycled by index so that every corpus of a few dozen files has each kind.
With `varied=True` every reference layout is also drawn with a seeded `Variant` (label
wording, currency and sign forms, page furniture, day-end balances, a second PDF producer,
scan quality, other statement structures) recorded in `<stem>.variant.json`, and the
unknown bank is drawn with a seeded few of the traits real statements print
(`traits.py`, which the generic reader reads);
`statement(bank, Variant(...))` draws one statement with exactly the variations given.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from corpus.bad import BAD_INPUTS, BASIC_BAD
from corpus.bank_exports import CARDS, EXPORT_SETTINGS, write_exports
from corpus.banks import RENDERERS, Printed
from corpus.scan import scan_with, to_scan
from corpus.traits import draw_traits, real_world
from corpus.truth import Draw
from corpus.variant import PLAIN, Variant, draw_variant
from parsers.model import Account

#: the bank no template describes: what the generic parser must read, or refuse
UNKNOWN_BANK = "cedar"
#: every layout the generator draws, in the order a corpus cycles through them
ALL_LAYOUTS = tuple(RENDERERS)
#: the reference layouts, each described by a template of `parsers/templates/`
BANKS = tuple(b for b in ALL_LAYOUTS if b != UNKNOWN_BANK)
#: the banks whose statements are drawn as scans (read through OCR)
SCANNED = frozenset({"meridian"})


def drawable(banks: Iterable[str]) -> tuple[str, ...]:
    """Those of `banks` (the banks of the templates in force, say) the generator can draw,
    in its own order."""
    wanted = set(banks)
    return tuple(b for b in ALL_LAYOUTS if b in wanted)


@dataclass(frozen=True)
class Sample:
    pdf: Path
    truth: Path
    bank: str
    #: The reason code a bad input must fail with; None for a statement.
    reason: str | None = None
    #: `{"kinds": [...], "knobs": {...}}` of a varied statement; empty for a plain one.
    variant: dict[str, Any] = field(default_factory=dict)


def draw_for(index: int, rng: random.Random, scan: bool) -> Draw:
    """The variation of statement `index`: zero, long, large and negative cycle through."""
    if index % 11 == 5:
        count = 0
    elif index % 29 == 13 and not scan:
        count = rng.randint(600, 900)  # 15-30 pages
    elif index % 17 == 9 and scan:
        count = rng.randint(60, 140)  # a long scan: 2-5 pages
    else:
        count = rng.randint(3, 12 if scan else 45)
    return Draw(rng, count, large=index % 7 == 2, negative=index % 5 == 1)


def variant_for(bank: str, index: int, banks: tuple[str, ...], seed: int,
                varied: bool) -> Variant:
    """Statement `index`'s variant: plain, or drawn from (seed, index) apart from the
    statement's own numbers, so a varied statement holds the same money as the plain one."""
    if not varied or bank not in BANKS:
        return PLAIN
    return draw_variant(bank, index // len(banks), random.Random(f"{seed}:{index}:variant"))


def statement(bank: str, variant: Variant = PLAIN, index: int = 0, seed: int = 7) -> Printed:
    """Statement `index` of `bank` drawn with exactly `variant` (a scan for Meridian): for a
    test that pins how one variation is read."""
    rng = random.Random(f"{seed}:{index}")
    drawn = RENDERERS[bank](draw_for(index, rng, bank in SCANNED), variant)
    if bank not in SCANNED:
        return drawn
    pdf = (scan_with(drawn.pdf, variant.scan, np.random.default_rng(rng.randint(0, 2**32 - 1)))
           if variant.scan else to_scan(drawn.pdf, rng))
    return Printed(pdf, drawn.truth, drawn.drawn)


def generate(out: Path, banks: tuple[str, ...] = BANKS, statements: int = 10, seed: int = 7,
             bad: tuple[str, ...] = (), *, varied: bool = False,
             dpi: int | None = None, exports: bool = False) -> list[Sample]:
    """`statements` of `banks` (and the `bad` inputs) written into `out`; with `dpi`, every
    varied scan drawn at that resolution, its other qualities as drawn; with `exports`, each
    statement also as its bank's OFX, CAMT.053, MT940 and CSV (`corpus/bank_exports.py`), and
    the export settings that book their accounts under the bank in `out/.exports.toml`."""
    out.mkdir(parents=True, exist_ok=True)
    unknown = set(banks) - set(ALL_LAYOUTS)
    if unknown:
        raise ValueError(f"unknown bank {sorted(unknown)}; choose from {', '.join(ALL_LAYOUTS)}")
    samples = []
    good = b""
    booked: dict[str, str] = {}
    for i in range(statements):
        bank = banks[i % len(banks)]
        v = variant_for(bank, i, banks, seed, varied)
        if dpi is not None and v.scan is not None:
            v = replace(v, scan=replace(v.scan, dpi=dpi))
        described: dict[str, Any] = {}
        if varied and bank == UNKNOWN_BANK:  # a bank no template knows, as real ones print
            traits = draw_traits(random.Random(f"{seed}:{i}:traits"))
            drawn = real_world(traits, i, seed)
            described = {"kinds": sorted(drawn.drawn), "knobs": {"traits": list(traits)}}
        else:
            drawn = statement(bank, v, i, seed)
        if varied and v is not PLAIN:
            described = {"kinds": _shown(v, drawn), "knobs": v.to_dict()}
        pdf = drawn.pdf
        good = good or pdf
        stem = out / f"{bank}-{seed}-{i:03d}"
        if described:
            stem.with_suffix(".variant.json").write_text(json.dumps(described, indent=1) + "\n")
        samples.append(_write(stem, pdf, json.dumps(drawn.truth.to_dict(), indent=1), bank,
                              variant=described))
        if exports:
            write_exports(drawn.truth, stem, card=bank in CARDS)
            booked.update({a.account_last4: bank for a in drawn.truth.accounts})
    for name in bad:
        reason, make = BAD_INPUTS[name]
        body = json.dumps({"error": reason})
        samples.append(_write(out / f"bad-{name}", make(good or _fallback()), body, "bad", reason))
    if booked:
        (out / EXPORT_SETTINGS).write_text("".join(
            f'[accounts."{last4}"]\nbank = "{bank}"\n' for last4, bank in sorted(booked.items())))
    return samples


def _shown(v: Variant, drawn: Printed) -> list[str]:
    """The variation kinds a reader of the pages meets: a day-end balance or a date printed
    once shows only where a day has two rows."""
    kinds = {*v.kinds(), *drawn.drawn}
    accounts = drawn.truth.accounts
    same_day = any(a.transactions[i].date == a.transactions[i + 1].date
                   for a in accounts for i in range(len(a.transactions) - 1))
    if not same_day:
        kinds -= {"day-end-balance", "date-once"}
    if not _signed_figure(drawn.truth.bank, accounts):
        kinds -= {f"sign:{v.sign}"}
    return sorted(kinds)


def _signed_figure(bank: str, accounts: list[Account]) -> bool:
    """Whether a figure whose sign the variant prints is on the page: a card's credits, a
    negative balance, or (Bluebird's one signed column) a debit."""
    txs = [t for a in accounts for t in a.transactions]
    if bank == "harbor":
        return any(t.amount > 0 for t in txs)
    figures = [b for a in accounts for b in (a.opening_balance, a.closing_balance)]
    figures += [t.balance for t in txs if t.balance is not None]
    if bank == "bluebird":
        figures += [t.amount for t in txs]
    return any(f < 0 for f in figures)


def _fallback() -> bytes:
    return RENDERERS[BANKS[0]](draw_for(0, random.Random(0), False), PLAIN).pdf


def _write(stem: Path, pdf: bytes, truth: str, bank: str, reason: str | None = None,
           variant: dict[str, Any] | None = None) -> Sample:
    pdf_path, truth_path = stem.with_suffix(".pdf"), stem.with_suffix(".truth.json")
    pdf_path.write_bytes(pdf)
    truth_path.write_text(truth + "\n")
    return Sample(pdf_path, truth_path, bank, reason, variant or {})


__all__ = ["ALL_LAYOUTS", "BAD_INPUTS", "BANKS", "BASIC_BAD", "SCANNED", "UNKNOWN_BANK",
           "Printed", "Sample", "Variant", "drawable", "generate", "statement"]
