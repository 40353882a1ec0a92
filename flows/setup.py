"""`stmtflow setup`: make a Prefect server ready to run stmtflow.

Creates the inbox folders the deployments read (or checks that their URLs exist), the
process work pool, deploys every deployment of prefect.yaml (`prefect deploy --all`), and
creates the automations: flow runs whose heartbeats stop are marked Crashed, a batch run
that crashed is recovered by a run of the `recover` deployment, an import that ended With
Warnings starts a `rerun-failed` run for its batch, and, with an alert webhook or a
notification block, every `stmtflow.alert.*` event and every batch run that ended With
Warnings or Crashed becomes a notification.

Safe to run again: the pool is kept, deployments and the alert block are updated in place
(by name), and an automation that exists is left alone when nothing about it changed, and
updated in place otherwise, never deleted and created again (which would forget the runs
it is watching).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import yaml
from fsspec.core import url_to_fs
from prefect import get_client
from prefect.automations import Automation
from prefect.client.schemas.actions import DeploymentUpdate, WorkPoolCreate
from prefect.client.schemas.filters import WorkPoolFilter, WorkPoolFilterName
from prefect.client.schemas.objects import StateType
from prefect.events.actions import ChangeFlowRunState, RunDeployment, SendNotification
from prefect.events.schemas.automations import EventTrigger, Posture
from prefect.events.schemas.events import ResourceSpecification
from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.import_flow import WARNINGS
from flows.recover import BATCH_FLOWS

ZOMBIES = "stmtflow: crash zombie flow runs"
ALERTS = "stmtflow: alerts to notifications"
RECOVERY = "stmtflow: recover crashed batches"
RERUN = "stmtflow: rerun what another run may cure"
OUTCOMES = "stmtflow: batch outcomes to notifications"
#: the deployment the recovery automation runs (`flow name/deployment name`)
RECOVER_DEPLOYMENT = "recover/recover"
#: the deployment the rerun automation runs
RERUN_DEPLOYMENT = "rerun-failed/rerun-failed"
#: the flows a batch is first run by: a With Warnings of one is rerun once (a rerun's own
#: With Warnings is not, so a cause that persists is not rerun for ever)
FIRST_RUNS = ("import-batch", "resume-batch")
#: the notification block `--alert-webhook` saves, which the alert and outcome automations
#: post to unless `--notify-block` names another
ALERT_BLOCK = "stmtflow-alerts"
#: the project directory: prefect.yaml and the flows' entrypoints are relative to it
PROJECT = Path(__file__).resolve().parent.parent


def setup(alert_webhook: str | None = None, project: Path = PROJECT,
          fs_options: Callable[[str], dict[str, Any]] = lambda _: {},
          notify_block: str | None = None) -> dict[str, Any]:
    folders = inboxes(project / "prefect.yaml", project, fs_options)
    pool = work_pool(project / "prefect.yaml")
    created_pool = run_coro_as_sync(_ensure_pool(pool))
    deployed = subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--all"],
                              cwd=project, capture_output=True, text=True, check=False)
    if deployed.returncode != 0:
        raise RuntimeError(f"prefect deploy --all failed: {deployed.stdout[-2000:]}"
                           f"{deployed.stderr[-2000:]}")
    run_coro_as_sync(_pull_as_written(pool, yaml.safe_load(
        (project / "prefect.yaml").read_text()).get("pull") or []))
    automations = {ZOMBIES: _upsert(zombie_automation()),
                   RECOVERY: _upsert(recovery_automation(run_coro_as_sync(_deployment_id(
                       RECOVER_DEPLOYMENT)))),
                   RERUN: _upsert(rerun_automation(run_coro_as_sync(_deployment_id(
                       RERUN_DEPLOYMENT))))}
    block_id = _notification_block(alert_webhook, notify_block)
    if block_id is not None:
        automations[ALERTS] = _upsert(alert_automation(block_id))
        automations[OUTCOMES] = _upsert(outcome_automation(block_id))
    return {"work_pool": pool, "work_pool_created": created_pool,
            "automations": automations, "alerts": block_id is not None, "inboxes": folders}


def inboxes(prefect_yaml: Path, project: Path,
            fs_options: Callable[[str], dict[str, Any]]) -> dict[str, str]:
    """Make each inbox folder the deployments of `prefect_yaml` read (relative to the
    project, where a worker started in a checkout of it reads them), and check that each
    fsspec URL one names exists: `created`, `exists`, or `missing` (an import of it ends its
    batch FAILED `source_missing`)."""
    found = {}
    for d in yaml.safe_load(prefect_yaml.read_text())["deployments"]:
        source = (d.get("parameters") or {}).get("source")
        if not isinstance(source, str) or source in found:
            continue
        if "://" not in source:
            folder = project / source
            found[source] = "exists" if folder.is_dir() else "created"
            folder.mkdir(parents=True, exist_ok=True)
            continue
        fs, path = url_to_fs(source, **fs_options(source))
        found[source] = "exists" if fs.exists(path) else "missing"
    return found


def work_pool(prefect_yaml: Path) -> str:
    """The one work pool the deployments of `prefect_yaml` name."""
    pools = {d["work_pool"]["name"] for d in yaml.safe_load(prefect_yaml.read_text())[
        "deployments"]}
    if len(pools) != 1:
        raise ValueError(f"{prefect_yaml} names {len(pools)} work pools, expected one")
    return pools.pop()


async def _ensure_pool(name: str) -> bool:
    async with get_client() as client:
        try:
            await client.create_work_pool(WorkPoolCreate(name=name, type="process"))
        except ObjectAlreadyExists:
            return False
    return True


async def _pull_as_written(pool: str, pull: list[dict[str, Any]]) -> None:
    """Give the pool's deployments prefect.yaml's pull steps unresolved.

    `prefect deploy` resolves `{{ $VAR }}` in pull steps on the deploying machine, so a
    pull from `{{ $PWD }}` would become this checkout's path; stored as written, each worker
    resolves it when a run starts, in the checkout it was started from.
    """
    async with get_client() as client:
        for d in await client.read_deployments(work_pool_filter=WorkPoolFilter(
                name=WorkPoolFilterName(any_=[pool]))):
            if d.pull_steps != pull:
                await client.update_deployment(d.id, DeploymentUpdate(pull_steps=pull))


def zombie_automation() -> Automation:
    """Prefect's recipe: a run that stops sending heartbeats for 3 minutes has crashed.

    After a heartbeat, any event of the same run clears it: another heartbeat, or a change
    of state under any name, so a run that ended `Completed With Warnings` (or in any other
    custom-named state) is never taken for a zombie.
    """
    return Automation(
        name=ZOMBIES,
        trigger=EventTrigger(
            after={"prefect.flow-run.heartbeat"},
            expect={"prefect.flow-run.*"},
            match=ResourceSpecification({"prefect.resource.id": ["prefect.flow-run.*"]}),
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=timedelta(minutes=3),
        ),
        actions=[ChangeFlowRunState(state=StateType.CRASHED,
                                    message="no heartbeat for 3 minutes: its worker is gone")],
    )


def recovery_automation(deployment_id: UUID) -> Automation:
    """A batch run (import, resume, rerun) that crashed starts a `recover` run for it at once.

    The run gets the crashed run's id (`{{ event.resource.id }}`), finishes its batch, and is
    named, tagged and linked like it; a Retry of the crashed run before then is left alone.
    """
    return Automation(
        name=RECOVERY,
        trigger=EventTrigger(
            expect={"prefect.flow-run.Crashed"},
            match=ResourceSpecification({"prefect.resource.id": "prefect.flow-run.*"}),
            match_related=ResourceSpecification({"prefect.resource.role": "flow",
                                                 "prefect.resource.name": list(BATCH_FLOWS)}),
            posture=Posture.Reactive, threshold=1, within=timedelta(0)),
        actions=[RunDeployment(source="selected", deployment_id=deployment_id,
                               parameters={"flow_run_id": "{{ event.resource.id }}"})],
    )


async def _deployment_id(name: str) -> UUID:
    async with get_client() as client:
        return (await client.read_deployment_by_name(name)).id


def rerun_automation(deployment_id: UUID) -> Automation:
    """An import (or resume) that ended With Warnings starts a `rerun-failed` run for its
    batch: what failed for a cause another run may cure (retries exhausted, expired) runs
    again, linked from the batch's run; a batch whose warnings are its files' own (not a
    PDF, needs review) finds nothing to rerun."""
    return Automation(
        name=RERUN,
        trigger=EventTrigger(
            expect={f"prefect.flow-run.{WARNINGS}"},
            match=ResourceSpecification({"prefect.resource.id": "prefect.flow-run.*"}),
            match_related=ResourceSpecification({"prefect.resource.role": "flow",
                                                 "prefect.resource.name": list(FIRST_RUNS)}),
            posture=Posture.Reactive, threshold=1, within=timedelta(0)),
        actions=[RunDeployment(source="selected", deployment_id=deployment_id,
                               parameters={"flow_run_id": "{{ event.resource.id }}"})],
    )


def _notification_block(webhook: str | None, slug: str | None) -> UUID | None:
    """The notification block the alert and outcome automations post to: `slug`
    (`block-type/name`: a Slack webhook, an email block, any of Prefect's), else the webhook
    block saved for `webhook`, else none."""
    if slug:
        from prefect.blocks.core import Block

        block = Block.load(slug)
        return block._block_document_id  # what SendNotification names it by
    if not webhook:
        return None
    from prefect.blocks.notifications import CustomWebhookNotificationBlock

    return CustomWebhookNotificationBlock(
        name=ALERT_BLOCK, url=webhook,
        json_data={"subject": "{{subject}}", "body": "{{body}}"}).save(
        ALERT_BLOCK, overwrite=True)


def outcome_automation(block_id: UUID) -> Automation:
    """A batch run that ended With Warnings (files excluded, or statements that need
    review) or Crashed posts its state and message (how many need review) to the block."""
    return Automation(
        name=OUTCOMES,
        trigger=EventTrigger(
            expect={f"prefect.flow-run.{WARNINGS}", "prefect.flow-run.Crashed"},
            match=ResourceSpecification({"prefect.resource.id": "prefect.flow-run.*"}),
            match_related=ResourceSpecification({"prefect.resource.role": "flow",
                                                 "prefect.resource.name": list(BATCH_FLOWS)}),
            posture=Posture.Reactive, threshold=1, within=timedelta(0)),
        actions=[SendNotification(
            block_document_id=block_id,
            subject="stmtflow: {{ flow_run.name }} {{ flow_run.state.name }}",
            body="{{ flow_run.name }} ended {{ flow_run.state.name }}: "
                 "{{ flow_run.state.message }}")],
    )


def alert_automation(block_id: UUID) -> Automation:
    return Automation(
        name=ALERTS,
        trigger=EventTrigger(
            expect={"stmtflow.alert.*"},
            match=ResourceSpecification({"prefect.resource.id": "stmtflow.alert.*"}),
            posture=Posture.Reactive, threshold=1, within=timedelta(0)),
        actions=[SendNotification(
            block_document_id=block_id, subject="stmtflow alert: {{ event.event }}",
            body="{{ event.event }} at {{ event.occurred }}: {{ event.payload }}")],
    )


def _upsert(automation: Automation) -> str:
    """Create `automation`, or update the one of the same name in place; what was done."""
    try:
        current = Automation.read(name=automation.name)
    except (ValueError, ObjectNotFound):
        automation.create()
        return "created"
    automation.id = current.id
    if _same(current, automation):
        return "unchanged"
    automation.update()
    return "updated"


def _same(a: Automation, b: Automation) -> bool:
    """Whether two automations are alike: compared as Python values, so that a trigger's
    sets (`expect`, `after`) are equal in any order (as JSON lists, two events could come
    back from the server in another order than they were built in)."""
    def spec(x: Automation) -> dict[str, Any]:
        return x.model_dump(exclude={"owner_resource", "created", "updated"})

    return spec(a) == spec(b)
