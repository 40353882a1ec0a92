"""Commands about bank templates: list them, check one against a sample and show its work.

`templates check T.toml S.pdf` loads the template on its own (every fault named with file,
line and key), reads the sample the way an import would, and prints what the engine saw:
each line with how it was read (header and its column spans, rows and their readings,
continuations, balance rows, furniture), the figures found and where, every problem with the
text of its row, and, with `--expected S.json`, every difference from a statement written by
hand (a golden file), so a bank's template can be kept and tested with its samples.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
from pathlib import Path
from typing import Any


def cmd_templates_list(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.parser import Parser

    for t in sorted(Parser.from_settings(Settings.from_env()).templates, key=lambda t: t.bank):
        print(f"{t.bank:<12} {t.name:<28} {t.source}")
    return 0


def cmd_templates_check(args: argparse.Namespace) -> int:
    """Run one template over a sample, with the page reader and limits in force, and show how
    every line was read. Exit 0 when the sample validates (and matches `--expected`), 1
    otherwise."""
    from flows.config import Settings
    from flows.parser import Parser
    from parsers.api import parse_pdf
    from parsers.errors import StatementError
    from parsers.layout.detect import DETECT_PAGES, identified, score
    from parsers.layout.template import load_template
    from parsers.pdf.lines import page_lines

    t = load_template(args.template)
    parser = dataclasses.replace(Parser.from_settings(Settings.from_env()), templates=[t])
    data = args.sample.read_bytes()
    pages = parser.reader.read(data, parser.limits)
    lines = [ln for p in pages for ln in page_lines(p)]
    head = "\n".join(ln.text for ln in lines if ln.page <= DETECT_PAGES)
    print(f"template {t.bank} ({t.source})")
    print(f"  identity {'found' if identified(t, head) else 'NOT FOUND'}: "
          f"{' / '.join(t.identity)}")
    print(f"  markers {score(t, head)}/{len(t.markers)} found, {t.min_score} needed")
    try:
        result = parse_pdf(data, bank=t.bank, templates=[t], reader=_Pages(pages),
                           limits=parser.limits)
    except StatementError as exc:
        _show_lines(_diagnose(t, lines))
        print(f"\n{exc.reason}: {exc.message}")
        return 1
    _show_lines(result.tables)
    _show_accounts(result)
    ok = result.validation.ok and result.layout == t.bank
    print(f"\nresult: {'validated' if ok else 'NEEDS REVIEW'}, "
          f"{result.statement.transaction_count} transactions")
    if args.expected is not None:
        differences = compare(result.statement.to_dict(), _expected(args.expected, t.bank))
        print(f"expected {args.expected}: "
              f"{'matches' if not differences else f'{len(differences)} differences'}")
        for d in differences[:50]:
            print(f"  {d}")
        ok = ok and not differences
    return 0 if ok else 1


class _Pages:
    """A page reader that hands back pages already read (a scan is OCRed once)."""

    def __init__(self, pages: list) -> None:
        self._pages = pages

    def read(self, data: bytes, limits: Any) -> list:
        return self._pages


def _diagnose(t: Any, lines: list) -> list:
    """The table readings of a template that stopped part-way, as far as it got."""
    from parsers.errors import StatementError
    from parsers.layout.engine import run_template
    from parsers.layout.outcome import TemplateMismatch

    trace: list = []
    with contextlib.suppress(TemplateMismatch, StatementError):
        run_template(t, lines, trace)
    return trace


def _show_lines(tables: list) -> None:
    for n, reading in enumerate(tables, start=1):
        print(f"\nsection {n}: lines as read (page, role, text | reading)")
        for ln, role, detail in reading.log:
            text = ln.text if len(ln.text) <= 72 else ln.text[:69] + "..."
            print(f"  p{ln.page:<3} {role:<12} {text}" + (f"  | {detail}" if detail else ""))
        for p in reading.problems:
            print(f"  PROBLEM {p}")


def _show_accounts(result: Any) -> None:
    from parsers.model import mask_account

    for i, (a, r) in enumerate(zip(result.statement.accounts, result.readings, strict=True),
                               start=1):
        print(f"\naccount {i} {mask_account(a.account_last4)} {a.currency}: opening "
              f"{a.opening_balance}"
              f", closing {a.closing_balance}, {len(a.transactions)} transactions")
        for name, where in r.found.items():
            print(f"  {name}: {where}")
        for name, how in r.derived.items():
            print(f"  {name} derived from {how}")
    for note in result.notes:
        print(f"  note: {note}")
    for p in result.validation.problems:
        print(f"  PROBLEM {p}")
    for p in result.validation.repairs:
        print(f"  repair: {p}")
    for p in result.validation.trusted:
        print(f"  trusted: {p}")


def _expected(path: Path, bank: str) -> dict:
    """A golden file: the normalised statement (`bank` may be left out)."""
    data = json.loads(path.read_text())
    return {"bank": bank, **data}


def compare(got: Any, expected: Any, path: str = "") -> list[str]:
    """Every difference between a statement read and the one expected, by path."""
    if isinstance(expected, dict) and isinstance(got, dict):
        out = []
        for key in expected.keys() | got.keys():
            where = f"{path}.{key}" if path else key
            if key not in got:
                out.append(f"{where}: missing, expected {expected[key]!r}")
            elif key not in expected:
                out.append(f"{where}: not expected, got {got[key]!r}")
            else:
                out += compare(got[key], expected[key], where)
        return sorted(out)
    if isinstance(expected, list) and isinstance(got, list):
        out = [d for i, (g, e) in enumerate(zip(got, expected, strict=False))
               for d in compare(g, e, f"{path}[{i}]")]
        if len(got) != len(expected):
            out.append(f"{path}: {len(got)} entries, expected {len(expected)}")
        return out
    return [] if got == expected else [f"{path}: got {got!r}, expected {expected!r}"]
