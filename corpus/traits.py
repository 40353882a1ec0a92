"""Statements of banks no template knows, printing what real statements print.

Real statements from eight countries print things the reference layouts never do: Indian
digit grouping (`5,21,16,725.67`), a space between thousands (`2 795.35`), rows newest
first, no account number, balance-only rows among the rows (`SALDO DO DIA`, `B/F`), the
balances only in a summary box (labels over figures), yearless row dates or two-digit
years (with a time or not), a reversal printed as a negative withdrawal, legal text and
repeated headers in the table area, pages set sideways with `/Rotate 90`, value-date and
reference columns, a decoy table after `End of Statement`, Dutch, Spanish and Portuguese
words, and a card's statement (what is owed, `Total Dues`, credits marked `Cr`).
`real_world(traits)` draws one such statement with its truth, for the generic reader
(`parse_pdf(..., templates=[])`) to read; `contradicted` prints one balance off by ten
cents while the rows stay, a statement no reader may validate.
"""

from __future__ import annotations

import calendar
import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from corpus.banks import Printed
from corpus.forms import carry_row, lines
from corpus.pens import ReportlabPen, narrow_space_fonts
from corpus.render import FONTS, Col, Furniture, Sheet
from corpus.truth import Draw, account
from corpus.variant import PLAIN, Variant
from parsers.model import Account, Statement, Transaction
from parsers.numbers import format_amount

#: Every trait `real_world` draws; a language trait picks the words of the whole page.
TRAITS = ("indian-grouping", "space-grouping", "narrow-space-grouping", "newest-first",
          "no-account-number", "balance-rows", "summary-box", "yearless-dates",
          "short-year", "short-year-time", "reversal", "page-furniture", "rotated", "five-columns",
          "end-decoy", "dutch", "spanish", "portuguese", "card", "centred-cells")
LANGUAGES = {"dutch": "nl", "spanish": "es", "portuguese": "pt"}
#: How a statement is made to contradict itself: its closing balance, or one running
#: balance in the middle of the rows, printed ten cents off.
CONTRADICTIONS = ("closing", "running")
OFF = Decimal("0.10")
#: The space each grouping trait sets between thousands (a no-break space, U+00A0, is
#: read back from a PDF as a plain one: the same figure as `space-grouping`).
SPACES = {"space-grouping": " ", "narrow-space-grouping": "\u202f"}
#: Traits that group figures (one at most), printing figures of a thousand and more so
#: that their grouping shows.
LARGE = frozenset({"indian-grouping", *SPACES})
#: Traits that print rows in an English layout only (their date forms).
#: Traits that date rows other than in full (one at most); the year stands in the
#: statement date only.
DATES = frozenset({"yearless-dates", "short-year", "short-year-time"})
ENGLISH_ONLY = frozenset({*DATES, "card", *LARGE})
#: What a card statement never prints: no running balance (so no balance rows, nothing
#: newest first to tell by it, no running balance to contradict), one amount column.
NOT_ON_A_CARD = frozenset({"balance-rows", "newest-first", "reversal", "five-columns"})


@dataclass(frozen=True)
class Words:
    """What one language's statement prints."""

    bank: str
    account: str
    period: str  # with {start} and {end}
    statement_date: str
    opening: str
    closing: str  # may hold {end}
    columns: tuple[str, str, str, str, str]  # date, description, out, in, balance
    amount: str  # the one signed column of a layout that prints one
    box: tuple[str, str, str, str]  # opening, money in, money out, closing
    brought: str  # a balance row before the first transaction
    day_end: str  # a day's closing balance row
    end: str
    decoy: str
    legal: str
    currency: str  # a line naming the currency, or ""
    date_format: str
    locale: str
    page: str  # the footer, with {n}
    page_of: str  # the footer with page furniture, with {n} and {total}


