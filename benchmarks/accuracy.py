"""Parsing accuracy on a generated corpus, plain and varied.

Every statement ends in one of these outcomes: **exact** (validated and equal to its truth),
**flagged** (read but not validated: needs review), **refused** (a reason code), **wrong**
(validated yet different from its truth — the outcome that must stay 0), **other**
(validated, every account right, but read under another layout's name, e.g. by the generic
reader) and **crashed** (an exception that is not a classified `StatementError`, counted
with its type so that it is found rather than stopping the run). Outcomes are counted per
bank and, on the varied corpus, per variation kind (over every statement that shows the
kind, and over those that show it alone); beside them the share of transaction fields read
exactly, OCR repairs and ms per page.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmarks import corpora
from corpus import Sample
from parsers.api import ParseResult, parse_pdf
from parsers.errors import StatementError
from parsers.limits import Limits

OUTCOMES = ("exact", "flagged", "refused", "wrong", "other", "crashed")


@dataclass
class Tally:
    """Outcomes and field counts of a group of statements."""

    statements: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    fields: int = 0
    fields_exact: int = 0
    validated: int = 0
    repairs: int = 0
    pages: int = 0
    ocr_pages: int = 0
    seconds: float = 0.0

    def add(self, r: Result) -> None:
        self.statements += 1
        self.outcomes[r.outcome] += 1
        if r.reason:
            self.reasons[r.reason] += 1
        self.fields += r.fields
        self.fields_exact += r.fields_exact
        self.validated += r.validated
        self.repairs += r.repairs
        self.pages += r.pages
        self.ocr_pages += r.ocr_pages
        self.seconds += r.seconds

    def share(self, outcome: str) -> float:
        return self.outcomes[outcome] / max(self.statements, 1)


@dataclass(frozen=True)
class Result:
    sample: Sample
    outcome: str
    reason: str = ""
    fields: int = 0
    fields_exact: int = 0
    validated: bool = False
    repairs: int = 0
    pages: int = 0
    ocr_pages: int = 0
    seconds: float = 0.0
    #: Why a statement was flagged (the validation's problems), or the refusal's message.
    problems: tuple[str, ...] = ()


def read(s: Sample, limits: Limits,
         parse: Callable[[bytes], ParseResult] | None = None) -> Result:
    """Parse one statement (here, or with `parse`) and compare it with its truth."""
    truth = json.loads(s.truth.read_text())
    started = time.perf_counter()
    try:
        r = parse(s.pdf.read_bytes()) if parse else parse_pdf(s.pdf.read_bytes(), limits=limits)
    except StatementError as exc:
        fields, _ = field_counts({"accounts": []}, truth)
        return Result(s, "refused", exc.reason, fields, problems=(str(exc),))
    except Exception as exc:  # an unclassified error is a finding, not a reason to stop
        fields, _ = field_counts({"accounts": []}, truth)
        return Result(s, "crashed", type(exc).__name__, fields)
    seconds = time.perf_counter() - started
    got = r.statement.to_dict()
    ok = r.validation.ok
    if not ok:
        outcome = "flagged"
    elif got["accounts"] != truth["accounts"]:
        outcome = "wrong"
    else:
        outcome = "exact" if got == truth else "other"
    fields, right = field_counts(got, truth)
    return Result(s, outcome, "", fields, right, ok, len(r.validation.repairs), r.pages,
                  r.ocr_pages, seconds, tuple(r.validation.problems))


def field_counts(got: dict, truth: dict) -> tuple[int, int]:
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


def by_bank(results: list[Result]) -> dict[str, Tally]:
    out: dict[str, Tally] = defaultdict(Tally)
    for r in results:
        out[r.sample.bank].add(r)
    return dict(sorted(out.items()))


def by_kind(results: list[Result], alone: bool = False) -> dict[str, Tally]:
    """Tallies per variation kind (a statement counts once in each kind it shows); `alone`
    keeps the statements drawn with that one variation (a scan's quality aside)."""
    out: dict[str, Tally] = defaultdict(Tally)
    for r in results:
        if alone and not r.sample.variant.get("knobs", {}).get("isolated"):
            continue
        for kind in r.sample.variant.get("kinds", []) or ["plain"]:
            out[kind].add(r)
    return dict(sorted(out.items()))


def table(title: str, tallies: dict[str, Tally], name: str = "layout") -> str:
    lines = [title, f"{name:<26} {'stmts':>5} {'exact':>6} {'flagged':>7} {'refused':>7} "
             f"{'wrong':>5} {'other':>5} {'crash':>5} {'valid':>5} {'exact%':>7} {'fields':>7} "
             f"{'repairs':>7} "
             f"{'ms/page':>7}  reasons"]
    for key, t in tallies.items():
        reasons = ", ".join(f"{k} {n}" for k, n in t.reasons.most_common(3))
        lines.append(
            f"{key:<26} {t.statements:>5} {t.outcomes['exact']:>6} {t.outcomes['flagged']:>7} "
            f"{t.outcomes['refused']:>7} {t.outcomes['wrong']:>5} {t.outcomes['other']:>5} "
            f"{t.outcomes['crashed']:>5} "
            f"{t.validated:>5} "
            f"{t.share('exact'):>7.1%} "
            f"{t.fields_exact / max(t.fields, 1):>7.1%} {t.repairs:>7} "
            f"{1000 * t.seconds / max(t.pages, 1):>7.1f}  {reasons}")
    return "\n".join(lines)


def scan_quality(results: list[Result]) -> dict[str, Tally]:
    """Scans per quality kind, and the scans whose only variation is their quality."""
    out = {k: t for k, t in by_kind(results).items() if k.startswith("scan:")}
    alone = [r for r in results if r.sample.variant.get("knobs", {}).get("isolated")
             and all(k.startswith("scan:") for k in r.sample.variant["kinds"])]
    for kind, tally in by_kind(alone).items():
        out[f"{kind} alone"] = tally
    return dict(sorted(out.items()))


def run(statements: int, seed: int, varied_statements: int, scans: int = 0) -> None:
    if statements:
        samples = corpora.plain(statements, seed)
        print(f"plain corpus: {len(samples)} statements in {samples[0].pdf.parent}\n")
        results = [read(s, Limits()) for s in samples]
        print(table("plain corpus, per layout", by_bank(results)))
    if varied_statements:
        samples = corpora.varied(varied_statements, seed)
        print(f"\nvaried corpus: {len(samples)} statements in {samples[0].pdf.parent}\n")
        results = [read(s, Limits()) for s in samples]
        print(table("varied corpus, per layout", by_bank(results)))
        print()
        print(table("varied corpus, per variation kind (mixed with others)", by_kind(results),
                    "kind"))
        print()
        print(table("varied corpus, per variation kind (that variation alone)",
                    by_kind(results, alone=True), "kind"))
    if scans:
        samples = corpora.scans(scans, seed)
        print(f"\nvaried scans: {len(samples)} statements in {samples[0].pdf.parent}\n")
        results = [read(s, Limits()) for s in samples]
        print(table("varied scans, per quality", scan_quality(results), "quality"))
        crashed = [f"{r.sample.pdf.name} ({r.reason})" for r in results if r.outcome == "crashed"]
        if crashed:
            print(f"crashed: {', '.join(crashed)}")
