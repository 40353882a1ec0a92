"""The book export's wiring: which banks are cards, and the formats the command offers."""

from __future__ import annotations

import pytest

from flows.book_exports import card_banks
from flows.cli import parser
from parsers.layout.template import load_templates
from reconcile.exports import FORMATS


def test_a_bank_whose_template_checks_a_card_summary_is_a_card() -> None:
    templates = load_templates()
    assert card_banks(templates) == {"harbor"}
    plain = next(t for t in templates if t.bank == "northwind")
    assert card_banks([plain]) == frozenset()


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_book_export_offers_every_format(fmt: str) -> None:
    args = parser().parse_args(["book", "export", "--format", fmt, "--include-unreviewed"])
    assert (args.format, args.include_unreviewed) == (fmt, True)
