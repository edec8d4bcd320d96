"""TUI benchmark: how fast the timeline opens, jumps and filters on big sessions.

    python -m bench tui [--sizes 10000,100000] [--runs 3] [--json]

Sessions come from ``bench/gen_session.py`` and are ingested once into
``bench/data/tui-N.duckdb`` (cached; ``make clean`` removes them).  Each run is a
fresh subprocess that starts the real app headless at 120x40 (``App.run_test``)
with ``--session``/``--at`` semantics and measures, on the UI's own clock:

* ``import_s``     importing ``tui.app`` (Textual and friends);
* ``first_paint_s`` from building the app to the timeline's visible rows painted
  (lease opened, session resolved, index read, first page fetched, drawn);
* ``jump_ms``      ``:`` to an ordinal far away: rows there painted;
* ``jump_detail_ms`` the same, until the detail pane shows the step;
* ``next_prompt_ms`` / ``filter_ms`` / ``search_ms`` / ``clear_ms`` / ``scroll_ms``:
  the next user prompt (flag navigation: the generated sessions have no failures),
  a category filter, a search across commands, outputs and prose, clearing it, and
  a page down, each until the rows are painted;
* ``rss_mb``       peak resident memory of the process;
* ``terminal_s``   (with tmux) from starting the real ``logkb tui --at N`` in a
  120x40 terminal to that row on screen: process start and imports included.

Targets (issue 5): 10k first paint < 1 s, jump and filter < 100 ms, memory <
300 MB; 100k opens in < 2 s.  Figures are the median of ``--runs``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

CHILD = r"""
import asyncio, json, resource, sys, time
t0 = time.perf_counter()
import tui.app
from kb.views import PROMPT, TimelineFilter
from tui.screens.timeline import TimelineScreen
from tui.widgets import DetailPane, TimelineView
t_import = time.perf_counter() - t0
db, at, far = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

# "painted" = the visible rows are loaded and the view drew a loaded row of that very
# state (index generation, pages fetched) after the action started.  pilot.pause()
# is not used: it waits for the whole process to go idle, which no user waits for.
drawn = {"state": None, "t": 0.0}
_render_line = TimelineView.render_line
def render_line(self, y):
    strip = _render_line(self, y)
    if self.row_at(round(self.scroll_y) + y) is not None:
        drawn["state"] = (self._generation, self.pages_loaded)
        drawn["t"] = time.perf_counter()
    return strip
TimelineView.render_line = render_line

