"""Statements that look like real banks' (the built-in templates beyond the five reference
layouts), drawn from synthetic truth.

Each `render_<bank>(draw)` draws what that bank's layout is made of — its column positions,
date and amount forms, labels, multi-line bookings, page breaks with repeated headers,
balance brought/carried forward rows, sections and summaries — so that the project's tests
read the built-in templates on statements of their kind without any real statement.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal

from corpus.banks import HOLDERS, Printed, _style
from corpus.forms import runs
from corpus.render import Col, Sheet
from corpus.truth import Draw, account, german_purpose, period_for
from parsers.model import Account, Statement, Transaction
from parsers.numbers import format_amount

#: These banks print small: 8 pt keeps their columns apart in every font, as on the page.
SIZE = 8.0
MONATE = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
          "September", "Oktober", "November", "Dezember"]


def _de(v: Decimal, space: bool = False) -> str:
    """A German figure with its sign: `-205,90` / `183,68`, or Postbank's `- 580,06`."""
    body = format_amount(v, "de")
    if space:
        return f"{'-' if v < 0 else '+'} {body}"
    return f"-{body}" if v < 0 else body


def _en(v: Decimal, dollar: bool = False) -> str:
    body = ("$" if dollar else "") + format_amount(v)
    return f"-{body}" if v < 0 else body


def _ordinal(d: date) -> str:
    n = d.day
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} {d:%b}"


def _german(acct: Account, d: Draw) -> list[list[str]]:
    """SEPA booking texts of several lines; the account's descriptions become them."""
    purposes = [german_purpose(d.rng) for _ in acct.transactions]
    acct.transactions = [Transaction(t.date, " ".join(p), t.amount, None)
                         for t, p in zip(acct.transactions, purposes, strict=True)]
    return purposes


def _no_balances(acct: Account) -> Account:
    acct.transactions = [Transaction(t.date, t.description, t.amount)
                         for t in acct.transactions]
    return acct


def render_postbank(d: Draw) -> Printed:
    rng = d.rng
    start, end = period_for(rng, False)
    number = f"{rng.randint(0, 999999):06d}{rng.randint(0, 9999):04d}"
    acct = account(d, number[-4:], "EUR", start, end)
    purposes = _german(acct, d)
    iban = f"DE31 2001 0020 {number[:4]} {number[4:8]} {number[8:]}"
    font, size = _style(d)[0], SIZE

    def header(s: Sheet, page: int) -> None:
        if page == 1:
            s.line((69, "Postbank Hamburg 22283 Hamburg"), (376, "Postbank Direkt-Service:"))
            s.line((69, rng.choice(HOLDERS).title()), (376, "www.postbank.de"))
            s.skip()
            s.line((69, f"Kontoauszug: Postbank Giro plus vom {start:%d.%m.%Y} bis "
                        f"{end:%d.%m.%Y}"))
            s.skip()
        s.line((75, "Auszug"), (118, "Seite"), (160, "IBAN"), (310, "BIC (SWIFT)"),
               *([(392, "Alter Kontostand")] if page == 1 else []))
        s.line((75, "001"), (118, str(page)), (160, iban), (310, "PBNKDEFF"),
               *([(392, "EUR"), (-544, _de(acct.opening_balance, True))] if page == 1 else []))
        s.skip()

    s = Sheet("a4", font, size, header)
    cols = [Col("Buchung", 75), Col("Wert", 118), Col("Vorgang/Buchungsinformation", 160,
                                                      width=260),
            Col("Soll", 465, "right"), Col("Haben", 544, "right")]
    s.table_header(cols)
    for t, p in zip(acct.transactions, purposes, strict=True):
        figure = _de(t.amount, True)
        s.row([f"{t.date:%d.%m.}", f"{t.date:%d.%m.}", p[0], figure if t.amount < 0 else "",
               figure if t.amount > 0 else ""], p[1:])
    s.end_table()
    s.ensure(7)
    s.skip()
    money_in = sum((t.amount for t in acct.transactions if t.amount > 0), Decimal(0))
    money_out = sum((t.amount for t in acct.transactions if t.amount < 0), Decimal(0))
    s.line((75, "Kontonummer"), (225, "BLZ"), (391, "Summe Zahlungseingänge"))
    s.line((75, number), (225, "200 100 20"), (391, "EUR"), (-544, _de(money_in, True)))
    s.line((75, "Dispositionskredit"), (225, "Zinssatz für Dispositionskredit"),
           (391, "Summe Zahlungsausgänge"))
    s.line((75, "EUR 1.000,00"), (225, "11,73 % p.a."), (391, "EUR"),
           (-544, _de(money_out, True)))
    s.line((75, "Zinssatz für geduldete Überziehung"), (225, "Anlagen"),
           (391, "Neuer Kontostand"))
    s.line((75, "15,25 % p.a."), (225, "0"), (391, "EUR"),
           (-544, _de(acct.closing_balance, True)))
    return Printed(s.finish(), Statement("postbank", [acct], start, end))


