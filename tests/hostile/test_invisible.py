"""Invisible characters in transcript text never reach the terminal as they are.

Zero-width spaces and joiners outside a script that needs them, word joiners, a
byte-order mark mid-text, line and paragraph separators, soft hyphens, Hangul
fillers and Unicode tag characters (the "ASCII smuggling" of prompt injection:
``\\U000e0041`` is an invisible ``A``) make a line read as something it is not:
a command copied from the screen is not the one shown.  Every read command on a
pseudo-terminal (the sweep of :mod:`tests.hostile.test_terminal`) must show them
as escapes; ``--json`` keeps the exact text, escaped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from kb.safe_text import json_text, visible
from kb.width import cells
from tests.hostile import corpus
from tests.hostile.conftest import ROOT, run_pty
from tests.hostile.test_terminal import _commands

INVISIBLE = ("r\u200bm\u2060 -rf\ufeff ~\u2028x\u2029y\u00adz\u3164w\u2064"
             "\U000e0041\U000e0042\ufff9a\ufffbPWNED\u180e")
CHARS = sorted({c for c in INVISIBLE if not c.isascii()})


def test_visible_and_json_escape_every_invisible_character() -> None:
    shown = visible(INVISIBLE)
    assert all(c not in shown for c in CHARS), [c for c in CHARS if c in shown]
    assert "\\u200b" in shown and "\\U000e0041" in shown
    assert visible(shown) == shown
    assert cells(shown) == len(shown)  # the escape is what the width counts
    assert cells(INVISIBLE) == len(shown)
    encoded = json_text(json.dumps(INVISIBLE, ensure_ascii=False))
    assert all(c not in encoded for c in CHARS)
    assert json.loads(encoded) == INVISIBLE  # tags as surrogate pairs: the same text


def test_emoji_and_scripts_keep_their_joiners() -> None:
    assert visible("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"
    assert cells("👨\u200d👩\u200d👧") == 2  # one family
    for text in ("می\u200cخواهم", "क्\u200dष", "中\u200d文"):
        assert visible(text) == text
        assert cells(text) == cells(text.replace("\u200d", "").replace("\u200c", ""))


def test_a_joiner_next_to_ascii_is_shown() -> None:
    for text, shown in (("r\u200dm -rf", "r\\u200dm -rf"), ("\u200cls", "\\u200cls"),
                        ("ls\u200d", "ls\\u200d"), ("é\u200dx", "é\\u200dx"),
                        ("👨\u200d", "👨\\u200d")):
        assert visible(text) == shown, text
        assert cells(text) == cells(shown), text


@pytest.fixture(scope="module")
def invisible_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("invisible")
    old = corpus.HOSTILE
    corpus.HOSTILE = INVISIBLE
    try:
        files = corpus.write_forms(d / "src")
    finally:
        corpus.HOSTILE = old
    db = d / "kb.duckdb"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(d / "home")}
    r = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(db),
                        *map(str, files)], env=env, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return db


def _bad(data: bytes) -> list[str]:
    text = data.decode("utf-8", errors="replace")
    return [f"U+{ord(c):04X}" for c in CHARS if c in text]


def test_every_read_command_shows_invisible_characters_as_escapes(
        invisible_db: Path, tmp_path: Path) -> None:
    cmds = _commands(invisible_db)
    code, data = run_pty([sys.executable, "-m", "tests.hostile.pty_driver",
                          orjson.dumps(cmds).decode()], env={"HOME": str(tmp_path)})
    assert code == 0, data[-2000:]
    chunks = data.split(b"@@@ end ")
    assert len(chunks) == len(cmds) + 1, data[-2000:]
    failures = [(args[:3], _bad(chunk)) for args, chunk in zip(cmds, chunks) if _bad(chunk)]
    assert not failures, failures
    assert sum(b"\\u200b" in c for c in chunks) > len(cmds) // 4  # shown, not dropped


def test_json_output_carries_no_invisible_character(invisible_db: Path) -> None:
    d = ["--db", str(invisible_db), "--json"]
    r = subprocess.run([sys.executable, "-m", "kb", "sessions", *d], capture_output=True,
                       timeout=300, check=True)
    sid = json.loads(r.stdout.splitlines()[0])["id"]
    for args in (["sessions"], ["events", "--session", sid], ["show", "1", "--session", sid],
                 ["search", "flashinfer"], ["handoff", "--session", sid]):
        r = subprocess.run([sys.executable, "-m", "kb", *args, *d], capture_output=True,
                           timeout=300, check=True)
        assert _bad(r.stdout) == [], args
        if args[0] == "events":
            values = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
            assert any(INVISIBLE in (v.get("command") or "") for v in values)
