"""Real statements nobody here drew: `python -m benchmarks realworld [--dir DIR]`.

Every PDF of DIR (default `../shared/realworld`, beside the checkout) is parsed twice in
parse workers under the production limits: once with the built-in templates, once with the
generic reader alone. Each reading is one of

- `exact`: validated, and equal to the file's expected output on every date and amount (and
  balance where both print one; a partial expected output's transactions are each found,
  in their order, among those read);
- `validated`: validated, with no expected output to compare with (the balance equation and
  every printed running balance hold);
- `wrong`: validated, yet a date or amount differs from the expected output: the one outcome
  that must never happen;
- `review` (with the first problem) or `refused` (with the reason code).

An expected output sits beside its PDF in one of the forms the folder's README lists:
`NAME-expected.json` (stan's bookings), `NAME.expected.csv` (date, description, amount and a
balance or a `Dr`/`Cr` type), `NAME.expected.json` or `NAME.expected-partial.json` (a list of
transactions, or a count and the first one).
"""

from __future__ import annotations

import csv
import functools
import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from parsers.api import ParseResult
from parsers.errors import StatementError
from parsers.limits import Limits
from parsers.worker.pool import ParsePool, _parse_pdf

DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "realworld"
#: One file's parse may take this long before its worker is stopped (`too_slow`).
SECONDS_PER_FILE = 60.0
OUTCOMES = ("exact", "validated", "review", "refused", "wrong", "crashed")
_CENT = Decimal("0.01")


@dataclass
class Expected:
    """What a file's expected output says: its transactions (date, amount, balance or None)
    in order, whether they are all of them, and how many there are in all."""

    rows: list[tuple[str, Decimal, Decimal | None]]
    complete: bool
    count: int | None = None


@dataclass
class Outcome:
    kind: str
    detail: str = ""
    layout: str = ""
    transactions: int = 0
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        head = f"{self.kind} ({self.layout}, {self.transactions} tx)" if self.layout else self.kind
        return f"{head}: {self.detail}" if self.detail else head

    def short(self) -> str:
        """The outcome in a few words: the layout that read it, or the refusal's reason."""
        if self.kind == "refused":
            return f"refused {self.detail.split(':')[0]}"
        return f"{self.kind} {self.layout}" if self.layout else self.kind


def expected(pdf: Path) -> Expected | None:
    """The expected output beside `pdf`, in whichever of the README's forms it is."""
    stem = pdf.with_suffix("")
    stan = Path(f"{stem}-expected.json")
    if stan.exists():
        doc = json.loads(stan.read_text())
        return Expected([(b["postDate"], _money(b["amount"]), None) for b in doc["bookings"]],
                        True)
    plain = Path(f"{stem}.expected.csv")
    if plain.exists():
        with plain.open() as f:
            return Expected([_csv_row(row) for row in csv.DictReader(f)], True)
    for name, complete in ((f"{stem}.expected.json", True),
                           (f"{stem}.expected-partial.json", False)):
        path = Path(name)
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        if isinstance(doc, dict):  # a count and the first transaction
            first = doc["first"]
            return Expected([(first["date"], _money(first["amount"]), None)], False,
                            doc["transactions"])
        return Expected([(t["date"], _money(t["amount"]),
                          _money(t["balance"]) if t.get("balance") not in (None, "") else None)
                         for t in doc], complete)
    return None


def _money(value: Any) -> Decimal:
    return Decimal(str(value)).quantize(_CENT)


def _csv_row(row: dict[str, str]) -> tuple[str, Decimal, Decimal | None]:
    when = row["date"]
    if "/" in when:  # `15/01/2021`: day first, as the Indian statements print it
        when = datetime.strptime(when, "%d/%m/%Y").date().isoformat()
    amount = _money(row["amount"])
    if row.get("type", "").strip().lower() == "dr":  # money out, from the holder's side
        amount = -amount
    balance = row.get("balance")
    return when, amount, _money(balance) if balance else None


