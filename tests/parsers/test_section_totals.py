"""Printed section totals: a statement whose total contradicts its rows is never validated."""

from __future__ import annotations

import io
import random
import re
from dataclasses import replace

import pypdf
import pytest
from pypdf.generic import DecodedStreamObject

from corpus import Printed, statement
from corpus.lookalikes import LOOKALIKES
from corpus.truth import Draw
from corpus.variant import PLAIN
from parsers.api import ParseResult, parse_pdf

#: Statements whose every section (Harbor's payments, purchases and interest, say) closes
#: with its printed total.
DRAWN = {"harbor": statement("harbor", PLAIN, 0, 7),
         "northwind": statement("northwind", replace(PLAIN, structure="split-sections"), 0, 7),
         **{bank: LOOKALIKES[bank](Draw(random.Random(bank), 14, False, False))
            for bank in ("chase", "bank-of-america")}}
TOTAL = re.compile(rb"\((Total [^)]*)\) Tj[^(]*\(-?\$?[\d,]*(\d)\.\d\d\) Tj")


def total_labels(pdf: bytes) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [m.group(1).decode() for page in reader.pages
            for m in TOTAL.finditer(page.get_contents().get_data())]


def with_total_edited(pdf: bytes, label: str) -> bytes:
    """`pdf` with one digit of the figure printed after the total `label` changed, the way
    a digit edit in the file's text operators changes it."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf)))
    edited = 0
    for page in writer.pages:
        data = page.get_contents().get_data()
        for m in TOTAL.finditer(data):
            if m.group(1).decode() == label:
                digit = str((int(m.group(2)) + 2) % 10).encode()
                data = data[:m.start(2)] + digit + data[m.end(2):]
                edited += 1
        stream = DecodedStreamObject()
        stream.set_data(data)
        page.replace_contents(stream)
    assert edited == 1
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def exact(r: ParseResult, drawn: Printed) -> bool:
    return r.validation.ok and r.statement.to_dict() == drawn.truth.to_dict()


@pytest.mark.parametrize("bank", DRAWN)
def test_a_statement_whose_totals_agree_with_its_rows_validates_exactly(bank: str) -> None:
    drawn = DRAWN[bank]
    assert len(total_labels(drawn.pdf)) >= 2
    r = parse_pdf(drawn.pdf)
    assert r.validation.problems == []
    assert exact(r, drawn)
    assert sum(len(t.totals) for t in r.tables) == len(total_labels(drawn.pdf))


@pytest.mark.parametrize("bank, label", [(bank, label) for bank, drawn in DRAWN.items()
                                         for label in total_labels(drawn.pdf)])
def test_a_printed_total_that_differs_from_its_rows_is_flagged_by_name(
        bank: str, label: str) -> None:
    r = parse_pdf(with_total_edited(DRAWN[bank].pdf, label))
    assert not r.validation.ok
    assert [p for p in r.validation.problems if label in p and "rows add up to" in p], \
        r.validation.problems
