"""Plain-terminal rendering of events and sessions for the CLI (the TUI has its own widgets).

Everything returns :mod:`rich` renderables or strings; the CLI decides where
they go (stdout for data).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kb.records import Event

KIND_STYLE = {
    "prompt": "bold cyan", "command": "bold", "result": "green", "decision": "magenta",
    "todo": "yellow", "subagent": "blue", "error": "bold red", "compaction": "dim",
    "attachment": "dim", "raw": "red",
}
CLASS_STYLE = {"dead-end": "bold red", "pivot": "bold yellow", "decision": "bold green",
               "conclusion": "green", "plan": "cyan", "observation": "white"}


def when(ms: int | None) -> str:
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def first_line(text: str | None, width: int = 100) -> str:
    if not text:
        return ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def where(e: Event) -> str:
    if not e.host:
        return ""
    user = f"{e.user}@" if e.user else ""
    port = f":{e.port}" if e.port else ""
    return f"{user}{e.host}{port}"


def event_line(e: Event, width: int = 100) -> Text:
    """One compact line per event (``logkb events``)."""
    t = Text()
    t.append(f"{e.ordinal:>6} ", style="bold")
    t.append(f"{e.kind.value:<10} ", style=KIND_STYLE.get(e.kind.value, ""))
    if e.kind in ("command", "result", "todo", "subagent"):
        t.append(f"{e.tool or '':<9} ", style="dim")
        t.append(f"{e.category or '':<13} ", style="cyan")
    if e.kind == "command":
        if e.host:
            t.append(f"[{where(e)}] ", style="yellow")
        t.append(first_line(e.remote_command or e.command, width))
    elif e.kind == "result":
        ok = e.status == "completed" and (e.exit_code in (None, 0)) and not e.error_signatures
        t.append(f"{e.status or ''}", style="green" if ok else "red")
        if e.exit_code is not None:
            t.append(f" exit {e.exit_code}", style="green" if e.exit_code == 0 else "red")
        if e.error_signatures:
            t.append("  " + " | ".join(e.error_signatures), style="bold red")
        if e.measurements:
            t.append("  " + ", ".join(str(m) for m in e.measurements[:3]), style="bold blue")
        if not e.error_signatures and not e.measurements:
            t.append("  " + first_line(e.output, width - 20), style="dim")
    elif e.kind == "decision":
        t.append(f"{e.classification or '':<12} ", style=CLASS_STYLE.get(e.classification or "",
                                                                     ""))
        t.append(first_line(e.text, width))
    elif e.kind == "todo":
        active = [i for i in e.todos if i.status not in ("completed", "cancelled")]
        t.append(f"{len(e.todos)} items, {len(active)} open")
    elif e.kind == "subagent":
        t.append(f"{e.text or ''} → {e.child_session_id or '?'}")
    else:
        t.append(first_line(e.text or e.reason, width))
    return t


def event_block(e: Event, full: bool = False, max_lines: int = 40) -> RenderableType:
    """A readable block for one event (``logkb show``)."""
    head = Text()
    head.append(f"{e.kind.value}", style=KIND_STYLE.get(e.kind.value, ""))
    if e.tool:
        head.append(f" · {e.tool}")
    if e.category and e.kind in ("command", "result"):
        head.append(f" · {e.category}", style="cyan")
    if e.classification:
        head.append(f" · {e.classification}", style=CLASS_STYLE.get(e.classification, ""))
    if e.prose_role:
        head.append(f" · {e.prose_role}", style="dim")
    body: list[RenderableType] = [head]
    if e.kind == "command":
        if e.hops:
            for i, hop in enumerate(e.hops):
                kind = "nested ssh" if hop.nested else f"ssh hop {i + 1}"
                target = f"{hop.user + '@' if hop.user else ''}{hop.host}"
                target += f":{hop.port}" if hop.port else ""
                body.append(Text.assemble((f"  {kind}: ", "dim"), (target, "yellow")))
                if hop.remote_command:
                    body.append(Text("    $ " + hop.remote_command))
            body.append(Text.assemble(("  recorded: ", "dim"), e.command or ""))
        else:
            body.append(Text("  $ " + (e.command or "")))
    elif e.kind == "result":
        line = Text("  ")
        line.append(f"{e.status}", style="green" if e.status == "completed" else "red")
        if e.exit_code is not None:
            line.append(f" · exit {e.exit_code}")
        if e.duration_ms is not None:
            line.append(f" · {e.duration_ms / 1000:.1f}s", style="dim")
        body.append(line)
        for s in e.error_signatures:
            body.append(Text.assemble(("  signature: ", "dim"), (s, "bold red")))
        for m in e.measurements:
            body.append(Text.assemble(("  measured: ", "dim"), (str(m), "bold blue")))
        out = e.output or ""
        lines = out.splitlines()
        if not full and len(lines) > max_lines:
            shown = lines[: max_lines // 2] + [f"… {len(lines) - max_lines} more lines "
                                               "(--full shows all) …"] + lines[-max_lines // 2:]
        else:
            shown = lines
        body.append(_highlight("\n".join("  │ " + ln for ln in shown), e.error_signatures))
    elif e.kind == "todo":
        for item in e.todos:
            mark = {"completed": "✔", "cancelled": "✘", "in_progress": "▶"}.get(item.status, "·")
            body.append(Text(f"  {mark} [{item.status}] {item.content}"))
    elif e.kind == "subagent":
        body.append(Text(f"  {e.text or ''} → child session {e.child_session_id or '?'}"))
    else:
        text = e.text or ""
        if e.kind == "raw":
            text = f"{e.reason}\n{e.raw}"
        body.append(Text("  " + text.replace("\n", "\n  ")))
    return Group(*body)


def _highlight(text: str, signatures: list[str]) -> Text:
    t = Text(text, style="dim")
    for sig in signatures:
        needle = sig.split(": ", 1)[-1] if ": " in sig else sig
        for token in {needle, sig}:
            if token:
                t.highlight_words([token], style="bold red")
    return t


def sessions_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("session", "agent", "title", "when", "msgs", "cmds", "form"):
        table.add_column(col, no_wrap=col != "title", overflow="fold")
    by_parent: dict[str | None, list[dict[str, Any]]] = {}
    ids = {r["session_id"] for r in rows}
    for r in rows:
        parent = r["parent_id"] if r["parent_id"] in ids else None
        by_parent.setdefault(parent, []).append(r)

    def add(r: dict[str, Any], depth: int) -> None:
        prefix = "  " * depth + ("└ " if depth else "")
        title = escape(r["title"] or "")
        if r.get("spawned_at"):
            title += f" [dim](from message {r['spawned_at']})[/]"
        table.add_row(prefix + r["session_id"], r.get("agent") or "opencode", title,
                      when(r["last_activity"] or r["time_updated"]), str(r["messages"]),
                      str(r["commands"]), r["source_form"] + ("" if r["complete"] else "*"))
        for child in by_parent.get(r["session_id"], []):
            add(child, depth + 1)

    for r in by_parent.get(None, []):
        add(r, 0)
    return table
