"""What a job pins of the parser: the chain revision (this package's code, the page reader,
the templates) and the OCR engine's identity.

Apart from the parser on purpose: the process that accepts an import's jobs and hands their
files to parse workers computes these for every run, and importing the parser itself
(PDFium, pdfminer, numpy, Pillow) would cost it a third of a CPU second that only the
workers need.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from parsers.lexicon import traineddata_path
from parsers.tesseract_version import tesseract_version

if TYPE_CHECKING:
    from parsers.template import Template

#: each page reader's name (`STMTFLOW_READER`) -> its class, which names it in the revision
READER_CLASSES = {"pdfium": "parsers.pdfium_reader.PdfiumReader",
                  "pdfplumber": "parsers.reader.PdfplumberReader"}


def reader_class(name: str) -> str:
    """The class of the page reader called `name`; a `ValueError` for an unknown name."""
    if name not in READER_CLASSES:
        raise ValueError(f"the page reader must be one of {', '.join(READER_CLASSES)}, "
                         f"not {name!r}")
    return READER_CLASSES[name]


def chain_revision(templates: Sequence[Template], reader: str) -> str:
    """Identity of the parser code, the page reader called `reader` and the templates that
    run: what a job pins."""
    return _chain(reader_class(reader),
                  tuple(sorted(f"{t.bank}:{t.revision}" for t in templates)))


@functools.lru_cache(maxsize=8)
def _chain(reader: str, templates: tuple[str, ...]) -> str:
    h = hashlib.sha256(_source_digest().encode())
    h.update(reader.encode())
    for t in templates:
        h.update(t.encode())
    return h.hexdigest()[:16]


@functools.cache
def _source_digest() -> str:
    h = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@functools.cache
def engine_identity() -> str:
    """Tesseract version plus the digest of the traineddata in use: what OCR output depends on."""
    try:
        version = tesseract_version()
    except OSError:
        return "tesseract:unavailable"
    digest = "none"
    data = traineddata_path("eng")
    if data is not None:
        digest = hashlib.sha256(data.read_bytes()).hexdigest()[:16]
    return f"tesseract:{version}+eng:{digest}"
