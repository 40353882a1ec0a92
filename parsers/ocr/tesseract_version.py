"""The version of the tesseract binary, as `tesseract --version` prints it.

It pins every job's OCR identity (`identity.engine_identity`), so every import asks for it, text
statements included. Asked here rather than through pytesseract, whose import loads pandas
(and with it pyarrow): a third of a CPU second for each command and each parse worker's
start, on a path that never reads a scan. The version reads as pytesseract's
`get_tesseract_version` reads it, so the identities pinned before stay the same.
"""

from __future__ import annotations

import os
import string
import subprocess

from packaging.version import InvalidVersion, Version

#: the oldest tesseract whose TSV output the OCR reads (pytesseract's own floor)
OLDEST = Version("3.05")


def tesseract_version() -> Version:
    """The binary's version; `OSError` where there is no tesseract to run, `RuntimeError`
    where it prints no version that OCR can work with."""
    output = subprocess.check_output(["tesseract", "--version"], stderr=subprocess.STDOUT,
                                     env=os.environ, stdin=subprocess.DEVNULL)
    raw = output.decode("utf-8")
    # "tesseract 5.3.0\n leptonica-1.82.0 ...": the first word that starts with a digit,
    # without a suffix after a dash
    text = raw.lstrip(string.printable[10:]).partition(" ")[0].partition("-")[0]
    try:
        version = Version(text)
    except InvalidVersion:
        version = None
    if version is None or version < OLDEST:
        raise RuntimeError(f"tesseract prints no version OCR can work with: {raw[:200]!r}")
    return version
