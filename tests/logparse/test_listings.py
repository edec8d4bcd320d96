"""Counts of what a listing command listed: every rule of LISTINGS on its real example."""

from __future__ import annotations

import pytest

from logparse.derive import call_measurements
from logparse.listings import LISTINGS, Listing, listing_count


@pytest.mark.parametrize("rule", LISTINGS, ids=[r.name for r in LISTINGS])
def test_every_listing_rule_counts_its_real_example(rule: Listing) -> None:
    got = listing_count(rule.example_command, rule.example_output)
    assert got == (float(rule.example_count), rule.unit, rule.name), rule.source


@pytest.mark.parametrize("command", [
    "git log --oneline -20 | head -3",      # cut by head: its lines are not the commits
    "find . -name '*.py' | grep test",      # filtered
    "ls -la | wc -l",                      # counted by wc (read as wc's own count)
    "git log --stat",                       # not one commit a line
    "ls src/ docs/",                        # two listings under headers
], ids=["head", "grep", "wc", "stat", "two-dirs"])
def test_a_listing_piped_on_or_not_one_a_line_counts_nothing(command: str) -> None:
    assert listing_count(command, "a\nb\nc\n") is None


def test_a_cut_output_counts_nothing() -> None:
    # pool Rivo__codex-session.jsonl:99: Codex kept 1320 lines' worth of a listing
    assert listing_count("rg --files", "Total output lines: 1320\n\nAnchor.toml\n") is None


def test_a_call_measures_what_it_listed() -> None:
    rule = next(r for r in LISTINGS if r.name == "git-status-short")
    got = call_measurements("bash", "git", {"command": f"cd AgentForge && {rule.example_command}"},
                            rule.example_output, {})
    assert got is not None and {"value": 4.0, "unit": "paths", "label": "paths listed"} in got
