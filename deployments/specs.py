"""Deployment specs: settings read once from `banks.toml`, used by prefect.yaml and by `serve`.

A bank is its template: `banks.toml` holds only what is a deployment's (schedule, timezone,
inbox) for banks the templates in force describe, and naming any other bank is an error.
`specs()` is the list of deployments in prefect.yaml's own shape; `render_prefect_yaml()`
writes the file from it, and a test keeps the committed prefect.yaml equal to the render.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from flows.config import Settings
from flows.parser import Parser

SOURCE = Path(__file__).with_name("banks.toml")
PREFECT_YAML = Path(__file__).parent.parent / "prefect.yaml"
IMPORT = "flows/import_flow.py:import_batch"
RECONCILE = "flows/reconcile_flow.py:reconcile"
RERUN = "flows/rerun_flow.py:rerun_failed"
REVIEW = "flows/review_flow.py:review_statement"
RECOVER = "flows/recover.py:recover_batches"


@dataclass(frozen=True)
class Bank:
    id: str
    cron: str
    timezone: str
    inbox: str


def load(path: Path = SOURCE) -> dict[str, Any]:
    return tomllib.loads(path.read_text())


def banks(config: dict[str, Any] | None = None,
          in_force: Collection[str] | None = None) -> list[Bank]:
    """The scheduled banks; each must be a bank of the templates in force (`in_force`)."""
    config = config or load()
    if in_force is None:
        in_force = Parser.from_settings(Settings.from_env()).banks
    unknown = sorted(b["id"] for b in config["bank"] if b["id"] not in in_force)
    if unknown:
        raise ValueError(f"deployments name banks no template in force describes: "
                         f"{', '.join(unknown)} (templates: {', '.join(sorted(in_force))})")
    return [Bank(b["id"], b["cron"], b["timezone"], b["inbox"]) for b in config["bank"]]


def specs(config: dict[str, Any] | None = None,
          in_force: Collection[str] | None = None) -> list[dict[str, Any]]:
    """Every deployment: one import per bank, the reconciliation, recovery, rerun-failed and
    review."""
    config = config or load()
    defaults = config["defaults"]

    def pool() -> dict[str, Any]:
        return {"name": defaults["work_pool"], "job_variables": {"env": {
            "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(defaults["heartbeat_seconds"])}}}

    out = [{
        "name": f"import-{b.id}",
        "description": f"Import {b.id} statements from {b.inbox}",
        "entrypoint": IMPORT,
        "parameters": {"source": b.inbox, "bank": b.id},
        "schedules": [{"cron": b.cron, "timezone": b.timezone}],
        # a run tags itself with the banks its batch holds (`flows.lineage`), not the
        # deployment's: one started with another bank or source holds other banks
        "tags": ["import"],
        # one import per bank at a time: a run due while another runs waits its turn
        "concurrency_limit": {"limit": 1, "collision_strategy": "ENQUEUE"},
        "work_pool": pool(),
    } for b in banks(config, in_force)]
    out.append({
        "name": "reconcile",
        "description": "Account for every accepted job and publish the report",
        "entrypoint": RECONCILE,
        "parameters": {},
        "schedules": [{"cron": config["reconcile"]["cron"],
                       "timezone": config["reconcile"]["timezone"]}],
        "tags": ["reconcile"],
        "work_pool": pool(),
    })
    out.append({
        "name": "recover",
        "description": "Reclaim dead workers' jobs and finish the batches they left (every "
                       "abandoned batch, or the batch of the crashed run flow_run_id)",
        "entrypoint": RECOVER,
        "parameters": {},
        "schedules": [{"cron": config["recover"]["cron"],
                       "timezone": config["recover"]["timezone"]}],
        "tags": ["recover"],
        "work_pool": pool(),
    })
    out.append({
        "name": "rerun-failed",
        "description": "Rerun the failed files of a batch (give its batch_id)",
        "entrypoint": RERUN,
        "parameters": {"current_identities": False, "include_deterministic": False},
        "schedules": [],
        "tags": ["rerun"],
        "work_pool": pool(),
    })
    out.append({
        "name": "review",
        "description": "Ask a person about a statement that needs review (give its review_id); "
                       "the reconciliation starts one run per open review",
        "entrypoint": REVIEW,
        "parameters": {},
        "schedules": [],
        "tags": ["review"],
        "work_pool": pool(),
    })
    return out


#: Where a run finds the code: the directory its worker was started in (`$PWD`, resolved by
#: the worker when the run starts), not the path of the checkout that ran `prefect deploy`
#: (Prefect's default pull step), so that any checkout's worker can run every deployment.
PULL = [{"prefect.deployments.steps.set_working_directory": {"directory": "{{ $PWD }}"}}]


def render_prefect_yaml() -> str:
    header = ("# Generated from deployments/banks.toml by `stmtflow deployments render`;\n"
              "# edit that file, not this one (a test keeps the two in step).\n")
    body = {"name": "stmtflow", "prefect-version": "3.9.1", "pull": PULL,
            "deployments": specs()}
    return header + yaml.safe_dump(body, sort_keys=False, width=100)
