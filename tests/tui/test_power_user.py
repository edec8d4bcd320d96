"""Pilot tests of what a power user checks first: the selected call in the detail of a real
multi-call session, copy / pager / editor, the back-stack, 80×24, annotation marks,
literal transcript text, tokens and cost on the sessions screen."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from kb.store import KbStore
from kb.views import ROW_CALL, ROW_PROSE
from tui.app import make_app
from tui.screens import GraphScreen, HelpScreen, SessionsScreen, TimelineScreen
from tui.widgets import DetailPane, TimelineView
from tui.widgets.timeline_view import header_text

from ..cli_kb import CURIOUS, MARKUP, markup_session
from .conftest import SESSION, SIZE, screen_text, settle

SMALL = (80, 24)


@pytest.fixture(scope="module")
def real_db(realworld: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The curious-sailor session (three calls in one message, several times) and a
    session whose text looks like markup."""
    from kb.ingest import ingest

    d = tmp_path_factory.mktemp("real")
    src = d / "curious.json"
    shutil.copyfile(realworld / "opencode" /
                    "session__curious-sailor__ses_39b7f9e89ffe7J0WzLzYrUt4eW.json", src)
    db = d / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [src, markup_session(d / "markup.jsonl")])
    return db


async def _at(pilot, ordinal: int, seq: int, src: int) -> TimelineView:  # type: ignore[no-untyped-def]
    view = pilot.app.screen.query_one(TimelineView)
    pos = view.index.position_of(ordinal, seq, src)
    assert view.index.key(pos) == (ordinal, seq, src)
    view.move_to(pos)
    await settle(pilot)
    return view


