"""A worker process that stops dead at a chosen point, for the kill -9 tests.

Run as `python crashing_worker.py MODE TARGET_SHA MARKER BATCH SOURCE` with storage on
`faulty://`: it accepts SOURCE as batch BATCH, then imports it, and when the file with
TARGET_SHA reaches MODE it touches MARKER and waits to be killed. `mid-attempt`: the job is
claimed and its worker is reading the stored input; `after-upload`: its outputs are written
and verified, the terminal record not yet; `acceptance`: the import (which accepts SOURCE
itself) is storing the file's bytes, the source not yet fully accepted, and the process
stays alive, its batch's lease renewed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from faults import fresh_faults

from flows.config import Settings
from flows.import_flow import import_batch
from flows.jobs import accept_batch


def main(mode: str, target: str, marker: str, batch_id: str, source: str) -> None:
    def hang() -> None:
        Path(marker).touch()
        time.sleep(600)

    if mode != "acceptance":  # accepted before any fault is armed
        accept_batch(Settings.from_env(), batch_id, [source], None)
    faults = fresh_faults()
    outputs_of_target: list[str] = []

    def on_read(path: str, data: bytes | None) -> None:
        if mode == "mid-attempt" and path.endswith(f"/inputs/sha256/{target}.pdf"):
            hang()
        # the last object write_stamped writes and reads back
        if mode == "after-upload" and outputs_of_target and path.endswith(
                f"{outputs_of_target[0]}/transactions.parquet"):
            hang()

    def on_write(path: str, data: bytes | None) -> None:
        if mode == "acceptance" and f"/inputs/sha256/{target}" in path:
            hang()
        if "/statement.json.tmp-" in path and data and f'"input_sha256": "{target}"'.encode() \
                in data:
            outputs_of_target.append(path.rsplit("/", 1)[0])

    faults.on_read.append(on_read)
    faults.on_write.append(on_write)
    import_batch(source, batch_id=batch_id)


if __name__ == "__main__":
    main(*sys.argv[1:])
