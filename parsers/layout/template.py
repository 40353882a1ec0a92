"""Declarative bank templates: a bank is a TOML file, not a parser.

A template says how to recognise the bank (its name and markers), how its period, account
number and balances are labelled (labels added to the shared vocabulary, or a regex for the
odd bank), how its table is laid out (header labels and column roles, alternatives) and its
conventions (number locale, date formats, sign of unsigned figures, sections, page
furniture). Code a layout truly needs is a named hook (see `hooks.py`). A template is
checked whole when it is loaded: an unknown key, a value of the wrong type, a regex that does
not compile or an unknown hook is a `TemplateError` naming the file, the line and the key.
docs/templates.md describes every key.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from parsers.dates import compile_format, date_pattern, fold, is_month, parse_date
from parsers.layout.hooks import HOOKS
from parsers.numbers import LOCALES, amount_pattern

BUILTIN_DIR = Path(__file__).parent.parent / "templates"
TEXT_ROLES = {"date", "description", "ignore"}
NUMBER_ROLES = {"debit", "credit", "amount", "balance"}
SIGNS = ("credit", "debit")
ALIGNS = ("left", "right", "center")


class TemplateError(ValueError):
    """A template file that cannot be used, with the file, position and key at fault."""


@dataclass(frozen=True)
class Column:
    #: Header labels, any of which names the column; empty for a column without a header
    #: (placed by `x`).
    labels: tuple[str, ...]
    role: str
    #: Which edge of the header its figures line up with; None: whichever is nearest.
    align: str | None = None
    #: An explicit x-range (points) that the column's words fall in.
    x: tuple[float, float] | None = None
    #: The column may be printed without its label (it is then placed by its neighbours).
    optional: bool = False

    @property
    def label(self) -> str:
        return self.labels[0] if self.labels else ""


@dataclass(frozen=True)
class Field:
    """How one figure is found: labels (added to the vocabulary's) or a regex."""

    labels: tuple[str, ...] = ()
    pattern: str | None = None


@dataclass(frozen=True)
class Template:
    bank: str
    name: str
    currency: str
    locale: str
    identity: tuple[str, ...]
    #: the bank's BICs (SWIFT codes): what names it in its MT940 and CAMT exports
    bics: tuple[str, ...]
    markers: tuple[str, ...]
    min_score: int
    period_formats: tuple[str, ...]
    layouts: tuple[tuple[Column, ...], ...]
    row_date_formats: tuple[str, ...]
    period_pattern: str | None = None
    period_labels: tuple[str, ...] = ()
    period_end_labels: tuple[str, ...] = ()
    last4: Field = Field()
    opening: Field = Field()
    closing: Field = Field()
    summary: dict[str, Field] = field(default_factory=dict)
    carry_date: bool = False
    value_date_line: bool = False
    amount_unsigned: str = "credit"
    balance_unsigned: str = "credit"
    section_start: str | None = None
    end: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    #: Regexes of the lines that print a section's total: its figure must be what the
    #: section's rows add up to.
    totals: tuple[str, ...] = ()
    furniture: tuple[str, ...] = ()
    headings: dict[str, str] = field(default_factory=dict)
    #: Headings of a table of day-end balances printed apart from the transactions, and
    #: the format of its dates: each balance is checked against the transactions.
    daily_headings: tuple[str, ...] = ()
    daily_date_formats: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()
    source: str = "<generated>"
    revision: str = ""

    @functools.cached_property
    def header_words(self) -> frozenset[str]:
        """Every word of every header label, as `header_words()` normalises it."""
        return frozenset(w for layout in self.layouts for c in layout for lb in c.labels
                         for w in header_words(lb))

    @property
    def columns(self) -> tuple[Column, ...]:
        """The main table layout (the first of `layouts`)."""
        return self.layouts[0]

    def expand(self, pattern: str) -> str:
        """A template regex with `{AMOUNT}` and `{DATE}` replaced by what they stand for."""
        dates = (*self.period_formats, *self.row_date_formats)
        return (pattern.replace("{AMOUNT}", amount_pattern(self.locale))
                .replace("{DATE}", date_pattern(dates)))


#: What a header word is stripped of (spaces stay, to split the words at).
_NOT_LABEL = re.compile(r"[^\w#\s]")
#: The ASCII characters `_NOT_LABEL` matches, as bytes to delete (most text is ASCII, and
#: `bytes.translate` deletes them several times faster than `str.translate` or the regex).
_NOT_LABEL_ASCII = bytes(c for c in range(128) if _NOT_LABEL.fullmatch(chr(c)))


def header_words(text: str) -> list[str]:
    """The words of a header as labels are compared: folded, punctuation dropped."""
    return folded_header_words(fold(text))


def folded_header_words(folded: str) -> list[str]:
    """`header_words` of text already `fold`ed (a line's `folded`)."""
    return unmarked(folded).split()


def unmarked(folded: str) -> str:
    """`folded` text without what a header word is stripped of, its spaces and line breaks
    kept: `folded_header_words` before the split (of many lines joined, one a row, it is
    their texts' own, joined)."""
    if folded.isascii():
        return folded.encode("ascii").translate(None, _NOT_LABEL_ASCII).decode("ascii")
    return _NOT_LABEL.sub("", folded)


# --- the schema -------------------------------------------------------------------------

Str, Bool, Int, Num = "a string", "true or false", "an integer", "a number"
StrList, Labels = "a list of strings", "a regex string or a list of labels"
Formats = "a date format or a list of them"
_COLUMN = {"label": "a label or a list of labels", "role": Str, "align": Str,
           "x": "[x0, x1]", "optional": Bool}
SCHEMA: dict[str, Any] = {
    "bank": Str, "name": Str, "currency": Str, "locale": Str, "hooks": StrList,
    "detect": {"identity": StrList, "markers": StrList, "min_score": Int, "bic": StrList},
    "period": {"date_format": Formats, "pattern": Str, "labels": StrList,
               "end_labels": StrList},
    "account": {"last4": Labels, "opening": Labels, "closing": Labels},
    "summary": {"*": Labels},
    "sections": {"start": Str},
    "daily_balances": {"headings": StrList, "date_format": Formats},
    "table": {"columns": [_COLUMN], "date_format": Formats, "carry_date": Bool,
              "value_date_line": Bool,
              "amount_unsigned": Str, "balance_unsigned": Str, "end": StrList,
              "skip": StrList, "totals": StrList, "furniture": StrList, "headings": {"*": Str},
              "alternatives": [{"columns": [_COLUMN]}]},
}


class _Checker:
    """Walks a template's data against `SCHEMA`, reporting the first fault with its place."""

    def __init__(self, source: str, text: str) -> None:
        self.source, self.text = source, text

    def fail(self, path: Sequence[str | int], problem: str) -> TemplateError:
        line, col = _locate(self.text, path)
        where = f"{self.source}:{line}:{col}" if line else self.source
        return TemplateError(f"{where}: {_dotted(path)}: {problem}")

    def walk(self, data: Any, schema: Any, path: list[str | int]) -> None:
        if isinstance(schema, dict):
            if not isinstance(data, dict):
                raise self.fail(path, "must be a table")
            for key, value in data.items():
                sub = schema.get(key, schema.get("*"))
                if sub is None:
                    known = ", ".join(k for k in schema if k != "*")
                    raise self.fail([*path, key], f"unknown key (known here: {known})")
                self.walk(value, sub, [*path, key])
        elif isinstance(schema, list):
            if not isinstance(data, list):
                raise self.fail(path, "must be a list")
            for i, item in enumerate(data):
                self.walk(item, schema[0], [*path, i])
        elif not _has_type(data, schema):
            raise self.fail(path, f"must be {schema}, not {data!r}")


def _has_type(value: Any, kind: str) -> bool:
    strings = isinstance(value, list) and all(isinstance(v, str) for v in value)
    return {
        Str: isinstance(value, str), Bool: isinstance(value, bool),
        Int: isinstance(value, int) and not isinstance(value, bool),
        StrList: strings, Labels: isinstance(value, str) or strings,
        Formats: isinstance(value, str) or (strings and bool(value)),
        _COLUMN["label"]: isinstance(value, str) or strings,
        "[x0, x1]": (isinstance(value, list) and len(value) == 2
                     and all(isinstance(v, int | float) for v in value)
                     and value[0] < value[1]),
    }[kind]


def _dotted(path: Sequence[str | int]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "template"


def _locate(text: str, path: Sequence[str | int]) -> tuple[int, int]:
    """Line and column (1-based) where `path` is written in the TOML text, best effort."""
    pos = 0
    keys = [p for p in path if isinstance(p, str)]
    for depth in range(len(keys), 0, -1):
        header = r"\.".join(re.escape(k) for k in keys[:depth])
        m = re.search(rf"^\s*\[\[?\s*{header}\s*\]\]?\s*$", text, re.MULTILINE)
        if m:
            pos = m.end()
            path = path[_index_after(path, keys[depth - 1]):]
            break
    for p in path:
        if isinstance(p, int):
            for _ in range(p + 1):
                nxt = re.compile(r"\{|^\s*\[\[", re.MULTILINE).search(text, pos)
                if nxt is None:
                    break
                pos = nxt.end()
        else:
            m = re.compile(rf"""(?:^|[{{,\s])["']?{re.escape(p)}["']?\s*=""",
                           re.MULTILINE).search(text, pos)
            if m is None:
                break
            pos = m.start() + len(m.group(0)) - len(m.group(0).lstrip("{, \t\n"))
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _index_after(path: Sequence[str | int], key: str) -> int:
    for i, p in enumerate(path):
        if p == key:
            return i + 1
    return 0


# --- loading ----------------------------------------------------------------------------

def load_template(path: Path) -> Template:
    """The template in `path`. Bytes already parsed are not parsed again: checking a
    template costs milliseconds, and a caller that reloads a folder (a changed user template
    is seen by its next load) asks for every template in it again."""
    return _parsed(str(path), path.read_bytes())


@functools.lru_cache(maxsize=64)
def _parsed(path: str, raw: bytes) -> Template:
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TemplateError(f"{path}: {exc}") from exc
    return template_from_dict(data, source=path,
                              revision=hashlib.sha256(raw).hexdigest()[:12], text=text)


def template_from_dict(d: dict[str, Any], source: str = "<dict>", revision: str = "",
                       text: str = "") -> Template:
    """Check `d` against the template language and build the template it describes."""
    check = _Checker(source, text)
    check.walk(d, SCHEMA, [])
    for key in ("bank", "table", "period"):
        if key not in d:
            raise check.fail([], f"needs [{key}]" if key != "bank" else "needs `bank`")
    bank = d["bank"]
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", bank):
        raise check.fail(["bank"], "must be lower-case letters, digits, '-' or '_'")
    locale = d.get("locale", "en")
    if locale not in LOCALES:
        raise check.fail(["locale"], f"unknown locale {locale!r} (known: {', '.join(LOCALES)})")
    for h in d.get("hooks", ()):
        if h not in HOOKS:
            raise check.fail(["hooks"], f"unknown hook {h!r} (known: {', '.join(HOOKS)})")
    table, period = d["table"], d["period"]
    for key, where in (("date_format", table), ("date_format", period)):
        if key not in where:
            raise check.fail(["table" if where is table else "period"], f"needs {key}")
    row_formats = _formats(check, table["date_format"], ["table", "date_format"])
    if any(is_month(f) for f in row_formats):
        raise check.fail(["table", "date_format"], "a row's date needs a day (%d)")
    period_formats = _formats(check, period["date_format"], ["period", "date_format"])
    layouts = [_layout(check, table.get("columns"), ["table", "columns"])]
    for i, alt in enumerate(table.get("alternatives", ())):
        layouts.append(_layout(check, alt.get("columns"), ["table", "alternatives", i,
                                                           "columns"]))
    for key in ("amount_unsigned", "balance_unsigned"):
        if table.get(key, "credit") not in SIGNS:
            raise check.fail(["table", key], "must be 'credit' or 'debit'")
    for label, sign in table.get("headings", {}).items():
        if sign not in SIGNS:
            raise check.fail(["table", "headings", label], "must be 'credit' or 'debit'")
    detect = d.get("detect", {})
    markers = tuple(detect.get("markers", ()))
    min_score = detect.get("min_score", len(markers))
    if not 0 <= min_score <= len(markers):
        raise check.fail(["detect", "min_score"], f"must be 0..{len(markers)}")
    name = d.get("name", bank)
    t = Template(
        bank=bank,
        name=name,
        currency=d.get("currency", "USD").upper(),
        locale=locale,
        identity=tuple(detect.get("identity", (name,))),
        bics=tuple(b.upper() for b in detect.get("bic", ())),
        markers=markers,
        min_score=min_score,
        period_formats=period_formats,
        layouts=tuple(layouts),
        row_date_formats=row_formats,
        period_pattern=period.get("pattern"),
        period_labels=tuple(period.get("labels", ())),
        period_end_labels=tuple(period.get("end_labels", ())),
        last4=_field(d.get("account", {}).get("last4")),
        opening=_field(d.get("account", {}).get("opening")),
        closing=_field(d.get("account", {}).get("closing")),
        summary={k: _field(v) for k, v in d.get("summary", {}).items()},
        carry_date=table.get("carry_date", False),
        value_date_line=table.get("value_date_line", False),
        amount_unsigned=table.get("amount_unsigned", "credit"),
        balance_unsigned=table.get("balance_unsigned", "credit"),
        section_start=d.get("sections", {}).get("start"),
        end=tuple(table.get("end", ())),
        skip=tuple(table.get("skip", ())),
        totals=tuple(table.get("totals", ())),
        furniture=tuple(table.get("furniture", ())),
        headings=dict(table.get("headings", {})),
        daily_headings=tuple(d.get("daily_balances", {}).get("headings", ())),
        daily_date_formats=_formats(check, d.get("daily_balances", {}).get(
            "date_format", table["date_format"]), ["daily_balances", "date_format"]),
        hooks=tuple(d.get("hooks", ())),
        source=source,
        revision=revision,
    )
    _check_patterns(check, t, d)
    return t


def _field(value: str | list[str] | None) -> Field:
    if value is None:
        return Field()
    return Field(pattern=value) if isinstance(value, str) else Field(labels=tuple(value))


def _formats(check: _Checker, value: str | list[str], path: list[str | int]) -> tuple[str, ...]:
    formats = (value,) if isinstance(value, str) else tuple(value)
    for f in formats:
        try:
            compile_format(f)
        except ValueError as exc:
            raise check.fail(path, str(exc)) from exc
    sample = date(2026, 3, 4)  # day and month tell apart, so a clash shows
    for a, b in itertools.permutations(formats, 2):
        printed = sample.strftime(a).replace("%", "")
        try:
            other = parse_date(printed, b, date(2026, 12, 31))
        except ValueError:
            continue
        if other != sample:
            raise check.fail(path, f"{a!r} and {b!r} read {printed!r} as different dates")
    return formats


def _layout(check: _Checker, columns: list[dict] | None, path: list[str | int]
            ) -> tuple[Column, ...]:
    if not columns:
        raise check.fail(path, "needs at least the date, description and amount columns")
    out = []
    for i, c in enumerate(columns):
        where = [*path, i]
        if "role" not in c:
            raise check.fail(where, "needs a role")
        if c["role"] not in TEXT_ROLES | NUMBER_ROLES:
            raise check.fail([*where, "role"], f"unknown role {c['role']!r} (roles: "
                             f"{', '.join(sorted(TEXT_ROLES | NUMBER_ROLES))})")
        if c.get("align") is not None and c["align"] not in ALIGNS:
            raise check.fail([*where, "align"], f"must be one of {', '.join(ALIGNS)}")
        labels = (c["label"],) if isinstance(c.get("label"), str) else tuple(c.get("label", ()))
        if not labels and "x" not in c:
            raise check.fail(where, "needs a label or an x-range")
        if any(not lb.strip() for lb in labels):
            raise check.fail([*where, "label"], "a label cannot be empty")
        x = tuple(c["x"]) if "x" in c else None
        out.append(Column(labels, c["role"], c.get("align"), x,  # type: ignore[arg-type]
                          c.get("optional", False)))
    roles = [c.role for c in out]
    if roles.count("date") != 1 or roles.count("description") != 1:
        raise check.fail(path, "needs exactly one date and one description column")
    if not ("amount" in roles or {"debit", "credit"} <= set(roles)):
        raise check.fail(path, "needs an amount column, or debit and credit columns")
    return tuple(out)


def _check_patterns(check: _Checker, t: Template, d: dict[str, Any]) -> None:
    """Every regex compiles, and each captures what its key reads."""
    regexes: list[tuple[list[str | int], str, str | None]] = []
    if t.period_pattern:
        regexes.append((["period", "pattern"], t.period_pattern, "end"))
    for name in ("last4", "opening", "closing"):
        f = getattr(t, name)
        if f.pattern:
            regexes.append((["account", name], f.pattern, name))
    for name, f in t.summary.items():
        if f.pattern:
            regexes.append((["summary", name], f.pattern, name))
    if t.section_start:
        regexes.append((["sections", "start"], t.section_start, None))
    for key in ("end", "skip", "totals"):
        for i, p in enumerate(d["table"].get(key, ())):
            regexes.append((["table", key, i], p, None))
    for path, pattern, group in regexes:
        try:
            compiled = re.compile(t.expand(pattern), re.IGNORECASE)
        except re.error as exc:
            raise check.fail(path, f"bad regex {pattern!r}: {exc.msg} at position "
                             f"{exc.pos}") from exc
        if group and group not in compiled.groupindex and compiled.groups == 0:
            raise check.fail(path, f"regex {pattern!r} needs a group (?P<{group}>...)")
        if path == ["period", "pattern"] and "end" not in compiled.groupindex:
            raise check.fail(path, "needs a group (?P<end>...) (and (?P<start>...))")


def template_dirs(extra: Sequence[Path] = (), builtin: bool = True) -> list[Path]:
    """Built-in templates (unless `builtin` is off), then the `extra` directories
    (`STMTFLOW_TEMPLATES`, say)."""
    return [BUILTIN_DIR, *extra] if builtin else list(extra)


def load_templates(dirs: Sequence[Path] | None = None) -> list[Template]:
    """Every template in `dirs` (the built-ins by default); a later directory's template
    replaces an earlier one of the same bank id."""
    by_bank: dict[str, Template] = {}
    for directory in dirs if dirs is not None else template_dirs():
        if not directory.is_dir():
            raise TemplateError(f"template directory {directory} does not exist")
        for path in sorted(directory.glob("*.toml")):
            if path.name.endswith(".csv.toml"):  # a CSV export's (parsers/exports/)
                continue
            t = load_template(path)
            by_bank[t.bank] = t
    return list(by_bank.values())
