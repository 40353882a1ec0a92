from __future__ import annotations

from parsers.pdf.crosscheck import _object_numbers


def test_object_numbers_are_those_of_definitions_only() -> None:
    data = (b"%PDF-1.4\n1 0 obj\n<< /Length 9 >>\nstream\n12 0 0 12 70 700 Tm\nendstream\n"
            b"endobj\n2 0 R 3 4 5 obj\nx7 0 obj\n8 0 objx\n9  0 obj\n10 0 obj")
    assert _object_numbers(data) == [1, 4, 7, 10]
