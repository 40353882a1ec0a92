"""`stmtflow`: sample, import, status, parse and templates, from one command line.

Exit codes: 0 when the command did its work (an import whose batch reached a terminal
state, with or without warnings); 1 when a batch could not be completed or a file could not
be parsed; 2 when the pipeline itself cannot run (bad arguments, unreachable storage or
database), with a one-line cause on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PREFECT_DEFAULTS = {
    # a first ephemeral start on a fresh home can take longer than Prefect's 20 s default
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for key, value in PREFECT_DEFAULTS.items():
        os.environ.setdefault(key, value)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("stmtflow: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the one place a cause becomes a one-line message
        print(f"stmtflow: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="stmtflow", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(required=True, metavar="COMMAND")

    s = sub.add_parser("sample", help="write generated statements with their ground truth")
    s.add_argument("dir", type=Path)
    s.add_argument("--banks", default="northwind,bluebird,harbor,alpenbank,meridian",
                   help="comma-separated bank ids (also: cedar, a bank no template knows)")
    s.add_argument("--statements", type=int, default=10)
    s.add_argument("--seed", type=int, default=7)
    s.add_argument("--bad", action="store_true",
                   help="add the bad inputs: zero bytes, not a PDF, truncated, password")
    s.add_argument("--all-bad", action="store_true",
                   help="also the decompression bomb, 5,000 pages and a tiny scan")
    s.set_defaults(func=cmd_sample)

    i = sub.add_parser("import", help="import statements as one batch")
    i.add_argument("source", nargs="+", help="file, folder, glob or fsspec URL")
    i.add_argument("--bank", help="bank id: skip detection (still verified)")
    i.add_argument("--json", action="store_true")
    i.set_defaults(func=cmd_import)

    st = sub.add_parser("status", help="a batch or job (default: the latest batch)")
    st.add_argument("id", nargs="?")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_status)

    pa = sub.add_parser("parse", help="parse one file without orchestration")
    pa.add_argument("file", type=Path)
    pa.add_argument("--bank")
    pa.add_argument("--json", action="store_true")
    pa.set_defaults(func=cmd_parse)

    rc = sub.add_parser("recover", help="after a worker died: reclaim its jobs, resume batches")
    rc.add_argument("--json", action="store_true")
    rc.set_defaults(func=cmd_recover)

    r = sub.add_parser("reconcile", help="account for every accepted job (the reconcile flow)")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_reconcile)

    b = sub.add_parser("book", help="the book of imported transactions")
    bsub = b.add_subparsers(required=True, metavar="ACTION")
    be = bsub.add_parser("export", help="write the deduplicated transactions")
    be.add_argument("--account", help="last four digits of one account")
    be.add_argument("--format", choices=["csv", "parquet"], default="csv")
    be.add_argument("--output", type=Path, help="file to write (default: stdout for csv)")
    be.set_defaults(func=cmd_book_export)

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
    se.add_argument("--alert-webhook", default=os.environ.get("STMTFLOW_ALERT_WEBHOOK"),
                    help="URL that alert notifications are posted to")
    se.set_defaults(func=cmd_setup)

    sv = sub.add_parser("serve", help="serve every deployment with its schedule, no work pool")
    sv.set_defaults(func=cmd_serve)

    dp = sub.add_parser("deployments", help="deployment settings")
    dsub = dp.add_subparsers(required=True, metavar="ACTION")
    dr = dsub.add_parser("render", help="write prefect.yaml from deployments/banks.toml")
    dr.add_argument("--check", action="store_true", help="only report whether it is current")
    dr.set_defaults(func=cmd_deployments_render)

    t = sub.add_parser("templates", help="bank templates")
    tsub = t.add_subparsers(required=True, metavar="ACTION")
    tl = tsub.add_parser("list", help="templates in force")
    tl.set_defaults(func=cmd_templates_list)
    tc = tsub.add_parser("check", help="validate a template against a sample statement")
    tc.add_argument("template", type=Path)
    tc.add_argument("sample", type=Path)
    tc.set_defaults(func=cmd_templates_check)
    return p


def cmd_sample(args: argparse.Namespace) -> int:
    from parsers.corpus import BAD_INPUTS, BASIC_BAD, generate

    bad = tuple(BAD_INPUTS) if args.all_bad else BASIC_BAD if args.bad else ()
    samples = generate(args.dir, tuple(b.strip() for b in args.banks.split(",") if b.strip()),
                       args.statements, args.seed, bad)
    good = sum(1 for s in samples if s.reason is None)
    print(f"wrote {good} statements and {len(samples) - good} bad inputs to {args.dir}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.import_flow import WARNINGS, import_batch
    from parsers.template import load_templates
    from reconcile.storage import list_sources

    settings = Settings.from_env()
    if args.bank and args.bank not in {t.bank for t in load_templates()}:
        raise ValueError(f"unknown bank {args.bank!r}")
    # fail fast, before any server starts, when there is nothing to import
    if not any(list_sources(s, settings.fs_options(s)) for s in args.source):
        raise FileNotFoundError(f"no PDF files in {' '.join(args.source)}")
    batch_id = f"b-{datetime.now(UTC):%Y%m%d}-{uuid.uuid4().hex[:8]}"
    stop = threading.Event()
    watcher = threading.Thread(target=_progress, args=(settings, batch_id, stop), daemon=True)
    watcher.start()
    started = time.monotonic()
    try:
        state = import_batch(args.source, bank=args.bank, batch_id=batch_id, return_state=True)
    finally:
        stop.set()
        watcher.join()
    rows = settings.ledger().jobs(batch_id)
    if state.is_completed():
        label = "COMPLETED_WITH_WARNINGS" if state.name == WARNINGS else "COMPLETED"
    else:
        label = "FAILED"
    report = {"batch_id": batch_id, "state": label, "seconds": round(time.monotonic() - started, 1),
              "message": state.message, "jobs": [_job_json(r) for r in rows]}
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        _print_batch(report)
    return 0 if state.is_completed() else 1


def _progress(settings: Any, batch_id: str, stop: threading.Event) -> None:
    """Print how far the batch is while it runs, from the ledger (the durable truth)."""
    from reconcile.ledger import TERMINAL

    ledger = settings.ledger()
    last = ""
    while not stop.wait(0.5):
        counts = ledger.counts(batch_id)
        total = sum(counts.values())
        if not total:
            continue
        done = sum(n for s, n in counts.items() if s in TERMINAL)
        line = (f"[{done}/{total}] " + ", ".join(f"{n} {s.lower()}" for s, n in
                                                 sorted(counts.items())))
        if line != last:
            end = "\r" if sys.stderr.isatty() else "\n"
            print(line.ljust(72), end=end, file=sys.stderr, flush=True)
            last = line
    if sys.stderr.isatty() and last:
        print(file=sys.stderr)


def _job_json(r: dict[str, Any]) -> dict[str, Any]:
    return {"job_id": r["job_id"], "source": r["source_uri"], "status": r["status"],
            "attempts": r["attempts"], "reason": r["reason"], "output": r["output_uri"],
            "needs_review": bool(r["needs_review"]), "sha256": r["sha256"]}


def _print_batch(report: dict[str, Any]) -> None:
    from flows.artifacts import job_row

    print(f"batch {report['batch_id']}: {report['state']} ({report.get('seconds', '?')} s)")
    if report.get("message"):
        print(f"  {report['message']}")
    for j in report["jobs"]:
        row = job_row({**j, "source_uri": j["source"], "account_last4": j.get("account_last4")})
        flag = " needs review" if j.get("needs_review") else ""
        print(f"  {j['job_id']}  {j['status']:<9} attempts={j['attempts']}  "
              f"{(j['reason'] or '-'):<20} {row['file']}{flag}")


def cmd_status(args: argparse.Namespace) -> int:
    from flows.config import Settings

    ledger = Settings.from_env().ledger()
    target = args.id or ledger.latest_batch()
    if target is None:
        print("no batches yet: run `stmtflow import SOURCE`")
        return 0
    job = ledger.job(target)
    if job is not None:
        data = {**job, "attempt_log": ledger.attempts(target), "reruns": ledger.reruns_of(target),
                "ui": _ui_link((ledger.batch(job["batch_id"]) or {}).get("flow_run_id"))}
        print(json.dumps(data, indent=1, default=str) if args.json else _format_job(data))
        return 0
    batch = ledger.batch(target)
    if batch is None:
        print(f"stmtflow: no batch or job {target!r}", file=sys.stderr)
        return 1
    rows = ledger.jobs(target)
    report = {**batch, "counts": ledger.counts(target), "ui": _ui_link(batch["flow_run_id"]),
              "reruns": ledger.rerun_batches(target),
              "jobs": [{**_job_json(r), "account_last4": r["account_last4"]} for r in rows]}
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        _print_batch(report)
        if report["rerun_of"] or report["reruns"]:
            print(f"  rerun of {report['rerun_of'] or '-'}; reruns: "
                  f"{', '.join(report['reruns']) or '-'}")
        if report["ui"]:
            print(f"  Prefect UI: {report['ui']}")
    return 0


def _format_job(d: dict[str, Any]) -> str:
    from parsers.model import mask_account

    accounts = ", ".join(mask_account(a) for a in (d.get("account_last4") or "").split(",") if a)
    lines = [f"job {d['job_id']} ({d['status']}, attempts {d['attempts']})",
             f"  source     {d['source_uri']}", f"  input      {d['input_uri']}",
             f"  sha256     {d['sha256']}", f"  submitted  {d['submitted_at']}",
             f"  expires    {d['expires_at']}", f"  chain      {d['chain_revision']}",
             f"  ocr        {d['ocr_engine']}", f"  policy     {d['policy_revision']}",
             f"  accounts   {accounts or '-'}", f"  output     {d['output_uri'] or '-'}",
             f"  reason     {d['reason'] or '-'}",
             f"  rerun of   {d['rerun_of'] or '-'}",
             f"  reruns     {', '.join(d['reruns']) or '-'}"]
    for a in d["attempt_log"]:
        lines.append(f"  attempt {a['number']}: {a['outcome'] or 'running'} "
                     f"{a['reason'] or ''} ({a['started_at']} .. {a['ended_at'] or ''})")
    if d.get("ui"):
        lines.append(f"  Prefect UI: {d['ui']}")
    return "\n".join(lines)


def _ui_link(flow_run_id: str | None) -> str | None:
    ui = os.environ.get("PREFECT_UI_URL")
    if not ui and os.environ.get("PREFECT_API_URL"):
        ui = os.environ["PREFECT_API_URL"].removesuffix("/api")
    return f"{ui.rstrip('/')}/runs/flow-run/{flow_run_id}" if ui and flow_run_id else None


def cmd_parse(args: argparse.Namespace) -> int:
    from parsers.api import parse_pdf
    from parsers.errors import StatementError

    try:
        result = parse_pdf(args.file.read_bytes(), bank=args.bank)
    except StatementError as exc:
        if args.json:
            print(json.dumps({"error": exc.reason, "message": exc.message}))
        else:
            print(f"{args.file}: {exc.reason}: {exc.message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
        return 0
    from parsers.model import mask_account

    v = result.validation
    print(f"{args.file}: {result.statement.bank} (layout {result.layout}), {result.pages} "
          f"page(s), {result.ocr_pages} by OCR: {'validated' if v.ok else 'NEEDS REVIEW'}")
    for a in result.statement.accounts:
        print(f"  {mask_account(a.account_last4)} {a.currency} opening {a.opening_balance} "
              f"closing {a.closing_balance}, {len(a.transactions)} transactions")
    for note in v.problems + v.repairs:
        print(f"  - {note}")
    return 0


def cmd_recover(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.recover import recover

    result = recover(Settings.from_env())
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"reclaimed {len(result['reclaimed'])} job(s), expired {len(result['expired'])}, "
              f"marked {len(result['crashed_flow_runs'])} flow run(s) Crashed")
        for batch_id, state in result["resumed"].items():
            print(f"  batch {batch_id}: {state}")
    return 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    from flows.reconcile_flow import reconcile, to_markdown

    report = reconcile()
    print(json.dumps(report, indent=1, default=str) if args.json else to_markdown(report))
    return 0


def cmd_book_export(args: argparse.Namespace) -> int:
    import pandas as pd

    from flows.config import Settings
    from reconcile.book import Book

    rows = Book(Settings.from_env().ledger().engine).transactions(args.account)
    columns = ["account_last4", "currency", "date", "description", "amount", "balance"]
    frame = pd.DataFrame(rows, columns=[*columns, "decision_id"]).astype("string")
    if args.format == "parquet":
        if args.output is None:
            raise ValueError("--format parquet needs --output FILE")
        frame.to_parquet(args.output, index=False)
    elif args.output is None:
        frame.to_csv(sys.stdout, index=False)
    else:
        frame.to_csv(args.output, index=False)
    if args.output is not None:
        print(f"wrote {len(frame)} transactions to {args.output}", file=sys.stderr)
    return 0


def cmd_investigation_list(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from reconcile.investigations import Investigations

    for i in Investigations(Settings.from_env().ledger().engine).all():
        state = f"closed {i['closed_at']}: {i['note']}" if i["closed_at"] else "open"
        print(f"{i['id']:>5}  {i['job_id']}  owner {i['owner'] or '-'}  {state}")
    return 0


def cmd_investigation_assign(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from reconcile.investigations import Investigations

    done = Investigations(Settings.from_env().ledger().engine).assign(args.id, args.owner)
    print(f"investigation {args.id}: {'assigned to ' + args.owner if done else 'not open'}")
    return 0 if done else 1


def cmd_investigation_close(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from reconcile.investigations import Investigations

    done = Investigations(Settings.from_env().ledger().engine).close(args.id, args.note)
    print(f"investigation {args.id}: {'closed' if done else 'not open'}")
    return 0 if done else 1


def cmd_setup(args: argparse.Namespace) -> int:
    from flows.setup import setup

    result = setup(args.alert_webhook)
    print(json.dumps(result, indent=1))
    if not result["alerts"]:
        print("no --alert-webhook: alert events are emitted but not turned into notifications",
              file=sys.stderr)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from deployments.serve import serve

    serve()
    return 0


def cmd_deployments_render(args: argparse.Namespace) -> int:
    from deployments.settings import PREFECT_YAML, render_prefect_yaml

    text = render_prefect_yaml()
    current = PREFECT_YAML.read_text() if PREFECT_YAML.exists() else ""
    if args.check:
        print("prefect.yaml is current" if text == current else "prefect.yaml is out of date")
        return 0 if text == current else 1
    PREFECT_YAML.write_text(text)
    print(f"wrote {PREFECT_YAML}")
    return 0


def cmd_templates_list(args: argparse.Namespace) -> int:
    from parsers.template import load_templates

    for t in sorted(load_templates(), key=lambda t: t.bank):
        print(f"{t.bank:<12} {t.name:<28} {t.source}")
    return 0


def cmd_templates_check(args: argparse.Namespace) -> int:
    """Load a template on its own and run it over a sample: what matched, what it read."""
    from parsers.api import parse_pdf
    from parsers.detect import score
    from parsers.errors import StatementError
    from parsers.limits import Limits
    from parsers.lines import page_lines
    from parsers.ocr import ocr_page
    from parsers.reader import PdfplumberReader
    from parsers.template import load_template

    t = load_template(args.template)
    data = args.sample.read_bytes()
    pages = PdfplumberReader(ocr_page).read(data, Limits.from_env())
    text = "\n".join(ln.text for p in pages[:2] for ln in page_lines(p))
    print(f"template {t.bank} ({t.source}): markers {score(t, text)}/{len(t.markers)} found, "
          f"{t.min_score} needed")
    try:
        result = parse_pdf(data, bank=t.bank, templates=[t])
    except StatementError as exc:
        print(f"  {exc.reason}: {exc.message}")
        return 1
    print(json.dumps(result.to_dict(), indent=1))
    return 0 if result.validation.ok and result.layout == t.bank else 1


if __name__ == "__main__":
    sys.exit(main())
