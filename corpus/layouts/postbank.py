"""Postbank's Kontoauszug: SEPA texts of several lines, signs set apart (`- 580,06`), the
opening balance in the page header's grid and the sums in a grid under the table."""

from corpus.layout import Digits, Ensure, Layout, Line, Skip, Table, month
from corpus.render import Col

LAYOUT = Layout(
    bank="postbank", paper="a4", currency="EUR", period=month, purposes=True,
    number=(Digits(0, 999_999, 6), Digits(0, 9999, 4)),
    header=(
        Line(((69, "Postbank Hamburg 22283 Hamburg"), (376, "Postbank Direkt-Service:")),
             pages="first"),
        Line(((69, "{holder:title}"), (376, "www.postbank.de")), pages="first"),
        Skip(pages="first"),
        Line(((69, "Kontoauszug: Postbank Giro plus vom {start:%d.%m.%Y} bis {end:%d.%m.%Y}"),),
             pages="first"),
        Skip(pages="first"),
        Line(((75, "Auszug"), (118, "Seite"), (160, "IBAN"), (310, "BIC (SWIFT)"),
              (392, "Alter Kontostand")), pages="first"),
        Line(((75, "Auszug"), (118, "Seite"), (160, "IBAN"), (310, "BIC (SWIFT)")),
             pages="later"),
        Line(((75, "001"), (118, "{page}"), (160, "DE31 2001 0020 {number:grouped}"),
              (310, "PBNKDEFF"), (392, "EUR"), (-544, "{opening:de ±}")), pages="first"),
        Line(((75, "001"), (118, "{page}"), (160, "DE31 2001 0020 {number:grouped}"),
              (310, "PBNKDEFF")), pages="later"),
        Skip(),
    ),
    body=(
        Table(columns=(Col("Buchung", 75), Col("Wert", 118),
                       Col("Vorgang/Buchungsinformation", 160, width=260),
                       Col("Soll", 465, "right"), Col("Haben", 544, "right")),
              cells=("{date:%d.%m.}", "{date:%d.%m.}", "{text}", "{debit:de ±}",
                     "{credit:de ±}")),
        Ensure(7),
        Skip(),
        Line(((75, "Kontonummer"), (225, "BLZ"), (391, "Summe Zahlungseingänge"))),
        Line(((75, "{number}"), (225, "200 100 20"), (391, "EUR"), (-544, "{total_in:de ±}"))),
        Line(((75, "Dispositionskredit"), (225, "Zinssatz für Dispositionskredit"),
              (391, "Summe Zahlungsausgänge"))),
        Line(((75, "EUR 1.000,00"), (225, "11,73 % p.a."), (391, "EUR"),
              (-544, "{total_out:de ±}"))),
        Line(((75, "Zinssatz für geduldete Überziehung"), (225, "Anlagen"),
              (391, "Neuer Kontostand"))),
        Line(((75, "15,25 % p.a."), (225, "0"), (391, "EUR"), (-544, "{closing:de ±}"))),
    ),
)
