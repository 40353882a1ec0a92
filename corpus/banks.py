"""The five reference layouts of layouts.md and one unknown bank, rendered from truth.

Each `render_<bank>` draws a statement from its `Draw` and returns (pdf bytes, truth).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal

from corpus.render import FONTS, Col, Sheet
from corpus.truth import Draw, account, cents, german_purpose, period_for
from parsers.model import Account, Statement, Transaction
from parsers.numbers import format_amount

HOLDERS = ["JORDAN A. RIVERA", "PRIYA N. SHAH", "MARTIN KOWALSKI", "ELENA MORENO",
           "SAMUEL O. ADEYEMI", "HANNAH LINDQVIST"]


def usd(v: Decimal) -> str:
    return ("-$" if v < 0 else "$") + format_amount(v)


def plain(v: Decimal) -> str:
    return ("-" if v < 0 else "") + format_amount(v)


def _style(d: Draw) -> tuple[tuple[str, str], float]:
    """A font and size; monospaced Courier stays at 9 pt so that 1,234,567.89 fits a column."""
    font = d.rng.choice(FONTS)
    return font, d.rng.choice([8.0, 9.0] if font[0] == "Courier" else [8.0, 9.0, 10.0])


def _out_in_rows(s: Sheet, acct: Account, date_format: str, width: float,
                 balance: Callable[[Decimal], str]) -> None:
    """Rows of a table with money out and money in in two columns and a running balance."""
    for t in acct.transactions:
        first, *rest = s.wrap(t.description, width)
        assert t.balance is not None
        s.row([t.date.strftime(date_format), first,
               format_amount(t.amount) if t.amount < 0 else "",
               format_amount(t.amount) if t.amount > 0 else "", balance(t.balance)], rest)


def render_northwind(d: Draw) -> tuple[bytes, Statement]:
    rng = d.rng
    start, end = period_for(rng, d.rng.random() < 0.3)
    last4 = f"{rng.randint(0, 9999):04d}"
    acct = account(d, last4, "USD", start, end)
    font, size = _style(d)
    period = f"{start:%m/%d/%Y} - {end:%m/%d/%Y}"

    def header(s: Sheet, page: int) -> None:
        s.line((50, "NORTHWIND BANK, N.A."), (-560, f"Statement Period: {period}"), bold=True)
        s.line((50, f"Account Number: ****{last4}"), (-560, f"Page {page}"))
        s.skip()

    s = Sheet("letter", font, size, header)
    s.line((50, rng.choice(HOLDERS)))
    s.line((50, "ACCOUNT SUMMARY"), bold=True)
    ins = sum((t.amount for t in acct.transactions if t.amount > 0), Decimal(0))
    outs = -sum((t.amount for t in acct.transactions if t.amount < 0), Decimal(0))
    for label, value in [("Beginning Balance", acct.opening_balance),
                         ("Deposits and Additions", ins),
                         ("Withdrawals and Subtractions", outs),
                         ("Ending Balance", acct.closing_balance)]:
        s.line((60, label), (-330, usd(value)))
    s.skip()
    s.line((50, "TRANSACTION DETAIL"), bold=True)
    cols = [Col("Date", 50), Col("Description", 95, width=220), Col("Withdrawals", 410, "right"),
            Col("Deposits", 480, "right"), Col("Balance", 560, "right")]
    s.table_header(cols)
    _out_in_rows(s, acct, "%m/%d", 220, plain)
    s.end_table()
    return s.finish(), Statement("northwind", [acct], start, end)


def render_bluebird(d: Draw) -> tuple[bytes, Statement]:
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    names = rng.sample(["Share Savings", "Checking", "Money Market", "Holiday Club"],
                       rng.choice([2, 2, 3]))
    per = max(0, d.transactions // len(names))
    accounts = [account(Draw(rng, per, d.large, d.negative and n == "Checking"),
                        f"{rng.randint(0, 9999):04d}", "USD", start, end) for n in names]
    font, size = _style(d)
    period = f"{start:%B} {start.day}, {start.year} through {end:%B} {end.day}, {end.year}"

    def header(s: Sheet, page: int) -> None:
        s.line((50, "Bluebird Credit Union"), (-560, f"Page {page}"), bold=True)
        s.line((50, period))
        s.skip()

    s = Sheet("letter", font, size, header)
    s.line((50, f"Member Number: {rng.randint(100000, 999999)}"))
    s.line((50, rng.choice(HOLDERS)))
    s.skip()
    cols = [Col("Posted", 50), Col("Transaction", 110, width=260), Col("Amount", 470, "right"),
            Col("Balance", 560, "right")]
    for name, acct in zip(names, accounts, strict=True):
        s.ensure(6)
        s.line((50, f"{name} ****{acct.account_last4}"), bold=True)
        s.line((60, "Beginning Balance"), (-300, usd(acct.opening_balance)))
        s.line((60, "Ending Balance"), (-300, usd(acct.closing_balance)))
        s.table_header(cols)
        for t in acct.transactions:
            first, *rest = s.wrap(t.description, 260)
            assert t.balance is not None
            s.row([f"{t.date:%b} {t.date.day:02d}", first, plain(t.amount), plain(t.balance)], rest)
        s.end_table()
        s.skip()
    return s.finish(), Statement("bluebird", accounts, start, end)


CARD_GROUPS = [("PAYMENTS AND OTHER CREDITS", "payments and other credits"),
               ("PURCHASES", "purchases"), ("FEES CHARGED", "fees"),
               ("INTEREST CHARGED", "interest charged")]


def render_harbor(d: Draw) -> tuple[bytes, Statement]:
    rng = d.rng
    closing = period_for(rng, rng.random() < 0.3)[1]
    start = closing - timedelta(days=30)
    last4 = f"{rng.randint(0, 9999):04d}"
    base = account(Draw(rng, d.transactions, d.large, False), last4, "USD", start, closing,
                   card=True)
    groups: dict[str, list[Transaction]] = {g: [] for g, _ in CARD_GROUPS}
    for t in base.transactions:
        if t.amount > 0:
            desc = "PAYMENT THANK YOU" if rng.random() < 0.6 else "REFUND " + t.description
            groups["PAYMENTS AND OTHER CREDITS"].append(Transaction(t.date, desc, t.amount))
        else:
            groups["PURCHASES"].append(t)
    if d.transactions and rng.random() < 0.4:
        groups["FEES CHARGED"].append(Transaction(closing - timedelta(days=rng.randint(1, 20)),
                                                  "LATE FEE", Decimal("-39.00")))
    if d.transactions and rng.random() < 0.6:
        groups["INTEREST CHARGED"].append(
            Transaction(closing, "INTEREST CHARGE ON PURCHASES", -cents(rng, 1, 90)))
    for g in groups.values():
        g.sort(key=lambda t: t.date)
    txs = [t for g, _ in CARD_GROUPS for t in groups[g]]
    closing_balance = base.opening_balance + sum((t.amount for t in txs), Decimal(0))
    acct = Account(last4, "USD", base.opening_balance, closing_balance, txs)

    def total(g: str, payments: bool | None = None) -> Decimal:
        rows = groups[g]
        if payments is not None:
            rows = [t for t in rows if t.description.startswith("PAYMENT") == payments]
        return abs(sum((t.amount for t in rows), Decimal(0)))

    def owed(v: Decimal) -> str:
        return usd(-v) if v <= 0 else usd(v) + " CR"

    font, size = _style(d)

    def header(s: Sheet, page: int) -> None:
        s.line((50, "Harbor Card Services"), (-560, f"Page {page}"), bold=True)
        s.line((50, f"Account ending in {last4}"),
               (-560, f"Statement Closing Date {closing:%m/%d/%Y}"))
        s.skip()

    s = Sheet("letter", font, size, header)
    s.line((50, rng.choice(HOLDERS)))
    s.line((50, "ACCOUNT SUMMARY"), bold=True)
    summary = [("Previous Balance", owed(acct.opening_balance)),
               ("Payments", usd(total("PAYMENTS AND OTHER CREDITS", True))),
               ("Other Credits", usd(total("PAYMENTS AND OTHER CREDITS", False))),
               ("Purchases", usd(total("PURCHASES"))), ("Fees Charged", usd(total("FEES CHARGED"))),
               ("Interest Charged", usd(total("INTEREST CHARGED"))),
               ("New Balance", owed(acct.closing_balance)),
               ("Minimum Payment Due", usd(min(max(-acct.closing_balance, Decimal(0)),
                                               Decimal("35.00"))))]
    for label, value in summary:
        s.line((60, label), (-330, value))
    s.skip()
    cols = [Col("Trans Date", 50), Col("Post Date", 120), Col("Description", 185, width=250),
            Col("Amount", 560, "right")]
    for g, noun in CARD_GROUPS:
        if not groups[g]:
            continue
        s.ensure(4)
        s.line((50, g), bold=True)
        s.table_header(cols)
        for t in groups[g]:
            first, *rest = s.wrap(t.description, 250)
            posted = min(t.date + timedelta(days=rng.randint(0, 2)), closing)
            amount = format_amount(t.amount) + (" CR" if t.amount > 0 else "")
            s.row([f"{t.date:%m/%d}", f"{posted:%m/%d}", first, amount], rest)
        s.end_table()
        s.line((170, f"Total {noun} for this period"), (-560, usd(total(g))))
        s.skip()
    return s.finish(), Statement("harbor", [acct], None, closing)


def render_alpenbank(d: Draw) -> tuple[bytes, Statement]:
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    tail = f"{rng.randint(0, 99):02d} {rng.randint(0, 99):02d}"
    acct = account(d, tail.replace(" ", ""), "EUR", start, end)
    purposes = [german_purpose(rng) for _ in acct.transactions]
    acct.transactions = [Transaction(t.date, " ".join(p), t.amount, None)
                         for t, p in zip(acct.transactions, purposes, strict=True)]
    font, size = _style(d)

    def eur(v: Decimal) -> str:
        return ("-" if v < 0 else "") + format_amount(v, "de") + " EUR"

    def header(s: Sheet, page: int) -> None:
        s.line((50, "Alpenbank AG"), (-545, f"Kontoauszug Nr. {start.month}/{end.year}"),
               bold=True)
        s.line((50, f"IBAN DE89 **** **** **** **{tail}"), (-545, f"Blatt {page}"))
        s.skip()

    s = Sheet("a4", font, size, header, footer="Seite {n}")
    s.line((50, rng.choice(HOLDERS).title()))
    s.line((50, f"Zeitraum {start:%d.%m.%Y} bis {end:%d.%m.%Y}"))
    s.line((50, f"Alter Kontostand vom {start - timedelta(days=1):%d.%m.%Y}"),
           (-545, eur(acct.opening_balance)))
    s.skip()
    cols = [Col("Buchungstag", 50), Col("Valuta", 122), Col("Verwendungszweck", 192, width=220),
            Col("Soll", 475, "right"), Col("Haben", 545, "right")]
    s.table_header(cols)
    for t, lines in zip(acct.transactions, purposes, strict=True):
        valuta = t.date + timedelta(days=rng.choice([0, 0, 1]))
        soll = format_amount(t.amount, "de") if t.amount < 0 else ""
        haben = format_amount(t.amount, "de") if t.amount > 0 else ""
        s.row([f"{t.date:%d.%m.%Y}", f"{valuta:%d.%m.%Y}", lines[0], soll, haben], lines[1:])
    s.end_table()
    s.line((50, f"Neuer Kontostand vom {end:%d.%m.%Y}"), (-545, eur(acct.closing_balance)),
           bold=True)
    return s.finish(), Statement("alpenbank", [acct], start, end)


def render_meridian_text(d: Draw) -> tuple[bytes, Statement]:
    """Meridian's layout as text; `scan.py` turns it into the image-only PDF of a scan."""
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    last4 = f"{rng.randint(0, 9999):04d}"
    acct = account(d, last4, "USD", start, end)
    font = rng.choice(FONTS[:2])
    size = rng.choice([10.0, 11.0])

    def crdr(v: Decimal) -> str:
        return format_amount(v) + (" Dr" if v < 0 else " Cr")

    def header(s: Sheet, page: int) -> None:
        s.line((50, "MERIDIAN SAVINGS BANK"), (-545, f"Page {page}"), bold=True)
        s.line((50, f"Account No. XXXXXX{last4}"))
        s.skip()

    s = Sheet("a4", font, size, header)
    s.line((50, f"Statement Period: {start:%d-%b-%Y} to {end:%d-%b-%Y}"))
    s.line((50, "Opening Balance"), (-300, crdr(acct.opening_balance)))
    s.line((50, "Closing Balance"), (-300, crdr(acct.closing_balance)))
    s.skip()
    cols = [Col("Date", 50), Col("Particulars", 125, width=190), Col("Debit", 385, "right"),
            Col("Credit", 455, "right"), Col("Balance", 545, "right")]
    s.table_header(cols)
    _out_in_rows(s, acct, "%d-%b-%Y", 190, crdr)
    s.end_table()
    s.line((50, "*** End of Statement ***"))
    return s.finish(), Statement("meridian", [acct], start, end)


