"""What the Prefect UI shows of a batch: a table of its files, account numbers masked, and
for a statement that needs review its review (`flows.batch_reviews` links its run too)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import ArtifactCreate
from prefect.utilities.context import get_task_and_flow_run_ids

from parsers.codes import Status
from parsers.model import mask_accounts, mask_digits
from reconcile.records import Job

if TYPE_CHECKING:
    from flows.batch_reviews import ReviewLink


def job_row(r: Job, review: ReviewLink | None = None) -> dict[str, Any]:
    """One file of a batch as people may see it: no full account number, no descriptions;
    for a statement that needs review, its review and where its page is."""
    return {
        "file": mask_digits(r.file_name),
        "bank": r.bank or r.bank_hint or "",
        "account": mask_accounts(r.account_last4),
        "status": r.status,
        "attempts": r.attempts,
        "reason": r.reason or "",
        "duplicate_of": r.duplicate_of or "",
        "transactions": r.transactions if r.transactions is not None else "",
        "validation": ("needs review" if r.needs_review else "ok")
        if r.status == Status.SUCCEEDED else "",
        "review": f"review {review.review_id}: {review.page}" if review else "",
    }


def publish_batch_table(batch_id: str, rows: Iterable[Job],
                        reviews: dict[str, ReviewLink] | None = None) -> None:
    """The table of `rows`, each made into its JSON text as it comes: Prefect's
    `create_table_artifact` validates, copies and sanitises a list of every row's dict
    before it dumps it (22 MB of a command's peak at 10,000 files)."""
    table = ",".join(json.dumps(job_row(r, (reviews or {}).get(r.job_id))) for r in rows)
    task_run_id, flow_run_id = get_task_and_flow_run_ids()
    with get_client(sync_client=True) as client:
        client.create_artifact(ArtifactCreate(
            type="table", key=f"batch-{batch_id}".lower(),
            description=f"Files of batch {batch_id}", data=f"[{table}]",
            task_run_id=task_run_id, flow_run_id=flow_run_id))
