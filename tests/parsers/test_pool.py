"""Parse worker processes: limits that hold, errors that keep their reason, both cores used."""

from __future__ import annotations

import functools
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from hostile_pdfs import stuck_while_opening, zero_filled_content
from pool_targets import scripted

from corpus import Sample
from parsers.api import page_reader, parse_pdf
from parsers.errors import StatementError
from parsers.limits import Limits
from parsers.worker.pool import ParsePool, RemoteTraceback

QUICK = Limits(seconds_per_file=2, max_memory=128 * 1024 * 1024)


def reason_of(pool: ParsePool, data: bytes) -> str:
    with pytest.raises(StatementError) as info:
        pool.parse(data)
    assert not info.value.transient
    return info.value.reason


def test_pool_reads_a_statement_as_parse_pdf_does(corpus: list[Sample]) -> None:
    sample = next(s for s in corpus if s.bank == "northwind")
    with ParsePool(1) as pool:
        got = pool.parse(sample.pdf.read_bytes(), bank="northwind")
    assert got.to_dict() == parse_pdf(sample.pdf.read_bytes(), bank="northwind").to_dict()


def test_bad_input_keeps_its_reason_and_its_worker(bad_inputs: list[Sample]) -> None:
    bad = [s for s in bad_inputs if s.reason in ("not_pdf", "encrypted", "truncated")]
    with ParsePool(1, target=scripted) as pool:
        pid = pool.parse(b"pid")
        assert [reason_of(pool, s.pdf.read_bytes()) for s in bad] == [s.reason for s in bad]
        assert pool.parse(b"pid") == pid


def test_two_parses_run_at_once_on_two_workers(tmp_path: Path) -> None:
    pids: list[int] = []
    with ParsePool(2, target=scripted) as pool:
        threads = [threading.Thread(target=lambda: pids.append(pool.parse(b"meet:%s" % (
            str(tmp_path).encode())))) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(set(pids)) == 2  # each parse returned only once the other had checked in


def test_callers_beyond_the_workers_wait_for_one_and_their_wait_is_not_parse_time() -> None:
    # Five parses of a second each on one worker whose wall limit is three seconds (two and
    # the grace): the last waits four seconds for the worker, which must not count against it.
    with ParsePool(1, QUICK, target=scripted) as pool:
        pids: list[int] = []
        threads = [threading.Thread(target=lambda: pids.append(pool.parse(b"nap:1")))
                   for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(pids) == 5 and len(set(pids)) == 1  # none stopped, none on a worker of its own


def test_a_waiting_caller_takes_the_replacement_of_a_killed_worker(tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    with ParsePool(1, QUICK, target=scripted) as pool:
        before = pool.parse(b"pid")
        reasons: list[str] = []
        hang = threading.Thread(target=lambda: reasons.append(
            reason_of(pool, b"hang:%s" % str(busy).encode())))
        hang.start()
        for _ in range(3000):
            if busy.exists():
                break
            time.sleep(0.01)
        after = pool.parse(b"pid")  # waits until the hang's worker is killed and replaced
        hang.join()
    assert busy.exists() and reasons == ["too_slow"] and after not in (before, os.getpid())


def test_hang_is_killed_at_the_wall_limit_and_the_worker_replaced() -> None:
    with ParsePool(1, QUICK, target=scripted) as pool:
        before = pool.parse(b"pid")
        assert reason_of(pool, b"hang") == "too_slow"
        after = pool.parse(b"pid")
    assert after != before


def test_spinning_parse_is_stopped_too_slow() -> None:
    with ParsePool(1, QUICK, target=scripted) as pool:
        assert reason_of(pool, b"spin") == "too_slow"
        assert isinstance(pool.parse(b"pid"), int)


def test_balloon_past_the_address_space_limit_is_too_large_and_replaced() -> None:
    with ParsePool(1, QUICK, target=scripted) as pool:
        before = pool.parse(b"pid")
        assert reason_of(pool, b"balloon") == "too_large"
        assert pool.parse(b"pid") != before


def test_crash_that_recurs_on_the_same_bytes_is_a_parser_crash() -> None:
    with ParsePool(1, QUICK, target=scripted) as pool:
        assert reason_of(pool, b"crash") == "parser_crash"
        assert isinstance(pool.parse(b"pid"), int)


def test_crash_that_does_not_recur_is_retried_once_and_succeeds(tmp_path: Path) -> None:
    with ParsePool(1, QUICK, target=scripted) as pool:
        pid = pool.parse(b"crash-once:%s" % str(tmp_path / "crashed").encode())
    assert isinstance(pid, int) and pid != os.getpid() and (tmp_path / "crashed").exists()


def test_worker_killed_while_idle_is_replaced_for_the_next_parse() -> None:
    with ParsePool(1, QUICK, target=scripted) as pool:
        pid = pool.parse(b"pid")
        os.kill(pid, signal.SIGKILL)
        assert pool.parse(b"pid") not in (pid, os.getpid())


def test_error_of_our_own_crosses_with_its_type_and_remote_traceback() -> None:
    with ParsePool(1, target=scripted) as pool, pytest.raises(KeyError) as info:
        pool.parse(b"bug")
    cause = info.value.__cause__
    assert isinstance(cause, RemoteTraceback) and "a bug of ours" in str(cause)


def test_configuration_travels_with_the_target_not_the_environment() -> None:
    with ParsePool(1, target=functools.partial(scripted, setting="pdfplumber")) as pool:
        assert pool.parse(b"setting") == "pdfplumber"


def test_a_worker_imports_what_its_fork_server_lacks_before_its_first_parse() -> None:
    """The fork server is one per process, started with the first pool's modules: a later
    pool's own are imported by its workers as they start, not by a parse under its limits."""
    with ParsePool(1, target=scripted) as first:
        first.parse(b"pid")  # the fork server runs, started here or by an earlier test
    with ParsePool(1, target=scripted, preload=("tabnanny",)) as pool:
        assert pool.parse(b"loaded:tabnanny") is True


def test_no_workers_parses_in_the_calling_process() -> None:
    with ParsePool(0, target=scripted) as pool:
        assert pool.parse(b"pid") == os.getpid()


def test_zero_filled_stream_that_balloons_the_reader_is_too_large(corpus: list[Sample]) -> None:
    # 200 MB of zeros stays under the stream check's bound (4 bytes per allowed pixel), so
    # PDFium inflates it, in a worker that may add only 64 MiB: the pool must contain it.
    limits = Limits(seconds_per_file=30, max_memory=64 * 1024 * 1024)
    with ParsePool(1, limits) as pool:
        assert reason_of(pool, zero_filled_content(200 * 1024 * 1024)) == "too_large"
        good = next(s for s in corpus if s.bank == "harbor")
        assert pool.parse(good.pdf.read_bytes()).layout == "harbor"


@pytest.mark.slow
def test_file_stuck_while_opening_is_killed_too_slow() -> None:
    data = stuck_while_opening(49 * 1024 * 1024)
    slow = functools.partial(parse_pdf, reader=page_reader("pdfplumber"))
    with ParsePool(1, Limits(seconds_per_file=3), target=slow) as pool:
        assert reason_of(pool, data) == "too_slow"
