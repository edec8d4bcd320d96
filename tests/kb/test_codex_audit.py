"""``python -m bench codex-audit`` on the trimmed real Codex lines: every call gets the
answer its file holds (the audit reads the file with its own parser and compares with what
the CLI stores and reports open)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bench.codex_audit import audit, codex_files, read_file, stored
from bench.held_out import HELD_OUT

ROOT = Path(__file__).resolve().parents[2]
FILES = ["fixtures/untested/codex_running.jsonl", "fixtures/untested/codex_unfinished.jsonl",
         "fixtures/realworld_trim/codex_code_mode.jsonl", "fixtures/structural/codex.jsonl"]


@pytest.fixture(scope="module")
def logkb(tmp_path_factory: pytest.TempPathFactory) -> str:
    exe = tmp_path_factory.mktemp("bin") / "logkb"
    exe.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT}{os.pathsep}${{PYTHONPATH:-}} "
                   f"exec {sys.executable} -m kb \"$@\"\n")
    exe.chmod(0o755)
    return str(exe)


@pytest.mark.parametrize("rel", FILES)
def test_every_codex_call_gets_the_answer_its_file_holds(rel: str, logkb: str,
                                                        tmp_path: Path) -> None:
    path = ROOT / rel
    calls, polls = read_file(path)
    assert calls
    rows, open_ = stored(logkb, path, tmp_path)
    assert audit(path, calls, polls, rows, open_) == []


def test_the_audit_sees_a_later_answer_left_unattached(logkb: str, tmp_path: Path) -> None:
    """The rsync's exec_command_end (fixture line 10) carries exit 101: stored without it
    (the line cut out of what logkb reads), the audit names the gap."""
    src = ROOT / FILES[0]
    lines = src.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(x for i, x in enumerate(lines, 1) if i != 10) + "\n")
    calls, polls = read_file(src)
    rows, open_ = stored(logkb, cut, tmp_path)
    kinds = {(g["kind"], g["call_id"]) for g in audit(src, calls, polls, rows, open_)}
    assert ("exit-missing", "call_YuLyOoKbfqlCjtYd3FZWMVM3") in kinds


def test_the_held_out_rollouts_are_left_out_unless_asked() -> None:
    names = {p.name for p in codex_files()}  # opens none of them: skipped by name first
    assert len(names) >= 5 and not names & HELD_OUT
