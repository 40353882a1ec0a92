"""A statement as a bank's web page prints it: HTML tables laid out and printed to PDF by a
browser (headless Chromium), a producer of its own.

Its tables differ from a PDF library's drawing where readers go wrong: a cell is centred
down its row (a description of three lines prints its date and figures beside the middle
one), a row's padding is wider than the space between a cell's lines, text wraps after a
hyphen, a row may break across pages, and the header is printed once. The statement's
numbers are its truth's; `print_pdf` needs the `chromium` binary (`make chromium`).
"""

from __future__ import annotations

import html
import shutil
import subprocess
import tempfile
from decimal import Decimal
from pathlib import Path

from parsers.model import Statement

STYLE = """body { font-family: 'DejaVu Sans', sans-serif; font-size: 10pt; margin: 40px; }
table { border-collapse: collapse; width: 100%; } td, th { padding: 2px 6px; }
.n { text-align: right; } th { text-align: left; border-bottom: 1px solid #000; }
.summary { width: 80%; } .legal { font-size: 8pt; }"""


def page(truth: Statement, bank: str, account_number: str) -> str:
    """The statement's web page: a summary table, the transactions, a legal paragraph."""
    a = truth.accounts[0]
    money_in = sum((t.amount for t in a.transactions if t.amount > 0), Decimal(0))
    money_out = -sum((t.amount for t in a.transactions if t.amount < 0), Decimal(0))
    rows, balance = [], a.opening_balance
    for t in a.transactions:
        balance += t.amount
        out = f"{-t.amount:,.2f}" if t.amount < 0 else ""
        into = f"{t.amount:,.2f}" if t.amount > 0 else ""
        rows.append(f"<tr><td>{t.date:%m/%d}</td><td>{html.escape(t.description)}</td>"
                    f"<td class=n>{out}</td><td class=n>{into}</td>"
                    f"<td class=n>{balance:,.2f}</td></tr>")
    start, end = truth.period_start, truth.period_end
    period = f"{start:%m/%d/%Y} - {end:%m/%d/%Y}" if start else f"to {end:%m/%d/%Y}"
    return f"""<html><head><style>{STYLE}</style></head><body>
<h2>{html.escape(bank)}</h2>
<p>Account Number: {account_number}<br>Statement Period: {period}</p>
<h3>Account Summary</h3>
<table class=summary>
<tr><td>Beginning Balance</td><td class=n>${a.opening_balance:,.2f}</td></tr>
<tr><td>Deposits and Additions</td><td class=n>${money_in:,.2f}</td></tr>
<tr><td>Withdrawals and Subtractions</td><td class=n>${money_out:,.2f}</td></tr>
<tr><td>Ending Balance</td><td class=n>${a.closing_balance:,.2f}</td></tr></table>
<h3>Transaction Detail</h3>
<table><tr><th>Date</th><th>Description</th><th class=n>Withdrawals</th>
<th class=n>Deposits</th><th class=n>Balance</th></tr>
{"".join(rows)}</table>
<p class=legal>In case of errors or questions about your electronic transfers, call
1-800-555-0199 or write to us at P.O. Box 15284, Wilmington, DE 19850.</p>
</body></html>"""


def print_pdf(markup: str) -> bytes:
    """The page printed to PDF by headless Chromium."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise RuntimeError("chromium is not installed: `make chromium`")
    with tempfile.TemporaryDirectory() as d:
        source, pdf = Path(d) / "statement.html", Path(d) / "statement.pdf"
        source.write_text(markup)
        subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-dev-shm-usage", f"--user-data-dir={d}/profile",
                        "--no-pdf-header-footer", f"--print-to-pdf={pdf}", source.as_uri()],
                       capture_output=True, timeout=120, check=True)
        return pdf.read_bytes()
