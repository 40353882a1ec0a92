"""Prefect task workers for the files of batches: one batch spread over several processes.

With `STMTFLOW_TASK_RUNNER=task-workers` a batch's run submits each file's `process_file`
as a deferred task run and waits for the runs; any number of `stmtflow task-worker`
processes, on this machine or others that share the API, the ledger, the storage and
Prefect's result storage (where a deferred run's parameters wait), take them as they come.
Nothing else changes: every attempt still begins with the ledger's claim, so two workers
never process one job, and the batch's state is still derived from its files' task runs.
"""

from __future__ import annotations

from prefect.task_worker import serve

from flows.config import Settings
from flows.import_flow import process_file
from flows.taxonomy import BACKOFF_JITTER, backoff
from reconcile.ledger import MAX_ATTEMPTS


def serve_files(settings: Settings, limit: int) -> None:
    """Run files' task runs as they are submitted, `limit` at a time, until interrupted.
    Retries wait as a batch's own run would make them wait."""
    serve(process_file.with_options(
        retry_delay_seconds=backoff(settings.retry_seconds, MAX_ATTEMPTS - 1),
        retry_jitter_factor=BACKOFF_JITTER), limit=limit)
