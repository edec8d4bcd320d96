"""``python -m bench loso-metrics``: leave-one-session-out recall of the labelled
measurements (the pure tabulation; the ingest is the one ``labels-metrics`` runs)."""

from __future__ import annotations

from bench.loso_metrics import WIDTH, fam_table, family, loso, table


def _session(name: str, agent: str, fams: list[str | None],
             extras: dict[str, int] | None = None) -> dict:
    return {"name": name, "agent": agent, "extras": extras or {},
            "metrics": [{"ordinal": i, "value": i, "unit": "", "label": "", "family": f}
                        for i, f in enumerate(fams)]}


def test_family_is_the_tool_or_the_event_kind_and_the_unit() -> None:
    assert family({"tool": "bash", "kind": "result"}, "passed") == "bash:passed"
    assert family({"tool": None, "kind": "decision"}, "s") == "decision:s"
    assert family({"kind": "stat"}, "") == "stat:-"


def test_a_family_true_in_one_session_only_is_left_out_there() -> None:
    sessions = [
        _session("tune/a", "codex", ["bash:s", "bash:rows", None]),
        _session("tune/b", "claude-code", ["bash:s", None], {"bash:rows": 3, "bash:s": 1}),
    ]
    rows, fams = loso(sessions)
    a, b = rows
    assert (a["n"], a["found"], a["loso"], a["fitted"]) == (3, 2, 1, ["bash:rows"])
    assert (b["n"], b["found"], b["loso"], b["fitted"]) == (2, 1, 1, [])
    assert fams["bash:s"] == {"tsess": 2, "true": 2, "extra": 1, "xsess": 0}
    # psql's rows: true in one session, extras above its trues in the other
    assert fams["bash:rows"] == {"tsess": 1, "true": 1, "extra": 3, "xsess": 1}
    text = table(rows) + fam_table(fams)
    assert all(len(line) <= WIDTH for line in text)
    assert any(line.startswith("pooled all") and line.split()[-2:] == ["0.60", "0.40"]
               for line in text)
    assert any("bash:rows" in line and line.endswith("fitted") for line in text)
