"""`review-statement`: ask a person, in Prefect's UI, about a statement that needs review.

One flow run per open review. It publishes the problems with their evidence (each questioned
row as read, its printed and computed balance, OCR's confidence, a picture of the printed
rows cut from the stored input), then pauses for the operator's answer through Prefect's
interactive input: a typed form to accept the statement as printed, correct values, or
reject it with a note. The answer is applied by `reconcile.decisions`, which keeps a
correction only when the statement then reconciles; otherwise the run says why and asks
again, a bounded number of times. The review stays open in the ledger whatever happens to
the run, and `stmtflow review` decides the same reviews from the command line.

The run pauses (`pause_flow_run`) rather than suspends: its process waits, which works the
same on the embedded default, under `stmtflow serve` and on a worker, without persisted
results or re-running the flow from the top on resume.
"""

from __future__ import annotations

import base64
import getpass
from typing import Any, Literal, cast

import pydantic
from prefect import get_client, get_run_logger, pause_flow_run
from prefect.artifacts import create_markdown_artifact
from prefect.client.schemas.objects import StateType
from prefect.exceptions import FlowPauseTimeout, ObjectNotFound
from prefect.input import RunInput
from prefect.runtime import flow_run
from prefect.states import Completed, Failed, State
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.job_files import document_files
from flows.parser import Parser
from flows.plain_flow import flow
from flows.review_evidence import Sighting, locate, picture
from parsers.codes import ReviewState
from parsers.model import mask_account, mask_digits
from reconcile.corrections import (
    AccountEvidence,
    Change,
    RowEvidence,
    endings_of,
    evidence,
    for_reviewer,
    row_ref,
)
from reconcile.decisions import Decisions, Outcome
from reconcile.records import Job, Review

#: The deployment that runs this flow ("<flow name>/<deployment name>").
REVIEW_DEPLOYMENT = "review-statement/review"
#: Pictures per review (the doubtful rows first): enough to decide, small enough to store.
MAX_PICTURES = 6
LIVE = {StateType.SCHEDULED, StateType.PENDING, StateType.RUNNING, StateType.PAUSED}
#: What a correction changes: a row's field, `drop` (the row), or an account's balance.
CorrectionField = Literal["amount", "balance", "date", "description", "drop",
                          "opening_balance", "closing_balance"]


class Correction(pydantic.BaseModel):
    """One change, field by field: what `3.amount=-12.50` says, as the form asks it."""

    row: int = pydantic.Field(0, ge=0, description="The row, numbered as in the evidence "
                                                   "(0 for opening_balance or closing_balance).")
    field: CorrectionField = pydantic.Field(
        description="What to change; drop removes the row (a line read as a row that is not "
                    "one).")
    value: str = pydantic.Field("", description="As printed: -12.50, 2026-01-05, the whole "
                                                "description; none for a balance not printed; "
                                                "empty for drop.")
    account: int = pydantic.Field(1, ge=1, description="The account, from 1 (a statement of "
                                                       "several).")

    def text(self) -> str:
        """The written form (`account1.3.amount=-12.50`), read by `reconcile.corrections`."""
        where = f"account{self.account}" + (f".{self.row}" if self.row else "")
        return f"drop {where}" if self.field == "drop" else f"{where}.{self.field}={self.value}"

    @classmethod
    def of(cls, change: Change) -> Correction:
        return cls(row=change.row or 0, field=cast(CorrectionField, change.field),
                   value=change.value or "", account=change.account)


class ReviewDecision(RunInput):
    """The operator's answer: the form Prefect's UI shows on Resume."""

    decision: Literal["accept", "correct", "reject"] = pydantic.Field(
        description="accept as printed (only when it reconciles as read), correct values, "
                    "or reject with a note")
    corrections: list[Correction] = pydantic.Field(
        default_factory=list, description="For correct: one item per change.")
    note: str = pydantic.Field("", description="Why (required to reject).")
    reviewer: str = pydantic.Field(min_length=1, description="Your name, for the audit trail.")


