"""Keep a lease alive while the work it covers runs: a claim's while its attempt runs, a
batch's while its run holds it.

A lease only says "someone is on it" for as long as it lasts: a parse that outlasts it (a
long scan under OCR) would look like a dead worker to the sweep and to a starting run, and a
long listing or acceptance like a dead batch run to `stmtflow recover`. So while the work
runs, a daemon thread renews the lease every third of its length, through the ledger's
guarded `renew` (`renew_batch`); it stops when the work ends or when a renewal finds the
lease taken over (the stale work then commits nothing, as before).

Claims come and go with every attempt, so one thread of the process renews all of them
(`_Renewer`): an attempt registers its claim and drops it, and starts and joins no thread of
its own. A renewal that crosses the attempt's end matches no row (its guard is the claim).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from reconcile.ledger import Claim, Ledger


@contextmanager
def kept(ledger: Ledger, claim: Claim) -> Iterator[None]:
    """Renew `claim`'s lease in the background for as long as the block runs."""
    token = _RENEWER.hold(ledger, claim)
    try:
        yield
    finally:
        _RENEWER.drop(token)


@dataclass
class _Held:
    ledger: Ledger
    claim: Claim
    every: float
    due: float


class _Renewer:
    """The process's one thread renewing every claim held in it, each every third of its
    lease; started with the first claim."""

    def __init__(self) -> None:
        self._held: dict[object, _Held] = {}
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def hold(self, ledger: Ledger, claim: Claim) -> object:
        token = object()
        every = _every(ledger)
        with self._changed:
            self._held[token] = _Held(ledger, claim, every, time.monotonic() + every)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="lease-claims",
                                                daemon=True)
                self._thread.start()
            self._changed.notify()
        return token

    def drop(self, token: object) -> None:
        with self._changed:
            self._held.pop(token, None)

    def _loop(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = [(t, h) for t, h in self._held.items() if h.due <= now]
                if not due:
                    soonest = min((h.due for h in self._held.values()), default=None)
                    self._changed.wait(None if soonest is None else soonest - now)
                    continue
                for _, h in due:
                    h.due = now + h.every
            for token, h in due:
                try:
                    renewed = h.ledger.renew(h.claim)
                except Exception:  # a database hiccup: the next renewal may get through
                    continue
                if not renewed:  # taken over: the stale attempt commits nothing
                    self.drop(token)


_RENEWER = _Renewer()


def _every(ledger: Ledger) -> float:
    """How often a lease of `ledger` is renewed: three times a lease."""
    return max(ledger.lease.total_seconds() / 3, 0.05)


@contextmanager
def batch_kept(ledger: Ledger, batch_id: str, epoch: int) -> Iterator[None]:
    """Renew the lease of `batch_id`, taken at `epoch`, for as long as the block runs; then
    release it, so that a run that ended without closing the batch is seen dead at once."""
    with _renewed(ledger, lambda: ledger.renew_batch(batch_id, epoch), f"lease-{batch_id}"):
        try:
            yield
        finally:
            with suppress(Exception):  # a database hiccup: the lease runs out by itself
                ledger.release_batch(batch_id, epoch)


@contextmanager
def _renewed(ledger: Ledger, renew: Callable[[], bool], name: str) -> Iterator[None]:
    done = threading.Event()
    every = _every(ledger)

    def loop() -> None:
        while not done.wait(every):
            try:
                if not renew():
                    return
            except Exception:  # a database hiccup: the next renewal may get through
                continue

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
