"""Repair of a font's character map that is keyed by the wrong codes.

Some producers write, for a simple TrueType or Type 1 font with a standard encoding
(`/WinAnsiEncoding`), a `/ToUnicode` map keyed by the font's glyph ids instead of the codes
the page draws. Every reader trusts the map over the encoding, so `Postbank` reads as
`mostbank` and figures turn into letters: the text is wrong but looks like text. The
encoding alone gives the right characters, so such a map is dropped, by overwriting its
entry in the font's dictionary with spaces (every byte offset of the file stays valid).

A map is wrong when, for the letters and digits the font can draw (codes from `/FirstChar`
to `/LastChar` that the standard encodings all give as ASCII), it mostly says something
else. Only dictionaries written plainly in the file are looked at (not those packed in
object streams), and only when the file has a `/ToUnicode` at all: other files pass as they
are, for the cost of one search.
"""

from __future__ import annotations

import re
import zlib

_TO_UNICODE = re.compile(rb"/ToUnicode\s+(\d+)\s+(\d+)\s+R")
_SIMPLE = re.compile(rb"/Subtype\s*/(?:TrueType|Type1)\b")
_ENCODING = re.compile(rb"/Encoding\s*/(?:WinAnsiEncoding|MacRomanEncoding|StandardEncoding)\b")
_CHARS = re.compile(rb"/(FirstChar|LastChar)\s+(\d+)")
_BFCHAR = re.compile(rb"beginbfchar(.*?)endbfchar", re.DOTALL)
_PAIR = re.compile(rb"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>")
_ALNUM = frozenset(range(0x30, 0x3A)) | frozenset(range(0x41, 0x5B)) \
    | frozenset(range(0x61, 0x7B))
#: How far before `/ToUnicode` its font dictionary may start.
_REACH = 4096


def repair_text_maps(data: bytes) -> bytes:
    """`data` with every `/ToUnicode` entry that contradicts its font's encoding blanked."""
    if b"/ToUnicode" not in data:
        return data
    out = None
    for m in _TO_UNICODE.finditer(data):
        head = data[max(0, m.start() - _REACH): m.start()]
        head = head[head.rfind(b"obj") + 1:]
        tail = data[m.end(): data.find(b">>", m.end()) + 2]
        font = head + tail
        if not (_SIMPLE.search(font) and _ENCODING.search(font)):
            continue
        span = dict(_CHARS.findall(font))
        if b"FirstChar" not in span or b"LastChar" not in span:
            continue
        cmap = _stream(data, int(m.group(1)), int(m.group(2)))
        if cmap is not None and _contradicts(cmap, int(span[b"FirstChar"]),
                                             int(span[b"LastChar"])):
            out = bytearray(data) if out is None else out
            out[m.start(): m.end()] = b" " * (m.end() - m.start())
    return data if out is None else bytes(out)


def _contradicts(cmap: bytes, first: int, last: int) -> bool:
    """Whether the map gives most of the font's drawable letters and digits as other
    characters."""
    agree = differ = 0
    for block in _BFCHAR.findall(cmap):
        for src, dst in _PAIR.findall(block):
            code, char = int(src, 16), int(dst, 16)
            if first <= code <= last and code in _ALNUM:
                agree += char == code
                differ += char != code
    return differ > agree


def _stream(data: bytes, num: int, gen: int) -> bytes | None:
    """The decoded stream of object `num gen`, when it is written plainly in the file."""
    m = re.search(rb"(?<![0-9])%d\s+%d\s+obj\b" % (num, gen), data)
    if m is None:
        return None
    start = data.find(b"stream", m.end())
    end = data.find(b"endstream", start)
    if start < 0 or end < 0:
        return None
    head = data[m.end(): start]
    body = data[start + 6: end].lstrip(b"\r\n").rstrip(b"\r\n")
    if b"/FlateDecode" in head:
        try:
            return zlib.decompressobj().decompress(body, 1 << 20)
        except zlib.error:
            return None
    return body
