"""Output-object checks: the ledger and result storage must name the same objects.

A success whose object is missing or differs from the recorded digest, and an object under
`results/` that no succeeded job claims, are each listed by job id.

A pass lists result storage once (`OutputPass`). An object the listing shows with the size
and stamp it had when its bytes were last hashed (`output_stamps`: by a pass, or by the
import that wrote it, which lists and reads back its objects in the same way and records
them with its success) keeps that digest; only new or changed objects are read, in
chunks, several at a time (the next chunk while the caller works on this one), and hashed.
The digests serve both this check and the book (`reconcile.book`), which takes in, from the
same bytes, the statements it has not been given yet: a statement is read whenever the book
wants it, whatever its stamp says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, select

from parsers.codes import Status
from reconcile.db import executemany, output_stamps, stamps_upsert, transaction
from reconcile.records import Job
from reconcile.storage import Storage

#: succeeded jobs whose objects are read (and held in memory, two chunks at a time)
#: together; the book takes in a chunk's statements in one transaction, so fewer chunks
#: write its index pages fewer times, while each holds SQLite's write lock for about a
#: second
CHUNK = 2000
#: threads reading objects
THREADS = 8


@dataclass(frozen=True)
class Found:
    """A succeeded job's recorded objects as result storage holds them now."""

    job: Job
    #: object name -> sha256 of the stored object, None when it is missing
    digests: dict[str, str | None]
    #: the sha256 of the statement document (`output_uri`), None when it is missing
    statement_digest: str | None
    #: its bytes, when they were read (only when the pass was asked for them)
    statement: bytes | None = None


#: (job, digest of its statement document) -> whether the caller wants the document's bytes
Wanted = Callable[[Job, str], bool]


class _Reading(NamedTuple):
    """A chunk whose objects are being read: its jobs, object names, the digests known so
    far (`_UNREAD` for those being read) and the read under way."""

    part: list[Job]
    uris: dict[str, dict[str, str]]
    digests: dict[str | None, str | object | None]
    read: Future[dict[str, tuple[bytes, str] | None]]


def recorded(job: Job) -> dict[str, str | None]:
    """Object name -> the digest the ledger recorded for it."""
    return dict(job.outputs) or {"statement.json": job.output_digest}


class OutputPass:
    """One listing of result storage, and the digests it lets a pass know without reading."""

    def __init__(self, storage: Storage, engine: Engine | None = None,
                 connection: Connection | None = None) -> None:
        """`connection`: where stamps are written (a pass's own, from `bulk`), else a
        connection of `engine`'s pool."""
        self.storage = storage
        self.engine = engine
        self.connection = connection
        self.listing = storage.list_objects("results")
        self.known = _read_stamps(engine) if engine is not None else {}
        self.read_objects = 0

    def read(self, jobs: list[Job], wanted: Wanted = lambda job, digest: False,
             every_object: bool = True, chunk: int = CHUNK) -> Iterator[list[Found]]:
        """Every succeeded job's objects (only the statement documents unless
        `every_object`), `chunk` jobs at a time; objects read are remembered with their
        listing (`output_stamps`) chunk by chunk.

        The next chunk is read while the caller works on this one, so `wanted` is asked
        about a chunk before the one ahead of it is handed out: it may depend only on each
        job itself (the book's does: on the job's own deliveries)."""
        succeeded = [j for j in jobs if j.status == Status.SUCCEEDED and j.output_uri]
        parts = [succeeded[start:start + chunk] for start in range(0, len(succeeded), chunk)]
        with ThreadPoolExecutor(THREADS) as pool, ThreadPoolExecutor(1) as ahead:
            coming = [self._start(part, wanted, every_object, pool, ahead) for part in parts[:1]]
            for n in range(len(parts)):
                if n + 1 < len(parts):
                    coming.append(self._start(parts[n + 1], wanted, every_object, pool, ahead))
                yield self._finish(coming.pop(0))

    def _start(self, part: list[Job], wanted: Wanted, every_object: bool,
               pool: ThreadPoolExecutor, ahead: ThreadPoolExecutor) -> _Reading:
        """What the listing vouches for in `part`, and the reading of the rest, begun."""
        uris = {j.job_id: {name: f"{_prefix(j)}/{name}" for name in recorded(j)}
                if every_object else {} for j in part}
        digests = {uri: self._digest(uri) for names in uris.values() for uri in names.values()}
        for j in part:
            if j.output_uri not in digests:
                digests[j.output_uri] = self._digest(j.output_uri)
        unknown = [uri for uri, d in digests.items() if d is _UNREAD]
        wanted_bytes = [j.output_uri for j in part if isinstance(digests[j.output_uri], str)
                        and wanted(j, digests[j.output_uri])]
        return _Reading(part, uris, digests, ahead.submit(
            self.storage.read_many, unknown + wanted_bytes, THREADS, pool))

    def _finish(self, reading: _Reading) -> list[Found]:
        read = reading.read.result()
        self.read_objects += len(read)
        self._remember({uri: got[1] for uri, got in read.items() if got is not None})
        digests = reading.digests
        for uri, got in read.items():
            digests[uri] = None if got is None else got[1]
        return [Found(j, {name: _digest_or_none(digests[uri])
                          for name, uri in reading.uris[j.job_id].items()},
                      _digest_or_none(digests[j.output_uri]),
                      _bytes(read.get(j.output_uri or "")))
                for j in reading.part]

    def _digest(self, uri: str | None) -> str | object | None:
        """The object's digest by its listing: None when it is not listed, `_UNREAD` when it
        must be read (new, changed, or a store whose listing has no stamp)."""
        listed = self.listing.get(uri or "")
        if listed is None:
            return None
        known = self.known.get(uri or "")
        if listed.stamp is None or known is None or known[0] != listed:
            return _UNREAD
        return known[1]

    def _remember(self, digests: dict[str, str]) -> None:
        rows = [{"uri": uri, "size": self.listing[uri].size, "stamp": self.listing[uri].stamp,
                 "sha256": digest} for uri, digest in digests.items()
                if uri in self.listing and self.listing[uri].stamp is not None]
        for r in rows:
            self.known[r["uri"]] = (tuple(self.listing[r["uri"]]), r["sha256"])
        if rows and self.engine is not None:
            with transaction(self.engine, self.connection) as c:
                executemany(c, stamps_upsert(c.dialect.name), rows)

    def job_ids(self) -> set[str]:
        """The names directly under `results/`: the job ids that have objects."""
        head = self.storage.uri("results") + "/"
        return {uri[len(head):].split("/", 1)[0] for uri in self.listing}