def render_ing(d: Draw) -> Printed:
    rng = d.rng
    year, month = rng.choice([2021, 2022, 2025]), rng.randint(1, 12)
    start = date(year, month, 1)
    end = date(year, month, calendar.monthrange(year, month)[1])
    number = f"{rng.randint(10**9, 10**10 - 1)}"
    acct = account(d, number[-4:], "EUR", start, end)
    purposes = _german(acct, d)
    font, size = _style(d)[0], SIZE
    title = f"Kontoauszug {MONATE[month - 1]} {year}"

    def header(s: Sheet, page: int) -> None:
        if page == 1:
            s.line((71, "ING-DiBa AG · 60628 Frankfurt am Main"))
            s.line((312, "Datum"), (-553, f"{end:%d.%m.%Y}"))
            s.line((71, rng.choice(HOLDERS).title()), (312, "Alter Saldo"),
                   (-529, _de(acct.opening_balance)), (531, "Euro"))
            s.line((312, "Neuer Saldo"), (-529, _de(acct.closing_balance)), (531, "Euro"))
            s.line((312, "IBAN"), (-553, f"DE93 5001 0517 {number[:4]} {number[4:8]} "
                                         f"{number[8:]}"))
            s.skip()
        else:
            s.line((-553, f"Seite {page}"))
        s.line((71, f"Girokonto Nummer {number}"))
        s.line((71, title))
        s.skip()

    s = Sheet("a4", font, size, header)
    cols = [Col("Buchung", 71), Col("Buchung / Verwendungszweck", 142, width=300),
            Col("Betrag (EUR)", 553, "right")]
    s.table_header(cols)
    s.line((71, "Valuta"))
    for t, p in zip(acct.transactions, purposes, strict=True):
        valuta = t.date + timedelta(days=rng.choice([0, 0, 1]))
        s.ensure(len(p) + 2)
        s.row([f"{t.date:%d.%m.%Y}", p[0], _de(t.amount)])
        # The value date stands under the booking date, beside the text's second line.
        s.line((71, f"{valuta:%d.%m.%Y}"), (142, p[1]))
        for rest in p[2:]:
            s.line((142, rest))
    s.ensure(2)
    s.line((142, "Neuer Saldo"), (-553, _de(acct.closing_balance)))
    s.end_table()
    s.skip(2)
    s.line((71, "Kunden-Information"))
    s.line((71, "Vorliegender Freistellungsauftrag"), (-553, "0,00"))
    return Printed(s.finish(), Statement("ing", [acct], start, end))


