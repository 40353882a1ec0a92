"""What a batch run says about itself in the UI: its banks as tags, and the run it continues.

A run started from the CLI, a resume or a rerun has no deployment to give it tags, so the
run tags itself from the ledger (`bank:<id>` for the batch's bank, or every bank its files
turned out to be) and, when it continues another run (a resume of a batch whose run died, a
rerun of a batch's failed files), tags itself `resume` or `rerun` and links to that run in a
link artifact, so the UI leads from one to the other.
"""

from __future__ import annotations

from uuid import UUID

from prefect import get_client
from prefect.artifacts import create_link_artifact
from prefect.utilities.asyncutils import run_coro_as_sync

from reconcile.ledger import Ledger


def banks(ledger: Ledger, batch_id: str) -> set[str]:
    """The batch's bank, else its original batch's, else the banks its files were."""
    batch = ledger.batch(batch_id)
    if batch is not None and batch.bank:
        return {batch.bank}
    if batch is not None and batch.rerun_of:
        return banks(ledger, batch.rerun_of)
    return {j.bank or j.bank_hint for j in ledger.jobs(batch_id) if j.bank or j.bank_hint}


def continued_run(ledger: Ledger, batch_id: str, this_run: str) -> str | None:
    """The flow run this one continues: the batch's earlier run, or its original batch's."""
    batch = ledger.batch(batch_id)
    if batch is None:
        return None
    if batch.flow_run_id and batch.flow_run_id != this_run:
        return batch.flow_run_id
    original = ledger.batch(batch.rerun_of) if batch.rerun_of else None
    return original.flow_run_id if original else None


def mark_run(this_run: str, tags: set[str], continues: str | None, kind: str,
             ui_url: str | None) -> None:
    """Add `tags` (and `kind` when continuing) to this run; link the run it continues.

    With nothing to add (an import's files, of a bank not named, are not parsed yet when it
    starts) the API is not asked: a client and a round trip before the first file."""
    wanted = set(tags) | ({kind} if continues else set())
    if not wanted:
        return

    async def tag() -> None:
        async with get_client() as client:
            run = await client.read_flow_run(UUID(this_run))
            if not wanted <= set(run.tags):
                await client.update_flow_run(UUID(this_run), tags=sorted(set(run.tags) | wanted))

    run_coro_as_sync(tag())
    if continues:
        where = f"{ui_url.rstrip('/')}/runs/flow-run/{continues}" if ui_url else continues
        create_link_artifact(link=where, link_text=f"the run this {kind} continues",
                             description=f"This run continues flow run {continues}.")
