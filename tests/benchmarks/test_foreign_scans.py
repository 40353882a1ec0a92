"""The foreign-scans benchmark's tally: validated exact, validated, review, refused and
wrong, per source and copy knob."""

from __future__ import annotations

from pathlib import Path

from benchmarks.accuracy import Result
from benchmarks.foreign_scans import report, tally
from corpus import Sample

KNOBS = {"source": "meridian", "rows": 120, "references": True,
         "copy": {"dpi": 200, "jpeg": 60, "keystone": 0.01, "streak": 2}}


def result(name: str, outcome: str, source: str = "meridian") -> Result:
    sample = Sample(Path(f"{name}.pdf"), Path(f"{name}.truth.json"), source, None,
                    {"kinds": [], "knobs": {**KNOBS, "source": source}})
    return Result(sample, outcome, problems=("row 3: a problem",) if outcome == "flagged"
                  else ())


def test_outcomes_are_counted_in_their_columns_per_group() -> None:
    results = [result("a", "exact"), result("b", "other", "webpage"), result("c", "wrong"),
               result("d", "flagged"), result("e", "refused", "webpage")]
    t = tally(results)
    assert t["all"]["statements"] == 5
    assert (t["all"]["validated exact"], t["all"]["validated"], t["all"]["wrong"],
            t["all"]["review"], t["all"]["refused"]) == (2, 3, 1, 1, 1)
    assert t["source webpage"]["validated exact"] == 1 and t["source webpage"]["refused"] == 1
    assert t["rows 60+"]["statements"] == 5


def test_the_report_names_each_wrong_scan() -> None:
    text = report([result("a", "exact"), result("c", "wrong")])
    assert "WRONG (validated, differs from the truth): 1: c.pdf" in text
    assert report([result("a", "exact")]).endswith("WRONG (validated, differs from the "
                                                   "truth): 0")
