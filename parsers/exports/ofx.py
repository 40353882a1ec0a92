"""OFX 1.x (SGML), OFX 2.x (XML) and QFX (OFX with Intuit's tags), read by `ofxtools`.

Each bank or card statement (`STMTRS`, `CCSTMTRS`) is an account section: its rows from
`BANKTRANLIST`, its closing balance from `LEDGERBAL` (OFX carries no opening balance: it is
derived and says so). A row's date is the date `DTPOSTED` prints, not ofxtools' conversion
to UTC, which moves a late-evening posting to the next day. `FITID` is kept as the row's
reference. OFX 2 is XML: a document type or entity declaration is refused unread, as for
CAMT. Two slips banks make are mended, and say so in the notes: a file without its header,
and a transaction list left open before `LEDGERBAL`.
"""

from __future__ import annotations

import codecs
import importlib.metadata
import io
import re
import xml.etree.ElementTree as ET
from datetime import date
from typing import Any

from ofxtools.Parser import OFXTree

from parsers.errors import CorruptExport, UnsupportedFormat, XmlRejected
from parsers.exports.build import Entry, Section

_STATEMENTS = ("STMTRS", "CCSTMTRS")
_DECLARATION = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.I)
#: a transaction list that `LEDGERBAL` follows before the list is closed
_OPEN_LIST = re.compile(rb"(<BANKTRANLIST>(?:(?!</BANKTRANLIST>|<LEDGERBAL>).)*)(<LEDGERBAL>)",
                        re.S | re.I)
_HEADER_V1 = (b"OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\n"
              b"CHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n")
_HEADER_V2 = (b'<?xml version="1.0" encoding="UTF-8"?>\n<?OFX OFXHEADER="200" VERSION="200" '
              b'SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\n')
_DATE = re.compile(r"^\s*(\d{4})(\d{2})(\d{2})")


def reader() -> str:
    return f"ofxtools {importlib.metadata.version('ofxtools')}"


def read_ofx(data: bytes) -> tuple[list[Section], str, list[str]]:
    """The account sections of an OFX file, its institution's name (`<FI><ORG>`), and notes
    on what was mended before ofxtools read it."""
    if _DECLARATION.search(data):
        raise XmlRejected("the OFX declares a document type or entities: refused unread")
    data, notes = _mended(data.removeprefix(codecs.BOM_UTF8).lstrip())
    tree = OFXTree()
    try:
        tree.parse(io.BytesIO(data))
        ofx = tree.convert()
    except Exception as exc:  # ofxtools raises its own, ValueError and KeyError alike
        raise CorruptExport(f"ofxtools cannot read the OFX: {type(exc).__name__}: "
                            f"{str(exc)[:200]}") from None
    # bank and card statements; an investment statement holds positions, not an account's rows
    statements = [st for st in ofx.statements if type(st).__name__ in _STATEMENTS]
    if not statements:
        raise UnsupportedFormat("the OFX holds no bank or card statement (an investment "
                                "statement, or a sign-on only)")
    raw = [e for e in tree.getroot().iter() if e.tag in _STATEMENTS]
    fi = getattr(getattr(getattr(ofx, "signonmsgsrsv1", None), "sonrs", None), "fi", None)
    institution = " ".join(x for x in (getattr(fi, "org", None), getattr(fi, "fid", None))
                           if x)
    return ([_section(st, el) for st, el in zip(statements, raw, strict=True)], institution,
            notes)


def _mended(data: bytes) -> tuple[bytes, list[str]]:
    """Two slips banks' OFX files are known for, mended where nothing else changes: no
    header at all (the file opens with `<OFX>`: OFX 2's header where its elements close,
    else OFX 1's), and a `BANKTRANLIST` left open before `LEDGERBAL`."""
    notes = []
    if data[:5].upper() == b"<OFX>":
        xml = b"</CODE>" in data.upper()
        data = (_HEADER_V2 if xml else _HEADER_V1) + data
        notes.append(f"the OFX has no header: read as OFX {'2' if xml else '1.02'} by its tags")
    mended = _OPEN_LIST.sub(rb"\1</BANKTRANLIST>\2", data)
    if mended != data:
        notes.append("the OFX leaves BANKTRANLIST open before LEDGERBAL: closed there")
    return mended, notes


def _section(st: Any, el: ET.Element) -> Section:
    trns = st.banktranlist or []
    posted = [_printed_date(t.findtext("DTPOSTED")) for t in el.iter("STMTTRN")]
    if len(posted) != len(trns):
        raise CorruptExport("the OFX's transactions could not be matched to their dates")
    entries = [Entry(when, " ".join(x for x in (t.name, t.memo) if x) or t.trntype or "",
                     t.trnamt, None, t.fitid) for t, when in zip(trns, posted, strict=True)]
    ledger = st.ledgerbal
    listing = el.find("BANKTRANLIST")
    start = _printed_date(listing.findtext("DTSTART")) if listing is not None else None
    end = _printed_date(listing.findtext("DTEND")) if listing is not None else None
    return Section(account=st.account.acctid, currency=st.curdef, entries=entries,
                   closing=None if ledger is None else ledger.balamt,
                   closing_label="LEDGERBAL", period_start=start, period_end=end)


def _printed_date(text: str | None) -> date:
    m = _DATE.match(text or "")
    if m is None:
        raise CorruptExport(f"an OFX date is not a date: {text!r}")
    return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
