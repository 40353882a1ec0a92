"""Commands for operators: recover, reconcile, the book, investigations, setup."""

from __future__ import annotations

import argparse
import json
import os
import sys


def cmd_recover(args: argparse.Namespace) -> int:
    """Exit 0 when every batch it resumed ended (or there was none), 1 otherwise."""
    from flows.cli.server import api_ready
    from flows.config import Settings
    from flows.recover import recover

    with api_ready():
        result = recover(Settings.from_env(), args.batch or None)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"reclaimed {len(result['reclaimed'])} job(s), expired {len(result['expired'])}, "
              f"marked {len(result['crashed_flow_runs'])} flow run(s) Crashed, sent "
              f"{result['notified']} notification(s) owed")
        for batch_id, state in result["resumed"].items():
            why = result["unfinished"].get(batch_id)
            print(f"  batch {batch_id}: {state}" + (f": {why}" if why else ""))
    return 1 if result["unfinished"] else 0


def cmd_task_worker(args: argparse.Namespace) -> int:
    """Take files' task runs of every batch run with `STMTFLOW_TASK_RUNNER=task-workers`
    until interrupted; it needs the API those runs report to."""
    from flows.config import Settings
    from flows.task_workers import serve_files

    if not os.environ.get("PREFECT_API_URL"):
        print("stmtflow task-worker: no Prefect API to take files from: start one with "
              "`stmtflow server start` or set PREFECT_API_URL", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    print(f"taking files from {os.environ['PREFECT_API_URL']}, {args.limit or settings.workers}"
          " at a time; stop with Ctrl-C", file=sys.stderr)
    serve_files(settings, args.limit or settings.workers)
    return 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    from flows.cli.server import api_ready
    from flows.reconcile_flow import reconcile
    from reconcile.report import to_markdown

    with api_ready():
        report = reconcile()
    print(json.dumps(report, indent=1, default=str) if args.json else to_markdown(report))
    return 0


def cmd_book_export(args: argparse.Namespace) -> int:
    from flows.book_exports import export_book
    from flows.config import Settings
    from flows.parser import Parser
    from reconcile.book import Book
    from reconcile.exports import BINARY

    if args.format in BINARY and args.output is None:
        raise ValueError(f"--format {args.format} needs --output FILE")
    settings = Settings.from_env()
    data = export_book(Book(settings.engine()), args.format,
                       Parser.from_settings(settings).templates, args.account, args.accounts,
                       args.include_unreviewed)
    if args.output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        args.output.write_bytes(data)
        print(f"wrote {args.format} to {args.output}", file=sys.stderr)
    return 0


def cmd_batch_abandon(args: argparse.Namespace) -> int:
    """An operator's decision to give a batch up: it ends ABANDONED with the note (and who
    decided), its waiting jobs FAILED `abandoned`; the accounting counts them."""
    import getpass

    from flows.config import Settings
    from flows.notify import notify_ended

    settings = Settings.from_env()
    by = args.by or settings.operator or getpass.getuser()
    try:
        ended = settings.ledger().abandon_batch(args.id, f"{args.note} (by {by})")
    except ValueError as exc:
        print(f"stmtflow: {exc}", file=sys.stderr)
        return 1
    for job_id in ended:
        notify_ended(settings, job_id)
    print(f"batch {args.id}: abandoned by {by}; {len(ended)} job(s) ended without running")
    return 0


def cmd_rerun(args: argparse.Namespace) -> int:
    """Rerun a batch's failed files (`--failed`, the default: whatever their cause), every
    file (`--all`: succeeded statements read again under today's identities), or named jobs,
    as a rerun batch; then the book takes the new readings in. Exit 0 when it completed."""
    from flows.cli.server import api_ready
    from flows.config import Settings
    from flows.rerun_flow import rerun_failed
    from reconcile.book import Book, sync

    settings = Settings.from_env()
    ledger = settings.ledger()
    before = set(ledger.rerun_batches(args.batch))
    with api_ready():
        state = rerun_failed(args.batch, current_identities=args.current_identities or args.all,
                             include_deterministic=True, reread_succeeded=args.all,
                             job_ids=args.job or None, return_state=True)
    book = sync(Book(settings.engine(), settings.clock), ledger, settings.storage())
    print(f"batch {args.batch}: {state.name}: {state.message}")
    for rerun_id in sorted(set(ledger.rerun_batches(args.batch)) - before):
        for j in ledger.jobs(rerun_id):
            print(f"  {j.job_id}  {j.status:<9} rerun of {j.rerun_of}  {j.reason or '-'}")
    if book:
        print("  book: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(book.items())))
    return 0 if state.is_completed() else 1


def cmd_investigation_list(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from reconcile.investigations import Investigations

    for i in Investigations(Settings.from_env().engine()).all():
        state = f"closed {i.closed_at}: {i.note}" if i.closed_at else "open"
        print(f"{i.id:>5}  {i.job_id}  owner {i.owner or '-'}  {state}")
    return 0


def cmd_investigation_assign(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from reconcile.investigations import Investigations

    done = Investigations(Settings.from_env().engine()).assign(args.id, args.owner)
    print(f"investigation {args.id}: {'assigned to ' + args.owner if done else 'not open'}")
    return 0 if done else 1


def cmd_investigation_close(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from reconcile.investigations import Investigations

    done = Investigations(Settings.from_env().engine()).close(args.id, args.note)
    print(f"investigation {args.id}: {'closed' if done else 'not open'}")
    return 0 if done else 1


def cmd_setup(args: argparse.Namespace) -> int:
    """Set the server up; exit 1 when a service of it is in error (no schedule would fire)."""
    from prefect.settings import get_current_settings

    from flows.cli.server import problems
    from flows.config import Settings
    from flows.setup import setup

    settings = Settings.from_env()
    result = setup(args.alert_webhook or settings.alert_webhook, fs_options=settings.fs_options,
                   notify_block=args.notify_block)
    url = get_current_settings().api.url  # None: Prefect's ephemeral API, no server to check
    result["server_problems"] = problems(url) if url else []
    print(json.dumps(result, indent=1))
    if not result["alerts"]:
        print("no --alert-webhook nor --notify-block: alerts and batch outcomes are emitted "
              "as events but not turned into notifications", file=sys.stderr)
    for inbox, found in result["inboxes"].items():
        if found == "missing":
            print(f"stmtflow: inbox {inbox} does not exist: its imports will fail",
                  file=sys.stderr)
    for problem in result["server_problems"]:
        print(f"stmtflow: the server has a service in error: {problem}", file=sys.stderr)
    return 1 if result["server_problems"] else 0
