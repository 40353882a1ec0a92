from __future__ import annotations

import pytest

from corpus import ALL_LAYOUTS, BAD_INPUTS, Printed, Sample, generate
from tests.parsers.scanned import derived_scan, plain_scan

#: At least 200 statements: every layout, every variation the generator cycles through.
CORPUS_SIZE = 204


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return generate(tmp_path_factory.mktemp("corpus"), ALL_LAYOUTS, CORPUS_SIZE, seed=2026)


@pytest.fixture(scope="session")
def bad_inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return generate(tmp_path_factory.mktemp("bad"), ("northwind",), 1, seed=1,
                    bad=tuple(BAD_INPUTS))[1:]



@pytest.fixture(scope="module")
def plain() -> Printed:
    """A clean scan of one page whose every balance is printed (`scanned.plain_scan`)."""
    return plain_scan()


@pytest.fixture(scope="module")
def derived() -> Printed:
    """A clean scan without a printed opening balance (`scanned.derived_scan`)."""
    return derived_scan()
