"""A real session whose model no price table has: scout's Codex session with its model
renamed, so that the "unknown, never $0" paths stay tested as the shipped table grows."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REALWORLD

UNPRICED_MODEL = "gpt-unpriced-test-model"
SCOUT_CODEX = REALWORLD / "pool" / "scout__codex-session.jsonl"


def unpriced_scout(folder: Path) -> Path:
    """A copy of scout's Codex session (gpt-5.5) in ``folder`` whose model has no price."""
    text = SCOUT_CODEX.read_text(encoding="utf-8")
    assert '"gpt-5.5"' in text
    out = folder / SCOUT_CODEX.name
    out.write_text(text.replace('"gpt-5.5"', f'"{UNPRICED_MODEL}"'), encoding="utf-8")
    return out
