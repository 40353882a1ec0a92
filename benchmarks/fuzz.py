"""`python -m benchmarks fuzz --n 10000 --seed 1`: mutated statements through the real parser.

Every mutant (`mutations.py`, drawn from `seed` and its index, so any one is made again
with `--only`, and a run cut short goes on from where it stopped with `--start`) is parsed
as an import parses it: `parse_and_render` in the parse worker pool, called as
`flows.parser` calls it (bank, passwords, the input's digest and pins), under hard limits,
its failure classified by the error taxonomy, its statement read back from the
`statement.json` it rendered. Each ends in one outcome:

- **reason-code**: refused with a reason code (counted per reason); **flagged**: read,
  not validated;
- **crash**: an error the taxonomy calls `unclassified` (a bug to classify);
- **hang**: the parse ran out of its time budget and was stopped (`too_slow`), twice: a
  parse stopped once is tried again, since a loaded machine (or a worker replaced after a
  kill, still starting) stops parses that alone finish well within the budget;
- **validated**: then judged against what the mutated file prints (`judge`), field by
  field: the bank, every figure (amounts, balances, account endings, currencies, the
  number of accounts and rows), every row's date and every description (whitespace
  normalised). A validated statement that differs from what the mutant prints is
  **different**, counted by the kind of field (`figures`, `dates`, `descriptions`,
  `bank`), its mutant kept (`--keep`) and its first fields listed (file, field, read,
  printed) for a person to read.

What the mutant prints is PDFium's plain text of its pages, read in this process, against
the original's. The rule (`judge`):

- the same words in the same order: the mutant prints the original statement, so every
  field must equal the truth;
- the same words in another order (damage that only moved or spaced text: a flipped
  coordinate): still the original's words, so every field must equal the truth; a
  difference is counted, marked `moved`, since a moved word may have left its row;
- other words (an edited digit, a damaged stream shown otherwise): a figure or date that
  differs must print its new form in the changed text and no longer its old one; a
  description may gain only words the mutant prints more often than the original, and
  lose only words it prints less often; an account read is the truth's of its ending (or
  the next unpaired one), and an account missing from the reading whose ending and closing
  balance the mutant prints nowhere was lost with its pages; a bank read differently is
  never explained.

The harness checks itself first: the unmutated statements must validate and equal their
truth through the same path (one that does not is left out, and printed), or the run stops
(`HarnessBroken`, a non-zero exit) when one fails unclassified or fewer than half do; so it
does when every mutant crashes alike or an error is raised outside the parse workers.
`--fuzz-varied` mutates statements drawn with the variations real statements show (scans
left out) instead of the plain layouts. The
oracle shares PDFium with the default reader: a page PDFium misreads the same way in its
text and in its words is beyond it.

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
from corpus import BANKS as VARIED_BANKS
from flows.taxonomy import classify
from parsers.codes import Reason
from parsers.errors import ParseTimeout, StatementError
from parsers.identity import chain_revision, engine_identity
from parsers.layout.template import Template, load_templates
from parsers.limits import Limits
from parsers.numbers import format_amount
from parsers.pdf.pdfium import LOCK
from parsers.validate import POLICY_REVISION
from parsers.worker.pool import ParsePool, RemoteTraceback
from parsers.worker.rendered import Rendered
from parsers.worker.task import WORKER_MODULES, parse_and_render
from reconcile.storage import sha256

#: The fuzzer's per-file budget: a parse of a generated statement takes well under a second.
LIMITS = Limits(seconds_per_file=20.0, max_memory=768 * 1024 * 1024)
#: Longer statements are left out: one of 40 pages costs as much as forty mutants.
MAX_PAGES = 3
#: the kinds of field a validated statement may differ in, in the order reported
FIELD_KINDS = ("figures", "dates", "descriptions", "bank")
#: the outcomes, in the order reported
KINDS = ("validated", "validated-edited", "flagged", "reason-code", "crash", "hang",
         "different")
_DATE_FORMATS = ("%d/%m/%Y", "%m/%d/%Y", "%Y-%m-%d", "%d.%m.%Y", "%d %b %Y", "%b %d, %Y",
                 "%d %b", "%b %d", "%d/%m", "%m/%d", "%d.%m.", "%d-%m-%Y", "%d %B %Y")


class HarnessBroken(Exception):
    """The fuzzer itself does not parse as an import does: its counts would mean nothing."""


@dataclass(frozen=True)
class Reading:
    """What a production parse rendered: the statement as `statement.json` says it."""

    statement: dict[str, Any]
    validated: bool

    @classmethod
    def of(cls, out: Rendered) -> Reading:
        doc = json.loads(out.files["statement.json"])
        accounts = [{**a, "transactions": [{k: v for k, v in t.items() if k != "txn_id"}
                                           for t in a["transactions"]]}
                    for a in doc["accounts"]]
        return cls({"bank": doc["bank"], "accounts": accounts}, bool(doc["validation"]["ok"]))


def production_pool(workers: int, templates: list[Template], reader: str) -> ParsePool:
    """The pool `flows.parser` makes for an import: `parse_and_render` with the templates
    and the reader's name bound, its modules preloaded."""
    work = functools.partial(parse_and_render, templates=templates, reader=reader)
    return ParsePool(workers, LIMITS, target=work, preload=WORKER_MODULES)


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
    truth: dict[str, Any]
    text: list[str]


