"""The book as an OFX 2 (XML) file: a bank statement per account, a card statement per card.

Each transaction's stable id is its `FITID`, so an application that imports the file twice,
or two overlapping exports, sees each transaction once. The ledger balance is the closing
balance of the latest statement. Only the last four digits of an account are known, and
they are its `ACCTID`; the bank id stands in for the routing number (`BANKID`, 9 characters
at most). A transaction of a statement awaiting review (only when asked for) has a memo that
says so.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from datetime import date

from parsers.model import money
from reconcile.book_records import AccountKey
from reconcile.exports.source import BookExport

HEADER = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
          '<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" '
          'NEWFILEUID="NONE"?>\n')
NAME_MAX, MEMO_MAX = 32, 255
REVIEW_MEMO = "NEEDS REVIEW: "


def render(book: BookExport) -> bytes:
    ofx = ET.Element("OFX")
    spans = [s for k in book.accounts() if (s := book.span(k))]
    server_day = max((end for _, end in spans), default=date(1970, 1, 1))
    sonrs = _sub(_sub(ofx, "SIGNONMSGSRSV1"), "SONRS")
    _status(sonrs)
    _sub(sonrs, "DTSERVER", _day(server_day))
    _sub(sonrs, "LANGUAGE", "ENG")
    cards = [k for k in book.accounts() if book.names.is_card(k)]
    banks = [k for k in book.accounts() if k not in cards]
    for keys, messages, wrapper, kind in ((banks, "BANKMSGSRSV1", "STMTTRNRS", "STMTRS"),
                                          (cards, "CREDITCARDMSGSRSV1", "CCSTMTTRNRS",
                                           "CCSTMTRS")):
        if keys:
            msgs = _sub(ofx, messages)
            for key in keys:
                _statement(book, key, _sub(msgs, wrapper), kind)
    ET.indent(ofx, space=" ")
    return HEADER.encode() + ET.tostring(ofx, encoding="utf-8") + b"\n"


def _statement(book: BookExport, key: AccountKey, trnrs: ET.Element, kind: str) -> None:
    _sub(trnrs, "TRNUID", hashlib.sha256(str(key).encode()).hexdigest()[:32])
    _status(trnrs)
    rs = _sub(trnrs, kind)
    _sub(rs, "CURDEF", book.currency(key))
    if kind == "CCSTMTRS":
        _sub(_sub(rs, "CCACCTFROM"), "ACCTID", key.last4)
    else:
        acct = _sub(rs, "BANKACCTFROM")
        _sub(acct, "BANKID", key.bank[:9] or "unknown")
        _sub(acct, "ACCTID", key.last4)
        _sub(acct, "ACCTTYPE", "CHECKING")
    latest, span = book.latest_balance(key), book.span(key)
    if latest is None or latest.period_end is None or span is None:
        raise ValueError(f"the book holds no statement balance for {key.bank} "
                         f"****{key.last4}; OFX needs one")
    tranlist = _sub(rs, "BANKTRANLIST")
    _sub(tranlist, "DTSTART", _day(span[0]))
    _sub(tranlist, "DTEND", _day(span[1]))
    for t in book.transactions_of(key):
        trn = _sub(tranlist, "STMTTRN")
        _sub(trn, "TRNTYPE", "DEBIT" if t.amount < 0 else "CREDIT")
        _sub(trn, "DTPOSTED", _day(t.date))
        _sub(trn, "TRNAMT", money(t.amount))
        _sub(trn, "FITID", t.txn_id)
        _sub(trn, "NAME", t.description[:NAME_MAX].rstrip())
        _sub(trn, "MEMO", (("" if t.verified else REVIEW_MEMO) + t.description)[:MEMO_MAX])
    ledger = _sub(rs, "LEDGERBAL")
    _sub(ledger, "BALAMT", money(latest.closing_balance))
    _sub(ledger, "DTASOF", _day(latest.period_end))


def _status(parent: ET.Element) -> None:
    status = _sub(parent, "STATUS")
    _sub(status, "CODE", "0")
    _sub(status, "SEVERITY", "INFO")


def _sub(parent: ET.Element, tag: str, text: str | None = None) -> ET.Element:
    element = ET.SubElement(parent, tag)
    element.text = text
    return element


def _day(d: date) -> str:
    return d.strftime("%Y%m%d")