WORDS = {
    "en": Words("JUNIPER COAST BANK", "Account number", "Statement period {start} to {end}",
                "Statement date", "Opening balance", "Closing balance",
                ("Date", "Description", "Withdrawals", "Deposits", "Balance"), "",
                ("Previous Balance", "Deposits", "Withdrawals", "Closing Balance"), "B/F",
                "Closing balance for the day", "*** End of Statement ***",
                "Standing instructions due next month",
                "Juniper Coast Bank is regulated by the banking authority. Deposits are "
                "protected up to the limit set by law. Please examine this statement at once "
                "and report any discrepancy within thirty days.", "", "%d %b %Y", "en",
                "Page {n}", "Page {n} of {total}"),
    "nl": Words("ZUIDERBANK N.V.", "Rekeningnummer", "Periode {start} t/m {end}",
                "Datum afschrift", "Beginsaldo", "Eindsaldo",
                ("Datum", "Omschrijving", "Af", "Bij", "Saldo"), "Bedrag",
                ("Beginsaldo", "Totaal bijgeschreven", "Totaal afgeschreven", "Eindsaldo"),
                "Beginsaldo", "Saldo einde dag", "Einde van het afschrift",
                "Geplande overboekingen",
                "Zuiderbank N.V. staat onder toezicht van de toezichthouder. Controleer dit "
                "afschrift en meld verschillen binnen dertig dagen.", "Valuta: EUR",
                "%d-%m-%Y", "de", "Pagina {n}", "Pagina {n} van {total}"),
    "es": Words("BANCO DEL PLATA S.A.", "Número de cuenta", "Período del {start} al {end}",
                "Fecha de emisión", "Saldo anterior", "Saldo al {end}",
                ("Fecha", "Descripción", "Débito", "Crédito", "Saldo"), "",
                ("Saldo anterior", "Créditos", "Débitos", "Saldo final"), "Saldo anterior",
                "Saldo del día", "Fin del extracto", "Débitos programados",
                "Banco del Plata S.A. es una entidad supervisada. Revise este extracto y "
                "comunique cualquier diferencia dentro de los treinta días.", "Moneda: EUR",
                "%d/%m/%Y", "de", "Página {n}", "Página {n} de {total}"),
    "pt": Words("BANCO IPÊ S.A.", "Número da conta", "Período: {start} até {end}",
                "Data do extrato", "Saldo anterior", "Saldo final",
                ("Data", "Histórico", "Débito", "Crédito", "Saldo"), "Valor",
                ("Saldo anterior", "Entradas", "Saídas", "Saldo final"), "Saldo anterior",
                "SALDO DO DIA", "Fim do extrato", "Lançamentos futuros",
                "O Banco Ipê S.A. é supervisionado pelo banco central. Confira este extrato "
                "e informe qualquer divergência em até trinta dias.", "Moeda: EUR",
                "%d/%m/%Y", "de", "Página {n}", "Página {n} de {total}"),
}


def real_world(traits: Iterable[str], index: int = 0, seed: int = 7,
               contradicted: str = "") -> Printed:
    """Statement `index` of a bank no template knows, printing `traits` (of `TRAITS`);
    with `contradicted` (of `CONTRADICTIONS`), one balance printed off while every row and
    the truth stay as they are."""
    chosen = frozenset(traits)
    why = conflict(chosen, contradicted)
    if why:
        raise ValueError(f"{why}: {sorted(chosen)} {contradicted}".rstrip())
    languages = [LANGUAGES[t] for t in chosen if t in LANGUAGES]
    rng = random.Random(f"{seed}:{index}:real-world")
    return _Drawing(rng, chosen, languages[0] if languages else "en", contradicted).draw()


def conflict(traits: frozenset[str], contradicted: str = "") -> str:
    """Why `traits` (and `contradicted`) make no statement; "" when they do."""
    if traits - set(TRAITS) or (contradicted and contradicted not in CONTRADICTIONS):
        return "unknown trait or contradiction"
    languages = [t for t in traits if t in LANGUAGES]
    if len(languages) > 1 or (languages and traits & ENGLISH_ONLY):
        return "traits that print different languages"
    if len(traits & LARGE) > 1:
        return "traits that group figures differently"
    if len(traits & DATES) > 1:
        return "traits that print dates differently"
    if "card" in traits and (traits & NOT_ON_A_CARD or contradicted == "running"):
        return "a card statement prints no running balance"
    return ""


