"""Alembic environment: migrations run on the connection `reconcile.db.migrate` hands over."""

from alembic import context

from reconcile.db import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
