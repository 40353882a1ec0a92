"""Weighing what OCR read on a table's rows, once the rows are read.

No arithmetic checks a row's date or description, so what OCR read of them with little
confidence is a problem unless other evidence vouches for it (the dates around it, a second
reading, the words the statement prints confidently elsewhere: `trust.py`); a figure read
with little confidence, or put together unusually, is a `Doubt` that only the running
balance can settle. Apart from the reader, as it needs every row of an account at once.
"""

from __future__ import annotations

from parsers.layout.table_rows import Row, TableReading, row_text
from parsers.layout.template import NUMBER_ROLES
from parsers.ocr.lexicon import in_its_language, run_together, split_apart
from parsers.ocr.lexicon import words as lexicon
from parsers.ocr.reread import across_a_speck
from parsers.ocr.trust import (
    OCR_REVIEW_CONFIDENCE,
    Doubt,
    dates_in_order,
    dates_pinned,
    iban_words,
    numbers_apart,
    ordinal_look_alike,
    word_vouched,
)
from parsers.ocr.witness import joint_readings, read_apart
from parsers.pdf.lines import Line


def weigh_ocr(out: TableReading, lines: list[Line], where: str) -> None:
    """Problems, or trusted notes, for the dates and description words OCR read with too
    little confidence; each names its row by its number in the account (`where`), as
    corrections name it."""
    _weigh_dates(out, where)
    _weigh_descriptions(out, lines, where)


def _weigh_dates(out: TableReading, where: str) -> None:
    """A problem for every OCR date read below the review confidence, or carried from the
    row above, that the confidently read dates around it do not pin (`trust.dates_pinned`);
    a carried date stands too where the page shows its date cell blank (rows are read with
    a carried date only where the template says dates are printed once per day)."""
    ocr = [bool(r.confs) or any(c is not None for c in r.desc_confs) for r in out.rows]
    if not any(ocr):
        return  # a text layer's dates are read as printed: none is doubted
    read = [(r.date, r.confs.get("date", 100.0) if r.dated or not o else None)
            for r, o in zip(out.rows, ocr, strict=True)]
    pinned = dates_pinned(read, OCR_REVIEW_CONFIDENCE)
    ordered = (dates_in_order(read, OCR_REVIEW_CONFIDENCE, [r.date_twice for r in out.rows],
                              out.period) if out.period else set())
    for i, (r, (_, conf)) in enumerate(zip(out.rows, read, strict=True)):
        if conf is not None and conf >= OCR_REVIEW_CONFIDENCE:
            continue
        row = f"{where} row {i + 1} ({r.date})"
        said = (f"{row}: OCR read the date of this row with confidence {conf:.0f} (below "
                f"{OCR_REVIEW_CONFIDENCE:.0f})" if conf is not None else
                f"{row}: OCR read no date on this row and it took the date of the row above")
        if i in pinned:
            out.trusted.append(f"{said}, trusted: the dates read confidently before and "
                               "after it are the same day")
        elif i in ordered:
            out.trusted.append(f"{said}, trusted: a second reading read it alike, and it "
                               "falls in the period, in order between the dates read "
                               "confidently around it")
        elif conf is None and r.blank_date:
            out.trusted.append(f"{said}, trusted: the dates are printed once per day and "
                               "the page holds no ink in its date cell")
        else:
            out.problems.append(f"{said}, and no arithmetic checks a date: "
                                f"{row_text(r.lines[0])!r}")


