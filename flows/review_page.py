"""`stmtflow review serve`: a page per statement that needs review, on loopback.

The page shows the statement's pages as printed (the statement's own account numbers blacked
out), each row outlined where it is printed, beside an editable table of every row; the
page's script recomputes the running balance as the reviewer types and enables Accept only
when opening + Σ amounts = closing and every printed balance agrees (`review_page_html`).
Submitting sends the table back; the server turns what changed into corrections and decides
through `reconcile.decisions`, as the Prefect form and the command line do (the ledger's
check is the one that counts), then resumes the review's paused run, if any, with the same
answer. Rows are found on the pages the way the evidence finds them (`review_evidence`):
the parse output carries no row geometry.
"""

from __future__ import annotations

import getpass
import html
import json
import re
import threading
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from flows.config import Settings
from flows.parser import Parser
from flows.review_evidence import locate_in, page_picture, page_sizes, read_lines
from flows.review_flow import Correction, decisions_for, wake
from flows.review_page_html import INDEX, PAGE
from parsers.codes import ReviewState
from parsers.model import mask_account, mask_digits
from parsers.pdf.lines import Line
from reconcile.corrections import (
    CorrectionError,
    endings_of,
    every_row,
    for_reviewer,
    parse_change,
)
from reconcile.decisions import DecisionError, Decisions, Outcome

#: How the review page appears in the audit trail.
VIA = "review-page"
#: Pixels per point of a page as shown (the browser scales it to the column).
PAGE_SCALE = 1.5
_ROUTE = re.compile(r"^/review/(?P<id>\d+)(?:/page-(?P<page>\d+)\.png)?$")


@dataclass
class _Input:
    """What a review's page is made from, read once per review: the stored input and its
    lines as the import read them."""

    data: bytes
    lines: list[Line]
    sizes: list[tuple[float, float]]
    file_name: str


