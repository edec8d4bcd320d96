"""How shell commands of real sessions are categorised (issue 23 item 6).

    python -m bench categories [--json] [--top N] [PATH ...]

Ingests each transcript of ``../shared/realworld/pool/`` and
``../shared/realworld/labelled/`` (or the paths given) into a knowledge base of its
own in a temp directory and prints, per file, how many shell commands it holds
(events of tool ``bash``), how many are ``other`` and their share, then the totals,
the count per category and, with ``--top``, the programs most often left ``other``.
Files no reader takes (the labels, other agents) are listed as refused.  The target
is at most 25 % ``other`` on the pool and on the labelled files.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REALWORLD = ROOT.parent / "shared" / "realworld"
SETS = ("pool", "labelled")
_SKIP_SUFFIXES = (".md", ".db-shm", ".db-wal")


def default_files() -> list[tuple[str, Path]]:
    out = []
    for name in SETS:
        d = REALWORLD / name
        for p in sorted(d.iterdir()) if d.is_dir() else ():
            if p.is_file() and not p.name.endswith(_SKIP_SUFFIXES):
                out.append((name, p))
    return out


def file_categories(path: Path) -> tuple[list[tuple[str, str]], str | None]:
    """(category, command) of every shell command the file holds, or a refusal."""
    from kb.ingest import ingest
    from kb.store import KbStore

    with tempfile.TemporaryDirectory(prefix="logkb-cat-") as tmp:
        store = KbStore(str(Path(tmp) / "kb.duckdb"))
        try:
            rep = ingest(store, [path], graph=False)
            if not rep.sessions:
                why = rep.errors[0].reason if rep.errors else "no session"
                return [], why
            out = []
            for s in store.sessions():
                for ev in store.events(s["session_id"], kinds=["command"]):
                    if ev.tool == "bash" and ev.command:
                        out.append((ev.category or "other", ev.command))
            return out, None
        finally:
            store.close()


def _program(command: str) -> str:
    from logparse.shell import parse_command

    info = parse_command(command)
    for c in info.commands:
        if c.program and c.program not in ("cd", "echo", "export", "sleep", "set"):
            return c.program
    return command.split(None, 1)[0] if command.split() else ""


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench categories")
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--top", type=int, default=0,
                    help="list the N programs most often left 'other'")
    args = ap.parse_args(argv)
    files = [("args", p) for p in args.paths] or default_files()
    rows: list[dict[str, Any]] = []
    per_set: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    cats: collections.Counter[str] = collections.Counter()
    others: collections.Counter[str] = collections.Counter()
    for group, path in files:
        found, refused = file_categories(path)
        n = len(found)
        n_other = sum(1 for c, _ in found if c == "other")
        rows.append({"set": group, "file": path.name, "commands": n, "other": n_other,
                     "share": round(n_other / n, 3) if n else None, "refused": refused})
        per_set[group]["commands"] += n
        per_set[group]["other"] += n_other
        cats.update(c for c, _ in found)
        others.update(_program(cmd) for c, cmd in found if c == "other")
    total = sum(c["commands"] for c in per_set.values())
    total_other = sum(c["other"] for c in per_set.values())
    summary: dict[str, Any] = {"files": rows,
               "sets": {k: {"commands": v["commands"], "other": v["other"],
                            "share": round(v["other"] / v["commands"], 3) if v["commands"]
                            else None} for k, v in per_set.items()},
               "total": {"commands": total, "other": total_other,
                         "share": round(total_other / total, 3) if total else None},
               "categories": dict(cats.most_common())}
    if args.top:
        summary["other_programs"] = dict(others.most_common(args.top))
    if args.json:
        print(json.dumps(summary, indent=1))
        return
    print(f"{'file':<48} {'cmds':>5} {'other':>5} {'share':>6}")
    for r in rows:
        if r["refused"] is not None:
            print(f"{r['file'][:48]:<48} refused: {str(r['refused'])[:20]}")
            continue
        share = f"{r['share']:.0%}" if r["share"] is not None else "-"
        print(f"{r['file'][:48]:<48} {r['commands']:>5} {r['other']:>5} {share:>6}")
    sets: dict[str, dict[str, Any]] = summary["sets"]
    for k, v in sets.items():
        share = f"{v['share']:.1%}" if v["share"] is not None else "-"
        print(f"{'[' + k + ']':<48} {v['commands']:>5} {v['other']:>5} {share:>6}")
    t: dict[str, Any] = summary["total"]
    share = f"{t['share']:.1%}" if t["share"] is not None else "-"
    print(f"{'[total]':<48} {t['commands']:>5} {t['other']:>5} {share:>6}")
    print("categories: " + ", ".join(f"{k} {v}" for k, v in cats.most_common()))
    if args.top:
        print("most often other: " + ", ".join(f"{k} {v}" for k, v in others.most_common(
            args.top)))
    sys.stdout.flush()
