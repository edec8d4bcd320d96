"""The replay form at 80x24 (ux11b): a fault a user pass found and left."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from tui.app import make_app

from .conftest import PI, screen_text, settle


async def test_the_replay_form_shows_what_each_field_takes(pi_db: Path) -> None:
    """At 80 columns the form's placeholders were cut to "host map: 1" and "allow: launc":
    the format they gave was out of view.  Each field's name fits its box, and the field
    with the cursor says what it takes on a line of its own, whole; with the cursor back
    in the steps, that line goes (the table keeps its rows)."""
    from tui.screens.replay import ReplayScreen

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        for field in screen.query("#replay-form Input").results(Input):
            room = field.content_region.width
            assert len(field.placeholder) < room, (field.id, field.placeholder, room)
        rows = screen.query_one("#replay-steps").region.height
        for key, field_id, says in (
                ("h", "replay-hosts", "host map: 10.1.230.174=local or "
                                      "10.1.230.174=user@host:port"),
                ("a", "replay-allow", "allow: launch,mutating,unknown"),
                ("f", "replay-from", "from: the first message ordinal")):
            await pilot.press(key)
            await settle(pilot)
            assert screen.focused is not None and screen.focused.id == field_id
            shown = screen_text(pilot)
            assert says in shown, (field_id, shown)
            await pilot.press("escape")  # back to the steps: the line goes
            await settle(pilot)
            assert says not in screen_text(pilot)
            assert screen.query_one("#replay-steps").region.height == rows
