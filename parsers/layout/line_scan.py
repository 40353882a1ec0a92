"""Which of many lines may print something, from one pass over all their text.

Readers ask of every line whether it prints a label or page furniture, and most lines
print none. The words each of those prints are looked for once in the lines'
text joined one line a row: each word with a plain substring search (most are printed
nowhere), then the few that are printed with one regex, to tell their lines. Only the lines
found are then asked in full.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterator, Sequence


def lines_holding(words: Collection[str], texts: Sequence[str]) -> Iterator[int]:
    """The index of each of `texts` that holds one of `words`, in order (no word holds a
    line break). Texts that hold a line break themselves (no printed line's do) are
    searched one by one."""
    joined = "\n".join(texts)
    present = tuple(sorted(w for w in words if w in joined))
    if not present:
        return
    yield from _rows_matching(_any_of(present), joined, texts)


def _rows_matching(keys: re.Pattern[str], joined: str, texts: Sequence[str]) -> Iterator[int]:
    """The index of each of `texts` (`joined` one a row) in which `keys` finds a match."""
    if joined.count("\n") != len(texts) - 1:
        yield from (i for i, text in enumerate(texts) if keys.search(text))
        return
    i = at = 0  # the text that starts after the line break at `at` (the first: at 0)
    m = keys.search(joined)
    while m is not None:
        i += joined.count("\n", at, m.start())
        yield i
        at = joined.find("\n", m.start())  # the rest of the text is not searched
        if at < 0:
            return
        m = keys.search(joined, at + 1)


@functools.lru_cache(maxsize=512)
def _any_of(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in words))
