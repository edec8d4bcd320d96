"""Do two ``logkb`` builds store the same thing?  A fresh ``logkb ingest`` of the same
inputs with each build, then every table of both knowledge bases compared row by row
(issue 28: a speed-up must leave the output identical).

    python -m bench diff --a /work/bin/logkb-main --b /work/bin/logkb-speed
                         [--wait] [--home] PATH...

Each build ingests ``PATH...`` (``--home``: no path, ``HOME`` at ``bench home``'s 5x
home) into a fresh knowledge base; the tables are then read with DuckDB read-only and
compared as sorted multisets of rows.  Columns that record when a row was written
(``now()``: ``ingested_at``, ``recorded_at``, ...) are left out.  Exit 1 when anything
differs, with the first differing rows of each table.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import duckdb

WHEN = {"ingested_at", "recorded_at", "created_at", "updated_at", "built_at", "scanned_at",
        "applied_at", "marked_at", "at", "since", "started_at", "finished_at", "time_built"}
"""Columns holding the wall-clock time of the write, not anything read."""


def _rows(db: Path) -> dict[str, Counter[tuple[object, ...]]]:
    conn = duckdb.connect(str(db), read_only=True)
    try:
        out: dict[str, Counter[tuple[object, ...]]] = {}
        for (table,) in conn.execute("SELECT table_name FROM duckdb_tables() "
                                     "ORDER BY 1").fetchall():
            cols = [r[0] for r in conn.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
                "ORDER BY column_index", [table]).fetchall()]
            types = dict(conn.execute("SELECT column_name, data_type FROM duckdb_columns() "
                                      "WHERE table_name = ?", [table]).fetchall())
            keep = [c for c in cols if c not in WHEN and not types[c].startswith("TIMESTAMP")]
            sel = ", ".join(f'"{c}"::VARCHAR' for c in keep)
            out[table] = Counter(conn.execute(f'SELECT {sel} FROM "{table}"').fetchall())
        return out
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench diff")
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--wait", action="store_true", help="ingest --wait (graph and index too)")
    ap.add_argument("--home", type=int, default=0, help="no paths: bench home's N-copy home")
    ap.add_argument("paths", nargs="*", type=Path)
    a = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "LOGKB_DB",
                        "PYTHONPATH")}
    # the graph keeps its extractors' state pickled: sets pickle in hash order, which
    # Python randomises per process; a fixed seed makes two runs' bytes comparable
    env["PYTHONHASHSEED"] = "0"
    if a.home:
        from bench.home_bench import build_home

        env["HOME"] = str(build_home(a.home))
    with tempfile.TemporaryDirectory(prefix="logkb-diff-") as tmp:
        dbs = []
        for name, exe in (("a", a.a), ("b", a.b)):
            db = Path(tmp) / f"{name}.duckdb"
            r = subprocess.run([exe, "ingest", "--no-progress", *(["--wait"] if a.wait else []),
                                "--db", str(db), *map(str, a.paths)], env=env,
                               capture_output=True, text=True)
            if r.returncode not in (0, 1, 3):  # 3: some inputs were not transcripts
                sys.exit(f"{exe}: exit {r.returncode}\n{r.stderr[-2000:]}")
            dbs.append(db)
        ra, rb = _rows(dbs[0]), _rows(dbs[1])
    bad = 0
    for table in sorted(set(ra) | set(rb)):
        x, y = ra.get(table, Counter()), rb.get(table, Counter())
        if x == y:
            print(f"  same  {table}: {sum(x.values())} rows")
            continue
        bad += 1
        only_a, only_b = x - y, y - x
        print(f"DIFFER  {table}: {sum(x.values())} vs {sum(y.values())} rows, "
              f"{sum(only_a.values())} only in A, {sum(only_b.values())} only in B")
        for row in list(only_a)[:3]:
            print(f"    A: {str(row)[:300]}")
        for row in list(only_b)[:3]:
            print(f"    B: {str(row)[:300]}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