def form(description: str, answers: dict[str, Any]) -> type[ReviewDecision]:
    """The form with the evidence above it and `answers` (the last one refused, else the
    reviewer) filled in, each field's help and checks kept."""
    fields: dict[str, Any] = {}
    for name, value in answers.items():
        info = ReviewDecision.model_fields[name]
        fields[name] = (info.annotation, pydantic.Field(
            value, description=info.description, min_length=1 if name == "reviewer" else None))
    model = pydantic.create_model("ReviewDecision", __base__=ReviewDecision, **fields)
    model._description = description
    return model


def reviewer(settings: Settings) -> str:
    """Who the form names until someone answers: `STMTFLOW_OPERATOR`, else the OS user the
    run runs as (the CLI's default too)."""
    return settings.operator or getpass.getuser()


def decisions_for(settings: Settings) -> Decisions:
    """The review desk of this installation: corrected versions written like any output."""
    return Decisions(settings.engine(), settings.storage(), render=document_files,
                     clock=settings.clock)


def review_run_name() -> str:
    return f"review-{flow_run.parameters['review_id']}"


@flow(name="review-statement", flow_run_name=review_run_name, log_prints=True)
def review_statement(review_id: int, asks: int = 5, wait_hours: float = 24.0,
                     poll_seconds: int = 10) -> State:
    """Publish the evidence of `review_id`, then ask until a decision applies (`asks` times
    at most, each waiting `wait_hours`); the review stays open when none does."""
    settings = Settings.from_env()
    decisions = decisions_for(settings)
    review = decisions.review(review_id)
    if review.state != ReviewState.OPEN:
        return Completed(message=_already(review))
    if flow_run.id:
        decisions.log.attach_flow_run(review.id, str(flow_run.id))
    job = _job(settings, review)
    summary = publish_evidence(review, decisions.statement(review),
                               settings.storage().read(str(job.input_uri)),
                               Parser.from_settings(settings), job.file_name,
                               review_page(settings, review.id))
    why, answers = "", {"reviewer": reviewer(settings)}
    for ask in range(1, asks + 1):
        try:
            answer = pause_flow_run(wait_for_input=form(why + summary, answers),
                                    timeout=int(wait_hours * 3600), poll_interval=poll_seconds)
        except FlowPauseTimeout:
            return Failed(message=f"review {review.id}: no answer within {wait_hours} h; it "
                                  "stays open for the next review run or `stmtflow review`")
        outcome = apply(decisions, review.id, answer, via=f"flow-run {flow_run.id}")
        if outcome.applied or outcome.review.state != ReviewState.OPEN:
            publish_decision(outcome)
            return Completed(message=f"review {review.id}: {outcome.message}")
        get_run_logger().warning("review %s: not applied: %s", review.id,
                                 mask_digits(outcome.message))
        why = refused(outcome, ask, asks)
        answers = answer.model_dump(include={"decision", "corrections", "note", "reviewer"})
    return Failed(message=f"review {review.id}: no answer could be applied in {asks} asks; it "
                          "stays open")


def apply(decisions: Decisions, review_id: int, answer: ReviewDecision, via: str) -> Outcome:
    if answer.decision == "accept":
        return decisions.accept(review_id, by=answer.reviewer, via=via, note=answer.note or None)
    if answer.decision == "reject":
        return decisions.reject(review_id, by=answer.reviewer, via=via, note=answer.note)
    return decisions.correct(review_id, [c.text() for c in answer.corrections],
                             by=answer.reviewer, via=via, note=answer.note or None)


def _already(review: Review) -> str:
    return f"review {review.id} is already {review.state.value} by {review.decided_by}"


def _job(settings: Settings, review: Review) -> Job:
    job = settings.ledger().job(review.decision_id)
    if job is None or job.input_uri is None:
        raise LookupError(f"review {review.id} names no job the ledger holds")
    return job


