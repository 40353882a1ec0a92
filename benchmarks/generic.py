"""The generic reader alone: no template in force, on the varied corpus and on real files.

On the varied corpus every born-digital statement of the reference layouts (the scanned
layout aside) is parsed with no template at all, so the generic reader reads all of them;
its outcomes are those of `accuracy.py` (exact here means validated with every account equal
to the truth: the bank is `generic`). Real statements are `realworld.py`'s.
"""

from __future__ import annotations

import json
import time
from decimal import Decimal

from benchmarks import corpora
from benchmarks.accuracy import Result, Tally, by_bank, field_counts, table
from corpus import SCANNED, Sample
from parsers.api import parse_pdf
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


def run(statements: int, seed: int) -> None:
    varied(statements, seed)
