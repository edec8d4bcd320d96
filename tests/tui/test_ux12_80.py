"""TUI faults a user pass found (ux12), at 80x24.

The detail pane of a prompt said "prompt" again under its "Prompt" heading, and an
injected one (a ``<system-reminder>`` Claude Code put in the user's turn) said the same,
though its timeline row says ``injected``.  ``pool/blockchain-dex-events__claude-session
.jsonl``: message 1 is injected, message 2 the user's own request."""

from __future__ import annotations

from pathlib import Path

from kb import views
from kb.ingest import ingest
from kb.store import KbStore
from kb.views import ROW_PROSE
from tui.widgets.detail import DetailContext, plain, render_detail


def test_a_prompt_s_detail_says_only_what_its_heading_does_not(realworld: Path,
                                                                 tmp_path: Path) -> None:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [realworld / "pool" / "blockchain-dex-events__claude-session.jsonl"])
        sid = store.resolve_session(None)
        index = views.timeline_index(store, sid)
        rows = views.timeline_rows(store, index, 0, 4).values()
        texts = {}
        for row in rows:
            if row.src == ROW_PROSE and row.kind == "prompt":
                detail = views.step_detail(store, sid, row.ordinal, row.seq, row.src)
                texts[row.ordinal] = (row.classification, plain(
                    render_detail(detail, DetailContext()), width=80).splitlines())
    cls, injected = texts[1]
    assert cls == "injected"
    at = next(i for i, ln in enumerate(injected) if ln.strip().startswith("Prompt ─"))
    assert injected[at + 1].strip() == "injected (not typed by the user)"
    assert injected[at + 2].strip() == "<system-reminder>"
    _, own = texts[2]
    at = next(i for i, ln in enumerate(own) if ln.strip().startswith("Prompt ─"))
    assert own[at + 1].strip().startswith("new take-home from coingecko"), own


async def test_an_ordinal_past_the_end_is_said_so(pi_db: Path) -> None:
    """``:`` 9999 put the cursor on the last step and said "message 9999 has no step;
    showing the next one"."""
    from tests.tui.conftest import PI, settle
    from tui.app import make_app
    from tui.widgets.timeline_view import TimelineView

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press(":", "9", "9", "9", "9", "enter")
        await settle(pilot)
        view = app.screen.query_one(TimelineView)
        assert view.index is not None and view.cursor == len(view.index) - 1
        said = [n.message for n in app._notifications]
        last = view.index.max_ordinal
        assert f"message 9999 is past the end (the last is {last}); showing the last " \
               "step" in said, said
