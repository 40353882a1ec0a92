"""Reviews: the record of a statement that needs review, its lifecycle and its audit trail.

A review opens when the book holds a statement apart (it did not validate) and ends once,
in one guarded UPDATE (`settle`): open -> accepted | corrected | rejected. Exactly one
decision wins when two people decide at once. Every decision and every refused attempt is
an event: who, through what (the command line or a Prefect flow run), when, and for a
correction each field's old and new value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, Engine, insert, or_, select, update

from reconcile.db import review_events, reviews
from reconcile.ledger import now


class ReviewState(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    CORRECTED = "corrected"
    REJECTED = "rejected"


#: the states whose statement is in the book
VERIFIED = (ReviewState.ACCEPTED, ReviewState.CORRECTED)


class Action(StrEnum):
    OPENED = "opened"
    ACCEPTED = "accepted"
    CORRECTED = "corrected"
    REJECTED = "rejected"
    #: a decision that was not applied (a correction that does not reconcile, say)
    REFUSED = "refused"


@dataclass(frozen=True)
class Review:
    id: int
    decision_id: str
    input_sha256: str
    output_uri: str | None
    output_digest: str
    problems: tuple[str, ...]
    state: ReviewState
    created_at: datetime
    decided_at: datetime | None
    decided_by: str | None
    note: str | None
    version_uri: str | None
    version_digest: str | None
    flow_run_id: str | None

    @classmethod
    def from_row(cls, row: Any) -> Review:
        return cls(row["id"], row["decision_id"], row["input_sha256"], row["output_uri"],
                   row["output_digest"], tuple(json.loads(row["problems"])),
                   ReviewState(row["state"]), _aware(row["created_at"]),
                   _aware(row["decided_at"]), row["decided_by"], row["note"],
                   row["version_uri"], row["version_digest"], row["flow_run_id"])

    def age(self, at: datetime) -> timedelta:
        """How long it waited: until its decision, or until `at` while open."""
        return (self.decided_at or at) - self.created_at

    def to_dict(self) -> dict[str, Any]:
        return {"review_id": self.id, "job_id": self.decision_id, "state": self.state.value,
                "problems": list(self.problems), "created_at": self.created_at.isoformat(),
                "decided_at": self.decided_at.isoformat() if self.decided_at else None,
                "decided_by": self.decided_by, "note": self.note,
                "output_uri": self.output_uri, "version_uri": self.version_uri,
                "flow_run_id": self.flow_run_id}


@dataclass(frozen=True)
class Event:
    review_id: int
    at: datetime
    actor: str
    via: str
    action: Action
    changes: tuple[dict[str, str | None], ...]
    note: str | None

    @classmethod
    def from_row(cls, row: Any) -> Event:
        return cls(row["review_id"], _aware(row["at"]), row["actor"], row["via"],
                   Action(row["action"]), tuple(json.loads(row["changes"] or "[]")),
                   row["note"])

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(), "actor": self.actor, "via": self.via,
                "action": self.action.value, "changes": list(self.changes), "note": self.note}


def _aware(t: datetime | None) -> datetime | None:
    return t.replace(tzinfo=UTC) if t is not None and t.tzinfo is None else t


# -- transitions (each on the caller's connection, inside its transaction) ---------------
def open_review(c: Connection, *, decision_id: str, input_sha256: str, output_uri: str | None,
                output_digest: str, problems: list[str]) -> int:
    t = now()
    review_id = c.execute(insert(reviews).values(
        decision_id=decision_id, input_sha256=input_sha256, output_uri=output_uri,
        output_digest=output_digest, problems=json.dumps(problems), state=ReviewState.OPEN,
        created_at=t)).inserted_primary_key[0]
    record(c, review_id, actor="stmtflow", via="book", action=Action.OPENED,
           note=f"{len(problems)} problem(s)")
    return int(review_id)


def settle(c: Connection, review_id: int, state: ReviewState, *, by: str,
           note: str | None = None, version_uri: str | None = None,
           version_digest: str | None = None) -> bool:
    """open -> `state`, guarded: False when the review was no longer open."""
    return c.execute(update(reviews).where(
        reviews.c.id == review_id, reviews.c.state == ReviewState.OPEN,
    ).values(state=state, decided_at=now(), decided_by=by, note=note, version_uri=version_uri,
             version_digest=version_digest)).rowcount == 1


def record(c: Connection, review_id: int, *, actor: str, via: str, action: Action,
           changes: list[dict[str, str | None]] | None = None, note: str | None = None) -> None:
    c.execute(insert(review_events).values(
        review_id=review_id, at=now(), actor=actor, via=via, action=action,
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

    def events(self, review_id: int) -> list[Event]:
        with self.engine.connect() as c:
            return [Event.from_row(r) for r in c.execute(select(review_events).where(
                review_events.c.review_id == review_id).order_by(review_events.c.id))
                .mappings()]

    def attach_flow_run(self, review_id: int, flow_run_id: str) -> None:
        """Remember the Prefect flow run that asks a person about this review."""
        with self.engine.begin() as c:
            c.execute(update(reviews).where(reviews.c.id == review_id)
                      .values(flow_run_id=flow_run_id))
