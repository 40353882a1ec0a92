"""A file that breaks a parse process's limits ends its own job; the batch goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_pdfs import zero_filled_content

from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch
from parsers.codes import Reason, Status
from reconcile.storage import sha256


def test_parse_that_balloons_ends_its_job_too_large_and_the_batch_finishes(
        stmtflow_home: Path, inbox, monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 MB of zeros passes the stream check (under 4 bytes per allowed pixel) and makes
    # PDFium allocate past the 64 MiB a parse may add to its worker process.
    monkeypatch.setenv("STMTFLOW_LIMIT_MAX_MEMORY", str(64 * 1024 * 1024))
    bomb = inbox.folder / "statement-2024-05.pdf"
    bomb.write_bytes(zero_filled_content(200 * 1024 * 1024))
    state = import_batch(str(inbox.folder), batch_id="b-bomb", return_state=True)
    assert state.is_completed() and state.name == WARNINGS
    rows = {r.sha256: r for r in Settings.from_env().ledger().jobs("b-bomb")}
    hostile = rows.pop(sha256(bomb.read_bytes()))
    assert (hostile.status, hostile.reason, hostile.attempts) == (
        Status.FAILED, Reason.TOO_LARGE, 1)
    expected = {sha256(s.pdf.read_bytes()): s.reason for s in inbox.samples}
    for digest, r in rows.items():
        assert r.status == (Status.FAILED if expected[digest] else Status.SUCCEEDED), r.source_uri
        assert r.reason == expected[digest]


def test_images_over_the_pixel_limit_end_their_jobs_too_large_and_the_batch_finishes(
        stmtflow_home: Path, inbox) -> None:
    from hostile_pdfs import image_by_reference_in_annotation, jpeg2000_behind_flate

    hostile = {inbox.folder / "statement-2024-06.pdf": image_by_reference_in_annotation(20_000),
               inbox.folder / "statement-2024-07.pdf": jpeg2000_behind_flate(500, 30_000)}
    for path, data in hostile.items():
        path.write_bytes(data)
    state = import_batch(str(inbox.folder), batch_id="b-pixels", return_state=True)
    assert state.is_completed() and state.name == WARNINGS
    rows = {r.sha256: r for r in Settings.from_env().ledger().jobs("b-pixels")}
    for data in hostile.values():
        r = rows.pop(sha256(data))
        assert (r.status, r.reason, r.attempts) == (Status.FAILED, Reason.TOO_LARGE, 1)
        assert "image, over" in r.message  # refused by its size, before it was rendered
    expected = {sha256(s.pdf.read_bytes()): s.reason for s in inbox.samples}
    for digest, r in rows.items():
        assert r.status == (Status.FAILED if expected[digest] else Status.SUCCEEDED), r.source_uri
        assert r.reason == expected[digest]
