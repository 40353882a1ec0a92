from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from parsers.corpus import BASIC_BAD, Sample, generate

TEXT_BANKS = ("northwind", "bluebird", "harbor", "alpenbank")


@pytest.fixture(autouse=True)
def _prefect(prefect_server: None) -> None:
    """Every flow test talks to the session's real Prefect API server."""


class Inbox(NamedTuple):
    folder: Path
    samples: list[Sample]


@pytest.fixture
def inbox(tmp_path: Path) -> Inbox:
    """Eight text-layer statements of four banks plus the four basic bad inputs."""
    folder = tmp_path / "inbox"
    return Inbox(folder, generate(folder, TEXT_BANKS, 8, seed=31, bad=BASIC_BAD))
