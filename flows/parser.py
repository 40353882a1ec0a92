"""The parser in force: templates, page reader and limits from `Settings`, and what they pin.

Built once at the edge and handed down, so that what a job pins (`identities`) is computed
from the very templates and reader object that parse it, and every list of banks (the CLI,
the deployments, the tests) is the templates' banks. Templates are parsed once per process
(again only when a file changes), and an import's parses run in this process's parse
workers (`parsers.worker.pool`), each under the file's hard limits, which also render and hash the
job's output objects (`parsers.worker.rendered`). The parser itself is imported only where a parse
runs in this process (`Parser.reader`, `Parser.parse`): an import's process, whose parses
run in the workers, does without it.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing
import multiprocessing.forkserver
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from flows.config import Settings
from parsers.errors import EncryptedPdf
from parsers.exports.settings import Exports
from parsers.identity import chain_revision, engine_identity, reader_class
from parsers.layout.template import Template, load_templates, template_dirs
from parsers.limits import Limits
from parsers.validate import POLICY_REVISION
from parsers.worker.pool import ParsePool
from parsers.worker.rendered import Rendered
from parsers.worker.task import WORKER_MODULES, parse_and_render
from reconcile.records import Identities, Job

if TYPE_CHECKING:
    from parsers.api import ParseResult
    from parsers.pdf.page import PageReader

#: parse(data, job) -> the job's output objects, rendered from what its statement says, or a
#: `StatementError`
Parse = Callable[[bytes, Job], Rendered]
#: passwords(bank hint) -> the candidate passwords of a locked statement
Passwords = Callable[[str | None], Sequence[str]]


@dataclass(frozen=True)
class Parser:
    templates: list[Template]
    #: the page reader's name (`parsers.identity.READER_CLASSES`)
    reader_name: str
    limits: Limits
    #: per-account export settings and the CSV templates (`parsers.exports.settings`)
    exports: Exports = field(default_factory=Exports)

    @classmethod
    def from_settings(cls, settings: Settings) -> Parser:
        reader_class(settings.reader)  # an unknown reader is refused here, not at a parse
        return cls(templates_in(template_dirs(settings.template_dirs,
                                              builtin=settings.builtin_templates)),
                   settings.reader, settings.limits,
                   Exports.load(settings.exports_file, settings.template_dirs,
                                builtin=settings.builtin_templates))

    @functools.cached_property
    def reader(self) -> PageReader:
        """The page reader, for a parse or a page read in this process."""
        from parsers.api import page_reader

        return page_reader(self.reader_name)

    @property
    def banks(self) -> list[str]:
        """The banks the templates in force describe."""
        return sorted(t.bank for t in self.templates)

    def parse(self, data: bytes, bank: str | None = None, limits: Limits | None = None,
              passwords: Sequence[str] = ()) -> ParseResult:
        """A PDF or a bank export, read in this process."""
        from parsers.files import parse_file

        return parse_file(data, bank=bank, templates=self.templates, reader=self.reader,
                          limits=limits or self.limits, passwords=passwords,
                          exports=self.exports)

    def in_workers(self, workers: int, passwords: Passwords = lambda bank: ()) -> Parse:
        """A job's `parse` and its output objects, rendered and hashed, in this process's
        parse workers (0: in the calling thread): only the objects cross back.

        A password-protected file is parsed once more with `passwords(bank)`, so that a
        password travels to a parse process only for a file that needs one.
        """
        pool = _pool(self, workers)

        def parse(data: bytes, job: Job) -> Rendered:
            pins = {"input_sha256": job.sha256, "pinned": job.pinned()}
            try:
                return pool.parse(data, job.bank_hint, **pins)
            except EncryptedPdf:
                candidates = passwords(job.bank_hint)
                if not candidates:
                    raise
            return pool.parse(data, job.bank_hint, candidates, **pins)

        return parse

    def identities(self) -> Identities:
        """What a job accepted now pins, and what a worker must run to take it."""
        return Identities(chain_revision(self.templates, self.reader_name,
                                         self.exports.revision), engine_identity(),
                          POLICY_REVISION)


def templates_in(dirs: list[Path]) -> list[Template]:
    """The templates of `dirs`, parsed once per process and again only when a file changes."""
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size)
                  for d in dirs if d.is_dir() for p in sorted(d.glob("*.toml")))
    return list(_templates(tuple(dirs), stamp))


@functools.lru_cache(maxsize=8)
def _templates(dirs: tuple[Path, ...], stamp: tuple[tuple[str, int, int], ...]
               ) -> tuple[Template, ...]:
    """`stamp` (path, mtime, size of every file) only keys the cache."""
    return tuple(load_templates(list(dirs)))


def start_workers(settings: Settings) -> None:
    """Make this process's parse workers for `settings` ready before the first parse asks.

    A worker forks from the fork server, which imports the parser first (about half a second):
    started when a run begins, that happens while the run lists and accepts its files instead
    of in the first attempts. Costs nothing when the pool's fork server already runs.
    """
    _pool(Parser.from_settings(settings), settings.parse_workers)


_pools: dict[tuple[int, str, Limits], ParsePool] = {}
_pools_lock = threading.Lock()


def _pool(parser: Parser, workers: int) -> ParsePool:
    """One pool per process for the parser in force; a changed parser replaces it.

    Its workers run `parse_and_render` with the templates and the reader's name bound, not
    this module's `Parser`: unpickling that would import flows (and with it SQLAlchemy,
    fsspec) into every worker as it starts, a quarter of a second each. A new pool starts
    its fork server at once (it then imports the parser and the rendering on its own, while
    this process goes on)."""
    key = (workers, parser.identities().chain_revision, parser.limits)
    with _pools_lock:
        if key not in _pools:
            _close_pools()
            work = functools.partial(parse_and_render, templates=parser.templates,
                                     reader=parser.reader_name, exports=parser.exports)
            _pools[key] = ParsePool(workers, parser.limits, target=work,
                                    preload=WORKER_MODULES)
            if workers and not multiprocessing.current_process().daemon:
                multiprocessing.forkserver.ensure_running()
        return _pools[key]


@atexit.register
def _close_pools() -> None:
    for pool in _pools.values():
        pool.close()
    _pools.clear()
