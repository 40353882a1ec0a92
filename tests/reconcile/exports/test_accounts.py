"""Ledger account names: the mapping file wins, defaults are valid names, bad names refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconcile.book_records import AccountKey
from reconcile.exports.accounts import AccountNames, component


def test_mapping_file_names_win_over_defaults(tmp_path: Path) -> None:
    path = tmp_path / "accounts.toml"
    path.write_text('[accounts]\n"northwind:1234" = "Assets:US:Northwind:Checking"\n'
                    '"harbor:4821" = "Liabilities:US:Harbor"\n')
    names = AccountNames.load(path, card_banks={"harbor"})
    assert names.name(AccountKey("northwind", "1234")) == "Assets:US:Northwind:Checking"
    assert names.name(AccountKey("northwind", "9999")) == "Assets:Northwind:9999"
    assert names.name(AccountKey("harbor", "0001")) == "Liabilities:Harbor:0001"


def test_a_liabilities_name_makes_a_card(tmp_path: Path) -> None:
    path = tmp_path / "accounts.toml"
    path.write_text('[accounts]\n"bluebird:0045" = "Liabilities:Bluebird:Loan"\n')
    names = AccountNames.load(path)
    assert names.is_card(AccountKey("bluebird", "0045"))
    assert not names.is_card(AccountKey("bluebird", "0012"))


@pytest.mark.parametrize(("text", "part"), [
    ("northwind", "Northwind"), ("cedar_valley", "Cedar-valley"), ("0045", "0045"),
    ("", "X"), ("my bank!", "My-bank")])
def test_default_parts_are_valid_account_components(text: str, part: str) -> None:
    assert component(text) == part


@pytest.mark.parametrize(("line", "message"), [
    ('"northwind" = "Assets:Northwind"', "must be 'bank:last4'"),
    ('"northwind:1234" = "Expenses:Food"', "must be Assets:… or Liabilities:…"),
    ('"northwind:1234" = "Assets:northwind"', "starting with a capital letter or digit"),
    ('"northwind:1234" = "Assets:North wind"', "starting with a capital letter or digit"),
])
def test_bad_mapping_entries_are_refused_with_the_reason(tmp_path: Path, line: str,
                                                         message: str) -> None:
    path = tmp_path / "accounts.toml"
    path.write_text(f"[accounts]\n{line}\n")
    with pytest.raises(ValueError, match=message):
        AccountNames.load(path)


def test_an_unknown_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "accounts.toml"
    path.write_text('[acounts]\n"northwind:1234" = "Assets:N"\n')
    with pytest.raises(ValueError, match=r"unknown table\(s\) \['acounts'\]"):
        AccountNames.load(path)
