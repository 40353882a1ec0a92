"""The book: the downstream consumer that imports each succeeded statement exactly once.

It polls durable state (succeeded jobs in the ledger, their verified output objects) and
never depends on notifications. Each success is consumed by decision id (the job id):
delivered twice, it is imported once and gets one review task. A different output digest
for a decision already imported, or for input bytes already imported under another digest,
is quarantined with an alert; nothing is ever replaced. Transactions are keyed per account
by (date, description, amount, occurrence), so overlapping statements never duplicate one.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, func, insert, select

from parsers.vocabulary import Status
from reconcile.db import book_deliveries, book_imports, book_transactions, quarantine, review_tasks
from reconcile.ledger import Ledger
from reconcile.records import Clock, utc_now
from reconcile.storage import Storage, sha256

IMPORTED, DUPLICATE, QUARANTINED = "imported", "duplicate", "quarantined"


@dataclass(frozen=True)
class Delivery:
    """One succeeded job's output as the book receives it."""

    decision_id: str
    input_sha256: str
    output_digest: str
    statement: dict[str, Any]
    #: the digest the ledger recorded for this decision; an object that differs is refused
    recorded_digest: str | None = None


class Book:
    def __init__(self, engine: Engine, clock: Clock = utc_now) -> None:
        self.engine = engine
        self.clock = clock

    def consume(self, d: Delivery) -> str:
        """Import `d` once; return imported, duplicate or quarantined."""
        with self.engine.begin() as c:
            known = c.execute(select(book_imports).where(
                book_imports.c.decision_id == d.decision_id)).mappings().first()
            same_input = c.execute(select(book_imports).where(
                book_imports.c.input_sha256 == d.input_sha256,
                book_imports.c.output_digest != d.output_digest)).mappings().first()
            twin = c.execute(select(book_imports.c.decision_id).where(
                book_imports.c.input_sha256 == d.input_sha256,
                book_imports.c.output_digest == d.output_digest)).first()
            if known is not None and known["output_digest"] != d.output_digest:
                outcome = self._quarantine(c, d, known["output_digest"], "decision_changed")
            elif d.recorded_digest and d.recorded_digest != d.output_digest:
                outcome = self._quarantine(c, d, d.recorded_digest, "object_mismatch")
            elif known is None and same_input is not None:
                outcome = self._quarantine(c, d, same_input["output_digest"], "input_changed")
            elif known is not None or twin is not None:
                outcome = DUPLICATE
            else:
                self._import(c, d)
                outcome = IMPORTED
            c.execute(insert(book_deliveries).values(
                decision_id=d.decision_id, output_digest=d.output_digest, outcome=outcome,
                at=self.clock()))
        return outcome

    def _quarantine(self, c: Any, d: Delivery, known: str, reason: str) -> str:
        exists = c.execute(select(quarantine.c.id).where(
            quarantine.c.decision_id == d.decision_id,
            quarantine.c.new_digest == d.output_digest)).first()
        if exists is None:
            c.execute(insert(quarantine).values(
                decision_id=d.decision_id, input_sha256=d.input_sha256, known_digest=known,
                new_digest=d.output_digest, reason=reason, created_at=self.clock()))
        return QUARANTINED

    def _import(self, c: Any, d: Delivery) -> None:
        st = d.statement
        for acct in st["accounts"]:
            keys = [(t["date"], t["description"], t["amount"]) for t in acct["transactions"]]
            seen: Counter[tuple[str, str, str]] = Counter()
            for t, key in zip(acct["transactions"], keys, strict=True):
                seen[key] += 1
                exists = c.execute(select(book_transactions.c.id).where(
                    book_transactions.c.account_last4 == acct["account_last4"],
                    book_transactions.c.currency == acct["currency"],
                    book_transactions.c.date == t["date"],
                    book_transactions.c.description == t["description"],
                    book_transactions.c.amount == t["amount"],
                    book_transactions.c.occurrence == seen[key])).first()
                if exists is None:
                    c.execute(insert(book_transactions).values(
                        account_last4=acct["account_last4"], currency=acct["currency"],
                        date=t["date"], description=t["description"], amount=t["amount"],
                        balance=t["balance"], occurrence=seen[key], decision_id=d.decision_id))
        c.execute(insert(book_imports).values(
            decision_id=d.decision_id, input_sha256=d.input_sha256,
            output_digest=d.output_digest,
            accounts=",".join(a["account_last4"] for a in st["accounts"]),
            transactions=sum(len(a["transactions"]) for a in st["accounts"]),
            imported_at=self.clock()))
        if not st.get("validation", {}).get("ok", False):
            c.execute(insert(review_tasks).values(
                decision_id=d.decision_id, created_at=self.clock(),
                problems=json.dumps(st.get("validation", {}).get("problems", []))))

    # -- reading ----------------------------------------------------------------------
    def summary(self) -> dict[str, int]:
        with self.engine.connect() as c:
            outcomes = dict(c.execute(select(book_deliveries.c.outcome, func.count()).group_by(
                book_deliveries.c.outcome)).all())
            return {
                "imported": c.execute(select(func.count()).select_from(book_imports)).scalar_one(),
                "deliveries": sum(outcomes.values()),
                "duplicates_suppressed": outcomes.get(DUPLICATE, 0),
                "quarantined": c.execute(select(func.count()).select_from(quarantine)
                                         ).scalar_one(),
                "review_tasks": c.execute(select(func.count()).select_from(review_tasks)
                                          ).scalar_one(),
                "transactions": c.execute(select(func.count()).select_from(book_transactions)
                                          ).scalar_one(),
            }

    def imported(self) -> set[str]:
        with self.engine.connect() as c:
            return {d for (d,) in c.execute(select(book_imports.c.decision_id))}

    def delivered(self) -> set[tuple[str, str]]:
        """Every (decision id, output digest) the book has already been given."""
        with self.engine.connect() as c:
            return {(r.decision_id, r.output_digest) for r in c.execute(select(
                book_deliveries.c.decision_id, book_deliveries.c.output_digest))}

    def quarantined(self) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(select(quarantine).order_by(quarantine.c.id))
                    .mappings()]

    def transactions(self, account_last4: str | None = None) -> list[dict[str, Any]]:
        q = select(book_transactions).order_by(
            book_transactions.c.account_last4, book_transactions.c.date, book_transactions.c.id)
        if account_last4:
            q = q.where(book_transactions.c.account_last4 == account_last4)
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]


def sync(book: Book, ledger: Ledger, storage: Storage) -> Counter[str]:
    """Poll the ledger for succeeded jobs and consume each output object not yet delivered."""
    outcomes: Counter[str] = Counter()
    delivered = book.delivered()
    for job in ledger.jobs():
        if job.status != Status.SUCCEEDED or job.output_uri is None:
            continue
        try:
            data = storage.read(job.output_uri)
        except FileNotFoundError:
            outcomes["missing_object"] += 1
            continue
        digest = sha256(data)
        if (job.job_id, digest) in delivered:
            continue
        delivery = Delivery(job.job_id, job.sha256, digest, json.loads(data),
                            recorded_digest=job.output_digest)
        outcomes[book.consume(delivery)] += 1
    return outcomes
