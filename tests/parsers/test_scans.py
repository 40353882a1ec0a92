"""Scans read by the real tesseract, with the faults OCR cannot be made to produce on demand
(a low confidence, a misread label or digit) injected into its words."""

from __future__ import annotations

import re
from decimal import Decimal

import pypdfium2 as pdfium
import pytest

from corpus import statement, variant_for
from corpus.banks import Printed
from parsers.api import parse_pdf
from parsers.limits import Limits
from parsers.model import money
from parsers.ocr.reread import Read
from parsers.ocr.tesseract import ocr_page, render_page, tesseract_tsv
from parsers.pdf.page import Word
from parsers.pdf.pdfium_reader import PdfiumReader
from tests.parsers.scanned import Change, parse


def figure(value: Decimal) -> str:
    return f"{abs(value):,.2f}"


def lower(text: str, conf: float = 35.0, nth: int = 0) -> Change:
    """The `nth` word reading `text` read with confidence `conf`, and by nothing else (the
    second engine read nothing there)."""
    def change(words: list[Word]) -> list[Word]:
        at = [i for i, w in enumerate(words) if w.text == text][nth]
        words[at] = words[at]._replace(conf=conf, twice=False, second="")
        return words
    return change


def misread(mapping: dict[str, str], conf: float = 96.0) -> Change:
    """Words read as `mapping` says, confidently unless `conf` says otherwise (a glyph OCR
    got wrong and was sure of)."""
    def change(words: list[Word]) -> list[Word]:
        return [w._replace(text=mapping[w.text], conf=conf) if w.text in mapping else w
                for w in words]
    return change


def test_the_plain_scan_validates_exactly(plain: Printed) -> None:
    r = parse(plain)
    assert r.validation.ok and r.statement.to_dict() == plain.truth.to_dict()


def test_a_low_confidence_amount_pinned_by_the_chain_is_trusted(plain: Printed) -> None:
    tx = plain.truth.accounts[0].transactions[2]
    r = parse(plain, lower(figure(tx.amount)))
    assert r.validation.ok, r.validation.problems
    assert r.statement.to_dict() == plain.truth.to_dict()
    assert any(note.startswith("account 1 (****") and f"row 3: amount {money(tx.amount)}"
               in note and "confidence 35, trusted" in note for note in r.validation.trusted)


def test_a_low_confidence_balance_pinned_by_the_chain_is_trusted(plain: Printed) -> None:
    tx = plain.truth.accounts[0].transactions[-1]
    r = parse(plain, lower(figure(tx.balance), nth=-1))
    assert r.validation.ok and r.statement.to_dict() == plain.truth.to_dict()
    assert any("row 6: balance" in note for note in r.validation.trusted)


def test_a_low_confidence_amount_not_pinned_goes_to_review(derived: Printed) -> None:
    tx = derived.truth.accounts[0].transactions[0]
    before = parse(derived)
    r = parse(derived, lower(figure(tx.amount)))
    unpinned = [p for p in r.validation.problems if "row 1: amount" in p]
    assert not r.validation.ok
    assert unpinned and "the opening balance is not printed" in unpinned[0]
    assert not [p for p in before.validation.problems if "row 1: amount" in p]


def test_a_low_confidence_description_word_of_the_language_is_trusted(plain: Printed) -> None:
    word = plain.truth.accounts[0].transactions[2].description.split()[0]
    r = parse(plain, lower(word, 60.0))
    assert r.validation.ok and r.statement.to_dict() == plain.truth.to_dict()
    assert any("description word(s) read by OCR with confidence down to 60, trusted" in note
               for note in r.validation.trusted)
    # read with hardly any confidence, a word the dictionary knows may be specks spelling it
    assert not parse(plain, lower(word, 35.0)).validation.ok


