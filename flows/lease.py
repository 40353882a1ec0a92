"""Keep a claim's lease alive while its attempt runs.

A lease only says "someone is on it" for as long as it lasts: a parse that outlasts it (a
long scan under OCR) would look like a dead worker to the sweep and to a starting run. So
while an attempt runs, a daemon thread renews the lease every third of its length, through
the ledger's guarded `renew`; it stops when the attempt ends or when a renewal finds the
lease taken over (the attempt then commits nothing, as before).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from reconcile.ledger import Claim, Ledger


@contextmanager
def kept(ledger: Ledger, claim: Claim) -> Iterator[None]:
    """Renew `claim`'s lease in the background for as long as the block runs."""
    done = threading.Event()
    every = max(ledger.lease.total_seconds() / 3, 0.05)

    def renew() -> None:
        while not done.wait(every):
            try:
                if not ledger.renew(claim):
                    return
            except Exception:  # a database hiccup: the next renewal may get through
                continue

    thread = threading.Thread(target=renew, name=f"lease-{claim.job_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
