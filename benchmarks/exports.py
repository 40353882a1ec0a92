"""Bank exports against the PDFs they stand beside: the same statements, drawn once.

For every text statement of the generated corpus, its OFX, CAMT.053, MT940 and CSV
(`corpus/bank_exports.py`) are read in this process (`parsers.files.parse_file`): per format, the
files read exactly as their truth (dates, amounts, balances), the files validated, and files
per second, with the PDFs of the same statements as the baseline in the same run. Every
account is trusted here, so an export without balances (a card's CSV) validates on its rows
alone; its balances are not compared.
"""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict
from pathlib import Path

from corpus import BANKS, SCANNED, statement
from corpus.bank_exports import FORMATS, write_exports
from parsers.errors import StatementError
from parsers.exports.settings import AccountRule, Exports
from parsers.files import parse_file
from parsers.model import Statement


def _figures(st: Statement, balances: bool = True) -> list[tuple]:
    """What must read exactly: the rows, and the balances where the export carries any."""
    return [(a.account_last4, a.opening_balance if balances else None,
             a.closing_balance if balances else None,
             [(t.date, t.amount) for t in a.transactions]) for a in st.accounts]


def run(statements: int, seed: int) -> dict[str, dict[str, float]]:
    banks = [b for b in BANKS if b not in SCANNED]
    files: dict[str, list[tuple[bytes, Statement, Exports]]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(statements):
            bank = banks[i % len(banks)]
            drawn = statement(bank, index=i, seed=seed)
            truth = drawn.truth
            exports = Exports(tuple(AccountRule(a.account_last4, bank, True)
                                    for a in truth.accounts))
            files["pdf"].append((drawn.pdf, truth, exports))
            for path in write_exports(truth, Path(tmp) / f"s{i}", FORMATS,
                                      card=bank == "harbor"):
                fmt = "csv" if path.suffix == ".csv" else {".ofx": "ofx", ".xml": "camt",
                                                           ".sta": "mt940"}[path.suffix]
                one = Statement(truth.bank, [a for a in truth.accounts
                                             if path.stem.endswith(a.account_last4)]) \
                    if fmt == "csv" else truth
                files[fmt].append((path.read_bytes(), one, exports))
    parse_file(files["ofx"][0][0])  # the libraries' imports are not a file's time
    report: dict[str, dict[str, float]] = {}
    for fmt in ("pdf", *FORMATS):
        exact = validated = refused = 0
        start = time.perf_counter()
        for data, truth, exports in files[fmt]:
            try:
                result = parse_file(data, exports=exports)
            except StatementError:
                refused += 1
                continue
            balances = all(a.balances_printed for a in result.statement.accounts)
            exact += _figures(result.statement, balances) == _figures(truth, balances)
            validated += result.validation.ok
        seconds = time.perf_counter() - start
        n = len(files[fmt])
        report[fmt] = {"files": n, "exact": exact, "validated": validated, "refused": refused,
                       "files_per_second": round(n / seconds, 1)}
    base = report["pdf"]["files_per_second"]
    print(f"exports: {statements} statements of {', '.join(banks)}, read in one process")
    for fmt, r in report.items():
        print(f"  {fmt:6} {r['files']:4} files  exact {r['exact']:4}  validated "
              f"{r['validated']:4}  refused {r['refused']:3}  {r['files_per_second']:7.1f} "
              f"files/s ({r['files_per_second'] / base:.1f}x the PDFs)")
    return report
