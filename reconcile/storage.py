"""Inputs and results on any fsspec URL (a local folder, `s3://bucket/prefix`, ...).

Inputs are content-addressed (`inputs/sha256/<digest>.pdf`) so that a later change to the
source cannot change what a job processes. Outputs are written to a temporary key, read
back and verified by digest, then moved into place and verified again: a success is only
recorded for an object that is there with the bytes the ledger will name.
"""

from __future__ import annotations

import hashlib
import posixpath
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fsspec.core import url_to_fs


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

    def digest_of(self, uri: str) -> str | None:
        """The sha256 of the object at `uri`, or None when there is none."""
        path = self.path(self.key(uri))
        if not self.fs.exists(path):
            return None
        return sha256(self.fs.cat_file(path))

    def read_many(self, uris: list[str], threads: int = 8) -> dict[str, tuple[bytes, str] | None]:
        """uri -> (bytes, sha256) of each object, None when it is missing: read and hashed by
        a few threads, each through its share in turn (a round trip each on S3; hashing lets
        go of the GIL)."""
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
        parts = [unique[n::threads] for n in range(threads)]
        with ThreadPoolExecutor(threads) as pool:
            return {uri: got for part, shares in zip(parts, pool.map(share, parts), strict=True)
                    for uri, got in zip(part, shares, strict=True)}

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
        final = self.path(key)
        # unique per writer: two imports may store the same bytes at the same moment
        tmp = f"{final}.tmp-{token}-{uuid.uuid4().hex[:12]}"
        parent = posixpath.dirname(final)
        if parent:
            self.fs.makedirs(parent, exist_ok=True)
        self.fs.pipe_file(tmp, data)
        if sha256(self.fs.cat_file(tmp)) != digest:
            raise OutputUnverified(f"{key}: temporary object does not match what was written")
        self.fs.mv(tmp, final)
        self.fs.invalidate_cache()
        if sha256(self.fs.cat_file(final)) != digest:
            raise OutputUnverified(f"{key}: committed object does not match what was written")


def list_sources(source: str, options: dict[str, Any] | None = None) -> list[str]:
    """Every PDF a source names: a file, a folder (recursively) or a glob, on any fsspec URL."""
    fs, path = url_to_fs(source, **(options or {}))
    protocol = fs.protocol[0] if isinstance(fs.protocol, tuple) else fs.protocol
    if any(ch in path for ch in "*?["):
        found = fs.glob(path)
    elif fs.isdir(path):
        found = [p for p in fs.find(path) if p.lower().endswith(".pdf")]
    elif fs.exists(path):
        found = [path]
    else:
        raise FileNotFoundError(f"no such source: {source}")
    return sorted(fs.unstrip_protocol(p) if protocol != "file" else p for p in found)

