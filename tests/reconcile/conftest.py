"""Fixtures shared by the reconcile tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconcile.storage import Storage


@pytest.fixture(params=["local", "s3"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    """Result storage on a local folder and on S3 (moto's server through s3fs)."""
    if request.param == "local":
        return Storage(str(tmp_path / "store"))
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = request.getfixturevalue("s3_bucket")
    return Storage(f"{bucket}/root", {"client_kwargs": {"endpoint_url": endpoint},
                                      "skip_instance_cache": True})
