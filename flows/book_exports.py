"""Wiring for the book's exports: the book's records, the templates in force, the names.

The templates are the caller's (`flows.parser.Parser`, built from `Settings`). No Prefect
here, so the Beancount importer can share it without starting an orchestrator.
"""

from __future__ import annotations

from pathlib import Path

from parsers.layout.template import Template
from reconcile.book import Book
from reconcile.exports import AccountNames, BookExport, render


def card_banks(templates: list[Template]) -> frozenset[str]:
    """Banks whose statements are a card's: their template checks a card summary."""
    return frozenset(t.bank for t in templates if "card_summary" in t.hooks)


def account_names(accounts_file: Path | None, templates: list[Template]) -> AccountNames:
    return AccountNames.load(accounts_file, card_banks(templates))


def export_book(book: Book, fmt: str, templates: list[Template],
                account_last4: str | None = None, accounts_file: Path | None = None,
                include_unreviewed: bool = False) -> bytes:
    """The book in `fmt`; verified transactions and statements only unless asked."""
    data = BookExport(book.records(account_last4, include_unreviewed),
                      book.balances(account_last4, include_unreviewed),
                      account_names(accounts_file, templates))
    return render(fmt, data)
