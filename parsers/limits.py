"""Bounds that keep one hostile or broken file from costing more than it is worth."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 50 * 1024 * 1024
    max_pages: int = 500
    #: Pixels of any one image a rendered page draws, and of the page itself (OCR, review
    #: pictures): checked before rendering (`pixels.py`).
    max_pixels: int = 60_000_000
    #: Smallest rendered page side in pixels that OCR can read at all.
    min_ocr_side: int = 400
    ocr_dpi: int = 200
    #: Wall time of one page's OCR, its rendering and all its readings together.
    seconds_per_ocr_page: float = 60.0
    seconds_per_file: float = 600.0
    #: Address space one parse may add to its worker process (the worker pool's hard limit).
    max_memory: int = 768 * 1024 * 1024

    @classmethod
    def from_variables(cls, variables: Mapping[str, str]) -> Limits:
        """Override any field with `STMTFLOW_LIMIT_<FIELD>` (e.g. `STMTFLOW_LIMIT_MAX_PAGES`).

        The caller hands in the variables (the environment, read once at the edge).
        """
        values = {}
        for name, default in cls().__dict__.items():
            raw = variables.get(f"STMTFLOW_LIMIT_{name.upper()}")
            if raw is not None:
                values[name] = type(default)(raw)
        return cls(**values)
