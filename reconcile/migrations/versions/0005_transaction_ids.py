"""Stable transaction ids in the book, and each imported statement's balances per account.

Existing transactions (in the book and held for review) get their bank from the job that
brought them (the decision id is the job id) and their id from `parsers.model.transaction_id`
over the identity already stored; the id replaces the (date, description, amount,
occurrence) key as the per-account unique key of the book.

Revision ID: 0005
Revises: 0004
"""

from collections import Counter
from datetime import date
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

from parsers.model import Transaction, transaction_id

revision = "0005"
down_revision = "0004"

_rows = sa.table(
    "book_transactions", sa.column("id", sa.Integer), sa.column("account_last4", sa.String),
    sa.column("currency", sa.String), sa.column("date", sa.String),
    sa.column("description", sa.Text), sa.column("amount", sa.String),
    sa.column("occurrence", sa.Integer), sa.column("decision_id", sa.String),
    sa.column("bank", sa.String), sa.column("txn_id", sa.String))
_held = sa.table(
    "held_transactions", sa.column("id", sa.Integer), sa.column("account_last4", sa.String),
    sa.column("currency", sa.String), sa.column("date", sa.String),
    sa.column("description", sa.Text), sa.column("amount", sa.String),
    sa.column("decision_id", sa.String), sa.column("bank", sa.String),
    sa.column("txn_id", sa.String))
_jobs = sa.table("jobs", sa.column("job_id", sa.String), sa.column("bank", sa.String))


def upgrade() -> None:
    with op.batch_alter_table("book_transactions") as t:
        t.add_column(sa.Column("bank", sa.String(32)))
        t.add_column(sa.Column("txn_id", sa.String(32)))
    with op.batch_alter_table("held_transactions") as t:
        t.add_column(sa.Column("bank", sa.String(32)))
        t.add_column(sa.Column("txn_id", sa.String(32)))
    _backfill(op.get_bind())
    _backfill_held(op.get_bind())
    with op.batch_alter_table("held_transactions") as t:
        t.alter_column("bank", existing_type=sa.String(32), nullable=False)
        t.alter_column("txn_id", existing_type=sa.String(32), nullable=False)
    with op.batch_alter_table("book_transactions") as t:
        t.alter_column("bank", existing_type=sa.String(32), nullable=False)
        t.alter_column("txn_id", existing_type=sa.String(32), nullable=False)
        t.drop_constraint("one_row_per_transaction", type_="unique")
        t.create_unique_constraint("one_row_per_transaction_id", ["account_last4", "txn_id"])
    op.create_table(
        "book_balances",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("decision_id", sa.String(64), nullable=False),
        sa.Column("bank", sa.String(32), nullable=False),
        sa.Column("account_last4", sa.String(8), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("period_start", sa.String(10)),
        sa.Column("period_end", sa.String(10)),
        sa.Column("opening_balance", sa.String(32), nullable=False),
        sa.Column("closing_balance", sa.String(32), nullable=False),
        sa.UniqueConstraint("decision_id", "account_last4", "currency",
                            name="one_balance_per_statement_account"),
    )
    op.create_index("ix_book_balances_decision_id", "book_balances", ["decision_id"])


def _backfill(c: sa.Connection) -> None:
    banks = dict(c.execute(sa.select(_jobs.c.job_id, _jobs.c.bank)).all())
    for r in c.execute(sa.select(_rows)).mappings().all():
        bank = banks.get(r["decision_id"]) or ""
        txn = Transaction(date.fromisoformat(r["date"]), r["description"], Decimal(r["amount"]))
        c.execute(_rows.update().where(_rows.c.id == r["id"]).values(
            bank=bank,
            txn_id=transaction_id(bank, r["account_last4"], r["currency"], txn, r["occurrence"])))


def _backfill_held(c: sa.Connection) -> None:
    """Held rows carry no occurrence: count it per statement, account and day, in row order."""
    banks = dict(c.execute(sa.select(_jobs.c.job_id, _jobs.c.bank)).all())
    seen: Counter[tuple[str, ...]] = Counter()
    for r in c.execute(sa.select(_held).order_by(_held.c.id)).mappings().all():
        bank = banks.get(r["decision_id"]) or ""
        key = (r["decision_id"], r["account_last4"], r["date"], r["description"], r["amount"])
        seen[key] += 1
        txn = Transaction(date.fromisoformat(r["date"]), r["description"], Decimal(r["amount"]))
        c.execute(_held.update().where(_held.c.id == r["id"]).values(
            bank=bank,
            txn_id=transaction_id(bank, r["account_last4"], r["currency"], txn, seen[key])))


def downgrade() -> None:
    op.drop_index("ix_book_balances_decision_id", "book_balances")
    op.drop_table("book_balances")
    with op.batch_alter_table("book_transactions") as t:
        t.drop_constraint("one_row_per_transaction_id", type_="unique")
        t.create_unique_constraint("one_row_per_transaction", [
            "account_last4", "currency", "date", "description", "amount", "occurrence"])
        t.drop_column("txn_id")
        t.drop_column("bank")
    with op.batch_alter_table("held_transactions") as t:
        t.drop_column("txn_id")
        t.drop_column("bank")
