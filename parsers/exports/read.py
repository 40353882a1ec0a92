"""Which reader reads an export, and the statement it makes of it."""

from __future__ import annotations

from collections.abc import Sequence

from parsers.api import ParseResult
from parsers.errors import UnsupportedFormat
from parsers.exports import sniff as sniffing
from parsers.exports.build import Section, bank_of, build
from parsers.exports.settings import Exports
from parsers.layout.template import Template
from parsers.limits import Limits


def read_export(data: bytes, fmt: str, bank: str | None = None,
                templates: Sequence[Template] = (), exports: Exports | None = None,
                limits: Limits | None = None) -> ParseResult:
    """The validated statement of an export whose format `sniff` named `fmt`."""
    exports = exports or Exports()
    limits = limits or Limits()
    templates = list(templates)
    institution, fallback, notes = "", None, []
    sections: list[Section]
    if fmt == sniffing.OFX:
        from parsers.exports.ofx import read_ofx, reader

        sections, institution, notes = read_ofx(data)
        layout = "ofx"
    elif fmt == sniffing.CAMT:
        from parsers.exports.camt import read_camt, reader

        sections, institution, layout = read_camt(data, limits.max_bytes)
    elif fmt == sniffing.MT940:
        from parsers.exports.swift import read_mt940, reader

        sections, institution = read_mt940(data)
        layout = "mt940"
    elif fmt == sniffing.CSV:
        from parsers.exports.csvread import read_csv

        hinted = next((t for t in templates if t.bank == bank), None)
        sections, csv_template, guessed, institution = read_csv(
            data, exports.csv_templates, hinted.currency if hinted else None)
        fallback = csv_template.bank
        layout = f"csv:{csv_template.name}"
        if guessed:
            notes.append("read by the generic CSV reader (`stmtflow templates suggest FILE` "
                         "prints the template it guessed)")

        def reader() -> str:
            return f"csv template {csv_template.name}" + (
                "" if guessed else f" {csv_template.revision}")
    else:
        raise UnsupportedFormat(f"{fmt} is not a bank export stmtflow reads")
    result = build(sections, bank_of(bank, institution, sections, templates, exports, fallback),
                   {"format": layout, "reader": reader()}, exports, notes)
    return result
