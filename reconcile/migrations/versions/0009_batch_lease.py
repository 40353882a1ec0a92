"""A batch's lease: how long the run that took it is known to be alive.

The run renews it from the moment it takes the batch (before listing its source) until it
closes it; a batch not closed whose lease ran out is one `stmtflow recover` finishes, even
when no job of it was ever held.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    with op.batch_alter_table("batches") as batches:
        batches.add_column(sa.Column("lease_until", sa.DateTime(timezone=True)))


def downgrade() -> None:
    with op.batch_alter_table("batches") as batches:
        batches.drop_column("lease_until")
