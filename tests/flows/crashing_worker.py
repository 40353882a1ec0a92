"""A worker process that stops dead at a chosen point, for the kill -9 tests.

Run as `python crashing_worker.py MODE TARGET_SHA MARKER BATCH SOURCE`: it imports SOURCE
as batch BATCH, and when the file with TARGET_SHA reaches MODE (`mid-parse`: inside the
parser; `after-upload`: outputs written, terminal record not yet) it touches MARKER and
waits to be killed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from flows import jobs
from flows.import_flow import import_batch
from reconcile.storage import Storage, sha256


def main(mode: str, target: str, marker: str, batch_id: str, source: str) -> None:
    def hang() -> None:
        Path(marker).touch()
        time.sleep(600)

    real_parse, real_write = jobs.parse_pdf, Storage.write_outputs

    def parse(data: bytes, **kw):
        if mode == "mid-parse" and sha256(data) == target:
            hang()
        return real_parse(data, **kw)

    def write(self, prefix, files, token):
        digests = real_write(self, prefix, files, token)
        doc = files["statement.json"].decode()
        if mode == "after-upload" and f'"input_sha256": "{target}"' in doc:
            hang()
        return digests

    jobs.parse_pdf = parse
    Storage.write_outputs = write
    import_batch(source, batch_id=batch_id)


if __name__ == "__main__":
    main(*sys.argv[1:])
