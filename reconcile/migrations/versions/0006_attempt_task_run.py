"""An attempt names the Prefect task run that made it (when one did).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    with op.batch_alter_table("attempts") as attempts:
        attempts.add_column(sa.Column("task_run_id", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("attempts") as attempts:
        attempts.drop_column("task_run_id")
