"""What a file is, by its content alone: a PDF, one of the bank export formats, or neither.

A file's name says nothing here (an inbox holds `export.txt` MT940s and `.xml` CAMTs, a
`.qfx` is OFX): the first kilobytes decide. Cheap on purpose, for every file of an import:
a few regular expressions over the head, no parser.
"""

from __future__ import annotations

import codecs
import csv
import itertools
import re

#: the formats `sniff` names, beside "pdf"
OFX, CAMT, MT940, CSV = "ofx", "camt", "mt940", "csv"
#: bytes of the head that decide
HEAD = 8192

_OFX_SGML = re.compile(r"^\s*OFXHEADER\s*:\s*100", re.I)
#: OFX 2's processing instruction, or a file that opens with the OFX element
_OFX_XML = re.compile(r"<\?OFX\s|^\s*(<\?xml[^>]*>\s*)?<OFX>", re.I)
_XML = re.compile(r"^\s*(<\?xml|<!DOCTYPE|<!--|<[A-Za-z_][\w:.-]*[\s>/])", re.I)
_ISO20022 = re.compile(r"urn:iso:std:iso:20022:tech:xsd:([a-z]{4})\.(\d{3})\.\d{3}\.\d{2}")
_MT_TAG = re.compile(r"^:(20|25|28C?|60[FM]|61|62[FM]|13D|34F|86|90[CD]):", re.M)
_MT_BALANCES = re.compile(r"^:(60[FM]|62[FM]|13D|34F):", re.M)
#: a CSV header's words for a date and an amount (a header with no row after it)
_HEADER = re.compile(r"(?i)\b(date|datum|buchung)\b.*\b(amount|betrag|debit|credit)\b|"
                     r"\b(amount|betrag|debit|credit)\b.*\b(date|datum|buchung)\b")
_QIF = re.compile(r"^\s*!(Type|Account|Option)\b", re.I)


def sniff(data: bytes) -> str | None:
    """"pdf", "ofx", "camt", "mt940" or "csv"; "unsupported:<what>" for a bank format that
    is recognised but not read (QIF, another ISO 20022 message); None for anything else."""
    if b"%PDF-" in data[:1024]:
        return "pdf"
    text = head_text(data)
    if text is None:
        return None
    if _OFX_SGML.match(text) or _OFX_XML.search(text):
        return OFX
    if _XML.match(text):
        # (a business application header's envelope names head.001 before the message)
        found = [m.groups() for m in _ISO20022.finditer(text)]
        if any(kind == "camt" and number in ("052", "053", "054") for kind, number in found):
            return CAMT
        if found:
            return f"unsupported:{found[0][0]}.{found[0][1]}"
        if "<!ENTITY" in text.upper() or "<!DOCTYPE" in text.upper():
            return CAMT  # an XML that declares entities is refused by the CAMT reader's parser
        return "unsupported:xml"
    if len(_MT_TAG.findall(text)) >= 3 and ":25:" in text and _MT_BALANCES.search(text):
        return MT940
    if _QIF.match(text):
        return "unsupported:qif"
    if _looks_like_csv(text):
        return CSV
    return None


def head_text(data: bytes) -> str | None:
    """The head of `data` as text (a BOM decides the codec, else UTF-8, else Latin-1), or
    None where it holds control bytes no text file has."""
    head = data[:HEAD]
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if head.startswith(bom):
            return head[len(bom):].decode(codec, errors="ignore")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a multi-byte character cut at the head's end is still UTF-8
        text = head[:exc.start].decode("utf-8") if exc.start > len(head) - 4 \
            else head.decode("latin-1")
    if any(ord(c) < 32 and c not in "\t\r\n\x0c\x1a" for c in text):
        return None
    return text


def _looks_like_csv(text: str) -> bool:
    """Two lines in a row that split alike into three or more fields on one delimiter (a
    preamble before them, as banks write one, is allowed), or a header of a month without
    rows that names a date and an amount."""
    lines = [ln for ln in text.splitlines()[:40] if ln.strip()]
    for delimiter in (",", ";", "\t", "|"):
        widths = [len(row) for row in csv.reader(lines, delimiter=delimiter)]
        if any(a == b >= 3 for a, b in itertools.pairwise(widths)):
            return True
        if widths and widths[-1] >= 3 and _HEADER.search(lines[-1]):
            return True
    return False
