"""A batch's run keeps nothing per finished file: its memory stays flat with the file count."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.task_runners import ThreadPoolTaskRunner

from flows.import_flow import import_batch, settled
from flows.runners import ThreadPool


@task
def _square(n: int) -> int:
    return n * n


def test_each_finished_file_s_future_is_let_go_once_its_state_is_read() -> None:
    @flow(task_runner=ThreadPoolTaskRunner(max_workers=2))
    def batch() -> tuple[int, int]:
        futures = _square.map(list(range(30)))
        held = [weakref.ref(f) for f in futures]
        completed = 0
        for state in settled(futures):
            completed += state.is_completed()
        gc.collect()
        return completed, sum(ref() is not None for ref in held)

    completed, alive = batch()
    assert (completed, alive) == (30, 0)


def test_the_thread_pool_keeps_no_cancel_event_of_an_ended_task_run() -> None:
    """Prefect's own keeps one per task run until the runner is gone."""
    runner = ThreadPool(max_workers=2)

    @flow(task_runner=runner)
    def batch() -> int:
        futures = _square.map(list(range(20)))
        for _ in settled(futures):
            pass
        return len(flow_run_runner()._cancel_events)

    assert batch() == 0


def flow_run_runner() -> Any:
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    assert context is not None and isinstance(context.task_runner, ThreadPool)
    return context.task_runner


def test_a_file_s_task_run_returns_nothing_for_the_flow_run_to_keep(
        stmtflow_home: Path, inbox: Any, task_runs: Any) -> None:
    """Prefect links every returned object to its task run's state for the whole flow run
    (a few KB a file); None it cannot link, and says so in the state."""
    state = import_batch(str(inbox.folder), batch_id="b-flat", return_state=True)
    runs = [t for t in task_runs(state) if t.state.is_completed()]
    assert runs and all(t.state.state_details.untrackable_result for t in runs)