#: The traits a varied corpus draws on the unknown bank: those the generic reader reads
#: exactly on every draw with either page reader (not a page set sideways, which the
#: pdfplumber reader sends to review).
VARIED = ("indian-grouping", "space-grouping", "narrow-space-grouping", "newest-first",
          "balance-rows", "summary-box", "yearless-dates", "short-year", "short-year-time",
          "reversal", "five-columns", "end-decoy", "dutch", "spanish", "portuguese", "card")


def draw_traits(rng: random.Random) -> tuple[str, ...]:
    """One to three of `VARIED` that make a statement together, in `TRAITS` order."""
    while True:
        chosen = frozenset(rng.sample(VARIED, rng.randint(1, 3)))
        if not conflict(chosen):
            return tuple(t for t in TRAITS if t in chosen)


class _Drawing:
    """One statement being drawn: its truth first, then its pages."""

    def __init__(self, rng: random.Random, traits: frozenset[str], lang: str,
                 contradicted: str) -> None:
        self.rng, self.traits, self.lang, self.words = rng, traits, lang, WORDS[lang]
        self.contradicted = contradicted
        year, month = rng.choice([2024, 2025, 2026]), rng.randint(1, 12)
        # a month's last day is past the 12th: the period tells day from month
        self.start = date(year, month, 1)
        self.end = date(year, month, calendar.monthrange(year, month)[1])
        count = rng.randint(60, 70) if "page-furniture" in traits else rng.randint(5, 8)
        last4 = "" if "no-account-number" in traits else f"{rng.randint(0, 9999):04d}"
        acct = account(Draw(rng, count, traits & LARGE != set(), False), last4,
                       "EUR" if self.words.currency else "USD", self.start, self.end,
                       card="card" in traits)
        if "reversal" in traits:
            acct = _with_reversal(acct)
        self.acct = acct

    def has(self, trait: str) -> bool:
        return trait in self.traits

    @property
    def one_amount(self) -> bool:
        """Whether money moves in one signed column (a language's own layout), not in a
        withdrawal and a deposit column (which a reversal and the reference columns need)."""
        return bool(self.words.amount) and not (self.has("reversal")
                                                or self.has("five-columns"))

    # figures and dates as printed

    def figure(self, v: Decimal) -> str:
        """An unsigned figure in the statement's grouping."""
        if self.has("indian-grouping"):
            return indian(v)
        space = next((SPACES[t] for t in self.traits if t in SPACES), "")
        if space:
            return format_amount(v).replace(",", space)
        return format_amount(v, self.words.locale)

    def signed(self, v: Decimal) -> str:
        return ("-" if v < 0 else "") + self.figure(v)

    def row_date(self, d: date) -> str:
        if self.has("yearless-dates"):
            return f"{d:%d %b}"
        if self.has("short-year"):
            return f"{d:%d %b %y}"
        if self.has("short-year-time"):
            minutes = self.rng.randint(0, 24 * 60 - 1)
            return f"{d:%d %b %y} {minutes // 60:02d}:{minutes % 60:02d}"
        return d.strftime(self.words.date_format)

    def long_date(self, d: date) -> str:
        return d.strftime("%d %b %Y" if self.words.locale == "en" else self.words.date_format)

    # the statement

    def draw(self) -> Printed:
        rng, w, acct = self.rng, self.words, self.acct
        font = rng.choice(FONTS[:2])
        if self.has("narrow-space-grouping"):  # a font that prints U+202F
            font = narrow_space_fonts()
        size = 8.0 if self.has("five-columns") else 9.0
        # balances carried and brought forward at a page break (an English bank's words;
        # a page of rows newest first carries nothing forward)
        carry = self.has("balance-rows") and self.lang == "en" and not self.has("newest-first")
        v = Variant(furniture=("footer", "page-of", "repeated-header")
                    if self.has("page-furniture") else (), carry_rows=carry,
                    centred=self.has("centred-cells"))
        furniture = Furniture(footer=w.legal.split(". ")[0] + ".",
                              page_of=w.page_of,
                              repeated=f"{w.bank} - {w.columns[0]} {w.columns[1]}")
        pen = ReportlabPen(font, frozenset({1}) if self.has("rotated") else frozenset())

        def header(s: Sheet, page: int) -> None:
            s.line((50, w.bank), bold=True)
            s.skip()

        s = Sheet("letter", font, size, header, footer=w.page, variant=v, furniture=furniture,
                  pen=pen)
        if acct.account_last4:
            s.line((50, f"Card ending {acct.account_last4}" if self.has("card")
                    else f"{w.account} {self._number()}"))
        if w.currency:
            s.line((50, w.currency))
        if self.traits & DATES:
            s.line((50, f"{w.statement_date}: {self.long_date(self.end)}"))
        else:
            s.line((50, w.period.format(start=self.long_date(self.start),
                                        end=self.long_date(self.end))))
        closing = acct.closing_balance
        if self.contradicted == "closing":
            # (never onto whole units on a card: a due rounded so is what its rows prove)
            whole = self.has("card") and (closing + OFF) % 1 == 0
            closing += -OFF if whole else OFF
        if self.has("card"):
            self._card_box(s, closing)
        elif self.has("summary-box"):
            self._box(s, closing)
        else:
            s.line((50, w.opening), (-330, self.signed(acct.opening_balance)))
            s.line((50, w.closing.format(end=self.long_date(self.end))),
                   (-330, self.signed(closing)))
        s.skip()
        cols = self._columns()
        s.table_header(cols, carry_row(PLAIN, len(cols), 1, self.signed), acct.opening_balance)
        for n, (cells, more, after) in enumerate(self._entries(s, cols)):
            if self.has("page-furniture") and n == 3:
                self._paragraph(s)
            s.row(cells, more, running=after)
        s.end_table()
        if self.has("end-decoy"):
            self._decoy(s, cols)
        truth = Statement("generic", [acct], None if self.traits & DATES else self.start,
                          self.end)
        return Printed(s.finish(), truth, frozenset(f"trait:{t}" for t in self.traits))

    def _number(self) -> str:
        last4 = self.acct.account_last4
        if self.lang == "en":
            return f"{self.rng.randint(1000, 9999)}-{self.rng.randint(100, 999)}-{last4}"
        if self.lang == "nl":  # an IBAN with the bank's letters in it
            digits = f"{self.rng.randint(0, 999999):06d}{last4}"
            return f"NL{self.rng.randint(10, 99)} ZUID {digits[:4]} {digits[4:8]} {digits[8:]}"
        return f"{self.rng.randint(1000, 9999)}-{self.rng.randint(10, 99)}-{last4}"

    def _box(self, s: Sheet, closing: Decimal) -> None:
        """The balances in a row of boxes: each label over its figure."""
        # each the total of its column as printed: a reversal nets off the money out
        txs = self.acct.transactions
        ins = sum((t.amount for t in txs if t.amount > 0 and not is_reversal(t)), Decimal(0))
        outs = -sum((t.amount for t in txs if t.amount < 0 or is_reversal(t)), Decimal(0))
        labels = self.words.box
        figures = (self.acct.opening_balance, ins, outs, closing)
        xs = (50, 185, 320, 455)
        s.line(*zip(xs, labels, strict=True), bold=True)
        s.line(*zip(xs, (self.signed(f) for f in figures), strict=True))

    def _card_box(self, s: Sheet, closing: Decimal) -> None:
        """A card's summary: what was owed, paid, spent and is due, each label over its
        figure (a balance in the holder's favour marked `Cr`), and the due date."""
        txs = self.acct.transactions
        paid = sum((t.amount for t in txs if t.amount > 0), Decimal(0))
        spent = -sum((t.amount for t in txs if t.amount < 0), Decimal(0))
        due = max(-closing, Decimal(0))
        minimum = min(due, max(due * Decimal("0.05"), Decimal("200.00"))).quantize(OFF / 10)
        xs = (50, 160, 270, 380, 490)
        labels = ("Previous Balance", "Payments/Credits", "Purchases/Debits", "Total Dues",
                  "Minimum Payment Due")
        s.line(*zip(xs, labels, strict=True), bold=True)
        s.line(*zip(xs, (self.owed(self.acct.opening_balance), self.figure(paid),
                         self.figure(spent), self.owed(closing), self.figure(minimum)),
                    strict=True))
        s.line((50, f"Payment Due Date: {self.long_date(self.end + timedelta(days=20))}"))

    def owed(self, balance: Decimal) -> str:
        """A card's balance as its holder owes it: owed unsigned, in credit `Cr`."""
        return self.figure(balance) + (" Cr" if balance > 0 else "")

    def _columns(self) -> list[Col]:
        c = self.words.columns
        if self.has("card"):
            return [Col(c[0], 50), Col("Transaction Description", 150, width=300),
                    Col("Amount", 560, "right")]
        if self.has("five-columns"):
            return [Col(c[0], 36), Col(c[1], 92, width=150), Col("Chq./Ref.No.", 250),
                    Col("Value Dt", 330), Col(c[2], 450, "right"), Col(c[3], 515, "right"),
                    Col(c[4], 585, "right")]
        if self.one_amount:
            return [Col(c[0], 50), Col(c[1], 115, width=250), Col(self.words.amount, 470,
                                                                  "right"),
                    Col(c[4], 560, "right")]
        return [Col(c[0], 50), Col(c[1], 120, width=220), Col(c[2], 420, "right"),
                Col(c[3], 490, "right"), Col(c[4], 570, "right")]

    def _entries(self, s: Sheet, cols: list[Col]
                 ) -> list[tuple[list[str], list[str], Decimal | None]]:
        """Each printed row: its cells, its description's further lines and the balance
        after it (for a page break to carry forward), in print order."""
        acct, w = self.acct, self.words
        width = next(c.width for c in cols if c.width)
        txs = acct.transactions
        off = len(txs) // 2 if self.contradicted == "running" else -1
        out: list[tuple[list[str], list[str], Decimal | None]] = []
        if self.has("balance-rows"):
            out.append(self._balance_row(self.start, w.brought, acct.opening_balance, cols))
        for n, t in enumerate(txs):
            # (a web page's cell wraps sooner, and after a hyphen: `7781-` over `ALPHA`)
            desc, *more = (_web_wrapped(s, t.description, width * 0.6)
                           if self.has("centred-cells") else
                           lines(s, PLAIN, t.description, width))
            cells = [self.row_date(t.date), desc]
            if self.has("five-columns"):
                reference = self.rng.randint(0, 10**12 - 1)
                value_date = t.date + timedelta(days=self.rng.choice([0, 0, 1]))
                cells += [f"{reference:012d}", value_date.strftime("%d/%m/%y")]
            if self.has("card"):  # a purchase unsigned, a payment or a refund `Cr`
                out.append(([*cells, self.owed(t.amount)], more, None))
                continue
            if t.balance is None:
                raise ValueError(f"transaction {n + 1} has no balance: a statement with a "
                                 "balance column draws one on every row")
            balance = t.balance + (OFF if n == off else 0)
            cells += [*self._money(t), self.signed(balance)]
            out.append((cells, more, t.balance))
            last_of_day = n + 1 == len(txs) or txs[n + 1].date != t.date
            if self.has("balance-rows") and w.day_end == "SALDO DO DIA" and last_of_day:
                out.append(self._balance_row(t.date, w.day_end, t.balance, cols))
        if self.has("newest-first"):
            out.reverse()
        return out

    def _money(self, t: Transaction) -> list[str]:
        if self.one_amount:
            return [self.signed(t.amount)]
        if is_reversal(t):
            return ["-" + self.figure(t.amount), ""]
        return [self.figure(t.amount) if t.amount < 0 else "",
                self.figure(t.amount) if t.amount > 0 else ""]

    def _balance_row(self, d: date, label: str, balance: Decimal, cols: list[Col]
                     ) -> tuple[list[str], list[str], Decimal]:
        cells = [""] * len(cols)
        cells[0], cells[1], cells[-1] = self.row_date(d), label, self.signed(balance)
        return cells, [], balance

    def _paragraph(self, s: Sheet) -> None:
        """A legal paragraph across the table, between its rows."""
        s.skip(0.5)
        for text in s.wrap(self.words.legal, 480, max_lines=4):
            s.line((50, text))
        s.skip(0.5)

    def _decoy(self, s: Sheet, cols: list[Col]) -> None:
        """`End of Statement`, then a table of what is to come, in the same columns."""
        s.skip()
        s.line((50, self.words.end), bold=True)
        s.skip()
        s.line((50, self.words.decoy), bold=True)
        s.table_header(cols)
        balance = self.acct.closing_balance
        for k in range(2):
            when = self.end + timedelta(days=5 + 7 * k)
            amount = Decimal(self.rng.randint(2000, 90000)) / 100
            balance -= amount
            cells = [""] * len(cols)
            cells[0], cells[1] = self.row_date(when), "STANDING ORDER RENT"
            if self.has("card"):
                cells[-1] = self.figure(amount)
            else:
                cells[-1] = self.signed(balance)
                cells[-2 if self.one_amount else -3] = self.figure(amount)
            s.row(cells)
        s.end_table()


