"""A batch run that cannot accept its source still ends its batch, and says why.

A source that cannot be listed for a reason the next run would meet too (an inbox folder
that does not exist, no permission on it, a bug) closes the batch FAILED with that reason,
and the jobs it had accepted but not run with it (`batch_failed`): no batch stays PROCESSING
for ever, and `stmtflow recover` finds nothing to resume. A transient cause (storage or the
database away) leaves the batch open, its lease released, for a resume to list the source
again. Either way the run ends Failed with a one-line message, never a traceback.
"""

from __future__ import annotations

import logging

from prefect.states import Failed, State

from flows.config import Settings
from flows.notify import notify_ended
from flows.taxonomy import classify_acceptance
from parsers.model import mask_digits

log = logging.getLogger("stmtflow")


def acceptance_failed(settings: Settings, batch_id: str, epoch: int,
                      exc: Exception) -> State:
    """End (or leave open, when transient) the batch whose acceptance raised `exc`."""
    c = classify_acceptance(exc)
    cause = " ".join(mask_digits(str(exc)).split())[:300]
    message = f"batch {batch_id}: its source could not be accepted ({c.reason}: {cause})"
    if c.transient:
        log.warning("%s; the batch stays open for a resume to list it again", message)
        return Failed(message=f"{message}; a resume lists it again", data=batch_id)
    ended = settings.ledger().fail_batch(batch_id, epoch, c.reason, message)
    if ended is None:
        return Failed(message=f"{message}; a later run took the batch over", data=batch_id)
    for job_id in ended:
        notify_ended(settings, job_id)
    log.warning("%s: the batch ends FAILED", message)
    return Failed(message=message, data=batch_id)
