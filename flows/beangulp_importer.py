"""stmtflow as a beangulp importer: a Beancount user's `import.py` reads statements with it.

```python
# import.py  (pip install 'stmtflow[beancount]')
import beangulp
from flows.beangulp_importer import StatementImporter

importers = [StatementImporter(accounts="accounts.toml")]   # the `book export` mapping
if __name__ == "__main__":
    beangulp.Ingest(importers)()
```

`identify` accepts a PDF that stmtflow's parser reads (any template in force, or the one
bank given); `extract` returns a transaction per statement row, posted to the account's
ledger name only (the other leg is the user's to categorise, as beangulp importers do),
with its stable `txn_id`, plus a `balance` assertion per account on the day after the
period. The templates, page reader and limits are those of the `STMTFLOW_*` variables, read
once when the importer is made (or of the `Settings` given). A statement that does not
validate is never presented as cleared: its transactions carry the `!` flag and its
problems as metadata, and it asserts no balance. Each file is
parsed once per importer, however many of these methods beangulp calls.
No Prefect and no ledger database are involved.
"""

from __future__ import annotations

import logging
import os
from datetime import date, timedelta
from pathlib import Path

import beangulp
from beancount.core import data, flags
from beancount.core.amount import Amount

from flows.book_exports import account_names
from flows.config import Settings
from flows.parser import Parser
from parsers.api import ParseResult
from parsers.errors import StatementError
from parsers.exports.sniff import HEAD, sniff
from parsers.model import mask_digits, transaction_ids
from reconcile.book_records import AccountKey

log = logging.getLogger(__name__)


class StatementImporter(beangulp.Importer):
    def __init__(self, accounts: str | Path | None = None, bank: str | None = None,
                 settings: Settings | None = None) -> None:
        settings = settings or Settings.from_env()
        self.parser = Parser.from_settings(settings)
        self.passwords = settings.passwords_for(bank)
        if bank is not None and bank not in self.parser.banks:
            raise ValueError(f"unknown bank {bank!r}; known banks: "
                             f"{', '.join(self.parser.banks)}")
        self.bank = bank
        self.names = account_names(None if accounts is None else Path(accounts),
                                   self.parser.templates)
        self._parsed: dict[tuple[str, int, int], ParseResult | None] = {}

    @property
    def name(self) -> str:
        return f"stmtflow.{self.bank}" if self.bank else "stmtflow"

    def identify(self, filepath: str) -> bool:
        return self._read(filepath) is not None

    def account(self, filepath: str) -> data.Account:
        return self.names.name(self._key(self._result(filepath), 0))

    def date(self, filepath: str) -> date | None:
        return _period_end(self._result(filepath))

    def filename(self, filepath: str) -> str | None:
        result = self._result(filepath)
        st = result.statement
        return f"{st.bank}-{st.accounts[0].account_last4}.{_suffix(st.source)}"

    def extract(self, filepath: str, existing: data.Entries) -> data.Entries:
        result = self._result(filepath)
        st, v = result.statement, result.validation
        flag = flags.FLAG_OKAY if v.ok else flags.FLAG_WARNING
        review = {} if v.ok else {"validation": "needs review",
                                  "problems": "; ".join(v.problems)}
        entries: data.Entries = []
        for i, acct in enumerate(st.accounts):
            name = self.names.name(self._key(result, i))
            for t, txn_id in zip(acct.transactions, transaction_ids(st.bank, acct),
                                 strict=True):
                meta = data.new_metadata(filepath, len(entries), {"txn_id": txn_id, **review})
                posting = data.Posting(name, Amount(t.amount, acct.currency),
                                       None, None, None, None)
                entries.append(data.Transaction(meta, t.date, flag, None, t.description,
                                                data.EMPTY_SET, data.EMPTY_SET, [posting]))
            end = _period_end(result, i)
            if v.ok and end is not None:
                entries.append(data.Balance(
                    data.new_metadata(filepath, len(entries)), end + timedelta(days=1), name,
                    Amount(acct.closing_balance, acct.currency), None, None))
        return entries

    def deduplicate(self, entries: data.Entries, existing: data.Entries) -> None:
        """A transaction whose `txn_id` the ledger already holds is a duplicate, and so is a
        balance assertion it already makes; ids make beangulp's guesswork unnecessary."""
        known = {_identity(e) for e in existing} - {None}
        for e in entries:
            if _identity(e) in known:
                e.meta[beangulp.extract.DUPLICATE] = True

    def _key(self, result: ParseResult, index: int) -> AccountKey:
        return AccountKey(result.statement.bank, result.statement.accounts[index].account_last4)

    def _result(self, filepath: str) -> ParseResult:
        result = self._read(filepath)
        if result is None:
            raise ValueError(f"{_shown(filepath)} is not a statement stmtflow reads")
        return result

    def _read(self, filepath: str) -> ParseResult | None:
        stat = os.stat(filepath)
        key = (os.path.realpath(filepath), stat.st_mtime_ns, stat.st_size)
        if key not in self._parsed:
            self._parsed[key] = self._parse(filepath)
        return self._parsed[key]

    def _parse(self, filepath: str) -> ParseResult | None:
        with open(filepath, "rb") as f:
            kind = sniff(f.read(HEAD))  # a download folder holds anything: its head decides
            if kind is None or kind.startswith("unsupported:"):
                return None
            f.seek(0)
            data = f.read()
        try:
            return self.parser.parse(data, bank=self.bank, passwords=self.passwords)
        except StatementError as exc:
            log.debug("%s: not identified (%s)", _shown(filepath), exc.reason)
            return None


def _shown(filepath: str) -> str:
    """A file's name as logs and messages may show it: long digit runs masked."""
    return mask_digits(os.path.basename(filepath))


def _identity(entry: data.Directive) -> tuple[object, ...] | None:
    """What makes an entry the same as one the ledger holds: a transaction's id, or a
    balance assertion's date, account and amount."""
    if isinstance(entry, data.Transaction) and entry.meta.get("txn_id"):
        return ("txn", entry.meta["txn_id"])
    if isinstance(entry, data.Balance):
        return ("balance", entry.date, entry.account, entry.amount)
    return None


def _period_end(result: ParseResult, index: int = 0) -> date | None:
    """The statement's last day: its printed period end, else its last transaction's date."""
    txns = result.statement.accounts[index].transactions
    return result.statement.period_end or max((t.date for t in txns), default=None)


#: the file name's suffix of each bank export's format family
_SUFFIXES = {"ofx": "ofx", "camt": "xml", "mt940": "sta", "csv": "csv"}


def _suffix(source: dict[str, str] | None) -> str:
    """`pdf`, or the suffix of the export the statement was read from."""
    if source is None:
        return "pdf"
    return _SUFFIXES.get(source["format"].split(":")[0].split(".")[0], "txt")
