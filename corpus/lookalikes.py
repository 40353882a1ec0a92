"""Statements that look like real banks' (the built-in templates beyond the five reference
layouts), drawn from synthetic truth.

Each bank's layout is a description in `corpus/layouts/` — its column positions, date and
amount forms, labels, multi-line bookings, page breaks with repeated headers, balance
brought/carried forward rows, sections and summaries — that `corpus/described.py` prints,
so that the project's tests read the built-in templates on statements of their kind
without any real statement.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from corpus.banks import Printed
from corpus.described import render
from corpus.layouts import LAYOUTS
from corpus.truth import Draw

LOOKALIKES: dict[str, Callable[[Draw], Printed]] = {
    layout.bank: partial(render, layout) for layout in LAYOUTS}
