"""Pages as they come, made square and even before OCR reads them (OpenCV).

A scanner returns a page nearly square and evenly lit; a photograph of one, or a poor scan,
does not: the sheet stands in perspective on a darker ground, the light falls off towards
an edge, the whole page is dim or turned by a few degrees. Both engines read words along
horizontal lines on a white ground, so the page is put right first, each step only where
the page shows it is needed (a scan that needs none costs a few milliseconds):

- the sheet, where it stands on a darker ground as a four-cornered shape, is warped back to
  a rectangle;
- uneven or dim light: the page is divided by its own background (the ink closed over at
  the scale of several glyphs) and stretched back to white;
- a turn of more than half a degree is taken out, the angle being the one at which the
  rows of ink line up best (the sharpest profile of ink per row).

Word boxes are then those of the straightened image: the page's geometry stays one whole.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

#: Side of the reduced page the measures are taken on, in pixels.
_MEASURE_SIDE = 800
#: Background this much darker at one place than at the brightest (0-255), or a page
#: whose background is darker than this overall, is evened out.
_UNEVEN = 24
_DIM = 215
#: A sheet is looked for when the page's border is this much darker than its middle.
_GROUND = 40
#: Turns up to this many degrees are looked for, by whole degrees and then by quarters
#: around the best; below half a degree the engines and the line grouping follow the turn
#: themselves.
_MOST_TURN = 6
_TURN_STEP = 0.25
_LEAST_TURN = 0.5


def straighten(image: Image.Image) -> Image.Image:
    """`image` (8-bit grey) with its sheet squared, its light evened out and its turn
    taken out, each where the page shows it; `image` itself where none is needed."""
    grey = np.asarray(image if image.mode == "L" else image.convert("L"))
    out = _sheet(grey)
    out = _even(out)
    out = _turned(out)
    return image if out is grey else Image.fromarray(out, mode="L")


def _small(grey: np.ndarray) -> tuple[np.ndarray, float]:
    """The page reduced to about _MEASURE_SIDE on its longer side, and the factor."""
    scale = _MEASURE_SIDE / max(grey.shape)
    if scale >= 1:
        return grey, 1.0
    return cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), scale


def _sheet(grey: np.ndarray) -> np.ndarray:
    """The sheet warped back to a rectangle, where the page shows one on a darker ground."""
    small, scale = _small(grey)
    h, w = small.shape
    edge = max(2, min(h, w) // 40)
    border = np.concatenate([small[:edge].ravel(), small[-edge:].ravel(),
                             small[:, :edge].ravel(), small[:, -edge:].ravel()])
    middle = small[h // 4: 3 * h // 4, w // 4: 3 * w // 4]
    if float(np.median(middle)) - float(np.median(border)) < _GROUND:
        return grey
    _, bright = cv2.threshold(cv2.GaussianBlur(small, (5, 5), 0), 0, 255,
                              cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return grey
    outline = max(contours, key=cv2.contourArea)
    if cv2.contourArea(outline) < 0.4 * h * w:
        return grey
    corners = cv2.approxPolyDP(outline, 0.02 * cv2.arcLength(outline, True), True)
    if len(corners) != 4:
        return grey
    quad = _ordered(corners.reshape(4, 2).astype(np.float32) / scale)
    top, right, bottom, left = (np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4))
    width, height = int(max(top, bottom)), int(max(left, right))
    square = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]],
                      np.float32)
    return cv2.warpPerspective(grey, cv2.getPerspectiveTransform(quad, square),
                               (width, height), flags=cv2.INTER_CUBIC,
                               borderMode=cv2.BORDER_REPLICATE)


def _ordered(points: np.ndarray) -> np.ndarray:
    """Four corners as top left, top right, bottom right, bottom left."""
    total, diff = points.sum(axis=1), np.diff(points, axis=1).ravel()
    return np.array([points[np.argmin(total)], points[np.argmin(diff)],
                     points[np.argmax(total)], points[np.argmax(diff)]], np.float32)


def _even(grey: np.ndarray) -> np.ndarray:
    """The page divided by its background and stretched back to white, where its light is
    uneven or dim."""
    small, _ = _small(grey)
    size = max(15, (min(small.shape) // 25) | 1)
    ground = cv2.morphologyEx(small, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_RECT, (size, size)))
    ground = cv2.medianBlur(ground, 5)
    low, high = np.percentile(ground, (2, 98))
    if high - low < _UNEVEN and float(np.median(ground)) >= _DIM:
        return grey
    full = cv2.resize(ground, (grey.shape[1], grey.shape[0]), interpolation=cv2.INTER_LINEAR)
    ratio = grey.astype(np.float32) / np.maximum(full.astype(np.float32), 1.0)
    return np.clip(ratio * 255.0, 0, 255).astype(np.uint8)


def _turned(grey: np.ndarray) -> np.ndarray:
    """The page turned back by the angle at which its rows of ink line up best, where that
    is over _LEAST_TURN degrees."""
    small, _ = _small(grey)
    ink = (small < 128).astype(np.float32)
    if ink.sum() < 100:
        return grey
    centre = (small.shape[1] / 2, small.shape[0] / 2)

    def sharpness(angle: float) -> float:
        turn = cv2.getRotationMatrix2D(centre, angle, 1.0)
        rows = cv2.warpAffine(ink, turn, (small.shape[1], small.shape[0])).sum(axis=1)
        return float(np.square(np.diff(rows)).sum())

    rough = max(range(-_MOST_TURN, _MOST_TURN + 1), key=sharpness)
    best = max((rough + k * _TURN_STEP for k in range(-3, 4)), key=sharpness)
    if abs(best) < _LEAST_TURN or sharpness(best) <= 1.05 * sharpness(0.0):
        return grey
    turn = cv2.getRotationMatrix2D((grey.shape[1] / 2, grey.shape[0] / 2), float(best), 1.0)
    return cv2.warpAffine(grey, turn, (grey.shape[1], grey.shape[0]), flags=cv2.INTER_CUBIC,
                          borderValue=255)
