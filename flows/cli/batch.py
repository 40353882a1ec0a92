"""Commands about batches and files: sample, import, status, parse."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from parsers.codes import BatchState
from reconcile.records import Job

if TYPE_CHECKING:
    from flows.config import Settings

log = logging.getLogger("stmtflow")


def cmd_sample(args: argparse.Namespace) -> int:
    from corpus import BAD_INPUTS, BASIC_BAD, drawable, generate
    from flows.config import Settings
    from flows.parser import Parser

    bad = tuple(BAD_INPUTS) if args.all_bad else BASIC_BAD if args.bad else ()
    if args.banks:
        banks = tuple(b.strip() for b in args.banks.split(",") if b.strip())
    else:  # every bank of the templates in force that the generator can draw
        banks = drawable(Parser.from_settings(Settings.from_env()).banks)
    samples = generate(args.dir, banks, args.statements, args.seed, bad, varied=args.varied,
                       exports=args.exports)
    good = sum(1 for s in samples if s.reason is None)
    kind = "varied statements" if args.varied else "statements"
    also = " (each also as OFX, CAMT.053, MT940 and CSV)" if args.exports else ""
    print(f"wrote {good} {kind}{also} and {len(samples) - good} bad inputs to {args.dir}")
    if args.exports:
        print(f"each export names its bank; {args.dir / '.exports.toml'} (STMTFLOW_EXPORTS) "
              "names each account's bank as well")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from flows.config import secrets_read_once

    with secrets_read_once():
        return _import(args)


def _import(args: argparse.Namespace) -> int:
    from flows.cli.server import api_ready
    from flows.config import Settings
    from flows.import_flow import WARNINGS, import_batch
    from reconcile.acceptance import check_after_import
    from reconcile.storage import list_sources

    settings = Settings.from_env()
    _check_bank(settings, args.bank)
    check_after_import(args.after_import)
    _check_storage(settings)
    # fail fast, before any flow runs, when there is nothing to import
    if not any(list_sources(s, settings.fs_options(s)) for s in args.source):
        raise FileNotFoundError(f"no PDF files in {' '.join(args.source)}")
    _start_parse_workers(settings)
    batch_id = f"b-{datetime.now(UTC):%Y%m%d}-{uuid.uuid4().hex[:8]}"
    stop = threading.Event()
    watcher = threading.Thread(target=_progress, args=(settings, batch_id, stop), daemon=True)
    watcher.start()
    started = time.monotonic()
    try:
        with api_ready():
            state = import_batch(args.source, bank=args.bank, batch_id=batch_id,
                                 follow_links=args.follow_links,
                                 after_import=args.after_import, return_state=True)
    finally:
        stop.set()
        watcher.join()
    if state.is_completed():
        label = BatchState.COMPLETED_WITH_WARNINGS if state.name == WARNINGS \
            else BatchState.COMPLETED
    else:
        label = BatchState.FAILED
    report = {"batch_id": batch_id, "state": label, "seconds": round(time.monotonic() - started, 1),
              "message": state.message,
              "jobs": (_job_json(r) for r in settings.ledger().each_job(batch_id))}
    if args.json:
        _print_json(report)
    else:
        _print_batch(report)
    return 0 if state.is_completed() else 1


def _check_bank(settings: Settings, bank: str | None) -> None:
    """A bank named on the command line must be one of the templates in force."""
    from flows.parser import Parser

    if bank is not None and bank not in (banks := Parser.from_settings(settings).banks):
        raise ValueError(f"unknown bank {bank!r}; known banks: {', '.join(banks)}")


def _check_storage(settings: Settings) -> None:
    """Storage that cannot be reached stops the import before anything is accepted."""
    try:
        settings.storage().probe()
    except Exception as exc:
        cause = " ".join(str(exc).split())[:200]
        raise ConnectionError(f"storage {settings.storage_url} cannot be reached: "
                              f"{type(exc).__name__}: {cause}") from None


def _start_parse_workers(settings: Settings) -> None:
    """Start the parse workers' fork server (a new interpreter that imports the parser) now:
    it comes up while the Prefect API starts and the files are accepted, instead of in front
    of the first files' parses. Not for a Dask runner, whose workers parse in their own
    processes."""
    from flows.parser import start_workers

    if settings.task_runner != "threads" or settings.parse_workers == 0:
        return
    start_workers(settings)


def _progress(settings: Settings, batch_id: str, stop: threading.Event) -> None:
    """Print how far the batch is while it runs, from the ledger (the durable truth).

    A ledger that cannot be read for a while (an outage, a schema still being made) is
    logged once and asked again: the import's own handling of it is the import's, and this
    thread never ends with a traceback of its own."""
    last, failing = "", False
    while not stop.wait(0.5):
        try:
            counts = settings.ledger().counts(batch_id)
        except Exception as exc:
            if not failing:
                log.warning("progress: the ledger cannot be read now (%s); trying again",
                            type(exc).__name__)
            failing = True
            continue
        failing = False
        total = sum(counts.values())
        if not total:
            continue
        done = sum(n for s, n in counts.items() if s.terminal)
        line = (f"[{done}/{total}] " + ", ".join(f"{n} {s.lower()}" for s, n in
                                                 sorted(counts.items())))
        if line != last:
            end = "\r" if sys.stderr.isatty() else "\n"
            print(line.ljust(72), end=end, file=sys.stderr, flush=True)
            last = line
    if sys.stderr.isatty() and last:
        print(file=sys.stderr)


def _job_json(r: Job) -> dict[str, Any]:
    """A job as `import --json` and `status --json` show it: its source's digits masked (the
    ledger keeps the source as it was, by which a resume finds each file's job again)."""
    from parsers.model import mask_digits

    return {"job_id": r.job_id, "source": mask_digits(r.source_uri), "status": r.status,
            "attempts": r.attempts, "reason": r.reason, "output": r.output_uri,
            "needs_review": r.needs_review, "sha256": r.sha256,
            "duplicate_of": r.duplicate_of}


