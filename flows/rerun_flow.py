"""`rerun_failed`: run a batch's failed files again, as new jobs in a rerun batch.

Terminal records never change: each rerun is a new job (`rerun_of` the old one) with the
old job's pinned identities, unless the operator asks for the current ones (after adding a
template, say). A file whose bytes already succeeded anywhere is never processed again.
By default only what another run may cure is rerun: transient failures that exhausted
their attempts, expired jobs and lost leases; `include_deterministic` adds the rest.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger
from prefect.states import Completed, State

from flows.config import Settings
from flows.import_flow import run_batch
from flows.jobs import current_identities as worker_identities
from flows.runners import task_runner
from reconcile.ledger import EXPIRED, FAILED, Identities, Ledger

RERUNNABLE = {"retries_exhausted", "expired", "lease_lost", "claimed_elsewhere"}


@flow(name="rerun-failed", flow_run_name="rerun-{batch_id}", log_prints=True,
      task_runner=task_runner())
def rerun_failed(batch_id: str, current_identities: bool = False,
                 include_deterministic: bool = False) -> State:
    settings = Settings.from_env()
    ledger = settings.ledger()
    logger = get_run_logger()
    if ledger.batch(batch_id) is None:
        raise ValueError(f"no batch {batch_id}")
    done = ledger.succeeded_inputs()
    chosen = [j for j in latest_per_input(ledger, batch_id)
              if j["status"] in (FAILED, EXPIRED) and j["sha256"] not in done
              and (include_deterministic or j["reason"] in RERUNNABLE)]
    if not chosen:
        logger.info("batch %s: nothing to rerun", batch_id)
        return Completed(message=f"batch {batch_id}: nothing to rerun")
    rerun_id = f"{batch_id}-r{len(ledger.rerun_batches(batch_id)) + 1}"
    ledger.open_batch(rerun_id, f"rerun of {batch_id}", None, rerun_of=batch_id)
    now_ids = worker_identities()
    for j in chosen:
        pinned = Identities(j["chain_revision"], j["ocr_engine"], j["policy_revision"])
        ledger.accept(rerun_id, source_uri=j["source_uri"], input_uri=j["input_uri"],
                      size=j["size"], sha256=j["sha256"], bank_hint=j["bank_hint"],
                      ids=now_ids if current_identities else pinned,
                      queue_limit=settings.queue_limit, rerun_of=j["job_id"])
    logger.info("batch %s: rerunning %d file(s) as batch %s", batch_id, len(chosen), rerun_id)
    return run_batch(settings, rerun_id)


def latest_per_input(ledger: Ledger, batch_id: str) -> list[dict[str, Any]]:
    """The newest job per input across a batch and its reruns (and theirs)."""
    family, frontier = [], [batch_id]
    while frontier:
        current = frontier.pop()
        family.append(current)
        frontier += ledger.rerun_batches(current)
    latest: dict[str, dict[str, Any]] = {}
    for b in family:
        for j in ledger.jobs(b):
            if j["sha256"] not in latest or j["submitted_at"] > latest[j["sha256"]]["submitted_at"]:
                latest[j["sha256"]] = j
    return list(latest.values())
