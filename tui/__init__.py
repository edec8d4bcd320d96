"""The logkb terminal UI (Textual).  Start it with ``logkb tui`` or :func:`tui.app.make_app`.

Imports ``kb`` and ``logparse``; neither imports this package."""
