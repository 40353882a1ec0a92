"""Notifications, investigations and the book (imports, transactions, reviews, quarantine).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "notifications",
        sa.Column("job_id", sa.String(64), sa.ForeignKey("jobs.job_id"), primary_key=True),
        sa.Column("channel", sa.String(16), primary_key=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("delivered_at", TZ),
        sa.Column("last_error", sa.Text),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "investigations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("job_id", sa.String(64), sa.ForeignKey("jobs.job_id"), nullable=False),
        sa.Column("owner", sa.String(128)),
        sa.Column("opened_at", TZ, nullable=False),
        sa.Column("closed_at", TZ),
        sa.Column("note", sa.Text),
    )
    op.create_index("ix_investigations_job_id", "investigations", ["job_id"])
    op.create_table(
        "book_imports",
        sa.Column("decision_id", sa.String(64), primary_key=True),
        sa.Column("input_sha256", sa.String(64), nullable=False),
        sa.Column("output_digest", sa.String(64), nullable=False),
        sa.Column("accounts", sa.Text, nullable=False),
        sa.Column("transactions", sa.Integer, nullable=False),
        sa.Column("imported_at", TZ, nullable=False),
    )
    op.create_index("ix_book_imports_input_sha256", "book_imports", ["input_sha256"])
    op.create_table(
        "book_transactions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account_last4", sa.String(8), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("date", sa.String(10), nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("amount", sa.String(32), nullable=False),
        sa.Column("balance", sa.String(32)),
        sa.Column("occurrence", sa.Integer, nullable=False),
        sa.Column("decision_id", sa.String(64), nullable=False),
        sa.UniqueConstraint("account_last4", "currency", "date", "description", "amount",
                            "occurrence", name="one_row_per_transaction"),
    )
    op.create_table(
        "book_deliveries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("decision_id", sa.String(64), nullable=False),
        sa.Column("output_digest", sa.String(64), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("at", TZ, nullable=False),
    )
    op.create_index("ix_book_deliveries_decision_id", "book_deliveries", ["decision_id"])
    op.create_table(
        "review_tasks",
        sa.Column("decision_id", sa.String(64), primary_key=True),
        sa.Column("problems", sa.Text, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "quarantine",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("decision_id", sa.String(64), nullable=False),
        sa.Column("input_sha256", sa.String(64), nullable=False),
        sa.Column("known_digest", sa.String(64), nullable=False),
        sa.Column("new_digest", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.UniqueConstraint("decision_id", "new_digest", name="one_quarantine_per_conflict"),
    )


def downgrade() -> None:
    for table in ("quarantine", "review_tasks", "book_deliveries", "book_transactions",
                  "book_imports", "investigations", "notifications"):
        op.drop_table(table)
