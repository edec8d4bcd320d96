"""``python -m bench cause-reach``: where a labelled dead end's cause keywords lie."""

from __future__ import annotations

from bench.cause_reach import lines, reach, tabulate

EVENTS = [
    # trimmed from labelled/uicomponents__session-wordpress.json (#210, #260)
    {"ordinal": 10, "role": "assistant", "kind": "result",
     "output": "\x1b[31;1mNew-Object: \x1b[31;1mCannot find type "
               "[System.Data.SQLite.SQLiteConnection]\x1b[0m", "text": ""},
    {"ordinal": 11, "role": "user", "kind": "prompt", "output": "",
     "text": "look the react one works, did u make it using dist folder"},
    {"ordinal": 14, "role": "assistant", "kind": "decision", "output": "",
     "text": "WP-CLI says the value is unchanged because when I pass a PowerShell variable "
             "with a JSON string, WP-CLI is stripping the quotes."},
    {"ordinal": 15, "role": "assistant", "kind": "decision", "output": "",
     "text": "Maybe the quotes are the problem here after all."},
]


def test_reach_finds_the_error_line_the_user_and_a_stated_root() -> None:
    assert reach(["sqlite"], EVENTS, 10, 10) == {"error"}
    assert reach(["dist"], EVENTS, 9, 10) == {"user"}
    assert reach(["quot"], EVENTS, 10, 12) == {"root"}
    # a hedged sentence states no root; outside the span nothing counts
    assert reach(["after all"], EVENTS, 10, 12) == frozenset()
    assert reach(["sqlite"], EVENTS, 11, 12) == frozenset()
    assert reach(["dist"], EVENTS, 1, 5) == frozenset()


def test_tabulate_counts_right_and_wrong_per_place_and_lines_fit() -> None:
    rows = [{"session": "s/a", "name": "n", "keywords": ["x"], "choice": "check/error",
             "right": r, "reach": w, "cause": "c" * 200}
            for r, w in ((True, ["error"]), (False, []), (False, []), (True, []))]
    assert tabulate(rows) == [("nowhere", 1, 2), ("error", 1, 0)]
    out = lines(rows)
    assert all(len(ln) <= 80 for ln in out)
    assert sum(1 for ln in out if ln.startswith("  s/a check/error")) == 2
