"""`import_batch`: the Prefect flow that turns a folder of statements into verified outputs.

Accept every file, map one task per file on a bounded thread pool, retry only what the
taxonomy calls transient (after its backoff), then derive the batch's state from its child
task run states and cross-check it against the ledger: `Completed`, or `Completed With
Warnings` when anything was excluded or needs review. A batch whose ledger still has
unfinished jobs is not done, whatever its tasks say, and ends `Failed` with the jobs named.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from prefect import get_run_logger, task
from prefect.artifacts import create_progress_artifact, update_progress_artifact
from prefect.cache_policies import INPUTS, TASK_SOURCE
from prefect.client.schemas.objects import TaskRun
from prefect.futures import PrefectFuture
from prefect.runtime import flow_run, task_run
from prefect.states import Completed, Failed, State

from flows import crashpoint
from flows.artifacts import publish_batch_table
from flows.batch_end import acceptance_failed
from flows.batch_reviews import take_up_reviews
from flows.config import Settings
from flows.jobs import Worker, accept_batch, open_batch, process_job, resume_acceptance
from flows.leases import Taken, reclaim_from_dead_runs, taken
from flows.lineage import banks, mark_run
from flows.logs import expected_failure, to_run_logs
from flows.notify import notify_ended
from flows.plain_flow import flow
from flows.runners import SettingsTaskRunner
from flows.settle import settled, untaken
from flows.taxonomy import BACKOFF_JITTER, backoff, classify
from parsers.codes import BatchState, Status
from parsers.model import mask_digits
from reconcile.ledger import MAX_ATTEMPTS, Ledger
from reconcile.records import Job

WARNINGS = "Completed With Warnings"

#: seconds between two updates of a batch's progress artifact (each is an API call)
PROGRESS_SECONDS = 2.0
#: A batch's files handed to the task runner at once, per thread of it: enough to keep its
#: threads busy; the rest wait as ledger rows, not as queued task runs (a future, its call
#: and its context each).
IN_FLIGHT_PER_WORKER = 16


def retry_transient(task: Any, task_run: TaskRun, state: State) -> bool:
    """Prefect asks this after a failed attempt: retry only transient errors."""
    exc = state.data
    return isinstance(exc, BaseException) and classify(exc).transient


@task(retries=MAX_ATTEMPTS - 1, retry_condition_fn=retry_transient,
      task_run_name="parse {name} [{job_id}]", persist_result=True,
      cache_policy=INPUTS + TASK_SOURCE, log_prints=False)
def process_file(job_id: str, name: str) -> None:
    """One attempt at one file; the ledger decides whether it may run at all, and records
    this task run in the attempt's row (how the reconciliation finds a job's task run).

    It prints nothing, so it does not take its flow's `log_prints`: Prefect would swap
    `builtins.print` in and out around every run, from every thread at once.

    A failure of the file's own (deterministic) was logged by the worker as one warning with
    its reason code; Prefect's ERROR line about it is left out (`flows.logs`). It returns
    nothing: the ledger holds the job's record, and Prefect keeps a link to every task
    run's returned object (a copy of its state) for the whole flow run, but none to None. The
    result is persisted because a run of the batch again (a Retry of the flow run) finds a
    file that succeeded by it, and shows that file Cached without running it.
    """
    try:
        process_job(_worker(str(flow_run.id)), job_id, str(task_run.id))
    except Exception as exc:
        if not classify(exc).transient:
            expected_failure(str(task_run.id))
        raise


@functools.lru_cache(maxsize=8)
def _worker(flow_run_id: str) -> Worker:
    """This process's worker for the files of one flow run: the settings, and the Secret
    blocks they read from the server, are read once per run, not once per file.

    A Retry of the run keeps its id, so a Retry this process runs again (under `serve`)
    reuses the worker of the first attempt: a setting or Secret changed in between is seen
    only by a new run, or a Retry run in a new process. Not keyed on the run count, which a
    task on a Dask worker cannot read (it has no flow-run context there)."""
    return Worker.from_settings(Settings.from_env())


def run_batch_id() -> str:
    """The batch an import run without a `batch_id` makes: named after the flow run, so
    that a Retry of the run resumes it."""
    return f"b-{str(flow_run.id).replace('-', '')[:16]}"


def batch_run_name() -> str:
    """`import-<bank|mixed>-<date>-<short batch id>`: two imports of one inbox, or of
    mixed banks, on the same day have different names, each telling its batch."""
    bank = flow_run.parameters.get("bank") or "mixed"
    batch_id = flow_run.parameters.get("batch_id") or run_batch_id()
    return f"import-{bank}-{datetime.now(UTC):%Y-%m-%d}-{batch_id.rsplit('-', 1)[-1][-8:]}"


@flow(name="import-batch", flow_run_name=batch_run_name, log_prints=True,
      task_runner=SettingsTaskRunner())
def import_batch(source: str | list[str], bank: str | None = None,
                 batch_id: str | None = None, follow_links: bool = False,
                 after_import: str = "keep") -> State:
    """Accept every file of `source` into a batch, then process the batch.

    Args:
        source: the statements to import: a folder, a glob, an `s3://` prefix or any fsspec
            URL, or a list of them.
        bank: the bank every file is from, when known (the bank is detected otherwise).
        batch_id: leave empty. The batch is then named after this flow run, so that a Retry
            of the run resumes the same batch instead of importing everything again; give
            one only to add files to a batch that exists.
        follow_links: accept symlinks that lead out of the source folder.
        after_import: `keep`, or `move:DIR` to move each accepted file there, below the same
            relative path. Bytes already imported under the same pins become duplicates,
            never parsed again.
    """
    to_run_logs()
    settings = Settings.from_env()
    batch_id = batch_id or run_batch_id()
    sources = [source] if isinstance(source, str) else list(source)
    options = {"follow_links": follow_links, "after_import": after_import}
    open_batch(settings, batch_id, sources, bank, **options)
    with taken(settings, batch_id) as run:
        try:
            accepted = accept_batch(settings, batch_id, sources, bank, **options)
        except Exception as exc:
            return acceptance_failed(settings, batch_id, run.epoch, exc)
        get_run_logger().info("batch %s: accepted %d files", batch_id, len(accepted))
        return run_batch(settings, batch_id, run)


@flow(name="resume-batch", flow_run_name="resume-{batch_id}", log_prints=True,
      task_runner=SettingsTaskRunner())
def resume_batch(batch_id: str) -> State:
    """Finish a batch whose run died: a source not fully accepted is listed again, then its
    unfinished jobs run and finished ones return at once.

    Args:
        batch_id: the batch to finish (`stmtflow status` lists batches).
    """
    to_run_logs()
    settings = Settings.from_env()
    with taken(settings, batch_id) as run:
        try:
            resume_acceptance(settings, batch_id)
        except Exception as exc:
            return acceptance_failed(settings, batch_id, run.epoch, exc)
        return run_batch(settings, batch_id, run)


def run_batch(settings: Settings, batch_id: str, run: Taken) -> State:
    """Map one task per job of the batch `run` took, with progress, and derive the batch
    state.

    Jobs that a run no longer running left `PROCESSING` (this run before a Retry, say) are
    reclaimed first, so that this run finishes them instead of finding them held.
    """
    ledger = settings.ledger()
    this_run = run.this_run
    batch = ledger.batch(batch_id)
    tagged = {f"bank:{b}" for b in banks(ledger, batch_id)} if this_run else set()
    if this_run:
        kind = "rerun" if batch is not None and batch.rerun_of else "resume"
        mark_run(this_run, tagged, run.continues, kind, settings.ui_url)
    for job_id in reclaim_from_dead_runs(ledger, batch_id, this_run, run.previous_run):
        notify_ended(settings, job_id)  # only a job reclaimed on its last attempt ended
    # duplicates last: one waiting for a holder of this batch never holds a thread before it;
    # of each job only what its task run is given, not its whole record, for the whole run
    files = [(r.job_id, mask_digits(r.file_name)) for r in sorted(
        ledger.each_job(batch_id), key=lambda r: r.status == Status.DUPLICATE)]
    progress = create_progress_artifact(0.0, key=f"progress-{batch_id}".lower(),
                                        description=f"Files finished in batch {batch_id}")
    attempt = process_file.with_options(
        retry_delay_seconds=backoff(settings.retry_seconds, MAX_ATTEMPTS - 1),
        retry_jitter_factor=BACKOFF_JITTER)
    if settings.task_runner == "task-workers":  # queued on the server, for the task workers
        def submit(file: tuple[str, str]) -> PrefectFuture[None]:
            return attempt.apply_async(kwargs={"job_id": file[0], "name": file[1]})
        in_flight, still = len(files), untaken(attempt.task_key, get_run_logger())
    else:
        def submit(file: tuple[str, str]) -> PrefectFuture[None]:
            return attempt.submit(*file)
        in_flight, still = IN_FLIGHT_PER_WORKER * settings.workers, None
    failed_tasks, shown = 0, time.monotonic()
    for done, task_state in enumerate(settled(submit, files, in_flight, still=still),
                                      start=1):
        failed_tasks += not task_state.is_completed()
        if done == len(files) or time.monotonic() - shown >= PROGRESS_SECONDS:
            update_progress_artifact(progress, 100.0 * done / len(files))
            shown = time.monotonic()
    if this_run:  # the banks the files turned out to be, for a batch of unnamed bank
        mark_run(this_run, {f"bank:{b}" for b in banks(ledger, batch_id)} - tagged, None, "",
                 settings.ui_url)
    return finish_batch(settings, batch_id, failed_tasks, run.epoch)


def finish_batch(settings: Settings, batch_id: str, failed_tasks: int, epoch: int) -> State:
    """Derive the batch state from the child task runs (`failed_tasks` of them did not
    complete), then check the ledger agrees.

    The state is written under the `epoch` this run took: a run that another has since
    taken over (a Retry, a resume) writes nothing and says so. Each look at the batch's jobs
    is a pass of its own over the ledger, so the end of a batch of 10,000 files never holds
    its 10,000 jobs at once.
    """
    ledger = settings.ledger()
    reviews = take_up_reviews(settings, batch_id, ledger.each_job(batch_id))
    publish_batch_table(batch_id, ledger.each_job(batch_id), reviews)
    state, verdict = _verdict(ledger, batch_id, ledger.each_job(batch_id), failed_tasks)
    crashpoint.reached(settings.crash_at, "close")
    if not ledger.close_batch(batch_id, state, epoch):
        return Failed(message=f"batch {batch_id}: a later run took the batch over; this run "
                              f"leaves its state alone", data=batch_id)
    return verdict


def _verdict(ledger: Ledger, batch_id: str, rows: Iterable[Job],
             failed_tasks: int) -> tuple[BatchState, State]:
    batch = ledger.batch(batch_id)
    if batch is None or batch.accepted_at is None:
        return BatchState.INCOMPLETE, Failed(
            message=f"batch {batch_id}: its source was not fully accepted", data=batch_id)
    files, excluded, review, duplicates = 0, 0, 0, 0
    unfinished: list[str] = []
    for r in rows:
        files += 1
        if not r.status.terminal:
            unfinished.append(r.job_id)
            continue
        duplicates += r.status == Status.DUPLICATE
        outcome = ledger.outcome_of(r)  # a duplicate ends as its holder
        excluded += outcome.status != Status.SUCCEEDED
        review += outcome.status == Status.SUCCEEDED and outcome.needs_review
    if unfinished:
        return BatchState.INCOMPLETE, Failed(
            message=f"batch {batch_id}: {len(unfinished)} job(s) have no terminal record: "
                    f"{', '.join(unfinished)}", data=batch_id)
    if failed_tasks != excluded:
        return BatchState.INVALID, Failed(
            message=f"batch {batch_id}: {failed_tasks} task run(s) failed but the ledger "
                    f"excludes {excluded} job(s)", data=batch_id)
    if failed_tasks == 0 and review == 0:
        return BatchState.COMPLETED, Completed(
            message=f"batch {batch_id}: {files} files imported, {duplicates} of them "
                    f"before and not parsed again", data=batch_id)
    return BatchState.COMPLETED_WITH_WARNINGS, Completed(
        name=WARNINGS, data=batch_id,
        message=f"batch {batch_id}: {excluded} excluded, {review} need review, "
                f"{files - excluded - review} imported clean; {duplicates} of the "
                f"{files} files were imported before and not parsed again")
