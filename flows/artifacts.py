"""What the Prefect UI shows of a batch: a table of its files, account numbers masked."""

from __future__ import annotations

from typing import Any

from prefect.artifacts import create_table_artifact

from parsers.model import mask_accounts, mask_digits


def job_row(r: dict[str, Any]) -> dict[str, Any]:
    """One file of a batch as people may see it: no full account number, no descriptions."""
    return {
        "file": mask_digits(r["source_uri"].rsplit("/", 1)[-1]),
        "bank": r.get("bank") or r.get("bank_hint") or "",
        "account": mask_accounts(r.get("account_last4")),
        "status": r["status"],
        "attempts": r["attempts"],
        "reason": r.get("reason") or "",
        "transactions": r.get("transactions") if r.get("transactions") is not None else "",
        "validation": ("needs review" if r.get("needs_review") else "ok")
        if r["status"] == "SUCCEEDED" else "",
    }


def publish_batch_table(batch_id: str, rows: list[dict[str, Any]]) -> None:
    create_table_artifact(
        table=[job_row(r) for r in rows],
        key=f"batch-{batch_id}".lower(),
        description=f"Files of batch {batch_id}",
    )
