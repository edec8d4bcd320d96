"""Widgets of the logkb TUI, one per module.

``ThroughputChart`` is not re-exported here: it imports plotext, which only the
graph screen needs (keeps the timeline's start-up light)."""

from tui.widgets.detail import DetailContext, DetailPane
from tui.widgets.timeline_view import TimelineView

__all__ = ["DetailContext", "DetailPane", "TimelineView"]
