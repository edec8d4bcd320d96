"""Untested checks from the agents' own structure, one trimmed real transcript a row.

Each row of :data:`CASES` is a rule of the extractor (``kb.graph.extract``) that leaves a
check's question open, with the real lines it was taken from (``fixtures/untested/``),
where the question must stand (the message kind at that ordinal) and what its reason
says.  One test walks them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from kb.graph import store as gs
from kb.ingest import ingest
from kb.store import KbStore

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "untested"


class Case(NamedTuple):
    rule: str
    fixture: str
    source: str
    """Where the trimmed lines come from."""
    where: str
    """SQL over ``calls``/``prose`` giving the ordinal the question must stand at."""
    reason: str
    """A phrase of the question's reason."""


CASES: tuple[Case, ...] = (
    Case("codex-truncated-output", "codex_truncated.jsonl",
         "pool Rivo__codex-session.jsonl:1,5,6,99 and the call of line 99 (output cut)",
         "SELECT ordinal FROM calls WHERE command LIKE '%rg -n %'",
         "the tool cut the output"),
    Case("transcript-ends-mid-turn", "codex_unfinished.jsonl",
         "labelled Valdyum-Labs__codex-session.jsonl:1,5,6,128-133 (5 calls, no output)",
         "SELECT max(ordinal) FROM prose WHERE kind = 'prompt' AND source = 'text'",
         "still working on it"),
    Case("codex-cell-never-returned", "codex_cell_unanswered.jsonl",
         "fixtures/realworld_trim/codex_code_mode.jsonl:1-8 (scout__codex-session.jsonl "
         "lines as a code-mode cell): the commands' exec_command_end events, no cell output",
         "SELECT ordinal FROM calls WHERE command LIKE 'ls -la%'",
         "still running when the transcript ends"),
    Case("codex-run-answered-by-its-end-event", "codex_running.jsonl",
         "labelled Trezo-Ai__codex-session.jsonl:1,5,6,142-187 (a cargo test that returned "
         "'Process running', polled once, ended in exec_command_end with exit 101 and the "
         "sandbox's DNS failures)",
         "SELECT ordinal FROM calls WHERE tool = 'bash' AND exit_code = 101",
         "the sandbox has no network access"),
    Case("claude-interrupt-after-a-result", "claude_interrupt.jsonl",
         "pool conversacion-act1-pln__session.jsonl:298-303,305 ([Request interrupted by "
         "user] right after a WebFetch result)",
         "SELECT max(ordinal) FROM calls WHERE command LIKE '%entityrecognizer%'",
         "interrupted the turn"),
)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_every_untested_rule_holds_on_its_real_lines(case: Case, tmp_path: Path) -> None:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [FIXTURES / case.fixture])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        (want,) = store.conn.execute(case.where).fetchone()
        got = [q for q in gs.untested(store, [sid]) if case.reason in q["reason"]]
        assert {q["ordinal"] for q in got} == {want}, gs.untested(store, [sid])


def test_an_interrupt_after_the_agent_spoke_leaves_nothing_open(tmp_path: Path) -> None:
    """The same lines without the result: the interrupt follows the agent's call, whose
    own record (no result) is what stays open, not an unread answer."""
    lines = (FIXTURES / "claude_interrupt.jsonl").read_text().splitlines()
    src = tmp_path / "s.jsonl"
    src.write_text("\n".join(lines[:4] + lines[5:]) + "\n")  # drop the second result
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        assert not [q for q in gs.untested(store, [sid])
                    if "interrupted the turn" in q["reason"]]


def test_a_turn_that_ends_with_a_reply_is_no_unfinished_request(tmp_path: Path) -> None:
    lines = (FIXTURES / "codex_unfinished.jsonl").read_text().splitlines()
    src = tmp_path / "s.jsonl"
    src.write_text("\n".join(lines[:4]) + "\n")  # the request and the agent's words only
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        assert not [q for q in gs.untested(store, [sid]) if "still working" in q["reason"]]


def test_a_session_that_goes_on_is_no_longer_unfinished(tmp_path: Path) -> None:
    """Ingested mid-turn (a live session), then again once the agent replied: the
    request is answered, and the graph, resumed from its kept state, says so."""
    lines = (FIXTURES / "codex_unfinished.jsonl").read_text().splitlines()
    src = tmp_path / "s.jsonl"
    src.write_text("\n".join(lines[:5]) + "\n")  # the request, a word, the first call
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        assert [q for q in gs.untested(store, [sid]) if "still working" in q["reason"]]
        # the agent's words again, now as its reply after the call
        src.write_text("\n".join(lines[:5] + [lines[3]]) + "\n")
        ingest(store, [src])
        assert not [q for q in gs.untested(store, [sid]) if "still working" in q["reason"]]


def test_codex_polls_are_no_checks_and_runs_answered_later_are_not_open(
        tmp_path: Path) -> None:
    """The same Trezo-Ai lines: a ``write_stdin`` poll is never an open check of its own,
    and the two finds that returned running but ended (their events, then the polls that
    read the exit) leave nothing open; the ls whose output never came still does."""
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [FIXTURES / "codex_running.jsonl"])
        (sid,) = store.conn.execute("SELECT session_id FROM sessions").fetchall()[0]
        polls = {r[0] for r in store.conn.execute(
            "SELECT ordinal FROM calls WHERE tool = 'write_stdin'").fetchall()}
        finds = {r[0] for r in store.conn.execute(
            "SELECT ordinal FROM calls WHERE tool = 'bash' AND command LIKE 'find %'"
        ).fetchall()}
        (ls,) = store.conn.execute(
            "SELECT ordinal FROM calls WHERE command LIKE 'ls -la %'").fetchall()[0]
        open_ = {q["ordinal"]: q for q in gs.untested(store, [sid])}
        assert len(polls) == 3 and len(finds) == 2
        assert not polls & set(open_) and not finds & set(open_), open_
        assert "still running when the transcript ends" in open_[ls]["reason"]
