"""Ground truth for generated statements: random but reproducible from a seed.

Every number is drawn as `Decimal` cents and every balance computed, so the truth file is
the statement a perfect parser would return (`bank` and `accounts` of docs/output-schema.md,
without the transaction ids).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from parsers.model import Account, Transaction

MERCHANTS = [
    "COFFEE HOUSE 123 MAIN ST", "GROCERY OUTLET #4471", "CITY WATER UTILITY AUTOPAY",
    "PAYROLL DEPOSIT ACME CORP", "ONLINE TRANSFER TO SAVINGS REF 88231", "ATM WITHDRAWAL 5TH AVE",
    "PHARMACY PLUS STORE 0912", "ELECTRIC COMPANY BILL PAYMENT", "RESTAURANT LA PIAZZA",
    "BOOKSHOP ON THE CORNER", "FUEL STATION HIGHWAY 9", "INSURANCE PREMIUM MONTHLY",
    "MOBILE PHONE SERVICE PLAN", "HARDWARE DEPOT PURCHASE", "STREAMING SUBSCRIPTION",
    "CHECK DEPOSIT BRANCH 221", "INTEREST PAYMENT", "RENT PAYMENT OAK APARTMENTS",
    "TAX REFUND TREAS 310", "GYM MEMBERSHIP DUES", "BAKERY AND CAFE DOWNTOWN",
    "VETERINARY CLINIC VISIT", "AIRLINE TICKET PURCHASE", "HOTEL RESERVATION DEPOSIT",
]
LONG_TAILS = [
    "CARD ENDING 4410 PURCHASE AUTHORIZED ON 11/02", "REFERENCE NUMBER 2025110400193 MEMO",
    "RECURRING PAYMENT ID 7781-ALPHA MONTHLY PLAN", "INTERNATIONAL FEE INCLUDED CONVERSION",
]
GERMAN = [
    "SEPA-Lastschrift Stadtwerke München", "Gehalt Musterfirma GmbH", "Miete Wohnung Lindenstraße",
    "Kartenzahlung Supermarkt", "Überweisung an Sparkonto", "Versicherung Beitrag",
    "Mobilfunk Rechnung", "Bargeldauszahlung Automat",
]
GERMAN_TAILS = [
    "End-to-End-Ref.: NOTPROVIDED", "Mandatsref.: M-2026-00017", "Gläubiger-ID: DE98ZZZ09999999999",
    "IBAN: DE02 1203 0000 0000 2020 51", "BIC: BYLADEM1001", "Kundenreferenz 55821",
]


@dataclass
class Draw:
    """Variation knobs for one statement, drawn from the seed."""

    rng: random.Random
    transactions: int
    large: bool
    negative: bool


def cents(rng: random.Random, low: float, high: float) -> Decimal:
    return Decimal(rng.randint(int(low * 100), int(high * 100))) / 100


def period_for(rng: random.Random, year_boundary: bool) -> tuple[date, date]:
    if year_boundary:
        start = date(rng.choice([2024, 2025]), 12, rng.choice([1, 5, 10, 15]))
    else:
        start = date(rng.choice([2024, 2025, 2026]), rng.randint(1, 11), 1)
    end = start + timedelta(days=30)
    return start, end


def german_purpose(rng: random.Random) -> list[str]:
    """A SEPA purpose as printed: the booking text, then one reference per line (2-4 lines)."""
    return [rng.choice(GERMAN), *rng.sample(GERMAN_TAILS, rng.randint(1, 3))]


def description(rng: random.Random) -> str:
    base = rng.choice(MERCHANTS)
    if rng.random() < 0.3:
        base += " " + rng.choice(LONG_TAILS)
    return base


def account(d: Draw, last4: str, currency: str, start: date, end: date,
            card: bool = False) -> Account:
    rng = d.rng
    opening = cents(rng, 50, 9000)
    if d.large:
        opening = Decimal("1234567.89") if rng.random() < 0.5 else cents(rng, 100000, 2000000)
    if d.negative:
        opening = -cents(rng, 10, 300)
    if card:
        opening = -cents(rng, 0, 4000)
    dates = sorted(start + timedelta(days=rng.randint(0, (end - start).days))
                   for _ in range(d.transactions))
    balance = opening
    txs = []
    for when in dates:
        money_in = rng.random() < (0.25 if card else 0.35)
        amount = cents(rng, 1, 2500 if money_in else 400)
        if d.large and rng.random() < 0.15:
            amount = cents(rng, 100000, 1500000)
        if d.negative and not money_in and rng.random() < 0.3:
            amount = cents(rng, 300, 1200)
        amount = amount if money_in else -amount
        balance += amount
        txs.append(Transaction(when, description(rng), amount,
                               None if card else balance))
    return Account(last4, currency, opening, balance, txs)



#: References a bank prints after a description, as held-out scans print them: a payment
#: reference, a card's last digits, a transaction number with letters in it.
#: A card authorisation prints two numbers apart (`AUTH 004512 11/02`), as real statements
#: do: OCR must not join them, nor split a long reference (`REF 2025110400193`).
REFERENCES = ("REF {n:013d}", "CARD ENDING {n4:04d}", "TXN {n:010d}-{L}",
              "AUTH {n6:06d} {d:%m/%d}", "ON {d:%m/%d}")


def with_references(acct: Account) -> Account:
    """The account with a reference printed in every description, drawn from the row's
    own date and amount (no draw from the statement's stream, so its money stays the
    same)."""
    txs = []
    for i, t in enumerate(acct.transactions):
        n = int(abs(t.amount) * 100) * 7919 + t.date.toordinal() * 31 + i
        form = REFERENCES[n % len(REFERENCES)]
        ref = form.format(n=n, n4=n % 10_000, n6=n % 1_000_000, L="ABCDEFGHJK"[n % 10],
                          d=t.date)
        txs.append(Transaction(t.date, f"{t.description} {ref}", t.amount, t.balance))
    return Account(acct.account_last4, acct.currency, acct.opening_balance,
                   acct.closing_balance, txs)


def day_end_balances(acct: Account) -> Account:
    """The account as printed when a balance stands only on a day's last row."""
    txs = acct.transactions
    shown = [Transaction(t.date, t.description, t.amount,
                         t.balance if i + 1 == len(txs) or txs[i + 1].date != t.date else None)
             for i, t in enumerate(txs)]
    return Account(acct.account_last4, acct.currency, acct.opening_balance,
                   acct.closing_balance, shown)


def without_balances(acct: Account, order: list[Transaction] | None = None) -> Account:
    """The account as printed without a running balance, its rows in `order` if given."""
    txs = [Transaction(t.date, t.description, t.amount) for t in order or acct.transactions]
    return Account(acct.account_last4, acct.currency, acct.opening_balance,
                   acct.closing_balance, txs)
