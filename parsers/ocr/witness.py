"""A second OCR engine, independent of tesseract, as a witness to the words it read.

Tesseract reading its own pixels again is no independent witness: it errs the same way
twice. RapidOCR (the PP-OCR recogniser on onnxruntime, its model shipped in its wheel) is
another network trained on other data, so where both read a word alike, a misread would
have had to happen twice in two unrelated ways. It reads the words tesseract found, each cut
out of the same page image (`reread.crop_box`), in one batch per page: its own detector
would cost more than tesseract's whole reading, and the boxes only say where to look, not
what is printed there. Each word it reads is then

- agreed: both read it alike once the glyphs each engine confuses without changing a value
  are folded (`same`): it is read twice, with at least the review confidence;
- disputed: they read different letters or digits: it stays below the review confidence,
  not read twice, with the second reading kept beside it (`Word.second`) to show a person;
- neither, where they differ only in a mark at the word's edge (a speck either may read as
  a stop), or where the second read nothing: the first reading's own evidence stands.

Two numbers side by side (`20251 10400193`) are also read together, in one crop: read word
by word, neither engine says whether the space is printed or one number was cut in two, and
the pair stands only where the second engine reads the same two words apart (`read_pairs`).

Words the second engine is not asked about are those it could add nothing to at the cost
of a page: plain words of the language tesseract read confidently. Every word holding a
digit (every figure and date) and every word tesseract doubted is read.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from parsers.dates import fold, month_names
from parsers.identity import second_model
from parsers.ocr.ink import unread_glyph
from parsers.ocr.reread import (
    MARKS,
    SPECK_MARKS,
    Read,
    crop_box,
    date_value,
    doubt,
    kind,
    well_formed,
)
from parsers.ocr.trust import numbers_apart

if TYPE_CHECKING:
    from parsers.pdf.lines import Line
    from parsers.pdf.page import Word

#: Letters whose capital and small forms differ only in size: the PP-OCR recogniser, which
#: sees a word without its line, often reads one case for the other (`XXXXxX1167`).
_SIZE_ONLY = str.maketrans("CKOPSUVWXZ", "ckopsuvwxz")
#: The recogniser's input width per image, in pixels at its 48-pixel height: short words
#: padded to its default 320 cost three times their own width.
_REC_WIDTH = 96
#: Words recognised in one call: more, padded to the widest, cost more than they save.
_REC_BATCH = 6
#: A second reading scored below this says too little to agree with.
MIN_SCORE = 0.5
#: A plain word of the language tesseract read with at least the review confidence and at
#: least this many letters is not read again: a misread that spells another such word,
#: confidently, is what the second engine would cost a page to find.
_PLAIN_LETTERS = 4


@functools.cache
def _recogniser() -> Any:
    """The recogniser, loaded once per process on first use, one thread (the parse workers
    are the parallelism)."""
    from rapidocr_onnxruntime.ch_ppocr_rec import TextRecognizer
    from rapidocr_onnxruntime.main import DEFAULT_CFG_PATH
    from rapidocr_onnxruntime.utils import read_yaml

    config = read_yaml(str(DEFAULT_CFG_PATH))["Rec"]
    config.update(model_path=str(second_model()), intra_op_num_threads=1,
                  inter_op_num_threads=1, rec_img_shape=[3, 48, _REC_WIDTH],
                  rec_batch_num=_REC_BATCH)
    return TextRecognizer(config)


def asked(r: Read, gate: float, lexicon: frozenset[str]) -> bool:
    """Whether the second engine reads `r`: a word holding a letter or digit, unless it is
    a plain word of the language (`lexicon`) that tesseract read confidently."""
    if not any(c.isalnum() for c in r.text):
        return False
    plain = r.text.strip(SPECK_MARKS)
    return not (r.conf >= gate and plain.isalpha() and len(plain) >= _PLAIN_LETTERS
                and plain.upper() in lexicon)


def second_readings(image: Image.Image, reads: list[Read],
                    page: list[Read] | None = None) -> list[tuple[str, float]]:
    """The second engine's reading (text, score 0-1) of each word's box in `image`, with a
    little of the page around it: up to a quarter of its height beside it, but never past
    half the gap to a neighbour on its line among `page` (the page's words; by default
    `reads`), whose glyphs it would read into the word; then a white margin."""
    if not reads:
        return []
    grey = np.asarray(image if image.mode == "L" else image.convert("L"))
    reach = _reach(reads, page if page is not None else reads)
    crops = []
    for r, (before, after) in zip(reads, reach, strict=True):
        _, top, _, bottom = crop_box(image, r)
        left, right = max(r.left - before, 0), min(r.left + r.width + after, image.width)
        crop = np.pad(grey[top:bottom, left:right], ((0, 0), (r.height // 2,) * 2),
                      constant_values=255)  # white: the recogniser wants a margin
        crops.append(np.repeat(crop[:, :, None], 3, axis=2))
    found, _ = _recogniser()(crops)
    return [(text.strip(), float(score)) for text, score in found]


def _reach(reads: list[Read], page: list[Read], share: float = 0.25
           ) -> list[tuple[int, int]]:
    """How far each word's crop may reach left and right of its box (`second_readings`):
    `share` of its height, never past half the gap to a neighbour on its line."""
    lines: dict[int, list[Read]] = {}
    for w in page:
        lines.setdefault(w.line, []).append(w)
    out = []
    for r in reads:
        pad = max(2, int(r.height * share))
        left = [w.left + w.width for w in lines.get(r.line, ()) if w.left + w.width <= r.left]
        right = [w.left for w in lines.get(r.line, ()) if w.left >= r.left + r.width]
        out.append((min(pad, (r.left - max(left)) // 2) if left else pad,
                    min(pad, (min(right) - r.left - r.width) // 2) if right else pad))
    return out


def left_out(image: Image.Image, reads: list[Read], gate: float) -> list[Read]:
    """`reads` with every word holding a digit doubted where the page shows a glyph beside
    it, within its height and short of its neighbours, that neither engine read into it:
    a reference read short by a digit changes no figure the arithmetic checks."""
    todo = [i for i, r in enumerate(reads) if any(c.isdigit() for c in r.text)]
    out = list(reads)
    for i, reach in zip(todo, _reach([reads[i] for i in todo], reads, share=1.0),
                        strict=True):
        r = reads[i]
        if unread_glyph(image, (r.left, r.top, r.left + r.width, r.top + r.height), reach):
            out[i] = doubt(r, gate)
    return out


def witness(image: Image.Image, reads: list[Read], gate: float,
            lexicon: frozenset[str]) -> list[Read]:
    """`reads` with the second engine's verdict on each word it is `asked` about, and its
    reading of every two numbers side by side (`read_pairs`)."""
    todo = [i for i, r in enumerate(reads) if asked(r, gate, lexicon)]
    out = list(reads)
    for i, (text, score) in zip(todo, second_readings(image, [reads[i] for i in todo], reads),
                                strict=True):
        out[i] = weigh(reads[i], text, score, gate)
    return cut_figures_joined(read_pairs(image, out), gate)


def read_pairs(image: Image.Image, reads: list[Read]) -> list[Read]:
    """`reads` with the second engine's reading of every two numbers side by side on a line
    (`numbers_apart`, a word's space apart), and of every word and two decimals after it
    (`_decimals_apart`), both in one crop, kept on the second of them: read word by word,
    no engine says whether the space between them is printed or one number was cut in two.
    A reading scored below MIN_SCORE is kept as nothing read."""
    lines: dict[int, list[int]] = {}
    for i, r in enumerate(reads):
        lines.setdefault(r.line, []).append(i)
    pairs = [(a, b) for idx in lines.values()
             for a, b in itertools.pairwise(sorted(idx, key=lambda i: reads[i].left))
             if (numbers_apart(reads[a].text, reads[b].text) and _spaced(reads[a], reads[b]))
             or _decimals_apart(reads[a], reads[b])]
    if not pairs:
        return reads
    joint = []
    for a, b in pairs:
        first, second = reads[a], reads[b]
        top = min(first.top, second.top)
        joint.append(replace(first, text=f"{first.text} {second.text}", top=top,
                             width=second.left + second.width - first.left,
                             height=max(first.top + first.height,
                                        second.top + second.height) - top))
    out = list(reads)
    for (_, b), (text, score) in zip(pairs, second_readings(image, joint, reads), strict=True):
        out[b] = replace(out[b], pair=text if score >= MIN_SCORE else "")
    return out


def cut_figures_joined(reads: list[Read], gate: float) -> list[Read]:
    """`reads` with two numbers side by side made one figure where the second engine, reading
    both in one crop (`read_pairs`), read a well-formed figure of their very digits and a
    decimal mark tesseract read as a space (`132 76` for `132.76`, `L278 91` for
    `1,278.91`: a typewriter face's wide stop). The figure is doubted: one engine saw the
    mark, so the running balance alone pins it or the statement goes to review."""
    out: list[Read] = []
    for r in reads:
        first = out[-1] if out and out[-1].line == r.line else None
        if first is not None and r.pair and _cut_figure(first.text, r.text, r.pair):
            out[-1] = replace(first, text=r.pair, conf=min(first.conf, r.conf, gate - 1),
                              width=r.left + r.width - first.left,
                              top=min(first.top, r.top),
                              height=max(first.top + first.height, r.top + r.height)
                              - min(first.top, r.top),
                              twice=False, second=r.pair, again=None, pair=None)
            continue
        out.append(r)
    return out


def _cut_figure(first: str, second: str, joint: str) -> bool:
    """Whether `joint` is a well-formed figure of the digits of `first` and then `second`
    (a letter of theirs standing for a digit: `L278`), cut at its decimal mark: `second`
    is its two decimals."""
    if not (well_formed(joint, "figure") and kind(joint) == "figure"):
        return False
    printed = [c for c in first + second if c.isalnum()]
    digits = [c for c in joint if c.isdigit()]
    return (len(second) == 2 and second.isalnum() and _DECIMALS.search(joint) is not None
            and len(printed) == len(digits) and sum(p.isalpha() for p in printed) <= 1
            and all(p == d or p.isalpha() for p, d in zip(printed, digits, strict=True)))


#: A figure's decimal mark and two decimals at its end, before a sign or a bracket.
_DECIMALS = re.compile(r"[.,]\d{2}(?:-|\+|CR|DR|Cr|Dr|\))?$")


def marked_numbers(reads: list[Read], gate: float) -> list[Read]:
    """`reads` with every word that is no figure or full date but ends in a digit and a stop,
    comma, colon or semicolon (`2025110400193.`, `11/02.`) below `gate`, however many
    readings agree: a speck after a number reads as a stop to both engines, and print puts
    a stop after a reference number far more rarely than noise does."""
    return [replace(r, conf=min(r.conf, gate - 1), twice=False)
            if _number_then_mark(r.text) else r for r in reads]


def _number_then_mark(text: str) -> bool:
    """Whether `text` ends in a digit and a mark, and is no figure (whose punctuation the
    running balance weighs) and no full date (whose specks the period and order weigh)."""
    body = text[:-1]
    return len(text) > 2 and text[-1] in MARKS and body[-1].isdigit() \
        and not well_formed(body, "figure") and date_value(body) is None


def substitute(image: Image.Image, reads: list[Read], gate: float,
               lexicon: frozenset[str]) -> list[Read]:
    """`reads` with the second engine's reading in place of tesseract's for every word it
    is `asked` about (its score as the confidence, read once): the second engine alone on
    tesseract's boxes, to measure what it gets right without a witness."""
    todo = [i for i, r in enumerate(reads) if asked(r, gate, lexicon)]
    out = list(reads)
    for i, (text, score) in zip(todo, second_readings(image, [reads[i] for i in todo], reads),
                                strict=True):
        if text:
            out[i] = replace(reads[i], text=text, conf=100 * score, twice=False)
    return out


def weigh(first: Read, text: str, score: float, gate: float) -> Read:
    """`first` with the second engine's reading `text` (scored `score`) weighed: agreed,
    disputed, or left as it was (see the module's note); a second reading scored below
    MIN_SCORE says nothing either way. A date or figure tesseract read with a look-alike
    glyph or a mark for its decimal point (`O1/15`, `224:10`) that the second reads well
    formed, the same glyphs in the same places, takes the second's reading: two engines
    read it alike (`_mended`). Where tesseract's two readings disagree (`reread.py`), the
    one the second engine reads alike stands, unless it holds more words than the word."""
    if score >= MIN_SCORE and _mended(first.text, text):
        return replace(first, text=text, conf=max(first.conf, gate), twice=True, second=text)
    verdict = same(first.text, text)
    again = _read_again_alike(first, text) if verdict is False and score >= MIN_SCORE else None
    if again is not None:
        # tesseract's second reading, from the word's crop without its dictionary, and the
        # second engine read it alike: two readings of three, by two engines
        return replace(first, text=again, conf=max(first.conf, gate), twice=True, second=text)
    if verdict and score >= MIN_SCORE:
        return replace(first, conf=max(first.conf, gate), twice=True, second=text)
    if verdict is False and text and score >= MIN_SCORE:
        if _no_figure(first.text) and well_formed(text, "figure") and kind(text) == "figure":
            # a figure tesseract read as no figure at all (`2ATBIT` for `2,175.77`,
            # `S4415.933:` for `311.93`): the second's reading, doubted, for the running
            # balance alone to pin or not
            return replace(first, text=text, conf=min(first.conf, gate - 1), twice=False,
                           second=text)
        return replace(first, conf=min(first.conf, gate - 1), twice=False, second=text)
    return replace(first, second=text)


def _read_again_alike(first: Read, text: str) -> str | None:
    """Tesseract's second reading of `first` where the second engine's `text` reads alike,
    a stop or colon after a figure that only tesseract read aside (a speck beside it); None
    where they differ, or where it holds a word more than `first` (both crops reached into
    a neighbour the page reads as a word of its own)."""
    again = first.again
    if not again or len(again.split()) != len(first.text.split()):
        return None
    if same(again, text):
        return again
    bare = again.rstrip(MARKS)
    return bare if bare != again and well_formed(bare, "figure") and same(bare, text) else None


def _no_figure(text: str) -> bool:
    """Whether a reading holds no figure: text, or a figure's marks out of place."""
    what = kind(text)
    return what == "text" or (what == "figure" and not well_formed(text, "figure"))


def same(first: str, second: str) -> bool | None:
    """Whether two engines' readings of a word agree: True, False, or None where they
    differ only in marks at the word's edges (`14-Jun-2024.`; a speck either may read as a
    stop) or in upright strokes (`ID`, `D`, `1D`: no word of text says which was printed),
    or the second read nothing. A mark the second adds at an edge where the first
    reads none agrees (the PP-OCR recogniser often ends a word cut from its line with a
    stop), and so does a date or figure the second reads with look-alike glyphs where the
    first is well formed (`1l-jan-2024`, `0ct`: `_as_formed`)."""
    a, b = _folded(first), _folded(second)
    if not b:
        return None
    b = _as_formed(a, b)
    if a == b or (a and a == a.strip(SPECK_MARKS) and b.strip(_ADDED) == a):
        return True
    if a.strip(SPECK_MARKS) == b.strip(SPECK_MARKS) != "" or (a[:1] in _STROKES and a[1:] == b):
        return None
    if kind(first) == "text" and len(a) == len(b) and all(
            x == y or (x in _STROKES and y in _STROKES) for x, y in zip(a, b, strict=True)):
        return None  # `ID` and `1D`: a stroke the recogniser reads either way
    return False


#: A glyph of one upright stroke: the PP-OCR recogniser drops one that starts a word cut
#: from its line (`D` for `ID` at 0.94), so its reading without it says nothing.
_STROKES = frozenset("Il1|")


#: Marks the second engine adds at a word's edge that change no value (a sign does).
_ADDED = SPECK_MARKS.replace("-", "") + "\u00b7"
#: In a well-formed date or figure, what a look-alike glyph of the second reading stands
#: for: a digit where the first reads a digit, a letter of the month where it reads one.
_AS_DIGIT = str.maketrans("OoDQIl|!SsZzBG", "00001111552286")
_AS_LETTER = str.maketrans("015826", "OISBZG")


def _as_formed(first: str, second: str) -> str:
    """`second` read glyph for glyph as `first`, a well-formed date or figure of the same
    length, reads it: a look-alike of a digit where `first` prints a digit, of a letter
    where it prints a letter (any case: a month is a month in either), so that the two
    compare by value. A word of letters (`STH`, `5TH`) is never read so: no value tells
    which was printed."""
    what = kind(first)
    if what == "text" or not _formed(first, what) or len(first) != len(second):
        return second
    out = []
    for x, y in zip(first, second, strict=True):
        if x.isdigit() and not y.isdigit():
            y = y.translate(_AS_DIGIT)
        elif x.isalpha():
            y = y.translate(_AS_LETTER)
            y = x if y.lower() == x.lower() else y
        elif what == "figure" and x in MARKS and y in MARKS:
            y = x  # `4;012.18`: the first's marks are the well-formed ones
        out.append(y)
    return _month_as(first, "".join(out)) if what == "date" else "".join(out)


def _month_as(first: str, second: str) -> str:
    """`second` with its month read as `first`'s where it prints no month and every month
    a glyph away from what it prints is `first`'s (`Noy` beside `Nov`)."""
    months = month_names()
    mine, theirs = _MONTH.search(first), _MONTH.search(second)
    if mine is None or theirs is None or mine.span() != theirs.span():
        return second
    want, got = fold(mine.group()), fold(theirs.group())
    if got in months or want not in months:
        return second
    near = {n for name, n in months.items() if len(name) == len(got)
            and sum(a != b for a, b in zip(name, got, strict=True)) == 1}
    return first[:mine.end()] + second[mine.end():] if near == {months[want]} else second


_MONTH = re.compile(r"[^\W\d_]{3,}")


def _mended(first: str, second: str) -> bool:
    """Whether `second` is `first`, a date or figure read with look-alike glyphs or marks
    (`O1/15`, `224:10`), well formed: the same glyphs once each of `first`'s is read as
    the digit, letter or mark `second` prints there (`_as_formed`)."""
    what = kind(second)
    return (what != "text" and _formed(second, what) and not _formed(first, what)
            and len(first) == len(second) and _as_formed(second, first) == second)


def _formed(text: str, what: str) -> bool:
    """`well_formed`, a day and month in either order (`01/15`) as well."""
    m = _DAY_AND_MONTH.fullmatch(text)
    return well_formed(text, what) or (what == "date" and m is not None and 1 <= min(
        int(m[1]), int(m[2])) <= 12 and 1 <= max(int(m[1]), int(m[2])) <= 31)


_DAY_AND_MONTH = re.compile(r"(\d{1,2})[-/.](\d{1,2})(?:[-/.]\d{2}(?:\d{2})?)?")


def _folded(text: str) -> str:
    """A reading without what the engines print differently for the same glyphs: full-width
    forms (`：`), curly quotes, spaces (the PP-OCR recogniser drops most of them) and the
    case of the letters whose two cases differ only in size."""
    plain = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return "".join(plain.split()).translate(_SIZE_ONLY)


_QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")


def _spaced(first: Read, second: Read, heights: float = 1.0) -> bool:
    """Whether two words on a line stand a word's space apart, not a column's: no wider
    than `heights` times their height (figures in columns stand many times that apart)."""
    return second.left - (first.left + first.width) <= heights * max(first.height,
                                                                      second.height)


def _decimals_apart(first: Read, second: Read) -> bool:
    """Whether `second` may be the two decimals of a figure `first` begins, its stop read as
    a space: two digits (or look-alikes) after a word ending in a digit or look-alike,
    less than a glyph and a half of a typewriter face apart (`1,278 91`)."""
    return (len(second.text) == 2 and second.text.isalnum()
            and any(c.isdigit() for c in first.text) and first.text[-1:].isalnum()
            and _spaced(first, second, heights=1.5))


def joint_readings(lines: list[Line]) -> dict[tuple[str, str], list[str]]:
    """The second engine's readings (`read_pairs`) of every two numbers side by side on
    `lines`, by the two words' text, one per place they stand."""
    out: dict[tuple[str, str], list[str]] = {}
    for ln in lines:
        for a, b in itertools.pairwise(ln.words):
            if b.pair is not None:
                out.setdefault((a.text, b.text), []).append(b.pair)
    return out


def read_apart(pair: tuple[str, str], readings: list[str]) -> bool:
    """Whether the second engine read the two numbers side by side of `pair`, wherever they
    stand, as two words alike with a space between them: the space is printed."""
    return bool(readings) and all(
        len(parts := text.split()) == 2
        and all(same(word, part) is not False for word, part in zip(pair, parts, strict=True))
        for text in readings)


def agreed(w: Word) -> bool:
    """Whether both engines read the word alike."""
    return w.second is not None and same(w.text, w.second) is True


def disputes(lines: list[Line]) -> list[str]:
    """Both readings of every word of `lines` the two engines read differently, for a
    person to compare."""
    return [f"page {ln.page}: tesseract read {w.text!r}, RapidOCR read {w.second!r}"
            for ln in lines for w in ln.words
            if w.second is not None and same(w.text, w.second) is False]


def unvouched(lines: list[Line], pinned: bool) -> list[str]:
    """Why a reading of OCR text without a template cannot stand on its own, one problem a
    page: on every line of `lines` that prints a figure, each word holding a digit (a
    figure, a date or part of one, a reference) must be read alike by both engines; figures
    may be left to the arithmetic where it pins every one of them (`pinned`)."""
    pages: dict[int, list[str]] = {}
    for ln in lines:
        kinds = [kind(w.text) if w.conf is not None else "text" for w in ln.words]
        if "figure" not in kinds:
            continue
        for w, what in zip(ln.words, kinds, strict=True):
            if w.conf is None or not any(c.isdigit() for c in w.text) or agreed(w) or (
                    what == "figure" and pinned):
                continue
            said = (f"RapidOCR read {w.second!r}" if w.second
                    else "RapidOCR read nothing there" if w.second == ""
                    else "RapidOCR did not read it")
            pages.setdefault(ln.page, []).append(f"{w.text!r} ({said})")
    return [f"page {page}: {len(words)} word(s) holding a digit that tesseract read are not "
            f"vouched for by the second engine, and no template describes this statement: "
            + ", ".join(words[:_SHOWN]) + (", ..." if len(words) > _SHOWN else "")
            for page, words in pages.items()]


#: The words named in a page's problem of unvouched words.
_SHOWN = 8
