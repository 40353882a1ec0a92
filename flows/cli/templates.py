"""Commands about bank templates: list them, check one against a sample."""

from __future__ import annotations

import argparse
import dataclasses
import json


def cmd_templates_list(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.parser import Parser

    for t in sorted(Parser.from_settings(Settings.from_env()).templates, key=lambda t: t.bank):
        print(f"{t.bank:<12} {t.name:<28} {t.source}")
    return 0


def cmd_templates_check(args: argparse.Namespace) -> int:
    """Load a template on its own and run it over a sample, with the page reader and limits
    in force: what matched, what it read."""
    from flows.config import Settings
    from flows.parser import Parser
    from parsers.detect import DETECT_PAGES, score
    from parsers.errors import StatementError
    from parsers.lines import page_lines
    from parsers.template import load_template

    t = load_template(args.template)
    parser = dataclasses.replace(Parser.from_settings(Settings.from_env()), templates=[t])
    data = args.sample.read_bytes()
    pages = parser.reader.read(data, parser.limits)
    text = "\n".join(ln.text for p in pages[:DETECT_PAGES] for ln in page_lines(p))
    print(f"template {t.bank} ({t.source}): markers {score(t, text)}/{len(t.markers)} found, "
          f"{t.min_score} needed")
    try:
        result = parser.parse(data, bank=t.bank)
    except StatementError as exc:
        print(f"  {exc.reason}: {exc.message}")
        return 1
    print(json.dumps(result.to_dict(), indent=1))
    return 0 if result.validation.ok and result.layout == t.bank else 1

