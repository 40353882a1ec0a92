"""ISO 20022 CAMT.053 (statement), .052 (report) and .054 (notification), any version.

Read with lxml through the hardened parser of `safexml.py`, by local names, so every
version's namespace (`camt.053.001.02` to `.13`) reads alike, bare or inside a business
application header's envelope (`head.001`). Each `Stmt`/`Rpt`/`Ntfctn` is
one account's statement: the opening balance is `OPBD` (else `PRCD`, the previous closing),
the closing `CLBD` (else the interim booked `ITBD` an 052 report may close on); a 054
carries none.
Booked entries only (`Sts` `BOOK`; pending ones change no booked balance): the entry's
amount signed by `CdtDbtInd`, its booking date (else its value date), its description from
the remittance information, the parties and the additional entry information, its
reference the end-to-end id where the bank carries one, else the servicer's reference.
Statements of the same account in one file (daily statements) are one section; where one
day's closing is not the next day's opening the section says so.
"""

from __future__ import annotations

import importlib.metadata
from datetime import date
from decimal import Decimal, InvalidOperation

from lxml import etree

from parsers.errors import CorruptExport, UnsupportedFormat
from parsers.exports import safexml
from parsers.exports.build import Entry, Section
from parsers.model import money

_OPENING = ("OPBD", "PRCD")
#: a report (052) may close on its interim booked balance
_CLOSING = ("CLBD", "ITBD")


def reader() -> str:
    return (f"lxml {importlib.metadata.version('lxml')} "
            f"(libxml2 {'.'.join(map(str, etree.LIBXML_VERSION))})")


def read_camt(data: bytes, max_bytes: int) -> tuple[list[Section], str, str]:
    """The account sections, the servicer's name and BIC, and the message (`camt.053`)."""
    # the message itself, or the one a business application header's envelope carries
    root = next((el for el in safexml.parse(data, max_bytes).iter() if isinstance(el.tag, str)
                 and ":camt.05" in (etree.QName(el).namespace or "")), None)
    if root is None:
        raise UnsupportedFormat("the XML holds no CAMT statement")
    ns = etree.QName(root).namespace or ""
    message = ".".join(ns.rsplit(":", 1)[-1].split(".")[:2]) if ns else ""
    if not message.startswith("camt.05"):
        raise UnsupportedFormat(f"the XML is not a CAMT statement ({ns or 'no namespace'})")
    statements = [el for el in root.iter() if isinstance(el.tag, str)
                  and _local(el) in ("Stmt", "Rpt", "Ntfctn")]
    sections: dict[tuple[str, str], Section] = {}
    servicer = ""
    for st in statements:
        acct = _child(st, "Acct")
        ident = _text(acct, "Id", "IBAN") or _text(acct, "Id", "Othr", "Id")
        if not ident:
            raise CorruptExport("a CAMT statement names no account")
        servicer = servicer or " ".join(x for x in (_text(acct, "Svcr", "FinInstnId", "Nm"),
                                                     _text(acct, "Svcr", "FinInstnId", "BICFI"),
                                                     _text(acct, "Svcr", "FinInstnId", "BIC"))
                                        if x)
        balances = _balances(st)
        entries = [_entry(e) for e in _children(st, "Ntry") if _booked(e)]
        currency = _text(acct, "Ccy") or next(
            (c for c in (_amount_ccy(_child(e, "Amt")) for e in _children(st, "Ntry")) if c),
            None) or next((ccy for _, _, ccy in balances.values()), "")
        period = _child(st, "FrToDt")
        start = _day(_text(period, "FrDtTm") or _text(period, "FrDt"))
        end = _day(_text(period, "ToDtTm") or _text(period, "ToDt"))
        opening = next((balances[c] for c in _OPENING if c in balances), None)
        closing = next((balances[c] for c in _CLOSING if c in balances), None)
        key = (ident, currency)
        here = Section(ident, currency, entries,
                       None if opening is None else opening[0],
                       None if closing is None else closing[0],
                       next((c for c in _OPENING if c in balances), ""),
                       next((c for c in _CLOSING if c in balances), ""),
                       start or (opening[1] if opening else None),
                       end or (closing[1] if closing else None))
        if key in sections:
            sections[key].extend(here)
        else:
            sections[key] = here
    if not statements:
        raise UnsupportedFormat(f"the {message} message holds no statement, report or "
                                "notification")
    return list(sections.values()), servicer, message


