"""The look-alike layouts, one description a module: to add a bank, write `<bank>.py`
holding its `LAYOUT` (see `corpus/layout.py` for the words) and list it here."""

from corpus.layout import Layout
from corpus.layouts import bank_of_america, chase, ing, postbank, santander_uk, woodforest

#: in the order the benchmarks draw them
LAYOUTS: tuple[Layout, ...] = tuple(m.LAYOUT for m in (
    bank_of_america, postbank, ing, santander_uk, woodforest, chase))
