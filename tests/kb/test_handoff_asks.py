"""A session that ends on the agent's question waits for the user: its status is open,
quoting the question; a summary that ends on a courtesy ("Let me know if…") is none."""

from __future__ import annotations

import json
from pathlib import Path

from kb.handoff import ASK_CUES, asks_user

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "handoff"


def test_every_ask_cue_matches_its_real_example() -> None:
    """Rules as data: each row's pattern finds its real example, an asking row makes
    the example a question to the user, a courtesy row makes it none."""
    kinds = set()
    for cue in ASK_CUES:
        assert cue.pattern.search(cue.example), cue
        assert cue.source and cue.lang and cue.example.strip() == cue.example
        got = asks_user(cue.example)
        assert (got is None) == (cue.kind == "courtesy"), (cue, got)
        kinds.add((cue.lang, cue.kind))
    assert {k for _, k in kinds} == {"offer", "choice", "approval", "courtesy"}
    assert {lang for lang, _ in kinds} >= {"en", "es", "pt"}


# the final words of real turns, whole paragraphs (pool and labelled files)
QUESTIONS = [
    # pool random__session.jsonl, message 32 (the user answered «yes please»)
    "Found it — it's a JSONL file at:\n`~/.claude/projects/-home-da-akerud-random/"
    "a263b894.jsonl`\n\nThat's our full session transcript. Want me to copy it into the "
    "repo and commit it? Something like `session.jsonl`?",
    # pool privacy-x402__codex-session.jsonl, message 16: options, the lead-in asks
    "Repo state: empty working tree (only `.git/`), no remote, no commits.\n\nWhat do you "
    "want `init` to produce?\n\n1. Stack: `Python package (uv + ruff + pytest) "
    "(Recommended)` / `Minimal (README + .gitignore only)`\n2. Shape: `library` / `CLI`",
    # labelled uicomponents__session-wordpress.json, message 124: bold, then a sentence
    "**Is there an MCP server for Studio available?** If you point me to its "
    "endpoint/config, I can switch to using it for the remaining work.",
    # pool conversacion-act1-pln__session.jsonl, message 151
    "¿Qué prints tenés actualmente en la pregunta 8 (la de género/número)? Necesito ver "
    "el paso 3 actual para saber qué querés reemplazar con un for loop.",
    # labelled speakfree__session.jsonl, message 84
    "One question still pending: model size. Do you want to upgrade to `small.en` now? You "
    "can do it just by changing `modelSize` in config.json — it'll auto-download the 466 MB "
    "model on next restart.",
]
NOT_QUESTIONS = [
    # pool trade_arena__claude-session.jsonl, message 83: a summary, a courtesy close
    "TypeScript compiles clean. Everything from your last round of feedback is addressed. "
    "Let me know if you want to tweak anything — colors, spacing, copy, or add more motion.",
    # pool FundWise__claude-session.jsonl, message 74 (its last words)
    "**Note on uncommitted state:** [DECISIONS.md](DECISIONS.md) and the four new ADRs are "
    "still uncommitted from earlier in this session. They aren't FW-005 work, so I "
    "deliberately kept them out of both commits. Let me know when you want a separate "
    "`docs(roadmap)` commit for those.",
    # pool blockchain-dex-events__claude-session.jsonl, message 132 (its last words)
    "After this pass the repo is technically tight and self-consistent. Final commit is "
    "`7e3da22`. Ready for submission pending your read-through of the changes.",
    # pool conversacion-act1-pln__session.jsonl, message 117: «si querés» is a condition
    "Podés inicializarlo a mano con 4 claves y `[]` como valor, o si querés algo más "
    "elegante, pensá en un dict comprehension con un producto cartesiano.",
    # pool scout__codex-session.jsonl, message 33: the words end on a code block
    "Replace the placeholder with your real ZenMux API key before using:\n\n```zsh\n"
    "opencode -m zenmux/x-ai/grok-4.5-free\n```",
    # a question in an earlier paragraph is no question of the end (labelled k1, 345)
    "Would that fix it? It was already in place.\n\nThe file shows `null` and git says "
    "nothing to commit. The file is up to date.",
    "", None,
]


def test_questions_and_courtesy_closes() -> None:
    for text in QUESTIONS:
        assert asks_user(text), text
    for text in NOT_QUESTIONS:
        assert asks_user(text) is None, text


def _brief(tmp_path: Path, lines: list[str]):  # type: ignore[no-untyped-def]
    from kb.handoff import brief
    from kb.ingest import ingest
    from kb.store import KbStore

    tmp_path.mkdir()
    src = tmp_path / "rollout.jsonl"
    src.write_text("".join(lines), encoding="utf-8")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        return brief(store, sid)


def test_a_session_that_ends_on_the_agents_question_is_open(tmp_path: Path) -> None:
    """pool privacy-x402__codex-session.jsonl (fixtures/handoff/codex_turn_done): the
    turn completed, but on a question with options: the status was "done".  It waits for
    the user, and says what was asked.  The same words answered by the user (a user line
    appended: the request's line with the answer as its text) leave nothing asked."""
    lines = (FIXTURES / "codex_turn_done.jsonl").read_text(encoding="utf-8").splitlines(True)
    d = _brief(tmp_path / "asked", lines)
    st = d["status"]
    assert st["state"] == "open", st
    assert st["asked"]["ordinal"] == d["activity"]["ended"]["ordinal"]
    assert st["asked"]["text"].startswith("What do you want `init` to produce? 1. Stack:")
    assert st["state_why"].startswith(f"waiting for the user: the agent asked "
                                      f"[{st['asked']['ordinal']}] «What do you want")
    from kb.handoff import markdown

    assert "**open** (waiting for the user" in " ".join(markdown(d).split())
    request = next(ln for ln in lines if '"role":"user"' in ln and '"text":"init"' in ln)
    answer = json.loads(request)
    answer["timestamp"] = "2026-02-14T08:13:30.000Z"
    answer["payload"]["content"][0]["text"] = "Python package, library, MIT"
    answered = _brief(tmp_path / "answered", [*lines, json.dumps(answer) + "\n"])
    assert answered["status"]["asked"] is None
    assert "waiting for the user" not in answered["status"]["state_why"]