@dataclass(frozen=True)
class Outcome:
    index: int
    mutations: tuple[str, ...]
    kind: str
    detail: str = ""
    #: for `different`: the kinds of field that differ (`FIELD_KINDS`)
    fields: tuple[str, ...] = ()
    #: the statement mutated
    stem: str = ""


def bases(count: int, seed: int, varied: bool = False) -> list[Base]:
    """The statements mutated: the text layouts, plain or (`varied`) with the variations
    real statements show, scans and long statements left out."""
    banks = tuple(b for b in (VARIED_BANKS if varied else ALL_LAYOUTS) if b not in SCANNED)
    samples = generate(corpora.work() / f"fuzz-{count}-{seed}-{varied}", banks, count, seed,
                       varied=varied)
    out = []
    for s in samples:
        if s.variant.get("knobs", {}).get("scan"):
            continue
        truth = json.loads(s.truth.read_text())
        out.append(Base(s, s.pdf.read_bytes(), {"bank": truth["bank"],
                                                "accounts": truth["accounts"]},
                        shown_text(s.pdf.read_bytes())))
    return [b for b in out if len(b.text) <= MAX_PAGES]


def mutant(i: int, seed: int, base: list[Base]) -> tuple[Base, bytes, list[str]]:
    rng = random.Random(f"fuzz:{seed}:{i}")
    b = rng.choice(base)
    data, names = mutate(b.data, rng)
    return b, data, names


class Parsing:
    """The production call: `pool.parse` with what `Parser.in_workers` passes."""

    def __init__(self, pool: ParsePool, pinned: dict[str, str]) -> None:
        self.pool, self.pinned = pool, pinned

    def __call__(self, data: bytes) -> Reading:
        return Reading.of(self.pool.parse(data, None, (), input_sha256=sha256(data),
                                          pinned=self.pinned))


def check_harness(parse: Callable[[bytes], Reading], base: list[Base]) -> list[Base]:
    """The statements that, unmutated, validate as their truth through `parse` (a mutant of
    another would be judged against a truth the parser does not read); the harness is
    broken (a changed signature, a worker that cannot start) when one fails unclassified,
    or fewer than half of them read so."""
    exact, misread = [], []
    for b in base:
        try:
            got = parse(b.data)
        except Exception as exc:
            if classify(exc).reason == Reason.UNCLASSIFIED:
                raise HarnessBroken(f"the unmutated {b.sample.pdf.name} does not parse: "
                                    f"{type(exc).__name__}: {exc}"[:500]) from exc
            misread.append(f"{b.sample.pdf.name}: {classify(exc).reason}")
            continue
        verdict, _ = judge(got.statement, b.truth, b.text, b.text)
        if got.validated and verdict == "validated":
            exact.append(b)
        else:
            misread.append(f"{b.sample.pdf.name}: {'validated' if got.validated else 'flagged'}"
                           f", {_first_diff(got.statement, b.truth)}")
    if len(exact) * 2 < len(base):
        raise HarnessBroken(f"{len(misread)} of {len(base)} unmutated statements do not "
                            f"read as their truth: {'; '.join(misread[:3])}")
    for m in misread:
        print(f"  left out, read otherwise unmutated: {m}")
    return exact


