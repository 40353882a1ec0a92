"""Transient failures back off: a 60 s outage is outlasted within the three attempts."""

from __future__ import annotations

import random

from prefect.utilities.math import clamped_poisson_interval

from flows.config import Settings
from flows.taxonomy import BACKOFF_CAP_SECONDS, BACKOFF_JITTER, backoff
from reconcile.ledger import MAX_ATTEMPTS


def test_backoff_is_exponential_and_capped() -> None:
    assert backoff(15, 2) == [15, 60]
    assert backoff(1, 4) == [1, 4, 16, 64]
    assert backoff(50, 3) == [50, 120, 120]


def test_a_sixty_second_outage_is_outlasted_within_the_attempts_whatever_the_jitter() -> None:
    delays = backoff(Settings.from_env({}).retry_seconds, MAX_ATTEMPTS - 1)
    random.seed(7)
    # what Prefect waits before each retry, drawn as its task engine draws it
    draws = [[clamped_poisson_interval(d, clamping_factor=BACKOFF_JITTER) for d in delays]
             for _ in range(5000)]
    totals = [sum(d) for d in draws]
    assert min(totals) > 60, "the last attempt must start after the outage ended"
    assert max(max(d) for d in draws) <= BACKOFF_CAP_SECONDS * (1 + BACKOFF_JITTER)
    firsts = {round(d[0]) for d in draws}
    assert len(firsts) > 5, "tasks that failed together must not retry together"


def test_retry_delay_is_configured_at_the_edge() -> None:
    assert Settings.from_env({"STMTFLOW_RETRY_SECONDS": "0.5"}).retry_seconds == 0.5