def test_a_low_confidence_description_word_with_a_speck_goes_to_review(plain: Printed) -> None:
    word = plain.truth.accounts[0].transactions[2].description.split()[0]
    r = parse(plain, misread({word: word + "."}, conf=35.0))
    assert not r.validation.ok
    # named as corrections name rows (by number in the account), not by a date rows share
    acct = plain.truth.accounts[0]
    [named] = [re.match(rf"account 1 \(\*\*\*\*{acct.account_last4}\) row (\d+) \(.*\): OCR "
                        "read 1 word\\(s\\) of the description of this row with confidence "
                        "down to 35", p)
               for p in r.validation.problems if "description of this row" in p]
    assert named and word in acct.transactions[int(named[1]) - 1].description


def test_an_ordinal_misread_as_a_word_is_never_validated(derived: Printed) -> None:
    """`5TH` read as `STH` with confidence: no arithmetic checks it and it is wrong."""
    assert "ATM WITHDRAWAL 5TH AVE" in [t.description for t in
                                        derived.truth.accounts[0].transactions]
    r = parse(derived, misread({"5TH": "STH"}))
    assert not r.validation.ok
    assert any("'STH', which may as well be an ordinal" in p for p in r.validation.problems)


def test_a_low_confidence_date_between_two_other_days_goes_to_review(plain: Printed) -> None:
    txs = plain.truth.accounts[0].transactions
    assert txs[1].date < txs[2].date < txs[3].date
    r = parse(plain, lower(f"{txs[2].date:%d-%b-%Y}"))
    assert not r.validation.ok
    assert any(f"row 3 ({txs[2].date}): OCR read the date of this row with confidence 35" in p
               for p in r.validation.problems)


def test_a_figure_with_broken_punctuation_pinned_by_the_chain_is_trusted(
        plain: Printed) -> None:
    tx = plain.truth.accounts[0].transactions[2]
    printed = figure(tx.amount)
    r = parse(plain, misread({printed: printed.replace(".", ":")}))
    assert r.validation.ok, r.validation.problems
    assert r.statement.to_dict() == plain.truth.to_dict()
    assert any(f"row 3: amount {money(tx.amount)} read by OCR as "
               f"{printed.replace('.', ':')!r}, its punctuation broken, trusted" in note
               for note in r.validation.trusted)


def test_a_figure_with_broken_punctuation_the_chain_does_not_pin_goes_to_review(
        derived: Printed) -> None:
    printed = figure(derived.truth.accounts[0].transactions[0].amount)
    r = parse(derived, misread({printed: printed + "."}))
    assert not r.validation.ok
    assert any("row 1: amount" in p and "its punctuation broken, and the running balance does "
               "not pin it" in p for p in r.validation.problems)


def test_a_period_ocr_split_in_two_is_still_found(plain: Printed) -> None:
    end = f"{plain.truth.period_end:%d-%b-%Y}"

    def change(words: list[Word]) -> list[Word]:
        at = next(i for i, w in enumerate(words) if w.text == end)
        w, cut = words[at], (words[at].x0 + words[at].x1) / 2
        return [*words[:at], w._replace(text=end[:4], x1=cut - 1),
                w._replace(text=end[4:], x0=cut + 1), *words[at + 1:]]
    r = parse(plain, change)
    assert r.layout == "meridian" and r.validation.ok
    assert r.statement.to_dict() == plain.truth.to_dict()


def test_labels_with_ocr_confusions_are_still_found(plain: Printed) -> None:
    r = parse(plain, misread({"Closing": "Cl0sing", "Balance": "Ba1ance",
                              "Particulars": "Partlculars", "Statement": "Staternent",
                              "Period:": "Peri0d:", "Opening": "0pening"}))
    assert r.layout == "meridian"
    assert r.readings[0].derived == {}  # opening and closing read after their labels
    assert r.validation.ok and r.statement.to_dict() == plain.truth.to_dict()


