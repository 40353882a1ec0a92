from __future__ import annotations

import pytest

from corpus import ALL_LAYOUTS, BAD_INPUTS, Sample, generate

#: At least 200 statements: every layout, every variation the generator cycles through.
CORPUS_SIZE = 204


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return generate(tmp_path_factory.mktemp("corpus"), ALL_LAYOUTS, CORPUS_SIZE, seed=2026)


@pytest.fixture(scope="session")
def bad_inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return generate(tmp_path_factory.mktemp("bad"), ("northwind",), 1, seed=1,
                    bad=tuple(BAD_INPUTS))[1:]

