"""The five reference layouts (`parsers/templates/`) and one unknown bank, drawn from truth.

Each `render_<bank>(draw, variant)` draws a statement and returns what it printed: the PDF
bytes, the truth, and the variations the pages actually show. `PLAIN` prints the reference
layout; every knob of `Variant` is read through the shared helpers of `forms.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal
from functools import partial

from corpus.forms import (
    amount_sections,
    carry_row,
    dates,
    lines,
    money,
    out_in_rows,
    period_line,
    plain,
    runs,
    shape,
    signed,
    summary,
)
from corpus.render import FONTS, Col, Furniture, Sheet
from corpus.truth import Draw, account, cents, german_purpose, period_for, with_references
from corpus.variant import PLAIN, Variant
from parsers.model import Account, Statement, Transaction
from parsers.numbers import format_amount

HOLDERS = ["JORDAN A. RIVERA", "PRIYA N. SHAH", "MARTIN KOWALSKI", "ELENA MORENO",
           "SAMUEL O. ADEYEMI", "HANNAH LINDQVIST"]


@dataclass(frozen=True)
class Printed:
    """A drawn statement as printed: its PDF and the truth a perfect reader returns."""

    pdf: bytes
    truth: Statement
    #: variations that reached the page beyond the variant's own (furniture, carried rows)
    drawn: frozenset[str] = frozenset()


def drawn_style(d: Draw) -> tuple[tuple[str, str], float]:
    """A font and size; monospaced Courier stays at 9 pt so that 1,234,567.89 fits a column."""
    font = d.rng.choice(FONTS)
    return font, d.rng.choice([8.0, 9.0] if font[0] == "Courier" else [8.0, 9.0, 10.0])


def _second(d: Draw, currency: str, start: date, end: date) -> Account:
    """A second account in the same PDF, drawn after the first."""
    rng = d.rng
    return account(Draw(rng, rng.randint(0, 8) if d.transactions else 0, False, False),
                   f"{rng.randint(0, 9999):04d}", currency, start, end)


def render_northwind(d: Draw, v: Variant = PLAIN) -> Printed:
    rng = d.rng
    start, end = period_for(rng, d.rng.random() < 0.3)
    last4 = f"{rng.randint(0, 9999):04d}"
    accounts = [account(d, last4, "USD", start, end)]
    if v.structure == "two-accounts":
        accounts.append(_second(d, "USD", start, end))
    font, size = drawn_style(d)
    if v.period_form == "standard" or rng.random() < 0.5:
        s_, e_ = f"{start:%m/%d/%Y}", f"{end:%m/%d/%Y}"
    else:
        s_, e_ = f"{start:%B} {start.day}, {start.year}", f"{end:%B} {end.day}, {end.year}"
    period = period_line(v, f"{v.label('Statement Period', colon=True)} {s_} - {e_}", s_, e_)
    number = v.cased(v.number_label) if v.number_label else v.label("Account Number", colon=True)
    holder = rng.choice(HOLDERS)
    one = len(accounts) == 1

    def header(s: Sheet, page: int) -> None:
        s.line((50, "NORTHWIND BANK, N.A."), (-560, period), bold=True)
        s.line((50, f"{number} ****{last4}" if one else holder), (-560, f"Page {page}"))
        s.skip()

    furniture = Furniture("Member FDIC.", watermark="COPY",
                          repeated=f"{holder} - {number} ****{last4}" if one else holder)
    s = Sheet("letter", font, size, header, variant=v, furniture=furniture)
    s.line((50, holder))
    shown = []
    for n, acct in enumerate(accounts):
        printed = shape(acct, v)
        shown.append(printed)
        if not one:
            s.ensure(8)
            s.line((50, f"{('CHECKING', 'SAVINGS')[n]} {number} ****{acct.account_last4}"),
                   bold=True)
        s.line((50, v.cased("ACCOUNT SUMMARY")), bold=True)
        ins = sum((t.amount for t in acct.transactions if t.amount > 0), Decimal(0))
        outs = -sum((t.amount for t in acct.transactions if t.amount < 0), Decimal(0))
        rows = [(v.label("Beginning Balance", v.opening_label), money(acct.opening_balance, v)),
                (v.label("Deposits and Additions"), money(ins, v)),
                (v.label("Withdrawals and Subtractions"), money(outs, v)),
                (v.label("Ending Balance", v.closing_label), money(acct.closing_balance, v))]
        summary(s, v, rows[1:] if v.structure == "derived-opening" else rows)
        s.skip()
        if v.structure == "split-sections":
            amount_sections(s, v, printed, ("DEPOSITS AND ADDITIONS",
                                             "WITHDRAWALS AND SUBTRACTIONS"), "%m/%d", 220)
            continue
        s.line((50, v.cased("TRANSACTION DETAIL")), bold=True)
        cols = [Col("Date", 50), Col("Description", 95, width=220),
                Col("Withdrawals", 410, "right"), Col("Deposits", 480, "right"),
                Col("Balance", 560, "right", key="balance")]
        bal = partial(signed, variant=v)
        s.table_header(cols, carry_row(v, 5, 1, bal), acct.opening_balance)
        out_in_rows(s, v, printed, runs(acct), "%m/%d", 220, bal)
        s.end_table()
        s.skip()
    return Printed(s.finish(), Statement("northwind", shown, start, end), frozenset(s.drawn))


def render_bluebird(d: Draw, v: Variant = PLAIN) -> Printed:
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    names = rng.sample(["Share Savings", "Checking", "Money Market", "Holiday Club"],
                       rng.choice([2, 2, 3]))
    per = max(0, d.transactions // len(names))
    accounts = [account(Draw(rng, per, d.large, d.negative and n == "Checking"),
                        f"{rng.randint(0, 9999):04d}", "USD", start, end) for n in names]
    font, size = drawn_style(d)
    s_ = f"{start:%B} {start.day}, {start.year}"
    e_ = f"{end:%B} {end.day}, {end.year}"
    period = period_line(v, f"{s_} {v.cased('through')} {e_}", s_, e_)

    def header(s: Sheet, page: int) -> None:
        s.line((50, "Bluebird Credit Union"), (-560, f"Page {page}"), bold=True)
        s.line((50, period))
        s.skip()

    member = rng.randint(100000, 999999)
    holder = rng.choice(HOLDERS)
    furniture = Furniture("Federally insured by NCUA.", watermark="DUPLICATE",
                          repeated=f"{holder} - Member {member}")
    s = Sheet("letter", font, size, header, variant=v, furniture=furniture)
    number = v.cased(v.number_label) if v.number_label else v.label("Member Number", colon=True)
    s.line((50, f"{number} {member}"))
    s.line((50, holder))
    s.skip()
    cols = [Col("Posted", 50), Col("Transaction", 110, width=260), Col("Amount", 470, "right"),
            Col("Balance", 560, "right", key="balance")]
    bal = partial(signed, variant=v)
    shown = []
    for name, acct in zip(names, accounts, strict=True):
        printed = shape(acct, v)
        shown.append(printed)
        s.ensure(6)
        s.line((50, f"{v.cased(name)} ****{acct.account_last4}"), bold=True)
        rows = [(v.label("Beginning Balance", v.opening_label), money(acct.opening_balance, v)),
                (v.label("Ending Balance", v.closing_label), money(acct.closing_balance, v))]
        summary(s, v, rows[1:] if v.structure == "derived-opening" else rows, right=-300)
        s.table_header(cols, carry_row(v, 4, 1, bal), acct.opening_balance)
        for t, when, after in zip(printed.transactions, dates(printed, v, "%b %d"),
                                  runs(acct), strict=True):
            first, *rest = lines(s, v, t.description, 260)
            s.row([when, first, signed(t.amount, v),
                   "" if t.balance is None else bal(t.balance)], rest, running=after)
        s.end_table()
        s.skip()
    return Printed(s.finish(), Statement("bluebird", shown, start, end), frozenset(s.drawn))


CARD_GROUPS = [("PAYMENTS AND OTHER CREDITS", "payments and other credits"),
               ("PURCHASES", "purchases"), ("FEES CHARGED", "fees"),
               ("INTEREST CHARGED", "interest charged")]


def render_harbor(d: Draw, v: Variant = PLAIN) -> Printed:
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

    def usd(value: Decimal) -> str:
        return money(value, v)

    def owed(value: Decimal) -> str:
        return usd(-value) if value <= 0 else usd(value) + " CR"

    def credit(value: Decimal) -> str:
        """A payment or credit in its section: `25.00 CR`, `-25.00` or `(25.00)`."""
        body = format_amount(value)
        return {"leading": "-" + body, "parentheses": f"({body})"}.get(v.sign, body + " CR")

    font, size = drawn_style(d)
    number = {"Account No :": f"Account No : XXXX XXXX XXXX {last4}",
              "Card ending": f"Card ending {last4}",
              "Account ending": f"Account ending {last4}"}.get(
                  v.number_label, f"Account ending in {last4}")
    if v.period_form == "short":
        closing_line = f"{v.cased('Closing Date')} : {closing:%m/%d/%Y}"
    elif v.period_form == "from-to":
        closing_line = f"{v.cased('Statement closing date')} {closing:%m/%d/%Y}"
    else:
        closing_line = f"{v.cased('Statement Closing Date')} {closing:%m/%d/%Y}"

    def header(s: Sheet, page: int) -> None:
        s.line((50, "Harbor Card Services"), (-560, f"Page {page}"), bold=True)
        s.line((50, v.cased(number)), (-560, closing_line))
        s.skip()

    holder = rng.choice(HOLDERS)
    furniture = Furniture("Harbor Card Services is a member of the card network.",
                          watermark="COPY", repeated=f"{holder} - {number}")
    s = Sheet("letter", font, size, header, variant=v, furniture=furniture)
    s.line((50, holder))
    s.line((50, v.cased("ACCOUNT SUMMARY")), bold=True)
    rows = [(v.label("Previous Balance", v.opening_label), owed(acct.opening_balance)),
            (v.label("Payments"), usd(total("PAYMENTS AND OTHER CREDITS", True))),
            (v.label("Other Credits"), usd(total("PAYMENTS AND OTHER CREDITS", False))),
            (v.label("Purchases"), usd(total("PURCHASES"))),
            (v.label("Fees Charged"), usd(total("FEES CHARGED"))),
            (v.label("Interest Charged"), usd(total("INTEREST CHARGED"))),
            (v.label("New Balance", v.closing_label), owed(acct.closing_balance)),
            (v.label("Minimum Payment Due"), usd(min(max(-acct.closing_balance, Decimal(0)),
                                                       Decimal("35.00"))))]
    summary(s, v, rows)
    s.skip()
    cols = [Col("Trans Date", 50), Col("Post Date", 120), Col("Description", 185, width=250),
            Col("Amount", 560, "right")]
    for g, noun in CARD_GROUPS:
        if not groups[g]:
            continue
        s.ensure(4)
        s.line((50, v.cased(g)), bold=True)
        s.table_header(cols)
        for t in groups[g]:
            first, *rest = lines(s, v, t.description, 250)
            posted = min(t.date + timedelta(days=rng.randint(0, 2)), closing)
            amount = credit(t.amount) if t.amount > 0 else format_amount(t.amount)
            s.row([f"{t.date:%m/%d}", f"{posted:%m/%d}", first, amount], rest)
        s.end_table()
        s.line((170, v.cased(f"Total {noun} for this period")), (-560, usd(total(g))))
        s.skip()
    return Printed(s.finish(), Statement("harbor", [acct], None, closing), frozenset(s.drawn))


def render_alpenbank(d: Draw, v: Variant = PLAIN) -> Printed:
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    tails = [f"{rng.randint(0, 99):02d} {rng.randint(0, 99):02d}"]
    accounts = [account(d, tails[0].replace(" ", ""), "EUR", start, end)]
    if v.structure == "two-accounts":
        tails.append(f"{rng.randint(0, 99):02d} {rng.randint(0, 99):02d}")
        second = _second(d, "EUR", start, end)
        accounts.append(Account(tails[1].replace(" ", ""), "EUR", second.opening_balance,
                                second.closing_balance, second.transactions))
    purposes = [[german_purpose(rng) for _ in a.transactions] for a in accounts]
    for a, ps in zip(accounts, purposes, strict=True):
        a.transactions = [Transaction(t.date, " ".join(p), t.amount, None)
                          for t, p in zip(a.transactions, ps, strict=True)]
    font, size = drawn_style(d)

    def eur(value: Decimal) -> str:
        return money(value, v, code="EUR", symbol="", locale="de")

    one = len(accounts) == 1
    iban = [f"IBAN DE89 **** **** **** **{t}" for t in tails]
    number = v.number_label or "Nr."

    def header(s: Sheet, page: int) -> None:
        s.line((50, "Alpenbank AG"), (-545, f"{v.cased('Kontoauszug')} {number} "
                                             f"{start.month}/{end.year}"), bold=True)
        s.line((50, iban[0] if one else ""), (-545, f"Blatt {page}"))
        s.skip()

    holder = rng.choice(HOLDERS).title()
    furniture = Furniture("Alpenbank AG - Sitz München - Mitglied der Einlagensicherung",
                          continued="Fortsetzung auf Blatt {next}",
                          page_of="Seite {n} von {total}", watermark="KOPIE",
                          repeated=f"{holder} - {iban[0] if one else 'Kontoauszug'}")
    s = Sheet("a4", font, size, header, footer="Seite {n}", variant=v, furniture=furniture)
    s.line((50, holder))
    standard = f"{v.cased('Zeitraum')} {start:%d.%m.%Y} {v.cased('bis')} {end:%d.%m.%Y}"
    s.line((50, period_line(v, standard, f"{start:%d.%m.%Y}", f"{end:%d.%m.%Y}", german=True)))
    cols = [Col("Buchungstag", 50), Col("Valuta", 122), Col("Verwendungszweck", 192, width=220),
            Col("Soll", 475, "right"), Col("Haben", 545, "right")]
    opening_label = v.label(f"Alter Kontostand vom {start - timedelta(days=1):%d.%m.%Y}",
                            v.opening_label)
    closing_label = v.label(f"Neuer Kontostand vom {end:%d.%m.%Y}", v.closing_label)
    for n, (acct, ps) in enumerate(zip(accounts, purposes, strict=True)):
        if not one:
            s.ensure(6)
            s.line((50, f"{('Girokonto', 'Tagesgeld')[n]} {iban[n]}"), bold=True)
        summary(s, v, [(opening_label, eur(acct.opening_balance))], x=50, right=-545)
        s.skip()
        s.table_header(cols)
        for t, purpose in zip(acct.transactions, ps, strict=True):
            valuta = t.date + timedelta(days=rng.choice([0, 0, 1]))
            soll = format_amount(t.amount, "de") if t.amount < 0 else ""
            haben = format_amount(t.amount, "de") if t.amount > 0 else ""
            s.row([f"{t.date:%d.%m.%Y}", f"{valuta:%d.%m.%Y}", purpose[0], soll, haben],
                  purpose[1:])
        s.end_table()
        summary(s, v, [(closing_label, eur(acct.closing_balance))], x=50, right=-545, bold=True)
        if not one:
            s.skip()
    return Printed(s.finish(), Statement("alpenbank", accounts, start, end), frozenset(s.drawn))


def render_meridian_text(d: Draw, v: Variant = PLAIN) -> Printed:
    """Meridian's layout as text; `scan.py` turns it into the image-only PDF of a scan."""
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    last4 = f"{rng.randint(0, 9999):04d}"
    accounts = [account(d, last4, "USD", start, end)]
    if v.structure == "two-accounts":
        accounts.append(_second(d, "USD", start, end))
    if v.references:
        accounts = [with_references(a) for a in accounts]
    font = rng.choice(FONTS[:2])
    size = rng.choice([10.0, 11.0])

    def crdr(value: Decimal) -> str:
        return format_amount(value) + (" Dr" if value < 0 else " Cr")

    one = len(accounts) == 1
    number = v.cased(v.number_label or "Account No.")

    def header(s: Sheet, page: int) -> None:
        s.line((50, "MERIDIAN SAVINGS BANK"), (-545, f"Page {page}"), bold=True)
        s.line((50, f"{number} XXXXXX{last4}" if one else ""))
        s.skip()

    furniture = Furniture("This is a computer generated statement.", watermark="DUPLICATE")
    s = Sheet("a4", font, size, header, variant=v, furniture=furniture)
    s_, e_ = f"{start:%d-%b-%Y}", f"{end:%d-%b-%Y}"
    standard = f"{v.label('Statement Period', colon=True)} {s_} {v.cased('to')} {e_}"
    s.line((50, period_line(v, standard, s_, e_)))
    cols = [Col("Date", 50), Col("Particulars", 125, width=190), Col("Debit", 385, "right"),
            Col("Credit", 455, "right"), Col("Balance", 545, "right", key="balance")]
    shown = []
    for acct in accounts:
        printed = shape(acct, v)
        shown.append(printed)
        # a page the table continues on repeats the number of the account it belongs to
        s.furniture = replace(furniture, repeated=f"{number} XXXXXX{acct.account_last4}")
        if not one:
            s.ensure(8)
            s.line((50, f"{number} XXXXXX{acct.account_last4}"), bold=True)
        rows = [(v.label("Opening Balance", v.opening_label), crdr(acct.opening_balance)),
                (v.label("Closing Balance", v.closing_label), crdr(acct.closing_balance))]
        summary(s, v, rows[1:] if v.structure == "derived-opening" else rows, x=50,
                right=-300)
        s.skip()
        s.table_header(cols, carry_row(v, 5, 1, crdr), acct.opening_balance)
        out_in_rows(s, v, printed, runs(acct), "%d-%b-%Y", 190, crdr)
        s.end_table()
        s.skip(0 if one else 1)
    s.line((50, "*** End of Statement ***"))
    return Printed(s.finish(), Statement("meridian", shown, start, end), frozenset(s.drawn))


def render_cedar(d: Draw, v: Variant = PLAIN) -> Printed:
    """A bank no template knows: day-first dates, `Money out / Money in` columns."""
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    last4 = f"{rng.randint(0, 9999):04d}"
    acct = account(d, last4, "USD", start, end)
    font, size = drawn_style(d)

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
    out_in_rows(s, PLAIN, acct, runs(acct), "%d/%m/%Y", 230, plain)
    s.end_table()
    return Printed(s.finish(), Statement("generic", [acct], start, end))


RENDERERS: dict[str, Callable[[Draw, Variant], Printed]] = {
    "northwind": render_northwind,
    "bluebird": render_bluebird,
    "harbor": render_harbor,
    "alpenbank": render_alpenbank,
    "meridian": render_meridian_text,
    "cedar": render_cedar,
}
