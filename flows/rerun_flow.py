"""`rerun_failed`: run a batch's files again, as new jobs in a rerun batch.

Terminal records never change: each rerun is a new job (`rerun_of` the old one) with the
old job's pinned identities, unless the operator asks for the current ones (after adding a
template, say). Which jobs qualify is `reconcile.reruns`' rule: by default only what another
run may cure; `include_deterministic` adds the rest; `reread_succeeded` reads succeeded
statements again under today's identities, and the book takes each new reading in place of
the old one (`reconcile.book`); `job_ids` narrows it to those jobs (a succeeded one among
them is read again under today's identities).
"""

from __future__ import annotations

from prefect import get_run_logger
from prefect.runtime import flow_run
from prefect.states import Completed, State

from flows.config import Settings
from flows.import_flow import run_batch
from flows.leases import taken
from flows.logs import to_run_logs
from flows.parser import Parser
from flows.plain_flow import flow
from flows.recover import RUN_PREFIX, run_name
from flows.runners import SettingsTaskRunner
from parsers.codes import Reason, Status
from reconcile.records import Job
from reconcile.reruns import rerun_candidates


def rerun_run_name() -> str:
    """`rerun-<batch id>`, or `rerun-<the batch run's name>` when started for a run."""
    if batch_id := flow_run.parameters.get("batch_id"):
        return f"rerun-{batch_id}"
    return f"rerun-{run_name(flow_run.parameters.get('flow_run_id') or '')}"


@flow(name="rerun-failed", flow_run_name=rerun_run_name, log_prints=True,
      task_runner=SettingsTaskRunner())
def rerun_failed(batch_id: str | None = None, current_identities: bool = False,
                 include_deterministic: bool = False, reread_succeeded: bool = False,
                 job_ids: list[str] | None = None, flow_run_id: str | None = None) -> State:
    """Run the failed files of a batch again, as new jobs in a rerun batch.

    Args:
        batch_id: the batch whose failed files to run again (or give `flow_run_id`).
        current_identities: run them with today's parser chain, OCR engine and policy
            (after adding a template, say) instead of those each job pinned.
        include_deterministic: also rerun files that failed for a reason of their own
            (an unrecognised layout, say), not only those another run may cure.
        reread_succeeded: also read succeeded statements again, under today's identities
            (so with current_identities), where those changed since: the book takes the
            new reading in place of the old.
        job_ids: only these jobs of the batch (or of its reruns), whatever their cause; a
            succeeded one is read again under today's identities, where those changed.
        flow_run_id: the batch run whose batch to rerun (`prefect.flow-run.<id>` or the bare
            id): what the automation on a batch that ended With Warnings fills in.
    """
    to_run_logs()
    settings = Settings.from_env()
    ledger = settings.ledger()
    logger = get_run_logger()
    if batch_id is None:
        batch = ledger.batch_of_run((flow_run_id or "").removeprefix(RUN_PREFIX))
        if batch is None:
            return Completed(message=f"flow run {flow_run_id} took no batch: nothing to rerun")
        batch_id = batch.batch_id
    if ledger.batch(batch_id) is None:
        raise ValueError(f"no batch {batch_id}")
    current_identities = current_identities or reread_succeeded
    today = Parser.from_settings(settings).identities()
    chosen = rerun_candidates(ledger, batch_id, include_deterministic or bool(job_ids),
                              today if reread_succeeded or job_ids else None, job_ids or ())
    if not chosen:
        why = " (succeeded ones were read with today's identities)" if reread_succeeded else ""
        logger.info("batch %s: nothing to rerun%s", batch_id, why)
        return Completed(message=f"batch {batch_id}: nothing to rerun{why}")
    rerun_id = f"{batch_id}-r{len(ledger.rerun_batches(batch_id)) + 1}"
    ledger.open_batch(rerun_id, f"rerun of {batch_id}", None, rerun_of=batch_id)
    with taken(settings, rerun_id) as run:
        for j in chosen:
            ledger.accept(rerun_id, source_uri=j.source_uri, input_uri=j.input_uri,
                          size=j.size, sha256=j.sha256, bank_hint=j.bank_hint,
                          ids=today if current_identities or _today(j) else j.identities,
                          queue_limit=settings.queue_limit,
                          rerun_of=j.job_id)
        logger.info("batch %s: rerunning %d file(s) as batch %s", batch_id, len(chosen),
                    rerun_id)
        return run_batch(settings, rerun_id, run)


def _today(job: Job) -> bool:
    """Whether a job reruns under today's identities whatever it pinned: a succeeded one
    (read again where they changed), and one that failed for want of tesseract, whose pinned
    OCR engine (`tesseract:unavailable`) no worker will ever run."""
    return job.status == Status.SUCCEEDED or job.reason == Reason.OCR_UNAVAILABLE
