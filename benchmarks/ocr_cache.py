"""A cache of tesseract's output for measuring parser rules on the same scans again.

OCR is most of a scan's cost and is deterministic for one image, options and engine, while
the rules that weigh what it read change from run to run. With `--ocr-cache DIR` the scan
benchmark keeps each tesseract answer (one batch of images read by one process) under the
digest of its options, its input images and the engine identity, so a second run re-reads
only images it has not seen (a changed render or crop misses the cache by itself). An answer
is kept as the TSV a `tesseract LIST stdout OPTIONS tsv` run prints for the images, its
pages numbered from 1, under the digest of that command. The cost comparison with bare
tesseract never uses it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from parsers.api import ParseResult, parse_pdf
from parsers.identity import engine_identity
from parsers.ocr.tesseract_stream import TesseractStreams

Read = Callable[[TesseractStreams, list[str], float, dict[str, str]], list[list[list[str]]]]
_real_read: Read = TesseractStreams.read
_folder: Path | None = None


def parser(folder: Path) -> Any:
    """A parse target for `ParsePool` that installs the cache in its worker process."""
    return partial(cached_parse, folder=str(folder))


def cached_parse(data: bytes, *, folder: str, **kwargs: Any) -> ParseResult:
    install(Path(folder))
    return parse_pdf(data, **kwargs)


def install(folder: Path | None) -> None:
    """Route this process's tesseract readings through the cache in `folder` (None: stop)."""
    global _folder
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    TesseractStreams.read = _read if folder is not None else _real_read  # type: ignore[method-assign]
    _folder = folder


def _read(streams: TesseractStreams, images: list[str], timeout: float,
          env: dict[str, str]) -> list[list[list[str]]]:
    if _folder is None:
        return _real_read(streams, images, timeout, env)
    path = _folder / f"{_key(streams.options, images)}.tsv"
    if path.exists():
        out: list[list[list[str]]] = [[] for _ in images]
        for line in path.read_text().splitlines()[1:]:
            row = line.split("\t")
            if len(row) >= 12 and row[0] == "5":
                out[int(row[1]) - 1].append(row)
        return out
    pages = _real_read(streams, images, timeout, env)
    rows = ["\t".join([row[0], str(n), *row[2:]]) for n, page in enumerate(pages, 1)
            for row in page]
    part = path.with_suffix(f".{os.getpid()}.part")
    part.write_text("\n".join(["level\tpage_num", *rows]) + "\n")
    part.replace(path)
    return pages


def _key(options: list[str], images: list[str]) -> str:
    """The digest of the engine, the options and the bytes of every input image."""
    digest = hashlib.sha256(engine_identity().encode())
    digest.update("\0".join(["stdout", *options, "tsv"]).encode())
    for image in images:
        digest.update(hashlib.sha256(Path(image).read_bytes()).digest())
    return digest.hexdigest()
