"""`python -m benchmarks fuzz --n 10000 --seed 1`: mutated statements through the real parser.

Every mutant (`mutations.py`, drawn from `seed` and its index, so any one is made again
with `--only`, and a run cut short goes on from where it stopped with `--start`) is parsed
as an import parses it: in the parse worker pool, under hard limits,
its failure classified by the error taxonomy. Each ends in one outcome:

- **reason-code**: refused with a reason code (counted per reason); **flagged**: read,
  not validated;
- **crash**: an error the taxonomy calls `unclassified` (a bug to classify);
- **hang**: the parse ran out of its time budget and was stopped (`too_slow`), twice: a
  parse stopped once is tried again, since a loaded machine (or a worker replaced after a
  kill, still starting) stops parses that alone finish well within the budget;
- **validated**: then judged against what the mutated file shows. The oracle is PDFium's
  plain text of every page, read in the same worker: where the mutant's text is the
  original's, the statement must equal the original truth; where it changed (a digit edit,
  a damaged stream read differently), every field that differs from the truth must be
  explained by the change (the new value printed in the changed text, the old one gone
  from it) and no figure the change touched may keep its old value. Anything else is
  **wrong**, and its mutant is kept (`--keep`) to be read by a person. The oracle shares
  PDFium with the default reader: a page PDFium itself misreads the same way in its text
  and in its words is beyond it (the data-loss and reader checks of the parser are not).

Scans are left out of the base corpus (OCR of thousands of mutants is hours, and damage to
a scan is damage to an image, not to the text the fuzzer judges), and so are statements
of more than `MAX_PAGES` pages.
"""

from __future__ import annotations

import difflib
import functools
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from benchmarks import corpora
from benchmarks.mutations import mutate
from corpus import ALL_LAYOUTS, SCANNED, Sample, generate
from flows.taxonomy import classify
from parsers.api import page_reader, parse_pdf
from parsers.codes import Reason
from parsers.errors import ParseTimeout
from parsers.layout.template import Template, load_templates
from parsers.limits import Limits
from parsers.numbers import format_amount
from parsers.pdf.page import PageReader
from parsers.pdf.pdfium import LOCK
from parsers.worker.pool import ParsePool

#: The fuzzer's per-file budget: a parse of a generated statement takes well under a second.
LIMITS = Limits(seconds_per_file=20.0, max_memory=768 * 1024 * 1024)
#: Longer statements are left out: one of 40 pages costs as much as forty mutants.
MAX_PAGES = 3
_DATE_FORMATS = ("%d/%m/%Y", "%m/%d/%Y", "%Y-%m-%d", "%d.%m.%Y", "%d %b %Y", "%b %d, %Y",
                 "%d %b", "%b %d", "%d/%m", "%m/%d", "%d.%m.", "%d-%m-%Y", "%d %B %Y")


@dataclass(frozen=True)
class Reading:
    """What a worker sends back: the statement, whether it validated, the file's text."""

    accounts: list[dict[str, Any]]
    validated: bool
    text: list[str] | None


def read(data: bytes, bank: str | None = None, limits: Limits | None = None, *,
         templates: list[Template], reader: PageReader) -> Reading:
    """The worker's target: the real parse, then the oracle's text of a validated file."""
    r = parse_pdf(data, bank=bank, templates=templates, reader=reader, limits=limits)
    ok = r.validation.ok
    return Reading(r.statement.to_dict()["accounts"], ok, shown_text(data) if ok else None)


def shown_text(data: bytes) -> list[str]:
    """PDFium's plain text of every page."""
    with LOCK:
        doc = pdfium.PdfDocument(data)
        try:
            out = []
            for page in doc:
                textpage = page.get_textpage()
                out.append(textpage.get_text_range())
                textpage.close()
                page.close()
            return out
        finally:
            doc.close()


@dataclass(frozen=True)
class Base:
    sample: Sample
    data: bytes
    truth: list[dict[str, Any]]
    text: list[str]


@dataclass(frozen=True)
class Outcome:
    index: int
    mutations: tuple[str, ...]
    kind: str
    detail: str = ""


def bases(count: int, seed: int) -> list[Base]:
    banks = tuple(b for b in ALL_LAYOUTS if b not in SCANNED)
    samples = generate(corpora.work() / f"fuzz-{count}-{seed}", banks, count, seed)
    out = [Base(s, s.pdf.read_bytes(), json.loads(s.truth.read_text())["accounts"],
                shown_text(s.pdf.read_bytes())) for s in samples]
    return [b for b in out if len(b.text) <= MAX_PAGES]


