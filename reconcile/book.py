"""The book: the downstream consumer that takes in each succeeded statement exactly once.

It polls durable state (succeeded jobs in the ledger, their verified output objects) and
never depends on notifications. Each success is consumed by decision id (the job id):
delivered twice, it is taken in once. A different output digest for a decision already
taken in, or for input bytes already taken in under another digest, is quarantined with an
alert; nothing is silently replaced. The one replacement is asked for: a rerun that read
the same bytes again under a new parser chain (`rerun_of` the decision the book holds for
them) and validated supersedes it (one that did not validate is quarantined): that
statement's rows and balances leave the book, the rerun's enter it, and both imports stay
recorded (`superseded_by`), as both results stay in storage. Transactions are keyed per
account by their stable id (`parsers.model.transaction_id`: bank, account, currency, date,
description, amount, occurrence within the day), so overlapping statements never duplicate
one, and a transaction read from a PDF and from a bank export (or from two kinds of export)
of the same account is one too, found by its match key (`add_statements`). Each
statement's printed balances are kept per account for the exports' balance assertions
(none of an export that carries no balance).

The book holds only verified statements. One that did not validate is held apart: its
transactions wait in `held_transactions` and a review opens; they enter the book (with the
same deduplication) only when a person accepts the statement or corrects it so that it
reconciles (`release`), and a rejected statement's never do (`exclude`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.sql.dml import Insert

from parsers.codes import VERIFIED, ReviewState
from parsers.model import document_transaction_ids, match_keys, money, source_of
from reconcile.book_records import BookTransaction, StatementBalance
from reconcile.db import (
    book_balances,
    book_deliveries,
    book_imports,
    book_transactions,
    bound,
    bulk,
    dialect_insert,
    executemany,
    held_transactions,
    quarantine,
    reviews,
    transaction,
)
from reconcile.ledger import Ledger
from reconcile.output_checks import Found, OutputPass, Wanted
from reconcile.records import Clock, Job, utc_now
from reconcile.review import open_review
from reconcile.storage import Storage

IMPORTED, HELD, DUPLICATE, QUARANTINED = "imported", "held", "duplicate", "quarantined"
#: imported in place of the statement of the same bytes that it re-read
SUPERSEDED = "superseded"


@dataclass(frozen=True)
class Delivery:
    """One succeeded job's output as the book receives it."""

    decision_id: str
    input_sha256: str
    output_digest: str
    statement: dict[str, Any]
    #: the digest the ledger recorded for this decision; an object that differs is refused
    recorded_digest: str | None = None
    #: where the output object is (kept with a review, which reads it again to decide)
    output_uri: str | None = None
    #: the decision this one re-read (its job's `rerun_of`), which it may supersede
    rerun_of: str | None = None

    @property
    def verified(self) -> bool:
        return bool(self.statement.get("validation", {}).get("ok", False))


