"""Scans from another producer (`corpus/photocopy.py`): validated exact, validated, review,
refused and wrong, per source and per copy knob.

The readers were tuned on the project's own scans (`scans.py`); these are drawn by other
code from other statements (look-alike banks, a web page printed by Chromium, long
statements, references in descriptions), so they measure what a held-out scan meets. A
statement is **validated exact** when it validated and its accounts are its truth's (the
bank's name aside: a web page is read by the generic reader), **wrong** when it validated
and they differ — the count that must stay 0 — **review** when it was read but not
validated. The corpus is written once per size and seed into `--dir` and reused; with
`--ocr-cache` tesseract's answers are too, so a change of rules is measured on the same
readings.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter, defaultdict
from pathlib import Path

from benchmarks import corpora
from benchmarks.accuracy import Result
from benchmarks.scans import read_all
from corpus import Sample
from corpus.photocopy import photocopies

COLUMNS = ("validated exact", "validated", "review", "refused", "wrong", "crashed")


def samples(statements: int, seed: int, where: Path | None) -> list[Sample]:
    """The photocopies, written into `where` unless a run of the same size and seed did."""
    out = (where or corpora.work()) / f"foreign-{statements}-{seed}"
    done = out / "complete"
    if done.exists():
        found = []
        for truth in sorted(out.glob("*.truth.json")):
            stem = truth.name.removesuffix(".truth.json")
            variant = json.loads((out / f"{stem}.variant.json").read_text())
            found.append(Sample(out / f"{stem}.pdf", truth, variant["knobs"]["source"], None,
                                variant))
        return found
    found = photocopies(out, statements, seed)
    done.write_text("")
    return found


def columns(r: Result) -> list[str]:
    """The columns of the tally `r` counts in."""
    if r.outcome in ("exact", "other"):
        return ["validated exact", "validated"]
    if r.outcome == "wrong":
        return ["wrong", "validated"]
    return {"flagged": ["review"], "refused": ["refused"]}.get(r.outcome, ["crashed"])


def groups(r: Result) -> list[str]:
    """The rows of the table `r` counts in: all, its source, and its knobs' levels."""
    knobs = r.sample.variant["knobs"]
    copy = knobs["copy"]
    return ["all", f"source {knobs['source']}", f"rows {'60+' if knobs['rows'] >= 60 else '<60'}",
            f"references {'yes' if knobs['references'] else 'no'}", f"dpi {copy['dpi']}",
            f"jpeg {copy['jpeg']}", f"keystone {'yes' if copy['keystone'] else 'no'}",
            f"streak {copy['streak']}"]


def tally(results: list[Result]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        for g in groups(r):
            out[g]["statements"] += 1
            out[g].update(columns(r))
    return dict(sorted(out.items(), key=lambda kv: (kv[0] != "all", kv[0])))


def report(results: list[Result]) -> str:
    """The table of outcomes, each scan's own line, and the commonest problems."""
    lines = [f"{'group':<24}{'n':>4}" + "".join(f"{c:>17}" for c in COLUMNS)]
    for name, t in tally(results).items():
        lines.append(f"{name:<24}{t['statements']:>4}" + "".join(f"{t[c]:>17}" for c in COLUMNS))
    lines.append("\neach scan (outcome, problems, first problem):")
    for r in results:
        first = r.problems[0][:110] if r.problems else r.reason
        lines.append(f"  {r.sample.pdf.name:<36} {r.outcome:<8} {len(r.problems):>4}  {first}")
    seen: Counter[str] = Counter()
    for r in results:
        if r.outcome in ("flagged", "refused"):
            seen.update({re.sub(r"\d[\d,.]*", "#", p)[:90] for p in r.problems})
    lines.append("\nwhy scans went to review or were refused (scans with each problem):")
    lines += [f"  {n:>4}  {p}" for p, n in seen.most_common(15)]
    wrong = [r.sample.pdf.name for r in results if r.outcome == "wrong"]
    lines.append(f"\nWRONG (validated, differs from the truth): {len(wrong)}"
                 + (f": {', '.join(wrong)}" if wrong else ""))
    return "\n".join(lines)


def run(statements: int, seed: int, workers: int, where: Path | None = None,
        cache: Path | None = None) -> list[Result]:
    """Photocopy `statements`, read them with both OCR engines, print the report."""
    found = samples(statements, seed, where)
    print(f"foreign scans: {len(found)} photocopies in {found[0].pdf.parent}, "
          f"{workers} parse worker(s)\n")
    started = time.perf_counter()
    results = read_all(found, "both", workers, cache)
    (found[0].pdf.parent / "results.json").write_text(json.dumps(
        [{"scan": r.sample.pdf.name, "outcome": r.outcome, "problems": r.problems}
         for r in results], indent=1) + "\n")
    print(report(results))
    pages = sum(r.pages for r in results)
    print(f"\n{pages} pages in {time.perf_counter() - started:.0f} s wall")
    return results
