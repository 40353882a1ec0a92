"""Inputs and results on any fsspec URL (a local folder, `s3://bucket/prefix`, ...).

Inputs are content-addressed (`inputs/sha256/<digest>.pdf`) so that a later change to the
source cannot change what a job processes. Outputs are written to a temporary key, read
back and verified by digest, then moved into place and verified again: a success is only
recorded for an object that is there with the bytes the ledger will name.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import uuid
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any, NamedTuple

from fsspec.core import url_to_fs
from fsspec.implementations.local import LocalFileSystem


class DigestMismatch(OSError):
    """An object's bytes do not have the digest they should."""


class OutputUnverified(DigestMismatch):
    """An object read back after writing differs from what was written (another try may
    write it whole)."""


class InputCorrupt(DigestMismatch):
    """A stored input no longer has the digest its job pinned (every try reads the same)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Storage:
    def __init__(self, root: str, options: dict[str, Any] | None = None) -> None:
        self.fs, self.root = url_to_fs(root, **(options or {}))
        self.url = root.rstrip("/")

    def probe(self) -> None:
        """Ask the store something cheap: raises what it raises when it cannot be reached
        (a local folder that does not exist yet is fine: writing creates it)."""
        self.fs.exists(self.root)

    def path(self, key: str) -> str:
        """The filesystem path of `key` (what `self.fs` takes)."""
        return posixpath.join(self.root, key)

    def uri(self, key: str) -> str:
        return f"{self.url}/{key}"

    def key(self, uri: str) -> str:
        if not uri.startswith(self.url + "/"):
            raise ValueError(f"{uri} is not under {self.url}")
        return uri[len(self.url) + 1:]

    def put_input(self, data: bytes) -> tuple[str, str]:
        """Store `data` content-addressed; return (uri, sha256). Idempotent."""
        digest = sha256(data)
        key = f"inputs/sha256/{digest}.pdf"
        if not self.fs.exists(self.path(key)):
            self._write_verified(key, data, digest, token="accept")
        return self.uri(key), digest

    def read(self, uri: str) -> bytes:
        return self.fs.cat_file(self.path(self.key(uri)))

    def read_input(self, uri: str, digest: str) -> bytes:
        """A stored input, refused when its bytes are no longer the ones pinned by `digest`."""
        data = self.read(uri)
        if sha256(data) != digest:
            raise InputCorrupt(f"{self.key(uri)}: stored input does not match its pinned digest")
        return data

    def write_outputs(self, prefix: str, files: dict[str, bytes], token: str) -> dict[str, str]:
        """Write each file under `prefix`, verified; return {name: sha256}."""
        digests = {}
        for name, data in files.items():
            digest = sha256(data)
            self._write_verified(f"{prefix}/{name}", data, digest, token)
            digests[name] = digest
        return digests

    def write_stamped(self, prefix: str, files: dict[str, bytes], token: str,
                      digests: dict[str, str] | None = None) -> dict[str, Stamp]:
        """Write each file under `prefix`, verified; return each object as a listing of
        `prefix` showed it after the write, with the digest its bytes were then read back
        with: the evidence a reconciliation pass gathers (listing, then reading), so that
        its first pass may vouch for them by listing alone. `stamp` is None where the
        store's listing gives none.

        `digests`: each file's sha256 as it was hashed where it was rendered (a parse
        worker); every object is still read back and must have it, so a digest that does
        not match the bytes fails the write (`OutputUnverified`) and is never recorded."""
        if digests is None:
            digests = {name: sha256(data) for name, data in files.items()}
        self.fs.makedirs(self.path(prefix), exist_ok=True)  # once for every object below it
        for name, data in files.items():
            self._stage(f"{prefix}/{name}", data, digests[name], token,
                        made="/" not in name)
        listing = self.list_objects(prefix)
        stamps = {}
        for name, digest in digests.items():
            key = f"{prefix}/{name}"
            self._check_final(key, digest)
            listed = listing.get(self.uri(key))
            stamps[name] = Stamp(self.uri(key), listed.size if listed else len(files[name]),
                                 listed.stamp if listed else None, digest)
        return stamps

    def digest_of(self, uri: str) -> str | None:
        """The sha256 of the object at `uri`, or None when there is none."""
        path = self.path(self.key(uri))
        if not self.fs.exists(path):
            return None
        return sha256(self.fs.cat_file(path))

    def read_many(self, uris: list[str], threads: int = 8,
                  pool: Executor | None = None) -> dict[str, tuple[bytes, str] | None]:
        """uri -> (bytes, sha256) of each object, None when it is missing: read and hashed by
        a few threads (those of `pool` when given, so that a pass reading many chunks starts
        them once), each through its share in turn (a round trip each on S3; hashing lets go
        of the GIL)."""
        def share(part: list[str]) -> list[tuple[bytes, str] | None]:
            found: list[tuple[bytes, str] | None] = []
            for uri in part:
                try:
                    data = self.fs.cat_file(self.path(self.key(uri)))
                except FileNotFoundError:
                    found.append(None)
                    continue
                found.append((data, sha256(data)))
            return found

        unique = list(dict.fromkeys(uris))
        if not unique:
            return {}
        parts = [unique[n::threads] for n in range(threads)]
        with ExitStack() as stack:
            if pool is None:
                pool = stack.enter_context(ThreadPoolExecutor(threads))
            return {uri: got for part, shares in zip(parts, pool.map(share, parts), strict=True)
                    for uri, got in zip(part, shares, strict=True)}

    def list_objects(self, prefix: str) -> dict[str, Listed]:
        """uri -> size and stamp of every object below `prefix`, from one listing.

        The stamp changes whenever the object's bytes can have changed: inode and change
        time on a local disk (which no one can set back), ETag and modification time on an
        object store; None when the store gives neither, so that such objects are read.
        """
        base = self.path(prefix)
        if isinstance(self.fs, LocalFileSystem):
            head = self.uri(prefix) + "/"
            return {head + rel: listed for rel, listed in _walk(base)}
        if not self.fs.exists(base):
            return {}
        found = self.fs.find(base, detail=True)
        return {self.uri(f"{prefix}/{path[len(base):].lstrip('/')}"): Listed(
            int(info.get("size") or 0), _stamp(info)) for path, info in found.items()
            if info.get("type", "file") == "file"}

    def list_keys(self, prefix: str) -> list[str]:
        """Names directly under `prefix` (e.g. the job ids under `results`)."""
        path = self.path(prefix)
        if not self.fs.exists(path):
            return []
        return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(path, detail=False))

    def put(self, key: str, data: bytes) -> str:
        """Write a report or other non-output object, verified; return its URI."""
        self._write_verified(key, data, sha256(data), token="report")
        return self.uri(key)

    def _write_verified(self, key: str, data: bytes, digest: str, token: str) -> None:
        self._stage(key, data, digest, token)
        self._check_final(key, digest)

    def _stage(self, key: str, data: bytes, digest: str, token: str,
               made: bool = False) -> None:
        """Write `data` to a temporary key, verify it, move it to `key` (`made`: its folder
        exists already)."""
        final = self.path(key)
        # unique per writer: two imports may store the same bytes at the same moment
        tmp = f"{final}.tmp-{token}-{uuid.uuid4().hex[:12]}"
        parent = posixpath.dirname(final)
        if parent and not made:
            self.fs.makedirs(parent, exist_ok=True)
        self.fs.pipe_file(tmp, data)
        if sha256(self.fs.cat_file(tmp)) != digest:
            raise OutputUnverified(f"{key}: temporary object does not match what was written")
        self.fs.mv(tmp, final)
        self.fs.invalidate_cache()

    def _check_final(self, key: str, digest: str) -> None:
        if sha256(self.fs.cat_file(self.path(key))) != digest:
            raise OutputUnverified(f"{key}: committed object does not match what was written")


class Listed(NamedTuple):
    """An object as a listing shows it."""

    size: int
    stamp: str | None


class Stamp(NamedTuple):
    """An object as a listing showed it, and the digest of its bytes read after that."""

    uri: str
    size: int
    stamp: str | None
    sha256: str


def _walk(top: str) -> Iterator[tuple[str, Listed]]:
    """(path below `top`, listing) of every file below it: one scan per folder, one stat
    per file."""
    folders = [(top, "")]
    while folders:
        folder, rel = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append((entry.path, f"{rel}{entry.name}/"))
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                yield f"{rel}{entry.name}", Listed(
                    st.st_size, f"{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}")


def _stamp(info: dict[str, Any]) -> str | None:
    """What in an object store's listing changes when the object is written again."""
    parts = [str(info[k]) for k in ("ETag", "etag", "LastModified", "last_modified", "mtime",
                                    "VersionId") if info.get(k) is not None]
    return ":".join(parts) or None


def _skipped(path: str) -> bool:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name.startswith(".") or name.lower().endswith(".json")


def list_sources(source: str, options: dict[str, Any] | None = None) -> list[str]:
    """Every file a source names: a file, a folder (recursively) or a glob, on any fsspec URL.

    In a folder, every file is a candidate whatever its name (a bank export is `export.txt`
    as often as `.ofx`; what it is, the parse decides from its content), except hidden files
    and JSON, which no statement or export is (the generator's truth beside its samples)."""
    fs, path = url_to_fs(source, **(options or {}))
    protocol = fs.protocol[0] if isinstance(fs.protocol, tuple) else fs.protocol
    if any(ch in path for ch in "*?["):
        found = fs.glob(path)
    elif fs.isdir(path):
        found = [p for p in fs.find(path) if not _skipped(p)]
    elif fs.exists(path):
        found = [path]
    else:
        raise FileNotFoundError(f"no such source: {source}")
    return sorted(fs.unstrip_protocol(p) if protocol != "file" else p for p in found)

