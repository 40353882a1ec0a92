"""Bank detection: a template claims a file only when the bank's name is printed on it.

Every template scores its markers on the first pages (tolerant literals: any case, spacing
and punctuation); a template is eligible only when one of its identity phrases (by default
the bank's name) is printed and its score reaches `min_score`, so a statement of a bank
without a template is never claimed by another bank's. The highest score must be unique.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from parsers.dates import fold
from parsers.errors import BankMismatch
from parsers.layout.template import Template
from parsers.layout.vocabulary import label_in
from parsers.pdf.lines import Line

#: Pages whose text detection reads: markers sit in the header of page one or two.
DETECT_PAGES = 2


@dataclass(frozen=True)
class Detection:
    template: Template | None
    scores: dict[str, int]


def _text(lines: list[Line]) -> str:
    """The first pages' text, folded once for every label looked for in it."""
    return fold("\n".join(ln.text for ln in lines if ln.page <= DETECT_PAGES))


def score(t: Template, text: str) -> int:
    return _score(t, fold(text))


def _score(t: Template, folded: str) -> int:
    return sum(1 for m in t.markers if _printed(folded, m))


def identified(t: Template, text: str) -> bool:
    """Whether the bank's identity (its name, or the template's `identity` phrases) is
    printed in `text`."""
    return _identified(t, fold(text))


def _identified(t: Template, folded: str) -> bool:
    return any(_printed(folded, phrase) for phrase in t.identity)


def _printed(folded: str, phrase: str) -> bool:
    """`label_in` for one phrase, asked only where every word of the phrase is in the text:
    most templates' phrases are not, and a plain search of the pages' text for a word
    costs far less than the tolerant label regex."""
    return all(w in folded for w in _words(phrase)) and label_in(folded, [phrase])


@functools.cache
def _words(phrase: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", fold(phrase)))


def detect(lines: list[Line], templates: list[Template]) -> Detection:
    """The one identified template that reaches its `min_score` with the highest score."""
    folded = fold(_text(lines))  # as `score` and `identified` fold it, once for every template
    scores = {t.bank: _score(t, folded) for t in templates}
    eligible = [t for t in templates
                if scores[t.bank] >= t.min_score and _identified(t, folded)]
    if not eligible:
        return Detection(None, scores)
    best = max(scores[t.bank] for t in eligible)
    winners = [t for t in eligible if scores[t.bank] == best]
    return Detection(winners[0] if len(winners) == 1 else None, scores)


def verify_hint(lines: list[Line], t: Template) -> None:
    """A bank named by the caller skips detection but must still be identified by its name
    and its own markers."""
    text = _text(lines)
    if not identified(t, text):
        raise BankMismatch(f"the file does not look like {t.name}: its name is not printed "
                           f"on the first pages")
    found = score(t, text)
    if found < t.min_score:
        raise BankMismatch(
            f"the file does not look like {t.name}: {found} of {len(t.markers)} markers found"
        )