def review_page(settings: Settings, review_id: int) -> str:
    """Where `stmtflow review serve` shows the review (`STMTFLOW_REVIEW_URL`)."""
    return f"{settings.review_url.rstrip('/')}/review/{review_id}"


# -- what the operator sees ---------------------------------------------------------------
def publish_evidence(review: Review, doc: dict[str, Any], pdf: bytes, parser: Parser,
                     file_name: str, page: str) -> str:
    """Publish the evidence artifact (sums per account, the rows in question with pictures
    of them as printed, every problem); return the text shown above the form, which links
    to the pictures (the form is too narrow to read them in). The rows are found again with
    the parser in force (its page reader and limits)."""
    accounts, rows = evidence(doc, list(review.problems))
    # a bank export has no page to picture its rows on
    seen = {} if doc.get("source") else locate(pdf, rows, parser.reader, parser.limits)
    text = evidence_markdown(review, doc, accounts, rows, seen, file_name, page)
    endings = endings_of(doc)
    problems = "\n\n**Problems found**\n\n" + "\n".join(f"- {for_reviewer(p, endings)}"
                                                         for p in review.problems)
    shown = sorted((r for r in rows if (r.account, r.row) in seen),
                   key=lambda r: _urgency(r, seen[(r.account, r.row)]))[:MAX_PICTURES]
    pictures = "\n\n**The rows as printed** (outlined), from the stored input\n" if shown else ""
    for r in shown:
        s = seen[(r.account, r.row)]
        image = picture(pdf, s, parser.limits)
        if image is None:
            continue
        png = base64.b64encode(image).decode()
        pictures += (f"\nRow `{row_ref(r.account, r.row)}` (account {r.account} row {r.row}), "
                     f"page {s.page}:\n\n"
                     f"![account {r.account} row {r.row}](data:image/png;base64,{png})\n")
    artifact = create_markdown_artifact(markdown=text + pictures + problems,
                                        key=artifact_key(review),
                                        description=f"Evidence of review {review.id}")
    link = (f"\n\n[Pictures of these rows as printed](/artifacts/artifact/{artifact}) "
            f"(artifact `{artifact_key(review)}`)") if shown else ""
    return text + link + problems


def _urgency(r: RowEvidence, s: Sighting) -> tuple[int, float, int, int]:
    """Rows whose balance is missing or disagrees come first, then the least sure readings."""
    doubtful = r.printed_balance is None or r.printed_balance != r.computed_balance
    return (0 if doubtful else 1, s.confidence or 100.0, r.account, r.row)


def artifact_key(review: Review) -> str:
    """Named after the job, unique on a Prefect server that several ledgers may report to."""
    return f"review-{review.decision_id}".lower()


def evidence_markdown(review: Review, doc: dict[str, Any], accounts: list[AccountEvidence],
                      rows: list[RowEvidence], seen: dict[tuple[int, int], Sighting],
                      file_name: str, page: str) -> str:
    """Lists rather than tables: they wrap inside the narrow resume form. Descriptions are
    shown whole (a correction retypes them), but for the statement's own account numbers."""
    endings = endings_of(doc)
    lines = [f"### Review {review.id}: `{mask_digits(file_name)}`, {doc.get('bank', '?')} "
             f"statement (job `{review.decision_id}`), {len(review.problems)} problem(s)", "",
             f"Every row, beside the page it is printed on: [the review page]({page}) "
             "(`stmtflow review serve`)", ""]
    lines += [f"- **Account {a.account}** ({mask_account(a.last4)}): opening {a.opening} + "
              f"Σ amounts {a.total} = {a.computed_closing}; printed closing "
              f"{a.printed_closing}: " + ("reconciles" if a.reconciles else "**differs**")
              for a in accounts]
    if rows:
        lines += ["", "**Rows in question** (the row as a correction names it: date, "
                      "amount, printed / computed balance, OCR confidence, description as "
                      "read)", ""]
        for r in rows:
            s = seen.get((r.account, r.row))
            conf = f"OCR {s.confidence:.0f}" if s and s.confidence is not None else "no OCR"
            lines.append(f"- **{row_ref(r.account, r.row)}**: {r.date}, {r.amount}, "
                         f"{r.printed_balance or 'none printed'} / {r.computed_balance}, "
                         f"{conf}, {for_reviewer(r.description, endings)}")
    return "\n".join(lines)


