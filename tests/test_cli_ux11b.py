"""Faults a user pass found and left (ux11b), each checked as a user meets it.

A fresh knowledge base of three real sessions: Trezo-Ai's Codex session (an ``ls -la``
of a project, its file sizes read as measurements), Rivo's Codex session (choices read
from the agent's words) and will-it-rain's Claude Code session (a todo list written
again and again with the same items).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_kb import invoke, lines
from tests.newcomer_env import home_env, logkb

TREZO = "019daa66-5b7b-7b01-b9ce-b527014cc09f"
RIVO = "019de7fa-55ca-7c71-8bc1-db36480b3ecc"
RAIN = "33c772d9-b322-4f61-a37d-7d5634a80b45"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, realworld: Path) -> Path:
    d = tmp_path_factory.mktemp("ux11b") / "kb.duckdb"
    r = invoke("ingest", "--db", str(d), "--wait",
               str(realworld / "labelled" / "Trezo-Ai__codex-session.jsonl"),
               str(realworld / "pool" / "Rivo__codex-session.jsonl"),
               str(realworld / "labelled" / "will-it-rain__claude.jsonl"))
    assert r.exit_code == 0, r.stderr
    return d


def _listing(m: dict) -> bool:
    return m["unit"] == "B" and m["label"] in (
        ".DS_Store", ".gitignore", "Cargo.toml", "CFO _ PoC and Arch Diagram.pdf")


def test_measurements_leave_a_listings_file_sizes_out(db: Path) -> None:
    """``ls -la`` of a project listed "6148 B .DS_Store", "39 B .gitignore", … as what the
    session measured: the handoff left them out, ``measurements`` did not.  They are what
    the tree holds (a tool saw them), so ``--harness`` shows them, as the harness's own."""
    shown = lines(invoke("measurements", "--session", TREZO, "--json", "--db", str(db)).stdout)
    assert shown and not any(_listing(m) for m in shown), shown
    every = lines(invoke("measurements", "--session", TREZO, "--json", "--harness",
                         "--db", str(db)).stdout)
    labels = {m["label"] for m in every if _listing(m)}
    assert {".DS_Store", ".gitignore", "CFO _ PoC and Arch Diagram.pdf"} <= labels, labels
    r = invoke("measurements", "--session", TREZO, "--db", str(db))
    assert r.exit_code == 0 and ".DS_Store" not in r.stdout, r.stdout
    assert "--harness shows them" in r.stderr and "file sizes" in r.stderr, r.stderr


def test_the_timeline_charts_no_listings_file_sizes(db: Path) -> None:
    """The timeline charted "B (.gitignore)" (the file sizes of a listing) as the
    session's progress series."""
    r = invoke("timeline", "--session", TREZO, "--db", str(db))
    assert r.exit_code == 0, r.stderr
    assert "B (" not in r.stdout and ".gitignore" not in r.stdout, r.stdout
    data = json.loads(invoke("timeline", "--session", TREZO, "--json", "--db",
                             str(db)).stdout)
    assert not any(m["unit"] == "B" for m in data["throughput"]), data["throughput"]


def test_the_timeline_shows_each_choice_once(db: Path) -> None:
    """The TUI's timeline showed "Chose: use the `apply-grant` skill …" twice at message
    5 of Rivo: the agent's words and the choice read from them share one row key
    (ordinal, seq), and both rows were read under it.  One row per key: the choice."""
    from kb import views
    from kb.store import KbStore

    with KbStore(db, read_only=True) as store:
        index = views.timeline_index(store, RIVO)
        keys = list(zip(index.ordinals, index.seqs, index.srcs, strict=True))
        assert len(keys) == len(set(keys)), [k for k in keys if keys.count(k) > 1]
        rows = views.timeline_rows(store, index, 0, len(index))
    for ordinal in (5, 19, 62):
        texts = [r.text for r in rows.values() if r.ordinal == ordinal and r.kind == "decision"]
        assert len(texts) == 1 and texts[0].startswith("Chose: "), (ordinal, texts)


def test_search_says_a_todo_list_written_again_once(db: Path) -> None:
    """``search`` listed will-it-rain's plan (a todo list written again at 20, 23, 28, 32,
    34 and 55 with the same items) as six identical hits.  One hit says it, with the other
    ordinals; a todo list whose items changed stays a hit of its own."""
    hits = lines(invoke("search", "Create tests", "--session", RAIN, "-n", "50", "--json",
                        "--db", str(db)).stdout)
    todos = [h for h in hits if h["field"] == "todo"]
    texts = [" ".join(h["text"].split()) for h in todos]
    assert len(texts) == len(set(texts)) >= 2, [h["ordinal"] for h in todos]
    folded = next(h for h in todos if h["ordinal"] == 20)
    assert folded["same_at"] == [23, 28, 32, 34, 55], folded["same_at"]
    assert all("same_at" in h for h in hits)
    r = invoke("search", "Create tests", "--session", RAIN, "--db", str(db),
               env={"COLUMNS": "80"})
    row = next(ln for ln in r.stdout.splitlines() if ln.split()[:2] == ["20", "todo"])
    assert row.endswith("(also at 23, 28, 32 +2)") and len(row) <= 80, row


def test_use_without_a_current_session_is_not_found(db: Path, tmp_path: Path) -> None:
    """``logkb use`` with no session chosen said so and exited 0: not found is 6."""
    import shutil

    own = tmp_path / "kb.duckdb"
    shutil.copyfile(db, own)
    for args in (("use",), ("use", "--json")):
        r = invoke(*args, "--db", str(own))
        assert r.exit_code == 6, (args, r.exit_code, r.stderr)
        assert "no current session" in r.stderr
    assert json.loads(invoke("use", "--json", "--db", str(own)).stdout)["current"] is None
    assert invoke("use", RIVO[:12], "--db", str(own)).exit_code == 0
    assert invoke("use", "--db", str(own)).exit_code == 0


def test_hints_name_logkb_when_a_wrapper_runs_the_module(tmp_path: Path) -> None:
    """Run as ``python -m kb`` (the way a wrapper script runs it), a usage error's hint
    said "python -m kb timeline -h" under "logkb: error:": every name is ``logkb``."""
    env = home_env(tmp_path, LOGKB_DB=str(tmp_path / "kb.duckdb"))
    r = logkb(["timeline", "--bogus"], env)
    assert r.returncode == 2, r.stderr
    assert "hint: logkb timeline -h shows its options" in r.stderr, r.stderr
    assert "python -m kb" not in r.stderr
    r = logkb(["replay"], env)
    assert "python -m kb" not in r.stderr and "logkb replay -h" in r.stderr, r.stderr
    r = logkb(["timeline", "-h"], env)
    assert r.stdout.startswith("Usage: logkb timeline"), r.stdout[:80]


def test_a_folded_todo_list_is_named_by_its_first_writing_whatever_the_rank() -> None:
    """Identical texts score alike, so the engine hands them out in no fixed order: the
    folded hit is the earliest writing, in the place of the best ranked one (this test
    failed by chance under load when the first ranked was kept)."""
    from kb.search import distinct

    def hit(o: int, text: str = "Create tests") -> dict:
        return {"session_id": RAIN, "ordinal": o, "field": "todo", "text": text}

    out = distinct([hit(28), hit(7, "other"), hit(20), hit(55), hit(23)])
    assert [(h["ordinal"], h["same_at"]) for h in out] == [(20, [23, 28, 55]), (7, [])]
