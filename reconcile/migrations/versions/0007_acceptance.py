"""Idempotent, isolated, fenced acceptance.

A claim on each input digest under its pinned identities (one job parses those bytes); a
job may be a duplicate of the job that holds the claim; a job refused at acceptance has no
stored input and no digest; a batch records when its source was fully accepted, what it
was asked to accept, and an epoch that fences its state against stale runs.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as jobs:
        jobs.add_column(sa.Column("duplicate_of", sa.String(64)))
        jobs.alter_column("sha256", existing_type=sa.String(64), nullable=True)
        jobs.alter_column("input_uri", existing_type=sa.Text(), nullable=True)
    with op.batch_alter_table("batches") as batches:
        batches.add_column(sa.Column("accepted_at", sa.DateTime(timezone=True)))
        batches.add_column(sa.Column("acceptance", sa.Text()))
        batches.add_column(sa.Column("epoch", sa.Integer(), nullable=False,
                                     server_default="0"))
    # batches before this revision were accepted whole or not at all, as far as anyone knows
    op.execute("UPDATE batches SET accepted_at = created_at")
    op.create_table(
        "input_claims",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("chain_revision", sa.String(64), primary_key=True),
        sa.Column("ocr_engine", sa.String(128), primary_key=True),
        sa.Column("policy_revision", sa.String(64), primary_key=True),
        sa.Column("job_id", sa.String(64), sa.ForeignKey("jobs.job_id"), nullable=False),
    )
    # what already succeeded is claimed by (one of) the jobs that imported it
    op.execute(
        "INSERT INTO input_claims (sha256, chain_revision, ocr_engine, policy_revision, job_id) "
        "SELECT sha256, chain_revision, ocr_engine, policy_revision, MIN(job_id) FROM jobs "
        "WHERE status = 'SUCCEEDED' "
        "GROUP BY sha256, chain_revision, ocr_engine, policy_revision")


def downgrade() -> None:
    op.drop_table("input_claims")
    with op.batch_alter_table("batches") as batches:
        batches.drop_column("epoch")
        batches.drop_column("acceptance")
        batches.drop_column("accepted_at")
    with op.batch_alter_table("jobs") as jobs:
        jobs.alter_column("input_uri", existing_type=sa.Text(), nullable=False)
        jobs.alter_column("sha256", existing_type=sa.String(64), nullable=False)
        jobs.drop_column("duplicate_of")