def _balances(st: etree._Element) -> dict[str, tuple[Decimal, date | None, str]]:
    out = {}
    for bal in _children(st, "Bal"):
        code = _text(bal, "Tp", "CdOrPrtry", "Cd") or _text(bal, "Tp", "CdOrPrtry", "Prtry")
        amt = _child(bal, "Amt")
        if not code or amt is None:
            continue
        value = _decimal(amt.text)
        if _text(bal, "CdtDbtInd") == "DBIT":
            value = -value
        out.setdefault(code, (value, _day(_text(bal, "Dt", "Dt") or _text(bal, "Dt", "DtTm")),
                              amt.get("Ccy", "")))
    return out


def _booked(entry: etree._Element) -> bool:
    status = _text(entry, "Sts", "Cd") or _text(entry, "Sts")
    return (status or "BOOK").strip() == "BOOK"


def _entry(e: etree._Element) -> Entry:
    amt = _child(e, "Amt")
    if amt is None or not (amt.text or "").strip():
        raise CorruptExport("a CAMT entry has no amount")
    amount = _decimal(amt.text)
    if _text(e, "CdtDbtInd") == "DBIT":
        amount = -amount
    when = _day(_text(e, "BookgDt", "Dt") or _text(e, "BookgDt", "DtTm")
                or _text(e, "ValDt", "Dt") or _text(e, "ValDt", "DtTm"))
    if when is None:
        raise CorruptExport("a CAMT entry has neither a booking nor a value date")
    tx = _child(_child(e, "NtryDtls"), "TxDtls")
    parties = [_text(tx, "RltdPties", role, "Nm") or _text(tx, "RltdPties", role, "Pty", "Nm")
               for role in (("Dbtr", "Cdtr") if amount > 0 else ("Cdtr", "Dbtr"))]
    words = [parties[0], *_texts(tx, "RmtInf", "Ustrd"), _text(e, "AddtlNtryInf")]
    description = " ".join(w for w in dict.fromkeys(w.strip() for w in words if w) if w)
    e2e = _text(tx, "Refs", "EndToEndId")
    reference = (e2e if e2e and e2e != "NOTPROVIDED" else None) or _text(e, "AcctSvcrRef") \
        or _text(e, "NtryRef")
    return Entry(when, description or _text(e, "BkTxCd", "Prtry", "Cd") or "", amount, None,
                 reference)


def _decimal(text: str | None) -> Decimal:
    try:
        value = Decimal((text or "").strip())
    except InvalidOperation:
        raise CorruptExport(f"a CAMT amount is not a number: {text!r}") from None
    try:
        money(value)
    except ValueError:
        raise CorruptExport(f"a CAMT amount has fractions of a cent: {text!r}") from None
    return value


def _amount_ccy(amt: etree._Element | None) -> str | None:
    return None if amt is None else amt.get("Ccy")


def _day(text: str | None) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text.strip()[:10])
    except ValueError:
        raise CorruptExport(f"a CAMT date is not a date: {text!r}") from None


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname


def _children(el: etree._Element | None, name: str) -> list[etree._Element]:
    if el is None:
        return []
    return [c for c in el if isinstance(c.tag, str) and _local(c) == name]


def _child(el: etree._Element | None, *path: str) -> etree._Element | None:
    for name in path:
        found = _children(el, name)
        if not found:
            return None
        el = found[0]
    return el


def _text(el: etree._Element | None, *path: str) -> str | None:
    found = _child(el, *path)
    return None if found is None or found.text is None else found.text.strip()


def _texts(el: etree._Element | None, *path: str) -> list[str]:
    parent = _child(el, *path[:-1])
    return [c.text.strip() for c in _children(parent, path[-1]) if c.text]
