"""A decision event made of the agent's words (:mod:`logparse.decide_choice`) shows no
piece of a secret those words hold at default settings.

Such an event quotes parts of a reply shortened (the option the agent dropped, a numbered
option the user answered), and a part cut inside a token is no longer the secret the
scan found in the reply, nor one a rule finds on its own: the head of the token showed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.hostile.conftest import ROOT

SID = "0c1a2b3c-4d5e-4f60-8a7b-8c9d0e1f2a77"
TOKEN = "gh" + "p_" + "Zk3mP9qR2vX7tL4wN8bH6" + "aB1cD2eF3gH4jK5"  # a GitHub token's shape


def write(path: Path, turns: list[tuple[str, str]]) -> Path:
    recs: list[dict[str, Any]] = []
    for n, (kind, text) in enumerate(turns, 1):
        msg: dict[str, Any] = {"role": kind, "content": (
            text if kind == "user" else [{"type": "text", "text": text}])}
        if kind == "assistant":
            msg.update(id=f"msg_{n}", model="claude-opus-4-5", type="message")
        recs.append({"parentUuid": recs[-1]["uuid"] if recs else None, "isSidechain": False,
                     "sessionId": SID, "cwd": "/w", "version": "2.0.1", "gitBranch": "main",
                     "type": kind, "message": msg, "uuid": f"u-{n:06d}",
                     "timestamp": f"2025-10-01T10:00:{n:02d}.000Z"})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def decisions(tmp_path: Path, turns: list[tuple[str, str]]) -> list[str]:
    src = write(tmp_path / "s.jsonl", turns)
    db = tmp_path / "kb.duckdb"
    subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(db), str(src)],
                   capture_output=True, timeout=300, check=True, cwd=ROOT)
    r = subprocess.run([sys.executable, "-m", "kb", "events", "--kind", "decision", "--json",
                        "--session", SID, "--db", str(db)],
                       capture_output=True, timeout=300, check=True, cwd=ROOT)
    return [json.loads(x)["text"] for x in r.stdout.decode().splitlines() if x.strip()]


def test_a_dropped_option_cut_inside_a_token_shows_none_of_it(tmp_path: Path) -> None:
    lead = ("the old deploy credential that an earlier commit of the runner left in the "
            "settings files it had as ")
    assert len(lead) == 100  # the dropped option is cut at 119 characters: in the token
    turns = [("user", "set up the deploy please"),
             ("assistant", f"I'll use the new key rather than {lead}{TOKEN} there.")]
    texts = decisions(tmp_path, turns)
    chose = [t for t in texts if t.startswith("Chose: ")]
    assert chose, texts
    assert not any(TOKEN[:12] in t for t in texts), texts


def test_a_numbered_option_cut_inside_a_token_shows_none_of_it(tmp_path: Path) -> None:
    opt = f"Rotate the deploy credential that the settings file holds as {TOKEN} today"
    turns = [("user", "set up the deploy please"),
             ("assistant", f"Two questions:\n1. {opt}\n2. Keep the old runner?"),
             ("user", "1. yes 2. no")]
    texts = decisions(tmp_path, turns)
    assert any(t.startswith("Answered: ") for t in texts), texts
    assert not any(TOKEN[:12] in t for t in texts), texts


def test_a_choice_at_the_end_of_the_head_read_shows_none_of_a_token(tmp_path: Path) -> None:
    """The rules read a reply's first 3,000 characters: a token across that end was cut
    open there, with no ``…`` to tell the redactor a piece of a secret may end it."""
    pad = "Checked the logs. " * 165
    assert len(pad) + len("I'll use ") < 3000 < len(pad) + len("I'll use ") + len(TOKEN)
    turns = [("user", "set up the deploy please"),
             ("assistant", f"{pad}I'll use {TOKEN} for the deploy.")]
    texts = decisions(tmp_path, turns)
    assert any(t.startswith("Chose: use") for t in texts), texts
    assert not any(TOKEN[:12] in t for t in texts), texts


def test_an_approved_question_cut_at_its_start_shows_none_of_a_token(tmp_path: Path) -> None:
    """A short reply approves the question the agent's last paragraph asks, read in the
    reply's last 600 characters: a token across that start was cut open there."""
    words = "and then deploy it " * 29 + "and then tag it at once "
    ask = f"The build is green. Should I push with the key {TOKEN} {words}now?"
    assert ask.index(TOKEN) < len(ask) - 600 < ask.index(TOKEN) + len(TOKEN) - 12
    turns = [("user", "set up the deploy please"), ("assistant", ask), ("user", "yes")]
    texts = decisions(tmp_path, turns)
    assert any(t.startswith("Approved: ") for t in texts), texts
    assert not any(TOKEN[-12:] in t for t in texts), texts