class ReviewDesk:
    """The pages' data and their decisions, for one installation."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.decisions: Decisions = decisions_for(settings)
        self.parser = Parser.from_settings(settings)
        self.reviewer = settings.operator or getpass.getuser()
        self._inputs: dict[int, _Input] = {}
        self._lock = threading.Lock()

    def _input(self, review_id: int) -> _Input:
        with self._lock:
            if review_id not in self._inputs:
                review = self.decisions.review(review_id)
                job = self.settings.ledger().job(review.decision_id)
                if job is None or job.input_uri is None:
                    raise DecisionError(f"review {review_id} names no job the ledger holds")
                data = self.settings.storage().read(job.input_uri)
                self._inputs[review_id] = _Input(
                    data, read_lines(data, self.parser.reader, self.parser.limits),
                    page_sizes(data), job.file_name)
            return self._inputs[review_id]

    def model(self, review_id: int) -> dict[str, Any]:
        """The review as its page's script reads it."""
        review = self.decisions.review(review_id)
        doc = self.decisions.statement(review)
        shown = self._input(review_id)
        endings = endings_of(doc)
        _, rows = every_row(doc, list(review.problems))
        seen = locate_in(shown.lines, rows)
        accounts = []
        for index, acct in enumerate(doc["accounts"], start=1):
            mine = [r for r in rows if r.account == index]
            accounts.append({
                "account": index, "last4": mask_account(acct["account_last4"]),
                "currency": acct["currency"], "opening_balance": acct["opening_balance"],
                "closing_balance": acct["closing_balance"],
                "rows": [{"row": r.row, "date": r.date, "amount": r.amount,
                          "description": for_reviewer(r.description, endings),
                          "balance": r.printed_balance or "",
                          "notes": [for_reviewer(n, endings) for n in r.notes],
                          **_where(seen.get((r.account, r.row)))} for r in mine]})
        return {"review_id": review.id, "state": review.state.value,
                "decided_by": review.decided_by, "job_id": review.decision_id,
                "file": mask_digits(shown.file_name), "bank": doc.get("bank", ""),
                "problems": [for_reviewer(p, endings) for p in review.problems],
                "reviewer": self.reviewer, "flow_run_id": review.flow_run_id,
                "run_url": _run_url(self.settings, review.flow_run_id),
                "pages": [{"page": n, "width": w, "height": h}
                          for n, (w, h) in enumerate(shown.sizes, start=1)],
                "accounts": accounts}

    def page(self, review_id: int, page: int) -> bytes | None:
        shown = self._input(review_id)
        doc = self.decisions.statement(self.decisions.review(review_id))
        got = page_picture(shown.data, page, shown.lines, endings_of(doc),
                           self.parser.limits, PAGE_SCALE)
        return got[0] if got else None

    def decide(self, review_id: int, answer: dict[str, Any]) -> dict[str, Any]:
        """Decide as the table says (accept, correct what changed, or reject), then resume
        the review's waiting run with the same answer."""
        review = self.decisions.review(review_id)
        doc = self.decisions.statement(review)
        by = str(answer.get("reviewer") or "").strip()
        note = str(answer.get("note") or "").strip()
        if not by:
            return {"applied": False, "message": "say who decides (reviewer)"}
        decision = answer.get("decision")
        changes: list[str] = []
        if decision == "reject":
            out = self.decisions.reject(review_id, by=by, via=VIA, note=note)
        else:
            changes = changed(doc, answer.get("accounts") or [])
            out = (self.decisions.correct(review_id, changes, by=by, via=VIA, note=note or None)
                   if changes else
                   self.decisions.accept(review_id, by=by, via=VIA, note=note or None))
        return {**_outcome(out), "woke": out.applied and self._wake(out, by, note, changes)}

    @staticmethod
    def _wake(out: Outcome, by: str, note: str, changes: list[str]) -> bool:
        if not out.review.flow_run_id:
            return False
        decision = {ReviewState.CORRECTED: "correct", ReviewState.REJECTED: "reject"}.get(
            out.review.state, "accept")
        return wake(out.review, {
            "decision": decision, "note": note, "reviewer": by,
            "corrections": [Correction.of(parse_change(c)).model_dump() for c in changes]})


def changed(doc: dict[str, Any], accounts: list[dict[str, Any]]) -> list[str]:
    """The corrections (written form) that make `doc` what the page's table holds: every
    field whose value differs (amounts compared as amounts), and every row dropped."""
    endings = endings_of(doc)
    out = []
    for edited in accounts:
        n = int(edited["account"])
        if not 1 <= n <= len(doc["accounts"]):
            raise CorrectionError(f"the statement has no account {n}")
        acct = doc["accounts"][n - 1]
        for name in ("opening_balance", "closing_balance"):
            if not _same_amount(acct[name], edited.get(name)):
                out.append(f"account{n}.{name}={edited.get(name) or ''}")
        for row in edited.get("rows") or []:
            r = int(row["row"])
            if not 1 <= r <= len(acct["transactions"]):
                raise CorrectionError(f"account {n} has no row {r}")
            was, where = acct["transactions"][r - 1], f"account{n}.{r}"
            if row.get("drop"):
                out.append(f"drop {where}")
                continue
            if str(row.get("date", "")).strip() != was["date"]:
                out.append(f"{where}.date={row.get('date', '')}")
            text = " ".join(str(row.get("description", "")).split())
            if text != " ".join(for_reviewer(was["description"], endings).split()):
                out.append(f"{where}.description={text}")
            if not _same_amount(was["amount"], row.get("amount")):
                out.append(f"{where}.amount={row.get('amount') or ''}")
            balance = str(row.get("balance") or "").strip()
            if not _same_amount(was["balance"], balance or None):
                out.append(f"{where}.balance={balance or 'none'}")
    return out


def _same_amount(old: str | None, new: Any) -> bool:
    if old is None or new in (None, "", "none"):
        return old is None and new in (None, "", "none")
    try:
        return Decimal(old) == Decimal(str(new).replace(",", "").strip())
    except InvalidOperation:
        return False  # a value that is no amount: the correction says why