class Book:
    def __init__(self, engine: Engine, clock: Clock = utc_now) -> None:
        self.engine = engine
        self.clock = clock

    def consume(self, d: Delivery) -> str:
        """Take `d` in once; return imported, held (for review), duplicate or quarantined."""
        return self.consume_many([d])[0]

    def consume_many(self, deliveries: Sequence[Delivery],
                     connection: Connection | None = None) -> list[str]:
        """Take a batch in, in one transaction, each delivery as `consume` would in turn.

        What the book knows of these decisions and inputs is read in one query, and the
        batch's transactions go in together after one read of the ids already held, so a
        batch costs a few statements whatever its size. On `connection` when given (a pass's
        own, from `bulk`).
        """
        if not deliveries:
            return []
        at = self.clock()
        with transaction(self.engine, connection) as c:
            known = _Known.read(c, deliveries)
            outcomes, taken = [], []
            for d in deliveries:
                outcome = self._decide(c, d, known)
                if outcome == SUPERSEDED:
                    _supersede(c, str(d.rerun_of), d.decision_id)
                if outcome in (IMPORTED, HELD, SUPERSEDED):
                    known.add(d)
                    taken.append(d)
                if outcome == HELD:
                    self._hold(c, d)
                outcomes.append(outcome)
            stamp = bound(c, book_deliveries.c.at, at)
            if taken:
                executemany(c, insert(book_imports), [
                    _import_row(d, bound(c, book_imports.c.imported_at, at)) for d in taken])
            add_statements(c, [(d.statement, d.decision_id) for d, o in
                                zip(deliveries, outcomes, strict=True)
                                if o in (IMPORTED, SUPERSEDED)])
            executemany(c, insert(book_deliveries), [
                {"decision_id": d.decision_id, "output_digest": d.output_digest,
                 "outcome": o, "at": stamp} for d, o in zip(deliveries, outcomes, strict=True)])
        return outcomes

    def take(self, found: list[Found], delivered: set[tuple[str, str]],
             connection: Connection | None = None) -> Counter[str]:
        """Consume the statements of `found` not yet `delivered` (which this updates); their
        bytes were read because `wanted` said so."""
        outcomes: Counter[str] = Counter()
        batch = []
        for f in found:
            digest = f.statement_digest
            if digest is None:
                outcomes["missing_object"] += 1
                continue
            if (f.job.job_id, digest) in delivered:
                continue
            if f.statement is None:
                raise ValueError(f"{f.job.job_id}: its statement was not read")
            delivered.add((f.job.job_id, digest))
            batch.append(Delivery(f.job.job_id, f.job.sha256, digest, json.loads(f.statement),
                                  recorded_digest=f.job.output_digest,
                                  output_uri=f.job.output_uri, rerun_of=f.job.rerun_of))
        outcomes.update(self.consume_many(batch, connection))
        return outcomes

    @staticmethod
    def wanted(delivered: set[tuple[str, str]]) -> Wanted:
        """What the book wants read: statements it has not been given with this digest."""
        return lambda job, digest: (job.job_id, digest) not in delivered

    def _decide(self, c: Connection, d: Delivery, known: _Known) -> str:
        decided = known.by_decision.get(d.decision_id)
        others = known.by_input.get(d.input_sha256, [])
        changed = next((o for o in others if o != d.output_digest), None)
        if decided is not None and decided != d.output_digest:
            return self._quarantine(c, d, decided, "decision_changed")
        if d.recorded_digest and d.recorded_digest != d.output_digest:
            return self._quarantine(c, d, d.recorded_digest, "object_mismatch")
        if decided is None and changed is not None:
            replaced = known.by_decision.get(d.rerun_of or "")
            if d.verified and replaced is not None and replaced != d.output_digest:
                return SUPERSEDED
            return self._quarantine(c, d, changed, "input_changed")
        if decided is not None or d.output_digest in others:
            return DUPLICATE
        return IMPORTED if d.verified else HELD

    def _quarantine(self, c: Any, d: Delivery, known: str, reason: str) -> str:
        exists = c.execute(select(quarantine.c.id).where(
            quarantine.c.decision_id == d.decision_id,
            quarantine.c.new_digest == d.output_digest)).first()
        if exists is None:
            c.execute(insert(quarantine).values(
                decision_id=d.decision_id, input_sha256=d.input_sha256, known_digest=known,
                new_digest=d.output_digest, reason=reason, created_at=self.clock()))
        return QUARANTINED

    def _hold(self, c: Connection, d: Delivery) -> None:
        """Keep the statement's transactions apart and open its review."""
        st = d.statement
        rows = [{"decision_id": d.decision_id, "bank": st["bank"], "txn_id": txn_id,
                 "account_last4": a["account_last4"], "currency": a["currency"],
                 **{k: t[k] for k in ("date", "description", "amount", "balance")}}
                for a in st["accounts"]
                for t, (_, txn_id) in zip(a["transactions"],
                                          document_transaction_ids(st["bank"], a), strict=True)]
        if rows:
            c.execute(insert(held_transactions), rows)
        balances = _balance_rows(d.decision_id, st)
        if balances:  # none of an export that carries no balance
            c.execute(insert(book_balances), balances)
        open_review(c, decision_id=d.decision_id, input_sha256=d.input_sha256,
                    output_uri=d.output_uri, output_digest=d.output_digest,
                    problems=d.statement.get("validation", {}).get("problems", []),
                    at=self.clock())

    # -- a person's decision (called by `reconcile.decisions` inside its transaction) ----
    @staticmethod
    def release(c: Connection, decision_id: str, statement: dict[str, Any]) -> None:
        """A held statement was accepted or corrected: its (final) transactions enter the book."""
        c.execute(delete(held_transactions).where(
            held_transactions.c.decision_id == decision_id))
        c.execute(delete(book_balances).where(book_balances.c.decision_id == decision_id))
        add_transactions(c, statement, decision_id)
        c.execute(update(book_imports).where(book_imports.c.decision_id == decision_id).values(
            transactions=sum(len(a["transactions"]) for a in statement["accounts"])))

    @staticmethod
    def exclude(c: Connection, decision_id: str) -> None:
        """A held statement was rejected: its transactions never enter the book."""
        c.execute(delete(held_transactions).where(
            held_transactions.c.decision_id == decision_id))

    # -- reading ----------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        with self.engine.connect() as c:
            outcomes = dict(c.execute(select(book_deliveries.c.outcome, func.count()).group_by(
                book_deliveries.c.outcome)).all())
            states = dict(c.execute(select(reviews.c.state, func.count()).group_by(
                reviews.c.state)).all())
            return {
                "imported": c.execute(select(func.count()).select_from(book_imports).where(
                    _verified(book_imports.c.decision_id))).scalar_one(),
                "held": states.get(ReviewState.OPEN, 0),
                "rejected": states.get(ReviewState.REJECTED, 0),
                "deliveries": sum(outcomes.values()),
                "duplicates_suppressed": outcomes.get(DUPLICATE, 0),
                "superseded": outcomes.get(SUPERSEDED, 0),
                "quarantined": c.execute(select(func.count()).select_from(quarantine)
                                         ).scalar_one(),
                "reviews": sum(states.values()),
                "transactions": c.execute(select(func.count()).select_from(book_transactions)
                                          ).scalar_one(),
                "held_transactions": c.execute(select(func.count()).select_from(
                    held_transactions)).scalar_one(),
                "unverified_in_book": sorted(c.execute(select(
                    book_transactions.c.decision_id).distinct().join(
                    reviews, reviews.c.decision_id == book_transactions.c.decision_id).where(
                    reviews.c.state.not_in(VERIFIED))).scalars()),
            }

    def imported(self) -> set[str]:
        with self.engine.connect() as c:
            return {d for (d,) in c.execute(select(book_imports.c.decision_id))}

    def standing(self, decision_id: str) -> str | None:
        """What the book holds of a decision's statement: `current`, `superseded by <job>`
        (a re-reading of its bytes took its place), `held for review`, `rejected`; None
        when the book has not taken it in."""
        with self.engine.connect() as c:
            row = c.execute(select(book_imports.c.superseded_by).where(
                book_imports.c.decision_id == decision_id)).first()
            state = c.execute(select(reviews.c.state).where(
                reviews.c.decision_id == decision_id)).scalar()
        if row is None:
            return None
        if row.superseded_by:
            return f"superseded by {row.superseded_by}"
        if state == ReviewState.OPEN:
            return "held for review"
        return str(ReviewState.REJECTED) if state == ReviewState.REJECTED else "current"

    def delivered(self) -> set[tuple[str, str]]:
        """Every (decision id, output digest) the book has already been given."""
        with self.engine.connect() as c:
            return {(r.decision_id, r.output_digest) for r in c.execute(select(
                book_deliveries.c.decision_id, book_deliveries.c.output_digest))}

    def quarantined(self) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(select(quarantine).order_by(quarantine.c.id))
                    .mappings()]

    def records(self, account_last4: str | None = None,
                include_unreviewed: bool = False) -> list[BookTransaction]:
        """The book's transactions, per account by date; verified ones unless asked."""
        tables = [(book_transactions, True)]
        if include_unreviewed:
            tables.append((held_transactions, False))
        out = []
        with self.engine.connect() as c:
            for table, verified in tables:
                q = select(table)
                if not verified:
                    q = q.where(_waiting(table.c.decision_id))
                if account_last4:
                    q = q.where(table.c.account_last4 == account_last4)
                out += [BookTransaction(
                    txn_id=r.txn_id, bank=r.bank, account_last4=r.account_last4,
                    currency=r.currency, date=date.fromisoformat(r.date),
                    description=r.description, amount=Decimal(r.amount),
                    balance=None if r.balance is None else Decimal(r.balance),
                    decision_id=r.decision_id, verified=verified) for r in c.execute(q)]
        return sorted(out, key=lambda r: (r.bank, r.account_last4, r.date, not r.verified))

    def balances(self, account_last4: str | None = None,
                 include_unreviewed: bool = False) -> list[StatementBalance]:
        """Each imported statement's period and printed balances per account, by period end."""
        b = book_balances.c
        verified = _verified(b.decision_id)
        q = select(book_balances, verified.label("verified")).order_by(
            b.bank, b.account_last4, b.period_end, b.id)
        if account_last4:
            q = q.where(b.account_last4 == account_last4)
        q = q.where(or_(verified, _waiting(b.decision_id)) if include_unreviewed else verified)
        with self.engine.connect() as c:
            return [StatementBalance(
                decision_id=r.decision_id, bank=r.bank, account_last4=r.account_last4,
                currency=r.currency, period_start=_day(r.period_start),
                period_end=_day(r.period_end), opening_balance=Decimal(r.opening_balance),
                closing_balance=Decimal(r.closing_balance), verified=bool(r.verified))
                for r in c.execute(q)]



