"""Scans from another producer: statements the corpus draws as text, photocopied.

`corpus/scan.py` is the project's own scanner, and what the readers were tuned on; a reader
is judged on scans it has not seen. This producer shares none of its code or its habits:
pages are rasterised by pdfium at 150-300 dpi, then degraded with OpenCV as a worn copier
or a phone camera does — toner that greys the paper and thins the ink, light that pools
rather than ramps, a turn about a point off the page's centre, a keystoned perspective, a
blur along one direction (a moving sheet), salt and pepper, a JPEG of its own quality — and
embedded as JPEG images by pdfium (not PIL) in a PDF with no text layer.

The statements are of several kinds of producer the corpus has: the reference layouts
(`corpus/banks.py`, Meridian with a reference number in every description), the look-alike
banks (`corpus.lookalikes`) and a web page printed by Chromium (`corpus/webpage.py`), long
ones (60-200 rows) among them. `photocopies(out, statements, seed)` writes each as
`<stem>.pdf`, its `<stem>.truth.json` and the knobs drawn in `<stem>.variant.json`.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
import pypdfium2 as pdfium

from corpus import Sample
from corpus.banks import RENDERERS, Printed
from corpus.lookalikes import LOOKALIKES
from corpus.truth import Draw, with_references
from corpus.variant import Variant
from corpus.webpage import page, print_pdf
from parsers.model import Statement
from parsers.pdf.pdfium import LOCK

#: what a statement is drawn by, cycled by index: reference layouts, look-alikes, a web page
SOURCES = ("meridian", "northwind", "chase", "bluebird", "bank-of-america", "webpage",
           "alpenbank", "woodforest", "meridian", "santander-uk", "harbor", "webpage")
#: one statement in this many is long (60-200 rows)
LONG_EVERY = 4


@dataclass(frozen=True)
class Copy:
    """How one statement was photocopied: each knob a degradation of its own."""

    dpi: int
    angle: float  # degrees, about a point off the page's centre
    keystone: float  # share of a side each corner moves by (0: flat on the glass)
    toner: float  # how much the ink thins and the paper greys (0-1)
    light: float  # depth of the pools of uneven light (0-1)
    streak: int  # length in pixels of the blur along one direction (0: none)
    salt: float  # share of pixels turned white or black
    jpeg: int


def draw_copy(rng: random.Random) -> Copy:
    """Knobs of a copy that a person still reads without effort."""
    dpi = rng.choice([150, 200, 200, 240, 300])
    return Copy(dpi=dpi, angle=round(rng.uniform(-2.0, 2.0), 2),
                keystone=round(rng.choice([0.0, 0.0, rng.uniform(0.005, 0.025)]), 3),
                toner=round(rng.uniform(0.0, 0.35), 2),
                light=round(rng.choice([0.0, rng.uniform(0.1, 0.35)]), 2),
                streak=rng.choice([0, 0, 2, 3]) if dpi >= 200 else rng.choice([0, 2]),
                salt=rng.choice([0.0005, 0.001, 0.002]),
                jpeg=rng.choice([45, 60, 75, 90]) if dpi >= 200 else rng.choice([75, 90]))


def photocopy(pdf: bytes, copy: Copy, seed: int) -> bytes:
    """The pages of `pdf` photocopied as `copy` says, as an image-only PDF."""
    noise = np.random.default_rng(seed)
    with LOCK:
        doc = pdfium.PdfDocument(pdf)
        try:
            pages = [np.asarray(p.render(scale=copy.dpi / 72, grayscale=True).to_pil().convert("L"))
                     for p in doc]
        finally:
            doc.close()
    return _image_pdf([_degrade(px, copy, noise) for px in pages], copy.dpi)


def _degrade(px: np.ndarray, c: Copy, noise: np.random.Generator) -> bytes:
    """One page's pixels degraded, as JPEG bytes."""
    h, w = px.shape
    img = px.astype(np.float32)
    # toner: the paper greys and the ink thins towards it
    paper, ink = 255 - 30 * c.toner, 60 * c.toner
    img = ink + img * (paper - ink) / 255
    centre = (w * noise.uniform(0.3, 0.7), h * noise.uniform(0.3, 0.7))
    turn = cv2.getRotationMatrix2D(centre, c.angle, 1.0)
    img = cv2.warpAffine(img, turn, (w, h), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=float(paper))
    if c.keystone:
        corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        moved = corners + noise.uniform(-c.keystone, c.keystone, (4, 2)).astype(
            np.float32) * np.float32([w, h])
        img = cv2.warpPerspective(img, cv2.getPerspectiveTransform(corners, moved), (w, h),
                                  flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
    if c.light:
        coarse = noise.uniform(1 - c.light, 1.0, (4, 3)).astype(np.float32)
        img = img * cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    if c.streak:
        kernel = np.zeros((c.streak, c.streak), np.float32)
        kernel[c.streak // 2, :] = 1 / c.streak
        spin = cv2.getRotationMatrix2D((c.streak / 2 - 0.5, c.streak / 2 - 0.5),
                                       float(noise.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, spin, (c.streak, c.streak))
        img = cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6))
    img = np.clip(img + noise.normal(0, 4, img.shape), 0, 255)
    salted = noise.random(img.shape)
    img[salted < c.salt / 2] = 0
    img[salted > 1 - c.salt / 2] = 255
    ok, jpeg = cv2.imencode(".jpg", img.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, c.jpeg])
    if not ok:
        raise RuntimeError("OpenCV could not encode a page as JPEG")
    return jpeg.tobytes()


