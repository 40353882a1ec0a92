"""A second, targeted OCR reading of the words one confidence figure cannot vouch for.

Tesseract reads most of the words it scores below the review confidence right, and now and
then a confident one wrong (`STH AVE` for `5TH AVE`, a speck read as `.` after a word). Two
independent readings that agree are better evidence than either figure. So the doubtful
words (read below the review confidence; a figure or date that is not well formed; a short
word with a glyph a digit resembles; a word with a mark at its edge) are cut out of the page,
enlarged and read again as one line each (`--psm 7`), without the dictionaries that steered
the first reading towards words. Then, per word:

- the readings agree: the better confidence stands, and the word says it was read twice;
- the second mends what the first got wrong in a way that shows (a figure or date that is
  not well formed, a speck read as a mark beside a word, words run together): it replaces
  the first with its own confidence, so a figure read below the review confidence is still
  weighed by the running balance and any other value goes to review;
- otherwise the first stands, below the review confidence, so that a person looks at it.

A date the two read alike but for a speck beside it (`14-Jun-2024.`, `14-Jun-2024:`) is read
twice: a mark at its edge changes no date; so is a word the second reads with a mark at its
edge that the first did not (`7781-ALPHA.`). A third reading, of the page without its specks
(`ink.despeckled`), enlarged further, then settles what the first two read differently: a
date, or a word of letters and digits alone, that it reads as one of them stands, read
twice but below the review confidence (look-alike glyphs, `STH`/`5TH`, and digits read
otherwise, `4471`/`4477`, are never settled: such readings split at random, and the third
is the same engine on the same pixels). It also tells specks from print: a word read with a stop,
comma, colon or quote at its edge loses the mark when the page without its specks reads it
without, or when the mark's ink is smaller than a printed stop could be (`ink.speck_mark`);
a glyph or two, or a mark alone, where the page holds no stroke of ink is dropped.

The crops go to one tesseract process kept for all the pages this process reads
(`tesseract_stream.py`): a page costs no more start of tesseract, only the reading of its
crops, and a page without doubtful or marked words nothing.
"""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from PIL import Image

from parsers.dates import fold, month_names
from parsers.ocr.ink import despeckled, holds_ink, speck_mark
from parsers.ocr.lexicon import run_together
from parsers.ocr.tesseract_stream import TesseractStreams

#: Second readings: one line per image, no dictionary to pull a glyph run towards a word.
CONFIG = ["--psm", "7", "-c", "load_system_dawg=0", "-c", "load_freq_dawg=0"]
#: The process that reads them, kept for every page (its start costs more than a page's crops).
READER = TesseractStreams(CONFIG)
#: Crops are enlarged until their text is about this many pixels high.
TEXT_HEIGHT = 40
#: The third reading of a word the first two read differently enlarges it further: the
#: glyphs fall on other pixels, and tesseract scales them otherwise.
THIRD_HEIGHT = 56
#: White margin around a crop, in pixels of the enlarged image.
MARGIN = 12
#: Glyphs OCR takes for one another (5/S, 0/O, 1/I/l, 8/B, 2/Z, 6/G): a short word with one
#: may be misread either way (`STH` for `5TH`).
LOOKALIKES = frozenset("SOIlBZG501826")
#: Marks a speck beside a word is read as.
EDGE = ".,:;'`|-=~_*\u2014"
#: OCR reads a speck of noise as a word of at most this many glyphs.
SPECK_GLYPHS = 2
#: What a speck at a word's edge may be read as: a stop, a comma, a colon, a quote, a
#: dash (a printed one is a line, and stays on the page without specks and in the ink
#: `ink.speck_mark` weighs; a bar is taken for a glyph and stays).
SPECK_MARKS = ".,:;'`\"\u2018\u2019\u201c\u201d-"
#: Quotes a speck may be read as.
QUOTES = "'`\"\u2018\u2019\u201c\u201d"
#: What a speck beside a date may be read as: a mark, a quote, a bracket.
AROUND = EDGE + "'\"\u2018\u2019\u201c\u201d()[]!"
#: The digit each look-alike letter may stand for.
DIGITS = str.maketrans("SOIlBZG", "5011826")
#: A word of this many characters or fewer is short.
SHORT = 3

