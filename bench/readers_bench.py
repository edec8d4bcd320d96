"""Peak memory of the Gemini CLI, pi, Antigravity and Claude Code readers on a large file.

    python -m bench readers [--mb 200] [--tree DIR] [--only gemini-cli,pi,antigravity]
                            [--unknown 1000000] [--runs 1] [--json]

Each file is built from one real session's own lines, repeated until it holds ``--mb``
megabytes (``bench/data/readers-<form>-<mb>.jsonl``, cached): ``Axe__session.jsonl`` (Gemini
CLI), ``civ6.ch__session.jsonl`` (pi), ``Xeus__gemini-session.jsonl`` (Antigravity) from
``../shared/realworld/pool``.  A copy after the first leaves out the header and makes the
ids it repeats its own (a Gemini CLI message's ``id``; a pi entry's ``id``/``parentId``
and a call's id in its call and its result), so the file reads as one long session, not
as the same messages written again.  ``claude-unknown`` (not in the default ``--only``)
is the labelled ``will-it-rain__claude.jsonl``'s first prompt and first reply with
``--unknown`` records of a type no reader knows between them
(``bench/data/readers-claude-unknown-<N>.jsonl``): what holding records without an
ordinal costs.  ``claude-stream`` (not in the default ``--only`` either) is the recorded
``fixtures/claude_record/recorded/task_stream/stream-json/run.jsonl`` repeated (its uuids,
message and tool-use ids made each copy's own, one ``session_id``: one session of many
runs).  Only the reader runs (no knowledge base), in a
fresh subprocess whose peak RSS is its own; ``--tree`` names the source tree it imports
(another worktree: the figures before a change).  It prints the messages by role, so two
trees can be compared on what they read as well as on what it cost.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
POOL = HERE.parent.parent / "shared" / "realworld" / "pool"
SOURCES = {"gemini-cli": "Axe__session.jsonl", "pi": "civ6.ch__session.jsonl",
           "antigravity": "Xeus__gemini-session.jsonl"}
READERS = {"gemini-cli": "logparse.gemini_cli:GeminiCliReader",
           "pi": "logparse.pi:PiReader", "antigravity": "logparse.antigravity:AntigravityReader",
           "claude-unknown": "logparse.claude_code:ClaudeCodeReader",
           "claude-stream": "logparse.claude_stream:ClaudeStreamReader"}
STREAM = HERE.parent / "fixtures" / "claude_record" / "recorded" / "task_stream" / \
    "stream-json" / "run.jsonl"
"""``claude -p --output-format stream-json`` output recorded on loopback (two runs)."""
CLAUDE = HERE.parent.parent / "shared" / "realworld" / "labelled" / "will-it-rain__claude.jsonl"
UNKNOWN = (b'{"type":"mystery-record","sessionId":"%s","timestamp":"%s","seq":%d,'
           b'"note":"a record of a type this reader does not know"}\n')


def build_unknown(count: int) -> Path:
    """The first prompt and reply of ``will-it-rain`` with ``count`` unknown records
    between them (one session, two messages)."""
    DATA.mkdir(exist_ok=True)
    out = DATA / f"readers-claude-unknown-{count}.jsonl"
    if out.exists():
        return out
    lines = CLAUDE.read_bytes().splitlines()
    said = [i for i, body in enumerate(lines)
            if orjson.loads(body).get("type") in ("user", "assistant")]
    first, second = said[0], said[1]
    rec = orjson.loads(lines[first])
    sid, ts = rec["sessionId"].encode(), rec["timestamp"].encode()
    tmp = out.with_suffix(".tmp")
    with tmp.open("wb") as f:
        f.writelines(body + b"\n" for body in lines[: first + 1])
        f.writelines(UNKNOWN % (sid, ts, i) for i in range(count))
        f.writelines(body + b"\n" for body in lines[first + 1: second + 1])
    tmp.replace(out)
    return out

READ = r"""
import collections, importlib, resource, sys, time
from pathlib import Path
mod, cls = sys.argv[2].split(":")
reader = getattr(importlib.import_module(mod), cls)()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
roles = collections.Counter()
problems = []
first = None
for s in reader.sessions(Path(sys.argv[1]), problems):
    for m in s.messages:
        roles[str(m.info.get("role"))] += 1
        if first is None:
            first = time.perf_counter() - t
import json
print(json.dumps({"seconds": time.perf_counter() - t, "first_message_s": first,
                  "import_rss_mb": base,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "roles": dict(sorted(roles.items())), "problems": len(problems),
                  "skipped": reader.skipped}))
