"""`stmtflow setup`: make a Prefect server ready to run stmtflow.

Creates the process work pool, deploys every deployment of prefect.yaml (`prefect deploy
--all`), and creates the automations: flow runs whose heartbeats stop are marked Crashed,
and, with an alert webhook, every `stmtflow.alert.*` event becomes a notification.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml
from prefect import get_client
from prefect.automations import Automation
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.client.schemas.objects import StateType
from prefect.events.actions import ChangeFlowRunState, SendNotification
from prefect.events.schemas.automations import EventTrigger, Posture
from prefect.events.schemas.events import ResourceSpecification
from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound
from prefect.utilities.asyncutils import run_coro_as_sync

ZOMBIES = "stmtflow: crash zombie flow runs"
ALERTS = "stmtflow: alerts to notifications"
#: the project directory: prefect.yaml and the flows' entrypoints are relative to it
PROJECT = Path(__file__).resolve().parent.parent


def setup(alert_webhook: str | None = None, project: Path = PROJECT) -> dict[str, Any]:
    pool = work_pool(project / "prefect.yaml")
    created_pool = run_coro_as_sync(_ensure_pool(pool))
    deployed = subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--all"],
                              cwd=project, capture_output=True, text=True, check=False)
    if deployed.returncode != 0:
        raise RuntimeError(f"prefect deploy --all failed: {deployed.stdout[-2000:]}"
                           f"{deployed.stderr[-2000:]}")
    automations = [_replace(zombie_automation())]
    if alert_webhook:
        automations.append(_replace(alert_automation(alert_webhook)))
    return {"work_pool": pool, "work_pool_created": created_pool,
            "automations": automations, "alerts": bool(alert_webhook)}


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


def zombie_automation() -> Automation:
    """Prefect's recipe: a run that stops sending heartbeats for 3 minutes has crashed."""
    return Automation(
        name=ZOMBIES,
        trigger=EventTrigger(
            after={"prefect.flow-run.heartbeat"},
            expect={"prefect.flow-run.heartbeat", "prefect.flow-run.Completed",
                    "prefect.flow-run.Failed", "prefect.flow-run.Cancelled",
                    "prefect.flow-run.Crashed"},
            match=ResourceSpecification({"prefect.resource.id": ["prefect.flow-run.*"]}),
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=timedelta(minutes=3),
        ),
        actions=[ChangeFlowRunState(state=StateType.CRASHED,
                                    message="no heartbeat for 3 minutes: its worker is gone")],
    )


def alert_automation(webhook: str) -> Automation:
    from prefect.blocks.notifications import CustomWebhookNotificationBlock

    block = CustomWebhookNotificationBlock(
        name="stmtflow-alerts", url=webhook,
        json_data={"subject": "{{subject}}", "body": "{{body}}"})
    block_id = block.save("stmtflow-alerts", overwrite=True)
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


def _replace(automation: Automation) -> str:
    """Create `automation`, replacing an earlier one of the same name (setup is re-runnable)."""
    with contextlib.suppress(ValueError, ObjectNotFound):
        Automation.read(name=automation.name).delete()
    return str(automation.create().id)
