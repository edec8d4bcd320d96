"""The command palette (``ctrl+p``): open sessions, navigate, filter, annotate, replay."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from kb.views import DECISION_CLASSES, TimelineFilter
from tui.format import short
from tui.messages import JumpRequested


class LogkbCommands(Provider):
    """Commands for the screen the palette was opened over, and every session."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        from tui.screens.sessions import SessionsScreen
        from tui.screens.timeline import TimelineScreen

        app: Any = self.app
        screen = self.screen
        out: list[tuple[str, str, Callable[[], Any]]] = []
        if isinstance(screen, TimelineScreen):
            tl = screen
            out += [
                ("Jump to message…", "type an ordinal", tl.action_jump),
                ("Next failure", "n", partial(tl.action_next, 1, "failure")),
                ("Previous failure", "N", partial(tl.action_next, -1, "failure")),
                ("Next decision", "d", partial(tl.action_next, 1, "decision")),
                ("Previous decision", "D", partial(tl.action_next, -1, "decision")),
                ("Show failures only", "filter status:failed",
                 partial(tl.set_filter, TimelineFilter(statuses=("failed",)))),
                ("Show decisions only", "filter class:decision,pivot,dead-end,conclusion",
                 partial(tl.set_filter, TimelineFilter(classes=DECISION_CLASSES))),
                ("Show benchmarks only", "filter cat:benchmark",
                 partial(tl.set_filter, TimelineFilter(categories=("benchmark",)))),
                ("Show prompts only", "filter kind:prompt",
                 partial(tl.set_filter, TimelineFilter(kinds=("prompt",)))),
                ("Clear filter", "show every step", tl.clear_filter),
                ("Knowledge graph", "g", tl.action_graph),
                ("Replay from the selected step", "r", tl.action_replay),
                ("Mark dead end", "x", partial(tl.action_annotate, "dead_end")),
                ("Mark confirmed", "c", partial(tl.action_annotate, "confirmed")),
                ("Add a note", "a", partial(tl.action_annotate, "note")),
                ("Remove annotations of this message", "u", tl.action_unannotate),
                ("Open the subagent session", "s", tl.action_subagent),
                ("Toggle full output", "o", tl.action_full_output),
                ("Zoom the detail", "z", tl.action_zoom),
            ]
        if not isinstance(screen, SessionsScreen):
            out.append(("Sessions", "the list of every session", self._to_sessions))
        out.append(("Refresh", "ctrl+r: read the knowledge base again", app.action_refresh))
        out.append(("Show or hide secrets", "ctrl+s: asks before showing them",
                    app.action_toggle_secrets))
        out.append(("Help", "?", app.action_help))
        for r in app.sessions:
            title = short(r.get("title") or "(untitled)", 60)
            out.append((f"Open session: {title}", r["session_id"],
                        partial(self._open, r["session_id"])))
        return out

    def _to_sessions(self) -> None:
        self.app.show_sessions()  # type: ignore[attr-defined]

    def _open(self, session_id: str) -> None:
        self.app.post_message(JumpRequested(session_id))

    async def discover(self) -> Hits:
        for name, help_, cb in self._commands():
            yield DiscoveryHit(name, cb, help=help_)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_, cb in self._commands():
            score = max(matcher.match(name), matcher.match(help_) * 0.8)
            if score > 0:
                yield Hit(score, matcher.highlight(name), cb, text=name, help=help_)
