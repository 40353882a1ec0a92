"""A stand-in for `parse_pdf` that a parse worker runs through `ParsePool(target=scripted)`.

`data` scripts what the parse does, each the way a hostile file makes a parser misbehave,
on purpose and at once; anything else is parsed for real:

- `pid`: return the worker's process id; `setting`: the `setting` the target was bound with;
- `nap:SECONDS`: sleep that long, then return the process id;
- `hang` (`hang:PATH`: creating PATH first), `spin`, `balloon` (allocate twice the memory
  limit), `crash` (abort);
- `crash-once:PATH`: abort unless PATH exists (creating it), else return the process id;
- `meet:FOLDER`: check in to FOLDER, return only once a second parse has checked in;
- `bug`: raise an error of our own (a `KeyError`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from parsers.api import parse_pdf
from parsers.limits import Limits


def scripted(data: bytes, bank: str | None = None, limits: Limits | None = None,
             setting: str | None = None, passwords: tuple[str, ...] = ()) -> Any:
    assert limits is not None
    script, _, arg = data.decode(errors="replace").partition(":")
    if script == "pid":
        return os.getpid()
    if script == "setting":
        return setting
    if script == "loaded":
        return arg in sys.modules
    if script == "nap":
        time.sleep(float(arg))
        return os.getpid()
    if script == "hang":
        if arg:
            Path(arg).touch()
        time.sleep(3600)
    if script == "spin":
        while True:
            pass
    if script == "balloon":
        return len(bytearray(2 * limits.max_memory))
    if script == "crash":
        os.abort()
    if script == "crash-once":
        if not Path(arg).exists():
            Path(arg).touch()
            os.abort()
        return os.getpid()
    if script == "meet":
        return _meet(Path(arg))
    if script == "bug":
        raise KeyError("a bug of ours, deep in a parse")
    return parse_pdf(data, bank=bank, limits=limits, passwords=passwords)


def _meet(folder: Path) -> int:
    (folder / str(os.getpid())).touch()
    for _ in range(6000):
        if len(list(folder.iterdir())) >= 2:
            return os.getpid()
        time.sleep(0.01)
    raise TimeoutError("no second parse ran alongside this one within 60 s")
