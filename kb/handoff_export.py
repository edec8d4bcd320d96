"""A session that ends on its own export: the call that copies the transcript.

Users commit their agent's transcript by asking the agent to export it, so the file
often ends while that call still runs (its output never reaches the transcript: the
transcript *is* its output).  That call is no open check for a successor; the brief
says the session ends on its export instead.  Rules as data: each row names the agents'
own way of exporting a session, with a real command it matches
(``tests/kb/test_handoff_status.py`` walks them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ExportRule:
    agent: str
    pattern: re.Pattern[str]
    example: str
    """A real command it matches (its source in ``source``)."""
    source: str


EXPORT_RULES: tuple[ExportRule, ...] = (
    ExportRule("opencode", re.compile(r"\bopencode\s+export\b"),
               "cd /Users/j0hnd003/Develop/GitHub/server/k1lib-project/k1.lib-bootstrap && "
               "opencode export ses_1be58628dffeUlqtrOC0XgUH2I > session-export.json 2>&1",
               "labelled k1.lib-bootstrap__session-export.json, message 619"),
    ExportRule("codex", re.compile(r"\.codex[\\/]+sessions\b.*\.jsonl", re.S),
               r"$latest = Get-ChildItem -Recurse -Force $env:USERPROFILE\.codex\sessions "
               r"-Filter *.jsonl | Sort-Object LastWriteTime -Descending | Select-Object "
               r"-First 1; Copy-Item -LiteralPath $latest.FullName -Destination "
               r".\codex-session.jsonl -Force",
               "labelled Valdyum-Labs__codex-session.jsonl (the call at message 69)"),
    ExportRule("claude-code", re.compile(r"\.claude/projects/.*\.jsonl", re.S),
               "CURRENT_JSONL=$(ls -t ~/.claude/projects/-Users-mikemorgenstern-TIDR-"
               "Dropbox-TIDR-Team-Folder-RG-Collab-Admin/*.jsonl 2>/dev/null | head -1)\n"
               'cp "$CURRENT_JSONL" ~/Code/workbench/openwisprmod/session.jsonl',
               "labelled speakfree__session.jsonl (the call at message 95)"),
    ExportRule("any", re.compile(r"\bexport[-_]session\.(?:sh|py|ps1|js|mjs)\b"),
               "bash /Users/anmolbhardwaj/.claude/skills/apply-grant/export-session.sh .",
               "labelled Trezo-Ai__codex-session.jsonl (the call at message 93)"),
)
"""How the agents (and the skills they run) copy the session's own transcript."""


def is_export(command: str | None) -> bool:
    """Whether ``command`` copies the session's own transcript (:data:`EXPORT_RULES`)."""
    return bool(command) and any(r.pattern.search(command or "") for r in EXPORT_RULES)


__all__ = ["EXPORT_RULES", "ExportRule", "is_export"]
