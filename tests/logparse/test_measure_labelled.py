"""Measurement recall on the hand-labelled real sessions of ``../shared/realworld/labelled``.

Scored with code of its own, the way ``score-labelled/score.py`` scores ``logkb events
--json``: a labelled metric (``{ordinal, value, unit, label}``) counts as found when an event
at that ordinal ±1 carries a measurement of that value (rounded to 3 places).  Non-numeric
labelled values (versions) are not counted.  The floors are what the rules reach today
(recorded in BENCHMARKS.md); a drop below them is a regression.

Run ``pytest -s tests/logparse/test_measure_labelled.py`` to print the per-session table.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from logparse.derive import derive_session, to_events
from logparse.registry import detect

LABELLED = Path(__file__).resolve().parents[3] / "shared" / "realworld" / "labelled"
SESSIONS = ("k1", "uicomponents", "uicomponents-wordpress", "pfm", "stunning-memory")
# found / labelled, per session, as reached when this test was written
# (k1, uicomponents and pfm lost their grep hit counts, "63 matches", "13 matches" and "10
# grep hits", when grep hits stopped being measurements: issue 22 item 5; k1 its subagent's
# run time labelled "1010 s", now read to the millisecond, 1009.6 s)
FLOORS = {"k1": 13, "uicomponents": 10, "uicomponents-wordpress": 10, "pfm": 1,
          "stunning-memory": 7}
TOTAL_FLOOR = 0.74  # 0.81 before grep hit counts stopped being measurements

pytestmark = pytest.mark.skipif(not LABELLED.is_dir(), reason=f"no labelled set at {LABELLED}")


def _number(v: object) -> float | None:
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


def _score(name: str, tmp: Path) -> tuple[int, int, list[dict]]:
    label = json.loads((LABELLED / f"{name}.json").read_text(encoding="utf-8"))
    # a copy: SQLite may leave -shm/-wal files next to a database it reads
    path = Path(shutil.copy(LABELLED / label["file"], tmp))
    problems: list = []
    want = label.get("session_id")
    by_ordinal: dict[int, set[float]] = {}
    for session in detect(path)().sessions(path, problems):
        if want and session.session_id != want:
            continue
        batch, _ = derive_session(session.session_id, str(path), session.messages)
        for e in to_events(session.session_id, batch):
            for m in e.measurements:
                by_ordinal.setdefault(e.ordinal, set()).add(round(m.value, 3))
        break
    metrics = [m for m in label.get("metrics", []) if _number(m["value"]) is not None]
    missed = [m for m in metrics
              if not any(round(_number(m["value"]), 3) in by_ordinal.get(m["ordinal"] + k, ())
                         for k in (-1, 0, 1))]
    return len(metrics) - len(missed), len(metrics), missed


def test_measurement_recall_on_the_labelled_sessions(tmp_path: Path) -> None:
    rows = {name: _score(name, tmp_path) for name in SESSIONS}
    found = sum(r[0] for r in rows.values())
    total = sum(r[1] for r in rows.values())
    print(f"\n{'session':24} {'found':>7} {'recall':>7}")
    for name, (f, n, missed) in rows.items():
        print(f"{name:24} {f:>3}/{n:<3} {f / n if n else 0:>7.2f}")
        for m in missed:
            print(f"    missed #{m['ordinal']} {m['value']} {m['unit']} ({m['label']})")
    print(f"{'all':24} {found:>3}/{total:<3} {found / total:>7.2f}")
    for name, (f, _, _) in rows.items():
        assert f >= FLOORS[name], f"{name}: {f} found, floor {FLOORS[name]}"
    assert found / total >= TOTAL_FLOOR
