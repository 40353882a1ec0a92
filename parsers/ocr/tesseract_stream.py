"""Tesseract processes kept running to read image files as they come, one set of options.

Starting tesseract costs about 90 ms of CPU, most of it building its table of look-alike
characters: a sixth of reading a page, more than reading the few word crops of a page a
second time. So the pages a process OCRs go to a tesseract process started on first use
that takes file names on its standard input (`stream_filelist`) and answers each with its
TSV, read for read as a fresh process would; after each batch a blank image follows, whose
page row marks the end of the batch's answers. A process inherits no per-parse CPU budget
(it outlives the parse that started it; every read has its own timeout), is replaced after
a timeout or a failure, is never shared with a forked child, and ends with its input when
this process ends. Started from the main thread (as a parse process does), it is also
killed when this process dies (`lifetime.py`), so that a parse killed for its time leaves
no tesseract reading on uncapped; one another thread starts ends only with its input.
Threads reading at once each get a process of their own. A process's standard error goes
to a file of its own, emptied before each batch, whose end a `TesseractStopped` carries:
never a pipe, which a process writing much to it while its answers wait to be read would
fill and block on.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import resource
import select
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import TypeVar

from parsers.lifetime import dies_with_this_process

#: A white image tesseract reads in no time, sent after each batch (written beside its
#: first image, removed after it).
_BLANK = b"P5\n16 16\n255\n" + b"\xff" * 256
#: Images per batch: their names fit in the pipe, so that writing them never waits for
#: tesseract, which may itself be waiting for its answers to be read.
_BATCH = 200
#: Bytes of a stopped process's standard error kept for its error.
_STDERR_TAIL = 2000


class TesseractStopped(RuntimeError):
    """A tesseract process ended while reading: its exit status (negative: the signal that
    killed it, as `subprocess` reports it) and the end of its standard error."""

    def __init__(self, returncode: int, stderr: str) -> None:
        how = (f"killed by {signal.Signals(-returncode).name}" if returncode < 0
               else f"exit {returncode}")
        super().__init__(f"tesseract stopped ({how}) reading images"
                         + (f": {stderr}" if stderr else ""))
        self.returncode, self.stderr = returncode, stderr

    @property
    def killed(self) -> bool:
        """Ended by a signal (the OOM killer, an operator), not by its own failure."""
        return self.returncode < 0

    def __reduce__(self) -> tuple:
        return type(self), (self.returncode, self.stderr)


class TesseractStreams:
    """Tesseract with `options`: as many processes as threads read at once."""

    def __init__(self, options: list[str]) -> None:
        self.options = options
        self._lock = threading.Lock()
        self._idle: list[TesseractStream] = []
        self._all: list[TesseractStream] = []
        _ALL.append(self)

    def read(self, images: list[str], timeout: float, env: dict[str, str]
             ) -> list[list[list[str]]]:
        """Per image file, the TSV rows of its words (level 5); TimeoutExpired after
        `timeout` seconds (at once, nothing sent, if that is none: a process stopped
        mid-read is lost), `TesseractStopped` if tesseract stops."""
        if timeout <= 0:
            raise subprocess.TimeoutExpired(["tesseract", *self.options], timeout)
        with self._lock:
            if not self._idle:
                self._all.append(TesseractStream(self.options))
                self._idle.append(self._all[-1])
            stream = self._idle.pop()
        try:
            return stream.read(images, timeout, env)
        finally:
            with self._lock:
                self._idle.append(stream)

    def close(self) -> None:
        """End every process (each exits at the end of its input) and wait for them."""
        with self._lock:
            for stream in self._all:
                stream.close()


class TesseractStream:
    """One tesseract process with `options`, reading batches of image files."""

    def __init__(self, options: list[str]) -> None:
        self.command = ["tesseract", "-", "stdout", *options, "-c", "stream_filelist=1",
                        "tsv"]
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: int | None = None
        self._owner = 0
        self._env: dict[str, str] = {}
        self._pages = 0
        self._buffer = b""

    def read(self, images: list[str], timeout: float, env: dict[str, str]
             ) -> list[list[list[str]]]:
        """As `TesseractStreams.read`."""
        deadline = time.monotonic() + timeout
        with self._lock:
            out: list[list[list[str]]] = []
            for at in range(0, len(images), _BATCH):
                out += self._batch(images[at:at + _BATCH], deadline, timeout, env)
            return out

    def _batch(self, images: list[str], deadline: float, timeout: float,
               env: dict[str, str]) -> list[list[list[str]]]:
        proc = self._running(env)
        first, end = self._pages + 1, self._pages + len(images) + 1
        self._pages = end
        stdin = _opened(proc.stdin)
        blank = Path(f"{images[0]}.end.pgm")  # beside the batch, gone with it
        blank.write_bytes(_BLANK)
        os.ftruncate(_opened(self._stderr), 0)  # appended to: the process writes on at the start
        try:
            try:
                stdin.write("".join(f"{name}\n" for name in [*images, str(blank)])
                                 .encode())
                stdin.flush()
            except OSError as exc:
                raise self._stopped(proc) from exc
            return self._answers(proc, first, end, deadline, timeout)
        except BaseException:
            self._stop(kill=True)
            raise
        finally:
            blank.unlink(missing_ok=True)

    def close(self) -> None:
        """End the process (it exits at the end of its input) and wait for it."""
        with self._lock:
            self._stop()

    def _running(self, env: dict[str, str]) -> subprocess.Popen[bytes]:
        if self._proc is not None and (self._owner != os.getpid() or self._env != env
                                       or self._proc.poll() is not None):
            self._stop()
        if self._proc is None:
            self._stderr = _appended_file()
            try:
                self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=self._stderr,
                                              env=env, preexec_fn=dies_with_this_process())
            except OSError:  # no tesseract to start: its error file is not kept either
                os.close(self._stderr)
                self._stderr = None
                raise
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            resource.prlimit(self._proc.pid, resource.RLIMIT_CPU, (hard, hard))
            _STARTED[0] += 1
            self._owner, self._env, self._pages, self._buffer = os.getpid(), env, 0, b""
        return self._proc

    def _answers(self, proc: subprocess.Popen[bytes], first: int, end: int,
                 deadline: float, timeout: float) -> list[list[list[str]]]:
        """Rows of pages `first`..`end - 1`, read until page `end` (the blank) begins."""
        out: list[list[list[str]]] = [[] for _ in range(end - first)]
        fd = _opened(proc.stdout).fileno()
        ready = select.poll()  # not select(): a busy process's descriptors may pass 1024
        ready.register(fd, select.POLLIN)
        while True:
            *lines, self._buffer = self._buffer.split(b"\n")
            for line in lines:
                row = line.decode().split("\t")
                if len(row) < 12 or not row[1].isdigit():
                    continue  # the header
                page = int(row[1])
                if row[0] == "1" and page == end:
                    return out
                if row[0] == "5" and first <= page < end:
                    out[page - first].append(row)
            left = deadline - time.monotonic()
            if left <= 0 or not ready.poll(left * 1000):
                raise subprocess.TimeoutExpired(self.command, timeout)
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._stopped(proc)
            self._buffer += chunk

    def _stopped(self, proc: subprocess.Popen[bytes]) -> TesseractStopped:
        """The error of a process that ended, with the end of its standard error."""
        code = proc.wait()
        stderr = _opened(self._stderr)
        size = os.fstat(stderr).st_size
        tail = os.pread(stderr, _STDERR_TAIL, max(0, size - _STDERR_TAIL))
        return TesseractStopped(code, tail.decode(errors="replace").strip())

    def _stop(self, kill: bool = False) -> None:
        """End the process: at the end of its input, or killed (after a timeout or a
        failure). A forked child only lets go of its copy of the pipes."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if self._stderr is not None:
            os.close(self._stderr)
            self._stderr = None
        ours = self._owner == os.getpid()
        if ours and kill:
            proc.kill()
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass  # a broken pipe: the process is gone already
        if ours:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _appended_file() -> int:
    """A nameless temporary file opened for appending (so that emptying it while a process
    writes to it leaves no hole before its next line)."""
    fd, name = tempfile.mkstemp(prefix="stmtflow-tesseract-", suffix=".err")
    os.unlink(name)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return fd


_ALL: list[TesseractStreams] = []
_STARTED = [0]


def started() -> int:
    """How many tesseract processes this process has started to read streams."""
    return _STARTED[0]


@atexit.register
def close_all() -> None:
    """End every tesseract process this process keeps (their CPU time then counts as a
    finished child's)."""
    for streams in _ALL:
        streams.close()


_Stream = TypeVar("_Stream")


def _opened(stream: _Stream | None) -> _Stream:
    """A pipe or file the process was started with (never absent once it runs)."""
    if stream is None:
        raise RuntimeError("the tesseract process was started without its pipes")
    return stream
