"""Named hooks: the code a template may call when a layout needs more than data.

A template lists hooks by name (`hooks = ["card_summary"]`); each is a check over a parsed
account that returns problems. Adding a hook is adding a function here and its name below.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from parsers.model import Account, money


def card_summary(acct: Account) -> list[str]:
    """A card's summary must add up and agree with its transactions (holder's side)."""
    s = {k: abs(v) for k, v in acct.summary.items()}
    need = {"payments", "credits", "purchases", "fees", "interest"}
    if not need <= s.keys():
        return [f"card summary incomplete: missing {sorted(need - s.keys())}"]
    problems = []
    owed = -acct.opening_balance - s["payments"] - s["credits"] + s["purchases"] + s["fees"]
    owed += s["interest"]
    if owed != -acct.closing_balance:
        problems.append(f"card summary: previous balance and activity give {money(owed)} owed, "
                        f"new balance says {money(-acct.closing_balance)}")
    paid = sum((t.amount for t in acct.transactions if t.amount > 0), Decimal(0))
    charged = -sum((t.amount for t in acct.transactions if t.amount < 0), Decimal(0))
    if paid != s["payments"] + s["credits"]:
        problems.append(f"card summary: payments and credits {money(s['payments'] + s['credits'])}"
                        f" but transactions credit {money(paid)}")
    if charged != s["purchases"] + s["fees"] + s["interest"]:
        problems.append(f"card summary: charges {money(s['purchases'] + s['fees'] + s['interest'])}"
                        f" but transactions charge {money(charged)}")
    return problems


HOOKS: dict[str, Callable[[Account], list[str]]] = {"card_summary": card_summary}