@pytest.mark.parametrize("which", ["opening", "closing"])
def test_a_misread_digit_that_breaks_the_chain_is_never_validated(plain: Printed,
                                                                  which: str) -> None:
    acct = plain.truth.accounts[0]
    printed = figure(acct.opening_balance if which == "opening" else acct.closing_balance)
    wrong = re.sub(r"\d(?=[^\d]*$)", lambda m: str((int(m.group(0)) + 3) % 10), printed)
    r = parse(plain, misread({printed: wrong}))
    assert not r.validation.ok
    assert r.statement.to_dict() != plain.truth.to_dict()


def test_the_generic_reader_validates_a_scan_both_engines_read_alike(plain: Printed) -> None:
    """With no template in force, a scan whose every figure and date both OCR engines read
    alike, and whose numbers reconcile, validates as the generic reader reads it."""
    r = parse_pdf(plain.pdf, reader=PdfiumReader(ocr=ocr_page), templates=[])
    assert r.layout == "generic"
    assert r.validation.ok, r.validation.problems
    got, truth = r.statement.to_dict()["accounts"], plain.truth.to_dict()["accounts"]
    assert [a["transactions"] for a in got] == [a["transactions"] for a in truth]


def test_a_date_only_one_engine_read_sends_a_generic_reading_to_review(plain: Printed) -> None:
    """A date the second engine read otherwise: the generic reading reconciles, but nothing
    vouches for the date, so a person sees both readings."""
    day = f"{plain.truth.accounts[0].transactions[1].date:%d-%b-%Y}"
    other = "1" + day[1:] if day[0] != "1" else "2" + day[1:]

    def disputed(words: list[Word]) -> list[Word]:
        return [w._replace(second=other) if w.text == day else w for w in words]

    r = parse(plain, disputed, templates=[])
    assert r.layout == "generic" and not r.validation.ok
    assert any("word(s) holding a digit that tesseract read are not vouched for" in p
               and f"{day!r} (RapidOCR read {other!r})" in p
               for p in r.validation.problems), r.validation.problems
    assert f"page 1: tesseract read {day!r}, RapidOCR read {other!r}" in r.validation.problems


def test_a_blurred_noisy_scan_validates_once_its_doubtful_words_are_read_twice() -> None:
    """Statement 39 of the varied scans (200 dpi, blur 0.5, speckled): tesseract takes a speck
    before `CLINIC` for a dash, at confidence 3. With its doubtful words read a second time,
    the speck is dropped and the statement validates exactly."""
    drawn = statement("meridian", variant_for("meridian", 39, ("meridian",), 2026, True), 39,
                      2026)
    raw = [w for p in pdfium.PdfDocument(drawn.pdf) for w in first_reading(p)]
    assert any(w.text == "-CLINIC" and w.conf < 90 for w in raw)
    read: list[Word] = []

    def ocr(page: pdfium.PdfPage, index: int, limits: Limits) -> list[Word]:
        words = ocr_page(page, index, limits)
        read.extend(words)
        return words

    r = parse_pdf(drawn.pdf, reader=PdfiumReader(ocr=ocr))
    assert any(w.text == "CLINIC" for w in read) and not any("-CLINIC" in w.text for w in read)
    assert r.validation.ok, r.validation.problems
    assert r.statement.to_dict() == drawn.truth.to_dict()


def first_reading(page: pdfium.PdfPage) -> list[Read]:
    """Tesseract's one reading of a page, before any second one."""
    rows = tesseract_tsv(render_page(page, 0, Limits()), 0, Limits())
    return [Read(r[11].strip(), float(r[10]), *map(int, r[6:10])) for r in rows
            if len(r) >= 12 and r[11].strip()]


def drop(text: str) -> Change:
    """The word reading `text` not read at all (OCR missed a printed word)."""
    return lambda words: [w for w in words if w.text != text]


def twice(text: str, read: str | None = None, conf: float = 60.0) -> Change:
    """The word reading `text` read as `read`, below the review confidence, and the same
    way by the second reading."""
    def change(words: list[Word]) -> list[Word]:
        return [w._replace(text=read or text, conf=conf, twice=True) if w.text == text else w
                for w in words]
    return change