def _print_batch(report: dict[str, Any]) -> None:
    from parsers.model import mask_digits

    seconds = report.get("seconds")
    took = "still running" if seconds is None else f"{seconds} s"
    print(f"batch {report['batch_id']}: {report['state']} ({took})")
    if report.get("message"):
        print(f"  {report['message']}")
    for j in report["jobs"]:
        flag = " needs review" if j.get("needs_review") else ""
        why = j["reason"] or (f"of {j['duplicate_of']}" if j.get("duplicate_of") else "-")
        print(f"  {j['job_id']}  {j['status']:<9} attempts={j['attempts']}  "
              f"{why:<20} {mask_digits(j['source'].rsplit('/', 1)[-1])}{flag}")


def cmd_status(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from parsers.model import mask_digits
    from reconcile.book import Book

    settings = Settings.from_env()
    ledger = settings.ledger()
    target = args.id or ledger.latest_batch()
    if target is None:
        print("no batches yet: run `stmtflow import SOURCE`")
        return 0
    job = ledger.job(target)
    if job is not None:
        batch = ledger.batch(job.batch_id)
        # the file's name, masked: never the path it came from, nor a full account number
        data = {**job.to_dict(), "source_uri": mask_digits(job.file_name),
                "attempt_log": [a.to_dict() for a in ledger.attempts(target)],
                "reruns": ledger.reruns_of(target),
                "book": Book(ledger.engine).standing(job.job_id),
                "ui": _ui_link(settings, batch.flow_run_id if batch else None)}
        print(json.dumps(data, indent=1, default=str) if args.json else _format_job(data))
        return 0
    batch = ledger.batch(target)
    if batch is None:
        print(f"stmtflow: no batch or job {target!r}", file=sys.stderr)
        return 1
    report = {**batch.to_dict(), "source": mask_digits(batch.source),
              "counts": ledger.counts(target),
              "seconds": _duration(batch.created_at, ledger.each_job(target)),
              "ui": _ui_link(settings, batch.flow_run_id), "reruns": ledger.rerun_batches(target),
              "jobs": ({**_job_json(r), "account_last4": r.account_last4}
                       for r in ledger.each_job(target))}
    if args.json:
        _print_json(report)
    else:
        _print_batch(report)
        if report["rerun_of"] or report["reruns"]:
            print(f"  rerun of {report['rerun_of'] or '-'}; reruns: "
                  f"{', '.join(report['reruns']) or '-'}")
        if report["ui"]:
            print(f"  Prefect UI: {report['ui']}")
    return 0


def _duration(started: datetime, rows: Iterable[Job]) -> float | None:
    """Seconds from the batch's creation to its last job's end; None while any is open."""
    last: datetime | None = None
    for r in rows:
        if r.finished_at is None:
            return None
        last = r.finished_at if last is None else max(last, r.finished_at)
    return None if last is None else round((last - started).total_seconds(), 1)


def _print_json(report: dict[str, Any]) -> None:
    """`print(json.dumps(report, indent=1))`, the same text, with its "jobs" (an iterable,
    last) written one at a time: a batch of 10,000 files is never 10,000 dicts at once and
    one string of 4 MB."""
    head = json.dumps({k: v for k, v in report.items() if k != "jobs"}, indent=1, default=str)
    sys.stdout.write(head[:-2] + ',\n "jobs": [' if len(head) > 2 else '{\n "jobs": [')
    sep = ""
    for job in report["jobs"]:
        body = json.dumps(job, indent=1, default=str).replace("\n", "\n  ")
        sys.stdout.write(f"{sep}\n  {body}")
        sep = ","
    sys.stdout.write("\n ]\n}\n" if sep else "]\n}\n")


def _format_job(d: dict[str, Any]) -> str:
    from parsers.model import mask_accounts

    accounts = mask_accounts(d.get("account_last4"))
    lines = [f"job {d['job_id']} ({d['status']}, attempts {d['attempts']})",
             f"  source     {d['source_uri']}", f"  input      {d['input_uri']}",
             f"  sha256     {d['sha256']}", f"  submitted  {d['submitted_at']}",
             f"  expires    {d['expires_at']}", f"  chain      {d['chain_revision']}",
             f"  ocr        {d['ocr_engine']}", f"  policy     {d['policy_revision']}",
             f"  accounts   {accounts or '-'}", f"  output     {d['output_uri'] or '-'}",
             f"  reason     {d['reason'] or '-'}",
             f"  duplicate  {d['duplicate_of'] or '-'}",
             f"  rerun of   {d['rerun_of'] or '-'}",
             f"  reruns     {', '.join(d['reruns']) or '-'}",
             f"  book       {d['book'] or 'not taken in yet'}"]
    for a in d["attempt_log"]:
        lines.append(f"  attempt {a['number']}: {a['outcome'] or 'running'} "
                     f"{a['reason'] or ''} ({a['started_at']} .. {a['ended_at'] or ''})")
    if d.get("ui"):
        lines.append(f"  Prefect UI: {d['ui']}")
    return "\n".join(lines)


def _ui_link(settings: Settings, flow_run_id: str | None) -> str | None:
    """The flow run in the Prefect UI, when the settings name a UI (or an API)."""
    ui = settings.ui_url
    return f"{ui.rstrip('/')}/runs/flow-run/{flow_run_id}" if ui and flow_run_id else None


def cmd_parse(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.parser import Parser
    from parsers.errors import StatementError
    from parsers.generic.explain import Explanation, reading_lines
    from parsers.model import mask_digits

    settings = Settings.from_env()
    _check_bank(settings, args.bank)
    shown = mask_digits(str(args.file))
    try:
        result = Parser.from_settings(settings).parse(
            args.file.read_bytes(), bank=args.bank, passwords=settings.passwords_for(args.bank))
    except StatementError as exc:
        if args.json:
            print(json.dumps({"error": exc.reason, "message": exc.message,
                              "details": exc.details}))
            return 1
        print(f"{shown}: {exc.reason}: {exc.message}", file=sys.stderr)
        if args.explain:
            found = Explanation.from_dict(exc.details).lines() if exc.details else [
                "nothing was read: the file was refused before any table was looked for"]
            for line in found:
                print(f"  {line}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
        return 0
    from parsers.model import mask_account

    v = result.validation
    source = result.statement.source
    how = (f"({source['format']} export, read by {source['reader']})" if source else
           f"(layout {result.layout}), {result.pages} page(s), {result.ocr_pages} by OCR")
    print(f"{shown}: {result.statement.bank} {how}: "
          f"{'validated' if v.ok else 'NEEDS REVIEW'}")
    for a in result.statement.accounts:
        print(f"  {mask_account(a.account_last4)} {a.currency} opening {a.opening_balance} "
              f"closing {a.closing_balance}, {len(a.transactions)} transactions")
    for note in v.problems + v.repairs + v.trusted:
        print(f"  - {note}")
    if args.explain:
        for line in reading_lines(result.reading()):
            print(f"  {line}")
    return 0
