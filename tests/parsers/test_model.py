from __future__ import annotations

import pytest

from parsers.model import mask_account, mask_digits


@pytest.mark.parametrize(("name", "shown"), [
    ("statement_123456789.pdf", "statement_****6789.pdf"),
    ("DE89370400440532013000.pdf", "DE****3000.pdf"),
    ("northwind-7-000.pdf", "northwind-7-000.pdf"),
    ("2025-12 acct 12345.pdf", "2025-12 acct 12345.pdf"),
])
def test_file_names_lose_long_digit_runs(name: str, shown: str) -> None:
    assert mask_digits(name) == shown


def test_masked_account_shows_only_last_four() -> None:
    assert mask_account("1234") == "****1234"
    assert mask_account(None) == "****"
