"""Counts of what a listing command listed: every rule of LISTINGS on its real example."""

from __future__ import annotations

import pytest

from logparse.derive import call_measurements
from logparse.listings import LISTINGS, Listing, find_roots, listing_count


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


# Lines an earlier command of the same command line printed are not the listing's: a
# line counts only in the listing's own shape (real outputs, trimmed).
@pytest.mark.parametrize(("command", "output", "want"), [
    # pool FundWise__claude-session.jsonl, message 37: status, a rule, then five commits
    ("git -C /Users/s/Build/FundWise status --short && echo \"---\" && "
     "git -C /Users/s/Build/FundWise log --oneline -5",
     " M DECISIONS.md\n M ROADMAP.md\n?? docs/adr/0021-gtm-rollout-order.md\n---\n"
     "88bf269 docs(status): add agent handoff queue\n"
     "b73f2b8 docs(status): complete lifi handoff polish\n"
     "3cddee6 fix(lifi): polish top-up handoff copy\n"
     "547ccd1 docs(submission): add judge demo brief\n"
     "ed58911 docs(status): complete responsive qa\n", (5.0, "commits")),
    # pool blockchain-dex-events__claude-session.jsonl, message 26: a commit's summary first
    ("git add q1/ && git commit -m \"feat(q1): fetch MANA totalSupply\" && git log --oneline",
     "[main fcd1a4a] feat(q1): fetch MANA totalSupply from Polygon via raw eth_call\n"
     " 2 files changed, 189 insertions(+)\n create mode 100644 q1_mana_total_supply/solve.rb\n"
     "fcd1a4a feat(q1): fetch MANA totalSupply from Polygon via raw eth_call\n"
     "dc1a1e2 chore: set up shared Ruby gemfile and gitignore\n"
     "35ee290 docs: add questions/requirements\n92cec5c Initial commit", (4.0, "commits")),
    # labelled speakfree__session.jsonl, message 5: a server started with `&` logs first
    ("whisper-server --host 0.0.0.0 --port 2022 --threads 16 --convert &\n"
     "sleep 2 && pgrep -la whisper-server",
     "ffmpeg version 8.0.1 Copyright (c) 2000-2025 the FFmpeg developers\n"
     "built with Apple clang version 17.0.0 (clang-1700.4.4.1)\n"
     "84168 whisper-server\n84237 whisper-server\n", (2.0, "processes")),
    # labelled speakfree__session.jsonl, message 23: find's and ls's lines, no process
    ("find /Applications -maxdepth 1 -iname \"*super*\" 2>/dev/null; "
     "ls ~/Library/LaunchAgents/ | grep -iv whisper; pgrep -la -i \"superwhisper\" 2>/dev/null",
     "Exit code 1\n/Applications/Superhuman.app\ncom.adobe.ccxprocess.plist\n"
     "homebrew.mxcl.ollama.plist\n", None),
    # labelled Trezo-Ai__codex-session.jsonl, message 47: a quoted starting point
    ("find /Users/a/Documents/'New project'/programs -maxdepth 3 -type f | sort",
     "/Users/a/Documents/New project/programs/cfo_oracle/Cargo.toml\n"
     "/Users/a/Documents/New project/programs/cfo_oracle/src/lib.rs\n", (2.0, "paths")),
    # git's porcelain v2 (git-status(1)): its "# branch" headers are no path
    ("git status --porcelain=v2 --branch",
     "# branch.oid 2406dea\n# branch.head main\n"
     "1 .M N... 100644 100644 100644 3f2a 3f2a src/a.py\n? notes.md\n", (2.0, "paths")),
    # find's own complaint is no path it found
    ("find . -name '*.rs'", "./src/lib.rs\nfind: './private': Permission denied\n",
     (1.0, "paths")),
    # -exec prints what the command it runs prints
    ("find . -name '*.py' -exec wc -l {} +", "12 ./a.py\n30 ./b.py\n42 total\n", None),
], ids=["status-then-log", "commit-then-log", "server-then-pgrep", "pgrep-none",
        "find-quoted-root", "porcelain-v2", "find-error", "find-exec"])
def test_only_lines_shaped_as_the_listing_count(command: str, output: str,
                                                want: tuple[float, str] | None) -> None:
    got = listing_count(command, output)
    assert (got[:2] if got else None) == want


def test_find_roots_are_its_starting_points() -> None:
    assert find_roots("find src tests -name x") == ("src", "tests")
    assert find_roots("find -L . -type f") == (".",)
    assert find_roots("find -name x") == (".",)
    assert find_roots("find ~/x -name y") is None  # the shell expands it
