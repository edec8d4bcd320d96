"""Hostile transcripts: the same small debugging story in opencode, Claude Code and Codex
form, whose every text (title, prompt, prose, command, output, todo, subagent, error) carries
terminal control sequences, and trimmed real Gemini CLI, pi and Antigravity files with the
same sequences in every text (:func:`write_other_forms`).

:data:`HOSTILE` is what a tool might print or a web page might say: OSC 52 (on a real
terminal it sets the clipboard to ``rm -rf ~``), OSC 0 (the window title), CSI (clear the
screen, red), C1 controls (``\\x9b`` is a one-byte CSI, ``\\x9d`` a one-byte OSC) and
bidirectional overrides and isolates.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
"""Set the clipboard to ``rm -rf ~`` (base64)."""
OSC0 = "\x1b]0;PWNED-TITLE\x07"
CSI = "\x1b[2J\x1b[H\x1b[31m"
C1 = "\x9b31m\x9d0;C1-TITLE\x9c\x85"
BIDI = "\u202eevil\u202c \u2066iso\u2069 \u202atext\u202b\u202d"
HOSTILE = f"{OSC52}{OSC0}{CSI}{C1}{BIDI}"

BAD_BYTES = [b"\x1b", b"\x07", b"\xc2\x9b", b"\xc2\x9d", b"\xc2\x9c", b"\xc2\x85"] + [
    chr(c).encode() for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
"""What a transcript's text must never put on the terminal (UTF-8 encoded)."""


def story(title: str = "") -> dict[str, Any]:
    """An opencode session tree: an approach that fails, a pivot, a subagent, todos; every
    text holds :data:`HOSTILE`."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash, task, todowrite

    h = HOSTILE
    ctx = BuildContext(random.Random(24), directory="/home/dev/hostile", project_id="ef" * 20)
    b = SessionBuilder(ctx, title=title or f"hostile {h} title", start_ms=1_790_000_000_000)
    b.user(f"Get flashinfer running on the box {h} please")
    b.step(f"Let me try the flashinfer A2A backend first {h}.", [
        bash(f"echo '{h}' && nvidia-smi -L", f"GPU 0: NVIDIA {h} Blackwell\n"),
        todowrite([
            {"content": f"Try flashinfer A2A backend {h}", "status": "in_progress",
             "priority": "high"},
            {"content": "Build flashinfer from source", "status": "pending", "priority": "low"},
        ]),
    ])
    b.step(None, [
        bash("python3 -c 'import flashinfer'",
             f"ModuleNotFoundError: No module named 'flashinfer{h}'\n", exit_code=1),
    ])
    b.step(f"The flashinfer A2A backend is a dead end: flashinfer is not installed {h}.")

    def child(c: Any) -> None:
        c.user(f"Look in the registry for a build {h}")
        c.step("Checking the registry.", [
            bash(f"curl -s https://registry.local/v2/{h}", f'{{"repositories": ["{h}"]}}\n')])
        c.step(f"The registry has a flashinfer build {h}.")

    b.step(f"I will ask a subagent to look in the registry {h}.", [
        task(f"Search the registry {h}", f"Find a flashinfer build {h}", child)])
    b.step(f"Pivot: build flashinfer from source instead {h}.", [
        todowrite([
            {"content": f"Try flashinfer A2A backend — DEAD END: not installed {h}",
             "status": "cancelled", "priority": "high"},
            {"content": f"Build flashinfer from source {h}", "status": "in_progress",
             "priority": "high"},
        ]),
        bash("pip wheel flashinfer", f"Successfully built flashinfer {h}\n"),
    ])
    b.step(f"Done {h}: flashinfer built from source in 95.3 s.")
    return b.tree()


def write_forms(dst: Path) -> list[Path]:
    """The story as an opencode JSONL export, a Claude Code transcript and a Codex rollout;
    then the hostile Gemini CLI, pi and Antigravity files."""
    import sys

    from fixtures.opencode_writer import write_jsonl

    bench = Path(__file__).resolve().parents[2] / "bench"
    if str(bench) not in sys.path:
        sys.path.insert(0, str(bench))
    from gen_agents import claude_lines, codex_lines  # type: ignore[import-not-found]

    dst.mkdir(parents=True, exist_ok=True)
    opencode = write_jsonl(story(), dst / "hostile-opencode.jsonl")
    tree = story()
    claude = dst / "hostile-claude.jsonl"
    with claude.open("wb") as fh:
        fh.write(orjson.dumps({"type": "custom-title", "customTitle": f"claude {HOSTILE}",
                               "sessionId": "5e551011-bec4-4b1d-9a3e-0b7c2d3e4f50"}) + b"\n")
        for rec in claude_lines(iter(tree["messages"])):
            fh.write(orjson.dumps(rec) + b"\n")
    codex = dst / "hostile-codex.jsonl"
    with codex.open("wb") as fh:
        for rec in codex_lines(iter(tree["messages"])):
            fh.write(orjson.dumps(rec) + b"\n")
    return [opencode, claude, codex, *write_other_forms(dst)]


_STRUCTURAL = frozenset({"id", "type", "role", "status", "timestamp", "created_at",
                         "startTime", "lastUpdated", "stopReason", "toolCallId", "parentId",
                         "step_index", "source", "mimeType"})
"""Fields that say what a record is or link it (left alone so the records still read as
they did); every other text of the record carries :data:`HOSTILE`."""


def _poisoned(v: Any, key: str | None = None) -> Any:
    if isinstance(v, dict):
        return {k: _poisoned(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [_poisoned(x, key) for x in v]
    if isinstance(v, str) and key not in _STRUCTURAL:
        return v + (HOSTILE[:12] if key == "sessionId" else " " + HOSTILE)
    return v


def write_other_forms(dst: Path) -> list[Path]:
    """The trimmed real Gemini CLI, pi and Antigravity files (``fixtures/realworld_trim``)
    with :data:`HOSTILE` in every text: prompts, replies, thoughts, tool names, arguments,
    outputs, errors, model names, the Gemini session id."""
    trim = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
    out = []
    for name in ("gemini_cli.jsonl", "pi.jsonl", "antigravity.jsonl"):
        path = dst / f"hostile-{name}"
        with path.open("wb") as fh:
            for line in (trim / name).read_bytes().splitlines():
                fh.write(orjson.dumps(_poisoned(orjson.loads(line))) + b"\n")
        out.append(path)
    return out


def found_bad(data: bytes, allow_own: bool = False) -> list[bytes]:
    """The bytes of :data:`BAD_BYTES` in ``data``.  With ``allow_own``, ESC is allowed when it
    starts a CSI that only styles or moves (``ESC [ digits ; m/H/K/J``...: a renderer's own);
    OSC, BEL, C1 and bidi never are."""
    bad = []
    for b in BAD_BYTES:
        if b not in data:
            continue
        if allow_own and b == b"\x1b" and _only_own_escapes(data):
            continue
        bad.append(b)
    return bad


def _only_own_escapes(data: bytes) -> bool:
    import re

    own = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|[78=>]|\(B)")
    return b"\x1b" not in own.sub(b"", data)
