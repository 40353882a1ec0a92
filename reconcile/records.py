"""Ledger rows as frozen records: the rest of the code reads attributes, not string keys.

Rows become records here, at the ledger's edge (`Job.from_row`, `Review.from_row`, ...). A
record's fields are named after its table's columns, so adding a column is adding a field
(with a default, so that records built before it still read); statuses, classes, reasons
and outcomes become members of the vocabulary (`parsers/codes.py`), and every time is
timezone-aware UTC whatever the database hands back (SQLite forgets the zone).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Self

from parsers.codes import (
    BatchState,
    ErrorClass,
    Outcome,
    Reason,
    ReviewAction,
    ReviewState,
    Status,
)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The real clock; the ledger and the book take another one where tests need it."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Identities:
    """What a job pins at acceptance and every attempt must run with."""

    chain_revision: str
    ocr_engine: str
    policy_revision: str


@functools.cache
def _names(cls: type[Any]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _from_row(cls: type[Any], row: Mapping[str, Any],
              convert: Mapping[str, Callable[[Any], Any]]) -> dict[str, Any]:
    """The record's fields from `row`: by column name, converted, times made aware."""
    columns = dict(row)  # a plain dict: looking names up in a result row is slow
    values = {}
    for name in _names(cls):
        if name not in columns:
            continue
        value = columns[name]
        if value is not None and name in convert:
            value = convert[name](value)
        elif isinstance(value, datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        values[name] = value
    return values


def _from_rows(cls: type[Any], result: Iterable[Sequence[Any]], keys: Sequence[str],
               convert: Mapping[str, Callable[[Any], Any]]) -> Iterator[Any]:
    """`cls` of every row of a result with columns `keys`, as `_from_row` makes each: which
    column feeds which field, and which fields need converting, is worked out once, not per
    row and column (a reconciliation pass reads every job)."""
    wanted = set(_names(cls))
    names = [k for k in keys if k in wanted]
    at = [i for i, k in enumerate(keys) if k in wanted]
    fixes = [(n, convert[n]) for n in names if n in convert]
    fixes += [(n, _aware) for n in names if n in _times(cls) and n not in convert]
    defaults = _defaults(cls, names)
    every = len(at) == len(keys)
    for row in result:
        if not every:
            whole = tuple(row)
            row = [whole[i] for i in at]
        values = dict(zip(names, row, strict=True))
        for name, fix in fixes:
            value = values[name]
            if value is not None:
                values[name] = fix(value)
        if defaults is None:
            yield cls(**values)
            continue
        # what the frozen dataclass's __init__ would set, without its setattr per field
        record = object.__new__(cls)
        record.__dict__.update(defaults, **values)
        yield record


def _defaults(cls: type[Any], present: list[str]) -> dict[str, Any] | None:
    """The plain defaults of the fields of `cls` not in `present`; None when a missing field
    has none (or a factory), or `cls` checks its values after init, so that only `__init__`
    can make it."""
    if hasattr(cls, "__post_init__"):
        return None
    defaults = {}
    for f in dataclasses.fields(cls):
        if f.name in present:
            continue
        if f.default is dataclasses.MISSING:
            return None
        defaults[f.name] = f.default
    return defaults


@functools.cache
def _times(cls: type[Any]) -> frozenset[str]:
    """The fields of `cls` that hold a time."""
    return frozenset(f.name for f in dataclasses.fields(cls) if "datetime" in str(f.type))


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


#: how a job's columns become its fields (the rest are taken as they are)
_JOB_COLUMNS: Mapping[str, Callable[[Any], Any]] = {
    "status": Status, "error_class": ErrorClass, "reason": Reason, "outputs": json.loads,
    "needs_review": bool}


@dataclass(frozen=True)
class Job:
    """A job's envelope (immutable after acceptance) and its lifecycle columns."""

    job_id: str
    batch_id: str
    source_uri: str
    #: None for a file refused at acceptance: nothing of it was stored
    input_uri: str | None
    size: int
    sha256: str | None
    submitted_at: datetime
    expires_at: datetime
    chain_revision: str
    ocr_engine: str
    policy_revision: str
    status: Status
    attempts: int = 0
    bank_hint: str | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None
    error_class: ErrorClass | None = None
    reason: Reason | None = None
    message: str | None = None
    output_uri: str | None = None
    output_digest: str | None = None
    #: output object name -> sha256
    outputs: Mapping[str, str] = field(default_factory=dict, hash=False)
    needs_review: bool = False
    bank: str | None = None
    account_last4: str | None = None
    transactions: int | None = None
    finished_at: datetime | None = None
    rerun_of: str | None = None
    #: for a DUPLICATE: the job that parses (or parsed) these bytes under these pins
    duplicate_of: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        return cls(**_from_row(cls, row, _JOB_COLUMNS))

    @classmethod
    def from_rows(cls, result: Iterable[Sequence[Any]], keys: Sequence[str]) -> list[Self]:
        """Every row of a result with columns `keys` (plain rows, not mappings)."""
        return list(_from_rows(cls, result, keys, _JOB_COLUMNS))

    @property
    def identities(self) -> Identities:
        return Identities(self.chain_revision, self.ocr_engine, self.policy_revision)

    def pinned(self) -> dict[str, str]:
        """The identities this job pins, as its statement document names them."""
        return dataclasses.asdict(self.identities)

    @property
    def file_name(self) -> str:
        return self.source_uri.rsplit("/", 1)[-1]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Attempt:
    """One run of a job: started by a claim, ended by the transition that closed it."""

    job_id: str
    number: int
    lease_owner: str
    started_at: datetime
    ended_at: datetime | None = None
    #: None while the attempt runs
    outcome: Outcome | None = None
    error_class: ErrorClass | None = None
    reason: Reason | None = None
    message: str | None = None
    #: the Prefect task run that made it, when one did
    task_run_id: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        return cls(**_from_row(cls, row, {
            "outcome": Outcome, "error_class": ErrorClass, "reason": Reason}))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Batch:
    batch_id: str
    source: str
    created_at: datetime
    state: BatchState
    bank: str | None = None
    flow_run_id: str | None = None
    rerun_of: str | None = None
    #: when its source was fully listed and accepted; None while (or if never) it was not
    accepted_at: datetime | None = None
    #: what acceptance was asked for: {"sources": [...], "bank", "follow_links", "after_import"}
    acceptance: Mapping[str, Any] | None = field(default=None, hash=False)
    #: raised by each run that takes the batch; fences its state against stale runs
    epoch: int = 0
    #: until when the run that took it is known alive (renewed while it runs; None once
    #: closed, or before any run took it)
    lease_until: datetime | None = None
    #: why a FAILED or ABANDONED batch ended so (a reason code), and its message or note
    reason: str | None = None
    message: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        return cls(**_from_row(cls, row, {"state": BatchState, "acceptance": json.loads}))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Investigation:
    """The record that a job without a terminal state has someone on it."""

    id: int
    job_id: str
    opened_at: datetime
    owner: str | None = None
    closed_at: datetime | None = None
    note: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        return cls(**_from_row(cls, row, {}))


@dataclass(frozen=True)
class Review:
    """A statement held apart from the book until a person decides (`reconcile/review.py`)."""

    id: int
    #: the job whose statement is held
    decision_id: str
    input_sha256: str
    output_uri: str | None
    output_digest: str
    problems: tuple[str, ...]
    state: ReviewState
    created_at: datetime
    decided_at: datetime | None = None
    decided_by: str | None = None
    note: str | None = None
    #: the corrected statement, a new version beside the original
    version_uri: str | None = None
    version_digest: str | None = None
    #: the Prefect flow run that asks a person about it
    flow_run_id: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        return cls(**_from_row(cls, row, {
            "state": ReviewState, "problems": lambda p: tuple(json.loads(p))}))

    def age(self, at: datetime) -> timedelta:
        """How long it waited: until its decision, or until `at` while open."""
        return (self.decided_at or at) - self.created_at

    def to_dict(self) -> dict[str, Any]:
        return {"review_id": self.id, "job_id": self.decision_id, "state": self.state.value,
                "problems": list(self.problems), "created_at": self.created_at.isoformat(),
                "decided_at": self.decided_at.isoformat() if self.decided_at else None,
                "decided_by": self.decided_by, "note": self.note,
                "output_uri": self.output_uri, "version_uri": self.version_uri,
                "flow_run_id": self.flow_run_id}


@dataclass(frozen=True)
class ReviewEvent:
    """One entry of a review's audit trail: who, through what, when, and what changed."""

    review_id: int
    at: datetime
    actor: str
    via: str
    action: ReviewAction
    #: for a correction, each field's {"target", "old", "new"}
    changes: tuple[dict[str, str | None], ...] = ()
    note: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        values = _from_row(cls, row, {"action": ReviewAction,
                                      "changes": lambda c: tuple(json.loads(c))})
        return cls(**{**values, "changes": values.get("changes") or ()})

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(), "actor": self.actor, "via": self.via,
                "action": self.action.value, "changes": list(self.changes), "note": self.note}
