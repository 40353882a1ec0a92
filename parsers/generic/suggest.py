"""A template drawn from a table the generic reader read and validated.

The TOML names the header labels over each column (a label between the date and the
description, such as a value date, becomes a column to ignore), the date and number
conventions and the period's forms, so that the same statements are then read by a
template; it is a starting point, to check with `stmtflow templates check` and edit
(identity, markers, bank id, headings, sections).
"""

from __future__ import annotations

import json
from typing import Any

from parsers.generic.figures import period_formats


def suggest(how: dict[str, Any], bank: str, identity: str) -> str:
    """The TOML of a template for the table `how` (a `reading.table`) describes."""
    card = how["convention"].startswith("card")
    header = how.get("header") or []
    out = ["# Drawn by `stmtflow templates suggest` from a statement the generic reader",
           "# validated; check it with `stmtflow templates check`, then edit identity/markers.",
           f"bank = {json.dumps(bank)}", f"name = {json.dumps(identity or bank)}",
           f"currency = {json.dumps(how['currency'])}", f"locale = {json.dumps(how['locale'])}"]
    periods = ", ".join(json.dumps(f) for f in period_formats(how["date_format"]))
    out += ["", "[detect]", f"identity = [{json.dumps(identity or bank)}]", "markers = []",
            "min_score = 0", "", "[period]", f"date_format = [{periods}]", "", "[table]"]
    if card:
        out += ['amount_unsigned = "debit"', 'balance_unsigned = "debit"']
    out.append("columns = [")
    for c in header:
        out.append(f"  {{ label = {json.dumps(c['label'])}, role = {json.dumps(c['role'])} }},")
    if not header:
        out.append("  # no header is printed over the first row: describe the columns here")
    out += ["]", f"date_format = {json.dumps(how['date_format'])}"]
    if how.get("headings_sign_amounts"):
        out.append("# unsigned amounts take their sign from headings: list them under "
                   "[table.headings]")
    if how.get("sections", 1) > 1:
        out.append("# the statement has several account sections: add [sections] start")
    return "\n".join(out) + "\n"
