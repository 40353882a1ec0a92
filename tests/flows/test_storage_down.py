"""Storage that cannot be reached at the start: exit 2, one line, nothing accepted."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import s3fs

from flows.taxonomy import classify
from parsers.codes import Reason


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_s3_down_at_the_start_exits_two_with_one_line(stmtflow_home: Path,
                                                      tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "statement.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    endpoint = f"http://127.0.0.1:{closed_port()}"
    env = {**os.environ, "STMTFLOW_STORAGE": "s3://stmtflow/store",
           "STMTFLOW_S3_ENDPOINT": endpoint, "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    done = subprocess.run([sys.executable, "-m", "flows.cli", "import", str(inbox)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("stmtflow: error:") and "storage s3://stmtflow/store" in lines[0]
    assert not (stmtflow_home / "ledger.db").exists() or "b-" not in done.stdout


def test_s3_endpoint_down_is_transient_storage_unavailable() -> None:
    fs = s3fs.S3FileSystem(client_kwargs={"endpoint_url": f"http://127.0.0.1:{closed_port()}"},
                           key="testing", secret="testing", skip_instance_cache=True)
    try:
        fs.ls("stmtflow/store")
    except Exception as exc:
        c = classify(exc)
        assert c.transient and c.reason == Reason.STORAGE_UNAVAILABLE, repr(exc)
    else:
        raise AssertionError("listing a closed port must fail")