def judge(result: ParseResult, want: Expected | None) -> Outcome:
    """The outcome of one validated or flagged reading against the expected output."""
    txs = [t for a in result.statement.accounts for t in a.transactions]
    out = Outcome("", layout=result.layout, transactions=len(txs))
    if not result.validation.ok:
        out.kind, out.detail = "review", (result.validation.problems or ["?"])[0][:140]
        return out
    if want is None:
        out.kind = "validated"
        return out
    got = [(t.date.isoformat(), t.amount, t.balance) for t in txs]
    if want.count is not None and want.count != len(got):
        out.kind, out.detail = "wrong", f"{len(got)} transactions, expected {want.count}"
        return out
    if want.complete and len(want.rows) != len(got):
        out.kind, out.detail = "wrong", f"{len(got)} transactions, expected {len(want.rows)}"
        return out
    if want.complete:
        for i, (g, e) in enumerate(zip(got, want.rows, strict=True)):
            if not _same(g, e):
                out.kind = "wrong"
                out.detail = (f"row {i + 1}: read {g[0]} {g[1]} {g[2]}, "
                              f"expected {e[0]} {e[1]} {e[2]}")
                return out
    else:  # some of the transactions, in order: each must be read, in that order
        rest = iter(got)
        for e in want.rows:
            if not any(_same(g, e) for g in rest):
                out.kind, out.detail = "wrong", f"expected {e[0]} {e[1]} {e[2]} not read"
                return out
    out.kind = "exact"
    return out


def _same(got: tuple[str, Decimal, Decimal | None],
          want: tuple[str, Decimal, Decimal | None]) -> bool:
    """Same date and amount, and the same balance where both print one."""
    return got[:2] == want[:2] and (got[2] is None or want[2] is None or got[2] == want[2])


def read(pool: ParsePool, pdf: Path, want: Expected | None) -> Outcome:
    started = time.perf_counter()
    try:
        result = pool.parse(pdf.read_bytes())
    except StatementError as exc:
        out = Outcome("refused", f"{exc.reason}: {str(exc)[:120]}")
    except Exception as exc:  # an unclassified error is a finding, not a reason to stop
        out = Outcome("crashed", f"{type(exc).__name__}: {str(exc)[:120]}")
    else:
        out = judge(result, want)
    out.seconds = time.perf_counter() - started
    return out


def run(folder: Path | None = None, workers: int = 2, verbose: bool = False
        ) -> dict[str, dict[str, Outcome]]:
    """Read every PDF of `folder` both ways, print a line per file (with `verbose`, each
    reading's first problem or reason too) and the counts."""
    folder = folder or DEFAULT_DIR
    pdfs = sorted(folder.glob("*.pdf"))
    if not pdfs:
        raise SystemExit(f"no PDF in {folder}")
    limits = Limits(seconds_per_file=SECONDS_PER_FILE)
    ways = {"templates": ParsePool(workers, limits),
            "generic": ParsePool(workers, limits,
                                 target=functools.partial(_parse_pdf, templates=[]))}
    results: dict[str, dict[str, Outcome]] = {pdf.name: {} for pdf in pdfs}
    lock = threading.Lock()

    def one(way: str, pdf: Path) -> None:
        outcome = read(ways[way], pdf, expected(pdf))
        with lock:
            results[pdf.name][way] = outcome

    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(workers * 2) as ex:
            list(ex.map(lambda job: one(*job), [(w, p) for p in pdfs for w in ways]))
    finally:
        for pool in ways.values():
            pool.close()
    print(f"real statements in {folder}: {len(pdfs)} files, each read with the built-in "
          f"templates, then by the generic reader alone ({time.perf_counter() - started:.0f} s)")
    if verbose:
        for name, by_way in results.items():
            print(f"\n{name}\n  templates: {by_way['templates']}\n"
                  f"  generic:   {by_way['generic']}")
        print()
    width = max(map(len, results))
    print(f"{'file':<{width}}  {'with templates':<32} generic reader alone")
    for name, by_way in results.items():
        print(f"{name:<{width}}  {by_way['templates'].short():<32} {by_way['generic'].short()}")
    print()
    for way in ways:
        kinds = Counter(r[way].kind for r in results.values())
        good = kinds["exact"] + kinds["validated"]
        print(f"{way:>9}: {good} of {len(pdfs)} validated ("
              + ", ".join(f"{kinds[k]} {k}" for k in OUTCOMES if kinds[k] or k == "wrong")
              + ")")
    return results
