"""Tesseract's own English word list, read out of the traineddata OCR runs with.

A description word OCR read with little confidence may still be taken when it is a word of
the language (see `trust.word_vouched`), and a long word that is words of the language run
together is read again (`reread.py`): OCR may have lost a space. The list is the one
tesseract's recogniser was built with, extracted by tesseract's own tools
(`combine_tessdata`, `dawg2wordlist`, both shipped with it) once per process: no second
dictionary to install or keep in step. Where the tools or the data are missing the list is
empty, and no word is taken on its strength.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path


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


def traineddata_path(lang: str) -> Path | None:
    """Where tesseract keeps the traineddata of `lang`, or None where it has none."""
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


#: The shortest word a run-together word is split into (shorter ones make nearly anything
#: look like a run of words).
_PART = 3
#: The shortest run-together word suspected: shorter ones are as often a name written as
#: one word (`AUTOPAY`, `SPOTIFY`), measured on the scan corpus.
_RUN = 10


def run_together(word: str, lexicon: frozenset[str]) -> bool:
    """Whether `word`, ten letters or more, is no word of `lexicon` but two or more of its
    words of three letters or more written without a space (`GYMMEMBERSHIP`): a space OCR
    did not see."""
    w = word.upper()
    if not w.isalpha() or len(w) < _RUN or w in lexicon:
        return False
    # ends[i]: w[:i] is a run of lexicon words
    ends = [True] + [False] * len(w)
    for i in range(_PART, len(w) + 1):
        ends[i] = any(ends[j] and w[j:i] in lexicon for j in range(0, i - _PART + 1))
    return ends[-1]


#: The share of a table's description words the dictionary knows from which the table is
#: taken to be printed in the dictionary's language (English).
ENGLISH = 0.5


def in_its_language(desc: list[str], lexicon: frozenset[str]) -> bool:
    """Whether the descriptions `desc` are in the language of `lexicon` (tesseract's English
    dictionary): at least `ENGLISH` of their words of three letters or more are its words.
    Only there is a long word made of its words a space OCR did not see: German, say,
    writes its compounds so (`Kartenzahlung`, `Kundenreferenz`)."""
    plain = [w.upper() for w in desc if len(w) >= 3 and w.isalpha()]
    return not plain or sum(w in lexicon for w in plain) >= ENGLISH * len(plain)


def split_apart(first: str, second: str, lexicon: frozenset[str]) -> bool:
    """Whether two words side by side are one word of `lexicon` OCR read a space into
    (`ENDIN G` for `ENDING`): letters only, one of them no word of it, the two together
    one of four letters or more. Two words of it side by side (`IN TO`) may be printed so."""
    a, b = first.upper(), second.upper()
    return a.isalpha() and b.isalpha() and len(a + b) >= 4 and (a + b) in lexicon and not (
        a in lexicon and b in lexicon)
