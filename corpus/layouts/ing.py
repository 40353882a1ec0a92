"""ING's Kontoauszug: a calendar month, the balances in the first page's header, the value
date under the booking date beside the booking text's second line."""

from corpus.layout import Digits, Ensure, Layout, Line, Skip, Table, calendar_month
from corpus.render import Col

LAYOUT = Layout(
    bank="ing", paper="a4", currency="EUR", period=calendar_month(2021, 2022, 2025),
    purposes=True, number=(Digits(10**9, 10**10 - 1),),
    header=(
        Line(((71, "ING-DiBa AG · 60628 Frankfurt am Main"),), pages="first"),
        Line(((312, "Datum"), (-553, "{end:%d.%m.%Y}")), pages="first"),
        Line(((71, "{holder:title}"), (312, "Alter Saldo"), (-529, "{opening:de signed}"),
              (531, "Euro")), pages="first"),
        Line(((312, "Neuer Saldo"), (-529, "{closing:de signed}"), (531, "Euro")),
             pages="first"),
        Line(((312, "IBAN"), (-553, "DE93 5001 0517 {number:grouped}")), pages="first"),
        Skip(pages="first"),
        Line(((-553, "Seite {page}"),), pages="later"),
        Line(((71, "Girokonto Nummer {number}"),)),
        Line(((71, "Kontoauszug {end:monat} {end.year}"),)),
        Skip(),
    ),
    body=(
        Table(columns=(Col("Buchung", 71), Col("Buchung / Verwendungszweck", 142, width=300),
                       Col("Betrag (EUR)", 553, "right")),
              cells=("{date:%d.%m.%Y}", "{text}", "{amount:de signed}"),
              under=((71, "{valuta:%d.%m.%Y}"),),
              lead=(Line(((71, "Valuta"),)),),
              tail=(Ensure(2), Line(((142, "Neuer Saldo"), (-553, "{closing:de signed}")))),
              after=(Skip(2),)),
        Line(((71, "Kunden-Information"),)),
        Line(((71, "Vorliegender Freistellungsauftrag"), (-553, "0,00"))),
    ),
)
