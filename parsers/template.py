"""Declarative bank templates: a bank is a TOML file, not a parser.

A template says how to recognise the bank (markers), where the statement's figures are
(regex patterns over lines, with `{AMOUNT}` and `{DATE}` placeholders), how its table is
laid out (header labels and column roles), and its conventions (number locale, date format,
sign of unsigned amounts and balances, account sections). Code a layout truly needs is a
named hook listed under `hooks` (see `hooks.py`). See docs/templates.md for every key.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parsers.numbers import LOCALES

BUILTIN_DIR = Path(__file__).parent / "templates"
TEXT_ROLES = {"date", "description", "ignore"}
NUMBER_ROLES = {"debit", "credit", "amount", "balance"}


class TemplateError(ValueError):
    """A template file that cannot be used, with the file and key at fault."""


@dataclass(frozen=True)
class Column:
    label: str
    role: str


@dataclass(frozen=True)
class Template:
    bank: str
    name: str
    currency: str
    locale: str
    markers: tuple[str, ...]
    min_score: int
    period_pattern: str
    period_date_format: str
    fields: dict[str, str]
    columns: tuple[Column, ...]
    row_date_format: str
    amount_unsigned: str = "credit"
    balance_unsigned: str = "credit"
    section_start: str | None = None
    end: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    summary: dict[str, str] = field(default_factory=dict)
    hooks: tuple[str, ...] = ()
    source: str = "<generated>"
    revision: str = ""

    @property
    def has_running_balance(self) -> bool:
        return any(c.role == "balance" for c in self.columns)


def load_template(path: Path) -> Template:
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
        return template_from_dict(data, source=str(path),
                                  revision=hashlib.sha256(raw).hexdigest()[:12])
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise TemplateError(f"{path}: {exc}") from exc


def template_from_dict(d: dict[str, Any], source: str = "<dict>", revision: str = "") -> Template:
    table = d["table"]
    columns = tuple(Column(c["label"], c["role"]) for c in table["columns"])
    for c in columns:
        if c.role not in TEXT_ROLES | NUMBER_ROLES:
            raise ValueError(f"column {c.label!r} has unknown role {c.role!r}")
    roles = [c.role for c in columns]
    if roles.count("date") != 1 or roles.count("description") != 1:
        raise ValueError("table needs exactly one date and one description column")
    if not ({"amount"} & set(roles) or {"debit", "credit"} <= set(roles)):
        raise ValueError("table needs an amount column or debit and credit columns")
    locale = d.get("locale", "en")
    if locale not in LOCALES:
        raise ValueError(f"unknown locale {locale!r}")
    for key in ("amount_unsigned", "balance_unsigned"):
        if table.get(key, "credit") not in ("credit", "debit"):
            raise ValueError(f"{key} must be 'credit' or 'debit'")
    fields = dict(d["account"])
    for required in ("opening", "closing"):
        if required not in fields:
            raise ValueError(f"[account] needs a {required!r} pattern")
    detect = d.get("detect", {})
    return Template(
        bank=d["bank"],
        name=d.get("name", d["bank"]),
        currency=d.get("currency", "USD"),
        locale=locale,
        markers=tuple(detect.get("markers", ())),
        min_score=int(detect.get("min_score", len(detect.get("markers", ())))),
        period_pattern=d["period"]["pattern"],
        period_date_format=d["period"]["date_format"],
        fields=fields,
        columns=columns,
        row_date_format=table["date_format"],
        amount_unsigned=table.get("amount_unsigned", "credit"),
        balance_unsigned=table.get("balance_unsigned", "credit"),
        section_start=d.get("sections", {}).get("start"),
        end=tuple(table.get("end", ())),
        skip=tuple(table.get("skip", ())),
        summary=dict(d.get("summary", {})),
        hooks=tuple(d.get("hooks", ())),
        source=source,
        revision=revision,
    )


def template_dirs(extra: Sequence[Path] = ()) -> list[Path]:
    """Built-in templates, then the `extra` directories (`STMTFLOW_TEMPLATES`, say)."""
    return [BUILTIN_DIR, *extra]


def load_templates(dirs: Sequence[Path] | None = None) -> list[Template]:
    """Every template in `dirs` (the built-ins by default); a later directory's template
    replaces an earlier one of the same bank id."""
    by_bank: dict[str, Template] = {}
    for directory in dirs if dirs is not None else template_dirs():
        if not directory.is_dir():
            raise TemplateError(f"template directory {directory} does not exist")
        for path in sorted(directory.glob("*.toml")):
            t = load_template(path)
            by_bank[t.bank] = t
    return list(by_bank.values())
