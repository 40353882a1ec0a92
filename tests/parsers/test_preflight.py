"""Every bad input gets its own deterministic reason code, quickly."""

from __future__ import annotations

import base64

import pytest

from corpus import BAD_INPUTS, Sample
from parsers.api import parse_pdf
from parsers.errors import StatementError
from parsers.pdf.preflight import _ascii85


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_gets_its_reason_code(bad_inputs: list[Sample], name: str) -> None:
    sample = next(s for s in bad_inputs if s.pdf.stem == f"bad-{name}")
    with pytest.raises(StatementError) as info:
        parse_pdf(sample.pdf.read_bytes())
    assert info.value.reason == BAD_INPUTS[name][0]
    assert not info.value.transient


def test_unknown_layout_that_does_not_reconcile_is_unrecognised() -> None:
    import io

    from reportlab.pdfgen.canvas import Canvas

    buf = io.BytesIO()
    c = Canvas(buf)
    c.drawString(72, 720, "Quarterly newsletter of the allotment society")
    c.drawString(72, 700, "Date Description Amount")
    c.drawString(72, 680, "01/02/2026 Seeds 12.00")
    c.save()
    with pytest.raises(StatementError) as info:
        parse_pdf(buf.getvalue())
    assert info.value.reason == "unrecognised_layout"


def test_page_limit_is_configurable(bad_inputs: list[Sample]) -> None:
    from parsers.limits import Limits

    sample = next(s for s in bad_inputs if s.pdf.stem == "bad-five-thousand-pages")
    with pytest.raises(StatementError) as info:
        parse_pdf(sample.pdf.read_bytes(), limits=Limits(max_pages=10))
    assert info.value.reason == "too_large"


def test_stream_inflating_past_the_bound_is_too_large_before_any_reader() -> None:
    from hostile_pdfs import zero_filled_content

    data = zero_filled_content(1024 * 1024 * 1024)  # 1 GiB of zeros in 1 MB
    with pytest.raises(StatementError) as info:
        parse_pdf(data)
    assert info.value.reason == "too_large" and "inflates past" in info.value.message


def test_image_over_the_pixel_limit_in_an_annotation_is_too_large() -> None:
    from hostile_pdfs import image_in_annotation

    with pytest.raises(StatementError) as info:
        parse_pdf(image_in_annotation(10_000))
    assert info.value.reason == "too_large" and "10000x10000" in info.value.message


def test_jpeg2000_image_larger_than_its_dictionary_says_is_too_large() -> None:
    from hostile_pdfs import lying_jpeg2000

    with pytest.raises(StatementError) as info:
        parse_pdf(lying_jpeg2000(declared=100, real=30_000))
    assert info.value.reason == "too_large" and "30000x30000" in info.value.message


@pytest.mark.parametrize("reader", ["pdfium", "pdfplumber"])
def test_statement_with_a_damaged_stream_never_validates(
        corpus: list[Sample], reader: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from hostile_pdfs import checksum_broken

    monkeypatch.setenv("STMTFLOW_READER", reader)
    sample = next(s for s in corpus if s.bank == "northwind")
    intact = parse_pdf(sample.pdf.read_bytes())
    assert intact.validation.ok
    damaged = parse_pdf(checksum_broken(sample.pdf.read_bytes()))
    # Every byte still inflates, so the figures agree; the lost check alone must refuse it.
    assert damaged.statement.to_dict() == json.loads(sample.truth.read_text())
    assert not damaged.validation.ok
    assert any("damaged" in p for p in damaged.validation.problems)


def test_a_locked_statement_opens_with_its_password_and_reads_as_the_plain_one(
        tmp_path) -> None:
    from corpus import generate
    from corpus.bad import encrypted
    from parsers.errors import EncryptedPdf

    sample = generate(tmp_path, ("northwind",), 1, seed=3)[0]
    plain = sample.pdf.read_bytes()
    locked = encrypted(plain, "Nw-2026!")
    with pytest.raises(EncryptedPdf):
        parse_pdf(locked)
    result = parse_pdf(locked, passwords=["wrong", "Nw-2026!"])
    assert result.validation.ok
    assert result.to_dict() == parse_pdf(plain).to_dict()
    with pytest.raises(EncryptedPdf) as info:
        parse_pdf(locked, passwords=["wrong", "also-wrong"])
    assert "wrong" not in str(info.value)
    assert info.value.reason == "encrypted"


@pytest.mark.parametrize("raw", [b"", b"\x00\x00\x00\x00 statement", bytes(range(256)), b"ab"])
def test_an_ascii85_stream_decodes_as_the_standard_decoder_does(raw: bytes) -> None:
    body = base64.a85encode(raw, wrapcol=20) + b"\n~>"
    assert _ascii85(body.replace(b"\n", b"\r\n \t\x0b\x0c")) == raw


@pytest.mark.parametrize("body", [
    b"87cURD]i,\"Ebo80",  # no end marker
    b"87cUR\x00D]i,\"Ebo80~>",  # a NUL: not whitespace here, and no digit
    b"87cURD]i,v\"Ebo80~>",  # a character past "u"
    b"s8W-\"~>",  # a group worth more than four bytes
])
def test_a_malformed_ascii85_stream_is_refused(body: bytes) -> None:
    assert _ascii85(body) is None
