"""The parser in force: templates, page reader and limits from `Settings`, and what they pin.

Built once at the edge and handed down, so that what a job pins (`identities`) is computed
from the very templates and reader object that parse it, and every list of banks (the CLI,
the deployments, the tests) is the templates' banks.
"""

from __future__ import annotations

from dataclasses import dataclass

from flows.config import Settings
from parsers.api import ParseResult, chain_revision, page_reader, parse_pdf
from parsers.limits import Limits
from parsers.ocr import engine_identity
from parsers.reader import PageReader
from parsers.template import Template, load_templates, template_dirs
from parsers.validate import POLICY_REVISION
from reconcile.records import Identities


@dataclass(frozen=True)
class Parser:
    templates: list[Template]
    reader: PageReader
    limits: Limits

    @classmethod
    def from_settings(cls, settings: Settings) -> Parser:
        return cls(load_templates(template_dirs(settings.template_dirs)),
                   page_reader(settings.reader), settings.limits)

    @property
    def banks(self) -> list[str]:
        """The banks the templates in force describe."""
        return sorted(t.bank for t in self.templates)

    def parse(self, data: bytes, bank: str | None = None) -> ParseResult:
        return parse_pdf(data, bank=bank, templates=self.templates, reader=self.reader,
                         limits=self.limits)

    def identities(self) -> Identities:
        """What a job accepted now pins, and what a worker must run to take it."""
        return Identities(chain_revision(self.templates, self.reader), engine_identity(),
                          POLICY_REVISION)
