"""Seeded mutations of a statement PDF: the damage bad luck and attackers do to real files.

Each mutator takes the file's bytes and a `random.Random` and returns the mutant, or None
when the file offers nothing to mutate (no stream, no digit in any text operator). Bytes
are damaged as storage and transfer damage them (flips, truncation, a corrupted stream, a
damaged cross-reference table); objects as a hostile writer would write them (a nested
MediaBox, a `/Prev` loop, a `/Length` that refers to its own object, a Pages node listing
itself, an object gone); and the text as a forger would edit it (a digit of a text operator
changed, the file otherwise well formed, so the edit is what the file shows).
"""

from __future__ import annotations

import base64
import random
import re
import zlib
from collections.abc import Callable

Mutator = Callable[[bytes, random.Random], bytes | None]

_OBJ = re.compile(rb"(\d+) (\d+) obj\b(.*?)endobj", re.S)
_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\n?endstream", re.S)
_TRAILER = re.compile(rb"trailer\s*(<<.*?>>)\s*startxref", re.S)
_STARTXREF = re.compile(rb"startxref\s+(\d+)")
_XREF_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([nf])")
_LENGTH = re.compile(rb"/Length (\d+)(?!\s+\d+\s+R)")
_TEXT_DIGIT = re.compile(rb"\((?:[^()\\]|\\.)*?\d(?:[^()\\]|\\.)*?\)\s*(?:Tj|')"
                         rb"|\[[^\]]*\d[^\]]*\]\s*TJ")


def objects(data: bytes) -> dict[int, bytes]:
    """Object number -> body (between `obj` and `endobj`), the last definition winning."""
    return {int(m.group(1)): m.group(3) for m in _OBJ.finditer(data)}


def rebuild(data: bytes, objs: dict[int, bytes]) -> bytes:
    """A file of `objs` with a correct cross-reference table and the original trailer."""
    trailer = _TRAILER.search(data)
    head = b"<< /Size %d /Root 1 0 R >>" % (max(objs) + 1)
    if trailer is not None:
        head = re.sub(rb"/Size \d+", b"/Size %d" % (max(objs) + 1), trailer.group(1))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objs):
        offsets[number] = len(out)
        out += b"%d 0 obj" % number + objs[number] + b"endobj\n"
    xref = len(out)
    size = max(objs) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        out += (b"%010d 00000 n \n" % offsets[number]) if number in offsets \
            else b"0000000000 00000 f \n"
    out += b"trailer\n" + head + b"\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        out[rng.randrange(len(out))] ^= rng.randint(1, 255)
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    """Cut short; half the time with an end marker put back, so the cut is read further."""
    cut = data[: rng.randrange(16, len(data))]
    return cut + b"\n%%EOF\n" if rng.random() < 0.5 else cut


def corrupt_stream(data: bytes, rng: random.Random) -> bytes | None:
    spans = [m.span(1) for m in _STREAM.finditer(data)]
    if not spans:
        return None
    start, end = rng.choice(spans)
    if end - start < 2:
        return None
    out = bytearray(data)
    a = rng.randrange(start, end)
    b = min(end, a + rng.choice((1, 4, 32, 512)))
    fill = rng.choice(("random", "zero", "flip"))
    for i in range(a, b):
        out[i] = rng.randrange(256) if fill == "random" else 0 if fill == "zero" \
            else out[i] ^ 0x20
    return bytes(out)


def damage_xref(data: bytes, rng: random.Random) -> bytes | None:
    xref = data.rfind(b"\nxref") + 1
    entries = list(_XREF_ENTRY.finditer(data, xref)) if xref > 0 else []
    if not entries:
        return None
    how = rng.choice(("offsets", "startxref", "drop"))
    if how == "drop":
        end = data.find(b"trailer", xref)
        return data[:xref] + data[end:] if end > 0 else None
    if how == "startxref":
        return _STARTXREF.sub(b"startxref\n%d" % rng.randrange(len(data) * 2), data, count=0)
    out = bytearray(data)
    for m in rng.sample(entries, k=min(len(entries), rng.randint(1, 5))):
        out[m.start(1): m.end(1)] = b"%010d" % rng.randrange(len(data) + 1000)
    return bytes(out)


def _with_page(data: bytes, rng: random.Random,
               edit: Callable[[int, bytes, dict[int, bytes]], None]) -> bytes | None:
    objs = objects(data)
    pages = [n for n, body in objs.items() if re.search(rb"/Type\s*/Page\b", body)]
    if not pages:
        return None
    edit(rng.choice(pages), objs[pages[0]], objs)
    return rebuild(data, objs)


def nested_mediabox(data: bytes, rng: random.Random) -> bytes | None:
    """A MediaBox of arrays nested thousands deep, or one that is its own array."""
    depth = rng.choice((50, 5_000, 200_000))

    def edit(page: int, _: bytes, objs: dict[int, bytes]) -> None:
        if rng.random() < 0.5:
            box = b"[" * depth + b"0 0 612 792" + b"]" * depth
        else:
            loop = max(objs) + 1
            objs[loop] = b" [0 0 612 %d 0 R] " % loop
            box = b"%d 0 R" % loop
        objs[page] = re.sub(rb"/MediaBox\s*\[[^\]]*\]", lambda _: b"/MediaBox " + box,
                            objs[page])

    return _with_page(data, rng, edit)


