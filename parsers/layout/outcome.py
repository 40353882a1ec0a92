"""What running a template over a statement yields, or why it yields nothing.

The statement with, beside it, how each account was read (what was derived, what was found
where, what OCR read with little confidence), the problems, and the table readings for
`templates check`; or `TemplateMismatch` when the template does not describe the document,
or a `TemplateFault` when the template itself captures what it cannot read. Apart from the
engine so that the readers without a template (the generic reader, the exports) return the
same outcome without running one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parsers.errors import TemplateFault
from parsers.layout.table_rows import TableReading
from parsers.layout.template import Template
from parsers.model import Statement, mask_account, mask_digits
from parsers.ocr.trust import Doubt
from parsers.pdf.lines import Line


class TemplateMismatch(Exception):
    """The template does not describe this document (a required element is missing)."""


@dataclass
class AccountReading:
    """How one account was read: what `ParseResult.to_dict()` shows beside the statement."""

    #: figure -> how it was derived, for figures the statement does not print.
    derived: dict[str, str] = field(default_factory=dict)
    #: figure -> the label (and page) it was read after.
    found: dict[str, str] = field(default_factory=dict)
    rows: int = 0
    #: Rows with a printed running balance: the running total was checked on each of them.
    balances_printed: int = 0
    #: Balance brought/carried forward rows checked against the running total.
    balance_rows_checked: int = 0
    #: Figures OCR read below the review confidence (`trust.py` weighs them).
    doubts: list[Doubt] = field(default_factory=list)
    #: Labelled figures (`opening`, `closing`) OCR read with little confidence (a word of
    #: the figure itself, not another on its line): the only ones a repair from the running
    #: balance may mend.
    doubtful: set[str] = field(default_factory=set)
    #: Lines among the rows that no row took and that print no figure where amounts stand
    #: (`page N: text`): page furniture, which can change no number.
    furniture: list[str] = field(default_factory=list)
    #: No account number is printed: the account is booked without one.
    unnamed: bool = False
    #: Both balances are printed, labelled or as balance rows, at the ends of the rows: the
    #: rows' sum between them is proven (no row lost before or after those read).
    pinned: bool = False
    #: The pages the labelled figures were read from.
    pages: set[int] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        return {"derived": self.derived, "rows": self.rows,
                "balances_printed": self.balances_printed,
                "balance_rows_checked": self.balance_rows_checked,
                "found": self.found, "furniture": self.furniture, "unnamed": self.unnamed}

    def notes(self, where: str) -> list[str]:
        out = [f"{where}: {name} derived from {how}" for name, how in self.derived.items()]
        if self.unnamed:
            out.append(f"{where}: no account number is printed: the account is booked "
                       "without one")
        if 0 < self.balances_printed < self.rows:
            out.append(f"{where}: running balance printed on {self.balances_printed} of "
                       f"{self.rows} rows (checked where printed)")
        return out


@dataclass
class ParseOutput:
    statement: Statement
    problems: list[str] = field(default_factory=list)
    #: What OCR read with little confidence and other evidence vouches for (`trust.py`).
    trusted: list[str] = field(default_factory=list)
    readings: list[AccountReading] = field(default_factory=list)
    #: The table reading of each section, for `templates check`.
    tables: list[TableReading] = field(default_factory=list)
    #: How a reader without a template found the table (columns, conventions); empty for
    #: a template's reading.
    how: dict[str, Any] = field(default_factory=dict)
    #: The pages rows and labelled figures were read from (empty: not known, every page).
    pages: set[int] = field(default_factory=set)
    #: Lines that print a dated amount, as a row does, that no table of a template read.
    unread: int = 0

    @property
    def notes(self) -> list[str]:
        return [n for i, (a, r) in enumerate(zip(self.statement.accounts, self.readings,
                                                 strict=True))
                for n in r.notes(f"account {i + 1} ({mask_account(a.account_last4)})")]


def template_fault(t: Template, key: str, ln: Line, problem: str) -> TemplateFault:
    """The template's `key` captured what it cannot read (`problem`) on the line `ln`."""
    return TemplateFault(f"{t.source}: {key} {problem}, on page {ln.page}: "
                         f"{mask_digits(ln.text)!r}")
