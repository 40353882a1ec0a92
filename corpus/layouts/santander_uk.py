"""Santander UK: ordinal dates (`5th Jan`), each day's date on its first row only, balances
brought and carried forward as rows of the table, the holder in every page's header."""

from corpus.layout import Digits, Layout, Line, Row, Skip, Table, any_period
from corpus.render import Col

PERIOD = "{start:ordinal} {start.year} to {end:ordinal} {end.year}"

LAYOUT = Layout(
    bank="santander-uk", paper="a4", currency="GBP", period=any_period,
    number=(Digits(10**8, 10**9 - 1),),
    header=(
        Line(((329, "Account name: MR {holder}"),)),
        Line(((329, "Account number:"), (400, "{number} (SortCode090126)"))),
        Line(((329, "Statement number: {end:%m/%Y} Page number: {page}"),)),
        Skip(),
    ),
    body=(
        Line(((51, "Santander UK plc"),)),
        Line(((51, "Your account summary for"),)),
        Line(((51, PERIOD),)),
        Line(((51, "Account number: {number} Sort Code: 09 01 22"),)),
        Line(((51, "Balance brought forward from {previous:ordinal} Statement"),
              (-357, "{opening:signed}"))),
        Skip(),
        Line(((48, f"Your transactions {PERIOD}"),)),
        Table(columns=(Col("Date", 48), Col("Description", 96, width=290),
                       Col("Money in", 451, "right"), Col("Money out", 502, "right"),
                       Col("£ Balance", 553, "right")),
              cells=("{day:ordinal}", "{text}", "{credit}", "{debit}", "{balance:signed}"),
              date_once=True,
              lead=(Row(("{start:ordinal}", "Balance brought forward from previous statement",
                         "", "", "{opening}")),),
              tail=(Row(("{end:ordinal}", "Balance carried forward to next statement:", "", "",
                         "{closing:signed}")),)),
    ),
)
