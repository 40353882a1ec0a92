"""Output-object checks: the ledger and result storage must name the same objects.

A success whose object is missing or differs from the recorded digest, and an object under
`results/` that no succeeded job claims, are each listed by job id.
"""

from __future__ import annotations

from typing import Any

from parsers.codes import Status
from reconcile.records import Job
from reconcile.storage import Storage


def check_outputs(jobs: list[Job], storage: Storage) -> dict[str, Any]:
    missing, mismatch = [], []
    succeeded = {j.job_id for j in jobs if j.status == Status.SUCCEEDED}
    for j in jobs:
        if j.status != Status.SUCCEEDED or not j.output_uri:
            continue
        prefix = j.output_uri.rsplit("/", 1)[0]
        recorded = dict(j.outputs) or {"statement.json": j.output_digest}
        for name, digest in recorded.items():
            found = storage.digest_of(f"{prefix}/{name}")
            if found is None:
                missing.append({"job_id": j.job_id, "object": name})
            elif found != digest:
                mismatch.append({"job_id": j.job_id, "object": name})
    orphans = sorted(set(storage.list_keys("results")) - succeeded)
    return {
        "checked": len(succeeded),
        "missing_object": missing,
        "digest_mismatch": mismatch,
        "object_without_record": orphans,
        "ok": not (missing or mismatch or orphans),
    }