def run_one(i: int, seed: int, base: list[Base], parse: Callable[[bytes], Reading],
            keep: Path | None) -> Outcome:
    b, data, names = mutant(i, seed, base)
    muts = tuple(names) or ("none",)
    stem = b.sample.pdf.stem
    try:
        got = _parse(parse, data)
    except Exception as exc:
        if not isinstance(exc, StatementError) and not isinstance(exc.__cause__,
                                                                   RemoteTraceback):
            raise HarnessBroken(f"mutant {i}: {type(exc).__name__} raised outside the parse "
                                f"workers: {exc}"[:500]) from exc
        c = classify(exc)
        if isinstance(exc, ParseTimeout):
            return _kept(Outcome(i, muts, "hang", str(exc)[:120], stem=stem), data, keep)
        if c.reason == Reason.UNCLASSIFIED:
            return _kept(Outcome(i, muts, "crash", f"{type(exc).__name__}: {exc}"[:200],
                                 stem=stem), data, keep)
        return Outcome(i, muts, "reason-code", c.reason, stem=stem)
    if not got.validated:
        return Outcome(i, muts, "flagged", stem=stem)
    verdict, differing = judge(got.statement, b.truth, b.text, shown_text(data))
    if differing:
        return _kept(Outcome(i, muts, "different", verdict, tuple(sorted(
            {kind for kind, _ in differing}, key=FIELD_KINDS.index)), stem), data, keep)
    return Outcome(i, muts, verdict, stem=stem)


def _parse(parse: Callable[[bytes], Reading], data: bytes) -> Reading:
    """The parse, tried once more when stopped at its wall limit (see **hang**)."""
    try:
        return parse(data)
    except ParseTimeout:
        return parse(data)


def _kept(o: Outcome, data: bytes, keep: Path | None) -> Outcome:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{o.kind}-{o.index:05d}.pdf").write_bytes(data)
    return o


