"""stmtflow's own log lines in the Prefect run logs; expected failures as one warning.

`PREFECT_LOGGING_EXTRA_LOGGERS=stmtflow` would do this, but only where someone set it before
Prefect configured logging (on every worker, in every deployment's environment). So each flow
attaches Prefect's API log handler to the `stmtflow` logger itself, once per process, the way
Prefect does for its extra loggers. Only records made inside a flow or task run go to the
API (outside one there is no run to file them under). Every line is already masked where it
is made (`parsers.model.mask_account`, `mask_digits`).

A file that fails for a reason of its own (not a PDF, an unknown layout) is an expected
outcome, not an error of the program: the worker logs it as one WARNING line with its reason
code, and Prefect's `Finished in state Failed(...)` ERROR line with the exception text is
left out for that task run (`expected_failure`, `QuietExpected`).
"""

from __future__ import annotations

import logging

from prefect.context import FlowRunContext, TaskRunContext
from prefect.logging.handlers import APILogHandler

LOGGER = "stmtflow"
#: task runs whose failure was expected and already logged by stmtflow
_EXPECTED: set[str] = set()


def expected_failure(task_run_id: str) -> None:
    """Mark the task run as ending in an expected failure that stmtflow has logged."""
    _EXPECTED.add(task_run_id)


class QuietExpected(logging.Filter):
    """Drops Prefect's ERROR `Finished in state ...` line of an expected failure."""

    def filter(self, record: logging.LogRecord) -> bool:
        task_run_id = str(getattr(record, "task_run_id", ""))
        if (record.levelno >= logging.ERROR and task_run_id in _EXPECTED
                and record.getMessage().startswith("Finished in state")):
            _EXPECTED.discard(task_run_id)
            return False
        return True


class RunLogHandler(APILogHandler):
    """Prefect's API log handler for records made inside a run only."""

    def filter(self, record: logging.LogRecord) -> bool:
        in_run = FlowRunContext.get() is not None or TaskRunContext.get() is not None
        return in_run and super().filter(record)


class Console(logging.Handler):
    """Hands WARNING and above on to the root logger's handlers, as before: the run logs
    get stmtflow's INFO lines, the console only what it always showed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        logging.getLogger().handle(record)


def to_run_logs() -> None:
    """Send the `stmtflow` logger's INFO and above to the logs of the run making them, and
    quiet Prefect's ERROR line for expected failures; once per process."""
    task_runs = logging.getLogger("prefect.task_runs")
    if not any(isinstance(f, QuietExpected) for f in task_runs.filters):
        task_runs.addFilter(QuietExpected())
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(h, RunLogHandler) for h in logger.handlers):
        logger.addHandler(RunLogHandler())
        logger.addHandler(Console())
        logger.propagate = False
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)
