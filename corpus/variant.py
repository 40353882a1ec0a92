"""The variation knobs of one statement, as data: what a renderer may print differently.

Real statements of one bank differ between years, branches and PDF producers: label wording,
case and colons, where the currency and the sign go, page furniture inside the table area,
balances printed only at a day's end, dates printed once per day, a second producer, scan
quality. `Variant()` is the plain reference layout; `draw_variant` draws a seeded mix of the
variations that the bank would plausibly print and that a careful reader can still read
unambiguously. `Variant.kinds()` names what was applied, so results can be grouped by it.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, replace
from typing import Any

FURNITURE = ("footer", "continued", "page-of", "repeated-header", "watermark")
STRUCTURES = ("two-accounts", "derived-opening", "split-sections")

#: Other wordings of the opening and closing balance labels, per bank.
OPENING = {
    "northwind": ["Opening Balance", "Previous Balance", "Balance brought forward"],
    "bluebird": ["Opening Balance", "Previous Balance", "Balance brought forward"],
    "harbor": ["Previous Statement Balance", "Opening Balance", "Balance brought forward"],
    "alpenbank": ["Anfangssaldo", "Alter Saldo", "Kontostand alt"],
    "meridian": ["Beginning Balance", "Previous Balance", "Balance brought forward"],
}
CLOSING = {
    "northwind": ["Closing Balance", "New Balance", "Balance carried forward"],
    "bluebird": ["Closing Balance", "New Balance", "Balance carried forward"],
    "harbor": ["Statement Balance", "Closing Balance", "New Balance Total"],
    "alpenbank": ["Endsaldo", "Neuer Saldo", "Kontostand neu"],
    "meridian": ["Ending Balance", "New Balance", "Balance carried forward"],
}
#: How the account number's label is written, per bank.
NUMBER = {
    "northwind": ["Account No.", "Account No :", "Account number"],
    "bluebird": ["Member No.", "Member No :", "Member #"],
    "harbor": ["Account No :", "Card ending", "Account ending"],
    "alpenbank": ["Nr:", "No.", "Nummer"],
    "meridian": ["Account No :", "Account Number:", "A/C No."],
}

#: Sign forms a bank would plausibly print: a card marks credits, a German bank a trailing minus.
SIGNS = {"northwind": ["standard", "trailing", "parentheses"],
         "bluebird": ["standard", "trailing", "parentheses"],
         "harbor": ["standard", "leading", "parentheses"],
         "alpenbank": ["standard", "trailing"]}
#: Currency placements of summary figures; Alpenbank's own is the code after the figure.
CURRENCIES = {"northwind": ["standard", "before", "after", "none"],
              "bluebird": ["standard", "before", "after", "none"],
              "harbor": ["standard", "before", "none"],
              "alpenbank": ["standard", "before", "none"]}

#: Which variations each reference layout can show (a card has no running balance; the
#: German statement's purpose lines are already its wrapping; Alpenbank prints two dates;
#: a scan's rows are drawn as a printer's, not a web page's).
APPLIES = {
    "northwind": {"day-end-balance", "date-once", "carry-rows", "missing-header", "sign",
                  "currency", "narrow", "two-accounts", "derived-opening", "split-sections",
                  "centred"},
    "bluebird": {"day-end-balance", "date-once", "carry-rows", "missing-header", "sign",
                 "currency", "narrow", "derived-opening", "centred"},
    "harbor": {"sign", "currency", "narrow", "centred"},
    "alpenbank": {"sign", "currency", "two-accounts", "centred"},
    "meridian": {"day-end-balance", "date-once", "carry-rows", "missing-header", "narrow",
                 "two-accounts", "derived-opening", "scan", "references"},
}


@dataclass(frozen=True)
class ScanQuality:
    """How a paper statement went through the scanner."""

    dpi: int = 240
    skew: float = 0.0  # degrees
    noise: float = 0.0005  # share of pixels speckled
    blur: float = 0.0  # Gaussian radius in pixels
    jpeg: int = 85  # JPEG quality of the embedded page images
    #: A photograph of the sheet rather than a scan: how far (a share of the page's sides)
    #: its corners stand off square on a darker ground, and how much of the light falls
    #: off across it (0: even; 0.4: the dimmest corner at 60% of the brightest).
    perspective: float = 0.0
    light: float = 0.0

    def kinds(self) -> list[str]:
        out = [f"scan:{self.dpi}dpi"]
        if self.perspective or self.light:
            out.append("scan:photo")
        if abs(self.skew) >= 1.0:
            out.append("scan:skew")
        if self.noise >= 0.002:
            out.append("scan:noise")
        if self.blur:
            out.append("scan:blur")
        if self.jpeg <= 60:
            out.append("scan:jpeg")
        return out


@dataclass(frozen=True)
class Variant:
    """One statement's variations; the defaults print the plain reference layout."""

    producer: str = "reportlab"  # or "fpdf2"
    embedded_font: bool = False  # fpdf2 only: an embedded TrueType font
    char_spacing: float = 0.0  # fpdf2 only: points between letters
    word_gap: float = 0.0  # fpdf2 only: words placed one by one, gap in space widths
    by_column: bool = False  # fpdf2 only: text written column by column
    case: str = "as-printed"  # labels "upper", "lower" or "title"
    colon: bool | None = None  # a colon after summary labels (None: as the bank prints)
    period_form: str = "standard"  # "short" (`Period : …`) or "from-to"
    opening_label: str = ""  # "" is the bank's own wording
    closing_label: str = ""
    number_label: str = ""
    currency: str = "standard"  # "before" (`EUR 1,00`), "after" (`1,00 EUR`), "none"
    sign: str = "standard"  # "trailing" (`4.50-`), "parentheses" (`(4.50)`), "leading"
    furniture: tuple[str, ...] = ()
    day_end_balance: bool = False
    date_once: bool = False
    narrow: bool = False  # a narrower description column: more wrapped lines
    carry_rows: bool = False  # balance carried/brought forward rows at page breaks
    header_align: str = "standard"  # "left", "center", "shifted": not over the figures
    header_shift: float = 0.0
    missing_header: bool = False  # no label over the balance column
    value_below: bool = False  # summary figures on the line under their label
    structure: str = ""  # one of STRUCTURES
    scan: ScanQuality | None = None
    isolated: bool = False  # the only variation besides a scan's quality
    references: bool = False  # a reference number after every description (Meridian)
    #: rows as a web page's table prints them: cells centred down the row, padded apart
    centred: bool = False

    def cased(self, label: str) -> str:
        return {"upper": label.upper(), "lower": label.lower(),
                "title": label.title()}.get(self.case, label)

    def label(self, standard: str, own: str = "", colon: bool = False) -> str:
        """A summary label: the variant's wording (or the bank's), its case, its colon."""
        text = self.cased(own or standard)
        with_colon = colon if self.colon is None else self.colon
        return text + ":" if with_colon else text

    def kinds(self) -> list[str]:
        """Names of the variations this variant applies (page furniture and carried rows
        are named by the sheet that drew them)."""
        plain = Variant()
        out = []
        if self.producer != plain.producer:
            out.append(f"producer:{self.producer}")
            details = {"embedded-font": self.embedded_font, "letter-spacing": self.char_spacing,
                       "word-gap": self.word_gap, "by-column": self.by_column}
            out.extend(f"fpdf2:{name}" for name, on in details.items() if on)
        for name in ("case", "period_form", "currency", "sign", "header_align"):
            if getattr(self, name) != getattr(plain, name):
                out.append(f"{name.replace('_', '-')}:{getattr(self, name)}")
        if self.colon is not None:
            out.append("colon" if self.colon else "no-colon")
        for name in ("opening_label", "closing_label", "number_label", "day_end_balance",
                     "date_once", "narrow", "missing_header", "value_below", "references",
                     "centred"):
            if getattr(self, name):
                out.append(name.replace("_", "-"))
        if self.structure:
            out.append(self.structure)
        if self.scan:
            out.extend(self.scan.kinds())
        return out

    def to_dict(self) -> dict[str, Any]:
        """The knobs as JSON holds them (lists, not tuples)."""
        return {**asdict(self), "furniture": list(self.furniture)}


