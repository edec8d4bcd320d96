"""Pilot tests: every screen and the main key paths, from the keyboard, on the fixture campaign."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Tree

from kb.graph import store as gs
from kb.store import KbStore
from kb.views import ROW_CALL
from tui.app import LogkbApp, make_app
from tui.messages import JumpRequested, SessionsLoaded
from tui.screens import GraphScreen, HelpScreen, ReplayScreen, SessionsScreen, TimelineScreen
from tui.widgets import DetailPane, TimelineView
from tui.widgets.detail import plain

from .conftest import CHILD, SESSION, SIZE, screen_text, settle


def timeline(app: LogkbApp) -> TimelineScreen:
    assert isinstance(app.screen, TimelineScreen), type(app.screen).__name__
    return app.screen


async def test_sessions_screen_nests_the_subagent_and_filters(tui_db: Path) -> None:
    messages: list[object] = []
    app = make_app(tui_db)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert any(isinstance(m, SessionsLoaded) for m in messages)
        table = app.screen.query_one(DataTable)
        assert [str(k.value) for k in table.rows] == [SESSION, CHILD]
        text = screen_text(pilot)
        assert "└ In the SGLang checkout" in text and "5228" in text
        await pilot.press("slash", *"sglang checkout")
        await settle(pilot)
        assert [str(k.value) for k in table.rows] == [CHILD]
        await pilot.press("escape")
        await settle(pilot)
        assert table.row_count == 2
        assert table.cursor_row == 1  # the selection survives the filter
        await pilot.press("up", "enter")
        await settle(pilot)
        assert timeline(app).session_id == SESSION


async def test_open_jump_to_5216_and_read_the_failure(tui_db: Path) -> None:
    app = make_app(tui_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # the campaign is the first row
        await settle(pilot)
        await pilot.press("colon", *"5216", "enter")
        await settle(pilot)
        tl = timeline(app)
        view = tl.query_one(TimelineView)
        assert view.current_key == (5216, 1, 0)
        assert view.visible_loaded()
        detail = tl.query_one(DetailPane).text
        assert "message 5216" in detail
        assert "ModuleNotFoundError" in detail and "Host key verification failed" in detail
        assert "nested ssh root@10.1.230.174" in detail  # the nested hop shown apart
        assert "Expert Parallelism via DeepEP" in detail  # the approach it is evidence of
        assert "is deepep importable on 10.1.230.174?" in detail  # left untested
        assert "Todo list at message 5214" in detail
        text = screen_text(pilot)
        assert "exit 255" in text and "✘ ModuleNotFoundError: deep_ep +1" in text
        assert "message 5216 of 5228" in text


async def test_why_ep_was_chosen_at_5214(tui_db: Path) -> None:
    app = make_app(tui_db, session_id=SESSION, at=5214)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail = timeline(app).query_one(DetailPane).text
        assert "Stepping back from the four failures" in detail
        assert "pivot" in detail


async def test_failure_and_decision_navigation(tui_db: Path) -> None:
    app = make_app(tui_db, at=5214)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = timeline(app).query_one(TimelineView)
        await pilot.press("n")
        assert view.current_key == (5216, 2, ROW_CALL)
        await pilot.press("n")
        assert view.current_key == (5217, 2, ROW_CALL)
        await pilot.press("N", "N")
        assert view.current_key is not None and view.current_key[0] < 5214
        await pilot.press("colon", *"5200", "enter")
        await pilot.press("d")
        assert view.current_key == (5214, 1, 0)  # the pivot
        await pilot.press("d")
        assert view.current_key == (5216, 1, 0)  # "EP with deepep looks promising"
        await pilot.press("D", "D")
        assert view.current_key is not None and view.current_key[0] < 5214
        await pilot.press("end")
        assert view.current_key is not None and view.current_key[0] == 5228
        await pilot.press("home")
        assert view.current_key == (1, 0, 0)


async def test_search_as_you_type_and_filters(tui_db: Path) -> None:
    app = make_app(tui_db, at=5216)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tl = timeline(app)
        view = tl.query_one(TimelineView)
        await pilot.press("slash", *"deep_ep")
        await settle(pilot)
        assert view.index is not None and view.index.filter.text == "deep_ep"
        ords = {view.index.key(i)[0] for i in range(len(view.index))}
        assert {5216, 5217} <= ords and len(ords) < 20
        assert view.current_key is not None and view.current_key[0] == 5216  # kept
        await pilot.press("enter")  # back to the rows, filter kept
        await pilot.press("escape")  # hides the filter bar
        assert not view.index.filter.is_empty
        await pilot.press("escape")  # clears the filter
        await settle(pilot)
        assert view.index.filter.is_empty and len(view.index) > 10000
        assert view.current_key is not None and view.current_key[0] == 5216
        # the query syntax and the status select
        await pilot.press("slash", *"status:failed", "enter")
        await settle(pilot)
        assert len(view.index) == 6
        assert "filter: status:failed" in screen_text(pilot)
        await pilot.press("escape", "escape")
        await settle(pilot)
        tl.query_one("#filter-category").value = "import-check"
        await settle(pilot)
        assert len(view.index) == 2


async def test_graph_groups_dead_ends_and_jumps_to_evidence(tui_db: Path) -> None:
    app = make_app(tui_db, at=5216)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        graph = app.screen
        text = screen_text(pilot)
        assert "Expert Parallelism via DeepEP" in text and "⤳ from 4 dead ends" in text
        tree = graph.query_one(Tree)
        # the four allreduce dead ends sit under their causes
        causes = {}
        for group in tree.root.children:
            for cause in group.children:
                if (cause.data or {}).get("kind") == "cause":
                    causes[str(cause.label)] = [str(a.label) for a in cause.children]
        sm120 = next(v for k, v in causes.items() if "SM120 unsupported" in k)
        assert any("FlashInfer allreduce fusion" in a for a in sm120)
        assert any("Torch symmetric memory allreduce" in a for a in sm120)
        assert any("Custom allreduce on PCIe" in a for k, v in causes.items()
                   if "PCIe saturation" in k for a in v)
        assert any("NCCL_ALGO=Tree" in a for k, v in causes.items()
                   if "CUDA graph" in k for a in v)
        # the pivot at 5214 is shown as such
        pivot = graph.find_node(lambda d: d.get("kind") == "evidence" and d.get("ordinal") == 5214
                                and d.get("node_id"))
        assert pivot is not None and "4 dead ends" in str(pivot.label)
        # the cursor starts on the DeepEP approach (the step we came from); its evidence
        deepep = tree.cursor_node
        assert deepep is not None and "Expert Parallelism via DeepEP" in str(deepep.label)
        assert "proposed at message 5214" in str(graph.query_one("#story").render())
        await pilot.press("down", "down", "down")  # proposed 5214, research 5215, tested 5216
        node = tree.cursor_node
        assert node is not None and node.data["ordinal"] == 5216
        await pilot.press("enter")
        await settle(pilot)
        tl = timeline(app)
        assert tl.query_one(TimelineView).current_key == (5216, 1, 0)
        assert "ModuleNotFoundError" in tl.query_one(DetailPane).text


async def test_graph_evidence_in_another_session_opens_it(tui_db: Path) -> None:
    app = make_app(tui_db, at=5215)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail = timeline(app).query_one(DetailPane).text
        assert CHILD in detail
        await pilot.press("s")  # the subagent session
        await settle(pilot)
        tl = timeline(app)
        assert tl.session_id == CHILD
        assert "subagent of" in screen_text(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert timeline(app).session_id == SESSION


async def test_replay_plan_from_5214(tui_db: Path) -> None:
    app = make_app(tui_db, at=5214)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        rp = app.screen
        assert rp.plan is not None and rp.plan.start == 5214
        assert [s.ordinal for s in rp.plan.steps][:3] == [5214, 5215, 5216]
        assert not any(s.runs for s in rp.plan.steps)  # unmapped host: nothing runs
        assert "never contacted: 10.1.230.174" in screen_text(pilot)
        # map the host to this machine: read-only steps now run, nested ssh still refused
        await pilot.press("h", *"10.1.230.174=local", "enter")
        await settle(pilot)
        runs = {s.ordinal: s for s in rp.plan.steps}
        assert runs[5217].runs and runs[5218].runs
        assert not runs[5216].runs and "nested ssh" in runs[5216].reason
        assert not runs[5220].runs and runs[5220].safety == "mutating"
        text = screen_text(pilot)
        assert "10.1.230.174 → local" in text
        # the table fits its share of the width (the command in view): a long category is
        # cut there, and whole on the side panel's first line
        assert "import-…" in text or "import-check" in text
        assert "import-check" in plain(rp.step_view(runs[5216]))
        table = rp.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("5216:2"))
        await settle(pilot)
        assert "nested ssh" in screen_text(pilot)


async def test_replay_range_executes_locally_and_is_stored(rw_db: Path) -> None:
    app = make_app(rw_db, at=5217)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = timeline(app).query_one(TimelineView)
        await pilot.press("v")  # a range: 5217 .. 5218
        await pilot.press("down", "down", "down")
        assert view.current_key is not None and view.current_key[0] == 5218
        assert "range 5217–5218" in screen_text(pilot)
        await pilot.press("r")
        await settle(pilot)
        rp = app.screen
        assert isinstance(rp, ReplayScreen) and (rp.plan.start, rp.plan.end) == (5217, 5218)
        rp.query_one("#replay-hosts", Input).value = "10.1.230.174=local"
        rp.query_one("#replay-hosts", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert [s.runs for s in rp.plan.steps] == [True, True]
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")  # confirm
        await settle(pilot, quiet=0.5)
        assert rp.record is not None and not rp.running
        verdicts = {k: r.verdict for k, r in rp.results.items()}
        assert set(verdicts) == {(5217, 2), (5218, 2)}
        assert all(v != "skipped" for v in verdicts.values())
        side = plain(rp.step_view(rp.plan.steps[0]))
        assert "Diff against the recorded output" in side and "Verdict" in side
        assert "stored" in screen_text(pilot)
        # the run is in the history: the step lists it, and so does the timeline's detail
        await pilot.press("escape")
        await settle(pilot)
        assert "Replays of this step" in timeline(app).query_one(DetailPane).text
    with KbStore(rw_db, read_only=True) as store:
        from kb.replay.run import runs

        assert len(runs(store, SESSION)) == 1


async def test_annotate_from_the_keyboard(rw_db: Path) -> None:
    app = make_app(rw_db, at=5218)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press(*"a2a needs more memory", "enter")
        await settle(pilot)
        await pilot.press("a")
        await pilot.press(*"see 5221", "enter")
        await settle(pilot)
        detail = timeline(app).query_one(DetailPane).text
        assert "dead_end: a2a needs more memory" in detail and "note: see 5221" in detail
        with app.lease.read() as store:
            kinds = sorted((a["ordinal"], a["kind"], a["value"])
                           for a in gs.annotations(store, SESSION))
        assert kinds == [(5218, "dead_end", "a2a needs more memory"), (5218, "note", "see 5221")]
        await pilot.press("u")
        await pilot.press("y")
        await settle(pilot)
        with app.lease.read() as store:
            assert gs.annotations(store, SESSION) == []


async def test_help_palette_and_refresh(tui_db: Path) -> None:
    app = make_app(tui_db, at=5216)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(pilot)
        assert "Next fail" in text and "command palette" in text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"failures only", "enter")
        await settle(pilot)
        view = timeline(app).query_one(TimelineView)
        assert view.index is not None and len(view.index) == 6
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert view.index is not None and len(view.index) == 6
        assert view.current_key is not None and view.current_key[0] == 5216


async def test_file_is_released_when_idle(tui_db: Path) -> None:
    app = make_app(tui_db, at=5216, idle=0.1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, quiet=0.4)
        assert not app.lease.held
        await pilot.press("n")
        await settle(pilot)
        assert timeline(app).query_one(DetailPane).detail is not None
        assert app.lease.opens >= 2


async def test_jump_request_from_anywhere(tui_db: Path) -> None:
    app = make_app(tui_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(JumpRequested(SESSION, 4133))
        await settle(pilot)
        view = timeline(app).query_one(TimelineView)
        assert view.current_key is not None and view.current_key[0] == 4133
        text = screen_text(pilot)
        assert "4133 ✘" in text  # the dead-end mark from the graph


async def test_ingest_in_another_process_while_the_tui_is_open(
        rw_db: Path, selftest: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The TUI lets go of the file when idle: an ingest gets in, ctrl+r shows its data."""
    import subprocess
    import sys

    monkeypatch.setenv("LOGKB_LOCK_TIMEOUT", "10")
    app = make_app(rw_db, idle=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, quiet=0.4)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        assert not app.lease.held
        logkb = Path(sys.executable).parent / "logkb"
        r = subprocess.run([str(logkb), "ingest", "--db", str(rw_db),
                            str(selftest / "opencode.db")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.screen.query_one(DataTable).row_count == 4


async def test_a_busy_file_is_waited_for_and_said(rw_db: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    monkeypatch.setenv("LOGKB_LOCK_TIMEOUT", "10")
    # the holder keeps the file until the test has seen the TUI say it is waiting
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys\n"
         "c = duckdb.connect(sys.argv[1]); print('held', flush=True); sys.stdin.readline()",
         str(rw_db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    app = make_app(rw_db, at=5216)
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            for _ in range(100):
                if any("busy" in (n.title or "") for n in app._notifications):
                    break
                await pilot.pause(0.1)
            assert any("busy" in (n.title or "") for n in app._notifications)
            assert holder.stdin is not None
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait()
            await settle(pilot)
            assert "ModuleNotFoundError" in timeline(app).query_one(DetailPane).text
    finally:
        holder.kill()


async def test_mouse_selects_rows(tui_db: Path) -> None:
    app = make_app(tui_db, at=5214)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = timeline(app).query_one(TimelineView)
        before = view.cursor
        await pilot.click(TimelineView, offset=(10, view.cursor - round(view.scroll_y) + 2))
        await settle(pilot)
        assert view.cursor == before + 2
        assert timeline(app).query_one(DetailPane).detail is not None


async def test_unknown_session_falls_back_to_the_list(tui_db: Path) -> None:
    app = make_app(tui_db, session_id="ses_nope")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert any("ses_nope" in n.message for n in app._notifications)