def mutant(i: int, seed: int, base: list[Base]) -> tuple[Base, bytes, list[str]]:
    rng = random.Random(f"fuzz:{seed}:{i}")
    b = rng.choice(base)
    data, names = mutate(b.data, rng)
    return b, data, names


def run_one(i: int, seed: int, base: list[Base], pool: ParsePool,
            keep: Path | None) -> Outcome:
    b, data, names = mutant(i, seed, base)
    muts = tuple(names) or ("none",)
    try:
        got: Reading = _parse(pool, data)
    except Exception as exc:
        c = classify(exc)
        if isinstance(exc, ParseTimeout):
            return _kept(Outcome(i, muts, "hang", str(exc)[:120]), data, keep)
        if c.reason == Reason.UNCLASSIFIED:
            return _kept(Outcome(i, muts, "crash", f"{type(exc).__name__}: {exc}"[:200]),
                         data, keep)
        return Outcome(i, muts, "reason-code", c.reason)
    if not got.validated:
        return Outcome(i, muts, "flagged")
    verdict = judge(got.accounts, b.truth, b.text, got.text or [])
    if verdict.startswith("wrong"):
        return _kept(Outcome(i, muts, "wrong", verdict), data, keep)
    return Outcome(i, muts, verdict)


def _parse(pool: ParsePool, data: bytes) -> Reading:
    """The parse, tried once more when stopped at its wall limit (see **hang**)."""
    try:
        return pool.parse(data)  # type: ignore[return-value]
    except ParseTimeout:
        return pool.parse(data)  # type: ignore[return-value]


def _kept(o: Outcome, data: bytes, keep: Path | None) -> Outcome:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{o.kind}-{o.index:05d}.pdf").write_bytes(data)
    return o


def judge(got: list[dict[str, Any]], truth: list[dict[str, Any]], before: list[str],
          after: list[str]) -> str:
    """`validated` (the truth, text unchanged), `validated-edited` (the change, read as
    shown) or `wrong: ...`."""
    if after == before:
        return "validated" if got == truth else f"wrong: text unchanged, {_first_diff(got, truth)}"
    removed, added = _changed(before, after)
    if got == truth:
        touched = [v for v in _printed_figures(truth) if v in removed and v not in added]
        if touched:
            return f"wrong: the file shows a changed figure ({touched[0]}), the old one validated"
        return "validated"
    mine, theirs = _fields(got), _fields(truth)
    if mine.keys() != theirs.keys():
        return f"wrong: text changed and the structure differs ({_first_diff(got, truth)})"
    for key, value in mine.items():
        old = theirs[key]
        if value == old:
            continue
        if not _explained(value, old, removed, added):
            return f"wrong: {key} reads {value!r}, the truth {old!r}, not explained by the edit"
    return "validated-edited"


def _changed(before: list[str], after: list[str]) -> tuple[str, str]:
    """The text around what changed: removed and added tokens, with two of context."""
    a, b = " ".join(before).split(), " ".join(after).split()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            removed.append(" ".join(a[max(0, i1 - 2): i2 + 2]))
            added.append(" ".join(b[max(0, j1 - 2): j2 + 2]))
    return " | ".join(removed), " | ".join(added)