def _verified(decision_id: Any) -> ColumnElement[bool]:
    """A decision is verified when it needed no review or a person accepted or corrected it."""
    decided = select(reviews.c.decision_id).where(reviews.c.state.not_in(VERIFIED))
    return decision_id.not_in(decided)


def _waiting(decision_id: Any) -> ColumnElement[bool]:
    """A decision whose statement still waits for a person's review."""
    return decision_id.in_(select(reviews.c.decision_id).where(
        reviews.c.state == ReviewState.OPEN))


def _day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def _import_row(d: Delivery, at: Any) -> dict[str, Any]:
    st = d.statement
    return {"decision_id": d.decision_id, "input_sha256": d.input_sha256,
            "output_digest": d.output_digest,
            "accounts": ",".join(a["account_last4"] for a in st["accounts"]),
            "transactions": sum(len(a["transactions"]) for a in st["accounts"]),
            "imported_at": at}


@dataclass
class _Known:
    """What the book holds of a batch's decisions and inputs, kept current as it goes."""

    #: decision id -> its output digest
    by_decision: dict[str, str]
    #: input digest -> the output digests taken in for it, in order
    by_input: dict[str, list[str]]

    @classmethod
    def read(cls, c: Connection, deliveries: Sequence[Delivery]) -> _Known:
        known = cls({}, {})
        b = book_imports.c
        for part in _chunks(sorted({d.decision_id for d in deliveries}
                                   | {d.input_sha256 for d in deliveries})):
            for r in c.execute(select(b.decision_id, b.input_sha256, b.output_digest).where(
                    or_(b.decision_id.in_(part), b.input_sha256.in_(part))).order_by(
                    b.imported_at, b.decision_id)):
                if r.decision_id not in known.by_decision:
                    known.by_decision[r.decision_id] = r.output_digest
                    known.by_input.setdefault(r.input_sha256, []).append(r.output_digest)
        return known

    def add(self, d: Delivery) -> None:
        self.by_decision[d.decision_id] = d.output_digest
        self.by_input.setdefault(d.input_sha256, []).append(d.output_digest)


