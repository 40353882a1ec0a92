"""Tesseract's own English word list, read out of the traineddata OCR runs with.

A description word OCR read with little confidence may still be taken when it is a word of
the language (see `trust.word_vouched`). The list is the one tesseract's recogniser was
built with, extracted by tesseract's own tools (`combine_tessdata`, `dawg2wordlist`, both
shipped with it) once per process: no second dictionary to install or keep in step. Where
the tools or the data are missing the list is empty, and no word is taken on its strength.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from parsers.ocr import traineddata_path


@functools.cache
def words() -> frozenset[str]:
    """Every word of tesseract's English dictionary, folded to upper case."""
    data = traineddata_path("eng")
    if data is None:
        return frozenset()
    with tempfile.TemporaryDirectory(prefix="stmtflow-lexicon-") as tmp:
        dawg, charset, out = (Path(tmp) / n for n in ("eng.lstm-word-dawg",
                                                      "eng.lstm-unicharset", "words.txt"))
        try:
            subprocess.run(["combine_tessdata", "-e", str(data), str(dawg), str(charset)],
                           capture_output=True, check=True, timeout=60)
            subprocess.run(["dawg2wordlist", str(charset), str(dawg), str(out)],
                           capture_output=True, check=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return frozenset()
        return frozenset(w.upper() for w in out.read_text(errors="replace").split())
