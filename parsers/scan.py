"""Which of many lines may print something, from one regex pass over all their text.

Readers ask of every line whether it prints a label, a header's words or page furniture,
and most lines print none. A word each of those prints is looked for once in the lines'
text joined one line a row (no word spans a line break), which costs far less than a search
per line; only the lines found are then asked in full.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence


def lines_holding(keys: re.Pattern[str], texts: Sequence[str]) -> Iterator[int]:
    """The index of each of `texts` in which `keys` finds a match, in order (`keys` must
    not match a line break). Texts that hold a line break themselves (no printed line's
    do) are searched one by one."""
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        yield from (i for i, text in enumerate(texts) if keys.search(text))
        return
    i = at = 0  # the text that starts after the line break at `at` (the first: at 0)
    m = keys.search(joined)
    while m is not None:
        i += joined.count("\n", at, m.start())
        yield i
        at = joined.find("\n", m.end())  # the rest of the text is not searched
        if at < 0:
            return
        m = keys.search(joined, at + 1)


@functools.cache
def whole_words(words: frozenset[str]) -> re.Pattern[str]:
    """A regex matching any of `words` standing as a whole word between spaces (or line
    breaks), as `str.split` cuts text into words; it matches nothing when `words` is empty."""
    if not words:
        return re.compile(r"(?!)")
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\S)(?:{alternatives})(?!\S)")


def split_rows(joined: str, rows: int) -> list[str] | None:
    """`joined` (texts joined one a row, then changed without adding or removing line
    breaks) cut back into its `rows` texts; None when a text held a line break itself."""
    texts = joined.split("\n")
    return texts if len(texts) == rows else None
