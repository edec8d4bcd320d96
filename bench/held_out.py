"""The held-out transcripts of ``../shared/realworld/pool``: the coordinator measures them
(``fixtures/labels/heldout``) and nobody tunes on them, so a bench leaves them out."""

from __future__ import annotations

from pathlib import Path

HELD_OUT = frozenset({
    "Axe__session.jsonl", "Xeus__gemini-session.jsonl",
    "gildore-arena__codex-session__8c8b717.jsonl", "privacy-x402__claude-session.jsonl",
    "raze__codex-session.jsonl", "scout__claude-session.jsonl",
    "txguardian__codex-session.jsonl"})

STEMS = ("Axe__session", "Xeus__gemini-session", "gildore-arena__codex-session",
          "privacy-x402__claude-session", "raze__codex-session", "scout__claude-session",
          "txguardian__codex-session")
"""What a copy of one keeps in its name (gildore-arena's without its commit)."""


def held_out(path: Path) -> bool:
    """A held-out file, or a copy whose name holds one's stem: never read by a bench."""
    return any(s in path.name for s in STEMS)