def pages_list_themselves(data: bytes, rng: random.Random) -> bytes | None:
    objs = objects(data)
    nodes = [n for n, body in objs.items() if re.search(rb"/Type\s*/Pages\b", body)]
    if not nodes:
        return None
    n = rng.choice(nodes)
    objs[n] = re.sub(rb"/Kids\s*\[", b"/Kids [ %d 0 R " % n, objs[n], count=1)
    if rng.random() < 0.5:  # a page that names itself as its parent, too
        page = next((k for k, b in objs.items() if re.search(rb"/Type\s*/Page\b", b)), None)
        if page is not None:
            objs[page] = re.sub(rb"/Parent \d+ 0 R", b"/Parent %d 0 R" % page, objs[page])
    return rebuild(data, objs)


def prev_loop(data: bytes, rng: random.Random) -> bytes | None:
    """A trailer whose `/Prev` is its own table, or an update whose tables point at each
    other."""
    start = _STARTXREF.findall(data)
    if not start:
        return None
    here = int(start[-1])
    if rng.random() < 0.5:
        return re.sub(rb"trailer\s*<<", b"trailer\n<< /Prev %d " % here, data, count=1)
    update = b"\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 /Prev %d >>\n" % here
    second = len(data) + 1
    update = update.replace(b"/Prev", b"/Root 1 0 R /Prev")
    out = data + update + b"startxref\n%d\n%%%%EOF\n" % second
    return re.sub(rb"trailer\s*<<", b"trailer\n<< /Prev %d " % second, out, count=1)


def self_length(data: bytes, rng: random.Random) -> bytes | None:
    objs = objects(data)
    streams = [n for n, body in objs.items() if _LENGTH.search(body) and b"stream" in body]
    if not streams:
        return None
    n = rng.choice(streams)
    objs[n] = _LENGTH.sub(b"/Length %d 0 R" % n, objs[n], count=1)
    return rebuild(data, objs)


def drop_object(data: bytes, rng: random.Random) -> bytes | None:
    objs = objects(data)
    if len(objs) < 2:
        return None
    objs[rng.choice(sorted(objs)[1:])] = b" null "
    return rebuild(data, objs)


def edit_digit(data: bytes, rng: random.Random) -> bytes | None:
    """One digit of a text-showing operator changed to another digit; the content stream
    is written again (Flate) and the cross-reference table rebuilt, so the file is well
    formed and shows the edit."""
    objs = objects(data)
    found = []
    for n, body in objs.items():
        content = _content(body)
        if content is not None and _TEXT_DIGIT.search(content):
            found.append((n, content))
    if not found:
        return None
    n, content = rng.choice(found)
    ops = list(_TEXT_DIGIT.finditer(content))
    op = rng.choice(ops)
    digits = [op.start() + i for i, c in enumerate(op.group()) if 48 <= c <= 57]
    at = rng.choice(digits)
    new = rng.choice([d for d in b"0123456789" if d != content[at]])
    edited = content[:at] + bytes([new]) + content[at + 1:]
    packed = zlib.compress(edited)
    head = objs[n][: objs[n].index(b"stream")]
    head = re.sub(rb"/Filter\s*(\[[^\]]*\]|/\w+)", b"/Filter /FlateDecode", head)
    head = _LENGTH.sub(b"/Length %d" % len(packed), head)
    objs[n] = head + b"stream\n" + packed + b"\nendstream\n"
    return rebuild(data, objs)


def _content(body: bytes) -> bytes | None:
    """The decoded bytes of a stream object (ASCII85 and/or Flate, as writers use them)."""
    m = _STREAM.search(body)
    if m is None or b"/Subtype /Image" in body:
        return None
    raw = m.group(1)
    try:
        if b"ASCII85Decode" in body:
            raw = base64.a85decode(raw.strip().removesuffix(b"~>"), adobe=False,
                                   ignorechars=b" \t\n\r\x0b")
        if b"FlateDecode" in body:
            raw = zlib.decompress(raw)
    except (ValueError, zlib.error):
        return None
    return raw


#: name -> mutator; the fuzzer draws one, sometimes two, per mutant
MUTATORS: dict[str, Mutator] = {
    "flip": flip_bytes,
    "truncate": truncate,
    "stream": corrupt_stream,
    "xref": damage_xref,
    "mediabox": nested_mediabox,
    "pages-self": pages_list_themselves,
    "prev-loop": prev_loop,
    "self-length": self_length,
    "drop-object": drop_object,
    "digit": edit_digit,
}


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """One mutant of `data` and the names of the mutations applied (one, or two in a
    fifth of the draws)."""
    names: list[str] = []
    for _ in range(2 if rng.random() < 0.2 else 1):
        for _attempt in range(5):
            name = rng.choice(sorted(MUTATORS))
            out = MUTATORS[name](data, rng)
            if out is not None and out != data:
                data = out
                names.append(name)
                break
    return data, names
