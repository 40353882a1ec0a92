"""Parse worker processes: every parse under hard limits, on every core, off the caller.

`ParsePool.parse(data, bank=...)` is `parse_pdf` run in one of a few long-lived worker
processes, callable from many threads at once (the import flow's per-file tasks): a caller
finding every worker busy waits for the first one free, and is never given one beyond
`workers`. Each parse is bounded three ways, so that a hostile or broken file ends its own parse and
nothing else:

- address space (`RLIMIT_AS`): a parse may add `Limits.max_memory` to its worker;
- CPU time (`RLIMIT_CPU`): the kernel stops a worker spinning past `seconds_per_file`;
- wall time: the caller kills a worker that has not answered `seconds_per_file` (plus a
  second of grace, so that the parser's own between-pages check can answer first) after it
  was handed the parse (a caller's wait for a free worker is not the parse's time).

A parse stopped by a limit raises the parser's own errors (`ParseTimeout`, `too_slow`;
`TooLarge`, `too_large`), so the error taxonomy classifies it like any other, and its
worker is replaced. A worker that dies otherwise (a crash in a PDF library, the kernel's
OOM killer) is replaced too, and the same bytes go once more to another worker: a crash
that recurs on the same bytes is deterministic (`ParserCrashed`, `parser_crash`); one that
does not was bad luck, and the second result stands. Death after the worker's address
space grew by half its memory budget is `too_large`: PDFium aborts when allocation fails.

Workers start from the `forkserver` context: the fork server is a fresh interpreter (never
a fork of the caller, whose threads and Prefect event loop must not be copied) that has
imported the parser once, so a worker, or its replacement after a kill, starts in
milliseconds. A worker reads no configuration of its own: the target it runs carries it
(templates, page reader: `parse_pdf` with its arguments bound, or the caller's parser
object), pickled once when the worker starts. Like every multiprocessing start method, a
worker imports the caller's main module as `__mp_main__`.
`workers=0` runs each parse in the calling thread instead, without limits, for debugging;
so does a daemonic process, which multiprocessing forbids to have children.
"""

from __future__ import annotations

import importlib
import math
import multiprocessing
import os
import pickle
import queue
import resource
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from parsers.errors import ParserCrashed, ParseTimeout, TooLarge
from parsers.limits import Limits

#: What a worker runs: `target(data, bank=..., limits=..., passwords=..., **extra)`,
#: `parse_pdf` or anything with its signature and its configuration bound (picklable: it is
#: sent to each worker once), which may take more keywords (`ParsePool.parse`'s `extra`) and
#: return what it makes of the parse (an import's rendered objects:
#: `parsers.worker.statement_files`).
Target = Callable[..., Any]
#: Extra wall time over the per-file budget before the caller kills the worker.
GRACE_SECONDS = 1.0
#: How often the caller samples a busy worker's address space: an inflating stream reaches its
#: limit within tens of milliseconds, and a death the samples did not see grow is a crash,
#: not `too_large` (at 50 ms, 4 to 25 in 100 such deaths were missed; at 20 ms and 5 ms,
#: none in 120 and 100). Each sample reads the worker's /proc entry, so not more often.
SAMPLE_SECONDS = 0.02
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _parse_pdf(data: bytes, **kwargs: Any) -> Any:
    """`parse_pdf`, imported where it runs: a process that only hands files to its workers
    does not load the parser."""
    from parsers.api import parse_pdf

    return parse_pdf(data, **kwargs)


class RemoteTraceback(Exception):
    """The traceback of an error raised in a worker, kept as the error's cause."""

    def __str__(self) -> str:
        return str(self.args[0])


