"""The ledger: batches, job envelopes and attempts.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "batches",
        sa.Column("batch_id", sa.String(64), primary_key=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("bank", sa.String(32)),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("flow_run_id", sa.String(64)),
        sa.Column("state", sa.String(32), nullable=False),
    )
    op.create_table(
        "jobs",
        sa.Column("job_id", sa.String(64), primary_key=True),
        sa.Column("batch_id", sa.String(64), sa.ForeignKey("batches.batch_id"), nullable=False),
        sa.Column("source_uri", sa.Text, nullable=False),
        sa.Column("input_uri", sa.Text, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("bank_hint", sa.String(32)),
        sa.Column("submitted_at", TZ, nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        sa.Column("chain_revision", sa.String(64), nullable=False),
        sa.Column("ocr_engine", sa.String(128), nullable=False),
        sa.Column("policy_revision", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("lease_owner", sa.String(64)),
        sa.Column("lease_until", TZ),
        sa.Column("error_class", sa.String(16)),
        sa.Column("reason", sa.String(64)),
        sa.Column("message", sa.Text),
        sa.Column("output_uri", sa.Text),
        sa.Column("output_digest", sa.String(64)),
        sa.Column("outputs", sa.Text),
        sa.Column("needs_review", sa.Boolean, nullable=False),
        sa.Column("bank", sa.String(32)),
        sa.Column("account_last4", sa.String(64)),
        sa.Column("transactions", sa.Integer),
        sa.Column("finished_at", TZ),
        sa.UniqueConstraint("batch_id", "sha256", name="one_job_per_input_per_batch"),
    )
    op.create_index("ix_jobs_batch_id", "jobs", ["batch_id"])
    op.create_index("ix_jobs_status", "jobs", ["status"])
    op.create_table(
        "attempts",
        sa.Column("job_id", sa.String(64), sa.ForeignKey("jobs.job_id"), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("lease_owner", sa.String(64), nullable=False),
        sa.Column("started_at", TZ, nullable=False),
        sa.Column("ended_at", TZ),
        sa.Column("outcome", sa.String(16)),
        sa.Column("error_class", sa.String(16)),
        sa.Column("reason", sa.String(64)),
        sa.Column("message", sa.Text),
    )


def downgrade() -> None:
    op.drop_table("attempts")
    op.drop_table("jobs")
    op.drop_table("batches")
