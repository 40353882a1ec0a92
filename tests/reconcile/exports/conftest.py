"""The book the export tests read: four banks, each imported as two overlapping statements."""

from __future__ import annotations

from pathlib import Path

import pytest
from overlap import BANKS, Books, document, generated, overlapping, with_twin

from reconcile.book import Book, Delivery
from reconcile.db import make_engine


@pytest.fixture
def books(tmp_path: Path) -> Books:
    """Four banks' statements, each imported as two overlapping statements."""
    book = Book(make_engine(f"sqlite:///{tmp_path}/book.db"))
    originals = []
    for n, bank in enumerate(BANKS):
        st = generated(bank, 3 * n)
        st = with_twin(st, len(st.accounts[0].transactions) // 2) if bank == "northwind" else st
        originals.append(st)
        for part, cut in enumerate(overlapping(st)):
            outcome = book.consume(Delivery(f"j-{bank}-{part}", f"in-{bank}-{part}",
                                            f"out-{bank}-{part}", document(cut)))
            assert outcome == "imported"
    return Books(book, originals)
