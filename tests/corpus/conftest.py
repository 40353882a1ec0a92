from __future__ import annotations

import pytest

from corpus import BANKS, Sample, generate

#: A few dozen varied statements: enough for every variation kind to appear.
VARIED_SIZE = 60


@pytest.fixture(scope="session")
def varied(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return generate(tmp_path_factory.mktemp("varied"), BANKS, VARIED_SIZE, seed=2026,
                    varied=True)
