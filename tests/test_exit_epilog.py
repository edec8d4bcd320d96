"""``logkb --help`` lists every exit code :class:`kb.exitcodes.ExitCode` defines (a
script reading the help must not meet an undocumented code)."""

from __future__ import annotations

import re

from kb.cli import EPILOG
from kb.exitcodes import ExitCode
from tests.cli_kb import invoke


def test_the_help_names_every_exit_code() -> None:
    listed = {int(n) for n in re.findall(r"(?:: |· )(\d) ", EPILOG.replace("\n", " "))}
    assert listed == {int(c) for c in ExitCode}
    out = invoke("--help").stdout
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "8 handoff over --max-tokens" in " ".join(out.split())
