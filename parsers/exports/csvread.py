"""Bank CSV exports: read through a CSV template, or through a guess that is one.

A file whose header row holds every column of a template in force (`csvtemplate.py`) is
read by that template. Any other is read by the generic reader, which guesses a template
from the header's names (English and German, the words banks' exports use), the amounts'
decimal mark and the one date format that reads every date; where two formats read the
dates differently (`03/04/2026`), it refuses rather than guess (`unsupported_format`), and a
template decides. `guess_template` is what `stmtflow templates suggest FILE.csv` prints.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal

from parsers.errors import CorruptExport, UnreadableStatement, UnsupportedFormat
from parsers.exports.build import Entry, Section
from parsers.exports.csvtemplate import CsvTemplate
from parsers.model import money
from parsers.numbers import parse_amount

#: role -> header names (folded) the generic reader takes for it, best first
SYNONYMS: dict[str, tuple[str, ...]] = {
    "date": ("date", "booking date", "posting date", "transaction date", "posted date",
             "buchung", "buchungstag", "buchungsdatum", "datum", "value date", "valuta",
             "wertstellung"),
    "description": ("description", "details", "transaction description", "payee", "name",
                    "narrative", "memo", "auftraggeber/empfänger",
                    "beguenstigter/zahlungspflichtiger", "buchungstext", "verwendungszweck"),
    "amount": ("amount", "betrag", "transaction amount", "value", "umsatz"),
    "debit": ("debit", "debit amount", "withdrawal", "withdrawals", "money out", "paid out",
              "soll"),
    "credit": ("credit", "credit amount", "deposit", "deposits", "money in", "paid in",
               "haben"),
    "balance": ("balance", "running balance", "saldo", "kontostand", "balance after"),
    "account": ("account", "account number", "iban", "konto", "kontonummer", "auftragskonto"),
    "currency": ("currency", "währung", "waehrung", "ccy"),
    "reference": ("reference", "transaction id", "fitid", "id", "end-to-end id",
                  "bank reference"),
}
DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%d/%m/%Y", "%m/%d/%Y", "%d-%m-%Y", "%Y/%m/%d",
                "%d.%m.%y", "%d/%m/%y", "%m/%d/%y", "%Y%m%d")
_ACCOUNT_LINE = re.compile(r"(?i)^\W*(iban|account(?: number)?|konto(?:nummer)?)\W+"
                           r"(?P<account>[A-Z]{2}\d{2}[A-Z0-9 ]{8,}|[\d][\d -]{3,})")
_CURRENCY_LINE = re.compile(r"\b(EUR|USD|GBP|CHF|CAD|AUD|SEK|NOK|DKK|PLN|JPY)\b")


def read_csv(data: bytes, templates: Sequence[CsvTemplate], currency: str | None
             ) -> tuple[list[Section], CsvTemplate, bool, str]:
    """The file's section, the template that read it, whether that was guessed, and the
    lines before its header (where a bank names itself). `currency`: the statement's where
    the file names none (its bank's)."""
    text = _decode(data, [t.encoding for t in templates])
    for t in templates:
        lines, header_at = _header(text, t.delimiter, lambda h, t=t: t.matches(h))
        if header_at is not None:
            return ([_read(lines, header_at, t, currency)], t, False,
                    "\n".join(lines[:header_at]))
    guessed = guess_template(data)
    lines, header_at = _header(text, guessed.delimiter, _has_roles)
    if header_at is None:  # the guess found it in the text decoded without the templates'
        raise UnsupportedFormat("no row of the CSV, decoded in the templates' encodings, is "
                                "the header its columns were guessed from: a CSV template "
                                "describes it")
    return ([_read(lines, header_at, guessed, currency)], guessed, True,
            "\n".join(lines[:header_at]))


def guess_template(data: bytes) -> CsvTemplate:
    """The template the generic reader reads `data` with: columns by their header names,
    the decimal mark and date format from the values; `UnsupportedFormat` where the
    header names no date and amount, or the dates read two ways."""
    text = _decode(data, [])
    delimiter, lines, header_at = _delimited(text)
    rows = list(csv.reader(lines[header_at:], delimiter=delimiter))
    header = [h.strip() for h in rows[0]]
    columns = _columns(header)
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    dates = [r[header.index(columns["date"][0])].strip() for r in body
             if len(r) > header.index(columns["date"][0])]
    figures = [r[header.index(n)].strip() for role in ("amount", "debit", "credit", "balance")
               for n in columns.get(role, ()) for r in body if len(r) > header.index(n)]
    decimal_comma = any(re.search(r"\d,\d{2}$", f) for f in figures) and not any(
        re.search(r"\d\.\d{2}$", f) for f in figures)
    order = "oldest_first"
    fmt = _date_format(dates)
    parsed = [datetime.strptime(d, fmt).date() for d in dates if d]
    if len(parsed) > 1 and parsed[0] > parsed[-1] and all(
            a >= b for a, b in itertools.pairwise(parsed)):
        order = "newest_first"  # only where every row is as old as the one after it or older
    account = None
    for ln in lines[:header_at]:
        if _ACCOUNT_LINE.match(ln.replace(delimiter, " ")):
            account = _ACCOUNT_LINE.pattern
            break
    return CsvTemplate(name="guessed", bank=None, delimiter=delimiter, encoding="utf-8",
                       locale="de" if decimal_comma else "en", date_format=fmt,
                       columns=columns, order=order, account_pattern=account,
                       currency=_preamble_currency(lines[:header_at]))


def _decode(data: bytes, encodings: Sequence[str]) -> str:
    for codec in ("utf-8-sig", *encodings):
        try:
            return data.decode(codec)
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode("cp1252", errors="replace")


def _fold(name: str) -> str:
    return " ".join(name.strip().strip('"').casefold().split())


def _columns(header: list[str]) -> dict[str, tuple[str, ...]]:
    folded = [_fold(h) for h in header]
    columns: dict[str, tuple[str, ...]] = {}
    taken: set[int] = set()
    for role, names in SYNONYMS.items():
        hits = [i for name in names for i, h in enumerate(folded)
                if i not in taken and (h == name or h.startswith(name + " ("))]
        if not hits:
            continue
        chosen = sorted(set(hits)) if role == "description" else hits[:1]
        taken.update(chosen)
        columns[role] = tuple(header[i] for i in chosen)
    if "date" not in columns or not ("amount" in columns or {"debit", "credit"} <= set(
            columns)):
        raise UnsupportedFormat("the CSV's header names no date and amount columns the "
                                "generic reader knows: a CSV template describes it")
    if "amount" in columns:
        columns.pop("debit", None)
        columns.pop("credit", None)
    return columns


def _has_roles(header: list[str]) -> bool:
    try:
        _columns(header)
    except UnsupportedFormat:
        return False
    return True


def _delimited(text: str) -> tuple[str, list[str], int]:
    best = None
    for delimiter in (",", ";", "\t", "|"):
        lines, at = _header(text, delimiter, _has_roles)
        if at is not None and (best is None or at < best[2]):
            best = (delimiter, lines, at)
    if best is None:
        raise UnsupportedFormat("no row of the CSV is a header naming a date and an amount "
                                "column the generic reader knows: a CSV template describes it")
    return best


def _header(text: str, delimiter: str, ok: Callable[[list[str]], bool]
            ) -> tuple[list[str], int | None]:
    lines = text.splitlines()
    for i, ln in enumerate(lines[:40]):
        fields = next(csv.reader([ln], delimiter=delimiter), [])
        if len(fields) >= 3 and ok(fields):
            return lines, i
    return lines, None


def _date_format(dates: list[str]) -> str:
    readings: dict[str, tuple[date, ...]] = {}
    for fmt in DATE_FORMATS:
        try:
            readings[fmt] = tuple(datetime.strptime(d, fmt).date() for d in dates if d)
        except ValueError:
            continue
    distinct = set(readings.values())
    if not readings:
        raise UnsupportedFormat(f"the CSV's dates are in no format the generic reader "
                                f"knows ({dates[:1]}): a CSV template names it")
    if len(distinct) > 1:
        raise UnsupportedFormat("the CSV's dates read two ways (day first or month first): "
                                "a CSV template names the format")
    return next(iter(readings))


def _preamble_currency(lines: list[str]) -> str | None:
    for ln in lines:
        m = _CURRENCY_LINE.search(ln)
        if m:
            return m.group(1)
    return None


def _read(lines: list[str], header_at: int, t: CsvTemplate, currency: str | None) -> Section:
    rows = list(csv.reader(lines[header_at:], delimiter=t.delimiter))
    header = [h.strip() for h in rows[0]]

    def cell(row: list[str], role: str) -> str:
        names = t.columns.get(role, ())
        return " ".join(row[header.index(n)].strip() for n in names
                        if header.index(n) < len(row) and row[header.index(n)].strip())

    account = None
    if t.account_pattern:
        pattern = re.compile(t.account_pattern)
        for ln in lines[:header_at]:
            m = pattern.match(ln) or pattern.match(ln.replace(t.delimiter, " "))
            if m:
                account = m.group("account")
                break
    entries, accounts, currencies = [], set(), set()
    for n, row in enumerate(rows[1:], start=header_at + 2):
        if not any(c.strip() for c in row):
            continue
        try:
            entries.append(_entry(row, cell, t))
        except ValueError as exc:
            raise CorruptExport(f"CSV line {n}: {exc}") from None
        if "account" in t.columns and cell(row, "account"):
            accounts.add(cell(row, "account"))
        if "currency" in t.columns and cell(row, "currency"):
            currencies.add(cell(row, "currency").split()[0].upper())
    if len(accounts) > 1:
        raise UnsupportedFormat("the CSV holds rows of several accounts: export one account "
                                "per file")
    account = account or next(iter(accounts), None)
    if not account:
        raise UnreadableStatement("the CSV names no account: its template needs an `account` "
                                  "column or an `account_pattern`")
    if len(currencies) > 1:
        raise UnsupportedFormat("the CSV holds rows in several currencies")
    ccy = next(iter(currencies), None) or t.currency or currency
    if not ccy:
        raise UnreadableStatement("the CSV names no currency: its template sets `currency`")
    if t.order == "newest_first":
        entries.reverse()
    dates = [e.date for e in entries]
    return Section(account, ccy, entries, period_start=min(dates) if dates else None,
                   period_end=max(dates) if dates else None)


def _entry(row: list[str], get: Callable[[list[str], str], str], t: CsvTemplate) -> Entry:
    """One row; `get(row, role)` is the text of the role's columns."""
    when = datetime.strptime(get(row, "date"), t.date_format).date()
    if "amount" in t.columns:
        amount = _amount(get(row, "amount"), t.locale)
        if amount is None:
            raise ValueError("the row has no amount")
        if t.sign == "inverted":
            amount = -amount
    else:
        debit = _amount(get(row, "debit"), t.locale)
        credit = _amount(get(row, "credit"), t.locale)
        if debit is None and credit is None:
            raise ValueError("the row has neither a debit nor a credit")
        amount = abs(credit or Decimal(0)) - abs(debit or Decimal(0))
    balance = _amount(get(row, "balance"), t.locale) if "balance" in t.columns else None
    reference = (get(row, "reference") or None) if "reference" in t.columns else None
    return Entry(when, get(row, "description"), amount, balance, reference)


def _amount(text: str, locale: str) -> Decimal | None:
    text = text.strip()
    if not text:
        return None
    value, suffix = parse_amount(text, locale)
    if suffix.upper() == "DR":
        value = -abs(value)
    money(value)
    return value
