"""One book across sources: where each book row was read (a PDF or a bank export's format),
the key that finds the same transaction read from another source (bank, account, currency,
date, amount and occurrence of that amount on the day), and the export's own reference.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    with op.batch_alter_table("book_transactions") as book:
        book.add_column(sa.Column("source", sa.String(16)))
        book.add_column(sa.Column("match_key", sa.String(32)))
        book.add_column(sa.Column("reference", sa.Text))
        book.create_index("ix_book_transactions_match_key", ["match_key"])


def downgrade() -> None:
    with op.batch_alter_table("book_transactions") as book:
        book.drop_index("ix_book_transactions_match_key")
        book.drop_column("reference")
        book.drop_column("match_key")
        book.drop_column("source")
