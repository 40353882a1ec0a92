"""The generic parser: reads a bank no template describes, if its numbers then agree.

It finds a table header in the common spellings (English and German), builds a template
for it on the spot, and tries the plausible conventions (number locale, date order). A
reading is accepted only when it validates: a statement that reconciles under exactly the
assumptions tried is the only evidence the generic parser is allowed to trust.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from parsers.engine import ParseOutput, TemplateMismatch, run_template
from parsers.errors import StatementError
from parsers.lines import Line
from parsers.template import Template, template_from_dict
from parsers.validate import Validation

HEADER_WORDS: dict[str, tuple[str, ...]] = {
    "date": ("transaction date", "posting date", "booking date", "date", "posted",
             "buchungstag", "datum"),
    "description": ("description", "details", "transaction", "particulars", "narrative",
                    "memo", "verwendungszweck", "buchungstext"),
    "debit": ("withdrawals", "money out", "paid out", "debits", "debit", "soll", "ausgang"),
    "credit": ("deposits", "money in", "paid in", "credits", "credit", "haben", "eingang"),
    "amount": ("amount", "betrag"),
    "balance": ("running balance", "balance", "saldo"),
}
OPENING = r"(?i:(?:opening|beginning|previous|starting) balance|balance (?:brought )?forward" \
          r"|alter kontostand|anfangssaldo)"
CLOSING = r"(?i:(?:closing|ending|new|final) balance|balance carried forward" \
          r"|neuer kontostand|endsaldo)"
ACCOUNT = r"(?i)(?:account|acct|konto|iban)\w*(?: (?:number|no\.?|nr\.?))?:?\s*" \
          r"[\d*Xx• \-]*?(?P<last4>\d{4})\b(?![\d\-])"
_DATE = r"\d{1,2}[/.\-]\d{1,2}[/.\-]\d{4}|\d{1,2}-[A-Za-z]{3}-\d{4}|[A-Z][a-z]+ \d{1,2}, \d{4}" \
        r"|\d{1,2} [A-Z][a-z]+ \d{4}|\d{4}-\d{2}-\d{2}"
PERIOD = rf"(?P<start>{_DATE})\s*(?:-|–|to|through|bis)\s*(?P<end>{_DATE})"
#: Period format -> the row formats consistent with it (never mixing day/month order).
DATE_FAMILIES: dict[str, tuple[str, ...]] = {
    "%m/%d/%Y": ("%m/%d/%Y", "%m/%d"),
    "%d/%m/%Y": ("%d/%m/%Y", "%d/%m"),
    "%d.%m.%Y": ("%d.%m.%Y", "%d.%m."),
    "%d-%b-%Y": ("%d-%b-%Y", "%d-%b", "%d %b"),
    "%B %d, %Y": ("%b %d", "%m/%d", "%m/%d/%Y"),
    "%d %B %Y": ("%d %b", "%d/%m/%Y", "%d %b %Y"),
    "%Y-%m-%d": ("%Y-%m-%d",),
}

Validator = Callable[[ParseOutput], Validation]


def parse_generic(lines: list[Line], validator: Validator) -> ParseOutput | None:
    """The first reading that validates, or None when nothing reconciles."""
    columns = _find_header(lines)
    if columns is None:
        return None
    for t in _candidates(lines, columns):
        try:
            out = run_template(t, lines)
        except (TemplateMismatch, StatementError, ValueError):
            continue
        if validator(out).ok:
            return out
    return None


def _find_header(lines: list[Line]) -> list[dict[str, str]] | None:
    for ln in lines:
        text = ln.text.lower()
        columns: list[tuple[int, dict[str, str]]] = []
        for role, spellings in HEADER_WORDS.items():
            for s in spellings:
                m = re.search(rf"(?<![a-z]){re.escape(s)}(?![a-z])", text)
                if m and not any(start <= m.start() < start + len(c["label"])
                                 for start, c in columns):
                    label = " ".join(ln.text[m.start():m.end()].split())
                    columns.append((m.start(), {"label": label, "role": role}))
                    break
        roles = {c["role"] for _, c in columns}
        if {"date", "description"} <= roles and ("amount" in roles or {"debit", "credit"} <= roles):
            return [c for _, c in sorted(columns, key=lambda sc: sc[0])]
    return None


def _candidates(lines: list[Line], columns: list[dict[str, str]]) -> Iterator[Template]:
    text = "\n".join(ln.text for ln in lines)
    currency = "EUR" if ("EUR" in text or "€" in text) else "USD"
    locales = ("de", "en") if currency == "EUR" else ("en", "de")
    for locale in locales:
        for period_format, row_formats in DATE_FAMILIES.items():
            for row_format in row_formats:
                yield template_from_dict({
                    "bank": "generic",
                    "name": "Generic statement",
                    "currency": currency,
                    "locale": locale,
                    "period": {"pattern": PERIOD, "date_format": period_format},
                    "account": {
                        "last4": ACCOUNT,
                        "opening": rf"{OPENING}\D*?(?P<opening>{{AMOUNT}})",
                        "closing": rf"{CLOSING}\D*?(?P<closing>{{AMOUNT}})",
                    },
                    "table": {"columns": columns, "date_format": row_format,
                              "end": [OPENING, CLOSING, r"(?i)^page \d+", r"(?i)^total"]},
                })