def render_santander_uk(d: Draw) -> Printed:
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    number = f"{rng.randint(10**8, 10**9 - 1)}"
    acct = account(d, number[-4:], "GBP", start, end)
    font, size = _style(d)[0], SIZE
    period = f"{_ordinal(start)} {start.year} to {_ordinal(end)} {end.year}"

    def header(s: Sheet, page: int) -> None:
        s.line((329, "Account name: MR " + rng.choice(HOLDERS)))
        s.line((329, "Account number:"), (400, f"{number} (SortCode090126)"))
        s.line((329, f"Statement number: {end:%m/%Y} Page number: {page}"))
        s.skip()

    s = Sheet("a4", font, size, header)
    s.line((51, "Santander UK plc"))
    s.line((51, "Your account summary for"))
    s.line((51, period))
    s.line((51, f"Account number: {number} Sort Code: 09 01 22"))
    previous = start - timedelta(days=1)
    s.line((51, f"Balance brought forward from {_ordinal(previous)} Statement"),
           (-357, _en(acct.opening_balance).replace("$", "")))
    s.skip()
    s.line((48, f"Your transactions {period}"))
    cols = [Col("Date", 48), Col("Description", 96, width=290), Col("Money in", 451, "right"),
            Col("Money out", 502, "right"), Col("£ Balance", 553, "right")]
    s.table_header(cols)
    s.row([_ordinal(start), "Balance brought forward from previous statement", "", "",
           format_amount(acct.opening_balance)])
    shown = start
    for t, bal in zip(acct.transactions, runs(acct), strict=True):
        text = s.wrap(t.description, 290)
        s.row(["" if t.date == shown else _ordinal(t.date), text[0],
               format_amount(t.amount) if t.amount > 0 else "",
               format_amount(t.amount) if t.amount < 0 else "", _signed(bal)], text[1:])
        shown = t.date
    s.row([_ordinal(end), "Balance carried forward to next statement:", "", "",
           _signed(acct.closing_balance)])
    s.end_table()
    return Printed(s.finish(), Statement("santander-uk", [acct], start, end))


def _signed(v: Decimal) -> str:
    return f"-{format_amount(v)}" if v < 0 else format_amount(v)


def render_woodforest(d: Draw) -> Printed:
    rng = d.rng
    start, end = period_for(rng, False)
    end = start + timedelta(days=rng.choice([30, 60, 88]))
    number = f"{rng.randint(10**8, 10**9 - 1)}"
    acct = account(d, number[-4:], "USD", start, end)
    font, size = _style(d)[0], SIZE
    money_in = sum((t.amount for t in acct.transactions if t.amount > 0), Decimal(0))
    money_out = sum((t.amount for t in acct.transactions if t.amount < 0), Decimal(0))

    def header(s: Sheet, page: int) -> None:
        s.line((-581, f"Page {page}"))
        s.line((395, f"Statement Period {start:%B} {start.day} – {end:%B} {end.day}, "
                     f"{end.year}"))
        s.skip()
        if page > 1:
            s.line((45, f"Business Checking {number}"), bold=True)
            s.line((45, "Transactions (continued)"), bold=True)

    s = Sheet("a4", font, size, header)
    s.line((102, rng.choice(HOLDERS)), (414, "Visit Us Online at www.woodforest.com"))
    s.skip()
    s.line((247, "Summary of Accounts"), bold=True)
    s.line((304, "BALANCE"), (395, "TOTAL"), (470, "TOTAL"), (536, "CLOSING"))
    s.line((45, "ACCOUNT TYPE AND NUMBER"), (298, "FORWARD"), (392, "DEBITS"),
           (462, "CREDITS"), (534, "BALANCE"))
    s.line((45, f"Business Checking {number}"), (-346, _signed(acct.opening_balance)),
           (-424, format_amount(money_out)), (-499, format_amount(money_in)),
           (-576, _signed(acct.closing_balance)))
    s.skip()
    s.line((45, f"Business Checking {number}"), bold=True)
    s.line((45, "Transactions"), bold=True)
    cols = [Col("Date", 45), Col("Credits", 142, "right"), Col("Debits", 209, "right"),
            Col("Balance", 282, "right"), Col("Description", 291, width=270)]
    s.table_header(cols)
    for t, bal in zip(acct.transactions, runs(acct), strict=True):
        text = s.wrap(t.description, 270)
        s.row([f"{t.date:%m-%d}", format_amount(t.amount) if t.amount > 0 else "",
               format_amount(t.amount) if t.amount < 0 else "", _signed(bal), text[0]],
              text[1:])
    s.end_table()
    s.skip()
    s.line((247, "Total for"), (356, "Total for"))
    s.line((45, "Total Overdraft Fees"), (-278, "$0.00"), (-387, "$0.00"))
    return Printed(s.finish(), Statement("woodforest", [acct], start, end))


