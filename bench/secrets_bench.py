"""What finding and hiding secrets costs (issue 14).

    python -m bench secrets [--messages 10000]

Ingests a generated session (``bench/gen_session.py``, written to ``bench/data/`` if
missing) and reports the share of the ingest spent scanning for secrets (the RE2
prefilter in DuckDB plus the rules on what it lets through), the one-time import of
the rule set, and what redaction adds to reading events back with 20 known secrets.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench secrets")
    ap.add_argument("--messages", type=int, default=10_000)
    args = ap.parse_args(argv)
    src = ROOT / "bench" / "data" / f"session-{args.messages // 1000}k.jsonl"
    if not src.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_session.py"), "--messages",
                        str(args.messages), "--form", "jsonl", str(src)], check=True)

    import kb.ingest as ing
    from kb.redact import Redactor
    from kb.store import KbStore
    from logparse import secrets as finder

    t = time.perf_counter()
    finder.rules()
    print(f"rule set import (detect-secrets): {time.perf_counter() - t:.2f} s")
    spent = [0.0, 0]
    scan = ing.scan_batch

    def timed(*a: object, **k: object) -> int:
        t0 = time.perf_counter()
        try:
            return scan(*a, **k)  # type: ignore[arg-type]
        finally:
            spent[0] += time.perf_counter() - t0
            spent[1] += 1

    ing.scan_batch = timed  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "kb.duckdb"
        t = time.perf_counter()
        with KbStore(db) as store:
            ing.ingest(store, [src], graph=False)
            found = store.conn.execute("SELECT count(*) FROM secrets").fetchone()
        total = time.perf_counter() - t
        print(f"ingest {src.name}: {total:.2f} s; secret scan {spent[0]:.2f} s in {spent[1]} "
              f"batches ({100 * spent[0] / total:.1f} %); {found[0] if found else 0} findings")
        rng = random.Random(1)
        known = {"".join(rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZ23456789abcdefghijk", k=30)):
                 "token" for _ in range(20)}
        with KbStore(db, read_only=True) as store:
            sid = store.resolve_session(None)
            t = time.perf_counter()
            n = len(store.events(sid, raw=True))
            raw = time.perf_counter() - t
            store._redactor = Redactor(known)
            t = time.perf_counter()
            store.events(sid)
            red = time.perf_counter() - t
        print(f"read {n} events: {raw:.2f} s as stored, {red:.2f} s redacted with 20 known "
              f"secrets (+{100 * (red - raw) / raw:.0f} %)")
