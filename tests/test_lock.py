"""requirements.lock: what every install (`make demo`, `make test`, CI) takes, kept in step
with pyproject.toml's ranges and installed as it says."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def _pins() -> dict[str, tuple[Version, int]]:
    """name -> (pinned version, how many hashes follow it)."""
    pins: dict[str, tuple[Version, int]] = {}
    name = None
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if m := PIN.match(line):
            name = canonicalize_name(m[1])
            pins[name] = (Version(m[2]), 0)
        elif name and "--hash=sha256:" in line:
            pinned, hashes = pins[name]
            pins[name] = (pinned, hashes + 1)
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["test"],
              *project["optional-dependencies"]["beancount"]]
    return [r for r in map(Requirement, wanted) if canonicalize_name(r.name) != "stmtflow"]


def test_the_lock_pins_every_dependency_within_its_range_with_hashes() -> None:
    pins = _pins()
    wrong = [f"{r}: {pins.get(canonicalize_name(r.name))}" for r in _requirements()
             if canonicalize_name(r.name) not in pins
             or pins[canonicalize_name(r.name)][0] not in r.specifier]
    assert wrong == []
    assert all(hashes for _, hashes in pins.values()), "a pin without hashes"


def test_the_ranges_leave_out_sqlalchemy_2_1_which_stops_prefects_scheduler() -> None:
    (sqlalchemy,) = [r for r in _requirements() if r.name == "sqlalchemy"]
    assert Version("2.0.40") in sqlalchemy.specifier
    assert Version("2.1.0") not in sqlalchemy.specifier


def test_this_environment_is_installed_from_the_lock() -> None:
    differ = {}
    for name, (pinned, _) in _pins().items():
        try:
            installed = Version(version(name))
        except PackageNotFoundError:
            installed = None
        if installed != pinned:
            differ[name] = (str(pinned), installed and str(installed))
    assert differ == {}
