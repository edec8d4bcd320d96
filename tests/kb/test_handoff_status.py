"""The hand-off's status is honest about how the session ended (trimmed real lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kb.handoff import brief
from kb.ingest import ingest
from kb.store import KbStore

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "handoff"


def _brief(tmp_path: Path, lines: list[str]) -> dict[str, Any]:
    tmp_path.mkdir()
    src = tmp_path / "rollout.jsonl"
    src.write_text("".join(lines), encoding="utf-8")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        return brief(store, sid)


def test_a_codex_turn_that_completed_is_no_reply_still_being_written(tmp_path: Path) -> None:
    """Codex writes ``task_complete`` when a turn ends: the last reply was whole.  Without
    it (the file cut inside the turn) the reply may have been cut."""
    lines = (FIXTURES / "codex_turn_done.jsonl").read_text(encoding="utf-8").splitlines(True)
    assert '"task_complete"' in lines[-1]
    done = _brief(tmp_path / "done", lines)
    assert done["goal"]["text"] == "init"
    assert [q["question"] for q in done["open"]["untested"]] == []
    # the turn ended on a question with options: it waits for the user
    # (tests/kb/test_handoff_asks.py)
    assert done["status"]["state"] == "open", done["status"]
    assert done["status"]["state_why"].startswith("waiting for the user")
    cut = _brief(tmp_path / "cut", lines[:-1])
    assert [q["question"] for q in cut["open"]["untested"]] == [
        "what was this reply going to answer?"]
    assert cut["status"]["state"] == "open"


def test_a_session_cut_by_a_usage_limit_says_so(tmp_path: Path) -> None:
    """A Claude Code session that ends on the API's usage limit is blocked, and the
    status says what the agent recorded (the limit and when it resets), not only the
    error's class."""
    # pool conversacion-act1-pln__session.jsonl: the last prompt and the limit's lines
    src = FIXTURES.parent / "untested" / "claude_code_limit.jsonl"
    d = _brief(tmp_path / "limit", src.read_text(encoding="utf-8").splitlines(True))
    st = d["status"]
    assert st["state"] == "blocked"
    assert "hit your limit · resets 7pm (America/Mendoza)" in st["state_why"], st
    from kb.handoff import markdown

    text = " ".join(markdown(d).split())  # the brief's prose wraps at 80 columns
    assert "(the session ended on an error: APIError: You've hit your limit" in text
    assert "Ended at message" in text and "resets 7pm" in text.split("Ended at message")[1]


def test_the_state_is_read_from_the_last_request() -> None:
    """A check left unanswered under an earlier request that the session went past does
    not make its end open; one under the last request does.  Figures of the labelled
    pfm-categorization export (a timed-out check at 15, the last request at 21, the
    agent's whole reply at 26) and of the k1 export (the last request at 612, the
    export call at 619 still running when the file ends)."""
    from kb.handoff import _state

    def q(n: int) -> dict[str, Any]:
        return {"ordinal": n, "question": "what does `dotnet build` report?"}

    replied = {"ended": {"ordinal": 26, "role": "assistant", "finish": "stop", "error": None}}
    state, why = _state(replied, [q(15)], [], [], last_request=21)
    assert state == "done" and "1 check of earlier requests never answered" in why
    assert _state(replied, [q(15)], [], [], last_request=10)[0] == "open"
    running = {"ended": {"ordinal": 619, "role": "assistant", "finish": None, "error": None}}
    state, why = _state(running, [q(204), q(612), q(619)], [], [], last_request=612)
    assert (state, why) == ("open", "2 checks never answered since the last request")


def test_the_brief_keeps_the_latest_checks_and_whole_commands(tmp_path: Path) -> None:
    """labelled Valdyum-Labs__codex-session.jsonl (fixtures/untested/codex_unfinished):
    the request, then calls that never got their output.  Cut to fit, the brief keeps
    the request and the latest checks (those the state counts), not the earliest; the
    Markdown shows each command whole (the graph's question cuts it at 90 characters)
    or names the message that has it."""
    import re

    from kb.handoff import fit_tokens, markdown

    src = FIXTURES.parent / "untested" / "codex_unfinished.jsonl"
    d = _brief(tmp_path / "b", src.read_text(encoding="utf-8").splitlines(True))
    qs = d["open"]["untested"]
    assert len(qs) > 2 and qs[0]["question"].startswith("what «curl")
    small = fit_tokens(d, 300)  # (at 200, the cap held, only the request's check fits)
    kept = [q["ordinal"] for q in small["open"]["untested"]]
    assert kept[0] == qs[0]["ordinal"] and kept[-1] == qs[-1]["ordinal"], kept
    assert small["omitted"]["untested"] == len(qs) - len(kept)
    for brief_ in (d, small):
        text = markdown(brief_)
        assert not re.search(r"`[^`\n]*…`", text.split("## Open and untested")[1]), text
    long = next(q for q in qs if q["command"] and len(q["command"]) > 90)
    assert f"`{long['command']}`" in markdown(d)


