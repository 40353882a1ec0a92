"""A file's structure is intact when one cross-reference section, a table or a stream,
places every object where it says and defines each once: only then is the second
library's reading skipped."""

from __future__ import annotations

import re
import struct
import zlib

import pytest

from corpus import statement
from parsers.api import parse_pdf
from parsers.pdf.structure import intact


def _objects(data: bytes) -> tuple[bytes, dict[int, bytes], bytes]:
    """(the header, each object's definition by number, the trailer's /Root reference) of a
    file with one classic cross-reference table."""
    table = data.rindex(b"\nxref") + 1
    root = re.search(rb"/Root (\d+ \d+ R)", data[table:])
    assert root is not None
    spans = sorted((m.start(), int(m.group(1))) for m in
                   re.finditer(rb"(?m)^(\d+) 0 obj\b", data[:table]))
    header = data[:spans[0][0]]
    ends = [start for start, _ in spans[1:]] + [table]
    return header, {n: data[s:e] for (s, n), e in zip(spans, ends, strict=True)}, root.group(1)


def with_xref_stream(data: bytes, pack: tuple[int, ...] = (), shift: int = 0,
                     misname: bool = False, prev: bool = False, lead: bytes = b"",
                     spacing: bytes = b" ", twice: bool = False) -> bytes:
    """`data` rewritten with a cross-reference stream: the objects numbered in `pack` kept
    in one object stream (`misname`: its header names another object first); `shift` moves
    every offset entry by that many bytes; `prev` adds an earlier section; `lead` stands
    before each object, where its entry points; `spacing` parts its two numbers; `twice`
    defines the first object a second time, where no entry points."""
    header, objects, root = _objects(data)
    out = bytearray(header)
    size = max(objects) + 3
    entries: dict[int, tuple[int, int, int]] = {}
    for number, body in objects.items():
        if number in pack:
            continue
        entries[number] = (1, len(out) + shift, 0)
        out += lead + body.replace(b"%d 0 obj" % number, b"%d%s0 obj" % (number, spacing), 1)
    if twice:
        out += objects[min(objects)]
    stream_number = size - 2
    if pack:
        bodies = [re.sub(rb"^\d+ 0 obj\s*|\s*endobj\s*$", b"", objects[n]) for n in pack]
        names = [pack[1], pack[0], *pack[2:]] if misname else list(pack)
        offsets, at = [], 0
        for body in bodies:
            offsets.append(at)
            at += len(body) + 1
        head = b" ".join(b"%d %d" % pair for pair in zip(names, offsets, strict=True)) + b" "
        content = head + b"\n".join(bodies) + b"\n"
        entries[stream_number] = (1, len(out) + shift, 0)
        out += (b"%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Length %d >>\nstream\n"
                % (stream_number, len(pack), len(head), len(content)) + content
                + b"\nendstream\nendobj\n")
        for index, number in enumerate(pack):
            entries[number] = (2, stream_number, index)
    xref_number = size - 1
    entries[xref_number] = (1, len(out) + shift, 0)
    rows = b"".join(struct.pack(">BIH", *entries.get(n, (0, 0, 0))) for n in range(size))
    packed = zlib.compress(rows)
    extra = b" /Prev %d" % len(header) if prev else b""
    start = len(out)
    out += (b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root %s /Filter /FlateDecode "
            b"/Length %d%s >>\nstream\n" % (xref_number, size, root, len(packed), extra)
            + packed + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % start)
    return bytes(out)


@pytest.fixture(scope="module")
def drawn() -> bytes:
    return statement("bluebird", index=2, seed=5).pdf


def _plain_numbers(data: bytes) -> list[int]:
    """The numbers of the objects that are dictionaries and no stream: packable."""
    _, objects, _ = _objects(data)
    return [n for n, body in objects.items() if b"stream" not in body][:3]


def test_a_single_table_and_a_single_stream_are_intact(drawn: bytes) -> None:
    assert intact(drawn)
    assert intact(with_xref_stream(drawn))
    assert intact(with_xref_stream(drawn, pack=tuple(_plain_numbers(drawn))))


def test_a_statement_kept_with_a_cross_reference_stream_reads_the_same(drawn: bytes) -> None:
    restructured = with_xref_stream(drawn, pack=tuple(_plain_numbers(drawn)))
    plain, packed = parse_pdf(drawn), parse_pdf(restructured)
    assert packed.validation.ok, packed.validation.problems
    assert packed.statement.to_dict() == plain.statement.to_dict()


@pytest.mark.parametrize("damage", ["shift", "misname", "prev"])
def test_a_stream_that_misplaces_an_object_or_chains_is_not_intact(
        drawn: bytes, damage: str) -> None:
    pack = tuple(_plain_numbers(drawn))
    kwargs = {"shift": {"shift": 7}, "misname": {"misname": True}, "prev": {"prev": True}}
    assert intact(with_xref_stream(drawn, pack=pack))
    assert not intact(with_xref_stream(drawn, pack=pack, **kwargs[damage]))


@pytest.mark.parametrize(("lead", "spacing"), [(b"%%\n", b" "), (b"\n", b"   ")])
def test_an_entry_on_a_comment_or_wide_spacing_still_points_at_its_object(
        drawn: bytes, lead: bytes, spacing: bytes) -> None:
    """PDF's lexer skips white space and comments: an entry that lands on them, or a
    definition whose numbers stand apart, is where every library finds the object."""
    assert intact(with_xref_stream(drawn, lead=lead, spacing=spacing))
    assert not intact(with_xref_stream(drawn, lead=lead + b"x", spacing=spacing))


def test_an_object_defined_twice_is_not_intact(drawn: bytes) -> None:
    assert not intact(with_xref_stream(drawn, twice=True))
    assert not intact(with_xref_stream(drawn, spacing=b"  ", twice=True))
