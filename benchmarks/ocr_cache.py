"""A cache of tesseract's output for measuring parser rules on the same scans again.

OCR is most of a scan's cost and is deterministic for one image, command and engine, while
the rules that weigh what it read change from run to run. With `--ocr-cache DIR` the scan
benchmark keeps each tesseract answer under the digest of its command, its input images and
the engine identity, so a second run re-reads only images it has not seen (a changed render
or crop misses the cache by itself). The cost comparison with bare tesseract never uses it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from functools import partial
from pathlib import Path
from typing import Any

from parsers.api import ParseResult, parse_pdf
from parsers.ocr import engine_identity

_real_run = subprocess.run
_folder: Path | None = None


def parser(folder: Path) -> Any:
    """A parse target for `ParsePool` that installs the cache in its worker process."""
    return partial(cached_parse, folder=str(folder))


def cached_parse(data: bytes, *, folder: str, **kwargs: Any) -> ParseResult:
    install(Path(folder))
    return parse_pdf(data, **kwargs)


def install(folder: Path | None) -> None:
    """Route this process's tesseract runs through the cache in `folder` (None: stop)."""
    global _folder
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    subprocess.run = _run if folder is not None else _real_run  # type: ignore[assignment]
    _folder = folder


def _run(command: Any, *args: Any, **kwargs: Any) -> subprocess.CompletedProcess:
    if _folder is None or not isinstance(command, list) or command[:1] != ["tesseract"] \
            or "stdout" not in command:
        return _real_run(command, *args, **kwargs)
    path = _folder / f"{_key(command)}.tsv"
    if path.exists():
        return subprocess.CompletedProcess(command, 0, path.read_bytes(), b"")
    done = _real_run(command, *args, **kwargs)
    if done.returncode == 0:
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_bytes(done.stdout)
        part.replace(path)
    return done


def _key(command: list[str]) -> str:
    """The digest of the engine, the options and the bytes of every input image."""
    source = Path(command[1])
    digest = hashlib.sha256(engine_identity().encode())
    digest.update("\0".join(command[2:]).encode())
    images = [Path(p) for p in source.read_text().split()] if source.suffix == ".txt" \
        else [source]
    for image in images:
        digest.update(hashlib.sha256(image.read_bytes()).digest())
    return digest.hexdigest()