def judge(got: dict[str, Any], truth: dict[str, Any], before: list[str],
          after: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """(`validated` | `validated-edited` | what differs, [(field kind, field) differing])
    for a statement read `got` from a mutant printing `after`, whose original printed
    `before` and says `truth` (the rule: the module's note)."""
    a, b = " ".join(before).split(), " ".join(after).split()
    mine, theirs = _fields(got, _paired(got, truth)), _fields(truth)
    differing = [k for k in sorted(mine.keys() | theirs.keys())
                 if _norm(mine.get(k)) != _norm(theirs.get(k))]
    if a == b or Counter(a) == Counter(b):
        moved = "" if a == b else ", text moved"
        return _verdict("validated", differing, mine, theirs, moved)
    removed, added = _changed(before, after)
    lost, gained = Counter(a) - Counter(b), Counter(b) - Counter(a)
    if not differing:
        touched = [v for v in _printed_figures(truth) if v in removed and v not in added]
        if touched:
            return (f"the mutant prints a changed figure ({touched[0]}), the old one "
                    f"validated", [("figures", "a changed figure")])
        return "validated", []
    gone = _accounts_gone(mine, theirs, " ".join(after))
    unexplained = [k for k in differing if k.split(" ")[:2] not in gone and (
        k not in mine or k not in theirs
        or not _explained(_kind(k), mine[k], theirs[k], removed, added, lost, gained))]
    return _verdict("validated-edited", unexplained, mine, theirs, ", text edited")


def _accounts_gone(mine: dict[str, Any], theirs: dict[str, Any], shown: str) -> list[list[str]]:
    """The accounts of the truth missing from the reading whose ending and closing balance
    the mutant no longer prints anywhere (their pages' text is gone): a reading without
    them is the mutant's. As `["account", "N"]`, a key's first words."""
    gone = []
    for key, last4 in theirs.items():
        head = key.split(" ")[:2]
        closing = theirs.get(f"{' '.join(head)} closing_balance")
        if key.endswith(" account_last4") and key not in mine and str(last4) not in shown \
                and not any(f in shown for f in _forms(closing)):
            gone.append(head)
    return gone


def _verdict(ok: str, differing: list[str], mine: dict[str, Any], theirs: dict[str, Any],
             how: str) -> tuple[str, list[tuple[str, str]]]:
    if not differing:
        return ok, []
    shown = "; ".join(f"{k} read {mine.get(k)!r}, printed {theirs.get(k)!r}"
                      for k in differing[:3])
    return shown + how, [(_kind(k), k) for k in differing]


def _kind(key: str) -> str:
    """The kind of field a `_fields` key names."""
    if key == "bank":
        return "bank"
    if key.endswith(" date"):
        return "dates"
    if key.endswith(" description"):
        return "descriptions"
    return "figures"


def _norm(value: Any) -> Any:
    return " ".join(value.split()) if isinstance(value, str) else value


def _changed(before: list[str], after: list[str]) -> tuple[str, str]:
    """The text around what changed: removed and added tokens, with two of context."""
    a, b = " ".join(before).split(), " ".join(after).split()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            removed.append(" ".join(a[max(0, i1 - 2): i2 + 2]))
            added.append(" ".join(b[max(0, j1 - 2): j2 + 2]))
    return " | ".join(removed), " | ".join(added)


def _paired(got: dict[str, Any], truth: dict[str, Any]) -> list[int]:
    """For each account read, the number of the truth's account it is: the one with its
    ending, else the next one no account read has (an ending the edit changed); a number
    past the truth's for one left over."""
    ends = [a["account_last4"] for a in truth["accounts"]]
    read = [a["account_last4"] for a in got["accounts"]]
    free = iter([n for n, e in enumerate(ends) if e not in read] + list(
        range(len(ends), len(ends) + len(read))))
    return [ends.index(e) if ends.count(e) == 1 and read.count(e) == 1 else next(free)
            for e in read]


def _fields(statement: dict[str, Any], numbers: list[int] | None = None) -> dict[str, Any]:
    """Every field of `statement` by name (`account N tx M date`), its accounts numbered
    `numbers` (default: in order)."""
    out: dict[str, Any] = {"bank": statement["bank"]}
    for at, acct in enumerate(statement["accounts"]):
        n = numbers[at] if numbers is not None else at
        for key, value in acct.items():
            if key == "transactions":
                for m, t in enumerate(value):
                    out.update({f"account {n} tx {m} {k}": v for k, v in t.items()})
            else:
                out[f"account {n} {key}"] = value
    return out


def _explained(kind: str, value: Any, old: Any, removed: str, added: str,
               lost: Counter[str], gained: Counter[str]) -> bool:
    """A field changed as the printed text did (the rule: the module's note)."""
    if kind == "bank":
        return False
    if kind == "descriptions":
        new_words, old_words = Counter(str(value).split()), Counter(str(old).split())
        return all(gained[w] >= c for w, c in (new_words - old_words).items()) \
            and all(lost[w] >= c for w, c in (old_words - new_words).items())
    if _year_moved(value, old, removed, added):
        return True
    if isinstance(value, str) and value.isdigit():  # digits a layout prints in groups
        return value in added.replace(" ", "") and old in removed.replace(" ", "")
    return value is not None and old is not None and \
        any(f in added for f in _forms(value)) and any(f in removed for f in _forms(old))


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


def _printed_figures(statement: dict[str, Any]) -> set[str]:
    return {format_amount(Decimal(str(v))) for k, v in _fields(statement).items()
            if v is not None and k.endswith(("amount", "balance"))}


def _first_diff(got: dict[str, Any], truth: dict[str, Any]) -> str:
    mine, theirs = _fields(got), _fields(truth)
    for key in sorted(mine.keys() | theirs.keys()):
        if _norm(mine.get(key)) != _norm(theirs.get(key)):
            return f"{key}: {mine.get(key)!r} against {theirs.get(key)!r}"
    return "equal fields"


def _within(threads: ThreadPoolExecutor, fn: Callable[[int], Outcome], indices: list[int],
            deadline: float | None) -> Iterator[Outcome]:
    """`fn` over `indices` in order, a hundred at a time, none started after `deadline`."""
    for at in range(0, len(indices), 100):
        if deadline is not None and time.monotonic() > deadline:
            return
        yield from threads.map(fn, indices[at: at + 100])


@dataclass
class Result:
    """A run's counts: outcomes, reasons, differing statements by kind of field, findings."""

    kinds: Counter[str]
    reasons: Counter[str]
    fields: Counter[str]
    findings: list[Outcome]


def run(n: int, seed: int, base_count: int = 24, workers: int = 2, reader: str = "pdfium",
        keep: Path | None = None, only: list[int] | None = None,
        minutes: float | None = None, start: int = 0, varied: bool = False) -> Result:
    """Parse `n` mutants (or `only` these) of `base_count` statements (`varied`: drawn with
    variations) and print the counts; `HarnessBroken` when the counts would not be the
    parser's."""
    base = bases(base_count, seed, varied)
    templates = load_templates()
    pinned = {"chain_revision": chain_revision(templates, reader),
              "ocr_engine": engine_identity(), "policy_revision": POLICY_REVISION}
    indices = only if only else list(range(start, n))
    print(f"fuzz: {len(indices)} mutants of {len(base)} generated statements, seed {seed}, "
          f"reader {reader}, {workers} parse workers, {LIMITS.seconds_per_file:.0f} s and "
          f"{LIMITS.max_memory >> 20} MiB per parse")
    result = Result(Counter(), Counter(), Counter(), [])
    by_mutation: dict[str, Counter[str]] = {}
    with production_pool(workers, templates, reader) as pool, \
            ThreadPoolExecutor(workers) as threads:
        parse = Parsing(pool, pinned)
        base = check_harness(parse, base)
        started = time.monotonic()
        outcomes = _within(threads, lambda i: run_one(i, seed, base, parse, keep), indices,
                           started + 60 * minutes if minutes else None)
        for done, o in enumerate(outcomes, start=1):
            _count(result, by_mutation, o)
            if done % 500 == 0:
                print(f"  [{done}/{len(indices)}] {dict(result.kinds)} "
                      f"{done / (time.monotonic() - started):.1f}/s", flush=True)
    seconds = time.monotonic() - started
    _report(result, by_mutation, indices, seconds)
    total = result.kinds.total()
    crashes = Counter(o.detail.split(":")[0] for o in result.findings if o.kind == "crash")
    if total >= 10 and result.kinds["crash"] == total and len(crashes) == 1:
        raise HarnessBroken(f"every mutant crashed alike ({next(iter(crashes))})")
    return result


def _count(result: Result, by_mutation: dict[str, Counter[str]], o: Outcome) -> None:
    result.kinds[o.kind] += 1
    if o.kind == "reason-code":
        result.reasons[o.detail] += 1
    result.fields.update(o.fields)
    for m in o.mutations:
        by_mutation.setdefault(m, Counter())[o.kind] += 1
    if o.kind in ("crash", "hang", "different"):
        result.findings.append(o)
        what = f" [{', '.join(o.fields)}]" if o.fields else ""
        print(f"  {o.kind}{what} #{o.index} {o.stem} ({'+'.join(o.mutations)}): {o.detail}",
              flush=True)


def _report(result: Result, by_mutation: dict[str, Counter[str]], indices: list[int],
            seconds: float) -> None:
    kinds, total = result.kinds, result.kinds.total()
    if total:
        print(f"\n{total} mutants (indices {indices[0]}..{indices[total - 1]}) in "
              f"{seconds:.0f} s ({total / max(seconds, 1e-9):.1f} per s)")
    for kind in KINDS:
        print(f"  {kind:<17} {kinds[kind]:>6}")
    print("  different by field: " + ", ".join(f"{k} {result.fields[k]}" for k in FIELD_KINDS))
    print("  reasons: " + ", ".join(f"{r} {c}" for r, c in result.reasons.most_common()))
    print(f"\n{'mutation':<12} " + " ".join(f"{k[:9]:>9}" for k in KINDS))
    for m, c in sorted(by_mutation.items()):
        print(f"{m:<12} " + " ".join(f"{c[k]:>9}" for k in KINDS))
    crashes = Counter(o.detail.split(":")[0] for o in result.findings if o.kind == "crash")
    if crashes:
        print("crashes by type: " + ", ".join(f"{t} {c}" for t, c in crashes.most_common()))