FIGURE = re.compile(r"[-(+]?[$€£]?\d{1,3}(?:[,.' ]?\d{3})*[.,]\d{2}\)?(?:-|\+|CR|DR|Cr|Dr)?")
#: One-word dates: `14-Dec-2024`, `14.12.2024`, `14/12`, `2024-12-14`, `14Dec2024`.
DATE = re.compile(r"(\d{1,2})([-/. ]?)([^\W\d_]{3,9}|\d{1,2})(?:\2(\d{2}|\d{4}))?|"
                  r"\d{4}-\d{2}-\d{2}")
#: Marks a figure's punctuation may be misread as.
MARKS = ".,:;"


#: Letters and digits, in runs joined by a hyphen or a slash (`7781-ALPHA`, `11/02`): a
#: mark inside a word that OCR reads alike twice is printed, not a speck at its edge.
PLAIN = re.compile(r"[^\W_]+(?:[-/][^\W_]+)*")

#: A mark a speck makes, between two runs of two glyphs or more, one of them letters, the
#: second maybe opened by a number sign: a speck in the space between two words that OCR
#: read as one (`STORE.0912`, `OUTLET.#4471`).
_ACROSS = re.compile(r"[^\W\d_]{2}[.,:;]#?[^\W_]{2}|[^\W_]{2}[.,:;]#?[^\W\d_]{2}")
#: A web address's ending at a word's end (`.COM`, `.CO.UK`), none of them a word of text.
_DOMAIN = re.compile(r"(?:\.CO)?\.(?:COM|NET|ORG|GOV|EDU|IO|UK|NL|AU)$", re.IGNORECASE)


def across_a_speck(word: str) -> bool:
    """Whether `word` may be two words OCR joined across a speck in the space between them
    (`STORE.0912`, `PAYMENT.ID`); printed ones (`NO.123`) read alike, so none is taken on
    one reading (`apart` weighs them on the page without its specks). A web address's
    ending (`AMAZON.COM`, `PAYPAL.CO.UK`), which card statements print on many rows, is
    read as printed: a speck does not make a `.COM`."""
    return _ACROSS.search(_DOMAIN.sub("", word)) is not None


@dataclass(frozen=True)
class Read:
    """One word as read: text, confidence, its box in page pixels and its line's number."""

    text: str
    conf: float
    left: int
    top: int
    width: int
    height: int
    line: int = 0
    #: Whether a second, independent reading agreed with this one.
    twice: bool = False
    #: The second engine's reading of the word, where it read it (`witness.py`).
    second: str | None = None
    #: Tesseract's second reading of the word, where it read it otherwise than the first.
    again: str | None = None
    #: Of the second of two numbers side by side: the second engine's reading of both in
    #: one crop, where it read them (`witness.read_pairs`).
    pair: str | None = None


