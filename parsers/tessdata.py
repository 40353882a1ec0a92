"""Where tesseract keeps its trained data: what OCR output and its word list depend on."""

from __future__ import annotations

import subprocess
from pathlib import Path


def traineddata_path(lang: str) -> Path | None:
    """The traineddata file tesseract reads for `lang`, or None when it has none."""
    out = subprocess.run(
        ["tesseract", "--list-langs"], capture_output=True, text=True, check=False
    ).stdout
    # First line: List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (2):
    first = out.splitlines()[0] if out else ""
    if '"' in first:
        path = Path(first.split('"')[1]) / f"{lang}.traineddata"
        if path.exists():
            return path
    return None