"""


def _suffixed(value: Any, k: int) -> Any:
    return f"{value}~{k}" if isinstance(value, str) else value


def copy_lines(form: str, lines: list[bytes], k: int) -> Iterator[bytes]:
    """The lines of copy ``k`` (0: as they are)."""
    if k == 0:
        yield from lines
        return
    for body in lines:
        o = orjson.loads(body)
        if not isinstance(o, dict):
            yield body
            continue
        if form == "gemini-cli":
            if "projectHash" in o and "type" not in o:
                continue  # the header, once
            if isinstance(o.get("id"), str):
                o["id"] = _suffixed(o["id"], k)
        elif form == "claude-stream":
            for key in ("uuid", "parent_tool_use_id"):
                o[key] = _suffixed(o.get(key), k)
            m = o.get("message")
            if isinstance(m, dict):
                m["id"] = _suffixed(m.get("id"), k)
                for c in m.get("content") if isinstance(m.get("content"), list) else []:
                    if isinstance(c, dict):
                        for key in ("id", "tool_use_id"):
                            if key in c:
                                c[key] = _suffixed(c[key], k)
        elif form == "pi":
            if o.get("type") == "session":
                continue
            o["id"] = _suffixed(o.get("id"), k)
            o["parentId"] = _suffixed(o.get("parentId"), k)
            m = o.get("message")
            if isinstance(m, dict):
                if isinstance(m.get("toolCallId"), str):
                    m["toolCallId"] = _suffixed(m["toolCallId"], k)
                for c in m.get("content") or []:
                    if isinstance(c, dict) and c.get("type") == "toolCall":
                        c["id"] = _suffixed(c.get("id"), k)
        yield orjson.dumps(o)


def build(form: str, mb: int) -> Path:
    DATA.mkdir(exist_ok=True)
    out = DATA / f"readers-{form}-{mb}.jsonl"
    if out.exists():
        return out
    lines = _source(form).read_bytes().splitlines()
    target = mb << 20
    size = 0
    k = 0
    tmp = out.with_suffix(".tmp")
    with tmp.open("wb") as f:
        while size < target or k == 0:  # --mb 0: the session itself, once
            for body in copy_lines(form, lines, k):
                f.write(body + b"\n")
                size += len(body) + 1
            k += 1
    tmp.replace(out)
    return out


def _source(form: str) -> Path:
    return STREAM if form == "claude-stream" else CLAUDE if form == "claude-unknown" \
        else POOL / SOURCES[form]


def measure(form: str, path: Path, tree: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", READ, str(path), READERS[form]],
                         check=True, capture_output=True, text=True, env=env, cwd=tree)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result.update(form=form, file_mb=round(path.stat().st_size / (1 << 20), 1),
                  tree=str(tree))
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench readers",
        description="Peak RSS of the Gemini CLI, pi and Antigravity readers on a large file "
                    "built from a real pool session (bench/readers_bench.py says how).")
    ap.add_argument("--mb", type=int, default=200, help="size of each built file")
    ap.add_argument("--tree", type=Path, default=HERE.parent,
                    help="the source tree whose readers run (default: this one)")
    ap.add_argument("--only", default=",".join(SOURCES), help="forms, comma-separated")
    ap.add_argument("--unknown", type=int, default=1_000_000,
                    help="records of an unknown type in claude-unknown's file")
    ap.add_argument("--runs", type=int, default=1, help="runs each (the lowest RSS kept)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = []
    for form in [f for f in a.only.split(",") if f]:
        if form not in READERS:
            ap.error(f"unknown form {form!r}")
        source = _source(form)
        if not source.is_file():
            print(f"logkb: error: the source file is missing: {source}", file=sys.stderr)
            return 1
        path = build_unknown(a.unknown) if form == "claude-unknown" else build(form, a.mb)
        runs = [measure(form, path, a.tree) for _ in range(max(a.runs, 1))]
        rows.append(min(runs, key=lambda r: r["rss_mb"]))
    if a.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    print(f"{'form':<14} {'file MB':>8} {'peak MB':>8} {'import':>7} {'s':>6} "
          f"{'1st msg s':>9}")
    for r in rows:
        roles = " ".join(f"{k}={v}" for k, v in r["roles"].items())
        print(f"{r['form']:<14} {r['file_mb']:>8} {r['rss_mb']:>8.0f} "
              f"{r['import_rss_mb']:>7.0f} {r['seconds']:>6.1f} "
              f"{r['first_message_s']:>9.2f}")
        skipped = sum(r["skipped"].values())
        print((f"  messages: {roles}" + (f", {skipped:,} skipped" if skipped else ""))[:80])
    return 0


if __name__ == "__main__":
    sys.exit(main())
