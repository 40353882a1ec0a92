"""What the generic reader found on a statement it could not read, and what was missing.

A refusal that only says `unrecognised_layout` teaches nothing. The reader notes, as it
goes, the table it found (number locale, date forms, figure columns and what the header
calls them, the rows it read), the period, each account's number and balances (with the
line they were read from), and what each reading of the table gave: enough for a person
to see which figure is missing or which line disagrees, and for a template to be written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Explanation:
    """Filled by the generic reader as it reads (`parse_generic(..., explain=...)`)."""

    table: dict[str, Any] = field(default_factory=dict)
    period: str = ""
    accounts: list[dict[str, str]] = field(default_factory=list)
    readings: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "period": self.period, "accounts": self.accounts,
                "readings": self.readings, "missing": self.missing}

    def lines(self) -> list[str]:
        """The explanation as lines of text for a person."""
        out = []
        if self.table:
            t = self.table
            out.append(f"table: {t.get('rows', 0)} rows dated {', '.join(t.get('dates', []))}"
                       f", figures in {t.get('locale')} form, "
                       f"{len(t.get('columns', []))} figure column(s): "
                       + "; ".join(f"{c['header'] or 'no header'} at {c['right_edge']}"
                                   for c in t.get("columns", [])))
            if t.get("first_row"):
                out.append(f"  first row: {t['first_row']!r}")
        out.append(f"period: {self.period or 'none found'}")
        for i, a in enumerate(self.accounts, start=1):
            out.append(f"account {i}: " + ", ".join(f"{k} {v}" for k, v in a.items()))
        out += [f"reading {r}" for r in self.readings]
        out += [f"missing: {m}" for m in self.missing]
        return out
