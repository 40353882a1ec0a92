"""From what an export says to the statement a PDF gives, validated by the same rules.

Every reader hands over `Section`s: one account's rows and whatever balances its format
carries. Here each becomes an `Account` of the normalised `Statement` and goes through
`parsers.validate` like a PDF's: opening + Σ amounts = closing to the cent, the running
balance row by row where the export gives one, every date in the period. A balance the
format does not carry is derived and says so (`AccountReading.derived`), as for a PDF; an
account with no balance at all is an *unverified source*: it needs review unless the export
settings trust that account (`settings.py`), and then it says so in the notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from parsers.api import ParseResult
from parsers.errors import CorruptExport, UnreadableStatement
from parsers.exports.settings import Exports
from parsers.layout.detect import identified
from parsers.layout.outcome import AccountReading
from parsers.layout.template import Template
from parsers.model import Account, Statement, Transaction, mask_account, money
from parsers.validate import validate

#: a statement's `bank` where neither the file, the hint nor the settings name one
UNKNOWN_BANK = "unknown"
#: a BIC (SWIFT code): bank, country, location, and a branch or not
_BIC = re.compile(r"\b[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b")


@dataclass
class Entry:
    """One booked row as the export gives it."""

    date: date
    description: str
    amount: Decimal
    balance: Decimal | None = None
    reference: str | None = None


@dataclass
class Section:
    """One account's rows and the balances its export carries (None where it carries
    none), with the format's name for each balance (`:60F:`, `OPBD`, `LEDGERBAL`)."""

    account: str
    currency: str
    entries: list[Entry] = field(default_factory=list)
    opening: Decimal | None = None
    closing: Decimal | None = None
    opening_label: str = ""
    closing_label: str = ""
    period_start: date | None = None
    period_end: date | None = None
    #: what the reader found wrong (two daily statements that do not chain)
    problems: list[str] = field(default_factory=list)

    def extend(self, after: Section) -> None:
        """Append the next statement of the same account (a file of daily statements): this
        one's closing becomes its last row's running balance, so validation checks every
        statement's equation, and a next one that does not open where this one closed is
        named."""
        if self.closing is not None and self.entries and self.entries[-1].balance is None:
            self.entries[-1].balance = self.closing
        if self.closing is not None and after.opening is not None \
                and self.closing != after.opening:
            self.problems.append(f"a statement closes at {money(self.closing)} and the next "
                                 f"opens at {money(after.opening)}")
        self.entries += after.entries
        self.problems += after.problems
        if self.opening is None:
            self.opening, self.opening_label = after.opening, after.opening_label
        self.closing, self.closing_label = after.closing, after.closing_label
        self.period_start = self.period_start or after.period_start
        self.period_end = after.period_end or self.period_end


def last4(account: str) -> str:
    """The last four digits of an account identifier (an IBAN, `BLZ/number`, a card)."""
    digits = re.sub(r"\D", "", account)
    if len(digits) < 4:
        raise UnreadableStatement("the export names no account number of four digits or more")
    return digits[-4:]


def bank_of(hint: str | None, institution: str, sections: list[Section],
            templates: list[Template], exports: Exports, fallback: str | None = None) -> str:
    """The bank the statement is booked under: the caller's hint, else the one the export
    settings name for its account, else the one template whose BIC the export's institution
    fields carry (an MT940's SWIFT header or `:25:`, CAMT `<Svcr>`), else the one whose
    bank's name they print (OFX `<ORG>`, CAMT `<Svcr>`, a CSV's lines before its header),
    else `fallback` (a CSV template's bank), else `unknown`."""
    if hint:
        return hint
    for s in sections:
        named = exports.bank_for(last4(s.account))
        if named:
            return named
    found = {code[:8] for code in _BIC.findall(institution)}
    by_bic = {t.bank for t in templates if found & {b[:8] for b in t.bics}}
    if len(by_bic) == 1:
        return by_bic.pop()
    by_name = [t.bank for t in templates if institution and identified(t, institution)]
    if len(by_name) == 1:
        return by_name[0]
    return fallback or UNKNOWN_BANK


def build(sections: list[Section], bank: str, source: dict[str, str], exports: Exports,
          notes: list[str] | None = None) -> ParseResult:
    """The validated reading of an export's `sections` (booked under `bank`)."""
    if not sections:
        raise UnreadableStatement(f"the {source['format']} export holds no account statement")
    accounts, readings, problems, notes = [], [], [], list(notes or [])
    for i, s in enumerate(sections, start=1):
        acct, reading, unverified = _account(s)
        where = f"account {i} ({mask_account(acct.account_last4)})"
        problems += [f"{where}: {p}" for p in s.problems]
        if unverified and exports.trusts(bank, acct.account_last4):
            notes.append(f"{where}: the export carries no balance; accepted as read, as the "
                         "export settings trust this account")
        elif unverified:
            problems.append(f"{where}: unverified source: the export carries no balance to "
                            "check its rows against (trust it in the export settings, or "
                            "review it)")
        accounts.append(acct)
        readings.append(reading)
        notes += reading.notes(where)
    starts = [s.period_start for s in sections if s.period_start]
    ends = [s.period_end for s in sections if s.period_end]
    st = Statement(bank, accounts, min(starts) if starts else None,
                   max(ends) if ends else None, source=source)
    validation = validate(st, problems)
    return ParseResult(st, validation, source["format"], 0, 0, readings, notes)


def _account(s: Section) -> tuple[Account, AccountReading, bool]:
    """The section's account, how its balances were had, and whether none was carried."""
    for figure in (s.opening, s.closing, *(x for e in s.entries for x in (e.amount, e.balance))):
        if figure is not None and figure != figure.quantize(Decimal("0.01")):
            raise CorruptExport(f"the export holds an amount of fractions of a cent: {figure}")
    txs = [Transaction(e.date, " ".join(e.description.split()), e.amount, e.balance,
                       e.reference) for e in s.entries]
    total = sum((t.amount for t in txs), Decimal(0))
    reading = AccountReading(rows=len(txs),
                             balances_printed=sum(t.balance is not None for t in txs))
    opening, closing = s.opening, s.closing
    if s.opening is not None:
        reading.found["opening_balance"] = s.opening_label
    if s.closing is not None:
        reading.found["closing_balance"] = s.closing_label
    if opening is None and closing is None and txs and txs[0].balance is not None:
        opening = txs[0].balance - txs[0].amount
        reading.derived["opening_balance"] = "the first row's running balance"
    if closing is None and txs and txs[-1].balance is not None:
        closing = txs[-1].balance
        reading.derived["closing_balance"] = "the last row's running balance"
    unverified = opening is None and closing is None
    if unverified:
        opening, closing = Decimal(0), total
    elif opening is None:
        opening = closing - total
        reading.derived["opening_balance"] = (f"{s.closing_label or 'the closing balance'} "
                                              "less the rows (the export carries no opening)")
    elif closing is None:
        closing = opening + total
        reading.derived["closing_balance"] = (f"{s.opening_label or 'the opening balance'} "
                                              "plus the rows (the export carries no closing)")
    reading.pinned = s.opening is not None and s.closing is not None
    acct = Account(last4(s.account), s.currency.upper(), opening, closing, txs,
                   period_start=s.period_start, period_end=s.period_end,
                   balances_printed=not unverified)
    return acct, reading, unverified
