"""`python -m benchmarks stages`: where `parse_pdf`'s time goes, per stage and per corpus.

Each corpus is parsed in this process with every stage of `parsers.api` timed where it is
called: the checks before reading (`preflight`), reading the pages (`pages`, OCR included),
the lines made of them (`lines`), layout detection (`detect`), a template's reading
(`template`), the generic reader with its readings' validation (`generic`) and the second
library's reading of the figures (`crosscheck`). Each is given in ms per page and as a
multiple of the plain PDFium text floor measured in the same run on the same files
(`readers.floor`), for our own statements, statements of known layouts drawn by another
producer (`corpus/lookalikes.py`) and the real statements of `../shared/realworld/`
(text pages only: a scan's time is OCR's, measured by `scans`, and so is a scan's that
carries a text layer).
"""

from __future__ import annotations

import contextlib
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from benchmarks import corpora
from benchmarks.readers import best, floor
from benchmarks.realworld import DEFAULT_DIR
from corpus import draw_for
from corpus.lookalikes import LOOKALIKES
from parsers import api
from parsers.errors import StatementError
from parsers.limits import Limits
from parsers.pdf.pdfium_reader import PdfiumReader

#: (name in the table, the object in `parsers.api`, its attribute)
STAGES: list[tuple[str, Any, str]] = [
    ("preflight", api, "check_bytes"), ("preflight", api, "unlock"),
    ("preflight", api, "inspect_streams"), ("pages", api, "_read_pages"),
    ("lines", api, "page_lines"), ("lines", api, "lift_suffixes"),
    ("detect", api, "detect"), ("template", api, "_read"),
    ("generic", api, "parse_generic"), ("crosscheck", api._PagesRead, "disagreements")]


@contextlib.contextmanager
def timed(spent: dict[str, float]) -> Iterator[None]:
    """Every stage wrapped to add its own time (not its callers') to `spent`."""
    stack: list[float] = []  # time taken by stages called within the one running

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def stage(*args: Any, **kwargs: Any) -> Any:
            stack.append(0.0)
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                took = time.perf_counter() - started
                inner = stack.pop()
                spent[name] += took - inner
                if stack:
                    stack[-1] += took
        return stage

    real = [(owner, attr, getattr(owner, attr)) for _, owner, attr in STAGES]
    try:
        for (name, owner, attr), (_, _, fn) in zip(STAGES, real, strict=True):
            setattr(owner, attr, wrap(name, fn))
        yield
    finally:
        for owner, attr, fn in real:
            setattr(owner, attr, fn)


def profile(files: list[bytes], pages: int) -> dict[str, float]:
    """ms per page of each stage, the whole parse and the floor (best of a few rounds)."""
    spent: dict[str, float] = defaultdict(float)

    def parse_all() -> None:
        for data in files:
            with contextlib.suppress(StatementError):
                api.parse_pdf(data)

    whole = best({"floor": lambda: floor(files), "parse": parse_all}, rounds=2)
    with timed(spent):
        parse_all()
    out = {name: 1000 * s / pages for name, s in spent.items()}
    out["parse_pdf (whole)"] = 1000 * whole["parse"] / pages
    out["floor"] = 1000 * whole["floor"] / pages
    return out


def _pages(data: bytes) -> int:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    try:
        return len(doc)
    finally:
        doc.close()


class _Scanned(Exception):
    """A page the reader would read by OCR."""


def _ocr_refused(*_: object) -> NoReturn:
    raise _Scanned


def _text_pdfs(files: list[Path]) -> list[bytes]:
    """The statements whose every page is read from its text layer (a scan's time is OCR's,
    a text layer over a scan included): the reader is asked to OCR nothing."""
    reader = PdfiumReader(ocr=_ocr_refused)
    out = []
    for pdf in files:
        data = pdf.read_bytes()
        try:
            pages = reader.read(data, Limits())
        except (_Scanned, StatementError):
            continue
        if any(p.words for p in pages):
            out.append(data)
    return out


def run(statements: int, seed: int, folder: Path | None = None) -> None:
    corpora_files = {
        "our own statements (text)": _text_pdfs([s.pdf for s in corpora.plain(statements,
                                                                                seed)]),
        "known layouts, another producer": [
            render(draw_for(i, random.Random(f"{bank}-{seed}-{i}"), False)).pdf
            for i in range(max(1, statements // 10)) for bank, render in LOOKALIKES.items()],
        "real statements (text)": _text_pdfs(sorted((folder or DEFAULT_DIR).glob("*.pdf"))),
    }
    for title, files in corpora_files.items():
        if not files:
            continue
        pages = sum(map(_pages, files))
        ms = profile(files, pages)
        base = ms.pop("floor")
        print(f"{title}: {len(files)} files, {pages} pages; the PDFium text floor "
              f"{base:.2f} ms/page")
        for name, value in sorted(ms.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<18} {value:8.2f} ms/page  {value / base:6.2f}x the floor")
