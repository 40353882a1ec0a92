"""`stmtflow review`: list, show and decide the statements that need review.

The same decisions as the review flow's form in Prefect's UI, applied by the same code
(`reconcile.decisions`): a correction is kept only when the statement then reconciles.
Every decision records who made it (`--by`, else `STMTFLOW_OPERATOR`, else the OS user).
When the review has a flow run waiting for an answer, that run is resumed with the decision
so that it ends saying who decided.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from dataclasses import asdict
from typing import Any

#: How the command line appears in the audit trail.
VIA = "cli"


def add_parser(sub: Any) -> None:
    r = sub.add_parser("review", help="statements that need review: list, show, decide")
    rsub = r.add_subparsers(required=True, metavar="ACTION")
    ls = rsub.add_parser("list", help="open reviews (with --all, decided ones too)")
    ls.add_argument("--all", action="store_true")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_review_list)
    sh = rsub.add_parser("show", help="a review's problems, evidence, file and history")
    sh.add_argument("id", help="review number or job id")
    sh.add_argument("--json", action="store_true")
    sh.set_defaults(func=cmd_review_show)
    ac = rsub.add_parser("accept", help="accept as printed (only when it reconciles as read)")
    ac.add_argument("id", help="review number or job id")
    ac.add_argument("--note")
    co = rsub.add_parser("correct", help="correct values; kept only when it then reconciles")
    co.add_argument("id", help="review number or job id")
    co.add_argument("--set", action="append", default=[], metavar="TARGET=VALUE",
                    help="ROW.FIELD=VALUE (row of the first account), accountN.ROW.FIELD=VALUE "
                         "or accountN.opening_balance|closing_balance=VALUE; fields: date, "
                         "description, amount, balance (repeatable)")
    co.add_argument("--drop", action="append", default=[], metavar="ROW",
                    help="remove a row that is not a transaction: ROW or accountN.ROW "
                         "(repeatable)")
    co.add_argument("--note")
    rj = rsub.add_parser("reject", help="keep the statement out of the book, saying why")
    rj.add_argument("id", help="review number or job id")
    rj.add_argument("--note", required=True)
    sv = rsub.add_parser("serve", help="the review pages on 127.0.0.1: each statement's "
                         "pages beside its rows, the balance recomputed as you type")
    sv.add_argument("--port", type=int, help="default: the port of $STMTFLOW_REVIEW_URL "
                                             "(8377)")
    sv.set_defaults(func=cmd_review_serve)
    for p, action in ((ac, "accept"), (co, "correct"), (rj, "reject")):
        p.add_argument("--by", help="who decides (default: $STMTFLOW_OPERATOR or the OS user)")
        p.add_argument("--json", action="store_true")
        p.set_defaults(func=cmd_review_decide, action=action)


def cmd_review_list(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from parsers.codes import ReviewState
    from parsers.model import mask_accounts, mask_digits
    from reconcile.book import Book, sync
    from reconcile.review import ReviewLog

    settings = Settings.from_env()
    ledger = settings.ledger()
    sync(Book(ledger.engine, settings.clock), ledger, settings.storage())  # new successes
    at = settings.clock()
    rows = []
    for r in ReviewLog(ledger.engine).all(None if args.all else ReviewState.OPEN):
        job = ledger.job(r.decision_id)
        rows.append({**r.to_dict(), "problems": len(r.problems),
                     "age_hours": round(r.age(at).total_seconds() / 3600, 2),
                     "bank": job and job.bank,
                     "accounts": mask_accounts(job and job.account_last4),
                     "file": mask_digits(job.file_name if job else "")})
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
        return 0
    if not rows:
        print("no open reviews" if not args.all else "no reviews")
        return 0
    for x in rows:
        print(f"{x['review_id']:>5}  {x['state']:<9} {x['age_hours']:>7.1f} h  {x['job_id']}  "
              f"{x['bank'] or '-':<10} {x['accounts'] or '-':<10} {x['problems']:>3} "
              f"problem(s)  {x['file']}")
    return 0


def cmd_review_show(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.review_flow import decisions_for
    from parsers.model import mask_digits
    from reconcile.corrections import endings_of, evidence, for_reviewer

    settings = Settings.from_env()
    desk = decisions_for(settings)
    review = desk.review(args.id)
    doc = desk.statement(review)
    accounts, rows = evidence(doc, list(review.problems))
    endings = endings_of(doc)
    job = settings.ledger().job(review.decision_id)
    data = {**review.to_dict(), "source": job and mask_digits(job.source_uri),
            "endings": sorted(endings),
            "input": job and job.input_uri,
            "accounts": [{**asdict(a), "reconciles": a.reconciles} for a in accounts],
            "rows": [{**asdict(r), "description": for_reviewer(r.description, endings)}
                     for r in rows],
            "history": [e.to_dict() for e in desk.log.events(review.id)]}
    print(json.dumps(data, indent=1, default=str) if args.json else _format(data))
    return 0


def _format(d: dict[str, Any]) -> str:
    from parsers.codes import ReviewState
    from parsers.model import mask_account
    from reconcile.corrections import for_reviewer

    def shown(text: str) -> str:  # whole, but for the statement's own account numbers
        return for_reviewer(text, set(d["endings"]))

    lines = [f"review {d['review_id']} ({d['state']}): job {d['job_id']}",
             f"  file     {d['source']}", f"  input    {d['input']}",
             f"  output   {d['output_uri']}"]
    if d["version_uri"]:
        lines.append(f"  version  {d['version_uri']} (corrected)")
    lines += ["  problems:"] + [f"    - {shown(p)}" for p in d["problems"]]
    lines.append("  accounts:")
    for a in d["accounts"]:
        lines.append(f"    {a['account']} {mask_account(a['last4'])}: opening {a['opening']} + "
                     f"{a['total']} = {a['computed_closing']}, printed closing "
                     f"{a['printed_closing']} ({'reconciles' if a['reconciles'] else 'DIFFERS'})")
    if d["rows"]:
        lines.append("  rows (account.row date amount printed-balance computed-balance "
                     "description):")
        for r in d["rows"]:
            lines.append(f"    {r['account']}.{r['row']:<3} {r['date']} {r['amount']:>12} "
                         f"{r['printed_balance'] or '-':>12} {r['computed_balance']:>12}  "
                         f"{shown(r['description'])}")
            lines += [f"           {shown(n)}" for n in r["notes"]]
    lines.append("  history:")
    for e in d["history"]:
        changes = "; ".join(f"{c['target']} {c['old']} -> {c['new']}" for c in e["changes"])
        note = (e["note"] or "").splitlines()[0] if e["note"] else ""
        lines.append(f"    {e['at'][:19]} {e['action']} by {e['actor']} ({e['via']})"
                     f"{': ' + changes if changes else ''}{' - ' + note if note else ''}")
    if d["state"] == ReviewState.OPEN:
        lines.append(f"  decide: stmtflow review accept {d['review_id']} | correct "
                     f"{d['review_id']} --set ROW.FIELD=VALUE | reject {d['review_id']} "
                     "--note TEXT")
    return "\n".join(lines)


def cmd_review_decide(args: argparse.Namespace) -> int:
    from flows.config import Settings
    from flows.review_flow import Correction, decisions_for, wake
    from reconcile.corrections import parse_change

    settings = Settings.from_env()
    desk = decisions_for(settings)
    by = args.by or settings.operator or getpass.getuser()
    changes = [*args.set, *(f"drop {row}" for row in args.drop)] if args.action == "correct" \
        else []
    if args.action == "accept":
        out = desk.accept(args.id, by=by, via=VIA, note=args.note)
    elif args.action == "correct":
        if not changes:
            raise ValueError("review correct needs at least one --set or --drop")
        out = desk.correct(args.id, changes, by=by, via=VIA, note=args.note)
    else:
        out = desk.reject(args.id, by=by, via=VIA, note=args.note)
    if args.json:
        print(json.dumps(out.to_dict(), indent=1, default=str))
    else:
        print(f"review {out.review.id}: {out.message}")
        for p in out.problems:
            print(f"  - {p}")
        for c in out.changes:
            print(f"  {c.target}: {c.old} -> {c.new}")
    if out.applied and out.review.flow_run_id:
        answer = {"decision": args.action, "note": args.note or "", "reviewer": by,
                  "corrections": [Correction.of(parse_change(c)).model_dump() for c in changes]}
        try:
            if wake(out.review, answer):
                print(f"  ended its waiting review run {out.review.flow_run_id}",
                      file=sys.stderr)
        except Exception as exc:  # the decision stands; the run ends at its own timeout
            print(f"  could not reach Prefect to end review run {out.review.flow_run_id}: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr)
    return 0 if out.applied else 1


def cmd_review_serve(args: argparse.Namespace) -> int:
    """Serve until interrupted; a decision made on a page resumes the review's waiting run."""
    from flows.config import Settings
    from flows.review_page import serve

    server = serve(Settings.from_env(), args.port)
    print(f"review pages at {server.origin}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
