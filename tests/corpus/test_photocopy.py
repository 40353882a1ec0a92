"""Photocopies, scans from a producer other than `corpus/scan.py`: image-only pages of the
recorded resolution, reproducible from their seed, drawn from several kinds of statement
with their truth."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium

from corpus.photocopy import LONG_EVERY, SOURCES, Copy, drawn, photocopies, photocopy, sources

PLAIN_COPY = Copy(dpi=150, angle=1.5, keystone=0.02, toner=0.3, light=0.3, streak=3,
                  salt=0.002, jpeg=60)


def pages(pdf: bytes) -> list[tuple[int, int, str, np.ndarray]]:
    """Per page: its image's pixel size, its text layer and its rendered pixels."""
    doc = pdfium.PdfDocument(pdf)
    try:
        out = []
        for page in doc:
            images = [o for o in page.get_objects() if o.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE]
            w, h = images[0].get_px_size()
            pixels = np.asarray(page.render(scale=1, grayscale=True).to_pil().convert("L"))
            out.append((w, h, page.get_textpage().get_text_range(), pixels))
        return out
    finally:
        doc.close()


def test_a_photocopy_is_image_only_at_the_recorded_dpi() -> None:
    text = drawn("northwind", 8, False, random.Random(3)).pdf
    got = pages(photocopy(text, PLAIN_COPY, 1))
    assert len(got) == len(pdfium.PdfDocument(text))
    for w, h, layer, pixels in got:
        assert layer.strip() == ""
        assert abs(w - round(612 * 150 / 72)) <= 1 and abs(h - round(792 * 150 / 72)) <= 1
        assert pixels.min() < 80  # ink survives the toner
        assert 0 < (pixels < 128).mean() < 0.2


def test_the_same_copy_and_seed_give_the_same_pdf_and_another_seed_another() -> None:
    text = drawn("meridian", 5, True, random.Random(4)).pdf
    assert photocopy(text, PLAIN_COPY, 7) == photocopy(text, PLAIN_COPY, 7)
    assert photocopy(text, PLAIN_COPY, 7) != photocopy(text, PLAIN_COPY, 8)


def test_meridian_with_references_prints_one_in_every_description() -> None:
    truth = drawn("meridian", 6, True, random.Random(5)).truth
    descs = [t.description for t in truth.accounts[0].transactions]
    assert len(descs) == 6
    assert all(any(tag in d for tag in ("REF ", "CARD ENDING", "TXN ", "AUTH ", "ON "))
               for d in descs)


def test_a_web_page_source_is_read_by_the_generic_reader_name() -> None:
    printed = drawn("webpage", 4, True, random.Random(6))
    assert printed.truth.bank == "generic"
    assert len(printed.truth.accounts[0].transactions) == 4


def test_photocopies_write_truth_and_knobs_and_cycle_sources(tmp_path: Path) -> None:
    n = LONG_EVERY
    found = photocopies(tmp_path, n, 2026)
    assert [s.bank for s in found] == list(sources()[:n])
    assert all(s.pdf.exists() and s.truth.exists() for s in found)
    knobs = [json.loads(s.pdf.with_suffix(".variant.json").read_text())["knobs"]
             for s in found]
    rows = [sum(len(a["transactions"]) for a in json.loads(s.truth.read_text())["accounts"])
            for s in found]
    assert rows[-1] >= 60 and all(r <= 20 for r in rows[:-1])
    assert [k["rows"] for k in knobs][:-1] == rows[:-1]
    assert all(150 <= k["copy"]["dpi"] <= 300 for k in knobs)


def test_sources_leave_out_the_web_page_without_chromium() -> None:
    assert "webpage" in SOURCES
    assert "webpage" not in sources(chromium=False)
