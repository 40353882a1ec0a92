"""What the Prefect UI shows of a batch: a table of its files, account numbers masked."""

from __future__ import annotations

from typing import Any

from prefect.artifacts import create_table_artifact

from parsers.codes import Status
from parsers.model import mask_accounts, mask_digits
from reconcile.records import Job


def job_row(r: Job) -> dict[str, Any]:
    """One file of a batch as people may see it: no full account number, no descriptions."""
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
    }


def publish_batch_table(batch_id: str, rows: list[Job]) -> None:
    create_table_artifact(
        table=[job_row(r) for r in rows],
        key=f"batch-{batch_id}".lower(),
        description=f"Files of batch {batch_id}",
    )
