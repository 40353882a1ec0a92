"""Read one statement PDF: preflight, pages, detection, layout, validation.

This is the whole of what the import flow asks of `parsers` (it runs `parse_pdf` in a
worker process, `pool.py`); everything here is plain Python so that `stmtflow parse FILE`
and the tests use exactly what production uses. The built-in templates are read once per
process, not per file; what a job pins of this parser is `identity.py`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from parsers.errors import (
    AmbiguousLayout,
    EmptyStatement,
    StatementError,
    UnknownBank,
    UnreadableStatement,
    UnrecognisedLayout,
)
from parsers.generic import Explanation, parse_generic
from parsers.generic.mend import lift_suffixes
from parsers.identity import reader_class
from parsers.layout.detect import detect, verify_hint
from parsers.layout.engine import run_template
from parsers.layout.hooks import HOOKS
from parsers.layout.ocr_labels import snap_lines
from parsers.layout.outcome import AccountReading, ParseOutput, TemplateMismatch
from parsers.layout.table_rows import TableReading
from parsers.layout.template import Template, load_templates
from parsers.limits import Limits
from parsers.model import Account, Statement, mask_account
from parsers.ocr.descriptions import unvouched_descriptions
from parsers.ocr.tesseract import ocr_page
from parsers.ocr.trust import pinned, weigh
from parsers.ocr.witness import disputes, unvouched
from parsers.pdf.boundary import data_loss
from parsers.pdf.breaks import part_descriptions
from parsers.pdf.crosscheck import Disagreement, disagreements
from parsers.pdf.lines import Line, page_lines
from parsers.pdf.page import CID, UNDECODABLE, UNDECODABLE_NOTE, Page, PageReader
from parsers.pdf.pdfium_reader import PdfiumReader
from parsers.pdf.pdfplumber_reader import PdfplumberReader
from parsers.pdf.preflight import check_bytes, inspect_streams, unlock
from parsers.validate import Validation, repair_ends, repair_from_running_balance, validate


@dataclass
class ParseResult:
    statement: Statement
    validation: Validation
    layout: str
    pages: int
    ocr_pages: int
    #: How each account was read (derived figures, where balances were printed), in the
    #: order of `statement.accounts`; not part of the normalised statement.
    readings: list[AccountReading] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: How every table line was read (for `stmtflow templates check`); not output.
    tables: list[TableReading] = field(default_factory=list, repr=False)
    #: How the generic reader found the table (`layout`, columns, conventions), so that a
    #: template can be drawn from it; empty for a template's reading.
    how: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**self.statement.to_dict(), "validation": self.validation.to_dict(),
                "layout": self.layout, "pages": self.pages, "ocr_pages": self.ocr_pages,
                "reading": self.reading()}

    def reading(self) -> dict[str, Any]:
        """How the statement was read: derived figures, printed balances, notes."""
        out: dict[str, Any] = {"accounts": [r.to_dict() for r in self.readings],
                               "notes": self.notes}
        if self.how:
            out["table"] = self.how
        return out

    def __getstate__(self) -> dict[str, Any]:
        """The line-by-line table log stays in the process that read it (a parse worker
        sends its result back without it: `templates check` reads it in-process)."""
        return {**self.__dict__, "tables": []}


def parse_pdf(
    data: bytes,
    bank: str | None = None,
    templates: list[Template] | None = None,
    reader: PageReader | None = None,
    limits: Limits | None = None,
    passwords: Sequence[str] = (),
) -> ParseResult:
    """Parse `data`; raise a `StatementError` with a reason code when it cannot be read.

    Configuration is the caller's: without arguments, the built-in templates, the PDFium
    reader and the default limits. `passwords` are the candidates for a password-protected
    file (its bank's); without one that fits, such a file is `encrypted`.
    """
    limits = limits or Limits()
    templates = list(_builtin_templates()) if templates is None else templates
    check_bytes(data, limits)
    data = unlock(data, passwords)
    damaged = inspect_streams(data, limits)
    reader = reader or page_reader()
    read = _read_pages(data, reader, limits)
    try:
        return _parse(read, bank, templates, damaged)
    except UnrecognisedLayout as refused:
        if not isinstance(reader, PdfiumReader) or any(p.ocr for p in read.pages) \
                or not refused.details.get("missing"):
            raise
        # PDFium may place a file's characters where it does not draw them (a font whose
        # widths disagree with its glyphs), and then no table is found: pdfminer's reading
        # of the same text is tried before the file is refused (not where a table was
        # found and its figures disagree: the same text would disagree again)
        try:
            result = _parse(_read_pages(data, PdfplumberReader(ocr=ocr_page), limits), bank,
                            templates, damaged)
        except StatementError:
            raise refused from None
        result.notes.append("read with pdfminer's text positions: PDFium's reading of this "
                            "file's text does not reconcile")
        return result


@dataclass
class _PagesRead:
    """A file's pages as one reader read them, and what the PDF libraries lost."""

    data: bytes
    reader: PageReader
    limits: Limits
    pages: list[Page]
    lost: list[str]

    def disagreements(self, only: set[int] | None = None) -> list[Disagreement]:
        """Where the other library reads other digits (`crosscheck.py`; with `only`, on those
        pages): asked only of a statement that would otherwise validate, the one verdict
        they can change (pdfminer is the slow part of reading a damaged file; a file it
        cannot open is corrupt)."""
        with data_loss() as lost:
            found = disagreements(self.data, self.pages, _library(self.reader),
                                  self.limits.seconds_per_file / 4, only)
        self.lost += lost
        return found


def _read_pages(data: bytes, reader: PageReader, limits: Limits) -> _PagesRead:
    with data_loss() as lost:
        pages = reader.read(data, limits)
    return _PagesRead(data, reader, limits, pages, lost)


def _parse(read: _PagesRead, bank: str | None, templates: list[Template], damaged: int
           ) -> ParseResult:
    """The statement the pages print, read by its template or the generic reader, and
    validated: its numbers must agree and nothing may put the reading's faithfulness to
    the file in doubt."""
    pages = read.pages
    lines = lift_suffixes([ln for p in pages for ln in page_lines(p)])
    if not lines:
        raise EmptyStatement("no text on any page, not even after OCR")
    ocr = any(p.ocr for p in pages)
    if ocr:
        lines = snap_lines(lines, templates)
    (out, validation, layout), mismatch, instead = _choose(lines, bank, templates, ocr)
    notes = out.notes + instead + ([f"recognised as {mismatch}: read by the generic reader "
                                    "instead"] if mismatch is not None else [])
    parted = part_descriptions(pages, out.statement, out.pages)
    if parted:
        notes.append(f"{parted} description(s) take PDFium's word breaks where the word "
                     "reader joined their words")
    unfaithful = _unfaithful(read, lines, out, layout=layout, ocr=ocr, mismatch=mismatch,
                             damaged=damaged, ok=validation.ok)
    if unfaithful:
        validation.problems += unfaithful
        validation.ok = False
    if ocr and not validation.ok:
        validation.problems += disputes([ln for ln in lines if ln.ocr])[:_DISPUTES_SHOWN]
    return ParseResult(out.statement, validation, layout, len(pages), sum(p.ocr for p in pages),
                       out.readings, notes, out.tables, out.how)


#: What a reader read, its validation, and the layout that read it.
_Reading = tuple[ParseOutput, Validation, str]


def _choose(lines: list[Line], bank: str | None, templates: list[Template], ocr: bool
            ) -> tuple[_Reading, TemplateMismatch | None, list[str]]:
    """(the reading that stands for the statement, why the template did not match where it
    did not, why the generic reader's stands for the template's where it does): the
    template's, named or detected, unless the generic reader's proves what it cannot."""
    if bank is not None:
        template = _by_bank(templates, bank)
        verify_hint(lines, template)
    else:
        template = detect(lines, templates).template
    try:
        result = _read(template, lines, ocr) if template else None
        mismatch = None
    except TemplateMismatch as exc:
        result, mismatch = None, exc
    instead: list[str] = []  # why another reader's reading stands for the template's
    if result is not None and not result[1].ok and not ocr and result[0].unread \
            and not any(r.totals for r in result[0].tables):
        # the template's table left rows unread (a page without the header it looks for,
        # say): a generic reading the statement's own balances prove is taken instead, and
        # the template's stands where none does, or where it checks section totals (which
        # the generic reader does not)
        generic = _generic(lines, ocr)
        if generic is not None:
            generic[0].statement.bank = template.bank
            instead.append(f"recognised as {template.bank}: its template's reading does not "
                           "reconcile, the generic reader's does")
            result = generic
    if result is None:
        result = _generic_or_refuse(lines, template, mismatch, ocr)
    return result, mismatch, instead


def _generic_or_refuse(lines: list[Line], template: Template | None,
                       mismatch: TemplateMismatch | None, ocr: bool) -> _Reading:
    """The generic reading where no template read the statement; refused, saying what the
    generic reader found missing, where it does not reconcile either."""
    explain = Explanation()
    out = parse_generic(lines, lambda o: _validate(o, None, ocr), explain)
    if out is None and mismatch is not None:
        raise UnreadableStatement(f"recognised as {mismatch}, and the generic reading "
                                  "does not reconcile", details=explain.to_dict())
    if out is None:
        raise UnrecognisedLayout(
            "no template matches and the generic reading does not reconcile"
            + (f": {_telling(explain)}" if _telling(explain) else ""),
            details=explain.to_dict())
    if template is not None:  # the bank was detected (or named): its statement is one
        out.statement.bank = template.bank  # of that bank's, whoever read the table
    return out, _validate(out, None, ocr), "generic"


def _unfaithful(read: _PagesRead, lines: list[Line], out: ParseOutput, *, layout: str,
                ocr: bool, mismatch: TemplateMismatch | None, damaged: int, ok: bool
                ) -> list[str]:
    """Why a reading may not be faithful to the file though its numbers may agree: glyphs
    no reader maps, OCR text nothing vouches for, damaged streams, data a PDF library lost,
    and (where nothing else is in doubt, `ok`) what the second PDF library reads
    differently."""
    pages = read.pages
    # a page no row or labelled figure was read from matters only where the rows' sum is
    # not pinned at both ends by printed balances (a page lost at the end could hide rows)
    pinned_ends = bool(out.pages) and bool(out.readings) and all(
        r.pinned for r in out.readings)
    unfaithful = _glyph_doubts(pages, out, pinned_ends)
    if layout == "generic" and ocr:
        scanned = [ln for ln in lines if ln.ocr]
        unfaithful += unvouched(scanned, _pinned_throughout(out))
        unfaithful += unvouched_descriptions(scanned, out.statement.accounts)
        if mismatch is not None:
            # what the template could not find on a scan, the generic reader may have
            # taken from elsewhere (a card number in a description for the account's)
            unfaithful.append(f"recognised as {mismatch}, and read from OCR text by the "
                              "generic reader instead: a person confirms its reading")
    if damaged:
        unfaithful.append(f"{damaged} compressed stream(s) of the file are damaged: data was "
                          "lost while reading them")
    if ok and not unfaithful and not read.lost:
        # (as many digits apart as glyphs the word reader could not map there: the other
        # library read a digit where this one read none, which the descriptions' check
        # covers)
        unmapped = {p.number: sum(w.text.count(UNDECODABLE) for w in p.words) for p in pages}
        found = read.disagreements(out.pages if pinned_ends else None)
        unfaithful += [d.message for d in found if d.matters(out.pages) and not (
            pinned_ends and d.page is not None and d.digits <= unmapped.get(d.page, 0))]
    unfaithful += [f"a PDF library lost data while reading: {w}"
                   for w in dict.fromkeys(read.lost)]
    return unfaithful


def _glyph_doubts(pages: Sequence[Page], out: ParseOutput, pinned_ends: bool) -> list[str]:
    """The pages' problems, and descriptions holding glyphs no reader maps or placeholders
    for them: where the balances pin both ends, a glyph no reader maps can hide no figure,
    and only the words it stands in (a description's) are in doubt."""
    unfaithful = [note for p in pages if not pinned_ends or p.number in out.pages
                  for note in p.problems if not (pinned_ends and UNDECODABLE_NOTE in note)]
    if pinned_ends:
        unfaithful += [f"a description holds a glyph no reader maps: {t.description!r}"[:120]
                       for a in out.statement.accounts for t in a.transactions
                       if UNDECODABLE in t.description]
    unfaithful += [f"a description holds a glyph placeholder: {t.description!r}"[:120]
                   for a in out.statement.accounts for t in a.transactions
                   if CID.search(t.description)]
    return unfaithful


#: The most words both engines read differently listed with a statement sent to review.
_DISPUTES_SHOWN = 40


def _pinned_throughout(out: ParseOutput) -> bool:
    """Whether the printed balances pin every figure of every account: opening and closing
    printed, a balance on every row, and the account reconciling (`trust.pinned`)."""
    for acct, reading in zip(out.statement.accounts, out.readings, strict=True):
        printed = not {"opening_balance", "closing_balance"} & set(reading.derived)
        amounts, balances = pinned(acct, printed, printed)
        if not printed or len(amounts) < len(acct.transactions) or len(balances) < len(
                acct.transactions):
            return False
    return True


def builtin_templates() -> list[Template]:
    """The built-in templates (read once per process)."""
    return list(_builtin_templates())


@functools.cache
def _builtin_templates() -> tuple[Template, ...]:
    """The built-in templates, read once per process: they ship with this code, which a
    running process does not reread either."""
    return tuple(load_templates())


READERS = {"pdfium": PdfiumReader, "pdfplumber": PdfplumberReader}


def page_reader(name: str = "pdfium") -> PageReader:
    """The page reader called `name` (PDFium's text page, or pdfplumber), with OCR."""
    reader_class(name)  # an unknown name is refused as the identity refuses it
    return READERS[name](ocr=ocr_page)


def _generic(lines: list[Line], ocr: bool) -> tuple[ParseOutput, Validation, str] | None:
    """The generic reading, where it validates (never on two that prove different
    statements: `AmbiguousLayout` is not raised over a template's reading)."""
    try:
        out = parse_generic(lines, lambda o: _validate(o, None, ocr))
    except AmbiguousLayout:
        return None
    if out is None:
        return None
    validation = _validate(out, None, ocr)
    return (out, validation, "generic") if validation.ok else None


def _telling(explain: Explanation) -> str:
    """The one thing a refusal's message names: what is missing, else what the first
    reading of the table gave."""
    if explain.missing:
        return explain.missing[0]
    return explain.readings[0] if explain.readings else ""


def _library(reader: PageReader) -> str:
    """The library whose words `reader` reads (the cross-check asks the other one)."""
    return "pdfminer" if isinstance(reader, PdfplumberReader) else "pdfium"


def _read(t: Template, lines: list[Line], ocr: bool) -> tuple[ParseOutput, Validation, str]:
    try:
        out = run_template(t, lines)
    except ValueError as exc:  # a capture that is not an amount or a date: not this layout
        raise TemplateMismatch(f"{t.bank}: {exc}") from exc
    return out, _validate(out, t, ocr), t.bank


def _validate(out: ParseOutput, t: Template | None, ocr: bool) -> Validation:
    """Validate; OCR readings may first be repaired where the running balance pins them."""
    repairs: list[str] = []
    ends: list[dict[str, str]] = [{} for _ in out.statement.accounts]
    mended: list[set[tuple[int, str]]] = [set() for _ in out.statement.accounts]
    if ocr:
        for i, (acct, reading) in enumerate(zip(out.statement.accounts, out.readings,
                                                strict=False)):
            read = [(t.amount, t.balance) for t in acct.transactions]
            rows = repair_from_running_balance(acct)
            mended[i] = _changed(read, acct)
            ends[i] = {} if rows else repair_ends(acct, reading.doubtful)
            repairs += rows + [f"account {i + 1}: {note}" for note in ends[i].values()]
    v = validate(out.statement, out.problems)
    v.trusted += out.trusted
    for name in t.hooks if t else ():
        for acct in out.statement.accounts:
            v.problems += HOOKS[name](acct)
    for i, (acct, reading) in enumerate(zip(out.statement.accounts, out.readings,
                                            strict=False)):
        where = f"account {i + 1} ({mask_account(acct.account_last4)})"
        # a mended end pins nothing: it was made to agree with the rows
        end = ends[i]
        problems, trusted = weigh(acct, reading.doubts,
                                  "opening_balance" not in reading.derived
                                  and "opening" not in end,
                                  "closing_balance" not in reading.derived
                                  and "closing" not in end, where)
        v.problems += problems
        v.trusted += trusted
        replaced = mended[i]
        if replaced and any((d.row, d.figure) not in replaced for d in reading.doubts):
            # a doubtful figure the repair did not replace may be what it was computed from
            v.problems.append(f"{where}: a figure was repaired to agree with figures OCR read "
                              "with low confidence: a person confirms them")
    v.ok = not v.problems
    v.repairs = repairs
    return v


def _changed(read: list[tuple[Decimal, Decimal | None]], acct: Account) -> set[tuple[int, str]]:
    """(row, figure) of each amount or balance of `acct` that differs from what was `read`."""
    return {(i, figure) for i, (t, (amount, balance)) in enumerate(zip(acct.transactions, read,
                                                                        strict=True))
            for figure, was, now in (("amount", amount, t.amount),
                                     ("balance", balance, t.balance)) if was != now}


def _by_bank(templates: list[Template], bank: str) -> Template:
    for t in templates:
        if t.bank == bank:
            return t
    known = ", ".join(sorted(t.bank for t in templates))
    raise UnknownBank(f"unknown bank {bank!r}; known banks: {known}")
