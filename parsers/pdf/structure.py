"""Whether a file's structure is intact: one cross-reference section (a classic table or a
cross-reference stream, no update chain) whose every in-use entry points at the object it
names, each object defined once. Such a file is read the same way by every PDF library,
without repair; only a file that is not is worth reading a second time (`crosscheck.py`).

An entry's offset may land on white space or a comment before `12 0 obj`, and the two
numbers may stand apart by any white space: PDF's own syntax, which every library's lexer
skips. An object kept in an object stream is checked against that stream's own header.
"""

from __future__ import annotations

import io
import re
from collections import Counter

from pdfminer.pdfdocument import PDFDocument, PDFXRefStream
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import PDFStream

_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_SECTION = re.compile(rb"xref\s+((?:\d+ \d+\s+(?:\d{10} \d{5} [nf]\s+)*)+)trailer\s*<<")
_SUBSECTION = re.compile(rb"(\d+) (\d+)\s+((?:\d{10} \d{5} [nf]\s+)*)")
_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([nf])")
#: What an entry's offset must lead to: white space or comments, then `number gen obj`.
_DEFINITION = re.compile(rb"(?:[\0\t\n\f\r ]|%[^\r\n]*)*(\d+)[\0\t\n\f\r ]+(\d+)"
                         rb"[\0\t\n\f\r ]+obj\b")
#: The keyword of an object's definition (`12 0 obj`), whose numbers stand before it.
_OBJ = re.compile(rb"[\0\t\n\f\r ]obj\b")
_DIGITS = frozenset(b"0123456789")
_SPACE = frozenset(b"\0\t\n\f\r ")


def intact(data: bytes) -> bool:
    """Whether the file is one cross-reference section whose every in-use entry points at
    the object it names, with each object defined once."""
    end = _STARTXREF.search(data[-64:])
    if end is None:
        return False
    section = _SECTION.match(data, int(end.group(1)))
    return _stream_intact(data) if section is None else _table_intact(data, section)


def _table_intact(data: bytes, section: re.Match[bytes]) -> bool:
    trailer = data[section.end(): section.end() + 4096].split(b">>\nstartxref")[0]
    if b"/Prev" in trailer or b"/XRefStm" in trailer:  # an earlier or a hybrid section
        return False
    entries = [(first + k, int(e.group(2)), int(e.group(1)))
               for sub in _SUBSECTION.finditer(section.group(1))
               for first in [int(sub.group(1))]
               for k, e in enumerate(_ENTRY.finditer(sub.group(3))) if e.group(3) == b"n"]
    return _defined_once(_object_numbers(data)) and all(
        _defines(data, offset, number, gen) for number, gen, offset in entries)


def _stream_intact(data: bytes) -> bool:
    """A cross-reference stream with no earlier section (pdfminer decodes it: its fields,
    filters and predictors, and finds no need to rebuild it), every object where it says."""
    try:
        document = PDFDocument(PDFParser(io.BytesIO(data)))
        if len(document.xrefs) != 1 or type(document.xrefs[0]) is not PDFXRefStream:
            return False
        xref = document.xrefs[0]
        if "Prev" in xref.get_trailer():
            return False
        raw: list[tuple[int, int, int]] = []
        packed: dict[int, list[tuple[int, int]]] = {}
        for number in xref.get_objids():
            stream, position, gen = xref.get_pos(number)
            if stream is None:
                raw.append((number, gen, position))
            else:
                packed.setdefault(stream, []).append((number, position))
        if not all(_defines(data, at, number, gen) for number, gen, at in raw):
            return False
        numbers = _object_numbers(data)
        for stream_number, held in packed.items():
            header = _object_stream_header(document.getobj(stream_number))
            if header is None or any(index >= len(header) or header[index] != number
                                     for number, index in held):
                return False
            numbers += header
        return _defined_once(numbers)
    except Exception:  # a structure pdfminer cannot read is not intact
        return False


def _object_stream_header(stream: object) -> list[int] | None:
    """The object numbers an object stream holds, in order (its header)."""
    if not isinstance(stream, PDFStream) or getattr(stream.get("Type"), "name", None) \
            != "ObjStm":
        return None
    first, count = int(stream["First"]), int(stream["N"])
    pairs = stream.get_data()[:first].split()
    if len(pairs) != 2 * count:
        return None
    return [int(n) for n in pairs[::2]]


def _defines(data: bytes, offset: int, number: int, gen: int) -> bool:
    found = _DEFINITION.match(data, offset)
    return found is not None and (int(found.group(1)), int(found.group(2))) == (number, gen)


def _defined_once(numbers: list[int]) -> bool:
    return all(n == 1 for n in Counter(numbers).values())


def _object_numbers(data: bytes) -> list[int]:
    """The number of each object definition (`12 0 obj`: digits, white space, digits, white
    space, `obj`) in the file, in order. The `obj` keyword is looked for and the digits read
    back from it: a regex that starts at every run of digits (a content stream is mostly
    numbers) costs twenty times as much."""
    numbers = []
    for m in _OBJ.finditer(data):
        gen_end = _space_before(data, m.start() + 1)
        generation = _digits_before(data, gen_end)
        if generation == gen_end:
            continue
        number_end = _space_before(data, generation)
        if number_end == generation:
            continue
        number = _digits_before(data, number_end)
        if number < number_end:
            numbers.append(int(data[number:number_end]))
    return numbers


def _space_before(data: bytes, end: int) -> int:
    """Where the run of white space that ends at `end` starts (`end` when there is none)."""
    start = end
    while start > 0 and data[start - 1] in _SPACE:
        start -= 1
    return start


def _digits_before(data: bytes, end: int) -> int:
    """Where the run of digits that ends at `end` starts (`end` when there is none)."""
    start = end
    while start > 0 and data[start - 1] in _DIGITS:
        start -= 1
    return start
