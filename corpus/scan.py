"""Turn a text PDF into what a scanner returns: image-only pages, skewed and noisy."""

from __future__ import annotations

import io
import random
import time

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter

from corpus.variant import ScanQuality
from parsers.pdfium import LOCK

#: PIL stamps the time of saving into a PDF; a fixed one keeps the corpus reproducible.
FIXED = time.gmtime(1767225600)  # 2026-01-01


def to_scan(pdf: bytes, rng: random.Random) -> bytes:
    """Rasterise every page at 200-300 dpi, rotate slightly, sprinkle noise, embed as images."""
    quality = ScanQuality(dpi=rng.choice([200, 240, 300]), skew=rng.uniform(-0.6, 0.6))
    return scan_with(pdf, quality, np.random.default_rng(rng.randint(0, 2**32 - 1)))


def scan_with(pdf: bytes, q: ScanQuality, noise: np.random.Generator) -> bytes:
    """The pages of `pdf` as `q` describes a scan of them: resolution, skew, speckles, blur
    and the JPEG quality of the embedded images."""
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
        if q.blur:
            img = img.filter(ImageFilter.GaussianBlur(q.blur))
        pixels = np.asarray(img).copy()
        specks = noise.random(pixels.shape) < q.noise
        pixels[specks] = noise.integers(0, 160, int(specks.sum()))
        pages.append(Image.fromarray(pixels, mode="L"))
    out = io.BytesIO()
    pages[0].save(out, "PDF", resolution=float(q.dpi), save_all=True, append_images=pages[1:],
                  quality=q.jpeg, creationDate=FIXED, modDate=FIXED)
    return out.getvalue()


def tiny_scan() -> bytes:
    """A one-page scan of 60x40 pixels: nothing in it can be read."""
    img = Image.new("L", (60, 40), 255)
    out = io.BytesIO()
    img.save(out, "PDF", resolution=20.0)
    return out.getvalue()
