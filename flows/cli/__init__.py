"""`stmtflow`: import statements, follow and operate the work, from one command line.

Exit codes: 0 when the command did its work (an import whose batch reached a terminal
state, with or without warnings: a file that cannot be parsed is a failed job of a batch
that completed with warnings); 1 when a batch could not be completed, `parse` could not
parse its file, or a check found something wrong; 2 when the pipeline itself cannot run
(bad arguments, unreachable storage or database), with a one-line cause on stderr.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from flows.cli.batch import cmd_import, cmd_parse, cmd_sample, cmd_status
from flows.cli.operate import (
    cmd_batch_abandon,
    cmd_book_export,
    cmd_investigation_assign,
    cmd_investigation_close,
    cmd_investigation_list,
    cmd_reconcile,
    cmd_recover,
    cmd_rerun,
    cmd_setup,
    cmd_task_worker,
)
from flows.cli.review import add_parser as add_review_parser
from flows.cli.server import add_parser as add_server_parser
from flows.cli.server import api_url, start_embedded
from flows.cli.suggest import cmd_templates_suggest
from flows.cli.templates import cmd_templates_check, cmd_templates_list

PREFECT_DEFAULTS = {
    # a first ephemeral start on a fresh home can take longer than Prefect's 20 s default
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    # runs from the command line and from `serve` send heartbeats as deployments' runs do,
    # so the zombie automation covers them too
    "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "60",
}


#: adds more commands to the parser's subcommands (`deployments/cli.py` adds its own)
Commands = Callable[[Any], None]


def main(argv: list[str] | None = None, extra: Sequence[Commands] = ()) -> int:
    args = parser(extra).parse_args(argv)
    for key, value in PREFECT_DEFAULTS.items():
        os.environ.setdefault(key, value)
    if "PREFECT_API_URL" not in os.environ and args.func.__module__ != "flows.cli.server":
        if running := api_url():
            os.environ["PREFECT_API_URL"] = running  # this home's `stmtflow server`: no start-up
        elif getattr(args, "embedded", False):
            if os.environ.get("STMTFLOW_TASK_RUNNER") == "task-workers":
                print("stmtflow: STMTFLOW_TASK_RUNNER=task-workers needs the API the task "
                      "workers take files from: start `stmtflow server start` or set "
                      "PREFECT_API_URL", file=sys.stderr)
                return 2
            start_embedded()  # comes up while the command imports; `api_ready` waits for it
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("stmtflow: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`stmtflow status | head`): nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor at exit's flush
        return 0
    except Exception as exc:  # the one place a cause becomes a one-line message
        print(f"stmtflow: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def run(extra: Sequence[Commands] = ()) -> NoReturn:
    """The command as a process of its own: `main`, then the process ends as soon as every
    exit handler ran (the embedded API's stop, Prefect's last events and logs, the parse
    workers', logging's).

    What the interpreter does after them, taking every module apart object by object, costs
    about half a CPU second once Prefect is imported, and is owed to no one: what the
    command wrote is committed or closed by then. The handler that ends it is registered
    before anything else, so it runs after every other; a command that did not return (an
    argument error, an exception) ends the usual way.
    """
    code: list[int] = []
    atexit.register(_end_now, code)
    code.append(main(extra=extra))
    sys.exit(code[0])


def _end_now(code: list[int]) -> None:
    """The interpreter's own end would flush the output and fail a command whose output
    could not be written (a full disk); `os._exit` does neither, so both are done here."""
    if not code:
        return
    status = code[0]
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # a reader that left: nothing to flush to
            pass
        except OSError as exc:  # what the command printed is lost
            with contextlib.suppress(Exception):
                print(f"stmtflow: error: {type(exc).__name__}: {exc}", file=sys.stderr)
            status = status or 2
        except Exception:  # a stream closed or replaced: nothing of it to flush
            pass
    os._exit(status)


def parser(extra: Sequence[Commands] = ()) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="stmtflow", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(required=True, metavar="COMMAND")

    s = sub.add_parser("sample", help="write generated statements with their ground truth")
    s.add_argument("dir", type=Path)
    s.add_argument("--banks", help="comma-separated bank ids (default: every bank of the "
                   "templates in force; also: cedar, a bank no template knows)")
    s.add_argument("--statements", type=int, default=10)
    s.add_argument("--seed", type=int, default=7)
    s.add_argument("--bad", action="store_true",
                   help="add the bad inputs: zero bytes, not a PDF, truncated, password")
    s.add_argument("--all-bad", action="store_true",
                   help="also the decompression bomb, 5,000 pages and a tiny scan")
    s.add_argument("--varied", action="store_true",
                   help="draw each statement with a seeded mix of the variations real "
                        "statements show, recorded in <stem>.variant.json")
    s.add_argument("--exports", action="store_true",
                   help="also write each statement as its bank's OFX, CAMT.053, MT940 and CSV, "
                        "and DIR/.exports.toml for STMTFLOW_EXPORTS")
    s.set_defaults(func=cmd_sample)

    i = sub.add_parser("import", help="import statements as one batch")
    i.add_argument("source", nargs="+", help="file, folder, glob or fsspec URL")
    i.add_argument("--bank", help="bank id: skip detection (still verified)")
    i.add_argument("--after-import", default="keep", metavar="keep|move:DIR",
                   help="leave accepted files in the inbox (keep, the default) or move "
                        "them to DIR, below the same relative path")
    i.add_argument("--follow-links", action="store_true",
                   help="accept symlinks that lead out of the source folder (refused as "
                        "outside_source otherwise)")
    i.add_argument("--json", action="store_true")
    i.set_defaults(func=cmd_import, embedded=True)

    st = sub.add_parser("status", help="a batch or job (default: the latest batch)")
    st.add_argument("id", nargs="?")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_status)

    pa = sub.add_parser("parse", help="parse one file without orchestration")
    pa.add_argument("file", type=Path)
    pa.add_argument("--bank")
    pa.add_argument("--json", action="store_true",
                    help="the reading as JSON (a refusal's with what was found: `details`)")
    pa.add_argument("--explain", action="store_true",
                    help="say how the statement was read, or for a refused one what was "
                         "found (period, accounts, balances, columns, rows) and what was "
                         "missing")
    pa.set_defaults(func=cmd_parse)

    rc = sub.add_parser("recover", help="after a worker died: reclaim its jobs, resume batches")
    rc.add_argument("--batch", action="append", metavar="ID",
                    help="resume this batch, even one whose run still holds it (repeatable)")
    rc.add_argument("--json", action="store_true")
    rc.set_defaults(func=cmd_recover, embedded=True)

    tw = sub.add_parser("task-worker", help="take the files of batches run with "
                        "STMTFLOW_TASK_RUNNER=task-workers, on a shared API")
    tw.add_argument("--limit", type=int, default=0,
                    help="files at a time (default: STMTFLOW_WORKERS)")
    tw.set_defaults(func=cmd_task_worker)

    r = sub.add_parser("reconcile", help="account for every accepted job (the reconcile flow)")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_reconcile, embedded=True)

    b = sub.add_parser("book", help="the book of imported transactions")
    bsub = b.add_subparsers(required=True, metavar="ACTION")
    be = bsub.add_parser("export", help="write the deduplicated transactions")
    be.add_argument("--account", help="last four digits of one account")
    be.add_argument("--format", default="csv",
                    choices=["csv", "parquet", "beancount", "ledger", "ofx", "qif", "xlsx"])
    be.add_argument("--output", type=Path,
                    help="file to write (default: stdout; parquet and xlsx need a file)")
    be.add_argument("--accounts", type=Path, metavar="FILE",
                    help="TOML mapping bank:last4 to ledger account names")
    be.add_argument("--include-unreviewed", action="store_true",
                    help="also transactions of statements awaiting review, marked as such")
    be.set_defaults(func=cmd_book_export)

    add_review_parser(sub)
    add_server_parser(sub)

    rr = sub.add_parser("rerun", help="run a batch's files again, as new jobs in a rerun "
                        "batch (the book takes the new readings in)")
    rr.add_argument("batch", metavar="BATCH")
    which = rr.add_mutually_exclusive_group()
    which.add_argument("--failed", action="store_true",
                       help="every failed or expired file, whatever its cause (the default)")
    which.add_argument("--all", action="store_true",
                       help="also read succeeded statements again under today's parser chain "
                            "(after a template change); each new reading replaces the old in "
                            "the book")
    which.add_argument("--job", action="append", metavar="ID",
                       help="only this job (repeatable); a succeeded one is read again "
                            "under today's parser chain, where it changed")
    rr.add_argument("--current-identities", action="store_true",
                    help="run with today's parser chain, OCR engine and policy instead of "
                         "the ones each job pinned")
    rr.set_defaults(func=cmd_rerun, embedded=True)

    ba = sub.add_parser("batch", help="an operator's decisions about a batch")
    basub = ba.add_subparsers(required=True, metavar="ACTION")
    ab = basub.add_parser("abandon", help="give a batch up: it ends ABANDONED, its waiting "
                          "jobs FAILED abandoned (counted in the accounting)")
    ab.add_argument("id", metavar="BATCH")
    ab.add_argument("--note", required=True, help="why (kept with the batch)")
    ab.add_argument("--by", help="who decides (default: STMTFLOW_OPERATOR, or the OS user)")
    ab.set_defaults(func=cmd_batch_abandon)

    inv = sub.add_parser("investigation", help="investigations of unresolved jobs")
    isub = inv.add_subparsers(required=True, metavar="ACTION")
    il = isub.add_parser("list", help="every investigation")
    il.set_defaults(func=cmd_investigation_list)
    ia = isub.add_parser("assign", help="take ownership of an open investigation")
    ia.add_argument("id", type=int)
    ia.add_argument("--owner", required=True)
    ia.set_defaults(func=cmd_investigation_assign)
    ic = isub.add_parser("close", help="close an investigation with a note")
    ic.add_argument("id", type=int)
    ic.add_argument("--note", required=True)
    ic.set_defaults(func=cmd_investigation_close)

    se = sub.add_parser("setup", help="work pool, deployments and automations on a server")
    se.add_argument("--alert-webhook", help="URL that alert and batch outcome notifications "
                    "are posted to (default: STMTFLOW_ALERT_WEBHOOK)")
    se.add_argument("--notify-block", metavar="TYPE/NAME",
                    help="a notification block of Prefect's to post them to instead (a "
                         "slack-webhook or email block made in the UI, say)")
    se.set_defaults(func=cmd_setup)

    t = sub.add_parser("templates", help="bank templates")
    tsub = t.add_subparsers(required=True, metavar="ACTION")
    tl = tsub.add_parser("list", help="templates in force")
    tl.set_defaults(func=cmd_templates_list)
    tc = tsub.add_parser("check", help="validate a template against a sample statement")
    tc.add_argument("template", type=Path)
    tc.add_argument("sample", type=Path)
    tc.add_argument("--expected", type=Path, help="a statement written by hand to compare with")
    tc.set_defaults(func=cmd_templates_check)
    ts = tsub.add_parser("suggest", help="a template drawn from the generic reading of a "
                         "sample that validates")
    ts.add_argument("sample", type=Path)
    ts.add_argument("--bank", default="mybank", help="the bank id to write (default mybank)")
    ts.set_defaults(func=cmd_templates_suggest)
    for add in extra:
        add(sub)
    return p
