"""``logkb timeline``'s line under the throughput sparkline: "best" is the better side of
the quantity (the shortest build, not the longest), one reading says so, and the line
is never cut at 80 columns (it was "first 17.3 at 60, best 17.3 at 60, last …")."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.cli_kb import invoke


def _builds(dst: Path, seconds: list[float]) -> Path:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(9), directory="/home/dev/dur", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="make the build faster", start_ms=1_790_000_000_000)
    s.user("Make the build faster")
    for i, t in enumerate(seconds):
        s.step(f"Building, try {i}.",
               [bash("npm run build", f"> build\n\nCompiled successfully in {t}s\n")])
    s.step("Done.")
    return write_jsonl(s.tree(), dst)


@pytest.mark.parametrize(("seconds", "want"), [
    ([31.2, 12.5, 18.4], "first 31.2 at 2, best 12.5 at 3, last 18.4 at 4"),
    ([17.3], "one reading: 17.3 at 2"),
])
def test_the_line_under_the_sparkline(tmp_path: Path, seconds: list[float], want: str
                                      ) -> None:
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--wait", "--db", str(db), str(_builds(tmp_path / "s.jsonl", seconds)))
    assert r.exit_code == 0, r.stderr
    r = invoke("timeline", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(ln.strip() == want for ln in lines), lines
    assert all(cell_len(ln) <= 80 and "…" not in ln.split("(")[-1] for ln in lines[2:]), lines


def test_direction() -> None:
    from kb.graph.report import direction

    assert direction("s") == -1 and direction("tok/s") == 1 and direction("B") is None


def test_the_json_says_the_direction_and_the_best_reading(tmp_path: Path) -> None:
    import json

    db = tmp_path / "kb.duckdb"
    src = _builds(tmp_path / "s.jsonl", [31.2, 12.5, 18.4])
    assert invoke("ingest", "--wait", "--db", str(db), str(src)).exit_code == 0
    got = json.loads(invoke("timeline", "--json", "--db", str(db)).stdout)
    assert got["direction"] == -1 and got["best"] == {"ordinal": 3, "value": 12.5}
    assert [m["value"] for m in got["throughput"]] == [31.2, 12.5, 18.4]
