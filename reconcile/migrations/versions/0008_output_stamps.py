"""What each output object looked like in a listing when its bytes were last hashed.

A reconciliation pass lists result storage once and re-reads only objects whose size or
stamp (inode and times on a local disk, ETag and modification time on an object store)
differ from the last pass; the digest of the others is the one stored here.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_table(
        "output_stamps",
        sa.Column("uri", sa.Text(), primary_key=True),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("stamp", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("output_stamps")