async def test_detail_shows_the_selected_call_not_the_first(real_db: Path) -> None:
    app = make_app(real_db, session_id=CURIOUS, at=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _at(pilot, 6, 4, ROW_CALL)  # the third read of message 6
        text = app.screen.query_one(DetailPane).text
        head = text.split("Also in message 6")[0]
        assert "gitter-commit/SKILL.md" in head
        assert "script-authoring/SKILL.md" not in head
        also = text.split("Also in message 6")[1]
        assert "script-authoring/SKILL.md" in also and "proto-install/SKILL.md" in also
        await _at(pilot, 6, 2, ROW_CALL)  # the first one
        head = app.screen.query_one(DetailPane).text.split("Also in message 6")[0]
        assert "script-authoring/SKILL.md" in head and "gitter-commit" not in head


async def test_copy_pager_and_editor(real_db: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    paged, edited = tmp_path / "paged.txt", tmp_path / "edited.txt"
    monkeypatch.setenv("PAGER", f"sh -c 'cat > {paged}'")
    monkeypatch.setenv("EDITOR", f"sh -c 'echo \"$0\" > {edited}'")
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(real_db, session_id=CURIOUS, at=26)
    # the headless driver cannot give the terminal away: run the programs in place
    monkeypatch.setattr(type(app), "suspend", lambda self: contextlib.nullcontext())
    copied: list[str] = []
    monkeypatch.setattr(type(app), "copy_to_clipboard", lambda self, t: copied.append(t))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _at(pilot, 26, 4, ROW_CALL)  # grep protobuf-schema-authoring AGENTS.md
        await pilot.press("y")
        await settle(pilot)
        assert copied and "protobuf-schema-authoring" in copied[-1]
        await pilot.press("Y")
        await settle(pilot)
        detail = app.screen.query_one(DetailPane).detail
        res = next(e for e in detail.focus if e.kind == "result")
        assert copied[-1] == res.output
        await pilot.press("p")
        await settle(pilot)
        assert paged.read_text() == res.output
        # a prose row touched no file: the transcript opens
        await _at(pilot, 26, 1, ROW_PROSE)
        await pilot.press("e")
        await settle(pilot)
        assert edited.read_text().strip().endswith("curious.json")


async def test_esc_returns_from_evidence_to_the_graph(tui_db: Path) -> None:
    app = make_app(tui_db, at=5216)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        graph = app.screen
        assert isinstance(graph, GraphScreen)
        await pilot.press("down", "down", "down")  # tested 5216
        node = graph.query_one("Tree").cursor_node
        assert node.data["ordinal"] == 5216
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        assert app.screen.query_one(TimelineView).current_key[0] == 5216
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is graph
        assert graph.query_one("Tree").cursor_node is node  # where we were
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)


async def test_80x24_header_search_and_help(tui_db: Path) -> None:
    app = make_app(tui_db, session_id=SESSION, at=5216)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        view = app.screen.query_one(TimelineView)
        width = view.scrollable_content_region.width
        header = str(app.screen.query_one("#timeline-columns").render())
        assert header.rstrip() == header_text(width).rstrip()
        assert "host" not in header  # the rows have no host column at this width
        assert not view.show_horizontal_scrollbar
        lines = screen_text(pilot).splitlines()
        row = next(ln for ln in lines if ln.lstrip().startswith("5216") and "command" in ln)
        # the status column starts where its header does
        head_line = next(ln for ln in lines if "status" in ln and "msg" in ln)
        col = head_line.index("status")
        assert row[col:col + 8].strip() == "exit 255"
        await pilot.press("slash")
        await settle(pilot)
        box = app.screen.query_one("#search", Input)
        assert box.has_focus and box.size.width >= 20
        await pilot.press(*"deep_ep")
        await settle(pilot)
        assert "deep_ep" in screen_text(pilot)
        await pilot.press("escape", "escape")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        scroll = app.screen.query_one("#help-scroll")
        assert scroll.has_focus and scroll.max_scroll_y > 0
        assert scroll.size.width <= 80
        await pilot.press("pagedown")
        await settle(pilot)
        assert scroll.scroll_y > 0


async def test_annotation_marks_on_their_rows(rw_db: Path) -> None:
    from kb.graph import store as gs

    with KbStore(rw_db) as store:
        gs.annotate(store, SESSION, 5100, "note", "looked at this by hand")
        gs.rebuild(store, SESSION)
    app = make_app(rw_db, session_id=SESSION, at=5100)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any(ln.lstrip().startswith("5100 ✎") for ln in screen_text(pilot).splitlines())


async def test_transcript_text_is_never_markup(real_db: Path) -> None:
    app = make_app(real_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert f"prompt {MARKUP}" in screen_text(pilot)  # (its title: the first prompt)
        await pilot.press("enter")  # the markup session is the newest
        await settle(pilot)
        tl = app.screen
        assert isinstance(tl, TimelineScreen)
        text = screen_text(pilot)
        assert f"prompt {MARKUP}" in text and "❌" not in text
        await _at(pilot, 2, 2, ROW_CALL)
        detail = tl.query_one(DetailPane).text
        assert f"echo '{MARKUP}'" in detail and "🅱" not in detail


async def test_sessions_screen_shows_tokens_cost_and_current(rw_db: Path) -> None:
    with KbStore(rw_db) as store:
        store.set_current_session(SESSION)
        # tokens: every token the messages record, cache reads and writes included
        # (kb/usage.py); the campaign's 714k of input + output and its 560M of cache
        # reads, the part its $318.68 mostly paid for
        parts = store.conn.execute(
            "SELECT sum(tokens_input), sum(tokens_output), sum(tokens_cache_read), "
            "sum(tokens_cache_write) FROM messages WHERE session_id = ?",
            [SESSION]).fetchone()
    assert parts is not None and parts[0] + parts[1] < 1_000_000
    assert 563_500_000 < sum(parts) < 564_500_000
    app = make_app(rw_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(pilot)
        row = next(ln for ln in text.splitlines() if "We have 8x" in ln)
        assert "▶" in row and "564M" in row and "$318.68" in row
    async with make_app(rw_db).run_test(size=(80, 24)) as pilot:  # fits 80 columns
        await settle(pilot)
        text = screen_text(pilot)
        assert all(len(ln) <= 80 for ln in text.splitlines())
        row = next(ln for ln in text.splitlines() if "We have 8x" in ln)
        assert "▶" in row and "564M" in row
