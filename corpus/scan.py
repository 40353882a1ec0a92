"""Turn a text PDF into what a scanner returns: image-only pages, skewed and noisy."""

from __future__ import annotations

import io
import random
import time

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter

from corpus.variant import ScanQuality
from parsers.pdf.pdfium import LOCK

#: PIL stamps the time of saving into a PDF; a fixed one keeps the corpus reproducible.
FIXED = time.gmtime(1767225600)  # 2026-01-01


def to_scan(pdf: bytes, rng: random.Random) -> bytes:
    """Rasterise every page at 200-300 dpi, rotate slightly, sprinkle noise, embed as images."""
    quality = ScanQuality(dpi=rng.choice([200, 240, 300]), skew=rng.uniform(-0.6, 0.6))
    return scan_with(pdf, quality, np.random.default_rng(rng.randint(0, 2**32 - 1)))


def scan_with(pdf: bytes, q: ScanQuality, noise: np.random.Generator) -> bytes:
    """The pages of `pdf` as `q` describes a scan of them: resolution, skew, speckles, blur,
    the JPEG quality of the embedded images, and for a photograph its perspective on a
    darker ground and its uneven light."""
    with LOCK:
        doc = pdfium.PdfDocument(pdf)
        try:
            rendered = [p.render(scale=q.dpi / 72, grayscale=True).to_pil().convert("L")
                        for p in doc]
        finally:
            doc.close()
    pages: list[Image.Image] = []
    for img in rendered:
        img = img.rotate(q.skew, resample=Image.Resampling.BICUBIC, expand=False,
                         fillcolor=255)
        if q.perspective:
            img = _in_perspective(img, q.perspective, noise)
        if q.blur:
            img = img.filter(ImageFilter.GaussianBlur(q.blur))
        pixels = np.asarray(img).copy()
        if q.light:
            pixels = _lit_unevenly(pixels, q.light, noise)
        specks = noise.random(pixels.shape) < q.noise
        pixels[specks] = noise.integers(0, 160, int(specks.sum()))
        pages.append(Image.fromarray(pixels, mode="L"))
    out = io.BytesIO()
    pages[0].save(out, "PDF", resolution=float(q.dpi), save_all=True, append_images=pages[1:],
                  quality=q.jpeg, creationDate=FIXED, modDate=FIXED)
    return out.getvalue()


#: The ground a photographed sheet lies on (8-bit grey), and how much of the photograph's
#: side it shows around the sheet.
_GROUND = 70
_MARGIN = 0.04


def _in_perspective(img: Image.Image, shift: float, rng: np.random.Generator) -> Image.Image:
    """The sheet as a camera held not quite square above it sees it: each corner moved by
    up to `shift` of the page's sides, on a darker ground around it."""
    w, h = img.size
    pad_x, pad_y = round(w * _MARGIN), round(h * _MARGIN)
    frame = Image.new("L", (w + 2 * pad_x, h + 2 * pad_y), _GROUND)
    frame.paste(img, (pad_x, pad_y))
    W, H = frame.size
    sheet = [(pad_x, pad_y), (pad_x + w, pad_y), (pad_x + w, pad_y + h), (pad_x, pad_y + h)]
    moved = [(x + rng.uniform(-shift, shift) * w, y + rng.uniform(-shift, shift) * h)
             for x, y in sheet]
    # PIL maps each output pixel back into the input: the coefficients of moved -> sheet
    coeffs = _perspective(moved, sheet)
    return frame.transform((W, H), Image.Transform.PERSPECTIVE, coeffs,
                           Image.Resampling.BICUBIC, fillcolor=_GROUND)


def _perspective(source: list[tuple[float, float]], target: list[tuple[float, float]]
                 ) -> tuple[float, ...]:
    """PIL's eight perspective coefficients taking each point of `source` to `target`."""
    rows = []
    for (x, y), (u, v) in zip(source, target, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    solved = np.linalg.solve(np.array(rows, float), np.array(target, float).ravel())
    return tuple(float(c) for c in solved)


def _lit_unevenly(pixels: np.ndarray, depth: float, rng: np.random.Generator) -> np.ndarray:
    """`pixels` under light that falls off from one side of the photograph to the other by
    up to `depth` of its brightness."""
    h, w = pixels.shape
    angle = rng.uniform(0, 2 * np.pi)
    ys, xs = np.mgrid[0:h, 0:w]
    ramp = (xs / w - 0.5) * np.cos(angle) + (ys / h - 0.5) * np.sin(angle)
    light = 1.0 - depth * (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-9)
    return np.clip(pixels * light, 0, 255).astype(np.uint8)


def tiny_scan() -> bytes:
    """A one-page scan of 60x40 pixels: nothing in it can be read."""
    img = Image.new("L", (60, 40), 255)
    out = io.BytesIO()
    img.save(out, "PDF", resolution=20.0)
    return out.getvalue()
