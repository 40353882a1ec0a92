"""Commands about bank templates: list them, check one against a sample."""

from __future__ import annotations

import argparse
import json


def cmd_templates_list(args: argparse.Namespace) -> int:
    from parsers.template import load_templates

    for t in sorted(load_templates(), key=lambda t: t.bank):
        print(f"{t.bank:<12} {t.name:<28} {t.source}")
    return 0


def cmd_templates_check(args: argparse.Namespace) -> int:
    """Load a template on its own and run it over a sample: what matched, what it read."""
    from parsers.api import parse_pdf
    from parsers.detect import score
    from parsers.errors import StatementError
    from parsers.limits import Limits
    from parsers.lines import page_lines
    from parsers.ocr import ocr_page
    from parsers.reader import PdfplumberReader
    from parsers.template import load_template

    t = load_template(args.template)
    data = args.sample.read_bytes()
    pages = PdfplumberReader(ocr_page).read(data, Limits.from_env())
    text = "\n".join(ln.text for p in pages[:2] for ln in page_lines(p))
    print(f"template {t.bank} ({t.source}): markers {score(t, text)}/{len(t.markers)} found, "
          f"{t.min_score} needed")
    try:
        result = parse_pdf(data, bank=t.bank, templates=[t])
    except StatementError as exc:
        print(f"  {exc.reason}: {exc.message}")
        return 1
    print(json.dumps(result.to_dict(), indent=1))
    return 0 if result.validation.ok and result.layout == t.bank else 1
