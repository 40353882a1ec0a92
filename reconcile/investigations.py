"""Investigations: the record that a job without a terminal state has someone on it.

The reconciliation opens one per unresolved job (owned by the configured operator, if
any); an operator takes it over or closes it with a note. A job is accounted for only when
it is terminal or has an open investigation with an owner.
"""

from __future__ import annotations

from sqlalchemy import Engine, insert, select, update

from reconcile.db import investigations
from reconcile.records import Clock, Investigation, utc_now


class Investigations:
    def __init__(self, engine: Engine, clock: Clock = utc_now) -> None:
        self.engine = engine
        self.clock = clock

    def open_for_many(self, job_ids: list[str], owner: str | None) -> None:
        """Open an investigation for every job of `job_ids` that has none open, in one read
        and one insert (a pass may find many unfinished jobs)."""
        opened = self.open_by_job()
        fresh = [j for j in dict.fromkeys(job_ids) if j not in opened]
        if fresh:
            with self.engine.begin() as c:
                c.execute(insert(investigations), [
                    {"job_id": j, "owner": owner, "opened_at": self.clock()} for j in fresh])

    def assign(self, investigation_id: int, owner: str) -> bool:
        with self.engine.begin() as c:
            return c.execute(update(investigations).where(
                investigations.c.id == investigation_id, investigations.c.closed_at.is_(None),
            ).values(owner=owner)).rowcount == 1

    def close(self, investigation_id: int, note: str) -> bool:
        with self.engine.begin() as c:
            return c.execute(update(investigations).where(
                investigations.c.id == investigation_id, investigations.c.closed_at.is_(None),
            ).values(closed_at=self.clock(), note=note)).rowcount == 1

    def open_by_job(self) -> dict[str, Investigation]:
        with self.engine.connect() as c:
            rows = c.execute(select(investigations).where(
                investigations.c.closed_at.is_(None)).order_by(investigations.c.id)).mappings()
            return {r["job_id"]: Investigation.from_row(r) for r in rows}

    def all(self) -> list[Investigation]:
        with self.engine.connect() as c:
            return [Investigation.from_row(r) for r in c.execute(select(investigations).order_by(
                investigations.c.id)).mappings()]