def render_cedar(d: Draw) -> tuple[bytes, Statement]:
    """A bank no template knows: day-first dates, `Money out / Money in` columns."""
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    last4 = f"{rng.randint(0, 9999):04d}"
    acct = account(d, last4, "USD", start, end)
    font, size = _style(d)

    def header(s: Sheet, page: int) -> None:
        s.line((50, "CEDAR VALLEY BANK"), (-560, f"Sheet {page}"), bold=True)
        s.skip()

    s = Sheet("letter", font, size, header)
    s.line((50, f"Account number 20-{rng.randint(1000, 9999)}-{last4}"))
    s.line((50, f"Statement period {start:%d/%m/%Y} - {end:%d/%m/%Y}"))
    s.line((50, "Opening balance"), (-330, plain(acct.opening_balance)))
    s.line((50, "Closing balance"), (-330, plain(acct.closing_balance)))
    s.skip()
    cols = [Col("Date", 50), Col("Details", 115, width=230), Col("Money out", 425, "right"),
            Col("Money in", 495, "right"), Col("Balance", 570, "right")]
    s.table_header(cols)
    _out_in_rows(s, acct, "%d/%m/%Y", 230, plain)
    s.end_table()
    return s.finish(), Statement("generic", [acct], start, end)


RENDERERS: dict[str, Callable[[Draw], tuple[bytes, Statement]]] = {
    "northwind": render_northwind,
    "bluebird": render_bluebird,
    "harbor": render_harbor,
    "alpenbank": render_alpenbank,
    "meridian": render_meridian_text,
    "cedar": render_cedar,
}

