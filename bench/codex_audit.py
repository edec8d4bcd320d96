"""``python -m bench codex-audit [--logkb PATH] [--json] [-v]``: does every Codex call get
the answer its file holds?

For every real Codex rollout in ``../shared/realworld/pool/``, ``labelled/`` and ``codex/``, this
reads the file itself (its own small parser, sharing no code with logkb's reader) and
collects, for each ``function_call``/``custom_tool_call``/``local_shell_call``:

- the output the agent got (``function_call_output``/``custom_tool_call_output``);
- the exit code, from wherever this Codex version put it: ``Exit code: N``, ``Process
  exited with code N``, a JSON ``{"output", "metadata": {"exit_code"}}``, the
  ``exec_command_end`` event of the call (``exit_code``), or, for a command that returned
  ``Process running with session ID N``, the ``write_stdin`` polls of that session and
  the ``exec_command_end`` of the original call id, which arrive later;
- the duration (``Wall time``, ``duration_seconds``, the event's ``duration``);
- an ``apply_patch`` that failed (``verification failed``, ``patch_apply_end`` with
  ``success: false``), a call the user aborted, a call that asked for escalation.

Then it ingests the file with ``--logkb`` into a scratch knowledge base and compares with
what logkb stores (``calls``) and reports open (``untested``).  Each gap is one line:
``FILE  LINE  KIND  detail``.  Kinds:

``exit-missing``        the file holds an exit code the stored call does not carry
``answered-no-result``  logkb says the call never got a result; the file has its output
``output-missing``      the file has the (final) output; the stored call has none of it
``duration-missing``    the file says how long the command ran; the stored call does not
``patch-failure-missed``  an ``apply_patch`` the file says failed is stored as completed
``abort-missed``        a call the user aborted is stored as completed
``escalation-missed``   a call that asked to leave the sandbox is not stored as asking
``poll-as-failure``     a ``write_stdin`` poll carries the exit code of the command it
                        polls (the failure would count twice)
``cell-exit-missing``   a command a code-mode cell ran ended with an exit code (its
                        ``exec_command_end``) that none of the cell's stored calls carries
``poll-open``           an untested question stands at a ``write_stdin`` poll, not at
                        the command it polls
``open-though-answered``  an untested question stands at a run whose answer the agent got
                        later (a poll said the process exited)

Then :mod:`bench.codex_structures` checks every other structure of the file (prompts and
injected context, approvals denied, sandbox denials, escalations, timeouts, failed
patches, aborted turns, web searches, plans, MCP errors, compactions, code-mode cells,
calls left without an answer) against the signals, dead ends and open questions logkb
derives (``--calls-only`` skips it; ``--counts`` prints what each file holds).  The
held-out rollouts are left out unless ``--include-held-out``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.codex_structures import asks_escalation, audit_structures, census, records
from bench.codex_structures import counts as structure_counts
from bench.held_out import held_out as is_held_out

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realworld"

_EXIT = re.compile(r"^(?:Exit code: |Process exited with code )(-?\d+)$", re.M)
_RUNNING = re.compile(r"^Process running with session ID (\d+)$", re.M)
_WALL = re.compile(r"^Wall time: ([\d.]+) seconds$", re.M)
_BODY = "\nOutput:\n"


def codex_files(held_out: bool = False) -> list[Path]:
    """The native Codex rollouts (the first line a ``session_meta`` with a payload)."""
    out = []
    for d in ("labelled", "pool", "codex"):
        for p in sorted((REAL / d).glob("*.jsonl")):
            if is_held_out(p) and not held_out:  # left out unless asked
                continue
            with p.open("rb") as fh:
                try:
                    first = json.loads(fh.readline())
                except ValueError:
                    continue
            if isinstance(first, dict) and first.get("type") == "session_meta" \
                    and isinstance(first.get("payload"), dict):
                out.append(p)
    return out


@dataclass
class Head:
    """What the head of an output says (before ``Output:``)."""

    exit: int | None = None
    running: int | None = None
    wall: float | None = None
    body: str = ""


def read_head(output: Any) -> Head:
    if isinstance(output, dict):
        output = output.get("content") or output.get("output") or ""
    if isinstance(output, list):
        output = "\n".join(c.get("text", "") for c in output if isinstance(c, dict))
    text = output if isinstance(output, str) else json.dumps(output)
    h = Head(body=text)
    if text.startswith('{"output"'):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            meta = doc.get("metadata") or {}
            if isinstance(meta.get("exit_code"), int):
                h.exit = meta["exit_code"]
            if isinstance(meta.get("duration_seconds"), (int, float)):
                h.wall = float(meta["duration_seconds"])
            h.body = str(doc.get("output", ""))
            return h
    i = text.find(_BODY)
    if i >= 0 or text.startswith("Output:\n"):
        head = text[:i + 1] if i >= 0 else ""
        h.body = text[i + len(_BODY):] if i >= 0 else text[len("Output:\n"):]
        m = _EXIT.search(head)
        h.exit = int(m.group(1)) if m else None
        m = _RUNNING.search(head)
        h.running = int(m.group(1)) if m else None
        m = _WALL.search(head)
        h.wall = float(m.group(1)) if m else None
    return h


def seconds(v: Any) -> float | None:
    if isinstance(v, dict) and isinstance(v.get("secs"), (int, float)):
        return float(v["secs"]) + float(v.get("nanos") or 0) / 1e9
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    return None


@dataclass
class Truth:
    """What the file holds about one call."""

    call_id: str
    line: int
    name: str
    args: Any
    output_line: int | None = None
    head: Head | None = None
    end: dict[str, Any] | None = None
    patch_end: dict[str, Any] | None = None
    polls: list[Head] = field(default_factory=list)
    poll_ids: list[str] = field(default_factory=list)
    cell_ends: list[dict[str, Any]] = field(default_factory=list)
    """A code-mode cell (``exec`` with JavaScript calling ``tools.*``): the
    ``exec_command_end`` events of the commands it ran (call ids of no call of the file)."""

    @property
    def is_cell(self) -> bool:
        return self.name == "exec" and isinstance(self.args, str) and "tools." in self.args

    @property
    def escalated(self) -> bool:
        return asks_escalation(self.args)

    @property
    def exit(self) -> int | None:
        """The final exit code the file holds (the event's, a poll's, the output's)."""
        if self.end is not None and isinstance(self.end.get("exit_code"), int):
            return int(self.end["exit_code"])
        for p in reversed(self.polls):
            if p.exit is not None:
                return p.exit
        return self.head.exit if self.head is not None else None

    @property
    def final_output(self) -> str:
        if self.end is not None and isinstance(self.end.get("aggregated_output"), str) \
                and self.end["aggregated_output"].strip():
            return str(self.end["aggregated_output"])
        return "".join([self.head.body if self.head else ""] + [p.body for p in self.polls])

    @property
    def duration(self) -> float | None:
        if self.end is not None:
            d = seconds(self.end.get("duration"))
            if d is not None:
                return d
        if self.head is not None and self.head.running is None:
            return self.head.wall
        return None

    @property
    def patch_failed(self) -> bool:
        if self.name != "apply_patch":
            return False
        body = self.head.body if self.head else ""
        if re.search(r"verification failed|Failed to find expected lines", body[:300]):
            return True
        if self.head is not None and self.head.exit not in (None, 0):
            return True
        if self.patch_end is not None and self.patch_end.get("success") is False:
            return True
        return False

    @property
    def aborted(self) -> bool:
        body = self.head.body if self.head else ""
        return body.startswith("aborted")


def read_file(path: Path) -> tuple[dict[str, Truth], dict[str, int]]:
    """Every call of a rollout, and the ``write_stdin`` polls by call id -> session id."""
    calls: dict[str, Truth] = {}
    polls: dict[str, int] = {}
    by_session: dict[int, str] = {}  # running exec session -> the call that started it
    ends: dict[str, dict[str, Any]] = {}
    open_cells: list[Truth] = []
    for n, _, p in records(path):
        t = p.get("type")
        if t in ("function_call", "custom_tool_call", "local_shell_call"):
            cid = str(p.get("call_id") or p.get("id") or f"L{n}")
            args: Any = p.get("arguments") if t == "function_call" else p.get("input")
            if isinstance(args, str) and t == "function_call":
                try:
                    args = json.loads(args)
                except ValueError:
                    pass
            calls[cid] = Truth(cid, n, str(p.get("name") or t), args)
            if calls[cid].is_cell:
                open_cells.append(calls[cid])
            if p.get("name") == "write_stdin" and isinstance(args, dict) \
                    and isinstance(args.get("session_id"), int):
                polls[cid] = args["session_id"]
        elif t in ("function_call_output", "custom_tool_call_output"):
            cid = str(p.get("call_id"))
            c = calls.get(cid)
            if c is None:
                continue
            c.output_line = n
            c.head = read_head(p.get("output"))
            if c in open_cells:
                open_cells.remove(c)
            if cid in polls:
                orig = by_session.get(polls[cid])
                if orig is not None:
                    calls[orig].polls.append(c.head)
                    calls[orig].poll_ids.append(cid)
            elif c.head.running is not None:
                by_session[c.head.running] = cid
            if cid in ends and c.end is None:
                c.end = ends.pop(cid)
        elif t == "exec_command_end":
            cid = str(p.get("call_id"))
            if cid in calls:
                calls[cid].end = p
            elif open_cells:  # a command a cell ran (the cell's first open one)
                open_cells[0].cell_ends.append(p)
            else:
                ends[cid] = p
        elif t == "patch_apply_end":
            cid = str(p.get("call_id"))
            if cid in calls:
                calls[cid].patch_end = p
    return calls, polls


def _logkb(logkb: str, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([logkb, "--db", str(db), *args], capture_output=True, text=True,
                          check=False)


def stored(logkb: str, path: Path, tmp: Path) -> tuple[dict[str, dict[str, Any]],
                                                        list[dict[str, Any]]]:
    db = tmp / f"{path.stem}.duckdb"
    p = _logkb(logkb, db, "ingest", str(path))
    if p.returncode not in (0, 4):
        raise SystemExit(f"codex-audit: ingest of {path.name} failed: {p.stderr[-400:]}")
    q = _logkb(logkb, db, "query", "--json", "--timeout", "120",
               "SELECT part_id, call_id, ordinal, tool, status, exit_code, output, error, "
               "input, time_end - time_start AS dur FROM calls")
    rows = {}
    for ln in q.stdout.splitlines():
        if ln.strip():
            r = json.loads(ln)
            rows[str(r["part_id"] if r["part_id"] is not None else r["call_id"])] = r
    u = _logkb(logkb, db, "untested", "--json")
    open_ = [json.loads(ln) for ln in u.stdout.splitlines() if ln.strip()]
    return rows, open_


def audit(path: Path, calls: dict[str, Truth], polls: dict[str, int],
          rows: dict[str, dict[str, Any]], open_: list[dict[str, Any]]) -> list[dict[str, Any]]:
    gaps: list[dict[str, Any]] = []

    def gap(c: Truth, kind: str, detail: str) -> None:
        gaps.append({"file": path.name, "line": c.line, "call_id": c.call_id, "kind": kind,
                     "detail": detail})

    ordinal_of: dict[int, Truth] = {}
    for cid, c in calls.items():
        r = rows.get(cid) or rows.get(f"{cid}#1")
        if r is None:
            gap(c, "not-stored", c.name)
            continue
        ordinal_of[int(r["ordinal"])] = c
        out = (r.get("output") or "") + (r.get("error") or "")
        inp = r.get("input")
        inp = json.loads(inp) if isinstance(inp, str) else (inp or {})
        if c.is_cell:
            subs = [x for k, x in rows.items() if k.startswith(f"{cid}#")]
            for e in c.cell_ends:
                code = e.get("exit_code")
                if isinstance(code, int) and not any(x["exit_code"] == code for x in subs):
                    gap(c, "cell-exit-missing", f"{e.get('command')!s:.40} exit {code}")
            continue
        if cid in polls:
            if r["exit_code"] not in (None, 0) and not isinstance(inp.get("polls"), str):
                gap(c, "poll-as-failure", f"exit {r['exit_code']} stored on the poll")
            continue
        want = c.exit
        if want is not None and r["exit_code"] != want and not c.aborted:
            gap(c, "exit-missing", f"file {want}, stored {r['exit_code']}")
        if c.head is not None and r["status"] == "interrupted":
            gap(c, "answered-no-result", "the file has its output")
        final = c.final_output.strip()
        if final and not out.strip():
            gap(c, "output-missing", repr(final[:60]))
        elif final and c.head is not None and c.head.running is not None:
            tail = [ln.strip() for ln in final.splitlines() if ln.strip()][-1][:60]
            if tail not in out and "chars truncated" not in final:
                gap(c, "output-missing", f"the later output's last line {tail!r}")
        d = c.duration
        if d is not None and d >= 0.001 and (r["dur"] is None or (
                c.head is not None and c.head.running is not None
                and abs(r["dur"] / 1000 - d) > 1.0)):
            got = "none" if r["dur"] is None else f"{r['dur'] / 1000:.3f}s"
            gap(c, "duration-missing", f"file {d:.3f}s, stored {got}")
        if c.patch_failed and r["status"] == "completed":
            gap(c, "patch-failure-missed", repr((c.head.body if c.head else "")[:60]))
        if c.aborted and r["status"] == "completed":
            gap(c, "abort-missed", repr(c.head.body[:40] if c.head else ""))
        if c.escalated and inp.get("sandbox_permissions") != "require_escalated":
            gap(c, "escalation-missed", str(inp)[:60])
    for q in open_:
        at = ordinal_of.get(int(q["ordinal"]))
        if at is None or q.get("answered_at") is not None:
            continue
        if at.call_id in polls:
            gap(at, "poll-open", str(q.get("reason"))[:60])
        elif any(p.exit is not None for p in at.polls) and "still ran" in str(q.get("reason")):
            gap(at, "open-though-answered", str(q.get("reason"))[:60])
    return gaps


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench codex-audit",
                                 description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logkb", default=str(ROOT / ".venv" / "bin" / "logkb"))
    ap.add_argument("--json", action="store_true", help="one object per gap")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every gap")
    ap.add_argument("--calls-only", action="store_true",
                    help="skip the structure checks (bench.codex_structures)")
    ap.add_argument("--include-held-out", action="store_true",
                    help="also the held-out rollouts (for whoever measures them)")
    ap.add_argument("--counts", action="store_true",
                    help="also print how many of each structure every file holds")
    ap.add_argument("--census", action="store_true",
                    help="also print, per failure structure Codex wrote, how many, how "
                    "many logkb maps to their signal, and what became of each")
    ap.add_argument("files", nargs="*", type=Path,
                    help="Codex rollouts to audit (default: the real ones in ../shared)")
    a = ap.parse_args(argv)
    total: dict[str, int] = {}
    ncalls = 0
    with tempfile.TemporaryDirectory(prefix="logkb-codex-audit-") as tmp:
        for path in a.files or codex_files(a.include_held_out):
            calls, polls = read_file(path)
            ncalls += len(calls)
            rows, open_ = stored(a.logkb, path, Path(tmp))
            gaps = audit(path, calls, polls, rows, open_)
            if not a.calls_only:
                db = Path(tmp) / f"{path.stem}.duckdb"
                d = _logkb(a.logkb, db, "deadends", "--json")
                dead = [json.loads(ln) for ln in d.stdout.splitlines() if ln.strip()]
                gaps += audit_structures(path, db, dead, open_)
                if a.census and not a.json:
                    for k, v in census(path, db, dead, open_).items():
                        if v["n"]:
                            print(f"  census {path.name[:28]:28} {k:30} " + " ".join(
                                f"{x}={y}" for x, y in v.items()))
            if a.counts and not a.json:
                print(f"{path.name}: " + ", ".join(f"{k} {v}" for k, v in
                                                   structure_counts(path).items() if v))
            kinds: dict[str, int] = {}
            for g in gaps:
                kinds[g["kind"]] = kinds.get(g["kind"], 0) + 1
                total[g["kind"]] = total.get(g["kind"], 0) + 1
                if a.json:
                    print(json.dumps(g))
                elif a.verbose:
                    print(f"  {g['file'][:24]:24} L{g['line']:<5} {g['kind']:22} "
                          f"{g['detail'][:70]}")
            if not a.json:
                print(f"{path.name[:44]:44} {len(calls):4} calls {len(gaps):4} gaps "
                      + " ".join(f"{k}={v}" for k, v in sorted(kinds.items())))
    if not a.json:
        print(f"{'all':44} {ncalls:4} calls {sum(total.values()):4} gaps "
              + " ".join(f"{k}={v}" for k, v in sorted(total.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