def refused(outcome: Outcome, ask: int, asks: int) -> str:
    """What the next form says first: why the last answer was not applied."""
    lines = [f"> **Not applied** (answer {ask} of {asks}): {outcome.message}"]
    lines += [f"> - {p}" for p in outcome.problems]
    return "\n".join(lines) + "\n\n"


def publish_decision(outcome: Outcome) -> None:
    r = outcome.review
    lines = [f"# Review {r.id}: **{r.state.value}**", "",
             f"- by {r.decided_by} at {r.decided_at:%Y-%m-%d %H:%M} UTC",
             f"- note: {r.note or '-'}"]
    if r.version_uri:
        lines.append(f"- corrected version: `{r.version_uri}` (the original is kept)")
    lines += [f"- `{c.target}`: {c.old} → {c.new}" for c in outcome.changes]
    create_markdown_artifact(markdown="\n".join(lines), key=f"{artifact_key(r)}-decision",
                             description=f"Decision on review {r.id}")


# -- starting review runs, and waking one that waits -------------------------------------
def start_review_runs(settings: Settings,
                      reviews: list[Review] | None = None) -> dict[int, str]:
    """One flow run of the `review` deployment per open review (of `reviews`, else every
    one) without a live one.

    Returns {review id: flow run id} of the runs started; nothing where the deployment does
    not exist (the embedded default without `stmtflow serve`: decide with `stmtflow review`).
    """
    return {r: run for r, (run, started) in review_runs(settings, reviews).items() if started}


def review_runs(settings: Settings,
                reviews: list[Review] | None = None) -> dict[int, tuple[str, bool]]:
    """{review id: (its live flow run, whether started now)} for the open reviews of
    `reviews` (else every one): a run started for each one without a live run, where the
    `review` deployment exists (nothing otherwise)."""
    log_ = decisions_for(settings).log
    waiting = [r for r in (log_.all(ReviewState.OPEN) if reviews is None else reviews)
               if r.state == ReviewState.OPEN]
    if not waiting:
        return {}

    async def start() -> dict[int, tuple[str, bool]]:
        async with get_client() as client:
            try:
                deployment = await client.read_deployment_by_name(REVIEW_DEPLOYMENT)
            except ObjectNotFound:
                return {}
            runs = {}
            for r in waiting:
                if r.flow_run_id and await _live(client, r.flow_run_id):
                    runs[r.id] = (r.flow_run_id, False)
                    continue
                run = await client.create_flow_run_from_deployment(
                    deployment.id, parameters={"review_id": r.id})
                runs[r.id] = (str(run.id), True)
            return runs

    runs = run_coro_as_sync(start()) or {}
    for review_id, (run_id, started) in runs.items():
        if started:
            log_.attach_flow_run(review_id, run_id)
    return runs


async def _live(client: Any, flow_run_id: str) -> bool:
    try:
        run = await client.read_flow_run(flow_run_id)
    except ObjectNotFound:
        return False
    return run.state is not None and run.state.type in LIVE


def wake(review: Review, answer: dict[str, Any]) -> bool:
    """After a decision made elsewhere, resume the review's paused run with it (as the form
    would), so the run ends saying who decided. False when no run was waiting."""
    if not review.flow_run_id:
        return False

    async def resume() -> bool:
        async with get_client() as client:
            try:
                run = await client.read_flow_run(review.flow_run_id)
            except ObjectNotFound:
                return False
            if run.state is None or not run.state.is_paused():
                return False
            await client.resume_flow_run(run.id, run_input=answer)
            return True

    return bool(run_coro_as_sync(resume()))
