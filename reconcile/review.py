"""Reviews: the record of a statement that needs review, its lifecycle and its audit trail.

A review opens when the book holds a statement apart (it did not validate) and ends once,
in one guarded UPDATE (`settle`): open -> accepted | corrected | rejected. Exactly one
decision wins when two people decide at once. Every decision and every refused attempt is
an event: who, through what (the command line or a Prefect flow run), when, and for a
correction each field's old and new value. States and actions are `ReviewState` and
`ReviewAction` of `parsers/codes.py`; rows become `Review` and `ReviewEvent` records
(`reconcile/records.py`). The time of each transition is the caller's (`at`), read from
the clock it was given.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import Connection, Engine, insert, or_, select, update

from parsers.codes import ReviewAction, ReviewState
from reconcile.db import review_events, reviews
from reconcile.records import Review, ReviewEvent


# -- transitions (each on the caller's connection, inside its transaction) ---------------
def open_review(c: Connection, *, decision_id: str, input_sha256: str, output_uri: str | None,
                output_digest: str, problems: list[str], at: datetime) -> int:
    review_id = c.execute(insert(reviews).values(
        decision_id=decision_id, input_sha256=input_sha256, output_uri=output_uri,
        output_digest=output_digest, problems=json.dumps(problems), state=ReviewState.OPEN,
        created_at=at)).inserted_primary_key[0]
    record(c, review_id, actor="stmtflow", via="book", action=ReviewAction.OPENED, at=at,
           note=f"{len(problems)} problem(s)")
    return int(review_id)


def settle(c: Connection, review_id: int, state: ReviewState, *, by: str, at: datetime,
           note: str | None = None, version_uri: str | None = None,
           version_digest: str | None = None) -> bool:
    """open -> `state`, guarded: False when the review was no longer open."""
    return c.execute(update(reviews).where(
        reviews.c.id == review_id, reviews.c.state == ReviewState.OPEN,
    ).values(state=state, decided_at=at, decided_by=by, note=note, version_uri=version_uri,
             version_digest=version_digest)).rowcount == 1


def record(c: Connection, review_id: int, *, actor: str, via: str, action: ReviewAction,
           at: datetime, changes: list[dict[str, str | None]] | None = None,
           note: str | None = None) -> None:
    c.execute(insert(review_events).values(
        review_id=review_id, at=at, actor=actor, via=via, action=action,
        changes=json.dumps(changes) if changes else None, note=note))


# -- reading ------------------------------------------------------------------------------
class ReviewLog:
    """Reviews and their audit trail as records."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, ref: int | str) -> Review | None:
        """A review by its number, or by the job (decision) id it reviews."""
        cond = reviews.c.decision_id == str(ref)
        if str(ref).isdigit():
            cond = or_(reviews.c.id == int(ref), cond)
        with self.engine.connect() as c:
            row = c.execute(select(reviews).where(cond)).mappings().first()
        return Review.from_row(row) if row else None

    def all(self, state: ReviewState | None = None) -> list[Review]:
        q = select(reviews).order_by(reviews.c.id)
        if state is not None:
            q = q.where(reviews.c.state == state)
        with self.engine.connect() as c:
            return [Review.from_row(r) for r in c.execute(q).mappings()]

    def events(self, review_id: int) -> list[ReviewEvent]:
        with self.engine.connect() as c:
            return [ReviewEvent.from_row(r) for r in c.execute(select(review_events).where(
                review_events.c.review_id == review_id).order_by(review_events.c.id))
                .mappings()]

    def attach_flow_run(self, review_id: int, flow_run_id: str) -> None:
        """Remember the Prefect flow run that asks a person about this review."""
        with self.engine.begin() as c:
            c.execute(update(reviews).where(reviews.c.id == review_id)
                      .values(flow_run_id=flow_run_id))
