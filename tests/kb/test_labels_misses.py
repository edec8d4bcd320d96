"""The miss-lister of the label sets (bench.labels_misses): what it prints of a result."""

from __future__ import annotations

from bench.labels_misses import _ords, labels, report


def _result() -> dict[str, object]:
    label = {"dead_ends": [
        {"name": "height prop", "kind": "superseded", "evidence": [196, 201],
         "cause_keywords": ["height"]},
        {"name": "overflow-hidden", "kind": "misdiagnosis", "evidence": [168, 192],
         "cause_keywords": ["portfolio"]}]}
    dead = [{"name": "x.tsx: const h (taken back)", "status": "dead_end",
             "cause": "took back", "why": "Wait, h is a const of the height",
             "evidence": [{"ordinal": 196}, {"ordinal": 201}]},
            {"name": "`git log`", "status": "dead_end", "cause": "not visible",
             "evidence": [{"ordinal": 438}, {"ordinal": 441}]}]
    return {"name": "ui", "label": label, "lab_de": [{196, 201}, {168, 192}], "dead": dead,
            "got": {0: 0}, "labelled": {168, 192, 196, 201}, "traps": {438},
            "views": {168: "assistant: edit `App.tsx`", 192: "user: [prompt] bg still overflows",
                      438: "assistant: bash `git log` exit 0"}}


def test_it_lists_the_missed_and_the_unlabelled() -> None:
    out = "\n".join(report(_result(), causes=True))
    assert "found 1/2, reported 2 (1 true)" in out
    assert "MISS  overflow-hidden" in out and "keywords ['portfolio']" in out
    assert "168 assistant: edit `App.tsx`" in out and "192 user:" in out
    assert "EXTRA `git log`" in out and "438 TRAP assistant: bash `git log`" in out
    # a matched one whose cause holds a keyword (in `why`) is no CAUSE line
    assert "CAUSE" not in out
    assert "MISS  height prop" not in out


def test_ordinals_of_evidence_and_the_sets() -> None:
    assert _ords({"evidence": [{"ordinal": 3}, 4, {"ordinal": None}]}) == {3, 4}
    for which in ("shared", "tune"):
        pairs = labels(which)
        assert pairs and all(t.exists() for _, t in pairs), which
