"""What a job pins of the parser: the chain revision (this package's code, the page reader,
the templates) and the OCR engines' identity.

Apart from the parser on purpose: the process that accepts an import's jobs and hands their
files to parse workers computes these for every run, and importing the parser itself
(PDFium, pdfminer, numpy, Pillow) would cost it a third of a CPU second that only the
workers need.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from parsers.ocr.lexicon import traineddata_path
from parsers.ocr.tesseract_version import tesseract_version

if TYPE_CHECKING:
    from parsers.layout.template import Template

#: each page reader's name (`STMTFLOW_READER`) -> its class, which names it in the revision
READER_CLASSES = {"pdfium": "parsers.pdf.pdfium_reader.PdfiumReader",
                  "pdfplumber": "parsers.pdf.pdfplumber_reader.PdfplumberReader"}


def reader_class(name: str) -> str:
    """The class of the page reader called `name`; a `ValueError` for an unknown name."""
    if name not in READER_CLASSES:
        raise ValueError(f"the page reader must be one of {', '.join(READER_CLASSES)}, "
                         f"not {name!r}")
    return READER_CLASSES[name]


def chain_revision(templates: Sequence[Template], reader: str, exports: str = "") -> str:
    """Identity of the parser code, the page reader called `reader`, the templates that
    run, the bank exports' readers (their libraries' versions) and `exports`, the export
    settings' revision (`parsers.exports.settings.Exports.revision`): what a job pins."""
    return _chain(reader_class(reader),
                  tuple(sorted(f"{t.bank}:{t.revision}" for t in templates)),
                  f"{export_readers()}+settings:{exports}")


@functools.lru_cache(maxsize=8)
def _chain(reader: str, templates: tuple[str, ...], exports: str) -> str:
    h = hashlib.sha256(_source_digest().encode())
    h.update(reader.encode())
    for t in templates:
        h.update(t.encode())
    h.update(exports.encode())
    return h.hexdigest()[:16]


#: the libraries that read bank exports (`parsers/exports/`), by distribution name
EXPORT_LIBRARIES = ("ofxtools", "mt-940", "lxml")


@functools.cache
def export_readers() -> str:
    """The export readers' library versions (`ofxtools==1.1.1+mt-940==5.1.1+...`), read from
    their metadata without importing them."""
    versions = []
    for name in EXPORT_LIBRARIES:
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name}:unavailable")
    return "+".join(versions)


@functools.cache
def _source_digest() -> str:
    h = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


#: The second engine's recognition model, in the folder of its package.
SECOND_MODEL = "models/ch_PP-OCRv4_rec_infer.onnx"


@functools.cache
def engine_identity() -> str:
    """What OCR output depends on: tesseract's version and the digest of its traineddata,
    then the second engine's (`witness.py`) version, its runtime's and its model's digest."""
    try:
        version = tesseract_version()
    except OSError:
        return "tesseract:unavailable"
    digest = "none"
    data = traineddata_path("eng")
    if data is not None:
        digest = hashlib.sha256(data.read_bytes()).hexdigest()[:16]
    return f"tesseract:{version}+eng:{digest}+{second_engine_identity()}"


def second_engine_identity() -> str:
    """RapidOCR's version, onnxruntime's, and the digest of the recognition model."""
    try:
        model = second_model()
        versions = (importlib.metadata.version("rapidocr-onnxruntime"),
                    importlib.metadata.version("onnxruntime"))
        digest = hashlib.sha256(model.read_bytes()).hexdigest()[:16]
    except (OSError, importlib.metadata.PackageNotFoundError):
        return "rapidocr:unavailable"
    return f"rapidocr:{versions[0]}+onnxruntime:{versions[1]}+rec:{digest}"


def second_model() -> Path:
    """The second engine's recognition model, as its wheel ships it (found without importing
    the package, whose import loads onnxruntime and OpenCV)."""
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None or spec.origin is None:
        raise OSError("rapidocr-onnxruntime is not installed")
    return Path(spec.origin).parent / SECOND_MODEL