async def main():
    out = {"import_s": t_import}
    t = time.perf_counter()
    app = tui.app.make_app(db, at=at)

    async def until(pred, limit=60.0):
        end = time.perf_counter() + limit
        while not pred():
            if time.perf_counter() > end:
                raise TimeoutError(f"benchmark step did not finish: {out}")
            await asyncio.sleep(0.001)

    def timeline():
        s = app.screen
        if not isinstance(s, TimelineScreen) or not s.is_mounted:
            return None
        found = s.query(TimelineView)
        return (s, found.first()) if found else None

    def loaded():
        got = timeline()
        if got is None:
            return False
        s, v = got
        return v.index is not None and v.index.filter == s.filter and v.visible_loaded()

    async def painted(since):
        def done():
            if not loaded():
                return False
            _, v = timeline()
            return (drawn["t"] >= since
                    and drawn["state"] == (v._generation, v.pages_loaded))
        await until(done)
        return drawn["t"] - since

    async with app.run_test(size=(120, 40)) as pilot:
        out["first_paint_s"] = await painted(t)
        screen, view = timeline()
        pane = screen.query_one(DetailPane)
        await until(lambda: pane.detail is not None and not app.busy())
        out["rows"] = len(view.index)

        async def timed(action, detail=False):
            await pilot.pause(0.3)
            t = time.perf_counter()
            action()
            ms = await painted(t) * 1000
            if not detail:
                await until(lambda: not app.busy())
                return ms
            key = view.current_key
            await until(lambda: pane.detail is not None and
                        (pane.detail.ordinal, pane.detail.seq, pane.detail.src) == key)
            return ms, (time.perf_counter() - t) * 1000

        out["jump_ms"], out["jump_detail_ms"] = await timed(lambda: screen.jump(far), True)
        out["next_prompt_ms"] = await timed(lambda: view.move_to(
            view.index.next_with(view.cursor, PROMPT) or 0, center=True))
        out["filter_ms"] = await timed(
            lambda: screen.set_filter(TimelineFilter(categories=("benchmark",))))
        out["filter_rows"] = len(view.index)
        out["search_ms"] = await timed(
            lambda: screen.set_filter(TimelineFilter(text="cuda graph")))
        out["search_rows"] = len(view.index)
        out["clear_ms"] = await timed(lambda: screen.set_filter(TimelineFilter()))
        out["scroll_ms"] = await timed(lambda: view.action_page(1))
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(main())
"""


def kb_for(messages: int) -> Path:
    """The knowledge base of a generated session of ``messages`` messages (cached)."""
    DATA.mkdir(exist_ok=True)
    db = DATA / f"tui-{messages}.duckdb"
    if db.exists():
        return db
    src = DATA / f"session-{messages}.jsonl"
    if not src.exists():
        subprocess.run([sys.executable, str(HERE / "gen_session.py"), "--messages",
                        str(messages), "--form", "jsonl", str(src)], check=True)
    print(f"ingesting {src.name} (once)…", file=sys.stderr, flush=True)
    tmp = db.with_suffix(".tmp.duckdb")
    tmp.unlink(missing_ok=True)
    logkb = Path(sys.executable).parent / "logkb"
    subprocess.run([str(logkb), "ingest", "--db", str(tmp), str(src)],
                   check=True, stdout=subprocess.DEVNULL, cwd=HERE.parent)
    tmp.rename(db)
    return db


def run_once(db: Path, at: int, far: int) -> dict[str, float]:
    r = subprocess.run([sys.executable, "-c", CHILD, str(db), str(at), str(far)],
                       capture_output=True, text=True, cwd=HERE.parent, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def terminal_paint(db: Path, at: int) -> float | None:
    """Seconds from starting ``logkb tui --at AT`` in a real terminal (tmux, 120x40) to
    that row being on screen: process start and imports included.  None without tmux."""
    import os
    import re
    import shutil
    import time

    if shutil.which("tmux") is None:
        return None
    sock = f"logkb-bench-{os.getpid()}-{time.monotonic_ns()}"
    env = {"PATH": os.environ["PATH"], "TERM": "xterm-256color", "LANG": "C.UTF-8",
           "HOME": os.environ.get("HOME", "/tmp")}
    logkb = Path(sys.executable).parent / "logkb"
    row = re.compile(rf"^\s*{at} .\s+[a-z]{{4}}", re.M)

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", sock, *args], env=env, capture_output=True,
                              text=True).stdout

    t = time.perf_counter()
    tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "bench",
         f"{logkb} tui --db {db} --at {at}")
    try:
        while time.perf_counter() - t < 60:
            if row.search(tmux("capture-pane", "-p", "-t", "bench")):
                return time.perf_counter() - t
            time.sleep(0.01)
        return None
    finally:
        tmux("kill-server")


TARGETS = {"first_paint_s": (1.0, 2.0), "jump_ms": (100, None), "filter_ms": (100, None),
           "search_ms": (100, None), "rss_mb": (300, None)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench tui")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=3, help="median of N fresh processes")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        db = kb_for(n)
        at = n // 2
        results = [run_once(db, at, max(1, n // 10)) for _ in range(args.runs)]
        row: dict[str, float | int] = {"messages": n}
        for k in results[0]:
            vals = [r[k] for r in results]
            row[k] = round(statistics.median(vals), 3 if k.endswith("_s") else 1)
        term = [terminal_paint(db, at) for _ in range(args.runs)]
        if all(t is not None for t in term):
            row["terminal_s"] = round(statistics.median(term), 3)  # type: ignore[arg-type]
        rows.append(row)
        print(_fmt(row), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    cols = list(rows[0])
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r.get(c, "")) for c in cols))


def _fmt(r: dict[str, float | int]) -> str:
    return (f"{r['messages']:>7} msgs ({r['rows']} rows): first paint {r['first_paint_s']} s "
            f"(import {r['import_s']} s), jump {r['jump_ms']} ms (detail "
            f"{r['jump_detail_ms']} ms), next prompt {r['next_prompt_ms']} ms, filter "
            f"{r['filter_ms']} ms, search {r['search_ms']} ms, clear {r['clear_ms']} ms, "
            f"page {r['scroll_ms']} ms, RSS {r['rss_mb']} MB"
            + (f"; in a terminal {r['terminal_s']} s" if "terminal_s" in r else ""))


if __name__ == "__main__":
    main()