def _weigh_descriptions(out: TableReading, lines: list[Line], where: str) -> None:
    """A problem for every OCR description word read below the review confidence that is no
    word the statement prints confidently elsewhere or the language knows, and for every
    word that reads as an ordinal once its look-alike letters are digits or is words run
    together (`trust.py`; on a table whose descriptions are English,
    `lexicon.in_its_language`)."""
    if not any(c is not None for r in out.rows for c in r.desc_confs):
        return
    confident = frozenset(w.text for ln in lines for w in ln.words
                          if w.conf is not None and w.conf >= OCR_REVIEW_CONFIDENCE)
    words = lexicon()
    english = in_its_language([w for r in out.rows for w in r.desc], words)
    for n, r in enumerate(out.rows, start=1):
        row = f"{where} row {n} ({r.date})"
        doubted, vouched = [], []
        twice = {(w.text, w.conf) for ln in r.lines for w in ln.words if w.twice}
        for text, conf in zip(r.desc, r.desc_confs, strict=True):
            if conf is None:
                continue
            if ordinal_look_alike(text):
                out.problems.append(f"{row}: OCR read the description word {text!r}, "
                                    "which may as well be an ordinal number (look-alike "
                                    "letters and digits), and no arithmetic checks a "
                                    "description")
            elif across_a_speck(text):
                out.problems.append(f"{row}: OCR read the description word {text!r}, "
                                    "which may be two words joined across a speck, and no "
                                    "arithmetic checks a description")
            elif english and run_together(text, words):
                out.problems.append(f"{row}: OCR read the description word {text!r}, "
                                    "which is words run together (a space OCR did not "
                                    "see?), and no arithmetic checks a description")
            elif conf < OCR_REVIEW_CONFIDENCE:
                (vouched if word_vouched(text, conf, confident, words,
                                           (text, conf) in twice)
                 else doubted).append(
                    (text, conf))
        ocr = [c is not None for c in r.desc_confs]
        split = next((f"{a} {b}" for a, b, x, y in zip(r.desc, r.desc[1:], ocr, ocr[1:],
                                                         strict=False)
                      if (x or y) and split_apart(a, b, words)), None)
        if split is not None:
            out.problems.append(f"{row}: OCR read {split!r}, which is one word of the "
                                "language with a space read into it, and no arithmetic "
                                "checks a description")
        joined = _numbers_joined(r, ocr)
        if joined is not None:
            out.problems.append(f"{row}: OCR read two numbers side by side in the "
                                f"description, which may be one number with a space read "
                                f"into it, and no arithmetic checks a description{joined}")
        if doubted:
            least = min(c for _, c in doubted)
            out.problems.append(f"{row}: OCR read {len(doubted)} word(s) of the "
                                f"description of this row with confidence down to "
                                f"{least:.0f} (below {OCR_REVIEW_CONFIDENCE:.0f}), none of "
                                "them a word the statement prints confidently elsewhere, a "
                                "word of the language read with some confidence or a word "
                                "read alike twice, and no arithmetic checks a description")
        if vouched:
            out.trusted.append(f"{row}: {len(vouched)} description word(s) read by OCR "
                               f"with confidence down to {min(c for _, c in vouched):.0f}, "
                               "trusted: each is printed confidently elsewhere in the "
                               "statement, is a word of the language or was read alike "
                               "twice")


def doubts(rows: list[Row]) -> list[Doubt]:
    """The figures of `rows` OCR read below the review confidence, the least per figure,
    those it read with broken punctuation and those its row was put together from unusually."""
    least: dict[tuple[int, str], float] = {}
    broken: dict[tuple[int, str], str] = {}
    assembled: dict[tuple[int, str], str] = {}
    for i, r in enumerate(rows):
        for role, how in r.assembled.items():
            figure = "balance" if role == "balance" else "amount"
            assembled[i, figure] = how
            least.setdefault((i, figure), r.confs.get(role, 0.0))
        for role, conf in r.confs.items():
            figure = "balance" if role == "balance" else "amount"
            if role in NUMBER_ROLES and conf < OCR_REVIEW_CONFIDENCE:
                least[i, figure] = min(least.get((i, figure), conf), conf)
        for role, tok in r.figures.items():
            if tok.loose:
                figure = "balance" if role == "balance" else "amount"
                broken[i, figure] = tok.text
                least.setdefault((i, figure), tok.conf if tok.conf is not None else 0.0)
    return [Doubt(i, figure, conf, broken.get((i, figure)), assembled.get((i, figure)))
            for (i, figure), conf in sorted(least.items())]


def _numbers_joined(r: Row, ocr: list[bool]) -> str | None:
    """Of a row whose description prints two numbers side by side, at least one read by OCR,
    that the second engine did not read apart in one crop (`witness.read_apart`) and no
    IBAN's check digits print apart: what the second engine read of them ('' if nothing);
    None where there is no such pair."""
    iban = iban_words(r.desc)
    joint = joint_readings(r.lines)
    for k, (a, b, x, y) in enumerate(zip(r.desc, r.desc[1:], ocr, ocr[1:], strict=False)):
        if numbers_apart(a, b) and (x or y) and not {k, k + 1} <= iban \
                and not read_apart((a, b), joint.get((a, b), [])):
            seen = joint.get((a, b))
            return f" (RapidOCR read the two together as {seen[0]!r})" if seen and seen[0] \
                else ""
    return None