def _supersede(c: Connection, old: str, new: str) -> None:
    """`new` re-read the bytes of `old` and replaces it: `old`'s rows and balances leave the
    book (the new ones go in with the usual deduplication), its import stays recorded."""
    c.execute(delete(book_transactions).where(book_transactions.c.decision_id == old))
    c.execute(delete(book_balances).where(book_balances.c.decision_id == old))
    c.execute(update(book_imports).where(book_imports.c.decision_id == old).values(
        superseded_by=new))


def _chunks(items: Sequence[Any], size: int = 400) -> Iterator[Sequence[Any]]:
    """Pieces small enough for one statement's bound parameters on every database."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def add_transactions(c: Connection, statement: dict[str, Any], decision_id: str) -> None:
    """Insert the statement's transactions the book does not hold yet (per account, by
    transaction id), and keep its printed balances."""
    add_statements(c, [(statement, decision_id)])


def add_statements(c: Connection, statements: list[tuple[dict[str, Any], str]]) -> None:
    """`add_transactions` for many statements at once, in order, in one insert (a transaction
    read twice, in the book or in the batch, goes in once: from the first statement that has
    it).

    Read twice means: the same transaction id from the same kind of source, or the same
    match key (`parsers.model.match_keys`: bank, account, currency, date, amount and its
    occurrence on the day) from another kind (a PDF and an OFX of the same month); the row
    the book holds then keeps its wording and takes the export's reference where it had
    none."""
    rows, balances = [], []
    for statement, decision_id in statements:
        bank, source = statement["bank"], source_of(statement)
        for acct in statement["accounts"]:
            last4, currency = acct["account_last4"], acct["currency"]
            rows += [{"account_last4": last4, "currency": currency, "date": t["date"],
                      "description": t["description"], "amount": t["amount"],
                      "balance": t["balance"], "occurrence": occurrence,
                      "decision_id": decision_id, "bank": bank, "txn_id": txn_id,
                      "source": source, "match_key": key, "reference": t.get("reference")}
                     for t, (occurrence, txn_id), key in zip(
                         acct["transactions"], document_transaction_ids(bank, acct),
                         match_keys(bank, acct), strict=True)]
        balances += _balance_rows(decision_id, statement)
    held = _held_sources(c, [r["match_key"] for r in rows])
    fresh: dict[tuple[str, str], dict[str, Any]] = {}
    references: dict[str, str] = {}
    for r in rows:
        sources = held.setdefault(r["match_key"], set())
        if sources and r["source"] not in sources:
            if r["reference"]:
                references.setdefault(r["match_key"], r["reference"])
            continue  # read from another source already: one transaction
        if (r["account_last4"], r["txn_id"]) not in fresh:
            fresh[(r["account_last4"], r["txn_id"])] = r
            sources.add(r["source"])
    if fresh:
        executemany(c, _insert_missing(c), list(fresh.values()))
    for key, reference in references.items():
        c.execute(update(book_transactions).where(
            book_transactions.c.match_key == key,
            book_transactions.c.reference.is_(None)).values(reference=reference))
    if balances:
        executemany(c, insert(book_balances), balances)


def _held_sources(c: Connection, keys: list[str]) -> dict[str, set[str]]:
    """match key -> the sources the book's rows of that key were read from."""
    held: dict[str, set[str]] = {}
    for part in _chunks(sorted(set(keys))):
        for key, source in c.execute(select(book_transactions.c.match_key,
                                            book_transactions.c.source).where(
                book_transactions.c.match_key.in_(part))):
            held.setdefault(key, set()).add(source or "pdf")
    return held


