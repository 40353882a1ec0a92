"""A person's decision on a held statement: accept it as printed, correct it, or reject it.

Accepting and correcting put the statement's transactions in the book (`Book.release`, the
same deduplication as any import), and are applied only when the statement then reconciles:
opening + Σ amounts = closing per account and the running balance row by row where printed
(`corrections.problems`, the parsers' own validation). Otherwise nothing changes, the
attempt is recorded as refused, and the outcome says why. A correction is written as a new
version of the statement beside the original (`results/<job>/corrected/<digest>/`, content
addressed, so nothing is ever overwritten), carrying what changed; the original stays.
Rejecting needs a note and keeps the transactions out for good.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from parsers.codes import ReviewAction, ReviewState
from reconcile.book import Book
from reconcile.corrections import (
    Applied,
    Change,
    CorrectionError,
    apply_changes,
    parse_change,
    problems,
)
from reconcile.records import Clock, Review, utc_now
from reconcile.review import ReviewLog, record, settle
from reconcile.storage import Storage, sha256

#: Render a statement document as its output objects ({name: bytes}, with `statement.json`).
Render = Callable[[dict[str, Any]], dict[str, bytes]]


class DecisionError(LookupError):
    """The review cannot be decided at all (unknown, or its statement is not what was held)."""


@dataclass(frozen=True)
class Outcome:
    applied: bool
    review: Review
    message: str
    problems: tuple[str, ...] = ()
    changes: tuple[Applied, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"applied": self.applied, "message": self.message,
                "problems": list(self.problems),
                "changes": [c.to_dict() for c in self.changes], **self.review.to_dict()}


def statement_json(doc: dict[str, Any]) -> dict[str, bytes]:
    return {"statement.json": json.dumps(doc, indent=1, sort_keys=True).encode() + b"\n"}


class Decisions:
    def __init__(self, engine: Engine, storage: Storage, render: Render = statement_json,
                 clock: Clock = utc_now) -> None:
        self.engine = engine
        self.storage = storage
        self.render = render
        self.clock = clock
        self.log = ReviewLog(engine)

    def review(self, ref: int | str) -> Review:
        found = self.log.get(ref)
        if found is None:
            raise DecisionError(f"no review {ref!r}")
        return found

    def statement(self, review: Review) -> dict[str, Any]:
        """The statement under review, read back and checked against the digest it was held
        with (a changed object is quarantined, never decided on)."""
        if review.output_uri is None:
            raise DecisionError(f"review {review.id}: no output object is recorded")
        data = self.storage.read(review.output_uri)
        if sha256(data) != review.output_digest:
            raise DecisionError(f"review {review.id}: the output object changed after it was "
                                "held; it is quarantined, not decided on")
        return json.loads(data)

    # -- decisions ------------------------------------------------------------------------
    def accept(self, ref: int | str, *, by: str, via: str, note: str | None = None) -> Outcome:
        """Accept the statement as printed: only when it reconciles as it is."""
        by, review = _who(by), self.review(ref)
        if review.state != ReviewState.OPEN:
            return self._already(review)
        doc = self.statement(review)
        found = problems(doc)
        if found:
            return self._refuse(review, by, via, "not accepted: as read, the statement does "
                                "not reconcile; correct it or reject it", found)
        with self.engine.begin() as c:
            at = self.clock()
            if not settle(c, review.id, ReviewState.ACCEPTED, by=by, at=at, note=note):
                return self._already(self.review(review.id))
            record(c, review.id, actor=by, via=via, action=ReviewAction.ACCEPTED, at=at,
                   note=note)
            Book.release(c, review.decision_id, doc)
        return Outcome(True, self.review(review.id), f"accepted by {by}")

    def correct(self, ref: int | str, changes: Sequence[str | Change], *, by: str, via: str,
                note: str | None = None) -> Outcome:
        """Apply `changes` (written as `corrections` reads them: `3.amount=-12.50`, ..., or
        given field by field as `Change`s); only when the statement then reconciles is
        anything kept."""
        by, review = _who(by), self.review(ref)
        if review.state != ReviewState.OPEN:
            return self._already(review)
        doc = self.statement(review)
        try:
            fixed, applied = apply_changes(doc, [c if isinstance(c, Change) else parse_change(c)
                                                 for c in changes])
        except CorrectionError as exc:
            return self._refuse(review, by, via, f"not corrected: {exc}", ())
        found = problems(fixed)
        if found:
            return self._refuse(review, by, via, "not corrected: with these changes the "
                                "statement still does not reconcile", found, applied)
        version = self._version(review, doc, fixed, applied, by, note)
        uri, digest = self._write(review, version)
        with self.engine.begin() as c:
            at = self.clock()
            if not settle(c, review.id, ReviewState.CORRECTED, by=by, at=at, note=note,
                          version_uri=uri, version_digest=digest):
                return self._already(self.review(review.id))
            record(c, review.id, actor=by, via=via, action=ReviewAction.CORRECTED, at=at,
                   changes=[a.to_dict() for a in applied], note=note)
            Book.release(c, review.decision_id, version)
        return Outcome(True, self.review(review.id),
                       f"corrected by {by}: {len(applied)} change(s), now reconciles",
                       changes=tuple(applied))

    def reject(self, ref: int | str, *, by: str, via: str, note: str) -> Outcome:
        """Keep the statement out of the book for good; `note` says why."""
        by, review = _who(by), self.review(ref)
        if review.state != ReviewState.OPEN:
            return self._already(review)
        if not note.strip():
            return self._refuse(review, by, via, "not rejected: say why in a note", ())
        with self.engine.begin() as c:
            at = self.clock()
            if not settle(c, review.id, ReviewState.REJECTED, by=by, at=at, note=note):
                return self._already(self.review(review.id))
            record(c, review.id, actor=by, via=via, action=ReviewAction.REJECTED, at=at,
                   note=note)
            Book.exclude(c, review.decision_id)
        return Outcome(True, self.review(review.id), f"rejected by {by}: {note}")

    # -- helpers --------------------------------------------------------------------------
    @staticmethod
    def _already(review: Review) -> Outcome:
        return Outcome(False, review, f"already {review.state.value} by {review.decided_by} "
                                      f"at {review.decided_at:%Y-%m-%d %H:%M} UTC")

    def _refuse(self, review: Review, by: str, via: str, message: str, found: Sequence[str],
                applied: Sequence[Applied] = ()) -> Outcome:
        with self.engine.begin() as c:
            record(c, review.id, actor=by, via=via, action=ReviewAction.REFUSED, at=self.clock(),
                   changes=[a.to_dict() for a in applied] or None,
                   note="\n".join([message, *found]))
        return Outcome(False, review, message, tuple(found), tuple(applied))

    def _version(self, review: Review, original: dict[str, Any], fixed: dict[str, Any],
                 applied: list[Applied], by: str, note: str | None) -> dict[str, Any]:
        """The corrected statement: validated, and carrying what was changed, by whom."""
        return {**fixed,
                "validation": {"ok": True, "problems": [],
                               "repairs": original.get("validation", {}).get("repairs", [])},
                "review": {"review_id": review.id, "decision": ReviewState.CORRECTED.value,
                           "by": by, "at": self.clock().isoformat(), "note": note,
                           "changes": [a.to_dict() for a in applied],
                           "problems_before": list(review.problems),
                           "corrects": {"uri": review.output_uri,
                                        "sha256": review.output_digest}}}

    def _write(self, review: Review, version: dict[str, Any]) -> tuple[str, str]:
        if review.output_uri is None:
            raise DecisionError(f"review {review.id}: no output object is recorded")
        files = self.render(version)
        digest = sha256(files["statement.json"])
        base = self.storage.key(review.output_uri).rsplit("/", 1)[0]
        prefix = f"{base}/corrected/{digest[:16]}"
        uri = self.storage.uri(f"{prefix}/statement.json")
        if self.storage.digest_of(uri) != digest:
            self.storage.write_outputs(prefix, files, token=f"review-{review.id}")
        return uri, digest


def _who(by: str) -> str:
    if not by.strip():
        raise DecisionError("a decision needs the name of who made it")
    return by.strip()