def render_chase(d: Draw) -> Printed:
    rng = d.rng
    start, end = period_for(rng, rng.random() < 0.3)
    number = f"{rng.randint(10**9, 10**10 - 1):014d}"
    acct = _no_balances(account(d, number[-4:], "USD", start, end))
    font, size = _style(d)[0], SIZE
    span = (f"{start:%B} {start.day}, {start.year} through {end:%B} {end.day}, {end.year}")
    ins = [t for t in acct.transactions if t.amount > 0]
    outs = [t for t in acct.transactions if t.amount < 0]
    checks = [t for t in outs if rng.random() < 0.25]
    others = [t for t in outs if t not in checks]
    # the business statement: its Account Number, fees in a section of their own, one day's
    # ending balance to a line
    business = rng.random() < 0.4
    fees = [Transaction(t.date, "Monthly Service Fee", t.amount) for t in others[-1:]
            ] if business else []
    others = others[:-1] if business else others

    def header(s: Sheet, page: int) -> None:
        s.line((393, span))
        s.line((378, f"Account Number: {number}" if business else f"Primary Account: {number}"))
        if page == 1:
            s.line((38, "JPMorgan Chase Bank N.A."))
            s.line((38, rng.choice(HOLDERS)), (364, "Web site: www.Chase.com"))
        s.skip()

    def total(ts: list[Transaction]) -> Decimal:
        return abs(sum((t.amount for t in ts), Decimal(0)))

    s = Sheet("letter", font, size, header)
    s.line((39, "CHECKING SUMMARY"), bold=True)
    s.line((240, "INSTANCES"), (354, "AMOUNT"))
    s.line((36, "Beginning Balance"), (-384, _en(acct.opening_balance, True)))
    s.line((36, "Deposits and Additions"), (-283, str(len(ins))), (-384, _en(total(ins))))
    s.line((35, "Checks Paid"), (-283, str(len(checks))), (-384, "- " + _en(total(checks))))
    s.line((36, "Other Withdrawals, Fees & Charges"), (-283, str(len(others))),
           (-384, "- " + _en(total(others))))
    s.line((36, "Ending Balance"), (-283, str(len(acct.transactions))),
           (-384, _en(acct.closing_balance, True)))
    s.skip()
    for title, ts in (("DEPOSITS AND ADDITIONS", ins),
                      ("OTHER WITHDRAWALS, FEES & CHARGES", others), ("FEES", fees)):
        if not ts:
            continue
        s.ensure(4)
        s.line((41, title), bold=True)
        s.table_header([Col("DATE", 41), Col("DESCRIPTION", 104, width=330),
                        Col("AMOUNT", 540, "right")])
        for i, t in enumerate(ts):
            text = s.wrap(t.description, 330)
            s.row([f"{t.date:%m/%d}", text[0], _en(abs(t.amount), i == 0)], text[1:])
        s.end_table()
        s.line((42, f"Total {title.title().replace('And', 'and')}"),
               (-539, _en(total(ts), True)))
        s.skip()
    if checks:
        s.ensure(len(checks) + 4)
        s.line((39, "CHECKS PAID"), bold=True)
        s.line((414, "DATE"))
        s.table_header([Col("CHECK NUMBER", 34), Col("DESCRIPTION", 129, width=250),
                        Col("PAID", 414), Col("AMOUNT", 539, "right")])
        for i, t in enumerate(checks):
            s.row([str(rng.randint(1000, 9999)), "^", f"{t.date:%m/%d}",
                   _en(abs(t.amount), i == 0)])
        s.end_table()
        s.line((34, "Total Checks Paid"), (-539, _en(total(checks), True)))
        s.skip()
    _daily(s, acct, 1 if business else 2)
    # As printed: section by section; a check's description is its image mark.
    acct.transactions = ins + others + fees + [Transaction(t.date, "^", t.amount)
                                               for t in checks]
    return Printed(s.finish(), Statement("chase", [acct], start, end))


