"""Bank detection: every template scores its markers on the first pages; one must win."""

from __future__ import annotations

from dataclasses import dataclass

from parsers.errors import BankMismatch
from parsers.lines import Line
from parsers.template import Template

#: Pages whose text detection reads: markers sit in the header of page one or two.
DETECT_PAGES = 2


@dataclass(frozen=True)
class Detection:
    template: Template | None
    scores: dict[str, int]


def score(t: Template, text: str) -> int:
    low = text.lower()
    return sum(1 for m in t.markers if m.lower() in low)


def detect(lines: list[Line], templates: list[Template]) -> Detection:
    """The one template that reaches its `min_score` with the highest score, else None."""
    text = "\n".join(ln.text for ln in lines if ln.page <= DETECT_PAGES)
    scores = {t.bank: score(t, text) for t in templates}
    eligible = [t for t in templates if t.markers and scores[t.bank] >= t.min_score]
    if not eligible:
        return Detection(None, scores)
    best = max(scores[t.bank] for t in eligible)
    winners = [t for t in eligible if scores[t.bank] == best]
    return Detection(winners[0] if len(winners) == 1 else None, scores)


def verify_hint(lines: list[Line], t: Template) -> None:
    """A bank named by the caller skips detection but must still match its own markers."""
    text = "\n".join(ln.text for ln in lines if ln.page <= DETECT_PAGES)
    found = score(t, text)
    if found < t.min_score:
        raise BankMismatch(
            f"the file does not look like {t.name}: {found} of {len(t.markers)} markers found"
        )
