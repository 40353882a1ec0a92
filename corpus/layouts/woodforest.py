"""Woodforest: a period of one to three months, a summary of accounts as a grid, the
description after the figures, the account named again on every later page."""

from corpus.layout import Digits, Layout, Line, Skip, Table, spanning
from corpus.render import Col

ACCOUNT = "Business Checking {number}"

LAYOUT = Layout(
    bank="woodforest", paper="a4", currency="USD", period=spanning(30, 60, 88),
    number=(Digits(10**8, 10**9 - 1),),
    header=(
        Line(((-581, "Page {page}"),)),
        Line(((395, "Statement Period {start:%B} {start.day} – {end:long}"),)),
        Skip(),
        Line(((45, ACCOUNT),), bold=True, pages="later"),
        Line(((45, "Transactions (continued)"),), bold=True, pages="later"),
    ),
    body=(
        Line(((102, "{holder}"), (414, "Visit Us Online at www.woodforest.com"))),
        Skip(),
        Line(((247, "Summary of Accounts"),), bold=True),
        Line(((304, "BALANCE"), (395, "TOTAL"), (470, "TOTAL"), (536, "CLOSING"))),
        Line(((45, "ACCOUNT TYPE AND NUMBER"), (298, "FORWARD"), (392, "DEBITS"),
              (462, "CREDITS"), (534, "BALANCE"))),
        Line(((45, ACCOUNT), (-346, "{opening:signed}"), (-424, "{total_out}"),
              (-499, "{total_in}"), (-576, "{closing:signed}"))),
        Skip(),
        Line(((45, ACCOUNT),), bold=True),
        Line(((45, "Transactions"),), bold=True),
        Table(columns=(Col("Date", 45), Col("Credits", 142, "right"), Col("Debits", 209, "right"),
                       Col("Balance", 282, "right"), Col("Description", 291, width=270)),
              cells=("{date:%m-%d}", "{credit}", "{debit}", "{balance:signed}", "{text}"),
              after=(Skip(),)),
        Line(((247, "Total for"), (356, "Total for"))),
        Line(((45, "Total Overdraft Fees"), (-278, "$0.00"), (-387, "$0.00"))),
    ),
)
