"""Bank of America: deposits and withdrawals in sections of their own with signed amounts
and a total each, day-first two-digit-year dates, no running balance."""

from corpus.layout import Digits, Layout, Line, Skip, Table, month
from corpus.render import Col

COLUMNS = (Col("Date", 36), Col("Description", 91, width=380), Col("Amount", 576, "right"))


def section(rows: str, title: str) -> Table:
    return Table(columns=COLUMNS, rows=rows, ensure=4,
                 cells=("{date:%d/%m/%y}", "{text}", "{amount:signed}"),
                 before=(Line(((36, title),), bold=True),),
                 after=(Line(((36, f"Total {title.lower()}"), (-576, "{total:signed $}"))),
                        Skip()))


LAYOUT = Layout(
    bank="bank-of-america", paper="letter", currency="USD", period=month, balances=False,
    number=(Digits(100, 999), Digits(1000, 9999), Digits(1000, 9999)), number_sep=" ",
    header=(
        Line(((36, "Bank of America"), (-549, "Page {page}")), bold=True),
        Line(((36, "{holder} ! Account # {number} ! {start:long} to {end:long}"),)),
        Skip(),
    ),
    body=(
        Line(((36, "Your Adv Plus Banking"),)),
        Line(((36, "{start:long} to {end:long}"), (377, "Account number: {number}"))),
        Skip(),
        Line(((36, "Account summary"),), bold=True),
        Line(((36, "Beginning balance on {start:long}"), (-346, "{opening:signed $}"))),
        Line(((36, "Deposits and other additions"), (-346, "{total_in:signed}"))),
        Line(((36, "Withdrawals and other subtractions"), (-346, "{total_out:signed}"))),
        Line(((36, "Ending balance on {end:long}"), (-346, "{closing:signed $}"))),
        Skip(),
        section("in", "Deposits and other additions"),
        section("out", "Withdrawals and other subtractions"),
    ),
)
