"""Every document the README, the docs and the code outside the parser cite is there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "benchmarks" / "README.md",
         *sorted((ROOT / "docs").glob("*.md"))]
ROOMS = ("corpus", "reconcile", "flows", "deployments", "benchmarks")


def test_links_in_the_readme_and_docs_resolve() -> None:
    missing = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)} -> {target}")
    assert missing == []


def test_documents_cited_in_code_exist() -> None:
    missing = []
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            for cited in re.findall(r"[\w./-]+\.md\b", path.read_text()):
                if not (ROOT / cited).exists():
                    missing.append(f"{path.relative_to(ROOT)} -> {cited}")
    assert missing == []


def test_the_layout_table_names_every_top_level_room() -> None:
    table = ROOT.joinpath("README.md").read_text().split("## Project layout", 1)[1]
    rooms = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms and all(f"`{room}/`" in table for room in rooms)
