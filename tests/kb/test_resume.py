"""Resume-at-offset (issue 28): a grown append-only transcript (Claude Code, Codex,
opencode JSONL) read on from where its last reading ended leaves exactly the store a
whole reading of the grown file leaves: every table, row by row.

Real files (../shared/realworld: the pool and the labelled sessions) are grown at many
cut points: between lines, in the middle of a line, between a tool call and its result,
and in several steps (each resumed ingest leaves the point the next one resumes from).
"""

from __future__ import annotations

import random
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kb.ingest import ingest
from kb.store import KbStore

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "realworld"
if not REALWORLD.is_dir():  # a worktree: ../shared beside it
    REALWORLD = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"

COMPARED = {  # table -> columns left out (when the row was written)
    "messages": (), "calls": (), "prose": (), "other_events": (), "secrets": (),
    "sessions": ("ingested_at",), "problems": (), "message_usage": (),
    "resume_points": ("recorded_at", "prefix_ids", "dev", "ino"),
}


@pytest.fixture(autouse=True)
def every_size_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real files are small: keep a resume point for every size here."""
    import kb.ingest

    monkeypatch.setattr(kb.ingest, "RESUME_MIN_BYTES", 0)


@cache
def agent_files() -> tuple[tuple[str, str], ...]:
    """(path, form) of every append-only transcript among the real files."""
    from logparse.registry import discover

    out = []
    for d in ("pool", "labelled", "claude-code", "codex"):
        for i in discover(REALWORLD / d):
            if not isinstance(i, Exception) and i.form in ("claude-code", "codex", "jsonl"):
                out.append((str(i.path), i.form))
    return tuple(sorted(out))


def table_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for t, skip in COMPARED.items():
            cols = [r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", [t]).fetchall() if r[0] not in skip]
            sel = ", ".join(f'"{c}"::VARCHAR' for c in cols)
            out[t] = con.execute(f"SELECT {sel} FROM {t} ORDER BY ALL").fetchall()
        return out
    finally:
        con.close()


def fresh(tmp: Path, data: bytes, name: str) -> dict[str, list[tuple[object, ...]]]:
    d = tmp / "fresh"
    d.mkdir(exist_ok=True)
    f = d / name
    f.write_bytes(data)
    db = d / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [f], graph=False, index=False)
    rows = table_rows(db)
    # the fresh copy has its own path: compare as if it were the grown one
    return {t: [tuple(str(v).replace(str(f), "@") if isinstance(v, str) else v for v in r)
                for r in rs] for t, rs in rows.items()}


def grown(tmp: Path, data: bytes, cuts: list[int], name: str
          ) -> tuple[dict[str, list[tuple[object, ...]]], list[bool]]:
    """Ingest the file cut at ``cuts[0]``, then grown to each next cut and to its end
    (appended in place, as an agent writes), ingesting after each step."""
    d = tmp / "grown"
    d.mkdir(exist_ok=True)
    f = d / name
    f.write_bytes(data[: cuts[0]])
    db = d / "kb.duckdb"
    resumed = []
    with KbStore(db) as store:
        ingest(store, [f], graph=False, index=False)
        for a, b in zip(cuts, [*cuts[1:], len(data)]):
            had_point = store.resume_point(str(f)) is not None
            with open(f, "ab") as out:
                out.write(data[a:b])
            rep = ingest(store, [f], graph=False, index=False)
            resumed.append(had_point and rep.as_json()["resumed"] == [str(f)])
    rows = table_rows(db)
    return {t: [tuple(str(v).replace(str(f), "@") if isinstance(v, str) else v for v in r)
                for r in rs] for t, rs in rows.items()}, resumed


def cut_points(data: bytes, seed: int) -> list[int]:
    """One chain of growth steps whose cuts are of every kind: inside a line, right after
    a tool call (its result comes after the cut), several line ends and several places
    mid-line in a row, and the last line alone."""
    ends = [i + 1 for i, c in enumerate(data) if c == 0x0A][:-1]
    calls = [e for e in ends if b'"tool_use"' in data[data.rfind(b"\n", 0, e - 1) + 1: e]
             or b'"function_call"' in data[data.rfind(b"\n", 0, e - 1) + 1: e]]
    rng = random.Random(seed)
    n = len(data)
    cuts = {rng.randrange(n // 3, n - 1), ends[-1]}         # inside a line; the last line
    if calls:
        cuts.add(rng.choice(calls))                          # a call whose result follows
    cuts.update(rng.sample(range(n // 4, n - 1), 3))        # three steps, mid-line
    cuts.update(rng.sample(ends[len(ends) // 4:], 4))       # four steps, line ends
    return sorted(cuts)


@pytest.mark.parametrize("path, form", agent_files(), ids=lambda v: Path(v).name)
def test_resumed_ingest_equals_a_fresh_one(tmp_path: Path, path: str, form: str) -> None:
    data = Path(path).read_bytes()
    name = Path(path).name
    want = fresh(tmp_path, data, name)
    cuts = cut_points(data, zlib.crc32(name.encode()))
    got, resumed = grown(tmp_path, data, cuts, name)
    any_resumed = any(resumed)
    for t in COMPARED:
        assert got[t] == want[t], (form, cuts, t, _first_diff(got[t], want[t]))
    # a single-session file without sub-agents resumes (others are read whole)
    assert any_resumed or form == "claude-code" and _has_sidechains(data), path


def _has_sidechains(data: bytes) -> bool:
    return b'"isSidechain":true' in data.replace(b" ", b"")


def _first_diff(a: list[tuple[object, ...]], b: list[tuple[object, ...]]) -> object:
    for x, y in zip(a, b):
        if x != y:
            return [(i, u, v) for i, (u, v) in enumerate(zip(x, y)) if u != v][:3]
    return ("lengths", len(a), len(b))


# -- the readers alone: many more cut points ------------------------------------------
def _read(path: Path, form: str, resume: object = None) -> tuple[list[Any], list[Any], Any,
                                                                  dict[str, int]]:
    from logparse.models import Problem
    from logparse.registry import READERS

    reader = next(r for r in READERS if r.form == form)()
    problems: list[Problem] = []
    msgs = []
    for src in reader.sessions(path, problems, None, resume=resume):  # type: ignore[call-arg]
        for m in src.messages:
            msgs.append((src.session_id, m.info, m.parts, m.raw, m.line))
    probs = [(p.line, p.reason) for p in problems]
    return msgs, probs, reader, dict(reader.skipped)


def reader_cuts(data: bytes, seed: int, n: int = 24) -> list[int]:
    ends = [i + 1 for i, c in enumerate(data) if c == 0x0A][:-1]
    calls = [e for e in ends if any(k in data[data.rfind(b"\n", 0, e - 1) + 1: e] for k in
                                    (b'"tool_use"', b'"function_call"', b'"custom_tool_call"'))]
    rng = random.Random(seed)
    cuts = rng.sample(calls, min(len(calls), n // 2))
    cuts += rng.sample(ends, min(len(ends), n // 4))
    cuts += [rng.randrange(1, len(data) - 1) for _ in range(n // 4)]
    return sorted(set(cuts))


@pytest.mark.parametrize("path, form", agent_files(), ids=lambda v: Path(v).name)
def test_reader_resumed_gives_what_a_whole_reading_gives(tmp_path: Path, path: str,
                                                         form: str) -> None:
    data = Path(path).read_bytes()
    f = tmp_path / Path(path).name
    f.write_bytes(data)
    whole, whole_probs, full_reader, whole_skipped = _read(f, form)
    resumed = 0
    for cut in reader_cuts(data, zlib.crc32(f.name.encode())):
        f.write_bytes(data[:cut])
        before, before_probs, reader, _ = _read(f, form)
        point, mark = reader.resume, reader.resume_mark
        if point is None:  # a sub-agent, a cut before the session is named: read whole
            continue
        with open(f, "ab") as out:
            out.write(data[cut:])
        tail, tail_probs, again, skipped = _read(f, form, point)
        resumed += 1
        ids = [m[1]["id"] for m in before]
        kept = before[: ids.index(mark)] if mark is not None else before
        assert kept + tail == whole, (cut, _first_msg_diff(kept + tail, whole))
        end = set(point.end_problems or [])
        stay = [p for p in before_probs if p[0] is not None and p[0] < point.line
                and p not in end]
        assert sorted(stay + tail_probs, key=repr) == sorted(whole_probs, key=repr), cut
        assert skipped == whole_skipped, cut
        assert again.resume.state == full_reader.resume.state, cut
    assert resumed >= len(reader_cuts(data, 0)) // 2 or _has_sidechains(data), resumed


def _first_msg_diff(a: list[tuple[object, ...]], b: list[tuple[object, ...]]) -> object:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i, [(j, str(u)[:300], str(v)[:300]) for j, (u, v) in enumerate(zip(x, y))
                       if u != v]
    return ("lengths", len(a), len(b))


# -- what a resume point must not paper over ------------------------------------------
HELLO = REALWORLD / "claude-code" / "hello-world-script" / "transcript.jsonl"


def _same_as_fresh(tmp: Path, data: bytes, cuts: list[int], name: str = "t.jsonl"
                   ) -> list[bool]:
    want = fresh(tmp, data, name)
    got, resumed = grown(tmp, data, cuts, name)
    for t in COMPARED:
        assert got[t] == want[t], (cuts, t, _first_diff(got[t], want[t]))
    return resumed


def _hello() -> tuple[list[bytes], dict[str, object]]:
    import json

    lines = HELLO.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[1])
    return lines, first


def test_a_title_naming_a_line_before_the_offset_reads_whole(tmp_path: Path) -> None:
    import json

    lines, first = _hello()
    summary = json.dumps({"type": "summary", "summary": "Hello script written",
                          "leafUuid": first["uuid"]}).encode() + b"\n"
    data = b"".join(lines) + summary
    cut = len(b"".join(lines))
    assert _same_as_fresh(tmp_path, data, [cut]) == [False]  # may match: read whole
    # a title whose leaf comes after it, in the appended lines: resumed, same title
    later = json.loads(lines[-1])
    ahead = json.dumps({"type": "summary", "summary": "Ahead", "leafUuid": "f" * 8 + "-x"}
                       ).encode() + b"\n"
    tail = json.dumps({**later, "uuid": "f" * 8 + "-x", "parentUuid": later.get("uuid")}
                      ).encode() + b"\n"
    data2 = b"".join(lines[:5]) + ahead + b"".join(lines[5:]) + tail
    sub = tmp_path / "ahead"
    sub.mkdir()
    assert _same_as_fresh(sub, data2, [len(b"".join(lines[:5]) + ahead)]) == [True]
    with KbStore(sub / "fresh" / "kb.duckdb", read_only=True) as store:
        assert store.conn.execute("SELECT title FROM sessions").fetchall() == [("Ahead",)]


def test_a_line_written_again_or_a_sub_agent_after_the_offset_reads_whole(
        tmp_path: Path) -> None:
    import json

    lines, first = _hello()
    cut = len(b"".join(lines))
    again = b"".join(lines) + lines[1]  # a line written twice (a resumed session)
    assert _same_as_fresh(tmp_path / "a", _mk(tmp_path / "a", again), [cut]) == [False]
    side = json.dumps({**first, "isSidechain": True, "agentId": "abc",
                       "uuid": "0" * 8 + "-side"}).encode() + b"\n"
    data = b"".join(lines) + side
    assert _same_as_fresh(tmp_path / "b", _mk(tmp_path / "b", data), [cut]) == [False]


def _mk(d: Path, data: bytes) -> bytes:
    d.mkdir()
    return data


def test_a_rewritten_or_shorter_file_reads_whole_and_loses_nothing(tmp_path: Path) -> None:
    data = (REALWORLD / "labelled" / "soulpass__codex-session.jsonl").read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    f = tmp_path / "rollout.jsonl"
    f.write_bytes(data[:cut])
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f], graph=False, index=False)
        point = store.resume_point(str(f))
        assert point is not None and point["byte_offset"] <= cut
        n = store.conn.execute("SELECT count(*) FROM messages").fetchone()
        # the same size and more, one byte before the offset changed: rewritten
        changed = bytearray(data)
        at = data.rindex(b'"type"', 0, cut - 10) + 1
        changed[at] = ord("T")
        f.write_bytes(bytes(changed))
        rep = ingest(store, [f], graph=False, index=False)
        assert rep.resumed == []
        # shorter: read whole, every stored message kept
        f.write_bytes(data[: cut // 2])
        rep = ingest(store, [f], graph=False, index=False)
        assert rep.resumed == []
        m = store.conn.execute("SELECT count(*) FROM messages").fetchone()
        assert m is not None and n is not None and m[0] >= n[0]


def test_opencode_jsonl_resumes(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.gen_session import write_jsonl

    src = tmp_path / "gen.jsonl"
    write_jsonl(400, 7, src)
    data = src.read_bytes()
    ends = [i + 1 for i, c in enumerate(data) if c == 0x0A][:-1]
    cuts = [ends[100], ends[250] + 17, ends[-1]]  # a line end, inside a line, the last
    assert _same_as_fresh(tmp_path, data, cuts) == [True, True, True]


def test_a_bom_resumes_and_utf16_reads_whole(tmp_path: Path) -> None:
    import codecs

    data = (REALWORLD / "labelled" / "Trezo-Ai__codex-session.jsonl").read_bytes()
    cut = data.index(b"\n", len(data) // 3) + 1
    bom = codecs.BOM_UTF8 + data.replace(b"\n", b"\r\n")  # Windows line ends too
    assert _same_as_fresh(tmp_path / "bom", _mk(tmp_path / "bom", bom),
                          [cut + 3 + data[:cut].count(b"\n"), len(bom) - 5]) == [True, True]
    utf16 = codecs.BOM_UTF16_LE + data.decode("utf-8").encode("utf-16-le")
    half = len(utf16) // 2 & ~1
    assert _same_as_fresh(tmp_path / "u16", _mk(tmp_path / "u16", utf16), [half]) == [False]


def test_line_start_finds_the_offset_iter_lines_numbers(tmp_path: Path) -> None:
    from logparse.opencode._lines import LineCursor, iter_lines
    from logparse.resume import line_start
    from logparse.source import lines_at

    data = (REALWORLD / "labelled" / "will-it-rain__claude.jsonl").read_bytes()
    f = tmp_path / "t.jsonl"
    f.write_bytes(data.replace(b"\n", b"\n\n", 7))  # blank lines count too
    cur = LineCursor()
    starts = {}
    for n, _, _ in iter_lines(f, cur):
        starts[n + 1] = cur.at[0]  # where the line after n starts
    rng = random.Random(5)
    for line in rng.sample(sorted(starts), 20):
        for want in (line, line - 1, max(2, line - rng.randrange(1, 300))):
            if want in starts:
                assert line_start(f, starts[line], line, want) == starts[want], (line, want)
                got = lines_at(f, [want, line - 1], (starts[want], want))
                assert got == lines_at(f, [want, line - 1]), (line, want)
    assert line_start(f, starts[50], 50, 1) is None


def test_a_small_file_keeps_no_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.ingest

    monkeypatch.setattr(kb.ingest, "RESUME_MIN_BYTES", 256 << 10)
    small = tmp_path / "small.jsonl"
    small.write_bytes(HELLO.read_bytes())
    big = tmp_path / "big.jsonl"
    big.write_bytes((REALWORLD / "labelled" / "will-it-rain__claude.jsonl").read_bytes())
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [small, big], graph=False, index=False)
        assert store.resume_paths() == [str(big)]


OTHER_AGENTS = ("Axe__session.jsonl", "civ6.ch__session.jsonl", "Xeus__gemini-session.jsonl")
"""Gemini CLI, pi and Antigravity files: read whole, they keep no resume point."""


@pytest.mark.parametrize("name", OTHER_AGENTS)
def test_a_grown_file_of_another_agent_reads_whole(tmp_path: Path, name: str) -> None:
    """Their readers leave no resume point: a grown file is read again whole, and the
    store after each step equals a fresh ingest of the file as it ends (cut inside a
    line, at a line end after a call, and before the last line)."""
    data = (REALWORLD / "pool" / name).read_bytes()
    ends = [i + 1 for i, c in enumerate(data) if c == 0x0A][:-1]
    rng = random.Random(zlib.crc32(name.encode()))
    cuts = sorted({rng.randrange(len(data) // 3, len(data) - 1),
                   rng.choice(ends[len(ends) // 2:]), ends[-1]})
    want = fresh(tmp_path, data, name)
    got, resumed = grown(tmp_path, data, cuts, name)
    for t in COMPARED:
        assert got[t] == want[t], (name, cuts, t, _first_diff(got[t], want[t]))
    assert not any(resumed) and want["resume_points"] == []


@pytest.mark.parametrize("upto", [9, None], ids=["ends-while-it-runs", "whole"])
def test_a_run_answered_later_resumes_at_every_line(tmp_path: Path, upto: int | None) -> None:
    """A Codex command that returned while it ran (its message held back until its
    exec_command_end or the poll that reads its exit): grown one line at a time, every
    resumed reading leaves the store a whole reading leaves (trimmed Trezo-Ai lines,
    ``fixtures/untested/codex_running.jsonl``; cut after line 9 the file ends on a poll
    that read more of the run's output, the run still going)."""
    path = Path(__file__).resolve().parents[2] / "fixtures" / "untested" / "codex_running.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    data = b"".join(lines[:upto])
    want = fresh(tmp_path, data, path.name)
    ends = [i + 1 for i, c in enumerate(data) if c == 0x0A][:-1]
    got, resumed = grown(tmp_path, data, ends[2:], path.name)
    for t in COMPARED:
        assert got[t] == want[t], (t, _first_diff(got[t], want[t]))
    assert any(resumed)