def test_every_export_rule_matches_its_real_example() -> None:
    from kb.handoff import EXPORT_RULES, is_export

    for rule in EXPORT_RULES:
        assert rule.pattern.search(rule.example), rule
        assert rule.source and is_export(rule.example)
    # real commands of the same sessions that export nothing
    for cmd in ("opencode models zenmux", "git log --since='2026-04-01' --oneline --decorate",
                "ls -la ~/.codex/config.toml", "cat ~/.claude/settings.json",
                "npm run export", None):
        assert not is_export(cmd), cmd


def test_a_session_that_ends_on_its_own_export_says_so(tmp_path: Path) -> None:
    """labelled Valdyum-Labs (fixtures/untested/codex_unfinished): the agent copies the
    newest rollout from ~/.codex/sessions, and the file ends while that call runs.  The
    copy is no open check (the transcript is its answer); the other calls of the turn
    still are, so the session stays open, and the status says where it was exported."""
    src = FIXTURES.parent / "untested" / "codex_unfinished.jsonl"
    d = _brief(tmp_path / "x", src.read_text(encoding="utf-8").splitlines(True))
    commands = [q["command"] or "" for q in d["open"]["untested"]]
    assert not any(".codex\\sessions" in c for c in commands), commands
    assert "git branch --show-current" in commands
    st = d["status"]
    assert st["state"] == "open" and st["exported_at"] is not None
    assert st["state_why"].endswith(f"the transcript ends on its own export [{st['exported_at']}]")


def test_what_the_user_said_later_is_no_check() -> None:
    """An approach's later evidence can be the user's next message (labelled Trezo-Ai:
    the check at 75 that the user stopped, then «do that for kosh ai» at 77): the
    caveat says the user said it, never that a later check found it."""
    from kb.handoff import _open

    items = [{"label": "`cargo test` until it works", "kind": "approach", "status": "open",
              "ordinal": 70, "evidence": [
                  {"ordinal": 75, "role": "tested", "note": None},
                  {"ordinal": 77, "role": "tested", "note": "do that for kosh ai"},
                  {"ordinal": 80, "role": "tested", "note": "Couldn't connect to server"}]}]
    qs = [{"ordinal": 75, "question": "what does `cargo test` report?",
           "reason": "the user stopped the run", "command": "cargo test"}]
    got = _open(None, "s", qs, items, frozenset({2, 77}))  # type: ignore[arg-type]
    assert [c["text"] for c in got["untested"][0]["caveats"]] == [
        "the user said later: do that for kosh ai",
        "a later check found: Couldn't connect to server"]


def test_a_reply_cut_at_the_output_limit_leaves_the_work_open_for_every_agent() -> None:
    """opencode's ``MessageOutputLengthError`` and Claude Code's ``max_tokens`` (read as
    finish ``length``) are the same ending: the work is open, not blocked by an error."""
    from kb.handoff import _state

    for ended in ({"ordinal": 9, "role": "assistant", "finish": None,
                   "error": "MessageOutputLengthError",
                   "error_text": "MessageOutputLengthError"},
                  {"ordinal": 9, "role": "assistant", "finish": "length", "error": None,
                   "error_text": None}):
        state, why = _state({"ended": ended}, [], [], [])
        assert state == "open" and "cut at the output-token limit" in why, (ended, why)
    state, _ = _state({"ended": {"ordinal": 9, "role": "assistant", "finish": None,
                                 "error": "APIError", "error_text": "APIError: 529 "
                                 "Overloaded"}}, [], [], [])
    assert state == "blocked"


def test_a_file_size_from_a_listing_is_no_reading(tmp_path: Path) -> None:
    """pool Rivo__codex-session.jsonl (fixtures/handoff/codex_listing_size.jsonl): the
    only numbers are a ``Get-ChildItem`` listing's file sizes.  "Last reading: 83 B
    .gitignore (no better side: no best)" told the reader nothing: a file's size in a
    listing is no measured result, and the brief never says "no better side"."""
    from kb.handoff import markdown

    src = FIXTURES / "codex_listing_size.jsonl"
    d = _brief(tmp_path / "ls", src.read_text(encoding="utf-8").splitlines(True))
    assert d["status"]["last"] is None and d["measurements"] == []
    text = markdown(d)
    assert ".gitignore" not in text and "no better side" not in text
    assert "- No throughput measurement was recorded." in text


def test_a_reading_with_no_better_side_says_nothing_of_it() -> None:
    """An HTTP status or a percentage is a reading with no better side: the brief shows
    it and says nothing about which side is better."""
    from kb.handoff import _markdown_last

    line = _markdown_last({"value": 200, "unit": "HTTP", "label": None, "ordinal": 7},
                          one=False)
    assert line == "- Last reading: 200 HTTP [7]"
    line = _markdown_last({"value": 3.5, "unit": "s", "label": None, "ordinal": 7}, one=True)
    assert line == "- Last reading: 3.5 s [7] (one reading: no best)"
