"""Rerun lineage: a rerun job names the job it reruns, a rerun batch the batch.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as jobs:
        jobs.add_column(sa.Column("rerun_of", sa.String(64)))
        jobs.create_index("ix_jobs_rerun_of", ["rerun_of"])
    with op.batch_alter_table("batches") as batches:
        batches.add_column(sa.Column("rerun_of", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("batches") as batches:
        batches.drop_column("rerun_of")
    with op.batch_alter_table("jobs") as jobs:
        jobs.drop_index("ix_jobs_rerun_of")
        jobs.drop_column("rerun_of")
