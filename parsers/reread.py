"""A second reading of the words OCR was unsure of.

Tesseract reads a page's words in context, and reports a low confidence for many words it
read right (a date in a dense row, a word next to a rule). Each such word is cut from the
page with a margin, enlarged, and read again on its own; all of a page's words go into one
strip image, so the second reading costs one more tesseract call per page, not one per word.
When the second reading gives the same text (once `mend`ed), the word keeps the better of
the two confidences; when it differs, the first reading and its low confidence stand (so
the value goes to review, or to the running balance, as before).
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from parsers.ocr_labels import mend

#: Words read below this confidence are read a second time.
REREAD_BELOW = 90.0
#: How much a word's cut-out is enlarged, and the white margin around it (in its pixels).
SCALE = 2
MARGIN = 6
#: White space between cut-outs on the strip, so each is a line of its own.
GAP = 24

#: (image, psm) -> tesseract's TSV rows
Tesseract = Callable[[Image.Image, str], list[list[str]]]


def reread(image: Image.Image, rows: list[list[str]], tesseract: Tesseract) -> list[list[str]]:
    """`rows` (tesseract TSV rows of `image`), each unsure word confirmed where a second
    reading agrees."""
    unsure = [i for i, r in enumerate(rows)
              if len(r) >= 12 and r[11].strip() and 0 <= float(r[10]) < REREAD_BELOW]
    if not unsure:
        return rows
    strip, spans = _strip(image, [rows[i] for i in unsure])
    second = _by_span(tesseract(strip, "--psm 6"), spans)
    out = list(rows)
    for i, (text, conf) in zip(unsure, second, strict=True):
        row = rows[i]
        if mend(text) == mend(row[11].strip()) and conf > float(row[10]):
            out[i] = [*row[:10], f"{conf:.6f}", row[11]]
    return out


def _strip(image: Image.Image, rows: list[list[str]]
           ) -> tuple[Image.Image, list[tuple[int, int]]]:
    """The words' cut-outs, enlarged, one under the other; and each one's vertical span."""
    cuts = []
    for r in rows:
        left, top, width, height = (int(v) for v in r[6:10])
        box = (max(left - MARGIN, 0), max(top - MARGIN, 0),
               min(left + width + MARGIN, image.width), min(top + height + MARGIN, image.height))
        cut = image.crop(box)
        cuts.append(cut.resize((cut.width * SCALE, cut.height * SCALE),
                               Image.Resampling.LANCZOS))
    width = max(c.width for c in cuts) + 2 * GAP
    height = sum(c.height + GAP for c in cuts) + GAP
    strip = Image.new("L", (width, height), 255)
    spans, y = [], GAP
    for c in cuts:
        strip.paste(c.convert("L"), (GAP, y))
        spans.append((y, y + c.height))
        y += c.height + GAP
    return strip, spans


def _by_span(rows: list[list[str]], spans: list[tuple[int, int]]) -> list[tuple[str, float]]:
    """(text, least confidence) read inside each span: words whose middle lies in it."""
    found: list[list[tuple[int, str, float]]] = [[] for _ in spans]
    for r in rows:
        if len(r) < 12 or not r[11].strip() or float(r[10]) < 0:
            continue
        left, top, height = int(r[6]), int(r[7]), int(r[9])
        middle = top + height / 2
        for k, (a, b) in enumerate(spans):
            if a <= middle <= b:
                found[k].append((left, r[11].strip(), float(r[10])))
                break
    out = []
    for words in found:
        words.sort()
        out.append((" ".join(w for _, w, _ in words), min((c for *_, c in words), default=0.0)))
    return out
