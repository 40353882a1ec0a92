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

    @classmethod
    def from_dict(cls, found: dict[str, Any]) -> Explanation:
        """A refusal's `details` (a `to_dict`) again."""
        return cls(**{k: found[k] for k in ("table", "period", "accounts", "readings",
                                             "missing") if k in found})

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


def reading_lines(reading: dict[str, Any]) -> list[str]:
    """How a statement that was read was read (`ParseResult.reading()`), as lines for a
    person: the table's conventions and columns, and per account what each figure was
    derived from and what was set aside as page furniture."""
    out = []
    if t := reading.get("table"):
        columns = "; ".join(f"{c.get('role')} at {c.get('right_edge')}"
                            for c in t.get("columns", []))
        out.append(f"table: {t.get('layout', 'template')} reading, figures in "
                   f"{t.get('locale')} form, dates {t.get('date_format')}, "
                   f"{t.get('sections', 1)} section(s), columns {columns or 'none'}")
        if t.get("convention"):
            out.append(f"  sign convention: {t['convention']}")
        if t.get("period"):
            out.append(f"  period: {t['period']}")
    for i, a in enumerate(reading.get("accounts", []), start=1):
        out.append(f"account {i}: {a.get('rows', 0)} rows, running balance printed on "
                   f"{a.get('balances_printed', 0)}, {a.get('balance_rows_checked', 0)} "
                   "balance rows checked" + (", no account number printed"
                                             if a.get("unnamed") else ""))
        out += [f"  {name} derived from {how}" for name, how in a.get("derived", {}).items()]
        out += [f"  {name} read {where}" for name, where in a.get("found", {}).items()]
        out += [f"  furniture (no figure where amounts stand): {line}"
                for line in a.get("furniture", [])]
    out += [f"note: {n}" for n in reading.get("notes", [])]
    return out
