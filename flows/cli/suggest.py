"""`templates suggest FILE`: a template drawn from what the generic reader proved.

The sample is read with no template in force; only a reading that validates (its balances
and every printed running balance agree) is turned into a template: the columns it found,
under the header words printed over them, its date and number conventions. The file is a
starting point to check with `templates check` and edit (identity, markers, bank id).
A CSV export gets the CSV template the generic CSV reader guesses for it (its columns by
their header names, delimiter, decimal mark, date format, order), printed only when the
file then reads under it.
"""

from __future__ import annotations

import argparse
from typing import Any


def cmd_templates_suggest(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.parser import Parser
    from parsers.api import parse_pdf
    from parsers.errors import StatementError
    from parsers.generic.explain import Explanation
    from parsers.generic.suggest import suggest

    parser = Parser.from_settings(Settings.from_env())
    data = args.sample.read_bytes()
    from parsers.exports.sniff import CSV, sniff

    if sniff(data) == CSV:
        return _suggest_csv(data, args.bank)
    try:
        result = parse_pdf(args.sample.read_bytes(), templates=[], reader=parser.reader,
                           limits=parser.limits)
    except StatementError as exc:
        print(f"{exc.reason}: {exc.message}")
        if exc.details:  # what the generic reader found, for a template to be written from
            print("what the generic reader found:")
            for line in Explanation.from_dict(exc.details).lines():
                print(f"  {line}")
        return 1
    if not result.validation.ok:
        print("the generic reading does not validate, so it suggests no template:")
        for problem in result.validation.problems:
            print(f"  {problem}")
        return 1
    how = result.reading().get("table", {})
    if not how.get("columns"):
        print("the statement lists no transaction: nothing to draw a table from")
        return 1
    print(suggest(how, args.bank, first_line(args.sample.read_bytes(), parser)), end="")
    return 0


def first_line(data: bytes, parser: Any) -> str:
    """The first words of the first page (usually the bank's name): the identity to edit."""
    from parsers.pdf.lines import page_lines

    pages = parser.reader.read(data, parser.limits)
    first = next((ln for p in pages for ln in page_lines(p)), None)
    words = []
    for w in first.words if first else []:
        if len(words) == 3 or any(ch.isdigit() for ch in w.text):
            break
        words.append(w.text)
    return " ".join(words)


def _suggest_csv(data: bytes, bank: str | None) -> int:
    """Print the CSV template the generic CSV reader reads `data` with."""
    from dataclasses import replace

    from parsers.errors import StatementError
    from parsers.exports.csvread import guess_template, read_csv

    try:
        template = guess_template(data)
        read_csv(data, [], template.currency)
    except StatementError as exc:
        print(f"{exc.reason}: {exc.message}")
        return 1
    print(replace(template, name=bank or "my-bank-csv", bank=bank).to_toml(), end="")
    return 0
