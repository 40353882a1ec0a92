"""The generic reader: reads a statement no template describes, when its numbers agree.

It finds the transaction table from the page's geometry (`table_search.py`, its rows read by
`rows.py`), the figures around it from the shared vocabulary (`figures.py`), and tries the
plausible readings of the table (`readings.py`): the one accepted is the one the
statement's own balances prove, and two that prove different statements are refused
(`ambiguous_layout`) rather than guessed.
"""

from __future__ import annotations

from parsers.generic.empty import read_empty
from parsers.generic.explain import Explanation
from parsers.generic.leads import lead_forms, starts_with_date
from parsers.generic.mend import mend
from parsers.generic.pages import clean
from parsers.generic.readings import Validator, decide
from parsers.generic.table_search import find_table, until_end
from parsers.layout.outcome import ParseOutput
from parsers.layout.vocabulary import furniture_folded, furniture_lines
from parsers.pdf.lines import Line


def parse_generic(lines: list[Line], validator: Validator,
                  explain: Explanation | None = None) -> ParseOutput | None:
    """The statement the one validating reading gives; None when no reading validates
    (what was found and what was missing noted in `explain`).

    Raises `AmbiguousLayout` when readings validate with different results."""
    lines = until_end(mend(lines, starts_with_date))
    # (only the lines that print a furniture word are asked whether they are furniture)
    furniture = furniture_lines([ln.folded for ln in lines])
    visible = [ln for i, ln in enumerate(lines)
               if not ln.large and not (i in furniture and furniture_folded(ln.folded))]
    #: id of each visible line -> the date forms its first words print: read once for the
    #: page headers, the table and a statement without one
    forms = {id(ln): lead_forms(ln) for ln in visible}
    table = find_table(visible, clean(visible, forms), forms)
    if table is None:
        out = read_empty(visible, forms)
        if out is not None and validator(out).ok:
            return out
        if explain is not None:
            dated = sum(1 for ln in visible if forms[id(ln)])
            explain.missing.append(
                f"a table: {dated} line(s) start with a date, and none of them ends in "
                "figures read in one number form" if dated else
                "a table: no line starts with a date in a form the reader knows")
        return None
    return decide(lines, table, validator, explain)


__all__ = ["Explanation", "parse_generic"]
