"""TUI faults a user pass found (ux13), at 80x24."""

from __future__ import annotations

from pathlib import Path


async def test_a_filter_value_no_step_carries_says_why(pi_db: Path) -> None:
    """``/`` ``kind:prose`` (the search's hits are labelled ``prose``) said only "no step
    matches the filter": no kind is ``prose``.  The pane says so, with the valid kinds,
    wrapped in 80 columns; a filter that is right but matches nothing says nothing
    more."""
    from tests.tui.conftest import PI, screen_text, settle
    from tui.app import make_app
    from tui.widgets.timeline_view import TimelineView

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"kind:prose login", "enter")
        await settle(pilot)
        view = app.screen.query_one(TimelineView)
        assert view.index is not None and len(view.index) == 0
        shown = " ".join(screen_text(pilot).split())
        assert "no step matches the filter kind: 'prose' is not a kind; valid: prompt, " \
               "command, result" in shown, shown
        await pilot.press("escape", "escape")
        await settle(pilot)
        await pilot.press("slash", *"kind:stat zzzzqqq", "enter")
        await settle(pilot)
        shown = " ".join(screen_text(pilot).split())
        assert "no step matches the filter" in shown and "is not a" not in shown, shown


async def test_the_search_box_says_its_filters_at_80_columns(pi_db: Path) -> None:
    """At 80 columns ``f`` showed the search box as ``search commands,``: the filters it
    takes (``kind:`` ``cat:`` ``host:``) were cut off.  A narrow box has a short hint
    that fits; a wide one the whole."""
    from tests.tui.conftest import PI, screen_text, settle
    from tui.app import make_app
    from tui.screens.timeline import SEARCH_HINT, SEARCH_HINT_SHORT

    for size, hint in (((80, 24), SEARCH_HINT_SHORT), ((200, 40), SEARCH_HINT)):
        app = make_app(pi_db, session_id=PI)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await pilot.press("f")
            await settle(pilot)
            box = app.screen.query_one("#search")
            assert box.placeholder == hint
            assert hint in screen_text(pilot), screen_text(pilot)
