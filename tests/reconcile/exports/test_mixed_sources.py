"""A month given as a PDF and as its bank's OFX, CAMT, MT940 and CSV is one month in the book."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from test_beancount import bean_check

from corpus import statement
from corpus.bank_exports import FORMATS, write_exports
from parsers.exports.settings import AccountRule, Exports
from parsers.files import parse_file
from parsers.worker.statement_files import statement_dict
from reconcile.book import Book, Delivery
from reconcile.db import make_engine
from reconcile.exports import AccountNames, BookExport, beancount


def _document(data: bytes, exports: Exports) -> dict:
    result = parse_file(data, exports=exports)
    assert result.validation.ok, result.validation.problems
    return {**statement_dict(result), "validation": result.validation.to_dict()}


def test_a_month_as_pdf_and_every_export_is_booked_once(tmp_path: Path) -> None:
    book = Book(make_engine(f"sqlite:///{tmp_path}/book.db"))
    truths = []
    for n, bank in enumerate(("northwind", "bluebird")):
        drawn = statement(bank, index=3 + n)
        truths.append(drawn.truth)
        exports = Exports()  # each export names its bank (by name or BIC): no settings
        files = [drawn.pdf, *(p.read_bytes() for p in write_exports(
            drawn.truth, tmp_path / f"{bank}", FORMATS))]
        for i, data in enumerate(files):
            doc = _document(data, exports)
            assert doc["bank"] == bank
            outcome = book.consume(Delivery(f"j-{bank}-{i}", f"in-{bank}-{i}", f"out-{i}", doc))
            assert outcome == "imported"
    rows = book.records()
    booked = Counter((r.bank, r.account_last4, r.date, r.amount) for r in rows)
    wanted = Counter((st.bank, a.account_last4, t.date, t.amount)
                     for st in truths for a in st.accounts for t in a.transactions)
    assert booked == wanted
    # the rows keep the PDF's wording and carry an export's reference
    assert {r.decision_id.rsplit("-", 1)[1] for r in rows} == {"0"}
    path = tmp_path / "book.beancount"
    path.write_bytes(beancount.render(BookExport(rows, book.balances(), AccountNames())))
    done = bean_check(path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_export_booked_first_keeps_the_month_once_when_its_pdf_follows(
        tmp_path: Path) -> None:
    book = Book(make_engine(f"sqlite:///{tmp_path}/book.db"))
    drawn = statement("northwind", index=5)
    exports = Exports()
    ofx = next(p for p in write_exports(drawn.truth, tmp_path / "nw", ("ofx",)))
    for i, data in enumerate((ofx.read_bytes(), drawn.pdf)):
        book.consume(Delivery(f"j-{i}", f"in-{i}", f"out-{i}", _document(data, exports)))
    rows = book.records()
    assert len(rows) == sum(len(a.transactions) for a in drawn.truth.accounts)
    assert all(r.decision_id == "j-0" for r in rows)


def test_an_unverified_export_is_held_without_balances_and_released_without_duplicates(
        tmp_path: Path) -> None:
    book = Book(make_engine(f"sqlite:///{tmp_path}/book.db"))
    drawn = statement("harbor", index=2)  # a card: its CSV carries no balance
    exports = Exports(tuple(AccountRule(a.account_last4, "harbor") for a in drawn.truth.accounts))
    book.consume(Delivery("j-pdf", "in-pdf", "out-pdf", _document(drawn.pdf, exports)))
    (path,) = write_exports(drawn.truth, tmp_path / "card", ("csv",))
    result = parse_file(path.read_bytes(), exports=exports)
    assert not result.validation.ok
    doc = {**statement_dict(result), "validation": result.validation.to_dict()}
    assert book.consume(Delivery("j-csv", "in-csv", "out-csv", doc)) == "held"
    assert {b.decision_id for b in book.balances(include_unreviewed=True)} == {"j-pdf"}
    with book.engine.begin() as c:
        Book.release(c, "j-csv", doc)
    assert len(book.records()) == len(drawn.truth.accounts[0].transactions)
