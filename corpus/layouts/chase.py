"""Chase: a checking summary with counts, sections of unsigned amounts (a `$` on each
section's first), checks by number with an image mark for description, and the DAILY
ENDING BALANCE table. Four statements in ten are a business account's: its Account Number,
a fee in a section of its own, one day's ending balance to a line.

`split` is this layout's hook: which withdrawals are checks and whether the statement is a
business one are drawn per statement, and the fee is the last other withdrawal renamed —
more than a fixed group of rows can say."""

import random

from corpus.layout import DailyBalances, Digits, Layout, Line, Skip, Table, any_period
from corpus.render import Col
from parsers.model import Account, Transaction


def split(rng: random.Random, acct: Account
          ) -> tuple[dict[str, list[Transaction]], dict[str, object]]:
    outs = [t for t in acct.transactions if t.amount < 0]
    checks = [t for t in outs if rng.random() < 0.25]
    others = [t for t in outs if t not in checks]
    business = rng.random() < 0.4
    fees = [Transaction(t.date, "Monthly Service Fee", t.amount)
            for t in others[-1:]] if business else []
    groups = {"checks": [Transaction(t.date, "^", t.amount) for t in checks],
              "others": others[:-1] if business else others, "fees": fees}
    return groups, {"number_label": "Account Number" if business else "Primary Account",
                    "per_line": 1 if business else 2}


def section(rows: str, title: str, total: str) -> Table:
    return Table(columns=(Col("DATE", 41), Col("DESCRIPTION", 104, width=330),
                          Col("AMOUNT", 540, "right")),
                 rows=rows, ensure=4, skip_empty=True,
                 cells=("{date:%m/%d}", "{text}", "{dollar}{amount}"),
                 before=(Line(((41, title),), bold=True),),
                 after=(Line(((42, total), (-539, "{total:$}"))), Skip()))


LAYOUT = Layout(
    bank="chase", paper="letter", currency="USD", period=any_period, balances=False,
    number=(Digits(10**9, 10**10 - 1, 14),), split=split,
    header=(
        Line(((393, "{start:long} through {end:long}"),)),
        Line(((378, "{number_label}: {number}"),)),
        Line(((38, "JPMorgan Chase Bank N.A."),), pages="first"),
        Line(((38, "{holder}"), (364, "Web site: www.Chase.com")), pages="first"),
        Skip(),
    ),
    body=(
        Line(((39, "CHECKING SUMMARY"),), bold=True),
        Line(((240, "INSTANCES"), (354, "AMOUNT"))),
        Line(((36, "Beginning Balance"), (-384, "{opening:signed $}"))),
        Line(((36, "Deposits and Additions"), (-283, "{count_in}"), (-384, "{total_in:abs}"))),
        Line(((35, "Checks Paid"), (-283, "{count_checks}"), (-384, "- {total_checks:abs}"))),
        Line(((36, "Other Withdrawals, Fees & Charges"), (-283, "{count_others}"),
              (-384, "- {total_others:abs}"))),
        Line(((36, "Ending Balance"), (-283, "{count_all}"), (-384, "{closing:signed $}"))),
        Skip(),
        section("in", "DEPOSITS AND ADDITIONS", "Total Deposits and Additions"),
        section("others", "OTHER WITHDRAWALS, FEES & CHARGES",
                "Total Other Withdrawals, Fees & Charges"),
        section("fees", "FEES", "Total Fees"),
        Table(columns=(Col("CHECK NUMBER", 34), Col("DESCRIPTION", 129, width=250),
                       Col("PAID", 414), Col("AMOUNT", 539, "right")),
              rows="checks", ensure=4, whole=True, skip_empty=True,
              cells=("{check}", "{text}", "{date:%m/%d}", "{dollar}{amount}"),
              before=(Line(((39, "CHECKS PAID"),), bold=True), Line(((414, "DATE"),))),
              after=(Line(((34, "Total Checks Paid"), (-539, "{total:$}"))), Skip())),
        DailyBalances(per_line="per_line"),
    ),
)
