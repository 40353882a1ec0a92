"""Why a batch ended without its jobs finishing: the reason code and message of a source
that could not be accepted (`FAILED`), or the note of the operator who abandoned it; and
which rerun superseded a statement in the book (a re-read under a new parser chain).

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    with op.batch_alter_table("batches") as batches:
        batches.add_column(sa.Column("reason", sa.String(64)))
        batches.add_column(sa.Column("message", sa.Text))
    with op.batch_alter_table("book_imports") as book_imports:
        book_imports.add_column(sa.Column("superseded_by", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("book_imports") as book_imports:
        book_imports.drop_column("superseded_by")
    with op.batch_alter_table("batches") as batches:
        batches.drop_column("message")
        batches.drop_column("reason")
