"""Description words of a scan read without a template: vouched for as a template's are.

A template's table reading weighs every description word OCR read (`layout/table.py`,
`trust.word_vouched`); the generic reader builds its descriptions from the page's words
without their confidences, so nothing weighed them, and a word OCR read at confidence 0,
which the second engine read otherwise (`peat` for `ONLINE`), stood in a validated
statement. Here each word of each description is found among the OCR words of the page
again, by its text: it stands only where every OCR word so read would stand in a template's
row (read confidently or vouched for, not a word OCR may have read either way; a word
found nowhere was put together from OCR's and stands on none of them), and two
numbers side by side, where OCR may have read a space into one, stand only where the second
engine, reading both in one crop, read the space too (`witness.read_apart`).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import TYPE_CHECKING

from parsers.model import Account, mask_account
from parsers.ocr.lexicon import in_its_language, run_together
from parsers.ocr.lexicon import words as lexicon
from parsers.ocr.reread import across_a_speck
from parsers.ocr.trust import (
    OCR_REVIEW_CONFIDENCE,
    iban_words,
    numbers_apart,
    ordinal_look_alike,
    word_vouched,
)
from parsers.ocr.witness import joint_readings, read_apart

if TYPE_CHECKING:
    from parsers.pdf.lines import Line
    from parsers.pdf.page import Word


def unvouched_descriptions(lines: list[Line], accounts: list[Account]) -> list[str]:
    """A problem for every row of `accounts` whose description holds a word the OCR words
    of `lines` do not vouch for (see the module's note), one a row."""
    read: dict[str, list[Word]] = defaultdict(list)
    for ln in lines:
        for w in ln.words:
            if w.conf is not None:
                read[w.text].append(w)
    if not read:
        return []
    confident = frozenset(text for text, ws in read.items()
                          if any(w.conf is not None and w.conf >= OCR_REVIEW_CONFIDENCE
                                 for w in ws))
    known = lexicon()
    joint = joint_readings(lines)
    english = in_its_language([w for a in accounts for t in a.transactions
                               for w in t.description.split()], known)
    problems = []
    for i, acct in enumerate(accounts, start=1):
        where = f"account {i} ({mask_account(acct.account_last4)})"
        for n, t in enumerate(acct.transactions, start=1):
            words = t.description.split()
            why = next((w for w in (_doubt(text, read, confident, known, english)
                                    for text in words)
                        if w), None)
            iban = iban_words(words)
            if why is None and any(numbers_apart(a, b) and not {k, k + 1} <= iban
                                   and not read_apart((a, b), joint.get((a, b), []))
                                   for k, (a, b) in enumerate(itertools.pairwise(words))):
                why = ("two numbers side by side, which may be one with a space read into "
                       "it (the second engine did not read them apart)")
            if why:
                problems.append(f"{where} row {n} ({t.date}): {why}, and no template "
                                "describes this statement: a person confirms its description")
    return problems


def _doubt(text: str, read: dict[str, list[Word]], confident: frozenset[str],
           known: frozenset[str], english: bool) -> str | None:
    """Why the description word `text` does not stand, or None where it does. A word broken
    after its hyphen at a line's end (`7781-` over `ALPHA`) is found as its two parts."""
    found = read.get(text)
    if found is None:
        parts = [p + "-" for p in text.split("-")[:-1]] + [text.split("-")[-1]]
        if len(parts) > 1 and all(p in read for p in parts):
            return next((w for w in (_doubt(p, read, confident, known, english)
                                    for p in parts if p)
                         if w), None)
        return f"the description word {text!r} is no word OCR read as such"
    if ordinal_look_alike(text) or across_a_speck(text) or (english and run_together(text,
                                                                                 known)):
        return f"OCR read the description word {text!r}, which it may as well have read " \
               "otherwise (look-alike glyphs, a speck or a space it did not see)"
    for w in found:
        conf = w.conf if w.conf is not None else 100.0
        if conf < OCR_REVIEW_CONFIDENCE and not word_vouched(text, conf, confident, known,
                                                               w.twice):
            return (f"OCR read the description word {text!r} with confidence {conf:.0f} "
                    f"(below {OCR_REVIEW_CONFIDENCE:.0f})"
                    + (f", RapidOCR read {w.second!r}" if w.second else ""))
    return None
