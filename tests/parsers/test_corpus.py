"""The whole generated corpus parses to its truth; scans are exact or flagged, never wrong."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal

import pytest

from corpus import Sample
from parsers.api import parse_pdf
from parsers.errors import StatementError


@pytest.fixture(scope="session")
def parsed(corpus: list[Sample]) -> list[tuple[Sample, dict | None, bool, str]]:
    """(sample, parsed statement or None, validated, layout or reason) for every statement."""
    out = []
    for s in corpus:
        try:
            r = parse_pdf(s.pdf.read_bytes())
        except StatementError as exc:
            out.append((s, None, False, exc.reason))
            continue
        out.append((s, r.statement.to_dict(), r.validation.ok, r.layout))
    return out


def truth(s: Sample) -> dict:
    return json.loads(s.truth.read_text())


def test_corpus_covers_every_layout_and_variation(corpus: list[Sample]) -> None:
    assert len(corpus) >= 200
    banks = Counter(s.bank for s in corpus)
    assert set(banks) == {"northwind", "bluebird", "harbor", "alpenbank", "meridian", "cedar"}
    truths = [truth(s) for s in corpus]
    txs = [t for d in truths for a in d["accounts"] for t in a["transactions"]]
    assert any(len(a["transactions"]) == 0 for d in truths for a in d["accounts"])
    assert any(len(d["accounts"]) >= 3 for d in truths)
    assert any(t["date"][5:7] == "12" for t in txs) and any(t["date"][5:7] == "01" for t in txs)
    figures = [abs(Decimal(a["opening_balance"])) for d in truths for a in d["accounts"]]
    figures += [abs(Decimal(t["amount"])) for t in txs]
    assert max(figures) >= Decimal("1234567.89")
    assert any(t["balance"] and t["balance"].startswith("-") for t in txs)
    assert any(len(t["description"]) > 60 for t in txs)  # wrapped over several lines


@pytest.mark.parametrize("bank", ["northwind", "bluebird", "harbor", "alpenbank", "cedar"])
def test_text_layouts_parse_exactly_to_truth(parsed, bank: str) -> None:
    rows = [p for p in parsed if p[0].bank == bank]
    assert rows
    for s, got, ok, layout in rows:
        assert got == truth(s), s.pdf.name
        assert ok, f"{s.pdf.name} parsed exactly but did not validate"
        assert layout == ("generic" if bank == "cedar" else bank)


def test_long_statements_repeat_headers_across_pages(corpus: list[Sample], parsed) -> None:
    import pypdfium2 as pdfium

    long = [p for p in parsed if len(pdfium.PdfDocument(p[0].pdf.read_bytes())) >= 15]
    assert long, "the corpus must hold statements of 15 pages or more"
    for s, got, ok, _ in long:
        assert got == truth(s) and ok, s.pdf.name


def test_scans_are_exact_or_flagged_never_wrong_and_validated(parsed) -> None:
    scans = [p for p in parsed if p[0].bank == "meridian"]
    assert len(scans) >= 30
    wrong_but_validated = [s.pdf.name for s, got, ok, _ in scans if ok and got != truth(s)]
    assert wrong_but_validated == []
    exact = sum(1 for s, got, _, _ in scans if got == truth(s))
    assert exact >= len(scans) // 2, f"only {exact} of {len(scans)} scans read exactly"


def test_pdfplumber_reader_stays_selectable_and_reads_every_layout(
        corpus: list[Sample], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STMTFLOW_READER", "pdfplumber")
    for bank in ("northwind", "bluebird", "harbor", "alpenbank", "cedar"):
        s = next(s for s in corpus if s.bank == bank)
        r = parse_pdf(s.pdf.read_bytes())
        assert r.statement.to_dict() == truth(s) and r.validation.ok, s.pdf.name
    scan = next(s for s in corpus if s.bank == "meridian")
    r = parse_pdf(scan.pdf.read_bytes())
    assert r.ocr_pages == r.pages  # pages without a text layer still go to OCR
