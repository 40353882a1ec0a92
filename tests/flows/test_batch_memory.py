"""A batch's run keeps nothing per finished file: its memory stays flat with the file count."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest
from prefect import flow, task
from prefect.task_runners import ThreadPoolTaskRunner

from flows.import_flow import import_batch
from flows.runners import ThreadPool
from flows.settle import settled


@task
def _square(n: int) -> int:
    return n * n


def test_each_finished_file_s_future_is_let_go_once_its_state_is_read() -> None:
    @flow(task_runner=ThreadPoolTaskRunner(max_workers=2))
    def batch() -> tuple[int, int]:
        held: list[weakref.ref[Any]] = []

        def submit(n: int) -> Any:
            future = _square.submit(n)
            held.append(weakref.ref(future))
            return future

        completed = sum(state.is_completed() for state in settled(submit, list(range(30)), 8))
        gc.collect()
        return completed, sum(ref() is not None for ref in held)

    assert batch() == (30, 0)


def test_no_more_files_are_handed_to_the_runner_than_it_has_in_flight() -> None:
    @flow(task_runner=ThreadPoolTaskRunner(max_workers=2))
    def batch() -> tuple[int, int]:
        submitted, most = 0, 0

        def submit(n: int) -> Any:
            nonlocal submitted
            submitted += 1
            return _square.submit(n)

        for read, _ in enumerate(settled(submit, list(range(40)), 5), start=1):
            most = max(most, submitted - read)
        return submitted, most

    assert batch() == (40, 5)


class _Deaf:
    """A future whose done callback is lost, as Prefect's for a task run queued for task
    workers is when its event comes between the API read and the listening; every other
    call reaches the real future."""

    def __init__(self, future: Any) -> None:
        self._future = future

    def add_done_callback(self, fn: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._future, name)


class _Late(_Deaf):
    """A future whose done callback comes long after its task run ended."""

    def add_done_callback(self, fn: Any) -> None:
        self._future.add_done_callback(lambda _: threading.Timer(1.0, fn, (self,)).start())


@pytest.mark.timeout(60)
def test_task_runs_whose_callbacks_are_lost_or_late_are_each_read_once() -> None:
    @flow(task_runner=ThreadPoolTaskRunner(max_workers=2))
    def batch() -> list[int]:
        def submit(n: int) -> Any:
            return (_Deaf if n % 2 else _Late)(_square.submit(n))

        return sorted(state.result() for state in settled(submit, list(range(12)), 4,
                                                           quiet=0.2))

    assert batch() == [n * n for n in range(12)]


@pytest.mark.timeout(60)
def test_a_read_of_unfinished_task_runs_that_fails_is_waited_past(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from flows import settle

    failures = iter([ConnectionError("API away")])

    def read(task_run_ids: list[Any]) -> list[Any]:
        if (failure := next(failures, None)) is not None:
            raise failure
        return real(task_run_ids)

    real = settle.ended
    monkeypatch.setattr(settle, "ended", read)

    @flow(task_runner=ThreadPoolTaskRunner(max_workers=2))
    def batch() -> list[int]:
        return sorted(state.result() for state in settled(
            lambda n: _Deaf(_square.submit(n)), list(range(4)), 4, quiet=0.2))

    assert batch() == [0, 1, 4, 9]


def test_the_thread_pool_keeps_no_cancel_event_of_an_ended_task_run() -> None:
    """Prefect's own keeps one per task run until the runner is gone."""
    runner = ThreadPool(max_workers=2)

    @flow(task_runner=runner)
    def batch() -> int:
        for _ in settled(_square.submit, list(range(20)), 20):
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
    """Prefect links every returned object to a copy of its task run's state for the whole
    flow run; None it cannot link, and says so in the state."""
    state = import_batch(str(inbox.folder), batch_id="b-flat", return_state=True)
    runs = [t for t in task_runs(state) if t.state.is_completed()]
    assert runs and all(t.state.state_details.untrackable_result for t in runs)