def _insert_missing(c: Connection) -> Insert:
    """An insert of book rows that leaves out those the book holds already (by account and
    transaction id): the database skips each conflict, so no row is looked up first."""
    return dialect_insert(c.dialect.name, book_transactions).on_conflict_do_nothing(
        index_elements=["account_last4", "txn_id"])


def _balance_rows(decision_id: str, statement: dict[str, Any]) -> list[dict[str, Any]]:
    """Each account section's period and printed balances; a period the statement does not
    print is taken from its transactions' dates."""
    period = statement.get("period") or {}
    printed_start, printed_end = _day(period.get("start")), _day(period.get("end"))
    rows = []
    for acct in statement["accounts"]:
        if not acct.get("balances_printed", True):
            continue  # an export without balances: its figures are the rows' sum from zero
        dates = sorted(date.fromisoformat(t["date"]) for t in acct["transactions"])
        start = printed_start or (dates[0] if dates else printed_end)
        end = printed_end or (dates[-1] if dates else printed_start)
        rows.append({"decision_id": decision_id, "bank": statement["bank"],
                     "account_last4": acct["account_last4"], "currency": acct["currency"],
                     "period_start": start and start.isoformat(),
                     "period_end": end and end.isoformat(),
                     "opening_balance": money(Decimal(acct["opening_balance"])),
                     "closing_balance": money(Decimal(acct["closing_balance"]))})
    return rows


def sync(book: Book, ledger: Ledger, storage: Storage,
         jobs: list[Job] | None = None) -> Counter[str]:
    """Poll the ledger for succeeded jobs (or take those of `jobs`: a batch's as it ends)
    and consume each output object not yet delivered."""
    outcomes: Counter[str] = Counter()
    delivered = book.delivered()
    if jobs is None:
        jobs = ledger.jobs()  # before the listing: a success names objects already stored
    with bulk(ledger.engine) as c:
        listed = OutputPass(storage, ledger.engine, c)
        for found in listed.read(jobs, book.wanted(delivered), every_object=False):
            outcomes += book.take(found, delivered, c)
    return outcomes
