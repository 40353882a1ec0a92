"""The fuzz benchmark at CI size: the production parse of 100 seeded mutants, and a harness
that stops when it does not parse as an import does."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import fuzz
from parsers.worker.pool import ParsePool


def test_a_hundred_mutants_validate_no_figure_the_mutant_does_not_print() -> None:
    result = fuzz.run(100, seed=1, base_count=12)

    assert result.kinds.total() == 100
    assert (result.kinds["crash"], result.kinds["hang"]) == (0, 0), result.findings
    assert result.fields["figures"] == 0, result.findings
    assert result.kinds["validated"] > 0  # the harness reaches the judge at all


def _old_signature(data: bytes, bank: str | None = None, limits: Any = None) -> Any:
    """A worker target without the `passwords` the pool passes."""
    raise AssertionError("never called with the pool's arguments")


def test_a_target_without_the_pools_signature_breaks_the_harness_loudly() -> None:
    base = fuzz.bases(2, seed=1)[:1]
    with ParsePool(0, fuzz.LIMITS, target=_old_signature) as pool, \
            pytest.raises(fuzz.HarnessBroken, match="does not parse: TypeError"):
        fuzz.check_harness(fuzz.Parsing(pool, {}), base)


def test_a_description_read_empty_where_the_page_prints_it_differs() -> None:
    truth = {"bank": "northwind", "accounts": [{"account_last4": "1234", "transactions": [
        {"date": "2026-01-02", "description": "BOOKSHOP ON THE CORNER", "amount": "-9.50"}]}]}
    read = {"bank": "northwind", "accounts": [{"account_last4": "1234", "transactions": [
        {"date": "2026-01-02", "description": "", "amount": "-9.50"}]}]}
    printed = ["02/01 BOOKSHOP ON THE CORNER -9.50"]
    edited = ["02/01 BOOKSHOP ON THE CORNER -9.60"]  # a figure edited, the words still there

    for after in (printed, edited):
        verdict, differing = fuzz.judge(read, truth, printed, after)
        assert differing == [("descriptions", "account 0 tx 0 description")], verdict
    renamed = {**read, "bank": "meridian"}
    assert ("bank", "bank") in fuzz.judge(renamed, truth, printed, printed)[1]
    spaced = {**truth, "accounts": [{**truth["accounts"][0], "transactions": [
        {**truth["accounts"][0]["transactions"][0], "description": "BOOKSHOP  ON THE CORNER "}]}]}
    assert fuzz.judge(spaced, truth, printed, printed) == ("validated", [])


def test_an_account_the_mutant_no_longer_prints_may_be_missing_from_the_reading() -> None:
    one = {"account_last4": "1234", "currency": "USD", "opening_balance": "1.00",
           "closing_balance": "2.00", "transactions": []}
    other = {**one, "account_last4": "4127", "closing_balance": "1076.57"}
    truth = {"bank": "bluebird", "accounts": [one, other]}
    read = {"bank": "bluebird", "accounts": [one]}
    printed = ["Checking ****1234 1.00 2.00", "Savings ****4127 1.00 1,076.57"]

    assert fuzz.judge(read, truth, printed, [printed[0], ""]) == ("validated-edited", [])
    verdict, differing = fuzz.judge(read, truth, printed, [printed[0], "Savings ****4127"])
    assert ("figures", "account 1 account_last4") in differing, verdict
    # the first account's pages lost: the reading's one account is the truth's second
    lost_first = {"bank": "bluebird", "accounts": [other]}
    assert fuzz.judge(lost_first, truth, printed, ["", printed[1]]) == ("validated-edited", [])