#: a digest the listing cannot give: the object must be read
_UNREAD = object()


def _digest_or_none(d: str | object | None) -> str | None:
    return d if isinstance(d, str) else None


def _bytes(found: tuple[bytes, str] | None) -> bytes | None:
    return None if found is None else found[0]


def _prefix(job: Job) -> str:
    return (job.output_uri or "").rsplit("/", 1)[0]


def _read_stamps(engine: Engine) -> dict[str, tuple[tuple[int, str | None], str]]:
    """uri -> ((size, stamp), sha256) of every object hashed before: plain tuples, equal to
    a `Listed` of the same values, read without building a row object each."""
    table = output_stamps.c
    query = select(table.uri, table.size, table.stamp, table.sha256)
    with engine.connect() as c:
        return {uri: ((size, stamp), digest) for uri, size, stamp, digest in
                c.execute(query)}


@dataclass
class OutputCheck:
    """The check, fed the chunks `OutputPass.read` yields."""

    missing: list[dict[str, str]] = field(default_factory=list)
    mismatch: list[dict[str, str]] = field(default_factory=list)

    def add(self, found: list[Found]) -> None:
        for f in found:
            for name, digest in recorded(f.job).items():
                stored = f.digests.get(name)
                if stored is None:
                    self.missing.append({"job_id": f.job.job_id, "object": name})
                elif stored != digest:
                    self.mismatch.append({"job_id": f.job.job_id, "object": name})

    def result(self, jobs: list[Job], listed: OutputPass) -> dict[str, Any]:
        succeeded = {j.job_id for j in jobs if j.status == Status.SUCCEEDED}
        orphans = sorted(listed.job_ids() - succeeded)
        return {
            "checked": len(succeeded),
            "missing_object": self.missing,
            "digest_mismatch": self.mismatch,
            "object_without_record": orphans,
            "ok": not (self.missing or self.mismatch or orphans),
        }


def check_outputs(jobs: list[Job], storage: Storage,
                  engine: Engine | None = None) -> dict[str, Any]:
    """The check alone (every object read unless `engine` holds their stamps)."""
    listed = OutputPass(storage, engine)
    check = OutputCheck()
    for part in listed.read(jobs):
        check.add(part)
    return check.result(jobs, listed)
