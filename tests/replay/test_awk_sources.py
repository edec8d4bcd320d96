"""awk programs that come from somewhere the plan cannot read.

``mawk -W exec FILE`` runs FILE as the program; gawk's ``-e``/``--source`` text may
be followed by ``-f FILE``; ``@include "x.awk"`` runs a file's code and ``@load
"./x"`` a shared library from the working tree.  On main all of them were
read-only (the real mawk shows ``-W exec`` running ``system()``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from logparse.shell import classify_safety, parse_command


@pytest.mark.parametrize("text", [
    "mawk -W exec prog.awk",
    "awk -Wexec prog.awk data",
    "gawk -W file=prog.awk",
    "awk -e 'BEGIN{x=1}' -f prog.awk",
    "gawk --source='BEGIN{x=1}' -f prog.awk",
    "awk '@include \"prog.awk\"'",
    "gawk '@load \"./evil\"; BEGIN{print 1}'",
    "awk '@ include \"prog.awk\"' data",
])
def test_a_program_the_plan_cannot_read_is_unknown(text: str) -> None:
    s = classify_safety(parse_command(text))
    assert s.cls == "unknown", (text, s.reasons)


@pytest.mark.parametrize("text", [
    "awk -F: '{print $1}' /etc/passwd",
    "gawk -e 'BEGIN{print 1}'",
    "mawk -W version",
    "awk 'BEGIN{print \"@loaded\"}'",
])
def test_programs_in_the_text_still_read(text: str) -> None:
    assert classify_safety(parse_command(text)).cls == "read-only", text


@pytest.mark.skipif(shutil.which("mawk") is None, reason="mawk is not installed")
def test_mawk_w_exec_really_runs_a_program_file(tmp_path: Path) -> None:
    prog = tmp_path / "prog.awk"
    prog.write_text('BEGIN { system("echo RAN") }\n')
    out = subprocess.run(["mawk", "-W", "exec", str(prog)], capture_output=True, text=True,
                         timeout=10)
    assert "RAN" in out.stdout
    assert classify_safety(parse_command(f"mawk -W exec {prog}")).cls == "unknown"
