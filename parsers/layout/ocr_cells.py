"""What OCR leaves in a line's cells that print never put there, and the confidences of
the cells.

A scan's line holds marks no printer made: noise standing in no column, specks at the end
of a description or a date. The table reader drops them here before it reads the line, and
notes how confidently each cell was read (a text layer's cells carry no confidence), so the
rows can be weighed afterwards (`ocr_doubts.py`).
"""

from __future__ import annotations

from parsers.layout.template import NUMBER_ROLES
from parsers.layout.tokens import DASHES, MARK, NOISE_MARKS, Token, least_conf
from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE
from parsers.pdf.lines import Line


def drop_noise(cells: dict[str, list[Token]], strays: list[Token]
               ) -> tuple[list[Token], list[Token]]:
    """(the strays that are print, the strays dropped as OCR's noise) of an OCR line whose
    tokens stand in `cells` and `strays`; specks that end its description or its date cell
    are dropped from `cells` themselves."""
    bare = not any(role in cells for role in ("date", *NUMBER_ROLES))
    noise = [tok for tok in strays if _noise(tok) or (bare and _mote(tok))]
    strays = [tok for tok in strays if tok not in noise]
    if "description" in cells:  # `RENT PAYMENT .`: a speck OCR kept, printing nothing
        cells["description"] = [tok for tok in cells["description"] if not _speck(tok)]
    if "date" in cells:  # `03-Jan-2026 .`: a mark at the cell's end changes no date
        cells["date"] = _unspecked_ends(cells["date"])
    return strays, noise


def read_twice(toks: list[Token]) -> bool:
    """Whether every token OCR read below the review confidence was read alike a second
    time (`reread.py`)."""
    return all(tok.twice or tok.conf is None or tok.conf >= OCR_REVIEW_CONFIDENCE
               for tok in toks)


def junk(toks: list[Token]) -> bool:
    """Whether OCR read `toks` (a date cell that is no date) as a few marks or with little
    confidence: noise that may stand before the next line of a row's description, not a
    line of its own such as `End of Statement`."""
    return all(tok.conf is not None for tok in toks) and (
        len("".join(tok.text for tok in toks)) <= 3
        or all(tok.conf < OCR_REVIEW_CONFIDENCE for tok in toks))


def assembled(ln: Line, figures: dict[str, Token], noise: list[Token]) -> dict[str, str]:
    """How the figures of `ln` were put together unusually, by role: read on another OCR
    line than the line's first word (a line joined from several, `lines.py`), or on a
    line where OCR noise was dropped (`_noise`)."""
    out = {role: "beside marks in no column, dropped as OCR noise" for role in figures
           } if noise else {}
    if ln.joined:
        home = ln.words[0].line
        out |= {role: "on a line apart from its row's first words"
                for role, tok in figures.items()
                if any(w.line != home for w in ln.words if tok.x0 <= w.x0 and w.x1 <= tok.x1)}
    return out


def _noise(tok: Token) -> bool:
    """Whether a word standing in no column is OCR's noise, not print: no digit and no sign
    or mark a figure takes, and nothing but stray punctuation, or one or two letters read
    with little confidence."""
    if tok.conf is None or tok.amount is not None or MARK.fullmatch(tok.text) or any(
            ch.isdigit() or ch in DASHES for ch in tok.text):
        return False
    letters = tok.text.strip(NOISE_MARKS)
    return not letters or (len(letters) <= 2 and letters.isalpha()
                           and tok.conf < OCR_REVIEW_CONFIDENCE)


def _mote(tok: Token) -> bool:
    """Whether a word standing in no column is one letter or digit OCR read with little
    confidence: noise on a line without a date or a figure, which it cannot be part of."""
    return (tok.conf is not None and tok.amount is None and tok.conf < OCR_REVIEW_CONFIDENCE
            and len(tok.text.strip(NOISE_MARKS)) == 1 and tok.text.strip(NOISE_MARKS).isalnum())


def _speck(tok: Token) -> bool:
    """Whether an OCR word is stray punctuation alone (`.`, `|`, `»`): no dash, sign or
    mark that means something."""
    return tok.conf is not None and tok.amount is None and not tok.text.strip(NOISE_MARKS)


def _unspecked_ends(toks: list[Token]) -> list[Token]:
    """`toks` without the specks (`_speck`) at either end, where a word stays: the date
    is read with stray punctuation at its ends forgiven (`table.py`), so their
    confidence says nothing of it."""
    kept = list(toks)
    while len(kept) > 1 and _speck(kept[-1]):
        kept.pop()
    while len(kept) > 1 and _speck(kept[0]):
        kept.pop(0)
    return kept


def desc_confs(cells: dict[str, list[Token]]) -> list[float | None]:
    """The OCR confidence of each description word of a line (None on a text page)."""
    return [tok.conf for tok in cells.get("description", [])]


def cell_confs(cells: dict[str, list[Token]]) -> dict[str, float]:
    """The least OCR confidence of each cell of a line (text-layer cells have none)."""
    out = {}
    for role, toks in cells.items():
        least = least_conf(toks)
        if least is not None:
            out[role] = least
    return out


def merge_confs(confs: dict[str, float], more: dict[str, float]) -> None:
    """`confs` lowered to the confidences of another line's cells (`more`), role by role."""
    for role, conf in more.items():
        confs[role] = min(confs.get(role, conf), conf)
