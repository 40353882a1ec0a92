"""Near matches of OCR text and labels: look-alike glyphs, case, punctuation, a few edits."""

from __future__ import annotations

import pytest

from parsers.layout.fuzzy import distance, key, near


@pytest.mark.parametrize("read", ["CLOSING BALANCE:", "Cl0sing Ba1ance", "closing balanse",
                                  "Closing Balence", "Closng Balance"])
def test_a_label_misread_by_ocr_is_near(read: str) -> None:
    assert near(read, "Closing Balance")


@pytest.mark.parametrize("read", ["Opening Balance", "Closing Bal", "Clearing Advance"])
def test_another_label_is_not_near(read: str) -> None:
    assert not near(read, "Closing Balance")


def test_short_words_allow_only_look_alikes() -> None:
    assert near("T0", "to") and near("Dat3", "Date") is False
    assert not near("Data", "Date")


def test_look_alikes_and_punctuation_fold_into_the_key() -> None:
    assert key("Acc0unt N0.:") == key("account no") == "accountno"
    assert key("Ba1ance") == key("Balance") == key("BaIance")


def test_distance_stops_past_its_limit() -> None:
    assert distance("kitten", "sitting", 5) == 3
    assert distance("kitten", "sitting", 1) == 2
