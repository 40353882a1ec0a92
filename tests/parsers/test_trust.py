"""Per-figure trust: a low-confidence figure is trusted only where the running balance pins it."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from parsers.model import Account, Transaction
from parsers.ocr import lexicon
from parsers.ocr.lexicon import run_together
from parsers.ocr.reread import across_a_speck
from parsers.ocr.trust import (
    Doubt,
    alone_in_sum,
    dates_in_order,
    dates_pinned,
    iban_words,
    in_order,
    numbers_apart,
    ordinal_look_alike,
    pinned,
    weigh,
    word_vouched,
)

D = Decimal


def account(amounts: list[str], balances: list[str | None], opening: str = "100.00",
            closing: str = "94.50") -> Account:
    txs = [Transaction(date(2026, 1, i + 1), f"row {i}", D(a), D(b) if b else None)
           for i, (a, b) in enumerate(zip(amounts, balances, strict=True))]
    return Account("1234", "USD", D(opening), D(closing), txs)


def test_every_figure_of_an_unbroken_chain_is_pinned() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", "95.50", "94.50"])
    assert pinned(acct, True, True) == ({0, 1, 2}, {0, 1, 2})


def test_amounts_of_a_day_end_balance_are_not_pinned_one_by_one() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", None, "94.50"])
    amounts, balances = pinned(acct, True, True)
    assert amounts == {0} and balances == {0, 2}


def test_a_derived_opening_or_closing_pins_nothing_at_its_end() -> None:
    acct = account(["-10.00", "5.50"], ["90.00", "95.50"], closing="95.50")
    # the last balance stands alone (the closing is derived from it), so does the amount to it
    assert pinned(acct, False, False) == (set(), {0})


def test_a_break_in_the_chain_costs_the_figures_around_it_not_every_row() -> None:
    # the closing does not follow the last balance: the last row's figures are not pinned
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", "95.50", "94.50"], closing="94.60")
    assert pinned(acct, True, True) == ({0, 1}, {0, 1})
    # a misread balance in a long chain: the figures next to it lose their pins, the
    # stretches beyond them keep theirs
    amounts = ["-1.00"] * 8
    balances = [f"{99 - i}.00" for i in range(8)]
    balances[3] = "76.00"
    acct = account(amounts, balances, closing="92.00")
    assert pinned(acct, True, True) == ({0, 1, 6, 7}, {0, 1, 5, 6, 7})


def test_weigh_trusts_pinned_doubts_and_says_why_others_go_to_review() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", None, "94.50"])
    problems, trusted = weigh(acct, [Doubt(0, "amount", 41.0), Doubt(1, "amount", 55.0),
                                     Doubt(2, "amount", 60.0)], True, True, "account 1")
    assert trusted == ["account 1 row 1: amount -10.00 read by OCR with confidence 41, "
                       "trusted: the running balance pins it"]
    assert problems[0] == ("account 1 row 2: amount 5.50 read by OCR with confidence 55, and "
                           "the running balance does not pin it: no balance is printed on its "
                           "row")
    assert len(problems) == 2


def test_the_one_doubtful_amount_a_day_end_balance_sums_is_pinned_by_the_others() -> None:
    acct = account(["-10.00", "5.50", "-1.00", "2.00"], ["90.00", None, "94.50", None],
                   closing="96.50")
    assert alone_in_sum(acct, [Doubt(1, "amount", 55.0)], True, True) == {1}
    # the closing pins the last rows' sum when no balance follows them
    assert alone_in_sum(acct, [Doubt(3, "amount", 55.0)], True, True) == {3}
    assert alone_in_sum(acct, [Doubt(3, "amount", 55.0)], True, False) == set()
    # two doubtful amounts in one sum, a doubtful balance closing it, no reconciliation
    assert alone_in_sum(acct, [Doubt(1, "amount", 55.0), Doubt(2, "amount", 70.0)],
                        True, True) == set()
    assert alone_in_sum(acct, [Doubt(1, "amount", 55.0), Doubt(2, "balance", 70.0)],
                        True, False) == set()
    acct.closing_balance = D("96.60")
    assert alone_in_sum(acct, [Doubt(1, "amount", 55.0)], True, True) == set()


def test_a_sum_pins_no_amount_of_a_row_put_together_unusually_or_with_broken_punctuation(
        ) -> None:
    # the sum pins the value, not which row it belongs to, nor how broken punctuation reads
    acct = account(["-10.00", "5.50", "-1.00", "2.00"], ["90.00", None, "94.50", None],
                   closing="96.50")
    assert alone_in_sum(acct, [Doubt(1, "amount", 0.0, assembled="on the line under its "
                                     "row's date")], True, True) == set()
    assert alone_in_sum(acct, [Doubt(1, "amount", 60.0, printed="5:50")], True, True) == set()
    # nor does such a doubt leave another doubtful amount of its sum alone in it
    assert alone_in_sum(acct, [Doubt(2, "amount", 60.0, printed="1:00"),
                               Doubt(1, "amount", 55.0)], True, True) == set()


def test_a_figure_with_broken_punctuation_says_how_it_was_printed() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", None, "94.50"])
    problems, trusted = weigh(acct, [Doubt(0, "amount", 96.0, "10:00"),
                                     Doubt(1, "amount", 96.0, "5.50."),
                                     Doubt(2, "amount", 96.0, "1:00")], True, True, "account 1")
    assert trusted == ["account 1 row 1: amount -10.00 read by OCR as '10:00', its punctuation "
                       "broken, trusted: the running balance pins it"]
    assert problems[0].startswith("account 1 row 2: amount 5.50 read by OCR as '5.50.', its "
                                  "punctuation broken, and the running balance does not pin it")


# --- dates and description words ---------------------------------------------------------

DAY, NEXT = date(2026, 1, 5), date(2026, 1, 6)


def test_a_doubtful_date_between_two_confident_reads_of_its_day_is_pinned() -> None:
    dates = [(DAY, 95.0), (DAY, 40.0), (DAY, None), (DAY, 96.0), (NEXT, 97.0)]
    assert dates_pinned(dates, 90.0) == {1, 2}


def test_a_doubtful_date_between_two_different_days_is_not_pinned() -> None:
    """06 Jan read as 05 Jan (a 6 taken for a 5) fits the order just as well."""
    assert dates_pinned([(DAY, 95.0), (DAY, 40.0), (NEXT, 96.0)], 90.0) == set()
    assert dates_pinned([(DAY, 95.0), (NEXT, 40.0), (NEXT, 96.0)], 90.0) == set()


def test_a_doubtful_date_at_either_end_of_the_table_is_not_pinned() -> None:
    assert dates_pinned([(DAY, 40.0), (DAY, 95.0), (DAY, 96.0)], 90.0) == set()
    assert dates_pinned([(DAY, 95.0), (DAY, 96.0), (DAY, None)], 90.0) == set()


def test_no_date_is_pinned_where_the_confident_dates_are_out_of_order() -> None:
    dates = [(NEXT, 95.0), (DAY, 96.0), (DAY, 40.0), (DAY, 97.0)]
    assert dates_pinned(dates, 90.0) == set()


PERIOD = (date(2026, 1, 1), date(2026, 1, 31))


def long_table(misread: int | None) -> list[tuple[date, float | None]]:
    """Twenty rows three a day from 1 Jan, read confidently but for rows 4 and 16 (each the
    middle row of its day); row `misread` read confidently as a day a week later (an OCR
    slip out of order)."""
    dates: list[tuple[date, float | None]] = [
        (date(2026, 1, 1 + i // 3), 40.0 if i in (4, 16) else 95.0) for i in range(20)]
    if misread is not None:
        dates[misread] = (dates[misread][0] + timedelta(days=7), 95.0)
    return dates


def test_one_date_misread_out_of_order_costs_only_its_own_neighbours() -> None:
    assert dates_pinned(long_table(None), 90.0) == {4, 16}
    # a misread far from row 4 leaves it pinned; one beside it no longer pins it
    assert dates_pinned(long_table(12), 90.0) == {4, 16}
    assert dates_pinned(long_table(3), 90.0) == {16}
    twice = [True] * 20
    assert dates_in_order(long_table(12), 90.0, twice, PERIOD) == {4, 16}


def test_dates_pin_nothing_where_more_than_one_in_ten_is_out_of_order() -> None:
    dates = long_table(12)
    dates[2] = (date(2026, 1, 20), 95.0)
    dates[8] = (date(2026, 1, 25), 95.0)
    assert dates_pinned(dates, 90.0) == set()
    descending = long_table(None)[::-1]
    assert dates_pinned(descending, 90.0) == set()


def test_the_dates_in_order_are_the_longest_ordered_run() -> None:
    dates = [(date(2026, 1, d), 95.0) for d in (1, 2, 9, 3, 4, 5, 6, 7, 8, 8, 10)]
    assert in_order(dates, list(range(len(dates)))) == [0, 1, 3, 4, 5, 6, 7, 8, 9, 10]




def test_a_doubtful_date_read_alike_twice_in_order_and_in_the_period_stands() -> None:
    mid = date(2026, 1, 6)
    dates = [(DAY, 95.0), (mid, 40.0), (NEXT, 96.0), (date(2026, 1, 20), 60.0)]
    assert dates_in_order(dates, 90.0, [False, True, False, True], PERIOD) == {1, 3}


def test_a_date_read_once_or_out_of_order_or_outside_the_period_does_not_stand() -> None:
    """A 6 read as an 8 twice (`08 Jan` between 05 and 06 Jan) falls out of order."""
    twice = [True] * 3
    assert dates_in_order([(DAY, 95.0), (date(2026, 1, 6), 40.0), (NEXT, 96.0)], 90.0,
                          [False] * 3, PERIOD) == set()
    assert dates_in_order([(DAY, 95.0), (date(2026, 1, 8), 40.0), (NEXT, 96.0)], 90.0,
                          twice, PERIOD) == set()
    assert dates_in_order([(DAY, 95.0), (NEXT, 96.0), (date(2026, 2, 3), 40.0)], 90.0,
                          twice, PERIOD) == set()
    assert dates_in_order([(DAY, 95.0), (NEXT, 96.0), (date(2026, 1, 3), 40.0)], 90.0,
                          twice, PERIOD) == set()
    assert dates_in_order([(DAY, 40.0), (NEXT, 96.0)], 90.0, twice, (None, PERIOD[1])) \
        == set()
    assert dates_in_order([(NEXT, 95.0), (DAY, 96.0), (DAY, 40.0)], 90.0, twice,
                          PERIOD) == set()


@pytest.mark.parametrize("word", ["STH", "IST", "ZND", "BOTH", "ISTH"])
def test_ordinal_look_alikes_are_recognised(word: str) -> None:
    assert ordinal_look_alike(word)


@pytest.mark.parametrize("word", ["5TH", "ST", "STREET", "SND", "BST", "LOST"])
def test_other_words_are_no_ordinal_look_alikes(word: str) -> None:
    assert not ordinal_look_alike(word)


def test_a_doubtful_word_is_vouched_for_by_a_confident_read_elsewhere_or_the_lexicon() -> None:
    assert word_vouched("ZORBLAX", 80.0, frozenset({"ZORBLAX"}), frozenset())
    assert word_vouched("coffee", 80.0, frozenset(), frozenset({"COFFEE"}))
    assert not word_vouched("ZORBLAX", 80.0, frozenset({"OTHER"}), frozenset({"COFFEE"}))


def test_a_word_of_the_language_read_with_hardly_any_confidence_is_not_vouched_for() -> None:
    """Specks spell short words too: `oar` read at 29 in the speckles of a scan."""
    assert not word_vouched("oar", 29.0, frozenset(), frozenset({"OAR"}))
    assert word_vouched("oar", 29.0, frozenset({"oar"}), frozenset({"OAR"}))
    assert word_vouched("oar", 29.0, frozenset(), frozenset(), twice=True)


def test_a_two_letter_word_is_vouched_for_by_a_confident_read_elsewhere_only() -> None:
    assert word_vouched("ON", 80.0, frozenset({"ON"}), frozenset())
    assert not word_vouched("ON", 80.0, frozenset(), frozenset({"ON"}))


@pytest.mark.parametrize("word", ["CORP.", ".CHECK", "REFUND’", "4410", "R2D2", "A", "STH"])
def test_specks_digits_short_words_and_ordinal_look_alikes_are_never_vouched(word: str) -> None:
    assert not word_vouched(word, 80.0, frozenset({word}), frozenset({word.upper()}))


def test_the_lexicon_is_tesseracts_english_dictionary() -> None:
    words = lexicon.words()
    assert {"BALANCE", "COFFEE", "PAYMENT"} <= words
    assert "ZORBLAX" not in words and "CL0SING" not in words


def test_long_words_run_together_are_recognised() -> None:
    lex = frozenset({"GYM", "MEMBERSHIP", "RENT", "PAYMENT", "OAK", "AUTO", "PAY"})
    assert run_together("GYMMEMBERSHIP", lex) and run_together("RentPaymentOak", lex)
    assert not run_together("AUTOPAY", lex)  # short: as often a name written as one word
    assert not run_together("MEMBERSHIP", lex)  # a word of its own
    assert not run_together("GYMMEMBERSHIPX", lex)  # not made of words alone
    assert not run_together("GYM-MEMBERSHIP", lex)


@pytest.mark.parametrize("word", ["7781-ALPHA", "0912", "11/02", "PIAZZA", "ON"])
def test_a_word_read_alike_twice_is_vouched_for(word: str) -> None:
    assert word_vouched(word, 80.0, frozenset(), frozenset(), twice=True)
    assert not word_vouched(word, 80.0, frozenset(), frozenset())


@pytest.mark.parametrize("word", ["STH", "SO", "IS", "CORP.", "-88231", "ID.7781-ALPHA",
                                  "7781-", "A"])
def test_twice_vouches_for_no_look_alike_speck_or_single_glyph(word: str) -> None:
    """`STH AVE` read twice may still be `5TH AVE`; a mark at an edge or inside may be a
    speck both readings saw."""
    assert not word_vouched(word, 80.0, frozenset({word}), frozenset({word.upper()}), twice=True)


@pytest.mark.parametrize(("word", "joined"), [
    ("STORE.0912", True), ("PAYMENT.ID", True), ("TREAS.310", True), ("ID.7781-ALPHA", True),
    ("P.O.", False), ("CORP.", False), ("7781-ALPHA", False), ("1,234.56", False),
    # a web address's ending is printed, not a speck; a word after it still is one
    ("AMAZON.COM", False), ("Paypal.co.uk", False), ("AMAZON.COMX", True),
    ("PAYMENT.IN", True), ("PAGO.DE", True), ("OUTLET.#4471", True), ("NO.#", False),
])
def test_words_joined_across_a_speck(word: str, joined: bool) -> None:
    assert across_a_speck(word) is joined


def test_numbers_side_by_side_may_be_one() -> None:
    assert numbers_apart("20251", "10400193") and numbers_apart("00826821", "42-C")
    assert numbers_apart("#4471", "0912")
    assert not numbers_apart("BRANCH", "221") and not numbers_apart("4410", "PURCHASE")


@pytest.mark.parametrize(("first", "second", "maybe_one"), [
    ("004512", "11/02", False),  # an authorisation and its date
    ("4410", "11/02/2025", False),
    ("11/02", "004512", False),
    ("123", "11/02.", False),
    ("2025/1", "1/04", True),  # a date cut in two leaves a slash on both sides
    ("11/02/20", "25", True),  # the year of one date cut in two
    ("4410", "13/45", True),  # no day and month
    ("3", "12.50", True),  # a figure, not a date
    ("2025/11", "11/04", True),
])
def test_a_day_and_month_beside_a_number_is_printed_apart(first: str, second: str,
                                                          maybe_one: bool) -> None:
    assert numbers_apart(first, second) is maybe_one


def words_of(text: str) -> list[str]:
    return text.split()


def test_an_iban_in_its_print_form_whose_check_digits_hold_is_found() -> None:
    assert iban_words(words_of("IBAN: DE02 1203 0000 0000 2020 51")) == {1, 2, 3, 4, 5, 6}
    assert iban_words(words_of("GB82 WEST 1234 5698 7654 32 REF")) == {0, 1, 2, 3, 4, 5}


def test_an_iban_misread_or_spaced_otherwise_is_not() -> None:
    assert iban_words(words_of("IBAN: DE02 1203 0000 0000 2020 52")) == set()  # a digit
    assert iban_words(words_of("IBAN: DE02 1203 0000 00 00 2020 51")) == set()  # a space
    assert iban_words(words_of("REF 20251 10400193")) == set()
