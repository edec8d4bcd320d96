"""A record whose ``type`` (or ``payload.type``) is an object or a list is damage, never
a crash: detection and reading go on, every other record is read.

A shape test (``obj.get("type") in SOME_FROZENSET``) hashes the value, and a dict or a
list raises ``TypeError`` there: the ingest fuzz met it in the stream-json reader's
detection (``{"type": {}}`` on a Claude Code line), which every file goes through.  Here
each line of each trimmed real session gets such a value in turn, and every reader's
``detect`` and the detected reader's whole reading must raise nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from logparse.models import Problem
from logparse.registry import READERS, NotATranscript, detect

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
FILES = sorted(p.name for p in TRIM.glob("*.jsonl"))
UNHASHABLE: list[Any] = [{}, ["a"]]
LINES = 12
"""Lines of each file damaged in turn (the head: what detection reads)."""


def _damaged(lines: list[bytes], i: int, key: str, value: Any) -> bytes | None:
    try:
        obj = json.loads(lines[i])
    except ValueError:
        return None
    target = obj.get("payload") if key == "payload.type" else obj
    if not isinstance(target, dict) or "type" not in target:
        return None
    target["type"] = value
    out = list(lines)
    out[i] = json.dumps(obj).encode()
    return b"\n".join(out) + b"\n"


@pytest.mark.parametrize("name", FILES)
def test_an_unhashable_type_is_damage_not_a_crash(tmp_path: Path, name: str) -> None:
    lines = (TRIM / name).read_bytes().splitlines()
    tried = 0
    for i in range(min(LINES, len(lines))):
        for key in ("type", "payload.type"):
            for value in UNHASHABLE:
                data = _damaged(lines, i, key, value)
                if data is None:
                    continue
                tried += 1
                f = tmp_path / f"{i}-{key}-{type(value).__name__}.jsonl"
                f.write_bytes(data)
                head = data[:65536]
                for reader in READERS:
                    if f.is_file():
                        reader.detect(f, head)  # raises nothing
                try:
                    form = detect(f)
                except NotATranscript:
                    continue
                problems: list[Problem] = []
                for s in form().sessions(f, problems):
                    for _ in s.messages:
                        pass
    assert tried, name
