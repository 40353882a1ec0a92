"""SWIFT MT940 (customer statement) and MT942 (interim report), read by `mt-940`.

Each `:20:` block is one statement of the account `:25:` names: its opening balance
`:60F:` (or `:60M:`, carried over from the block before), its closing `:62F:` (or `:62M:`),
its rows `:61:` with their `:86:` details. Blocks of the same account are one section, each
block's closing kept as its last row's running balance, so validation checks every block's
equation and a block that does not open where the one before closed is named. An MT942
carries no booked balance: it is an unverified source. A row's date is its entry (booking)
date where `:61:` prints one, else its value date; its reference the end-to-end reference
(`EREF+`), else the bank's (`//...`), else the customer's; the counterparty's IBAN (`?31`)
stays out of its description.
"""

from __future__ import annotations

import importlib.metadata
import io
import re
from typing import Any

import mt940

from parsers.errors import CorruptExport
from parsers.exports.build import Entry, Section

#: a SWIFT header ({1:...}{2:...}{4:) before the first tag, and the trailer after `-}`
_ENVELOPE = re.compile(r"\{[1-3]:[^}]*\}|\{4:\s*|-\}|\{5:.*?\}\}?", re.S)
#: the sender's BIC in a SWIFT basic header: `{1:F01` + BIC8 + terminal + branch
_SENDER = re.compile(r"\{1:F01([A-Z0-9]{8})[A-Z0-9]([A-Z0-9]{3})?")
_BIC_ACCOUNT = re.compile(r"(?m)^:25:([A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)/")
_OPTIONS = mt940.Options(strip_bom=True, gvc_leading_text=True, unbounded_details=True,
                         merge_keeps_values=True, reversal_sign=True,
                         case_insensitive_marks=True, applicant_iban=True)
#: what banks write where a reference field holds none
_NO_REFERENCE = frozenset({"", "NONREF", "KREF+", "EREF+", "NOTPROVIDED"})


def reader() -> str:
    return f"mt-940 {importlib.metadata.version('mt-940')}"


def read_mt940(data: bytes) -> tuple[list[Section], str]:
    """The account sections of an MT940 or MT942 file, and the BICs that name its bank (the
    sender of its SWIFT header, a `:25:` of the form `BIC/account`)."""
    raw = _decode(data)
    bics = [m.group(1) for m in _SENDER.finditer(raw)] + _BIC_ACCOUNT.findall(raw)
    text = _ENVELOPE.sub("", raw)
    try:
        blocks = mt940.parse_statements(io.StringIO(text), options=_OPTIONS)
    except Exception as exc:  # mt-940 raises what its tag patterns meet
        raise CorruptExport(f"mt-940 cannot read the statement: {type(exc).__name__}: "
                            f"{str(exc)[:200]}") from None
    sections: dict[str, Section] = {}
    for block in blocks:
        here = _section(block)
        if here is None:
            continue
        before = sections.get(here.account)
        if before is None:
            sections[here.account] = here
        else:
            before.extend(here)
    if not sections:
        raise CorruptExport("the MT940 holds no statement with an account (:25:)")
    return list(sections.values()), " ".join(dict.fromkeys(bics))


def _decode(data: bytes) -> str:
    for codec in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _section(block: Any) -> Section | None:
    d = block.data
    account = d.get("account_identification")
    if not account:
        return None
    opening = d.get("final_opening_balance") or d.get("intermediate_opening_balance")
    closing = d.get("final_closing_balance") or d.get("intermediate_closing_balance")
    entries = [_entry(t.data) for t in block]
    currency = next((b.amount.currency for b in (opening, closing) if b is not None), None) \
        or next((t.data.get("currency") for t in block if t.data.get("currency")), "")
    return Section(
        account=str(account), currency=str(currency), entries=entries,
        opening=None if opening is None else opening.amount.amount,
        closing=None if closing is None else closing.amount.amount,
        opening_label=":60F:" if d.get("final_opening_balance") else ":60M:",
        closing_label=":62F:" if d.get("final_closing_balance") else ":62M:",
        period_start=None if opening is None else _day(opening.date),
        period_end=None if closing is None else _day(closing.date))


def _entry(t: dict[str, Any]) -> Entry:
    amount = t.get("amount")
    if amount is None:
        raise CorruptExport("an MT940 row (:61:) has no amount")
    when = t.get("entry_date") or t.get("date")
    parts = [t.get("applicant_name"), t.get("purpose"), t.get("transaction_details"),
             t.get("posting_text"), t.get("additional_purpose")]
    description = " ".join(str(p).replace("\n", " ") for p in dict.fromkeys(
        p for p in parts if p)).strip()
    refs = ["".join(str(r).split()).removeprefix("KREF+") for r in (
        t.get("end_to_end_reference"),
        t.get("bank_reference"), t.get("customer_reference")) if r]
    reference = next((r for r in refs if r not in _NO_REFERENCE), None)
    return Entry(_day(when), description or str(t.get("id") or ""), amount.amount, None,
                 reference)


def _day(value: Any) -> Any:
    """mt-940's `Date` is a `datetime.date`; a plain one for the model."""
    from datetime import date

    return date(value.year, value.month, value.day)