class ParsePool:
    """Long-lived parse processes, each parse under hard limits; safe to call from threads."""

    def __init__(self, workers: int | None = None, limits: Limits | None = None,
                 target: Target | None = None, preload: Sequence[str] = ("parsers.api",)
                 ) -> None:
        """`target`: `parse_pdf` unless given. `preload`: the modules `target` needs, which
        the fork server imports once for every worker; a worker imports those its fork
        server lacks (there is one per process, started with the first pool's) as it starts,
        so that no parse pays for an import, nor fails one, under its limits."""
        self.workers = (os.cpu_count() or 1) if workers is None else workers
        self.limits = limits or Limits()
        self._target = target or _parse_pdf
        self._context = multiprocessing.get_context("forkserver")
        self._preload = tuple(preload)
        self._context.set_forkserver_preload(list(preload))
        self._idle: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        for _ in range(self.workers):
            self._idle.put(None)  # a slot whose worker starts on first use
        self._started: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False

    def parse(self, data: bytes, bank: str | None = None,
              passwords: Sequence[str] = (), **extra: Any) -> Any:
        """`target(data, bank=bank, passwords=passwords, **extra)` (`parse_pdf`'s result, or
        what the target makes of it) in a worker; raises what it raises, or a limit's
        error."""
        if self._closed:
            raise RuntimeError("the parse pool is closed")
        if self.workers == 0 or multiprocessing.current_process().daemon:
            # A daemonic process (a Dask worker, say) may not start children: parse here.
            return self._target(data, bank=bank, limits=self.limits, passwords=passwords,
                                **extra)
        crash = ""
        for _ in range(2):
            outcome = self._run(data, {"bank": bank, "passwords": tuple(passwords), **extra})
            if not isinstance(outcome, _Crash):
                return outcome
            crash = outcome.how
        raise ParserCrashed(f"the parse process died twice on this file ({crash})")

    def close(self) -> None:
        """Stop every worker (idle ones at once; call it when no parse is running)."""
        self._closed = True
        with self._lock:
            workers, self._started = list(self._started), set()
        for w in workers:
            w.stop()

    def __enter__(self) -> ParsePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, data: bytes, kwargs: dict[str, Any]) -> Any:
        """One parse on an idle worker; a worker that did not survive it is replaced."""
        worker = self._idle.get()
        try:
            if worker is not None and not worker.alive():  # died while idle (OOM killer)
                self._retire(worker)
                worker = None
            if worker is None:
                worker = self._start()
            outcome = worker.run(data, kwargs, self.limits)
        except BaseException:  # the caller's own failure (an interrupt): drop the worker
            if worker is not None:
                self._retire(worker)
            self._idle.put(None)
            raise
        if worker.alive() and not worker.retiring:
            self._idle.put(worker)
        else:
            self._retire(worker)
            self._idle.put(None)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _start(self) -> _Worker:
        worker = _Worker(self._context, self.limits, self._target, self._preload)
        with self._lock:
            self._started.add(worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        worker.stop()
        with self._lock:
            self._started.discard(worker)


class _Crash:
    """A worker died without a limit to blame."""

    def __init__(self, how: str) -> None:
        self.how = how


class _Worker:
    """One worker process and the caller's end of its pipe."""

    def __init__(self, context: Any, limits: Limits, target: Target,
                 preload: tuple[str, ...]) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, limits, target, preload),
                                       name="stmtflow-parse", daemon=True)
        self.process.start()
        child.close()
        self.retiring = False

    def alive(self) -> bool:
        return self.process.is_alive()

    def run(self, data: bytes, kwargs: dict[str, Any], limits: Limits) -> Any:
        """Send one parse and wait for its answer (the target's result, or the error it
        raised), its death (`_Crash`, or a limit's error) or its deadline."""
        pid = self.process.pid
        if pid is None:
            raise RuntimeError("the parse process was never started")
        start = peak = _address_space(pid)
        try:
            self.conn.send((data, kwargs))
        except (BrokenPipeError, OSError):
            return self._died(start, peak, limits)
        deadline = time.monotonic() + limits.seconds_per_file + GRACE_SECONDS
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                return ParseTimeout(f"the parse ran past {limits.seconds_per_file:.0f} s and "
                                    "was stopped")
            try:
                if self.conn.poll(min(remaining, SAMPLE_SECONDS)):
                    kind, value, remote = self.conn.recv()
                    break
            except (EOFError, OSError):
                return self._died(start, peak, limits)
            peak = max(peak, _address_space(pid))
        if kind == "result":
            return value
        self.retiring = kind == "retire"
        if remote:
            value.__cause__ = RemoteTraceback(remote)
        return value

    def _died(self, start: int, peak: int, limits: Limits) -> BaseException | _Crash:
        self.process.join(5)
        code = self.process.exitcode
        if code == -signal.SIGXCPU:
            return ParseTimeout(f"the parse used over {limits.seconds_per_file:.0f} s of CPU "
                               "and was stopped")
        how = (f"signal {signal.Signals(-code).name}" if code is not None and code < 0
               else f"exit code {code}")
        if peak - start >= limits.max_memory // 2:
            return TooLarge(f"the parse process died ({how}) after growing by "
                           f"{(peak - start) >> 20} MiB, near its limit of "
                           f"{limits.max_memory >> 20} MiB")
        return _Crash(how)

    def stop(self) -> None:
        """Ask an idle worker to leave; kill it when it does not."""
        if self.process.is_alive():
            try:
                self.conn.send(None)
                self.process.join(1)
            except (BrokenPipeError, OSError):
                pass
        self.kill()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


def _serve(conn: Connection, limits: Limits, target: Target, preload: tuple[str, ...]) -> None:
    """A worker's life: take parses one at a time until told to stop or orphaned."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name in preload:
        importlib.import_module(name)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        data, kwargs = job
        _arm(limits)
        try:
            reply: tuple[str, Any, str] = ("result", target(data, limits=limits, **kwargs), "")
        except MemoryError:
            reply = ("retire", TooLarge(f"the parse needed more than its limit of "
                                        f"{limits.max_memory >> 20} MiB"), "")
        except BaseException as exc:
            reply = ("error", _portable(exc), traceback.format_exc())
        _disarm()
        try:
            conn.send(reply)
        except Exception as exc:  # a result that cannot be pickled is our bug, reported
            conn.send(("error", RuntimeError(f"unpicklable parse reply: {exc!r}"),
                       traceback.format_exc()))
        if reply[0] == "retire":
            return


def _arm(limits: Limits) -> None:
    """This parse's limits: CPU seconds from now, address space on top of today's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(usage.ru_utime + usage.ru_stime + limits.seconds_per_file)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    size = _address_space(os.getpid()) + limits.max_memory
    resource.setrlimit(resource.RLIMIT_AS, (size, resource.getrlimit(resource.RLIMIT_AS)[1]))


def _disarm() -> None:
    """Lift the address-space limit between parses, so that sending a reply cannot fail."""
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _portable(exc: BaseException) -> BaseException:
    """The error itself when it survives pickling, else a stand-in naming it."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _address_space(pid: int) -> int:
    """A process's address space in bytes (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0