def indian(v: Decimal) -> str:
    """An unsigned figure in Indian grouping: thousands, then lakhs and crores by two
    digits (`5,21,16,725.67`)."""
    whole, cents = f"{abs(v):.2f}".split(".")
    head, tail = whole[:-3], whole[-3:]
    groups = []
    while len(head) > 2:
        groups.insert(0, head[-2:])
        head = head[:-2]
    return ",".join([g for g in (head, *groups) if g] + [tail]) + "." + cents


def _with_reversal(acct: Account) -> Account:
    """The account with its first withdrawal reversed on the same day: money back in,
    printed in the withdrawal column as a negative figure among its unsigned ones."""
    txs = list(acct.transactions)
    outs = [i for i, t in enumerate(txs) if t.amount < 0]
    if len(outs) < 2:  # a reversal stands out against its column's own unsigned figures
        return acct
    first = txs[outs[0]]
    txs.insert(outs[0] + 1, Transaction(first.date, "REVERSAL " + first.description,
                                        -first.amount))
    balance, out = acct.opening_balance, []
    for t in txs:
        balance += t.amount
        out.append(Transaction(t.date, t.description, t.amount, balance))
    return Account(acct.account_last4, acct.currency, acct.opening_balance, balance, out)


def is_reversal(t: Transaction) -> bool:
    return t.description.startswith("REVERSAL ")


__all__ = ["CONTRADICTIONS", "TRAITS", "VARIED", "conflict", "draw_traits", "indian",
           "real_world"]


def _web_wrapped(s: Sheet, text: str, width: float) -> list[str]:
    """A description wrapped as a browser wraps a table cell: at spaces, and after a
    hyphen inside a word."""
    parts = text.replace("-", "- ").split()
    out, current = [], ""
    for part in parts:
        glue = "" if current.endswith("-") else " "
        trial = f"{current}{glue}{part}" if current else part
        if s.pen.width(trial, False, s.size) <= width or not current:
            current = trial
        else:
            out.append(current)
            current = part
    out.append(current)
    return [line.replace("- ", "-") for line in out]