def _fields(accounts: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, acct in enumerate(accounts):
        for key, value in acct.items():
            if key == "transactions":
                for m, t in enumerate(value):
                    out.update({f"account {n} tx {m} {k}": v for k, v in t.items()})
            else:
                out[f"account {n} {key}"] = value
    return out


def _explained(value: Any, old: Any, removed: str, added: str) -> bool:
    """A field changed as the text did: its new form among the added text and its old one
    among the removed (for text: every word that changed, word by word)."""
    if isinstance(value, str) and isinstance(old, str) and " " in value + old:
        new_words = set(value.split()) - set(old.split())
        old_words = set(old.split()) - set(value.split())
        return bool(new_words) and new_words <= set(added.split()) \
            and old_words <= set(removed.split())
    if _year_moved(value, old, removed, added):
        return True
    if isinstance(value, str) and value.isdigit():  # digits a layout prints in groups
        return value in added.replace(" ", "") and old in removed.replace(" ", "")
    return any(f in added for f in _forms(value)) and any(f in removed for f in _forms(old))


def _year_moved(value: Any, old: Any, removed: str, added: str) -> bool:
    """A date printed without its year moves with the year the edit changed (a closing
    date's, a period's): only the year differs, by as much as a year in the text did."""
    try:
        new_day, old_day = date.fromisoformat(str(value)), date.fromisoformat(str(old))
    except ValueError:
        return False
    shift = new_day.year - old_day.year
    if new_day.replace(year=old_day.year) != old_day:
        return False
    years = {int(y) for y in re.findall(r"\b(?:19|20)\d\d\b", removed)}
    return any(str(y + shift) in added for y in years)


def _forms(value: Any) -> list[str]:
    """Ways a statement may print `value` (an amount, a date, text)."""
    if value is None:
        return [""]
    s = str(value)
    try:
        d = Decimal(s)
        return [s] + [format_amount(d, loc) for loc in ("en", "de", "fr", "ch")] + [
            format_amount(d, group=False)]
    except ArithmeticError:
        pass
    try:
        day = date.fromisoformat(s)
        return [day.strftime(f) for f in _DATE_FORMATS] + [day.strftime(f).lstrip("0")
                                                            for f in _DATE_FORMATS]
    except ValueError:
        return [s]


def _printed_figures(accounts: list[dict[str, Any]]) -> set[str]:
    return {format_amount(Decimal(str(v))) for k, v in _fields(accounts).items()
            if v is not None and k.endswith(("amount", "balance"))}


def _first_diff(got: list[dict[str, Any]], truth: list[dict[str, Any]]) -> str:
    mine, theirs = _fields(got), _fields(truth)
    for key in sorted(mine.keys() | theirs.keys()):
        if mine.get(key) != theirs.get(key):
            return f"{key}: {mine.get(key)!r} against {theirs.get(key)!r}"
    return "equal fields"


def _within(threads: ThreadPoolExecutor, fn: Callable[[int], Outcome], indices: list[int],
            deadline: float | None) -> Iterator[Outcome]:
    """`fn` over `indices` in order, a hundred at a time, none started after `deadline`."""
    for at in range(0, len(indices), 100):
        if deadline is not None and time.monotonic() > deadline:
            return
        yield from threads.map(fn, indices[at: at + 100])


def run(n: int, seed: int, base_count: int = 24, workers: int = 2, reader: str = "pdfium",
        keep: Path | None = None, only: list[int] | None = None,
        minutes: float | None = None, start: int = 0) -> Counter[str]:
    base = bases(base_count, seed)
    target = functools.partial(read, templates=load_templates(), reader=page_reader(reader))
    indices = only if only else list(range(start, n))
    print(f"fuzz: {len(indices)} mutants of {len(base)} generated statements, seed {seed}, "
          f"reader {reader}, {workers} parse workers, {LIMITS.seconds_per_file:.0f} s and "
          f"{LIMITS.max_memory >> 20} MiB per parse")
    kinds: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    by_mutation: dict[str, Counter[str]] = {}
    findings: list[Outcome] = []
    started = time.monotonic()
    with ParsePool(workers, LIMITS, target=target) as pool, \
            ThreadPoolExecutor(workers) as threads:
        outcomes = _within(threads, lambda i: run_one(i, seed, base, pool, keep), indices,
                           started + 60 * minutes if minutes else None)
        for done, o in enumerate(outcomes, start=1):
            kinds[o.kind] += 1
            if o.kind == "reason-code":
                reasons[o.detail] += 1
            for m in o.mutations:
                by_mutation.setdefault(m, Counter())[o.kind] += 1
            if o.kind in ("crash", "hang", "wrong"):
                findings.append(o)
                print(f"  {o.kind} #{o.index} ({'+'.join(o.mutations)}): {o.detail}",
                      flush=True)
            if done % 500 == 0:
                print(f"  [{done}/{len(indices)}] {dict(kinds)} "
                      f"{done / (time.monotonic() - started):.1f}/s", flush=True)
    seconds = time.monotonic() - started
    total = kinds.total()
    print(f"\n{total} mutants (indices {indices[0]}..{indices[total - 1]}) in {seconds:.0f} s "
          f"({total / seconds:.1f} per s)")
    for kind in ("validated", "validated-edited", "flagged", "reason-code", "crash", "hang",
                 "wrong"):
        print(f"  {kind:<17} {kinds[kind]:>6}")
    print("  reasons: " + ", ".join(f"{r} {c}" for r, c in reasons.most_common()))
    print(f"\n{'mutation':<12} " + " ".join(f"{k[:9]:>9}" for k in (
        "validated", "validated-edited", "flagged", "reason-code", "crash", "hang", "wrong")))
    for m, c in sorted(by_mutation.items()):
        print(f"{m:<12} " + " ".join(f"{c[k]:>9}" for k in (
            "validated", "validated-edited", "flagged", "reason-code", "crash", "hang", "wrong")))
    crashes = Counter(o.detail.split(":")[0] for o in findings if o.kind == "crash")
    if crashes:
        print("crashes by type: " + ", ".join(f"{t} {c}" for t, c in crashes.most_common()))
    return kinds
