"""The command as a process: how it ends, and what it starts early."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

#: a command `probe` that registers an exit handler, prints a long line and returns 3; an
#: object of the script's own whose teardown leaves a mark
PROBE = """
import atexit, os
from pathlib import Path
from flows import cli

marks = Path(os.environ["MARKS"])

class Teardown:
    def __del__(self):
        (marks / "teardown").touch()

def probe(args):
    atexit.register((marks / "handler").touch)
    print("x" * 100_000)
    return 3

def short(args):
    print("done")
    return 0

def command(sub):
    sub.add_parser("probe").set_defaults(func=probe)
    sub.add_parser("short").set_defaults(func=short)

kept = Teardown()
cli.run(extra=[command])
"""


def _probe(tmp_path: Path, *args: str, **run: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MARKS": str(tmp_path), "PYTHONPATH": os.getcwd()}
    env.pop("PYTHONUNBUFFERED", None)  # the output buffered, as a user's command has it
    run.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([sys.executable, "-c", PROBE, *args], stderr=subprocess.PIPE,
                          text=True, env=env, timeout=120, check=False, **run)


def test_the_command_ends_once_its_exit_handlers_ran(tmp_path: Path) -> None:
    """Its code and its whole output; a handler the command registered has run; the
    interpreter's teardown of every module is skipped."""
    done = _probe(tmp_path, "probe")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "x" * 100_000 + "\n"
    assert (tmp_path / "handler").exists()
    assert not (tmp_path / "teardown").exists()


def test_output_the_command_could_not_write_fails_it(tmp_path: Path) -> None:
    """What the command printed is still buffered when it returns: a write of it that fails
    at the end (a full disk) is the command's failure, said on stderr, not a silent 0."""
    with open("/dev/full", "w") as full:
        done = _probe(tmp_path, "short", stdout=full)
    assert done.returncode == 2
    assert "No space left on device" in done.stderr


def test_a_reader_that_left_fails_no_command(tmp_path: Path) -> None:
    """`stmtflow status | head`: output nobody reads any more is nothing to report."""
    read, write = os.pipe()
    os.close(read)  # the reader left before the command wrote
    try:
        done = _probe(tmp_path, "short", stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr


def test_a_command_that_did_not_return_ends_the_usual_way(tmp_path: Path) -> None:
    done = _probe(tmp_path, "no-such-command")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr
    assert (tmp_path / "teardown").exists()


#: starts the parse workers' fork server as `import` does, and prints how many processes
#: this one has started
EARLY = """
import psutil
from flows.cli.batch import _start_parse_workers
from flows.config import Settings

_start_parse_workers(Settings.from_env())
print(len(psutil.Process().children()))
"""


@pytest.mark.parametrize(("variables", "started"), [
    ({}, True),
    ({"STMTFLOW_PARSE_WORKERS": "0"}, False),
    ({"STMTFLOW_TASK_RUNNER": "dask"}, False),
])
def test_import_starts_the_parse_workers_fork_server_before_the_flow(
        stmtflow_home: Path, variables: dict[str, str], started: bool) -> None:
    """Its fork server is running before the batch's flow asks for a parse (but not where
    nothing parses in this process's workers)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(variables, STMTFLOW_PARSE_WORKERS=variables.get("STMTFLOW_PARSE_WORKERS", "2"),
               PYTHONPATH=os.getcwd())
    done = subprocess.run([sys.executable, "-c", EARLY], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    # the fork server (and multiprocessing's resource tracker), or nothing
    assert (int(done.stdout) > 0) == started
