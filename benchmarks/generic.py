"""The generic reader alone: no template in force, on the varied corpus and on real files.

On the varied corpus every born-digital statement of the reference layouts (the scanned
layout aside) is parsed with no template at all, so the generic reader reads all of them;
its outcomes are those of `accuracy.py` (exact here means validated with every account equal
to the truth: the bank is `generic`). With `--realworld DIR`, every PDF of DIR is read the
same way and reported per file, then counted: validated or flagged (needs review) or refused
with its reason; where DIR holds an expected output beside the file (`NAME-expected.json` in
stan's form, `NAME.expected.csv` of date, description, amount, balance), a validated
statement is compared with it on dates, amounts and (where both print one) balances: exact
or wrong (`validated` alone is a statement with nothing to compare with).
"""

from __future__ import annotations

import csv
import json
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path

from benchmarks import corpora
from benchmarks.accuracy import Result, Tally, by_bank, field_counts, table
from corpus import SCANNED, Sample
from parsers.api import ParseResult, parse_pdf
from parsers.errors import StatementError

Money = tuple[str, Decimal, Decimal | None]


def read(s: Sample) -> Result:
    """Parse one statement with no template and compare its accounts with the truth."""
    truth = json.loads(s.truth.read_text())
    started = time.perf_counter()
    try:
        r = parse_pdf(s.pdf.read_bytes(), templates=[])
    except StatementError as exc:
        return Result(s, "refused", exc.reason, field_counts({"accounts": []}, truth)[0])
    except Exception as exc:  # an unclassified error is a finding, not a reason to stop
        return Result(s, "crashed", type(exc).__name__, field_counts({"accounts": []}, truth)[0])
    got = r.statement.to_dict()
    outcome = ("flagged" if not r.validation.ok else
               "exact" if got["accounts"] == truth["accounts"] else "wrong")
    fields, right = field_counts(got, truth)
    return Result(s, outcome, "", fields, right, r.validation.ok, pages=r.pages,
                  seconds=time.perf_counter() - started)


def varied(statements: int, seed: int) -> dict[str, Tally]:
    samples = [s for s in corpora.varied(statements, seed) if s.bank not in SCANNED]
    print(f"varied corpus, born-digital, no template in force: {len(samples)} statements "
          f"in {samples[0].pdf.parent}\n")
    tallies = by_bank([read(s) for s in samples])
    total = Tally()
    for t in tallies.values():
        total.statements += t.statements
        total.outcomes.update(t.outcomes)
        total.reasons.update(t.reasons)
        total.validated += t.validated
        total.fields += t.fields
        total.fields_exact += t.fields_exact
        total.pages += t.pages
        total.seconds += t.seconds
    tallies["all born-digital"] = total
    print(table("generic reader, per layout", tallies))
    print(f"\nexact {total.outcomes['exact']}/{total.statements} "
          f"({total.share('exact'):.1%}), wrong {total.outcomes['wrong']}")
    return tallies


def realworld(folder: Path) -> dict[str, str]:
    """Per file: `exact`, `wrong`, `validated` (nothing to compare with), `flagged` or
    `refused (reason)`."""
    out: dict[str, str] = {}
    for pdf in sorted(folder.glob("*.pdf")):
        try:
            r = parse_pdf(pdf.read_bytes(), templates=[])
        except StatementError as exc:
            out[pdf.name] = f"refused ({exc.reason})"
            continue
        if not r.validation.ok:
            out[pdf.name] = "flagged: " + "; ".join(r.validation.problems[:2])
            continue
        expected = _expected(pdf)
        if expected is None:
            out[pdf.name] = "validated (no expected output: the balance equation holds)"
        else:
            out[pdf.name] = "exact" if _agrees(_money(r), expected) else "wrong"
    for name, outcome in out.items():
        print(f"{name:<56} {outcome}")
    kinds = Counter(o.split(" ")[0].rstrip(":") for o in out.values())
    print(f"\n{len(out)} files: " + ", ".join(f"{kinds[k]} {k}" for k in
                                             ("exact", "validated", "flagged", "refused", "wrong")))
    return out


def _money(r: ParseResult) -> list[Money]:
    return [(t.date.isoformat(), t.amount, t.balance)
            for a in r.statement.accounts for t in a.transactions]


def _agrees(got: list[Money], expected: list[Money]) -> bool:
    """Same dates and amounts in the same order; a balance where both print one."""
    return len(got) == len(expected) and all(
        g[:2] == e[:2] and (g[2] is None or e[2] is None or g[2] == e[2])
        for g, e in zip(got, expected, strict=True))


def _expected(pdf: Path) -> list[Money] | None:
    stan = pdf.with_name(pdf.stem + "-expected.json")
    if stan.exists():
        doc = json.loads(stan.read_text())
        return [(b["postDate"], Decimal(str(b["amount"])).quantize(Decimal("0.01")), None)
                for b in doc["bookings"]]
    plain = pdf.with_name(pdf.stem + ".expected.csv")
    if plain.exists():
        with plain.open() as f:
            return [(row["date"], Decimal(row["amount"]).quantize(Decimal("0.01")),
                     Decimal(row["balance"]).quantize(Decimal("0.01")) if row["balance"]
                     else None) for row in csv.DictReader(f)]
    return None


def run(statements: int, seed: int, folder: Path | None = None) -> None:
    if statements:
        varied(statements, seed)
    if folder is not None:
        print(f"\nreal statements in {folder}, no template in force:\n")
        realworld(folder)
