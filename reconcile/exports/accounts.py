"""Ledger account names for bank accounts: a small TOML mapping with a sensible default.

```toml
[accounts]
"northwind:1234" = "Assets:US:Northwind:Checking"
"harbor:4821" = "Liabilities:US:Harbor:Card"
```

An account not in the mapping is `Assets:<Bank>:<last4>`, or `Liabilities:<Bank>:<last4>`
for a bank whose statements are a card's. A `Liabilities:` account is exported as a card
(OFX credit-card statement, QIF `CCard`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from reconcile.book_records import AccountKey

ROOTS = ("Assets", "Liabilities")
#: where the other leg of each transaction goes until the user categorises it
EXPENSES = "Expenses:Uncategorized"
INCOME = "Income:Uncategorized"
OPENING = "Equity:Opening-Balances"


@dataclass(frozen=True)
class AccountNames:
    mapping: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    card_banks: frozenset[str] = frozenset()

    @classmethod
    def load(cls, path: Path | None, card_banks: Iterable[str] = ()) -> AccountNames:
        """Read a mapping file (none: every account gets its default name)."""
        mapping: dict[str, str] = {}
        if path is not None:
            with open(path, "rb") as f:
                doc = tomllib.load(f)
            unknown = set(doc) - {"accounts"}
            if unknown:
                raise ValueError(f"{path}: unknown table(s) {sorted(unknown)}; "
                                 "expected [accounts]")
            mapping = dict(doc.get("accounts", {}))
        for key, name in mapping.items():
            bank, _, last4 = key.partition(":")
            if not bank or not last4:
                raise ValueError(f"account key {key!r} must be 'bank:last4', e.g. "
                                 "'northwind:1234'")
            check_name(name)
        return cls(MappingProxyType(mapping), frozenset(card_banks))

    def name(self, key: AccountKey) -> str:
        mapped = self.mapping.get(str(key))
        if mapped is not None:
            return mapped
        root = "Liabilities" if key.bank in self.card_banks else "Assets"
        return f"{root}:{component(key.bank or 'unknown')}:{component(key.last4)}"

    def is_card(self, key: AccountKey) -> bool:
        return self.name(key).startswith("Liabilities:")


def component(text: str) -> str:
    """`text` as one account-name component: a capital or digit first, then letters,
    digits and dashes (what Beancount, hledger and Ledger all accept)."""
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in text).strip("-") or "X"
    return cleaned[0].upper() + cleaned[1:]


def check_name(name: str) -> None:
    """Refuse a name Beancount would refuse, here with a clear message rather than later."""
    root, *parts = name.split(":")
    valid = root in ROOTS and parts and all(
        p and (p[0].isupper() or p[0].isdigit()) and all(ch.isalnum() or ch == "-" for ch in p)
        for p in parts)
    if not valid:
        raise ValueError(f"account name {name!r} must be Assets:… or Liabilities:…, each "
                         "part starting with a capital letter or digit")
