"""Prefect loads a deployment's entrypoint (`flows/import_flow.py:import_batch`) by its path
and puts the entrypoint's folder on `sys.path`. A module in that folder named like one of the
standard library's (`secrets`) then shadows it in that process and in every process it
spawns: numpy.random, for one, imports `secrets` and fails."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def entrypoint_folders() -> set[Path]:
    spec = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    return {(ROOT / d["entrypoint"].split(":")[0]).parent for d in spec["deployments"]}


def test_no_module_beside_an_entrypoint_is_named_like_the_standard_library() -> None:
    folders = entrypoint_folders()
    assert ROOT / "flows" in folders
    names = {p.stem if p.suffix == ".py" else p.name
             for folder in folders for p in folder.iterdir()
             if p.suffix == ".py" or (p / "__init__.py").exists()}
    assert names & set(sys.stdlib_module_names) == set()
