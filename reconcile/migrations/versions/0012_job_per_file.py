"""Every file of a batch is a job: byte-identical files under two names are two jobs (the
second a DUPLICATE of the first), so a batch's jobs are unique per file and bytes, no longer
per bytes alone.

Revision ID: 0012
Revises: 0011
"""

from alembic import op

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as jobs:
        jobs.drop_constraint("one_job_per_input_per_batch", type_="unique")
        jobs.create_unique_constraint("one_job_per_file_per_batch",
                                      ["batch_id", "source_uri", "sha256"])


def downgrade() -> None:
    with op.batch_alter_table("jobs") as jobs:
        jobs.drop_constraint("one_job_per_file_per_batch", type_="unique")
        jobs.create_unique_constraint("one_job_per_input_per_batch", ["batch_id", "sha256"])
