"""The graph screen at 80 columns (ux7): what a user read wrong there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.widgets import Tree

from tests.cli_kb import invoke
from tui.app import make_app

from .conftest import PI, settle

SAME_ENDS = re.compile(r"(?<![\d.])(\d+)–\1(?![\d.])")



def _labels(tree: Tree[Any]) -> list[str]:
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        out.append(node.label.plain)
        stack.extend(node.children)
    return out


async def test_an_approach_ended_where_it_began_shows_one_ordinal(pi_db: Path) -> None:
    """An approach proposed and ended at the same message showed its span as "73–73": a
    span of one message is that message's ordinal."""
    from tui.screens.graph import GraphScreen

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        await pilot.press("e")
        await settle(pilot)
        labels = _labels(app.screen.query_one(Tree))
        assert len(labels) > 3, labels
        same = [x for x in labels if SAME_ENDS.search(x)]
        assert same == [], same
        # the approach is still there, with its one ordinal
        assert any(re.search(r"  \d+$", x) or re.search(r"  \d+  ", x) for x in labels), labels


async def test_replay_steps_show_their_command_at_80(pi_db: Path) -> None:
    """At 80x24 the replay table beside its side panel showed msg, category, safety,
    action and a target cut to "targe" (the scrollbar of a long plan took two columns):
    the command, what a step is, was out of view.  Its columns now fit the table's own
    width: the command is in view on every row, cut with an ellipsis, the target's header
    whole (category and safety are on the side panel's first line)."""
    from rich.cells import cell_len

    from tui.screens import ReplayScreen

    from .conftest import screen_text

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        plan = app.screen.plan
        assert plan is not None and len(plan.steps) > 12  # more rows than the table shows
        lines = screen_text(pilot).splitlines()
        assert all(cell_len(ln) <= 80 for ln in lines)
        head_at = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("msg"))
        head = lines[head_at].split("│")[0]
        assert " target " in head + " " and " command" in head, head
        at = head.index(" command") + 1
        rows = [ln.split("│")[0] for ln in lines[head_at + 1:]
                if ln.split("│")[0][:6].strip().isdigit()]
        assert len(rows) >= 8, rows
        for step, row in zip(plan.steps, rows):
            shown = row[at:].strip().rstrip("▁▂▃▄▅▆▇█▉▊▋▌▍▎▏").strip()
            whole = " ".join(step.recorded_command.split())
            assert len(shown) >= 8, (row, whole)
            if shown != whole:
                assert shown.endswith("…") and whole.startswith(shown[:-1]), (shown, whole)


async def test_title_bar_counts_agree_with_their_nouns(tmp_path: Path) -> None:
    """The session's title bar said "1 commands" (and "1 cmds" narrower) for a session of
    one tool call: a count of one is singular."""
    from tests.cli_kb import markup_session

    from .conftest import screen_text

    src = markup_session(tmp_path / "one.jsonl")
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), str(src))
    assert r.exit_code == 0, r.stderr
    import json

    sid = json.loads(invoke("sessions", "--db", str(db), "--json").stdout.splitlines()[0])["id"]
    for width in (120, 80, 60):
        app = make_app(db, session_id=sid)
        async with app.run_test(size=(width, 24)) as pilot:
            await settle(pilot)
            top = "\n".join(screen_text(pilot).splitlines()[:3])
            if width >= 80:  # narrower, the count of commands gives way to the title
                assert re.search(r"\b1 (command|cmd)\b", top), (width, top)
            assert re.search(r"\b1 (commands|cmds)\b", top) is None, (width, top)


async def test_title_bar_says_what_is_unknown(realworld: Path, tmp_path: Path) -> None:
    """The title bar of a session whose model has no price ended "· 633k tokens ·
    unknown": it says "cost unknown"."""
    from .conftest import screen_text

    db = tmp_path / "kb.duckdb"
    src = realworld / "labelled" / "stunning-memory__opencode.db"
    r = invoke("ingest", "--db", str(db), str(src))
    assert r.exit_code == 0, r.stderr
    app = make_app(db, session_id="ses_04ca851f7ffevKrKMHW3RsPK1U")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        top = "\n".join(screen_text(pilot).splitlines()[:3])
        assert "cost unknown" in top, top


async def test_sessions_numbers_are_right_aligned(realworld: Path, tmp_path: Path) -> None:
    """The sessions screen wrote its counts flush left (21 over 234 over 393), where
    ``logkb sessions`` right-aligns them: each number column ends on one column, its
    header too."""
    from .conftest import screen_text

    db = tmp_path / "kb.duckdb"
    pool = realworld / "pool"
    r = invoke("ingest", "--db", str(db), str(pool / "civ6.ch__session.jsonl"),
               str(pool / "random__session.jsonl"),
               str(pool / "blockchain-dex-events__claude-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(pilot).splitlines()
        head = next(ln for ln in lines if " msgs " in ln)
        end = head.index("msgs") + 4
        rows = [ln for ln in lines if re.search(r"(claude-code|pi)\s+\d", ln)]
        assert len(rows) == 3, lines
        for ln in rows:
            assert ln[end - 1].isdigit() and not ln[end].isdigit(), (head, ln)