def _image_pdf(jpegs: list[bytes], dpi: int) -> bytes:
    """Each JPEG a page of its own size at `dpi`, embedded by pdfium, no text."""
    with LOCK:
        doc = pdfium.PdfDocument.new()
        try:
            for data in jpegs:
                h, w = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE).shape
                width, height = w * 72 / dpi, h * 72 / dpi
                sheet = doc.new_page(width, height)
                image = pdfium.PdfImage.new(doc)
                image.load_jpeg(io.BytesIO(data), pages=[sheet])
                image.set_matrix(pdfium.PdfMatrix().scale(width, height))
                sheet.insert_obj(image)
                sheet.gen_content()
            out = io.BytesIO()
            doc.save(out)
        finally:
            doc.close()
    return _reproducible(out.getvalue())


_STAMP = re.compile(rb"\(D:\d{14}[-+Z][^)]*\)")
_ID = re.compile(rb"/ID\s*\[<([0-9A-F]{32})><([0-9A-F]{32})>\]")


def _reproducible(pdf: bytes) -> bytes:
    """`pdf` with pdfium's time of saving fixed and its random file identifier made the
    digest of the pages: both of the same length, so the cross-reference table's offsets
    hold, and the same copy is the same file."""
    pdf = _STAMP.sub(lambda m: b"(D:20260101000000+00'00')"[:len(m[0])].ljust(len(m[0]), b" "),
                     pdf, count=1)
    digest = hashlib.md5(_ID.sub(b"", pdf), usedforsecurity=False).hexdigest().upper().encode()
    return _ID.sub(b"/ID[<" + digest + b"><" + digest + b">]", pdf, count=1)


def drawn(source: str, rows: int, references: bool, rng: random.Random) -> Printed:
    """A text statement of `source` with `rows` transactions (a web page needs Chromium)."""
    d = Draw(rng, rows, large=False, negative=rng.random() < 0.15)
    if source == "webpage":
        base = RENDERERS["northwind"](d, Variant()).truth
        accounts = [with_references(a) if references else a for a in base.accounts[:1]]
        truth = Statement("generic", accounts, base.period_start, base.period_end)
        pdf = print_pdf(page(truth, "Greenfield Community Bank",
                             f"00007731{accounts[0].account_last4}"))
        return Printed(pdf, truth)
    if source in LOOKALIKES:
        return LOOKALIKES[source](d)
    return RENDERERS[source](d, Variant(references=references and source == "meridian"))


def sources(chromium: bool | None = None) -> tuple[str, ...]:
    """`SOURCES`, without the web page where Chromium is not installed."""
    if chromium is None:
        chromium = bool(shutil.which("chromium") or shutil.which("chromium-browser"))
    return SOURCES if chromium else tuple(s for s in SOURCES if s != "webpage")


def photocopies(out: Path, statements: int, seed: int) -> list[Sample]:
    """`statements` photocopied statements written into `out` (see the module's doc)."""
    out.mkdir(parents=True, exist_ok=True)
    cycle = sources()
    samples = []
    for i in range(statements):
        rng = random.Random(f"{seed}:{i}:photocopy")
        source = cycle[i % len(cycle)]
        long = i % LONG_EVERY == LONG_EVERY - 1
        rows = rng.randint(60, 200) if long else rng.randint(3, 20)
        references = rng.random() < 0.5 and source in ("meridian", "webpage")
        printed = drawn(source, rows, references, rng)
        copy = draw_copy(rng)
        pdf = photocopy(printed.pdf, copy, rng.randint(0, 2**32 - 1))
        stem = out / f"copy-{source}-{seed}-{i:03d}"
        knobs = {"source": source, "rows": rows, "references": references,
                 "copy": asdict(copy)}
        stem.with_suffix(".variant.json").write_text(
            json.dumps({"kinds": [f"source:{source}"], "knobs": knobs}, indent=1) + "\n")
        stem.with_suffix(".pdf").write_bytes(pdf)
        truth = stem.with_suffix(".truth.json")
        truth.write_text(json.dumps(printed.truth.to_dict(), indent=1) + "\n")
        samples.append(Sample(stem.with_suffix(".pdf"), truth, source, None,
                              {"kinds": [f"source:{source}"], "knobs": knobs}))
    return samples
