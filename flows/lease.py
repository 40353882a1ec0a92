"""Keep a lease alive while the work it covers runs: a claim's while its attempt runs, a
batch's while its run holds it.

A lease only says "someone is on it" for as long as it lasts: a parse that outlasts it (a
long scan under OCR) would look like a dead worker to the sweep and to a starting run, and a
long listing or acceptance like a dead batch run to `stmtflow recover`. So while the work
runs, a daemon thread renews the lease every third of its length, through the ledger's
guarded `renew` (`renew_batch`); it stops when the work ends or when a renewal finds the
lease taken over (the stale work then commits nothing, as before).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from reconcile.ledger import Claim, Ledger


@contextmanager
def kept(ledger: Ledger, claim: Claim) -> Iterator[None]:
    """Renew `claim`'s lease in the background for as long as the block runs."""
    with _renewed(ledger, lambda: ledger.renew(claim), f"lease-{claim.job_id}"):
        yield


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
    every = max(ledger.lease.total_seconds() / 3, 0.05)

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
