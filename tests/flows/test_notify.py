"""A job's event names its file masked: no path, no long digit run."""

from __future__ import annotations

from datetime import UTC, datetime

from flows.notify import job_resource
from parsers.codes import Status
from reconcile.records import Job


def test_a_job_event_names_the_file_masked_never_its_path() -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    job = Job(job_id="j-1", batch_id="b-1",
              source_uri="file:///home/someone/Bank 123456789/statement 4111 1111 1111 1234.pdf",
              input_uri="mem://i", size=1, sha256="0" * 64, submitted_at=t, expires_at=t,
              chain_revision="c", ocr_engine="o", policy_revision="p", status=Status.SUCCEEDED)
    resource = job_resource(job)
    assert resource == {"prefect.resource.id": "stmtflow.job.j-1",
                        "prefect.resource.name": "statement ****1234.pdf"}
