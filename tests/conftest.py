"""Shared fixtures: one real Prefect API server per session, isolated homes per test."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# Prefect reads its settings at import: isolate its home before anything imports it.
os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix="stmtflow-prefect-")
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


@pytest.fixture(scope="session")
def prefect_server() -> Iterator[None]:
    """A real Prefect API server (Prefect's test harness), started once per session."""
    from prefect.testing.utilities import prefect_test_harness

    # a loaded machine may need longer than the harness's default to start the server
    timeout = int(os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"])
    with prefect_test_harness(server_startup_timeout=timeout):
        yield


@pytest.fixture
def stmtflow_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory: SQLite ledger and local storage of this test only."""
    home = tmp_path / "home"
    monkeypatch.setenv("STMTFLOW_HOME", str(home))
    monkeypatch.delenv("STMTFLOW_DATABASE_URL", raising=False)
    monkeypatch.delenv("STMTFLOW_STORAGE", raising=False)
    monkeypatch.setenv("STMTFLOW_WORKERS", "2")
    monkeypatch.setenv("STMTFLOW_RETRY_SECONDS", "0.2")  # retries as they run, not as slow
    return home


POSTGRES_URL = os.environ.get("STMTFLOW_TEST_POSTGRES",
                              "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh schema in the PostgreSQL test database; an unreachable server fails the test."""
    import uuid

    from sqlalchemy import create_engine, text

    schema = f"stmtflow_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as c:
        c.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in POSTGRES_URL else "?"
    yield f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"
    with admin.begin() as c:
        c.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


@pytest.fixture(scope="module")
def prefect_database_url() -> Iterator[str]:
    """A fresh PostgreSQL database for one module's Prefect server (asyncpg, as Prefect wants)."""
    import uuid

    from sqlalchemy import create_engine, make_url, text

    name = f"prefect_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f"CREATE DATABASE {name}"))
    url = make_url(POSTGRES_URL).set(drivername="postgresql+asyncpg", database=name, query={})
    yield url.render_as_string(hide_password=False)
    with admin.connect() as c:
        c.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each ledger test runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/ledger.db"
    return request.getfixturevalue("postgres_url")


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on loopback: the real S3 protocol, spoken to by s3fs."""
    from moto.server import ThreadedMotoServer

    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                      AWS_DEFAULT_REGION="us-east-1")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_bucket(s3_endpoint: str) -> str:
    """A new bucket for one test; returns its s3:// URL."""
    import uuid

    import s3fs

    fs = s3fs.S3FileSystem(client_kwargs={"endpoint_url": s3_endpoint}, skip_instance_cache=True)
    name = f"stmtflow-{uuid.uuid4().hex[:8]}"
    fs.mkdir(name)
    return f"s3://{name}"