def test_a_printed_date_ocr_missed_is_not_trusted_as_carried(plain: Printed) -> None:
    txs = plain.truth.accounts[0].transactions
    assert txs[1].date < txs[2].date
    r = parse(plain, drop(f"{txs[2].date:%d-%b-%Y}"))
    assert not r.validation.ok
    assert any(f"row 3 ({txs[1].date}): OCR read no date on this row and it took the date "
               "of the row above, and no arithmetic checks a date" in p
               for p in r.validation.problems), r.validation.problems


def test_a_doubtful_date_read_alike_twice_in_order_is_trusted(plain: Printed) -> None:
    txs = plain.truth.accounts[0].transactions
    r = parse(plain, twice(f"{txs[2].date:%d-%b-%Y}"))
    assert r.validation.ok, r.validation.problems
    assert any(f"row 3 ({txs[2].date}): OCR read the date of this row with confidence 60 "
               "(below 90), trusted: a second reading read it alike" in note
               for note in r.validation.trusted), r.validation.trusted


def test_a_date_misread_alike_twice_out_of_order_goes_to_review(plain: Printed) -> None:
    txs = plain.truth.accounts[0].transactions
    later = max(t.date for t in txs)
    assert txs[2].date < later
    r = parse(plain, twice(f"{txs[2].date:%d-%b-%Y}", f"{later:%d-%b-%Y}"))
    assert not r.validation.ok
    assert any(f"row 3 ({later}): OCR read the date of this row with confidence 60" in p
               for p in r.validation.problems), r.validation.problems


def test_a_scan_its_template_cannot_read_is_not_validated_by_the_generic_reader() -> None:
    """Statement 19 of the varied scans (seed 2026): tesseract reads a speck after the
    account number (`XXXXXX5362_`), so the template recognises the statement but cannot
    read it; the generic reader reconciles the table but takes the card number of a
    description (`CARD ENDING 4410`) for the account's. A person confirms such a reading."""
    drawn = statement("meridian", variant_for("meridian", 19, ("meridian",), 2026, True), 19,
                      2026)
    r = parse_pdf(drawn.pdf)
    assert r.layout == "generic" and not r.validation.ok
    assert any("recognised as meridian" in p and "generic reader" in p
               for p in r.validation.problems), r.validation.problems


def test_an_account_number_read_with_a_doubtful_digit_goes_to_review(plain: Printed) -> None:
    """A speck read as a digit beside the account number, far off on its line, would give
    the number's last four: nothing checks an account's number, so it goes to review."""
    last4 = plain.truth.accounts[0].account_last4

    def speck(words: list[Word]) -> list[Word]:
        [number] = [w for w in words if w.text.endswith(last4) and "X" in w.text.upper()]
        return [*words, number._replace(text="2", x0=number.x1 + 300, x1=number.x1 + 303,
                                        conf=62.0, twice=False, second="r")]

    assert parse(plain).validation.ok
    r = parse(plain, speck)
    assert not r.validation.ok
    assert any("OCR read the account number with confidence below 90" in p
               for p in r.validation.problems), r.validation.problems


def test_a_doubtful_date_further_along_the_account_number_s_line_is_no_doubt_of_it(
        plain: Printed) -> None:
    """`Account # 206 9406 1023 ! April 1, 2024`: a word that is no part of a number ends
    the account number, so a date after it read with little confidence doubts only the
    date, which the account's reading does not take."""
    last4 = plain.truth.accounts[0].account_last4

    def dated(words: list[Word]) -> list[Word]:
        [number] = [w for w in words if w.text.endswith(last4) and "X" in w.text.upper()]
        return [*words, number._replace(text="April", x0=number.x1 + 200, x1=number.x1 + 225,
                                        conf=96.0),
                number._replace(text="1,", x0=number.x1 + 229, x1=number.x1 + 235, conf=62.0,
                                twice=False, second="r")]

    assert parse(plain, dated).validation.ok