def _daily(s: Sheet, acct: Account, per_line: int = 2) -> None:
    """The DAILY ENDING BALANCE table: date and balance pairs, `per_line` to a line."""
    days: dict[date, Decimal] = {}
    for t, bal in zip(acct.transactions, runs(acct), strict=True):
        days[t.date] = bal
    if not days:
        return
    pairs = list(days.items())
    s.ensure(3)
    s.line((39, "DAILY ENDING BALANCE"), bold=True)
    s.line(*((35, "DATE"), (212, "AMOUNT"), (371, "DATE"), (508, "AMOUNT"))[:2 * per_line])
    for i in range(0, len(pairs), per_line):
        cells: list[tuple[float, str]] = []
        for (day, bal), (x, right) in zip(pairs[i:i + per_line], ((35, -243), (367, -539)),
                                          strict=False):
            cells += [(x, f"{day:%m/%d}"), (right, _en(bal))]
        s.line(*cells)


def render_bank_of_america(d: Draw) -> Printed:
    rng = d.rng
    start, end = period_for(rng, False)
    number = f"{rng.randint(100, 999)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"
    acct = _no_balances(account(d, number[-4:], "USD", start, end))
    font, size = _style(d)[0], SIZE
    ins = [t for t in acct.transactions if t.amount > 0]
    outs = [t for t in acct.transactions if t.amount < 0]

    def header(s: Sheet, page: int) -> None:
        s.line((36, "Bank of America"), (-549, f"Page {page}"), bold=True)
        s.line((36, f"{rng.choice(HOLDERS)} ! Account # {number} ! {start:%B} {start.day}, "
                    f"{start.year} to {end:%B} {end.day}, {end.year}"))
        s.skip()

    def total(ts: list[Transaction]) -> Decimal:
        return sum((t.amount for t in ts), Decimal(0))

    s = Sheet("letter", font, size, header)
    s.line((36, "Your Adv Plus Banking"))
    s.line((36, f"{start:%B} {start.day}, {start.year} to {end:%B} {end.day}, {end.year}"),
           (377, f"Account number: {number}"))
    s.skip()
    s.line((36, "Account summary"), bold=True)
    s.line((36, f"Beginning balance on {start:%B} {start.day}, {start.year}"),
           (-346, _en(acct.opening_balance, True)))
    s.line((36, "Deposits and other additions"), (-346, _en(total(ins))))
    s.line((36, "Withdrawals and other subtractions"), (-346, _en(total(outs))))
    s.line((36, f"Ending balance on {end:%B} {end.day}, {end.year}"),
           (-346, _en(acct.closing_balance, True)))
    s.skip()
    for title, ts in (("Deposits and other additions", ins),
                      ("Withdrawals and other subtractions", outs)):
        s.ensure(4)
        s.line((36, title), bold=True)
        s.table_header([Col("Date", 36), Col("Description", 91, width=380),
                        Col("Amount", 576, "right")])
        for t in ts:
            text = s.wrap(t.description, 380)
            s.row([f"{t.date:%d/%m/%y}", text[0], _en(t.amount)], text[1:])
        s.end_table()
        s.line((36, f"Total {title.lower()}"), (-576, _en(total(ts), True)))
        s.skip()
    acct.transactions = ins + outs  # as printed: section by section
    return Printed(s.finish(), Statement("bank-of-america", [acct], start, end))


LOOKALIKES: dict[str, Callable[[Draw], Printed]] = {
    "bank-of-america": render_bank_of_america,
    "postbank": render_postbank,
    "ing": render_ing,
    "santander-uk": render_santander_uk,
    "woodforest": render_woodforest,
    "chase": render_chase,
}
