"""Every bad input gets its own deterministic reason code, quickly."""

from __future__ import annotations

import pytest

from corpus import BAD_INPUTS, Sample
from parsers.api import parse_pdf
from parsers.errors import StatementError


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_gets_its_reason_code(bad_inputs: list[Sample], name: str) -> None:
    sample = next(s for s in bad_inputs if s.pdf.stem == f"bad-{name}")
    with pytest.raises(StatementError) as info:
        parse_pdf(sample.pdf.read_bytes())
    assert info.value.reason == BAD_INPUTS[name][0]
    assert not info.value.transient


def test_unknown_layout_that_does_not_reconcile_is_unrecognised() -> None:
    import io

    from reportlab.pdfgen.canvas import Canvas

    buf = io.BytesIO()
    c = Canvas(buf)
    c.drawString(72, 720, "Quarterly newsletter of the allotment society")
    c.drawString(72, 700, "Date Description Amount")
    c.drawString(72, 680, "01/02/2026 Seeds 12.00")
    c.save()
    with pytest.raises(StatementError) as info:
        parse_pdf(buf.getvalue())
    assert info.value.reason == "unrecognised_layout"


def test_page_limit_is_configurable(bad_inputs: list[Sample]) -> None:
    from parsers.limits import Limits

    sample = next(s for s in bad_inputs if s.pdf.stem == "bad-five-thousand-pages")
    with pytest.raises(StatementError) as info:
        parse_pdf(sample.pdf.read_bytes(), limits=Limits(max_pages=10))
    assert info.value.reason == "too_large"