PLAIN = Variant()


#: Knobs that make one variation together (a producer's details, a header's shift).
GROUPS = [("producer", "embedded_font", "char_spacing", "word_gap", "by_column"), ("case",),
          ("colon",), ("period_form",), ("opening_label",), ("closing_label",),
          ("number_label",), ("currency",), ("sign",), ("furniture",), ("day_end_balance",),
          ("date_once",), ("narrow",), ("carry_rows",), ("header_align", "header_shift"),
          ("missing_header",), ("value_below",), ("structure",), ("references",),
          ("centred",)]


def draw_variant(bank: str, ordinal: int, rng: random.Random) -> Variant:
    """A seeded mix of the variations `bank` can show, or (one statement in four) a single
    one of them (besides a scan's quality, or that alone), so that each variation can be
    measured alone as well as mixed; structures
    cycle with `ordinal` (the bank's own statement count) so that a corpus of a few dozen
    has every one."""
    mixed = _mixed(bank, ordinal, rng)
    if ordinal % 4 != 3:
        return mixed
    if mixed.scan and rng.random() < 0.5:  # the scan's quality alone
        return Variant(scan=mixed.scan, isolated=True)
    chosen = [g for g in GROUPS if any(getattr(mixed, f) != getattr(PLAIN, f) for f in g)]
    group = rng.choice(chosen)
    return Variant(**{f: getattr(mixed, f) for f in (*group, "scan")}, isolated=True)


