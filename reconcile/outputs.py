"""Output-object checks: the ledger and result storage must name the same objects.

A success whose object is missing or differs from the recorded digest, and an object under
`results/` that no succeeded job claims, are each listed by job id.

Result storage is read once per pass (`read_outputs`, in chunks, several objects at a time):
the digests found serve both this check and the book (`reconcile.book`), which takes in
the statements it has not been given yet from the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from parsers.codes import Status
from reconcile.records import Job
from reconcile.storage import Storage

#: succeeded jobs whose objects are read (and held in memory) together
CHUNK = 500


@dataclass(frozen=True)
class Found:
    """A succeeded job's recorded objects as result storage holds them now."""

    job: Job
    #: object name -> sha256 of the stored object, None when it is missing
    digests: dict[str, str | None]
    #: the statement document (`output_uri`): its bytes and digest, None when missing
    statement: tuple[bytes, str] | None


def recorded(job: Job) -> dict[str, str | None]:
    """Object name -> the digest the ledger recorded for it."""
    return dict(job.outputs) or {"statement.json": job.output_digest}


def read_outputs(jobs: list[Job], storage: Storage, chunk: int = CHUNK,
                 every_object: bool = True) -> Iterator[list[Found]]:
    """Every succeeded job's objects, each read once, `chunk` jobs at a time (only the
    statement documents unless `every_object`)."""
    succeeded = [j for j in jobs if j.status == Status.SUCCEEDED and j.output_uri]
    for start in range(0, len(succeeded), chunk):
        part = succeeded[start:start + chunk]
        uris = {j.job_id: {name: f"{_prefix(j)}/{name}" for name in recorded(j)}
                if every_object else {} for j in part}
        read = storage.read_many([u for names in uris.values() for u in names.values()]
                                 + [j.output_uri for j in part if j.output_uri])
        yield [Found(j, {name: _digest(read[uri]) for name, uri in uris[j.job_id].items()},
                     read[j.output_uri] if j.output_uri else None)
               for j in part]


def _digest(found: tuple[bytes, str] | None) -> str | None:
    return None if found is None else found[1]


def _prefix(job: Job) -> str:
    return (job.output_uri or "").rsplit("/", 1)[0]


@dataclass
class OutputCheck:
    """The check, fed the chunks `read_outputs` yields."""

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

    def result(self, jobs: list[Job], storage: Storage) -> dict[str, Any]:
        succeeded = {j.job_id for j in jobs if j.status == Status.SUCCEEDED}
        orphans = sorted(set(storage.list_keys("results")) - succeeded)
        return {
            "checked": len(succeeded),
            "missing_object": self.missing,
            "digest_mismatch": self.mismatch,
            "object_without_record": orphans,
            "ok": not (self.missing or self.mismatch or orphans),
        }


def check_outputs(jobs: list[Job], storage: Storage) -> dict[str, Any]:
    check = OutputCheck()
    for part in read_outputs(jobs, storage):
        check.add(part)
    return check.result(jobs, storage)