def kind(text: str) -> str:
    """`figure`, `date` or `text`: what a reading looks like it means to be."""
    alnum = [c for c in text if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    if digits < 2:
        return "text"
    if _month_in(text) or re.fullmatch(r"\d{1,2}([-/. ])(\d{1,2}|[^\W\d_]{3,9})\1\d{2,4}|"
                                       r"\d{4}-\d{2}-\d{2}", text):
        return "date"
    if digits * 3 >= len(alnum) * 2 and any(c in MARKS for c in text):
        return "figure"
    return "date" if re.fullmatch(r"\d{1,2}[-/]\d{1,2}", text) else "text"


def well_formed(text: str, what: str) -> bool:
    """Whether `text` reads as a whole figure or date (text is always well formed)."""
    if what == "figure":
        return FIGURE.fullmatch(text) is not None
    if what == "date":
        m = DATE.fullmatch(text)
        if m is None:
            return False
        if m.group(1) is None:  # ISO
            return 1 <= int(text[5:7]) <= 12 and 1 <= int(text[8:]) <= 31
        month = m.group(3)
        day_ok = 1 <= int(m.group(1)) <= 31
        if month.isdigit():
            return day_ok and m.group(2) != "" and 1 <= int(month) <= 12
        return day_ok and fold(month) in month_names()
    return True


def _month_in(text: str) -> bool:
    return any(fold(run) in month_names() for run in re.findall(r"[^\W\d_]{3,}", text))


def doubtful(r: Read, gate: float, lexicon: frozenset[str] = frozenset()) -> bool:
    """Whether a word wants a second reading: read below `gate`; a figure or date that is
    not well formed; a text word that is short with a glyph of LOOKALIKES, that ends in a
    mark a speck may have made (a label's colon aside), that is words of `lexicon` run
    together (`GYMMEMBERSHIP`: however sure OCR was, it may have lost a space) or words
    joined across a speck (`across_a_speck`)."""
    if r.conf < gate:
        return any(c.isalnum() for c in r.text)
    what = kind(r.text)
    if what != "text":
        return not well_formed(r.text, what)
    bare = r.text.strip(EDGE)
    short = 0 < len(bare) <= SHORT and bare.isupper() and any(c in LOOKALIKES for c in bare)
    return short or (bare != r.text and bare.isalnum() and not r.text.endswith(":")) \
        or run_together(bare, lexicon) or across_a_speck(r.text)


def judge(first: Read, second: tuple[str, float] | None, gate: float) -> list[Read]:
    """The word(s) to keep, given the second reading (None: the second pass saw nothing)."""
    if second is None:
        return [doubt(first, gate)]
    text, conf = second
    if text == first.text:
        return [replace(first, conf=max(first.conf, conf), twice=True)]
    day = date_value(first.text)
    if day is not None and day == date_value(text):
        # the same date, a speck beside it read differently: read twice all the same
        kept = first.text if well_formed(first.text, "date") or not well_formed(text, "date") \
            else text
        return [replace(first, text=kept, conf=max(first.conf, conf), twice=True)]
    what = kind(first.text)
    if what == "text" and first.text == first.text.strip(SPECK_MARKS) != "" \
            and text.strip(SPECK_MARKS) == first.text:
        # the same word, a speck beside it read as a mark by the second: read twice
        return [replace(first, twice=True)]
    if (what != "text" and not well_formed(first.text, what) and kind(text) == what
            and well_formed(text, what)):
        return [_with(first, text, conf)]
    formed = what == "text" or not well_formed(first.text, what)
    if formed and len(text) < len(first.text) and text == first.text.strip(EDGE) and text \
            and (what == "text" or well_formed(text, what)):
        return [_with(first, text, conf)]  # a speck read as a mark at the word's edge
    parts = text.split()
    apart = all(p.isalpha() for p in parts) if what == "text" else all(
        well_formed(p, kind(p)) and (p.isalpha() or kind(p) != "text") for p in parts)
    if formed and len(parts) > 1 and apart \
            and _unmarked(text.replace(" ", "")) == _unmarked(first.text):
        return _split(first, parts, conf)  # words run together, or across a speck
    return [replace(doubt(first, gate), again=text)]  # the two readings disagree


def date_value(text: str) -> str | None:
    """The date a reading prints in full (a month name or a year in it), without what a
    speck beside it may have been read as (a mark, a quote, a bracket, a part without a
    letter or digit), or None if it prints none."""
    parts = [p.strip(AROUND) for p in text.split() if any(c.isalnum() for c in p)]
    if len(parts) != 1 or kind(parts[0]) != "date" or not well_formed(parts[0], "date") \
            or re.fullmatch(r"\d{1,2}[-/.]\d{1,2}", parts[0]):
        return None
    return parts[0]


def number_like(text: str) -> bool:
    """Whether a short word of capitals reads as a number or an ordinal once its look-alike
    letters are taken for digits (`STH`, `IST`, `SO`): no number of readings tells the two
    apart, so such a word is never taken on OCR's word."""
    bare = text.strip(EDGE)
    if not (0 < len(bare) <= 4 and bare.isalpha() and bare.isupper()):
        return False
    return re.fullmatch(r"\d+(ST|ND|RD|TH)?", bare.translate(DIGITS)) is not None


def _unmarked(text: str) -> str:
    return "".join(c for c in text if c not in EDGE)


def _with(r: Read, text: str, conf: float) -> Read:
    return replace(r, text=text, conf=conf)


def _split(r: Read, parts: list[str], conf: float) -> list[Read]:
    """`r` cut into `parts` (words the first reading ran together), each with a share of
    its box in proportion to its characters."""
    total = sum(len(p) for p in parts)
    out, at = [], 0
    for p in parts:
        left = r.left + r.width * at // total
        at += len(p)
        out.append(replace(r, text=p, conf=conf, left=left,
                           width=r.left + r.width * at // total - left))
    return out


def doubt(r: Read, gate: float) -> Read:
    """`r` with a confidence below `gate`, not read twice: its second reading did not (or,
    for a word that reads as a number too, could not) confirm it."""
    return replace(r, conf=min(r.conf, gate - 1), twice=False)


def reread(image: Image.Image, words: list[Read], gate: float, timeout: float,
           env: dict[str, str], lexicon: frozenset[str] = frozenset()) -> list[Read]:
    """`words` after a second reading of the doubtful ones in `image` (8-bit; `lexicon`
    tells words run together, `doubtful`), and a third, of the page without its specks
    (`ink.despeckled`), of those the first two read differently (`settle`), of those
    joined across a speck (`apart`) and of those read with a mark at their edge
    (`unspeck`). The readings share `timeout`: the third gets what the second left.
    """
    deadline = time.monotonic() + timeout
    todo = [i for i, r in enumerate(words) if doubtful(r, gate, lexicon)]
    seconds = dict(zip(todo, _read_crops([crop(image, words[i]) for i in todo], deadline, env),
                       strict=True)) if todo else {}
    judged = {i: judge(words[i], seconds[i], gate) for i in todo}
    split = [i for i in todo if _unsettled(words[i], seconds[i], judged[i], gate)]
    joined = [i for i in todo if i not in split and across_a_speck(words[i].text)]
    marked = [i for i, r in enumerate(words)
              if i not in split + joined and _marked(judged.get(i, [r]))]
    if split or joined or marked:
        clean = despeckled(image, [crop_box(image, words[i]) for i in split + joined + marked])
        thirds = dict(zip(split + joined + marked, _read_crops(
            [crop(clean, words[i], THIRD_HEIGHT) for i in split + joined + marked],
            deadline, env), strict=True))
        for i in split:
            judged[i] = settle(words[i], seconds[i], thirds[i], gate) or judged[i]
        for i in joined:
            judged[i] = apart(words[i], seconds[i], thirds[i]) or judged[i]
        for i in marked:
            judged[i] = [unspeck(judged.get(i, [words[i]])[0], seconds.get(i), thirds[i],
                                 image)]
    for i, r in enumerate(words):
        if _speck_like(r, seconds.get(i), gate) and not holds_ink(
                image, (r.left, r.top, r.left + r.width, r.top + r.height)):
            judged[i] = []  # specks of noise OCR read as a glyph or a mark
    out: list[Read] = []
    for i, r in enumerate(words):
        out += judged.get(i, [r])
    return [doubt(r, gate) if number_like(r.text) else r for r in out]


def apart(first: Read, second: tuple[str, float] | None, third: tuple[str, float] | None
          ) -> list[Read] | None:
    """`first`, a word joined across a speck (`across_a_speck`), as the words the third
    reading, of the page without its specks, reads apart where its mark was, the mark gone:
    a printed stop or colon is a dot two pixels wide or more and stays on that page, and a
    space read where it stood says it stood between words (a quote it reads at either end
    is a larger speck, which that page keeps). Read twice where the second
    reading read their letters and digits alike; or None."""
    if third is None:
        return None
    # a quote the first reading did not see at either end is a speck the page kept
    parts = third[0].strip(QUOTES).split()
    whole = "".join(c for c in first.text if c not in MARKS)
    if len(parts) < 2 or "".join(parts) != whole or not all(PLAIN.fullmatch(p) for p in parts):
        return None
    twice = second is not None and "".join(
        c for c in second[0] if c not in MARKS + " ") == whole
    conf = min(third[1], second[1]) if twice and second else third[1]
    return [replace(r, twice=twice) for r in _split(first, parts, conf)]


def _marked(kept: list[Read]) -> bool:
    """Whether what is kept of a word is one word with a mark at its edge (a figure's or
    a date's aside: the running balance and the period weigh those)."""
    if len(kept) != 1:
        return False
    bare = kept[0].text.strip(SPECK_MARKS)
    return bare != kept[0].text and any(c.isalnum() for c in bare) \
        and kind(kept[0].text) == "text"


def _speck_like(first: Read, second: tuple[str, float] | None, gate: float) -> bool:
    """Whether a word is what OCR makes of a speck of noise: a mark alone, or a glyph or
    two read below `gate` that the second reading saw no letter or digit in."""
    if not any(c.isalnum() for c in first.text):
        return True
    return len(first.text) <= SPECK_GLYPHS and first.conf < gate and (
        second is None or not any(c.isalnum() for c in second[0]))


def unspeck(kept: Read, second: tuple[str, float] | None, third: tuple[str, float] | None,
            image: Image.Image) -> Read:
    """`kept`, a word with a mark at its edge, without that mark where the page shows it
    is a speck of noise: the page without its specks reads the word without it (a printed
    stop or colon is a dot at least two pixels wide, and stays), or the mark's ink, apart
    from the glyphs, is smaller than a printed stop could be (`ink.speck_mark`); it counts
    as read twice where two readings read its letters alike, unless the `second` read a
    digit of it otherwise (`settle` weighs such a vote the same way). Otherwise `kept`
    stands."""
    bare = kept.text.strip(SPECK_MARKS)
    box = (kept.left, kept.top, kept.left + kept.width, kept.top + kept.height)
    specks = (third is not None and third[0] == bare) or all(
        speck_mark(image, box, right) for right, mark in
        ((False, kept.text[0]), (True, kept.text[-1])) if mark in SPECK_MARKS)
    twice = kept.twice or (third is not None and third[0].strip(SPECK_MARKS) == bare and (
        second is None or not _digits_differ(bare, second[0].strip(SPECK_MARKS))))
    return replace(kept, text=bare, twice=twice) if specks else kept


def _unsettled(first: Read, second: tuple[str, float] | None, kept: list[Read],
               gate: float) -> bool:
    """Whether what is kept of a date, or of a word of letters and digits, goes to review
    because its second reading read it otherwise, or read nothing."""
    if len(kept) != 1 or kept[0].twice or kept[0].conf >= gate:
        return False
    if second is None:
        return first.text.isalnum()
    return second[0] != first.text and (
        date_value(first.text) is not None or date_value(second[0]) is not None
        or first.text.isalnum() or second[0].isalnum())


def settle(first: Read, second: tuple[str, float] | None, third: tuple[str, float] | None,
           gate: float) -> list[Read] | None:
    """The word as a third reading settles it, or None. Two readings of three agree on it:
    on the date it prints (the first or the second reading's, a speck beside it aside), or
    on a word of letters and digits alone (a glyph the first two read differently, or one
    the second did not read). The one they agree on stands, read twice, but below `gate`:
    a reading disagreed, so the rules for a doubtful date or word (period and order, a
    plain word) still weigh it. Readings that differ only in look-alike glyphs, or in a
    digit, are not settled (`_look_alikes`, `_digits_differ`), unless one of them is no
    date at all (`46-Dec` beside `16-Dec`: `_one_no_date`)."""
    if third is None or (second is not None and (
            _look_alikes(first.text, second[0]) or (_digits_differ(first.text, second[0])
                                                    and not _one_no_date(first.text, second[0])))):
        return None
    for text, conf in ((first.text, first.conf), *([second] if second else [])):
        day = date_value(text)
        if (day is not None and day == date_value(third[0])) or (
                third[0] == text and text.isalnum()):
            return [replace(first, text=text, conf=min(max(conf, third[1]), gate - 1),
                            twice=True)]
    return None


def _look_alikes(a: str, b: str) -> bool:
    """Whether two readings differ only in glyphs OCR takes for one another (`STH`, `5TH`):
    readings split that way split at random, and a third settles nothing."""
    def glyphs(t: str) -> str:
        return t.translate(DIGITS).upper().translate(DIGITS)
    return a != b and glyphs(a) == glyphs(b)


def _digits_differ(a: str, b: str) -> bool:
    """Whether two readings differ in a digit (`4471`, `4477`; `1ST`, `IST`): a third
    reading is the same engine on the same pixels, no independent witness, and its vote
    would choose a figure's digit. Readings that differ only in letters or marks do not."""
    if [c for c in a if c.isdigit()] != [c for c in b if c.isdigit()]:
        return True
    return len(a) == len(b) and any(x != y and (x.isdigit() or y.isdigit())
                                    for x, y in zip(a, b, strict=True))


def _one_no_date(a: str, b: str) -> bool:
    """Whether one of two date readings is no date at all (`46-Dec`) and the other is one:
    then they do not split between two days, and the third reading only confirms the one
    date read, as a second reading agreeing with a first does."""
    return kind(a) == kind(b) == "date" and (date_value(a) is None) != (date_value(b) is None)


def crop_box(image: Image.Image, r: Read) -> tuple[int, int, int, int]:
    """The word's box with a little of the page around it, within the page."""
    pad = max(2, r.height // 4)
    return (max(r.left - pad, 0), max(r.top - pad, 0),
            min(r.left + r.width + pad, image.width), min(r.top + r.height + pad, image.height))


def crop(image: Image.Image, r: Read, height: int = TEXT_HEIGHT) -> Image.Image:
    """The word's box with a little of the page around it, enlarged until its text is about
    `height` pixels high, on a white margin."""
    piece = image.crop(crop_box(image, r))
    scale = max(1.0, height / max(r.height, 1))
    if scale > 1.0:
        piece = piece.resize((round(piece.width * scale), round(piece.height * scale)),
                             Image.Resampling.BICUBIC)
    out = Image.new("L", (piece.width + 2 * MARGIN, piece.height + 2 * MARGIN), 255)
    out.paste(piece, (MARGIN, MARGIN))
    return out


def _read_crops(crops: list[Image.Image], deadline: float, env: dict[str, str]
                ) -> list[tuple[str, float] | None]:
    """Every crop read by the process's second-reading tesseract by `deadline`
    (`time.monotonic`); per crop its words
    joined by a space and their least confidence, or None where it read nothing
    (`TesseractStopped` if tesseract stops: the caller names the page)."""
    with tempfile.TemporaryDirectory(prefix="stmtflow-reread-") as folder:
        names = []
        for n, c in enumerate(crops):
            path = Path(folder) / f"{n}.pgm"
            path.write_bytes(b"P5\n%d %d\n255\n" % c.size + c.tobytes())
            names.append(str(path))
        pages = READER.read(names, deadline - time.monotonic(), env)
    out: list[tuple[str, float] | None] = []
    for rows in pages:
        got = sorted((int(row[6]), row[11].strip(), float(row[10])) for row in rows
                     if row[11].strip() and float(row[10]) >= 0)
        out.append((" ".join(t for _, t, _ in got), min(c for _, _, c in got)) if got else None)
    return out
