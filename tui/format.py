"""Small shared pieces of presentation: times, badges, status words, marks.

Colours here are for badges and inline highlights; the states of whole rows
(cursor, failure, dead end, measurement) are component classes styled in
``app.tcss`` so a theme can change them.
"""

from __future__ import annotations

from datetime import datetime

from rich.cells import cell_len, set_cell_size

KIND_BADGE = {
    "prompt": "bold #0b1e2d on #5fb3d9",
    "decision": "#e0c3ff",
    "command": "bold #d8dee9",
    "todo": "#1d1a05 on #e5c07b",
    "subagent": "#0b1e2d on #7aa2f7",
    "error": "bold #ffffff on #b3261e",
    "compaction": "dim",
    "attachment": "dim",
    "stat": "dim",
    "context": "dim",
    "raw": "#ff8a80",
}
CLASS_STYLE = {
    "dead-end": "bold #ff6b6b", "pivot": "bold #ffd166", "decision": "bold #7ee787",
    "conclusion": "#7ee787", "plan": "#8b9bb4", "observation": "#8b9bb4",
}
CATEGORY_STYLE = {
    "import-check": "#c3e88d", "package-query": "#c3e88d", "search": "#89ddff",
    "benchmark": "#82aaff", "launch": "#ffcb6b", "install": "#f78c6c", "build": "#f78c6c",
    "kill": "#ff5370", "file-edit": "#c792ea", "subagent": "#7aa2f7", "todo": "#e5c07b",
    "research": "#7aa2f7", "other": "#8b9bb4",
    "test": "#82aaff", "typecheck": "#82aaff", "lint": "#82aaff", "deploy": "#ffcb6b",
    "file": "#c792ea", "git": "#89ddff", "package": "#c3e88d", "http": "#b2ccd6",
    "run": "#a6accd",
}
MARK = {"dead_end": ("✘", "bold #ff6b6b"), "blocked": ("⊘", "bold #ff9e64"),
        "superseded": ("↷", "#8b9bb4"), "confirmed": ("✔", "bold #7ee787"),
        "untested": ("?", "bold #ffd166"), "pivot": ("⤳", "bold #ffd166"),
        "note": ("✎", "bold #c3a6ff"), "revisit": ("↺", "bold #ffcb6b"),
        "hypothesis": ("◇", "bold #82aaff")}
STATUS_MARK = {"dead_end": "✘", "blocked": "⊘", "superseded": "↷", "confirmed": "✔",
               "open": "▶"}
STATUS_STYLE = {"dead_end": "bold #ff6b6b", "blocked": "bold #ff9e64", "superseded": "#8b9bb4",
                "confirmed": "bold #7ee787", "open": "bold #82aaff"}
VERDICT_STYLE = {"same": "#7ee787", "changed": "bold #ffd166", "now-fails": "bold #ff6b6b",
                 "now-passes": "bold #7ee787", "now-answers": "bold #82aaff",
                 "skipped": "#8b9bb4"}
SAFETY_STYLE = {"read-only": "#7ee787", "launch": "#ffcb6b", "mutating": "bold #ff6b6b",
                "unknown": "#ff9e64"}
FAIL = "bold #ff6b6b"
MEASURE = "bold #82aaff"
DIM = "#8b9bb4"


def when(ms: int | None, seconds: bool = False) -> str:
    """Local date and time of an epoch-milliseconds value ('' for none)."""
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime(
        "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


STATUS_WORDS = {"interrupted": "stopped", "in_progress": "running", "not_found": "missing"}
"""A call's status said in the status column's 8 cells ("interrupted" showed "interrup")."""


def status_word(status: str | None, exit_code: int | None, failed: bool) -> tuple[str, str]:
    """The status column of a call: its text (at most 8 cells) and style."""
    if status and status != "completed":
        word = STATUS_WORDS.get(status, status)
        return (word if len(word) <= 8 else word[:7] + "…"), FAIL
    if exit_code not in (None, 0):
        return f"exit {exit_code}", FAIL
    if failed:
        return "failed", FAIL
    return "ok", "#7ee787"


def short(text: str | None, width: int) -> str:
    """``text`` on one line, cut to ``width`` cells with an ellipsis."""
    if not text:
        return ""
    one = " ".join(text.split())
    if cell_len(one) <= width:
        return one
    return set_cell_size(one, max(0, width - 1)).rstrip() + "…"


def header_id(session_id: str, short_names: dict[str, str]) -> str:
    """A session's id as a screen's header shows it: its short id (``short_names``: the
    shortest unique prefix, as ``logkb sessions`` prints it and ``--session`` takes it),
    else the id cut to 24 cells.  A rewrite's id is its file's name and ran past the
    header ("trade_arena__claude-session-68d55ac0")."""
    return short_names.get(session_id) or short(session_id, 24)