def _mixed(bank: str, ordinal: int, rng: random.Random) -> Variant:
    can = APPLIES[bank]
    structures = [s for s in STRUCTURES if s in can]
    cycle = ["", "", *structures]
    structure = cycle[ordinal % len(cycle)]
    running = structure != "split-sections"
    fpdf2 = rng.random() < 0.4
    header_align = rng.choice(["standard", "standard", "left", "center", "shifted"])
    return Variant(
        producer="fpdf2" if fpdf2 else "reportlab",
        embedded_font=fpdf2 and rng.random() < 0.5,
        char_spacing=rng.choice([0.0, 0.0, 0.15, 0.3]) if fpdf2 else 0.0,
        word_gap=rng.choice([0.0, 1.2, 1.6]) if fpdf2 else 0.0,
        by_column=fpdf2 and rng.random() < 0.5,
        case=rng.choice(["as-printed", "as-printed", "upper", "lower", "title"]),
        colon=rng.choice([None, None, True, False]),
        period_form=rng.choice(["standard", "short", "from-to"]),
        opening_label=rng.choice(["", "", *OPENING[bank]]) if bank in OPENING else "",
        closing_label=rng.choice(["", "", *CLOSING[bank]]) if bank in CLOSING else "",
        number_label=rng.choice(["", "", *NUMBER[bank]]) if bank in NUMBER else "",
        currency=rng.choice(CURRENCIES.get(bank, ["standard"])) if "currency" in can
        else "standard",
        sign=rng.choice(SIGNS.get(bank, ["standard"])) if "sign" in can else "standard",
        furniture=tuple(f for f in FURNITURE if rng.random() < 0.3),
        day_end_balance=running and structure != "derived-opening"
        and "day-end-balance" in can and rng.random() < 0.35,
        date_once="date-once" in can and rng.random() < 0.35,
        narrow="narrow" in can and rng.random() < 0.35,
        carry_rows=running and "carry-rows" in can and rng.random() < 0.4,
        header_align=header_align,
        header_shift=rng.choice([-9.0, -6.0, 6.0, 9.0]) if header_align == "shifted" else 0.0,
        missing_header=running and "missing-header" in can and rng.random() < 0.25,
        value_below=rng.random() < 0.3,
        structure=structure,
        scan=draw_scan(rng) if "scan" in can else None,
        # drawn last, so that every knob before it stays as it was drawn before
        references="references" in can and rng.random() < 0.35,
        centred="centred" in can and rng.random() < 0.25,
    )

def draw_scan(rng: random.Random) -> ScanQuality:
    """Scan quality from 150 to 300 dpi; the worst blur and JPEG stay off the lowest dpi so
    that every page stays readable by a person."""
    dpi = rng.choice([150, 200, 200, 240, 300])
    blur = rng.choice([0.0, 0.0, 0.5, 0.8])
    jpeg = rng.choice([50, 70, 85, 85])
    if dpi == 150:
        blur, jpeg = min(blur, 0.5), max(jpeg, 70)
    q = ScanQuality(dpi=dpi, skew=round(rng.uniform(-1.5, 1.5), 2),
                    noise=rng.choice([0.0005, 0.001, 0.003]), blur=blur, jpeg=jpeg)
    # drawn after the scanner's knobs, so that those stay as they were drawn before
    if rng.random() < 0.25:  # a photograph: turned further, in perspective, unevenly lit
        q = replace(q, skew=round(rng.uniform(-4.0, 4.0), 2),
                    perspective=round(rng.uniform(0.01, 0.04), 3),
                    light=round(rng.uniform(0.15, 0.45), 2))
    return q


__all__ = ["FURNITURE", "PLAIN", "STRUCTURES", "ScanQuality", "Variant", "draw_variant"]
