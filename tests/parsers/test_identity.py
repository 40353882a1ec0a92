"""What a job pins of the parser, computed without the parser's libraries."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import subprocess
import sys

import pytest

from parsers.api import READERS, page_reader
from parsers.identity import READER_CLASSES, chain_revision, engine_identity, second_model
from parsers.layout.template import load_templates


def test_engine_identity_pins_version_and_traineddata() -> None:
    identity = engine_identity()
    assert identity.startswith("tesseract:5.") and "+eng:" in identity


def test_engine_identity_pins_the_second_engine_and_its_model() -> None:
    """RapidOCR's version, onnxruntime's and the digest of the model file it reads."""
    model = hashlib.sha256(second_model().read_bytes()).hexdigest()[:16]
    assert f"+rapidocr:{importlib.metadata.version('rapidocr-onnxruntime')}+onnxruntime:" \
        f"{importlib.metadata.version('onnxruntime')}+rec:{model}" in engine_identity()


@pytest.mark.parametrize("name", sorted(READERS))
def test_each_reader_is_named_by_the_class_that_reads(name: str) -> None:
    """The revision names a reader by its class, as it did when it took the object."""
    reader = type(page_reader(name))
    assert READER_CLASSES[name] == f"{reader.__module__}.{reader.__qualname__}"


def test_the_revision_changes_with_the_reader_and_with_any_template() -> None:
    templates = load_templates()
    base = chain_revision(templates, "pdfium")
    assert chain_revision(list(reversed(templates)), "pdfium") == base
    assert chain_revision(templates, "pdfplumber") != base
    changed = [dataclasses.replace(templates[0], revision="another"), *templates[1:]]
    assert chain_revision(changed, "pdfium") != base
    assert chain_revision(templates[1:], "pdfium") != base


def test_an_unknown_reader_is_refused() -> None:
    with pytest.raises(ValueError, match="pdfium, pdfplumber"):
        chain_revision(load_templates(), "pdfminer")
    with pytest.raises(ValueError, match="pdfium, pdfplumber"):
        page_reader("pdfminer")


def test_the_identities_load_none_of_the_parsers_libraries() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys\n"
         "from parsers.identity import chain_revision, engine_identity\n"
         "from parsers.layout.template import load_templates\n"
         "import parsers.worker.pool, parsers.worker.rendered, parsers.worker.task\n"
         "chain_revision(load_templates(), 'pdfium'); engine_identity()\n"
         "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'pypdfium2', "
         "'pdfminer', 'PIL', 'pyarrow', 'pandas', 'onnxruntime', 'cv2', "
         "'rapidocr_onnxruntime'}))"],
        capture_output=True, check=True).stdout.decode().strip()
    assert loaded == "[]"
