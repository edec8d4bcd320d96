"""The Gemini CLI, pi and Antigravity readers hand messages out as they are done: the
memory a reading takes does not grow with the file.

Each file is the trimmed real session of ``fixtures/realworld_trim`` repeated (its ids
made each copy's own, as ``python -m bench readers`` builds its large files); the peak of
Python's allocations while every message is read stays near the one of a tenth of the
copies, where holding the file's messages until its end (as these readers did) grows ten
times.  The messages read are the same, copy after copy.

One thing grows by design: the Gemini CLI reader keeps the ordinal of every message id it
has seen (``ordinal_of``), because a ``$rewindTo`` line may name any earlier message.  That
map is allowed :data:`ID_MAP` bytes a message, and nothing else may grow.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from bench.readers_bench import copy_lines
from logparse.antigravity import AntigravityReader
from logparse.gemini_cli import GeminiCliReader
from logparse.models import Problem
from logparse.pi import PiReader
from logparse.source import TranscriptReader

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
FORMS: dict[str, tuple[str, type[TranscriptReader]]] = {
    "gemini-cli": ("gemini_cli.jsonl", GeminiCliReader),
    "pi": ("pi.jsonl", PiReader),
    "antigravity": ("antigravity.jsonl", AntigravityReader),
}
ID_MAP = {"gemini-cli": 256, "pi": 0, "antigravity": 0}
"""Bytes a message may add to a reading's peak (the Gemini CLI's id -> ordinal map: a
short id string, an int and the dict's slot)."""


def _build(tmp_path: Path, form: str, copies: int) -> Path:
    name, _ = FORMS[form]
    lines = (TRIM / name).read_bytes().splitlines()
    out = tmp_path / f"{copies}-{name}"
    with out.open("wb") as f:
        for k in range(copies):
            for body in copy_lines(form, lines, k):
                f.write(body + b"\n")
    return out


def _read(form: str, path: Path) -> tuple[int, list[str], list[Problem]]:
    """(peak bytes allocated, the messages' roles, problems) of one reading."""
    reader = FORMS[form][1]()
    problems: list[Problem] = []
    roles: list[str] = []
    (s,) = reader.sessions(path, problems)  # (naming the session reads the file's head)
    tracemalloc.start()
    try:
        for m in s.messages:
            roles.append(str(m.info["role"]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, roles, problems


@pytest.mark.parametrize("form", sorted(FORMS))
def test_memory_does_not_grow_with_the_file(tmp_path: Path, form: str) -> None:
    small, roles_small, p_small = _read(form, _build(tmp_path, form, 20))
    large, roles_large, p_large = _read(form, _build(tmp_path, form, 200))
    assert p_small == [] and p_large == []
    one = len(roles_small) // 20
    assert len(roles_large) == 200 * one and roles_large[:one] * 200 == roles_large
    assert large < 2 * small + ID_MAP[form] * (len(roles_large) - len(roles_small)), (
        form, small, large)


def test_a_call_answered_later_still_holds_its_message() -> None:
    """Streaming changes nothing a whole reading gave: a pi call and its result, lines
    apart, are one message; the message after it leaves after it."""
    problems: list[Problem] = []
    msgs = [m for s in PiReader().sessions(TRIM / "pi.jsonl", problems) for m in s.messages]
    assert problems == []
    lines = [json.loads(m.raw)["lines"] for m in msgs]
    assert [n for ls in lines for n in ls] == list(range(1, 13))
    assert [5, 6] in lines  # the bash call (line 5) and its result (line 6)
