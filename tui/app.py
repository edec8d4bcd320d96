"""The logkb terminal UI: sessions → timeline (+ detail) → graph and replay.

``LogkbApp`` takes its dependencies in ``__init__`` (a :class:`kb.lease.KbLease`
over the knowledge base file); :func:`make_app` builds it for the CLI and the
tests.  The UI thread never queries: screens run thread workers that borrow the
lease for a burst of queries and post past-tense messages back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from kb import views
from kb.lease import KbLease
from kb.safe_text import visible_deep
from tui.commands import LogkbCommands
from tui.messages import DataRefreshed, GraphLoaded, JumpRequested, SessionsLoaded, StoreBusy
from tui.safe import safe_update
from tui.screens.help import HelpScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.timeline import TimelineScreen


class LogkbApp(App[None]):
    """Browse sessions, follow a campaign, inspect its graph and replay it."""

    CSS_PATH = ["global.tcss", "app.tcss"]
    TITLE = "logkb"
    COMMANDS = App.COMMANDS | {LogkbCommands}
    BINDINGS = [
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+r", "refresh", "Refresh"),
        # no description: kept out of the help overlay (its snapshot); the palette has it
        Binding("ctrl+s", "toggle_secrets", "", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, lease: KbLease, *, session_id: str | None = None,
                 at: int | None = None, theme: str = "textual-dark") -> None:
        super().__init__()
        self.lease = lease
        """The knowledge base, borrowed per burst of queries (see :mod:`kb.lease`)."""
        if lease.on_busy is None:
            lease.on_busy = lambda text: self.post_message(StoreBusy(text))
        self.start_session = session_id
        self.start_at = at
        self.sessions: list[dict[str, Any]] = []
        """The last session list read (for titles and the command palette)."""
        self.short_names: dict[str, str] = {}
        """Every session's short id (the headers name a session by it)."""
        self.graphs: dict[str, views.GraphView] = {}
        """Knowledge graphs read so far, by scope."""
        self.graphs_shown: set[str] = set()
        """Scopes whose graph this run has shown: a rebuild of one is news, a first build
        (ingest leaves graphs to their first reader) is just loading."""
        self.scope_of: dict[str, str] = {}
        """session id → its scope (top-level session)."""
        self.theme = theme

    FOLLOW_SECONDS = 2.0
    """How often the app looks (a ``stat``) for data another process wrote."""

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """A toast; never parsed as markup (messages quote transcript text, paths and
        errors, in which ``[x]`` or ``:x:`` must stay as they are)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def _display(self, screen: Any, renderable: Any) -> None:
        """Every update written to the terminal goes through :func:`tui.safe.safe_update`:
        a control sequence in transcript text is shown, never obeyed."""
        super()._display(screen, safe_update(renderable))

    def on_mount(self) -> None:
        """Called when the app starts: the session asked for, else the list of sessions.

        With ``--session``/``--at`` the sessions screen is not built until it is wanted
        (escape): the timeline's first paint does not wait for it."""
        self.set_interval(self.FOLLOW_SECONDS, self._follow)
        if self.start_session is not None or self.start_at is not None:
            self._resolve_start(self.start_session, self.start_at)
        else:
            self.push_screen(SessionsScreen())

    def _follow(self) -> None:
        """Called every few seconds: when another process (``logkb watch``, an ingest)
        wrote the knowledge base, read it again, as ``ctrl+r`` does."""
        if self.lease.changed_elsewhere():
            self.graphs.clear()
            self._refresh(quiet=True)

    @work(thread=True, exclusive=True, group="start", exit_on_error=False)
    def _resolve_start(self, session_id: str | None, at: int | None) -> None:
        from kb.store import KbError

        try:
            with self.lease.read() as store:
                sid = store.resolve_session(session_id)
                shorts = store.short_ids()
        except KbError as e:
            self.call_from_thread(self._start_failed, str(e))
            return
        self.short_names = shorts
        self.post_message(JumpRequested(sid, at))

    def _start_failed(self, why: str) -> None:
        """The session asked for is not there: say so over the list of sessions."""
        self.push_screen(SessionsScreen())
        self.notify(why, title="no such session", severity="error", timeout=8)

    def on_unmount(self) -> None:
        """Called when the app stops: let go of the knowledge base file."""
        self.lease.close()

    # ------------------------------------------------------------- messages
    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        """Called when a screen read the session list: keep it for titles and the palette."""
        self.sessions = message.rows
        from kb.sessionref import short_ids

        self.short_names = short_ids(r["session_id"] for r in message.rows)
        for r in message.rows:
            if r["parent_id"] is None:
                self.scope_of[r["session_id"]] = r["session_id"]
        by_id = {r["session_id"]: r for r in message.rows}
        for r in message.rows:
            top, seen = r, 0
            while top["parent_id"] in by_id and seen < 64:
                top, seen = by_id[top["parent_id"]], seen + 1
            self.scope_of[r["session_id"]] = top["session_id"]

    def on_jump_requested(self, message: JumpRequested) -> None:
        """Called when something asks to show a message: go to its session's timeline.

        From the graph (its evidence) the timeline opens on top of it, so that ``esc``
        returns to the graph where the cursor was: a back-stack, like a browser's."""
        from tui.screens.graph import GraphScreen

        if isinstance(self.screen, GraphScreen):
            self.push_screen(TimelineScreen(message.session_id, message.ordinal))
            return
        for screen in reversed(self.screen_stack):
            if isinstance(screen, SessionsScreen):
                break
            if isinstance(screen, TimelineScreen) and screen.session_id == message.session_id:
                jump = screen.jump  # (mypy narrows `screen` to Screen by the `is not`)
                while self.screen is not screen:
                    self.pop_screen()
                if message.ordinal is not None:
                    jump(message.ordinal)
                return
            if isinstance(screen, TimelineScreen):
                break
        # not open under the current screen: close overlays, open it on top
        while len(self.screen_stack) > 1 and not isinstance(self.screen, (TimelineScreen,
                                                                          SessionsScreen)):
            self.pop_screen()
        self.push_screen(TimelineScreen(message.session_id, message.ordinal))

    def show_sessions(self) -> None:
        """Back to the session list (built now if the app started on a timeline)."""
        while len(self.screen_stack) > 1 and not isinstance(self.screen, SessionsScreen):
            if len(self.screen_stack) == 2:
                self.switch_screen(SessionsScreen())
                return
            self.pop_screen()
        if not isinstance(self.screen, SessionsScreen):
            self.push_screen(SessionsScreen())

    def on_store_busy(self, message: StoreBusy) -> None:
        """Called when a worker waits for the file (an ingest holds it)."""
        self.notify(message.text, title="knowledge base busy", severity="warning", timeout=6)

    def on_graph_loaded(self, message: GraphLoaded) -> None:
        """Called when a graph was read: cache it and hand it to the screens that show it."""
        self.graphs[message.scope] = message.view
        if message.rebuilt and message.scope in self.graphs_shown:
            self.notify("knowledge graph rebuilt from new data", timeout=3)
        self.graphs_shown.add(message.scope)
        for screen in self.screen_stack:
            handler = getattr(screen, "graph_ready", None)
            if handler is not None:
                handler(message.scope, message.view)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Called when any worker changes state: errors become notifications, not crashes."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            err = event.worker.error
            self.notify(f"{type(err).__name__}: {err}", title=event.worker.name or "error",
                        severity="error", timeout=8)

    # ---------------------------------------------------------------- graph
    def request_graph(self, scope: str, *, force: bool = False) -> None:
        """Read a scope's graph in a worker (rebuild it first when data changed)."""
        if not force and scope in self.graphs:
            self.post_message(GraphLoaded(scope, self.graphs[scope]))
            return
        self.run_worker(lambda: self._load_graph(scope), thread=True, exclusive=True,
                        group=f"graph:{scope}", name="graph", exit_on_error=False)

    def _load_graph(self, scope: str) -> None:
        from kb.graph import store as gs
        from kb.store import KbError

        rebuilt = False
        with self.lease.read() as store:
            fresh = views.graph_fresh(store, scope)
        if not fresh:
            try:
                with self.lease.write() as store:
                    rebuilt = gs.rebuild(store, scope)
                self._own_write()
            except KbError as e:
                self.call_from_thread(self.notify, f"the graph may be stale: {e}",
                                      severity="warning")
        with self.lease.read() as store:
            view = visible_deep(views.graph_view(store, scope))  # shown as a whole: escaped
        self.post_message(GraphLoaded(scope, view, rebuilt))

    def _own_write(self) -> None:
        """After the app itself wrote the file (a graph rebuilt): let go of it soon, so an
        ingest in another process need not wait (the lease never counts its own writes as
        news: :meth:`kb.lease.KbLease.changed_elsewhere`)."""
        self.lease.release()

    def busy(self) -> bool:
        """Whether a screen still waits for something it asked for (tests, benchmarks)."""
        return any(getattr(s, "busy", lambda: False)() for s in self.screen_stack)

    def scope_for(self, session_id: str) -> str:
        return self.scope_of.get(session_id, session_id)

    def refused_write(self, what: str) -> bool:
        """Whether the knowledge base is read-only (a team mirror): then say so, and
        ``what`` (annotate, replay) is not done."""
        why = self.lease.read_only
        if why is None:
            return False
        self.notify(f"cannot {what}: {why}", title="read-only", severity="warning",
                    timeout=6)
        return True

    # -------------------------------------------------------------- actions
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_refresh(self) -> None:
        """Let go of the file and read everything again (picks up a new ingest)."""
        self.graphs.clear()
        self._refresh()

    def action_toggle_secrets(self) -> None:
        """Show secrets (after asking) or hide them again (at once); every screen rereads."""
        if self.lease.reveal_secrets:
            self._set_secrets(False)
            return
        if self.lease.read_only is not None:
            self.notify("the team store holds redacted text only: there is no secret to "
                        "show", title="read-only", timeout=6)
            return
        from tui.screens.prompt import ConfirmPrompt

        self.push_screen(ConfirmPrompt(
            "Show secrets (tokens, keys, passwords) as they were recorded?\n"
            "Anyone who can see this screen will see them.", yes="Show them", no="Keep hidden"),
            lambda yes: self._set_secrets(True) if yes else None)

    def _set_secrets(self, reveal: bool) -> None:
        self.lease.reveal_secrets = reveal
        self.graphs.clear()
        self.notify("secrets shown: ctrl+s hides them" if reveal else "secrets hidden",
                    timeout=4, severity="warning" if reveal else "information")
        self._refresh()

    @work(thread=True, exclusive=True, group="refresh", exit_on_error=False)
    def _refresh(self, quiet: bool = False) -> None:
        self.lease.release()
        self.post_message(DataRefreshed(quiet=quiet))

    def on_data_refreshed(self, message: DataRefreshed) -> None:
        """Called after ``ctrl+r`` (or new data seen on disk) released the file: every
        screen reads again."""
        self.lease.changed_elsewhere()  # what changed so far is read now: no news later
        for screen in self.screen_stack:
            handler = getattr(screen, "reload", None)
            if handler is not None:
                handler()
        self.notify("new data" if message.quiet else "refreshed", timeout=2)


class UnknownTheme(ValueError):
    """``--theme`` named a theme Textual does not have."""


def make_app(db_path: str | Path, *, session_id: str | None = None, at: int | None = None,
             theme: str = "textual-dark", idle: float | None = None,
             read_only: str | None = None) -> LogkbApp:
    """The app over the knowledge base at ``db_path`` (raises ``KbMissing`` without one,
    :class:`UnknownTheme` for a theme Textual does not know); ``read_only``: why nothing
    may be written (a team mirror), said when the user tries."""
    from textual.theme import BUILTIN_THEMES

    if theme not in BUILTIN_THEMES:
        raise UnknownTheme(f"{theme!r}; one of {', '.join(sorted(BUILTIN_THEMES))}")
    lease = KbLease(db_path, idle=idle)
    lease.read_only = read_only
    app = LogkbApp(lease, session_id=session_id, at=at, theme=theme)
    if read_only is not None:
        app.title = "logkb · team store (read-only)"
    return app
