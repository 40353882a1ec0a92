"""What an import says about bank exports beyond their bytes: per account, the bank its
exports are booked under and whether an export without balances is trusted; and the CSV
templates in force.

Read from the TOML file `STMTFLOW_EXPORTS` names (docs/exports-in.md):

    [accounts."1234"]                # the account's last four, or "bank:last4"
    bank = "northwind"               # where the file names no bank a template knows
    trust_without_balances = true    # accept its exports that carry no balance as read

Both change what a parse gives, so `revision` is part of the pinned parser chain.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from parsers.exports.csvtemplate import CsvTemplate, load_csv_templates


class ExportSettingsError(ValueError):
    """The exports file is not what it must be: named with the file and the key."""


@dataclass(frozen=True)
class AccountRule:
    #: "1234" (any bank) or "northwind:1234"
    key: str
    bank: str | None = None
    trust_without_balances: bool = False

    def applies(self, bank: str | None, last4: str) -> bool:
        want_bank, _, want_last4 = self.key.rpartition(":")
        return want_last4 == last4 and (not want_bank or want_bank == bank)


@dataclass(frozen=True)
class Exports:
    """The export settings a parse worker carries (picklable, compared by value)."""

    accounts: tuple[AccountRule, ...] = ()
    csv_templates: tuple[CsvTemplate, ...] = field(default_factory=tuple)

    @classmethod
    def load(cls, path: Path | None, template_dirs: Sequence[Path] = (),
             builtin: bool = True) -> Exports:
        """The settings of the file at `path` (none when None) and the CSV templates: the
        built-ins (unless `builtin` is off), then `*.csv.toml` of `template_dirs`."""
        return cls(_accounts(path) if path is not None else (),
                   tuple(load_csv_templates(template_dirs, builtin)))

    def bank_for(self, last4: str) -> str | None:
        """The bank an account's exports are booked under, where the settings name one."""
        return next((r.bank for r in self.accounts
                     if r.bank and r.key.rpartition(":")[2] == last4), None)

    def trusts(self, bank: str, last4: str) -> bool:
        """Whether an export of this account without balances is accepted as read."""
        return any(r.trust_without_balances and r.applies(bank, last4) for r in self.accounts)

    @property
    def revision(self) -> str:
        """What a job pins of these settings."""
        h = hashlib.sha256()
        for r in sorted(self.accounts, key=lambda r: r.key):
            h.update(f"{r.key}\x1f{r.bank}\x1f{r.trust_without_balances}\x1e".encode())
        for t in sorted(self.csv_templates, key=lambda t: t.name):
            h.update(f"{t.name}:{t.revision}\x1e".encode())
        return h.hexdigest()[:16]


def _accounts(path: Path) -> tuple[AccountRule, ...]:
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ExportSettingsError(f"{path}: {exc}") from None
    unknown = set(raw) - {"accounts"}
    if unknown:
        raise ExportSettingsError(f"{path}: unknown key(s) {sorted(unknown)}")
    rules = []
    for key, rule in (raw.get("accounts") or {}).items():
        if not isinstance(rule, dict) or set(rule) - {"bank", "trust_without_balances"}:
            raise ExportSettingsError(f"{path}: accounts.{key}: only `bank` and "
                                      "`trust_without_balances` may be set")
        last4 = key.rpartition(":")[2]
        if not (len(last4) == 4 and last4.isdigit()):
            raise ExportSettingsError(f"{path}: accounts.{key}: name an account by its last "
                                      "four digits (`1234` or `bank:1234`)")
        rules.append(AccountRule(key, rule.get("bank"),
                                 bool(rule.get("trust_without_balances", False))))
    return tuple(rules)
