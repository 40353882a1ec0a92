"""Turn a text PDF into what a scanner returns: image-only pages, skewed and noisy."""

from __future__ import annotations

import io
import random

import numpy as np
import pypdfium2 as pdfium
from PIL import Image

from parsers.pdfium import LOCK


def to_scan(pdf: bytes, rng: random.Random) -> bytes:
    """Rasterise every page at 200-300 dpi, rotate slightly, sprinkle noise, embed as images."""
    dpi = rng.choice([200, 240, 300])
    angle = rng.uniform(-0.6, 0.6)
    noise = np.random.default_rng(rng.randint(0, 2**32 - 1))
    with LOCK:
        doc = pdfium.PdfDocument(pdf)
        try:
            rendered = [p.render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
                        for p in doc]
        finally:
            doc.close()
    pages: list[Image.Image] = []
    for img in rendered:
        img = img.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False,
                         fillcolor=255)
        pixels = np.asarray(img).copy()
        specks = noise.random(pixels.shape) < 0.0005
        pixels[specks] = noise.integers(0, 160, int(specks.sum()))
        pages.append(Image.fromarray(pixels, mode="L"))
    out = io.BytesIO()
    pages[0].save(out, "PDF", resolution=float(dpi), save_all=True, append_images=pages[1:],
                  quality=85)
    return out.getvalue()


def tiny_scan() -> bytes:
    """A one-page scan of 60x40 pixels: nothing in it can be read."""
    img = Image.new("L", (60, 40), 255)
    out = io.BytesIO()
    img.save(out, "PDF", resolution=20.0)
    return out.getvalue()
