"""Every export holds each transaction of overlapping statements once, under its stable id,
read back with the format's own tooling."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from overlap import overlapping
from readback import READERS

from reconcile.exports import BINARY, FORMATS, render


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_overlapping_statements_give_each_transaction_once_in_every_format(
        fmt: str, books, tmp_path: Path) -> None:
    path = tmp_path / f"book.{fmt}"
    path.write_bytes(render(fmt, books.export()))
    rows = READERS[fmt](path)
    ids = Counter(r.txn_id for r in rows)
    assert set(ids) == books.expected_ids()
    assert max(ids.values()) == 1
    expected = sorted((t.date, t.amount) for st in books.originals for a in st.accounts
                      for t in a.transactions)
    assert sorted((r.date, r.amount) for r in rows) == expected


def test_every_format_has_a_reader_here_and_text_formats_are_utf8(books) -> None:
    assert set(READERS) == set(FORMATS)
    for fmt in set(FORMATS) - BINARY:
        render(fmt, books.export()).decode("utf-8")


def test_unknown_format_is_refused_by_name(books) -> None:
    with pytest.raises(ValueError, match="unknown export format 'gnucash'"):
        render("gnucash", books.export())


def test_equal_transactions_on_one_day_stay_two_across_overlapping_statements(
        books, tmp_path: Path) -> None:
    northwind = next(st for st in books.originals if st.bank == "northwind")
    rows = northwind.accounts[0].transactions
    [(twin, _)] = [(k, n) for k, n in Counter((t.date, t.description, t.amount)
                                              for t in rows).items() if n == 2]
    for cut in overlapping(northwind):  # both statements print the pair
        assert [(t.date, t.description, t.amount) for t in cut.accounts[0].transactions
                ].count(twin) == 2
    path = tmp_path / "book.csv"
    path.write_bytes(render("csv", books.export()))
    pair = [r for r in READERS["csv"](path) if (r.date, r.amount) == (twin[0], twin[2])]
    assert len(pair) == 2 and pair[0].txn_id != pair[1].txn_id
