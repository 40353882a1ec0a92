"""Reading one source file for acceptance: bounded and confined, before a byte is stored.

Each file is read on its own, so one bad file is refused with a reason code and the others
are accepted. The size comes from a stat before any byte is read (a file over the limit is
`too_large` without being copied, and the read stops one byte past the limit in case the
file grew meanwhile); a symlink whose target lies outside the source folder is refused
(`outside_source`) unless links may leave it. Errors of the file itself (missing, a dangling
link, no permission) propagate, for the error taxonomy to classify.
"""

from __future__ import annotations

import os
import posixpath
from typing import Any

from fsspec.core import url_to_fs
from fsspec.implementations.local import LocalFileSystem

from parsers.codes import Reason

#: what `after_import` may say: leave accepted files where they are, or move them to DIR
KEEP, MOVE = "keep", "move:"


class Refused(Exception):
    """A source file acceptance will not store; the job is recorded FAILED with `reason`."""

    def __init__(self, reason: Reason, message: str, size: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.size = size


def source_root(source: str, options: dict[str, Any] | None = None) -> str | None:
    """The folder a source's files are listed from: the folder itself, or a glob's fixed
    part; None for a source that names one file."""
    fs, path = url_to_fs(source, **(options or {}))
    wild = min((path.find(ch) for ch in "*?[" if ch in path), default=-1)
    if wild >= 0:
        return posixpath.dirname(path[:wild])
    return path.rstrip("/") if fs.isdir(path) else None


def read_checked(uri: str, root: str | None, *, max_bytes: int, follow_links: bool,
                 options: dict[str, Any] | None = None) -> bytes:
    """The bytes of `uri`, or `Refused` (outside the source folder, too large)."""
    fs, path = url_to_fs(uri, **(options or {}))
    size = int(fs.size(path))  # a stat, following links: a dangling one raises here
    if isinstance(fs, LocalFileSystem) and root is not None and not follow_links:
        target, folder = os.path.realpath(path), os.path.realpath(root)
        if os.path.commonpath([target, folder]) != folder:
            raise Refused(Reason.OUTSIDE_SOURCE,
                          "a symlink that leads out of the source folder")
    if size > max_bytes:
        raise Refused(Reason.TOO_LARGE, f"{size} bytes is over the limit of {max_bytes} bytes",
                      size)
    with fs.open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise Refused(Reason.TOO_LARGE, f"over the limit of {max_bytes} bytes", len(data))
    return bytes(data)


def check_after_import(after_import: str) -> str:
    """`keep` or `move:DIR`, refused early when it is neither."""
    if after_import != KEEP and not (after_import.startswith(MOVE) and after_import[len(MOVE):]):
        raise ValueError(f"after_import must be 'keep' or 'move:DIR', not {after_import!r}")
    return after_import


def move_accepted(uri: str, root: str | None, data: bytes, after_import: str,
                  options: dict[str, Any] | None = None,
                  dest_options: dict[str, Any] | None = None) -> str | None:
    """Move an accepted file out of the inbox (`move:DIR`), keeping its path below the
    source folder; return where it went (None for `keep`). The bytes are already stored
    and enveloped, so a crash before the move only leaves the file to be listed again."""
    if after_import == KEEP:
        return None
    fs, path = url_to_fs(uri, **(options or {}))
    rel = posixpath.relpath(path, root) if root else posixpath.basename(path)
    dest = after_import[len(MOVE):].rstrip("/") + "/" + rel
    dest_fs, dest_path = url_to_fs(dest, **(dest_options or {}))
    dest_fs.makedirs(posixpath.dirname(dest_path), exist_ok=True)
    dest_fs.pipe_file(dest_path, data)
    fs.rm(path)
    return dest
