"""One entry for any file an import is given: a PDF statement or a bank export.

What the file is, its content decides (`exports.sniff`), never its name: a PDF goes to
`api.parse_pdf`, an export to its reader (`exports.read_export`); a file that is neither is
`not_pdf`, and a bank format stmtflow does not read `unsupported_format`.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.api import ParseResult, builtin_templates, parse_pdf
from parsers.errors import EmptyFile, TooLarge, UnsupportedFormat
from parsers.exports.read import read_export
from parsers.exports.settings import Exports
from parsers.exports.sniff import sniff
from parsers.layout.template import Template
from parsers.limits import Limits
from parsers.pdf.page import PageReader


def parse_file(data: bytes, bank: str | None = None, templates: list[Template] | None = None,
               reader: PageReader | None = None, limits: Limits | None = None,
               passwords: Sequence[str] = (), exports: Exports | None = None) -> ParseResult:
    """`parse_pdf` for a PDF (and anything unrecognised, which it refuses), the export's
    reader for a bank export."""
    limits = limits or Limits()
    if not data:
        raise EmptyFile("the file is empty (0 bytes)")
    if len(data) > limits.max_bytes:
        raise TooLarge(f"{len(data)} bytes is over the limit of {limits.max_bytes}")
    kind = sniff(data)
    if kind is None or kind == "pdf":
        return parse_pdf(data, bank, templates, reader, limits, passwords)
    if kind.startswith("unsupported:"):
        raise UnsupportedFormat(f"a {kind.split(':', 1)[1]} file: not a format stmtflow reads")
    templates = builtin_templates() if templates is None else templates
    return read_export(data, kind, bank, templates, exports, limits)