def _where(s: Any) -> dict[str, Any]:
    return {"page": s.page, "top": s.top, "bottom": s.bottom} if s else {"page": None}


def _run_url(settings: Settings, flow_run_id: str | None) -> str | None:
    if not flow_run_id:
        return None
    return f"{(settings.ui_url or '').rstrip('/')}/runs/flow-run/{flow_run_id}"


def _outcome(out: Outcome) -> dict[str, Any]:
    return {"applied": out.applied, "message": out.message, "state": out.review.state.value,
            "decided_by": out.review.decided_by, "problems": list(out.problems),
            "changes": [c.to_dict() for c in out.changes]}


# -- the server ---------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: requests carry no news worth a line each."""

    def do_GET(self) -> None:
        desk = self.server.desk
        path = urlsplit(self.path).path
        try:
            if path == "/":
                self._send(INDEX.replace("{{rows}}", _index_rows(desk)).encode(), "text/html")
                return
            m = _ROUTE.match(path)
            if m is None:
                self._send(b"not found", "text/plain", HTTPStatus.NOT_FOUND)
            elif m["page"]:
                png = desk.page(int(m["id"]), int(m["page"]))
                self._send(png or b"", "image/png", HTTPStatus.OK if png else
                           HTTPStatus.NOT_FOUND)
            else:
                model = json.dumps(desk.model(int(m["id"]))).replace("</", "<\\/")
                self._send(PAGE.replace("{{model}}", model).encode(), "text/html")
        except DecisionError as exc:
            self._send(html.escape(str(exc)).encode(), "text/plain", HTTPStatus.NOT_FOUND)

    def do_POST(self) -> None:
        m = _ROUTE.match(urlsplit(self.path).path)
        if m is None or m["page"]:
            self._send(b"not found", "text/plain", HTTPStatus.NOT_FOUND)
            return
        origin = self.headers.get("Origin")
        if (self.headers.get_content_type() != "application/json"
                or (origin and origin != self.server.origin)):
            self._send(b"a decision comes from the review page", "text/plain",
                       HTTPStatus.FORBIDDEN)
            return
        try:
            answer = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            got = self.server.desk.decide(int(m["id"]), answer)
        except (CorrectionError, DecisionError, ValueError, KeyError, TypeError) as exc:
            got = {"applied": False, "message": f"not decided: {exc}"}
        self._send(json.dumps(got).encode(), "application/json")

    def _send(self, body: bytes, kind: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8" if kind.startswith("text")
                         else kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


def _index_rows(desk: ReviewDesk) -> str:
    ledger = desk.settings.ledger()
    rows = []
    for r in desk.decisions.log.all(ReviewState.OPEN):
        job = ledger.job(r.decision_id)
        rows.append(f'<tr><td><a href="/review/{r.id}">review {r.id}</a></td>'
                    f"<td>{html.escape(mask_digits(job.file_name if job else ''))}</td>"
                    f"<td>{html.escape((job and job.bank) or '')}</td>"
                    f"<td>{len(r.problems)}</td></tr>")
    return "".join(rows) or '<tr><td colspan="4">no open reviews</td></tr>'


class ReviewServer(ThreadingHTTPServer):
    """The review pages on 127.0.0.1 only: they show whole descriptions."""

    daemon_threads = True

    def __init__(self, desk: ReviewDesk, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.desk = desk
        self.origin = f"http://127.0.0.1:{self.server_address[1]}"


def serve(settings: Settings, port: int | None = None) -> ReviewServer:
    """The review server (not yet serving: call `serve_forever`), on `port`, else the port of
    `STMTFLOW_REVIEW_URL`; 0 picks a free one."""
    if port is None:
        port = urlsplit(settings.review_url).port or 8377
    return ReviewServer(ReviewDesk(settings), port)
