"""Review: statements that need review are held apart from the book until a person decides.

Replaces `review_tasks` with `reviews` (a lifecycle: open, accepted, corrected, rejected),
`review_events` (the audit trail) and `held_transactions`. Each existing review task becomes
an open review, and the transactions its statement put in the book move out of it into
`held_transactions`: the book holds only verified statements. (A verified statement that
overlapped such a statement had its shared rows deduplicated against them; those rows leave
the book with them until the review is accepted or corrected.) Downgrading turns reviews back
into review tasks and leaves held transactions out of the book.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"

TZ = sa.DateTime(timezone=True)
TRANSACTION = ("account_last4", "currency", "date", "description", "amount", "balance")


def upgrade() -> None:
    held = op.create_table(
        "held_transactions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("decision_id", sa.String(64), nullable=False),
        sa.Column("account_last4", sa.String(8), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("date", sa.String(10), nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("amount", sa.String(32), nullable=False),
        sa.Column("balance", sa.String(32)),
    )
    op.create_index("ix_held_transactions_decision_id", "held_transactions", ["decision_id"])
    reviews = op.create_table(
        "reviews",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("decision_id", sa.String(64), nullable=False, unique=True),
        sa.Column("input_sha256", sa.String(64), nullable=False),
        sa.Column("output_uri", sa.Text),
        sa.Column("output_digest", sa.String(64), nullable=False),
        sa.Column("problems", sa.Text, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("decided_at", TZ),
        sa.Column("decided_by", sa.String(128)),
        sa.Column("note", sa.Text),
        sa.Column("version_uri", sa.Text),
        sa.Column("version_digest", sa.String(64)),
        sa.Column("flow_run_id", sa.String(64)),
    )
    op.create_index("ix_reviews_state", "reviews", ["state"])
    op.create_table(
        "review_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("review_id", sa.Integer, sa.ForeignKey("reviews.id"), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("actor", sa.String(128), nullable=False),
        sa.Column("via", sa.String(64), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("changes", sa.Text),
        sa.Column("note", sa.Text),
    )
    op.create_index("ix_review_events_review_id", "review_events", ["review_id"])
    _hold_existing_review_tasks(held, reviews)
    op.drop_table("review_tasks")


def _hold_existing_review_tasks(held: sa.Table, reviews: sa.Table) -> None:
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT COUNT(*) FROM review_tasks")).scalar_one() == 0:
        return
    meta = sa.MetaData()
    tasks = sa.Table("review_tasks", meta, autoload_with=bind)
    imports = sa.Table("book_imports", meta, autoload_with=bind)
    book = sa.Table("book_transactions", meta, autoload_with=bind)
    jobs = sa.Table("jobs", meta, autoload_with=bind)
    rows = bind.execute(
        sa.select(tasks.c.decision_id, tasks.c.problems, tasks.c.created_at,
                  imports.c.input_sha256, imports.c.output_digest, jobs.c.output_uri)
        .join(imports, imports.c.decision_id == tasks.c.decision_id)
        .outerjoin(jobs, jobs.c.job_id == tasks.c.decision_id)).all()
    for r in rows:
        bind.execute(sa.insert(reviews).values(
            decision_id=r.decision_id, input_sha256=r.input_sha256, output_uri=r.output_uri,
            output_digest=r.output_digest, problems=r.problems, state="open",
            created_at=r.created_at))
        moved = bind.execute(sa.select(*(book.c[k] for k in TRANSACTION)).where(
            book.c.decision_id == r.decision_id).order_by(book.c.id)).mappings().all()
        if moved:
            bind.execute(sa.insert(held), [{**m, "decision_id": r.decision_id} for m in moved])
        bind.execute(sa.delete(book).where(book.c.decision_id == r.decision_id))


def downgrade() -> None:
    tasks = op.create_table(
        "review_tasks",
        sa.Column("decision_id", sa.String(64), primary_key=True),
        sa.Column("problems", sa.Text, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
    )
    bind = op.get_bind()
    reviews = sa.Table("reviews", sa.MetaData(), autoload_with=bind)
    found = bind.execute(sa.select(reviews.c.decision_id, reviews.c.problems,
                                   reviews.c.created_at)).mappings().all()
    if found:
        bind.execute(sa.insert(tasks), [dict(r) for r in found])
    op.drop_table("review_events")
    op.drop_table("reviews")
    op.drop_table("held_transactions")
