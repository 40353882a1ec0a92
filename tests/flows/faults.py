"""Faults a real component cannot be made to produce on cue, injected through real seams.

- Storage: `faulty://PATH` is the local filesystem registered with fsspec under its own
  protocol, and `STMTFLOW_STORAGE` chooses it like any other URL; a test hooks reads and
  writes of chosen objects (a read that times out, an upload reset, a worker that stops).
- The ledger: SQLAlchemy's engine events; a test fails the statement that records a job's
  failed attempt (the database gone at the worst moment).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import fsspec
from fsspec.implementations.local import LocalFileSystem
from sqlalchemy import Engine, event

from parsers.codes import Status

Hook = Callable[[str, bytes | None], None]


class Faults:
    """What the `faulty://` filesystem does besides its work: hooks and a read count."""

    def __init__(self) -> None:
        #: reads of each stored input, by its sha256
        self.input_reads: Counter[str] = Counter()
        #: hook(path, None) before every read; hook(path, data) before every write
        self.on_read: list[Hook] = []
        self.on_write: list[Hook] = []


class FaultyFileSystem(LocalFileSystem):
    protocol = ("faulty",)
    faults: ClassVar[Faults] = Faults()

    def cat_file(self, path: str, start: Any = None, end: Any = None, **kw: Any) -> bytes:
        path = self._strip_protocol(path)
        if "/inputs/sha256/" in path and ".tmp-" not in path:
            self.faults.input_reads[path.rsplit("/", 1)[-1].removesuffix(".pdf")] += 1
        for hook in self.faults.on_read:
            hook(path, None)
        return super().cat_file(path, start, end, **kw)

    def pipe_file(self, path: str, value: bytes, *args: Any, **kw: Any) -> None:
        for hook in self.faults.on_write:
            hook(self._strip_protocol(path), value)
        super().pipe_file(path, value, *args, **kw)


fsspec.register_implementation("faulty", FaultyFileSystem, clobber=True)


def fresh_faults() -> Faults:
    FaultyFileSystem.faults = Faults()
    return FaultyFileSystem.faults


def input_read_fails(digests: set[str], exc: Callable[[], BaseException],
                     times: int | None = None) -> Hook:
    """A hook: a read of the stored input of one of `digests` raises `exc()`, the first
    `times` reads of each (every read when None)."""
    failed: Counter[str] = Counter()

    def hook(path: str, data: bytes | None) -> None:
        for d in digests:
            if path.endswith(f"/inputs/sha256/{d}.pdf") and (times is None or failed[d] < times):
                failed[d] += 1
                raise exc()
    return hook


def first_upload_fails(prefix: str = "/results/") -> Hook:
    """A hook: the first write under `prefix` is reset, every later one goes through."""
    failed: list[str] = []

    def hook(path: str, data: bytes | None) -> None:
        if prefix in path and not failed:
            failed.append(path)
            raise ConnectionError("injected: upload connection reset")
    return hook


@contextmanager
def failure_not_recorded(engine: Engine, job_id: str) -> Iterator[None]:
    """While open, the statement that records a failed attempt of `job_id` cannot reach the
    database."""
    ending = {Status.RETRYING, Status.FAILED}

    def before(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        # the ledger names a finish's values `v_<column>` and its guards `g_<column>`
        binds = context.compiled_parameters[0] if context.compiled_parameters else {}
        if statement.lstrip().upper().startswith("UPDATE JOBS") \
                and binds.get("g_job_id") == job_id and binds.get("v_status") in ending:
            raise ConnectionError("injected: ledger unreachable while recording the failure")

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", before)
