"""A batch's statements that need review, taken up as the batch ends, not at a reconcile.

The book takes the batch's succeeded statements in at once (the same `sync` a reconciliation
runs, over this batch's jobs only), which opens a review for each one that did not validate;
each open review then gets a paused `review-statement` run (or keeps the live one it has),
where the `review` deployment exists. The batch's artifact `batch-<id>-reviews` links every
one: its run in Prefect's UI and its page under `stmtflow review serve`. All of it is best
effort: the batch's outcome is the ledger's, and a reconciliation takes up what this missed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from prefect.artifacts import create_markdown_artifact

from flows.config import Settings
from parsers.codes import ReviewState, Status
from parsers.model import mask_digits
from reconcile.book import Book, sync
from reconcile.records import Job, Review
from reconcile.review import ReviewLog

log = logging.getLogger("stmtflow")


@dataclass(frozen=True)
class ReviewLink:
    """A statement of the batch that needs review: its review, run and page."""

    review_id: int
    job_id: str
    page: str
    #: the flow run that asks about it, None without the `review` deployment
    flow_run_id: str | None
    started: bool

    def run_link(self, ui_url: str | None) -> str:
        """The run in Prefect's UI (relative where the UI's address is unknown)."""
        return f"{(ui_url or '').rstrip('/')}/runs/flow-run/{self.flow_run_id}"


def take_up_reviews(settings: Settings, batch_id: str,
                    rows: Iterable[Job]) -> dict[str, ReviewLink]:
    """{job id: its review} for the batch's statements that need review, each with its run
    started (or linked); published as the artifact `batch-<id>-reviews`. Empty when none
    needs review, or when the book or Prefect could not be reached (said in the log)."""
    try:
        return _take_up(settings, batch_id, rows)
    except Exception as exc:  # the reconciliation opens and starts what this could not
        log.warning("batch %s: reviews not taken up at its end (%s: %s); the next "
                    "reconciliation does", batch_id, type(exc).__name__, mask_digits(str(exc)))
        return {}


def _take_up(settings: Settings, batch_id: str, rows: Iterable[Job]) -> dict[str, ReviewLink]:
    ledger = settings.ledger()
    held: dict[str, tuple[Job, Job]] = {}  # {its outcome's job id: (job, outcome)}
    for r in rows:
        outcome = ledger.outcome_of(r)  # a duplicate ends as its holder
        if outcome.status == Status.SUCCEEDED and outcome.needs_review:
            held[outcome.job_id] = (r, outcome)
    if not held:
        return {}
    # only a batch with statements to review loads the review flow (and its page reader)
    from flows.review_flow import review_page, review_runs

    sync(Book(ledger.engine, settings.clock), ledger, settings.storage(),
         jobs=[outcome for _, outcome in held.values()])
    mine = [r for r in ReviewLog(ledger.engine).all(ReviewState.OPEN) if r.decision_id in held]
    if not mine:
        return {}
    runs = review_runs(settings, mine)
    links = {held[r.decision_id][0].job_id: ReviewLink(
        r.id, r.decision_id, review_page(settings, r.id), *runs.get(r.id, (None, False)))
        for r in mine}
    publish_review_links(settings, batch_id, mine, links, [r for r, _ in held.values()])
    return links


def publish_review_links(settings: Settings, batch_id: str, reviews: list[Review],
                         links: dict[str, ReviewLink], rows: list[Job]) -> None:
    by_job = {r.job_id: r for r in rows}
    lines = [f"# Batch {batch_id}: {len(reviews)} statement(s) need review", "",
             "| review | file | bank | problems | Prefect | review page |",
             "|---|---|---|---|---|---|"]
    for job_id, link in sorted(links.items(), key=lambda x: x[1].review_id):
        job = by_job[job_id]
        review = next(r for r in reviews if r.id == link.review_id)
        run = (f"[review run]({link.run_link(settings.ui_url)})" if link.flow_run_id
               else "no `review` deployment: `stmtflow review`")
        lines.append(f"| {link.review_id} | `{mask_digits(job.file_name)}` | "
                     f"{job.bank or job.bank_hint or '-'} | {len(review.problems)} | {run} | "
                     f"[review {link.review_id}]({link.page}) |")
    lines += ["", "The review page is served by `stmtflow review serve` on this machine."]
    create_markdown_artifact(markdown="\n".join(lines), key=f"batch-{batch_id}-reviews".lower(),
                             description=f"Statements of batch {batch_id} that need review")
