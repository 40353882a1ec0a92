from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from parsers.model import (
    Account,
    Statement,
    Transaction,
    document_transaction_ids,
    mask_account,
    mask_digits,
    occurrences,
    transaction_id,
    transaction_ids,
)


@pytest.mark.parametrize(("name", "shown"), [
    ("statement_123456789.pdf", "statement_****6789.pdf"),
    ("DE89370400440532013000.pdf", "DE****3000.pdf"),
    ("northwind-7-000.pdf", "northwind-7-000.pdf"),
    ("2025-12 acct 12345.pdf", "2025-12 acct ****2345.pdf"),
    ("card 4111 1111 1111 1234.pdf", "card ****1234.pdf"),
    ("acct-123-456-789.pdf", "acct-****6789.pdf"),
    ("statement-2025-12-31 1234.pdf", "statement-2025-12-31 1234.pdf"),
    ("8388608 bytes is over the limit of 1048576 bytes",
     "8388608 bytes is over the limit of 1048576 bytes"),
    ("account 12345678 holds 120000 pages", "account ****5678 holds 120000 pages"),
])
def test_file_names_lose_long_digit_runs(name: str, shown: str) -> None:
    assert mask_digits(name) == shown


def test_masked_account_shows_only_last_four() -> None:
    assert mask_account("1234") == "****1234"
    assert mask_account(None) == "****"


COFFEE = Transaction(date(2026, 1, 31), "COFFEE HOUSE 123 MAIN ST", Decimal("-4.50"),
                     Decimal("100.00"))


def coffee_id(**changes: object) -> str:
    fields = {"bank": "northwind", "account_last4": "1234", "currency": "USD", "t": COFFEE,
              "occurrence": 1, **changes}
    return transaction_id(**fields)  # type: ignore[arg-type]


def test_transaction_id_ignores_the_running_balance_and_folds_whitespace() -> None:
    assert coffee_id(t=replace(COFFEE, balance=Decimal("-7.00"))) == coffee_id()
    assert coffee_id(t=replace(COFFEE, balance=None)) == coffee_id()
    assert coffee_id(t=replace(COFFEE, description=" COFFEE  HOUSE 123\nMAIN ST")) == \
        coffee_id()
    assert coffee_id(t=replace(COFFEE, amount=Decimal("-4.5"))) == coffee_id()


@pytest.mark.parametrize("change", [
    {"bank": "bluebird"}, {"account_last4": "1235"}, {"currency": "EUR"},
    {"t": replace(COFFEE, date=date(2026, 2, 1))},
    {"t": replace(COFFEE, description="COFFEE HOUSE 124 MAIN ST")},
    {"t": replace(COFFEE, amount=Decimal("4.50"))}, {"occurrence": 2}])
def test_transaction_id_changes_with_every_part_of_the_identity(change: dict) -> None:
    assert coffee_id(**change) != coffee_id()


def test_transaction_id_follows_the_documented_recipe() -> None:
    """The recipe in docs/output-schema.md: ids in users' books must never drift."""
    identity = "\x1f".join(["txn-v1", "northwind", "1234", "USD", "2026-01-31",
                            "COFFEE HOUSE 123 MAIN ST", "-4.50", "1"])
    assert coffee_id() == hashlib.sha256(identity.encode()).hexdigest()[:32]


def test_equal_transactions_on_a_day_are_numbered_and_keep_their_ids_in_overlaps() -> None:
    rent = Transaction(date(2026, 1, 30), "RENT", Decimal("-900.00"))
    december = Account("1234", "USD", Decimal(0), Decimal(0), [rent, COFFEE, COFFEE])
    january = Account("1234", "USD", Decimal(0), Decimal(0), [COFFEE, COFFEE, COFFEE])
    assert occurrences(december.transactions) == [1, 1, 2]
    first, second = transaction_ids("northwind", december), transaction_ids("northwind",
                                                                             january)
    assert first[1:] == second[:2] and second[2] not in first
    assert len(set(first)) == 3


def test_a_document_gives_the_ids_of_its_parsed_form_however_its_figures_are_written(
        ) -> None:
    """The book numbers and names transactions from the JSON form: equal amounts written
    differently (`-4.5`, `-4.50`) and folded whitespace are the same transaction there too."""
    section = {"account_last4": "1234", "currency": "USD", "opening_balance": "0",
               "closing_balance": "0", "transactions": [
                   {"date": "2026-01-31", "description": "COFFEE  HOUSE 123 MAIN ST",
                    "amount": "-4.5", "balance": None},
                   {"date": "2026-01-31", "description": "COFFEE HOUSE 123 MAIN ST",
                    "amount": "-4.50", "balance": "1.00"},
                   {"date": "2026-01-30", "description": "RENT", "amount": "-900",
                    "balance": None}]}
    parsed = Statement.from_dict({"bank": "northwind", "accounts": [section]}).accounts[0]
    got = document_transaction_ids("northwind", section)
    assert got == list(zip(occurrences(parsed.transactions),
                           transaction_ids("northwind", parsed), strict=True))
    assert [n for n, _ in got] == [1, 2, 1] and got[0][1] == coffee_id()


def test_statement_round_trips_through_its_normalised_form() -> None:
    st = Statement("northwind", [Account("1234", "USD", Decimal("10.00"), Decimal("5.50"),
                                         [COFFEE])], date(2026, 1, 1), date(2026, 1, 31))
    doc = {**st.to_dict(), "period": {"start": "2026-01-01", "end": "2026-01-31"}}
    back = Statement.from_dict(doc)
    assert back == st and (back.period_start, back.period_end) == (st.period_start,
                                                                   st.period_end)
    assert Statement.from_dict(st.to_dict()).period_end is None
