"""Each export read back with its format's own tooling: beancount's loader, hledger,
ofxtools, quiffen, openpyxl and pandas."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple


class Row(NamedTuple):
    """One transaction as a format's own reader gives it back."""

    txn_id: str
    account: str
    date: date
    amount: Decimal


Reader = Callable[[Path], list[Row]]


def read_beancount(path: Path) -> list[Row]:
    from beancount import loader
    from beancount.core import data

    entries, errors, _ = loader.load_file(str(path))
    assert errors == [], [e.message for e in errors]
    return [Row(e.meta["txn_id"], e.postings[0].account, e.date, e.postings[0].units.number)
            for e in entries if isinstance(e, data.Transaction) and "txn_id" in e.meta]


def hledger_json(path: Path, *args: str) -> list[dict]:
    done = subprocess.run(["hledger", "-f", str(path), "print", "-O", "json", *args],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def read_journal(path: Path) -> list[Row]:
    rows = []
    for t in hledger_json(path):
        tags = dict(t["ttags"])
        if "txn_id" in tags:
            p = t["tpostings"][0]
            rows.append(Row(tags["txn_id"], p["paccount"], date.fromisoformat(t["tdate"]),
                            quantity(p["pamount"][0]["aquantity"])))
    return rows


def quantity(q: dict) -> Decimal:
    """hledger's exact decimal (mantissa and places), never its floating-point copy."""
    return Decimal(q["decimalMantissa"]).scaleb(-q["decimalPlaces"])


def read_ofx(path: Path) -> list[Row]:
    from ofxtools.Parser import OFXTree

    tree = OFXTree()
    tree.parse(str(path))
    return [Row(t.fitid, s.account.acctid, t.dtposted.date(), t.trnamt)
            for s in tree.convert().statements for t in s.transactions]


def read_qif(path: Path) -> list[Row]:
    import quiffen

    qif = quiffen.Qif.parse(str(path), day_first=False)
    return [Row(t.memo.split()[1], name, t.date.date(), t.amount)
            for name, acct in qif.accounts.items() for ts in acct.transactions.values()
            for t in ts if t.memo and t.memo.startswith("txn_id ")]


def read_xlsx(path: Path) -> list[Row]:
    from openpyxl import load_workbook

    rows = []
    for ws in load_workbook(path, read_only=True).worksheets:
        if ws.title == "Statements":
            continue
        for day, _, debit, credit, *_, txn_id, _, _ in ws.iter_rows(min_row=2, values_only=True):
            amount = -cents(debit) if debit is not None else cents(credit)
            assert isinstance(day, datetime)
            rows.append(Row(txn_id, ws.title, day.date(), amount))
    return rows


def cents(value: float | int) -> Decimal:
    """A spreadsheet number back to exact cents (it stores binary floating point)."""
    return Decimal(repr(value)).quantize(Decimal("0.01"))


def read_csv(path: Path) -> list[Row]:
    import pandas as pd

    return _table_rows(pd.read_csv(path, dtype=str))


def read_parquet(path: Path) -> list[Row]:
    import pandas as pd

    return _table_rows(pd.read_parquet(path))


def _table_rows(frame) -> list[Row]:  # type: ignore[no-untyped-def]
    return [Row(r.txn_id, f"{r.bank}:{r.account_last4}", date.fromisoformat(r.date),
                Decimal(r.amount)) for r in frame.itertuples()]


READERS: dict[str, Reader] = {
    "beancount": read_beancount, "ledger": read_journal, "ofx": read_ofx, "qif": read_qif,
    "xlsx": read_xlsx, "csv": read_csv, "parquet": read_parquet,
}
