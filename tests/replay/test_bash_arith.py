"""Read-only must be true: bash features that evaluate a string as arithmetic run code.

bash evaluates an array subscript inside arithmetic, and an arithmetic context
expands ``$(…)`` in the subscript, so ``i='a[$(touch P)]'; echo ${x:i}`` runs
``touch P``.  Each command below is run by the real bash in a scratch directory
(the payload only creates a file there); the test holds the classifier to what
bash does: a command that creates its sentinel must never be ``read-only``, and
each command here must create it (so the row still shows a real trick).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from logparse.shell import classify_safety, parse_command

S = "logkb-arith-sentinel"
TRICKS = [
    f"[[ -v 'a[$(touch {S})]' ]]",                            # -v tests a subscript
    f"i='a[$(touch {S})]'; [[ -v $i ]]",
    f"a=(1); unset 'a[$(touch {S})]'",                        # unset NAME[SUB]
    f"a=(1); i='a[$(touch {S})]'; unset \"$i\"",
    f"x=abc; i='a[$(touch {S})]'; echo ${{x:i}}",              # substring offset
    f"x=abc; i='a[$(touch {S})]'; echo ${{x:0:i}}",            # … and length
    f"a=(1 2); i='a[$(touch {S})]'; echo ${{a[@]:i}}",
    f"i='a[$(touch {S})]'; set -- 1 2; echo ${{@:i}}",
    f"x=abc; i='a[$(touch {S})]'; echo \"${{x:$i}}\"",         # a tree-sitter misparse
    f"x=abc; i='a[$(touch {S})]'; echo ${{x:(i)}}",
]
HARMLESS = [  # the same shapes without a name to evaluate: still read-only
    "x=abc; echo ${x:1} ${x:0:2} ${x: -1}",
    "unset x",
]


@pytest.fixture(scope="module")
def bash() -> str:
    path = shutil.which("bash")
    if path is None:
        pytest.skip("bash is not installed")
    return path


@pytest.mark.parametrize("cmd", TRICKS)
def test_a_trick_that_runs_code_is_never_read_only(cmd: str, tmp_path: Path, bash: str) -> None:
    subprocess.run([bash, "-c", cmd], cwd=tmp_path, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=10, check=False)
    assert (tmp_path / S).exists(), f"the trick no longer runs code in this bash: {cmd}"
    safety = classify_safety(parse_command(cmd))
    assert safety.cls != "read-only", (cmd, safety.reasons)


@pytest.mark.parametrize("cmd", HARMLESS)
def test_plain_forms_stay_read_only(cmd: str) -> None:
    safety = classify_safety(parse_command(cmd))
    assert safety.cls == "read-only", (cmd, safety.reasons)


def test_replay_runs_none_of_them_even_without_the_sandbox(tmp_path: Path) -> None:
    """End to end, with the sandbox off (classification is the only wall): every trick is
    skipped, none creates its sentinel; the plain forms run."""
    import json

    from click.testing import CliRunner

    from kb.cli import cli
    from tests.replay.conftest import make_session

    work = tmp_path / "w"
    work.mkdir()
    db = make_session(tmp_path, [(c, "", 0) for c in TRICKS + HARMLESS], directory=str(work))
    r = CliRunner().invoke(cli, ["replay", "run", "--db", str(db), "--from", "1",
                                 "--no-sandbox", "--json"], catch_exceptions=False)
    steps = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    ran = {s["recorded_command"] for s in steps if s["action"] == "run"}
    assert ran == set(HARMLESS), ran
    assert not (work / S).exists()
