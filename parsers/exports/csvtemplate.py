"""CSV templates: a bank's CSV export described in TOML, like a PDF template, not in code.

    name = "ing-de"                      # the template's id
    bank = "ing"                         # the bank its rows are booked under
    delimiter = ";"
    encoding = "latin-1"
    locale = "de"                        # amounts as `1.234,56` (parsers/numbers.py)
    date_format = "%d.%m.%Y"
    order = "newest_first"               # or "oldest_first" (the default)
    account_pattern = '^IBAN;(?P<account>[A-Z0-9 ]+)'   # a line before the header, or:
    [columns]                            # role -> the header's name (a list joins columns)
    date = "Buchung"
    description = ["Auftraggeber/Empfänger", "Verwendungszweck"]
    amount = "Betrag"                    # signed; or `debit` and `credit`, each unsigned
    balance = "Saldo"                    # the running balance after the row, where printed
    account = "IBAN"                     # where each row names its account
    currency = "Währung"
    reference = "Id"

`sign = "inverted"` reads a signed amount the other way round (a card export that prints
purchases positive). A file is this template's when its header row holds every column the
template names. Files `*.csv.toml` of the template directories (`STMTFLOW_TEMPLATES`) add
to the built-ins of `csv_templates/` or replace one of the same name.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

BUILTIN_DIR = Path(__file__).parent / "csv_templates"
ROLES = ("date", "description", "amount", "debit", "credit", "balance", "account",
         "currency", "reference")
_KEYS = {"name", "bank", "title", "source", "delimiter", "encoding", "locale", "date_format",
         "order", "account_pattern", "currency", "sign", "columns"}


class CsvTemplateError(ValueError):
    """A CSV template that cannot be used, named with its file and key."""


@dataclass(frozen=True)
class CsvTemplate:
    name: str
    bank: str | None
    delimiter: str
    encoding: str
    locale: str
    date_format: str
    #: role -> the header names of its columns (several are joined with a space)
    columns: dict[str, tuple[str, ...]] = field(hash=False)
    order: str = "oldest_first"
    account_pattern: str | None = None
    #: the currency when no column names it
    currency: str | None = None
    sign: str = "as_printed"
    revision: str = ""

    def matches(self, header: Sequence[str]) -> bool:
        """Whether `header` holds every column this template names."""
        have = {h.strip() for h in header}
        return all(name in have for names in self.columns.values() for name in names)

    def to_toml(self) -> str:
        """The template as the TOML a `*.csv.toml` file holds."""
        out = [f"name = {_q(self.name)}"]
        if self.bank:
            out.append(f"bank = {_q(self.bank)}")
        out += [f"delimiter = {_q(self.delimiter)}", f"encoding = {_q(self.encoding)}",
                f"locale = {_q(self.locale)}", f"date_format = {_q(self.date_format)}",
                f"order = {_q(self.order)}"]
        if self.account_pattern:
            out.append(f"account_pattern = '{self.account_pattern}'")
        if self.currency:
            out.append(f"currency = {_q(self.currency)}")
        if self.sign != "as_printed":
            out.append(f"sign = {_q(self.sign)}")
        out.append("\n[columns]")
        for role in ROLES:
            names = self.columns.get(role)
            if names:
                value = _q(names[0]) if len(names) == 1 else "[" + ", ".join(
                    _q(n) for n in names) + "]"
                out.append(f"{role} = {value}")
        return "\n".join(out) + "\n"


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def load_csv_template(path: Path) -> CsvTemplate:
    data = path.read_bytes()
    try:
        raw = tomllib.loads(data.decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CsvTemplateError(f"{path}: {exc}") from None
    unknown = set(raw) - _KEYS
    if unknown:
        raise CsvTemplateError(f"{path}: unknown key(s) {sorted(unknown)}")
    columns = {}
    for role, names in (raw.get("columns") or {}).items():
        if role not in ROLES:
            raise CsvTemplateError(f"{path}: columns.{role}: roles are {', '.join(ROLES)}")
        columns[role] = (names,) if isinstance(names, str) else tuple(names)
    if "date" not in columns or not ({"amount"} <= set(columns)
                                     or {"debit", "credit"} <= set(columns)):
        raise CsvTemplateError(f"{path}: columns: a date and an amount (or debit and "
                               "credit) are needed")
    if raw.get("account_pattern"):
        try:
            if "account" not in re.compile(raw["account_pattern"]).groupindex:
                raise CsvTemplateError(f"{path}: account_pattern: needs (?P<account>...)")
        except re.error as exc:
            raise CsvTemplateError(f"{path}: account_pattern: {exc}") from None
    try:
        return CsvTemplate(
            name=raw["name"], bank=raw.get("bank"), delimiter=raw.get("delimiter", ","),
            encoding=raw.get("encoding", "utf-8"), locale=raw.get("locale", "en"),
            date_format=raw.get("date_format", "%Y-%m-%d"), columns=columns,
            order=raw.get("order", "oldest_first"),
            account_pattern=raw.get("account_pattern"), currency=raw.get("currency"),
            sign=raw.get("sign", "as_printed"),
            revision=hashlib.sha256(data).hexdigest()[:12])
    except KeyError as exc:
        raise CsvTemplateError(f"{path}: {exc.args[0]} is required") from None


def load_csv_templates(dirs: Sequence[Path] = (), builtin: bool = True) -> list[CsvTemplate]:
    """The built-in CSV templates (unless `builtin` is off), then those of `dirs`; a later
    template replaces an earlier one of the same name."""
    by_name: dict[str, CsvTemplate] = {}
    for directory in ([BUILTIN_DIR] if builtin else []) + list(dirs):
        if directory.is_dir():
            for path in sorted(directory.glob("*.csv.toml")):
                t = load_csv_template(path)
                by_name[t.name] = t
    return list(by_name.values())
