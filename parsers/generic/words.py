"""The words an unknown statement's layout is recognised by, beside the shared vocabulary
(`parsers/layout/vocabulary.py`): column headers, the headings that sign a part of a table, and
the words only a card statement prints; English, German, French, Spanish, Portuguese and
Dutch."""

from __future__ import annotations

#: Words only a card statement prints: its balances are what is owed.
CARD_WORDS = ("Minimum Payment Due", "Minimum Payment", "Credit Limit", "Available Credit",
              "Payment Due Date", "Mindestbetrag", "Kreditrahmen", "Paiement minimum",
              "Pago mínimo")
#: A column header word (folded) -> the role it names, in English, German, French,
#: Spanish, Portuguese and Dutch; `ignore` for a column of figures that move no money.
COLUMN_WORDS = {
    **dict.fromkeys(("debit", "debits", "withdrawal", "withdrawals", "out", "soll",
                     "lastschrift", "lastschriften", "belastung", "ausgang", "ausgange",
                     "cargo", "cargos", "retiros", "debito", "debitos", "saida", "saidas",
                     "af", "debet", "payments"), "debit"),
    **dict.fromkeys(("credit", "credits", "deposit", "deposits", "in", "haben", "gutschrift",
                     "gutschriften", "eingang", "eingange", "abono", "abonos", "depositos",
                     "credito", "creditos", "entrada", "entradas", "bij", "receipts"),
                   "credit"),
    **dict.fromkeys(("amount", "betrag", "umsatz", "montant", "importe", "monto", "valor",
                     "bedrag", "transaction amount"), "amount"),
    **dict.fromkeys(("balance", "saldo", "kontostand", "solde", "running"), "balance"),
    # figures that move no money: points and cashback earned, a foreign currency's amount
    **dict.fromkeys(("cashback", "reward", "rewards", "points", "foreign", "fx", "forex",
                     "exchange", "original"), "ignore"),
}
#: Headings of a part of the table whose unsigned amounts are all money in, or all out.
SIGN_HEADINGS = {
    "credit": ("Deposits and Additions", "Deposits and Other Credits",
               "Deposits and Other Additions", "Deposits", "Credits",
               "Payments and Other Credits", "Payments and Credits", "Money In", "Paid In",
               "Gutschriften", "Eingänge", "Habenbuchungen", "Crédits", "Abonos", "Ingresos",
               "Bijschrijvingen"),
    "debit": ("Withdrawals and Subtractions", "Withdrawals and Other Debits", "Withdrawals",
              "Other Withdrawals, Fees & Charges", "Other Withdrawals", "Electronic Withdrawals",
              "ATM & Debit Card Withdrawals", "Debits", "Checks Paid", "Purchases",
              "Purchases and Adjustments", "Fees Charged", "Fees", "Interest Charged",
              "Money Out", "Paid Out",
              "Lastschriften", "Belastungen", "Sollbuchungen", "Débits", "Cargos", "Gastos",
              "Afschrijvingen"),
}
#: Headings of a list of (date, balance) pairs: each the balance at the end of that day,
#: a check on every transaction up to it, never a transaction itself.
DAILY_HEADINGS = ("Daily Ending Balance", "Daily Ending Balances", "Daily Balance",
                  "Daily Balances", "Daily Ledger Balance", "Daily Ledger Balances",
                  "Daily Balance Summary", "Daily Closing Balance Summary",
                  "Daily Closing Balance", "Täglicher Kontostand", "Tagessalden",
                  "Soldes quotidiens", "Saldos diarios", "Dagsaldo")
#: Words a column header line is made of (beside `COLUMN_WORDS`): a line of nothing else is
#: a header, printed over a table or a part of it, never a lost part of a row.
HEADER_WORDS = frozenset((
    "date", "dates", "post", "posted", "posting", "paid", "value", "transaction", "trans",
    "check",
    "checks", "cheque", "number", "no", "no.", "#", "ref", "reference", "description",
    "details", "particulars", "memo", "datum", "buchung", "wert", "valuta", "buchungstag",
    "verwendungszweck", "buchungstext", "vorgang", "libelle", "operation", "valeur",
    "fecha", "concepto", "descripcion", "omschrijving", "valutadatum", "boekdatum",
    *COLUMN_WORDS))
#: How the cells of a summary box that total the money in and the money out end (folded
#: words, punctuation dropped: `Payment/ Credits` is `payment credits`).
SUMMARY_IN = tuple(tuple(p.split()) for p in (
    "payments", "payment credits", "payments credits", "credits", "new credits",
    "other credits", "deposits", "money in", "total credits", "credit s this period",
    "totaal bijgeschreven", "gutschriften", "entradas", "creditos"))
SUMMARY_OUT = tuple(tuple(p.split()) for p in (
    "purchases", "purchase", "purchase debits", "purchases charges", "debits", "new debits",
    "other debits", "cash advance", "cash advances", "other debit charges", "finance charges",
    "fees", "fees charged", "interest", "interest charged", "charges", "withdrawals",
    "money out", "total debits", "debit s this period",
    "totaal afgeschreven", "lastschriften", "salidas", "debitos"))
#: Labels of the amount a card statement asks to be paid, which issuers may round to whole
#: units (the balance it rounds is the rows' to prove).
DUES = ("Total Dues", "Total Amount Due", "Total Payment Due", "Amount Due")
