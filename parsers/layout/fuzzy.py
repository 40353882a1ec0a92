"""Near matches of OCR text and the vocabulary: case, punctuation, look-alikes and a few edits.

A scanned `Closing Balance` comes back as `CLOSING BALANCF`, `Cl0sing Balance` or `Closing
Ba1ance`. Both sides are reduced to a key (folded, letters and digits only, with the glyphs
OCR confuses made one: `O`/`0`, `l`/`1`/`I`/`|`, and a slash with them: `A/C` comes back
as `AIC`), then compared by edit distance, counted on the letters printed: none for
short words (where one edit turns one word into another), one for words of five to eight
letters, two from nine. Plain Levenshtein over keys of a few dozen letters, cut off as soon
as the limit is exceeded, is all this needs: the strings are short and few, so a library
would add a dependency without a measurable gain.
"""

from __future__ import annotations

import re

from parsers.dates import fold

_LOOK_ALIKES = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l"})
_NOT_ALNUM = re.compile(r"[\W_]+")


def key(text: str) -> str:
    """`text` folded, letters and digits only, look-alike glyphs made one (a slash between
    letters counts as one: `A/C` is read `AIC` or `AlC`)."""
    return _NOT_ALNUM.sub("", fold(text).replace("/", "l")).translate(_LOOK_ALIKES)


def letters(text: str) -> int:
    """How many letters and digits `text` prints (what the edits tolerated depend on: a
    slash folded into the key adds none)."""
    return len(_NOT_ALNUM.sub("", fold(text)))


def edits_allowed(length: int) -> int:
    """Edits tolerated in a key of `length` letters."""
    return 0 if length < 5 else 1 if length < 9 else 2


def distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of `a` and `b`, or `limit + 1` once it exceeds `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return min(previous[-1], limit + 1)


def near(text: str, phrase: str, edits: int | None = None) -> bool:
    """Whether `text` is `phrase` as OCR may have read it (`edits`: at most this many edits,
    by default as many as the phrase's length allows)."""
    a, b = key(text), key(phrase)
    if not a or not b:
        return False
    limit = edits_allowed(letters(phrase)) if edits is None else edits
    return distance(a, b, limit) <= limit
