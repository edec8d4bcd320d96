"""Episode rules fed by the structural signals (kb.graph.episodes)."""

from __future__ import annotations

from kb.graph.episodes import (
    Said,
    Step,
    admitted_episodes,
    api_error_episodes,
    chain_key,
    check_episodes,
    dropped_episodes,
    episodes,
    rejected_episodes,
    reworked_episodes,
    stopped_episodes,
    superseded_episodes,
)
from kb.graph.switched import escalated_episodes, switched_episodes


def _run(o: int, cmd: str, failed: bool, key: str = "", **kw) -> Step:  # type: ignore[no-untyped-def]
    return Step("s", o, key or cmd.split()[0], False, True, failed, kw.pop("sig", None),
                command=cmd, **kw)


def test_a_url_run_another_way_replaces_the_failed_way() -> None:
    url = "curl -fsSL https://www.solana.new/setup.sh | bash"
    steps = [_run(8, f'bash -lc "{url}"', True, key="bash curl",
                  failure="execvpe(/bin/bash) failed: No such file or directory"),
             _run(47, f"& 'C:\\Program Files\\Git\\bin\\bash.exe' -lc \"{url}\"", False,
                  key="bash.exe curl")]
    (f,) = switched_episodes(steps)
    assert f.ordinals() == {8, 47} and "execvpe" in f.cause_text


def test_a_slip_fixed_at_the_next_call_is_no_dead_end() -> None:
    steps = [_run(200, "curl -sL http://h:8882/p | python -c x", True, key="curl h:8882/p",
                  failure="Showcase"),
             _run(201, "curl -sL http://h:8882/p -o out.json", False, key="curl h:8882/p2")]
    assert switched_episodes(steps) == []


def test_a_flag_value_does_not_split_a_target() -> None:
    a = _run(1, "cargo test -p cfo_oracle", True, key="cargo test cfo_oracle")
    b = _run(2, "cargo test --manifest-path /a/Cargo.toml", True, key="cargo test cargo.toml")
    c = _run(3, "npm install left-pad", True, key="npm install left-pad")
    assert chain_key(a) == chain_key(b) == "cargo test"
    assert chain_key(c) == "npm install left-pad"


def test_a_rejection_carries_what_the_user_said() -> None:
    steps = [Step("s", 5, "exitplanmode", False, False, False, None, True,
                  user_said="I want the output to be index.mjs")]
    (f,) = rejected_episodes(steps)
    assert f.how == "rejected" and "index.mjs" in f.cause_text


def test_a_stopped_run_takes_the_users_next_message() -> None:
    steps = [_run(75, "cargo test", True, sig="aborted by user after 33.4s", interrupted=True)]
    said = [Said("s", 77, "user", "do that for kosh ai", None)]
    (f,) = rejected_episodes(steps, said)
    assert f.how == "interrupted" and "kosh" in f.cause_text and "aborted" in f.cause_text
    assert {75, 77} <= f.ordinals()


def test_a_provider_error_that_ends_the_work_is_a_dead_end() -> None:
    steps = [Step("s", 162, "edit", True, False, False, None, target="discord.ts")]
    said = [Said("s", 161, "user", "drop the icons", None),
            Said("s", 164, "assistant", "APIError: You've hit your limit", "api-error")]
    (f,) = api_error_episodes(steps, said)
    assert f.ordinals() == {161, 162, 164} and "limit" in f.cause_text
    # the agent going on by itself after the error: a hiccup
    later = steps + [Step("s", 165, "edit", True, False, False, None, target="x")]
    assert api_error_episodes(later, said) == []
    assert any(e.how == "api-error" for e in episodes(steps, said))


def _change(o: int, target: str, wrote: str = "", took: str = "") -> Step:
    return Step("s", o, f"edit {target}", True, False, False, None, target=target,
                wrote=frozenset(x.strip() for x in wrote.splitlines() if x.strip()),
                took=frozenset(x.strip() for x in took.splitlines() if x.strip()))


# pool random__session.jsonl: index.html written with Math.random(); the user asks whether
# it is truly random; the agent swaps the line for crypto.getRandomValues()
_MATH_RANDOM = "    return Math.floor(Math.random() * (max - min + 1)) + min;"


def test_own_lines_taken_away_after_the_user_spoke_are_reworked() -> None:
    from kb.graph.episodes import reworked_episodes

    said = [Said("s", 1, "user", "make me a random number page", None),
            Said("s", 5, "user", "is it truly random? i need to be able to reason about it", None)]
    steps = [_change(3, "random/index.html", wrote=f"function randomInRange(min, max) {{\n"
                     f"{_MATH_RANDOM}\n}}"),
             _change(7, "random/index.html", took=_MATH_RANDOM,
                     wrote="crypto.getRandomValues(buf);")]
    (f,) = reworked_episodes(steps, said)
    assert f.how == "reworked" and f.ordinals() == {3, 5, 7}
    assert "truly random" in f.cause_text
    # an edit that only adds (the sound effects asked for next) reworks nothing
    added = [steps[0], _change(7, "random/index.html", wrote="playTick(progress);")]
    assert reworked_episodes(added, said) == []
    # lines taken away that another file held, or that the agent wrote after the user
    # spoke, are no rework of what the user saw
    assert reworked_episodes([steps[0], _change(7, "random/other.html", took=_MATH_RANDOM)],
                             said) == []
    assert reworked_episodes([_change(6, "random/index.html", wrote=_MATH_RANDOM), steps[1]],
                             said) == []


def test_edit_lines_of_every_agent() -> None:
    import orjson

    from kb.graph.store import edit_lines

    # Claude Code Edit (pool random__session.jsonl:24, trimmed)
    cc = {"file_path": "/r/index.html", "old_string": "  function randomInRange(min, max) {\n"
          f"{_MATH_RANDOM}\n  }}", "new_string": "  function randomInRange(min, max) {\n"
          "      crypto.getRandomValues(buf);\n  }"}
    wrote, took = edit_lines(orjson.dumps(cc).decode())
    assert took == {_MATH_RANDOM.strip()} and wrote == {"crypto.getRandomValues(buf);"}
    # opencode edit (camelCase) and write
    oc = {"filePath": "a.ts", "oldString": "let x = 1;", "newString": "let x = 2;"}
    assert edit_lines(orjson.dumps(oc).decode()) == ({"let x = 2;"}, {"let x = 1;"})
    assert edit_lines('{"filePath": "a.ts", "content": "a = 1\\n\\n}"}') == ({"a = 1"}, set())
    # Codex apply_patch (pool Rivo__codex-session.jsonl:138, trimmed)
    patch = ("*** Begin Patch\n*** Update File: solaudd-grant-application.md\n@@\n"
             "-> Deadline: TODO: choose date\n+> Deadline: May 4, 2026\n*** End Patch")
    assert edit_lines(orjson.dumps({"input": patch}).decode()) == (
        {"> Deadline: May 4, 2026"}, {"> Deadline: TODO: choose date"})
    # ... as the Codex reader stores it (soulpass__codex-session.jsonl: ``patchText``)
    assert edit_lines(orjson.dumps({"patchText": patch}).decode()) == (
        {"> Deadline: May 4, 2026"}, {"> Deadline: TODO: choose date"})
    assert edit_lines(None) == (set(), set()) and edit_lines("not json") == (set(), set())


def test_a_request_whose_only_reply_is_a_provider_error_is_untested(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """pool conversacion-act1-pln__session.jsonl:497-499 (trimmed): the last request got
    only Claude Code's synthetic "You've hit your limit" message."""
    from pathlib import Path

    from kb.graph import store as gs
    from kb.ingest import ingest
    from kb.store import KbStore

    src = Path(__file__).resolve().parents[2] / "fixtures" / "untested" / "claude_code_limit.jsonl"
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        (q,) = [q for q in gs.untested(store, [sid]) if "provider error" in q["reason"]]
        asked = store.conn.execute("SELECT max(ordinal) FROM prose WHERE kind = 'prompt'"
                                   ).fetchone()[0]
        assert q["ordinal"] == asked and "pregunta 11" in q["question"]
        assert "hit your limit" in q["reason"] and q["status"] == "open"


# pool conversacion-act1-pln__session.jsonl: an answer (#32) gives "corriendo" as Mood=Ger;
# the user asks about it (#33, in Spanish); the replies admit it (#34, #35)
def test_an_admission_after_the_user_spoke_ends_the_turn_it_answers() -> None:
    said = [Said("s", 31, "user", "EXCELENTE, vamos a estudiar la libreria spaCy", None),
            Said("s", 33, "user", 'En el ejemplo de "Corriendo" pusiste Mood=Ger pero los '
                 "valores posibles de Mood son Ind, Sub, Imp", None),
            Said("s", 34, "assistant", "Tenés razón en señalar la inconsistencia.", "admit"),
            Said("s", 35, "assistant", "Me equivoqué. Ger es un valor de VerbForm, no de Mood",
                 "admit")]
    (f,) = admitted_episodes([], said)
    assert f.how == "admitted" and f.ordinals() == {32, 33, 34, 35}
    assert "VerbForm" in f.cause_text and "Corriendo" in f.cause_text
    assert any(e.how == "admitted" for e in episodes([], said))


def test_an_admission_with_no_user_message_before_it_is_no_episode() -> None:
    said = [Said("s", 1, "user", "build it", None),
            Said("s", 9, "assistant", "You're right to check the config first.", "admit")]
    assert admitted_episodes([], said) == []


# pool FundWise__claude-session.jsonl: the user moves Fundy to its own repository; the
# agent writes ADR-0022 and marks ADR-0018's monorepo decision superseded
def test_edits_that_mark_a_design_superseded_end_it() -> None:
    said = [Said("s", 15, "user", "have everything indexed in the docs like how adr is chunked",
                 None)]
    steps = [_change(21, "adr/0022.md", wrote="- **Supersedes ADR-0018 Q12** (monorepo, "
                     "Fundy in services/fundy/ inside the FundWise repo)"),
             _change(24, "ROADMAP.md", wrote="see ADR-0022"),
             _change(27, "adr/0018.md", wrote="### Repo structure (Q12) — SUPERSEDED by "
                     "[ADR-022](./0022.md)")]
    (f,) = superseded_episodes(steps, said)
    assert f.how == "superseded" and f.ordinals() == {15, 21, 27}
    assert "monorepo" in f.cause_text
    # a line that was already there (the edit kept it) marks nothing new
    kept = [_change(30, "adr/0018.md", wrote="SUPERSEDED by ADR-022", took="SUPERSEDED by "
                    "ADR-022")]
    assert superseded_episodes(kept, said) == []


# speakfree__session.jsonl: two whisper-server processes blamed (#10), killed and
# restarted (#11-#13), then found to be a normal parent/child pair (#14)
def test_a_guess_the_agent_dismisses_is_dropped() -> None:
    said = [Said("s", 10, "assistant", "There are two whisper-server processes running "
                 "(84168 and 84237) — that's likely the issue.", "hypothesis"),
            Said("s", 14, "assistant", "The two processes are normal — it's a parent/child "
                 "pair.", "dismissed")]
    steps = [_run(11, "pkill whisper-server", False), _run(13, "ps aux", False)]
    (f,) = dropped_episodes(steps, said)
    assert f.how == "dropped" and f.ordinals() == {10, 11, 14}  # the kill, not the look
    assert "parent/child" in f.cause_text
    # a dismissal of something the guess did not name drops nothing
    other = said[:1] + [Said("s", 14, "assistant", "The warnings are expected.", "dismissed")]
    assert dropped_episodes(steps, other) == []


def test_a_guess_only_looked_at_is_not_dropped() -> None:
    said = [Said("s", 8, "assistant", "Maybe the process started but isn't responding.",
                 "hypothesis"),
            Said("s", 9, "assistant", "The server process is responding, which is expected.",
                 "dismissed")]
    assert dropped_episodes([_run(8, "curl localhost:2022/v1", False)], said) == []


# soulpass__codex-session.jsonl: a devnet query fails in the sandbox with "fetch failed"
# (#299, sandbox_denied), the same query escalated works (#301)
def test_a_check_that_only_works_outside_the_sandbox() -> None:
    cmd = "node -e \"const {Connection}=require('@solana/web3.js')\""
    steps = [_run(299, cmd, True, key="node const", offline=True,
                  sig="Error: failed to get info about account: TypeError: fetch failed"),
             _run(301, cmd, False, key="node const", escalated=True)]
    (f,) = escalated_episodes(steps)
    assert f.how == "sandboxed" and f.ordinals() == {299, 301}
    assert "sandbox" in f.cause_text and "fetch failed" in f.cause_text
    # failing again outside the sandbox: it never worked, so not `sandboxed` (the
    # network error the sandbox explains still makes the escalation a dead end)
    assert [f.how for f in escalated_episodes([steps[0], steps[1]._replace(failed=True)])] \
        == ["escalated"]


def test_a_whole_file_written_again_takes_away_what_it_drops() -> None:
    def write(o: int, lines: str) -> Step:
        return _change(o, "random/index.html", wrote=lines)._replace(key="write index.html")

    said = [Said("s", 1, "user", "build a random number page", None),
            Said("s", 5, "user", "is it truly random? I need to reason about it", None)]
    steps = [write(3, "const n = Math.floor(Math.random() * 4) + 1;\n<h1>Random</h1>"),
             write(7, "const n = crypto.getRandomValues(new Uint32Array(1))[0] % 4 + 1;\n"
                      "<h1>Random</h1>")]
    (f,) = reworked_episodes(steps, said)
    assert f.ordinals() == {3, 5, 7} and "Math.random" in f.cause_text


# pool conversacion-act1-pln__session.jsonl: three WebFetch lookups (#106, #107), then
# Claude Code's record "[Request interrupted by user]" (#108) and "claude continua" (#109)
def test_a_turn_the_user_stopped_ends_its_work() -> None:
    said = [Said("s", 105, "user", "contame sobre los tipos de NER de spaCy", None),
            Said("s", 108, "user", "[Request interrupted by user]", None),
            Said("s", 108, "record", "[Request interrupted by user]", "stopped"),
            Said("s", 109, "user", "claude continua", None)]
    steps = [_run(106, "https://spacy.io/models/es", False, key="webfetch spacy.io/models"),
             _run(107, "https://spacy.io/api/ner", False, key="webfetch spacy.io/api")]
    (f,) = stopped_episodes(steps, said)
    assert f.how == "stopped" and f.ordinals() == {106, 107, 108, 109}
    # "claude continua" only says go on: it stays evidence, never the cause
    # (kb.graph.causechoice.GO_ON)
    assert f.cause_text == "the user stopped the turn (`webfetch spacy.io/api`)"
    # stopped before it did anything: nothing was tried
    assert stopped_episodes([], said) == []


def test_a_stop_of_a_call_is_told_by_the_call() -> None:
    # Trezo-Ai__codex-session.jsonl: the escalated cargo test aborted by the user (#75),
    # then Codex's <turn_aborted> record (#76): one dead end, the interrupted call's
    steps = [_run(73, "rsync -a a/ /tmp/c/", True, sig="Could not resolve hostname"),
             _run(75, "cargo test", True, sig="aborted by user after 33.4s",
                  interrupted=True)]
    said = [Said("s", 60, "user", "run the tests", None),
            Said("s", 76, "record", "<turn_aborted>", "stopped"),
            Said("s", 77, "user", "do that for kosh ai", None)]
    assert stopped_episodes(steps, said) == []


# pool FundWise__claude-session.jsonl:157-174 (trimmed): `pnpm --version` fails twice
# (#40, #41: Corepack refuses pnpm for the parent package.json's packageManager), the
# absolute pnpm path prints the same refusal through `| head` (#45, exit 0), and
# COREPACK_ENABLE_PROJECT_SPEC=0 makes it work (#46)
_YARN = ('This project is configured to use yarn because /Users/s/package.json has a '
         '"packageManager" field')


def test_a_probe_that_only_works_with_an_environment_override() -> None:
    from kb.graph.episodes import Probe, workaround_episodes

    probes = [Probe("s", 40, "node --version && pnpm --version 2>&1", True, _YARN),
              Probe("s", 41, 'pnpm --version 2>&1 && cat package.json | grep -E "engines"',
                    True, _YARN),
              Probe("s", 45, "/Users/s/.nvm/versions/node/v23.9.0/bin/pnpm --version 2>&1 "
                    "| head -5", False),
              Probe("s", 46, "COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version 2>&1 | tail -3",
                    False)]
    (f,) = workaround_episodes(probes)
    assert f.how == "workaround" and f.ordinals() == {40, 41, 46}
    assert "packageManager" in f.cause_text and f.name.startswith("pnpm ")
    # one failure fixed by the override is a slip
    assert workaround_episodes(probes[1:]) == []
    # the override long after the failures is another piece of work
    late = probes[:2] + [probes[3]._replace(ordinal=41 + 13)]
    assert workaround_episodes(late) == []
    # the failures with no override after them: no workaround (the other rules judge)
    assert workaround_episodes(probes[:3]) == []
    assert any(e.how == "workaround" for e in episodes([], [], probes=probes))


# Trezo-Ai__codex-session.jsonl: the agent builds the grant for the project a shallow
# `find` found; the user stops it and says "do that for kosh ai"; the reply switches
def test_a_reply_that_switches_to_what_the_user_now_wants_ends_the_turn() -> None:
    from kb.graph.episodes import redirected_episodes

    said = [Said("s", 2, "user", "help me apply for the agentic engineering grant", None),
            Said("s", 77, "user", "do that for kosh ai", None),
            Said("s", 78, "assistant", "I’m switching the grant application target to the "
                 "`Kosh AI` project.", "redirect")]
    steps = [_run(7, "find ~ -maxdepth 3 -name .git", False),
             _run(64, "cargo test -p cfo_oracle", True),
             _run(75, "cargo test --manifest-path /tmp/x/Cargo.toml", True)]
    (f,) = redirected_episodes(steps, said)
    assert f.how == "redirected" and f.ordinals() == {7, 64, 75, 76, 77, 78}
    assert "kosh ai" in f.cause_text and f.said_at == 77
    assert any(e.how == "redirected" for e in episodes(steps, said))
    # a question is no redirect, nor a reply far from the user's message
    asked = [said[0], said[1]._replace(text="do you think kosh ai would be possible"), said[2]]
    assert redirected_episodes(steps, asked) == []
    late = [*said[:2], said[2]._replace(ordinal=90)]
    assert redirected_episodes(steps, late) == []


# pfm-categorization__opencode-session.json: plan v1 (#15) builds on the legacy Contracts
# project; the user (#16, Portuguese) sets that project aside; the plan is redone
def test_a_name_the_user_sets_aside_ends_the_turn_that_used_it() -> None:
    from kb.graph.episodes import user_dropped_episodes

    plan = "# Plano — F1-PBI-1\nDTOs em `Pfm.Categorization.Contracts` e endpoint no WebApi."
    said = [Said("s", 10, "user", "Vamos iniciar a implementação do primeiro pbi", None),
            Said("s", 15, "assistant", plan, "answered"),
            Said("s", 16, "user", "Uma decisão importante, vamos ignorar os dois projetos "
                 "existentes, ou seja, o Pfm.Categorization.Contracts e o "
                 "Pfm.Categorization.SyntheticData", None)]
    (f,) = user_dropped_episodes([], said)
    assert f.how == "user-dropped" and f.ordinals() == {15, 16, 17}
    assert "Pfm.Categorization.Contracts" in f.cause_text
    # a name the answered reply never wrote was not what the turn proposed
    other = [said[0], said[1]._replace(text="# Plano\nendpoint no WebApi."), said[2]]
    assert user_dropped_episodes([], other) == []


def test_work_undone_right_after_the_user_spoke_is_a_dead_end() -> None:
    from kb.graph.episodes import undone_episodes

    said = [Said("s", 1, "user", "add icons to the landing page", None),
            Said("s", 6, "user", "no icons library please, keep it plain svg", None)]
    install = _run(3, "npm install @hugeicons/react", False, key="npm install")
    steps = [install, _change(4, "src/App.tsx", wrote="import { Home } from '@hugeicons/react'"),
             _run(7, "npm uninstall @hugeicons/react", False, key="npm uninstall"),
             _run(8, "git checkout -- src/App.tsx", False, key="git checkout")]
    (f,) = undone_episodes(steps, said)
    assert f.how == "undone" and f.ordinals() == {3, 4, 6, 7}
    assert "plain svg" in f.cause_text and "npm uninstall" in f.cause_text
    # undone long after the user spoke, it is the agent's own cleaning up
    later = [install, steps[1], steps[2]._replace(ordinal=16)]
    assert undone_episodes(later, [said[0], said[1]]) == []
    # a helper script the agent ran, then deleted, is no work turned down
    helper = [_change(3, "tools/make-page.php", wrote="<?php echo 1;"),
              _run(4, "php tools/make-page.php", False),
              _run(7, "rm tools/make-page.php", False)]
    assert undone_episodes(helper, said) == []


# blockchain-dex-events__claude-session.jsonl: a reviewer sub-agent (#111) finds the Q4
# README's "arb bot" reading wrong; the agent takes its own sentence away (#115)
def test_own_lines_a_review_sends_back_are_a_dead_end() -> None:
    from kb.graph.episodes import reviewed_episodes

    arb = "same address (`0xa5e0…78ff`), which is typical of an arb bot or a smart"
    said = [Said("s", 95, "user", "q4 looks excellent", None),
            Said("s", 111, "assistant", "Code review of all 5 question solutions", "reviewed")]
    steps = [_change(91, "q4/README.md", wrote=f"# Q4\n{arb}"),
             _change(115, "q4/README.md", took=arb, wrote="it is the QuickSwap V2 Router"),
             _change(116, "q4/notes.md", wrote="router, not a bot")]
    (f,) = reviewed_episodes(steps, said)
    # the taken_back rule's reading, the sub-agent's answer what made the agent look again
    assert f.how == "taken-back" and f.rule == "" and f.ordinals() == {91, 115} \
        and f.said_at == 111
    assert "arb bot" in f.cause_text
    # edits after the user spoke again answer the user, not the review
    said_after = [*said, Said("s", 113, "user", "also add a summary", None)]
    assert reviewed_episodes(steps, said_after) == []


# labelled uicomponents__session-wordpress.json (trimmed): after the user's request (#201)
# the agent reads wp-config.php (#203), slips on PowerShell's Select-String (#205, curl
# fixed at once #206: a labelled trap), tries the site's database (#210: no sqlite
# library), then opencode's own record of the stop, the reply's error
# "MessageAbortedError: Aborted" (#212), and the user's next words (#213); a stop right
# after a request (#214, nothing tried) is no dead end
def test_an_aborted_reply_is_a_turn_the_user_stopped() -> None:
    said = [Said("s", 201, "user", "update the page with the changes", None),
            Said("s", 212, "assistant", "MessageAbortedError: Aborted", "aborted"),
            Said("s", 213, "user", "look the react one works exactly pixel perfect", None),
            Said("s", 214, "assistant", "MessageAbortedError: Aborted", "aborted")]
    steps = [_run(200, "python fix.py", True, key="python fix.py"),
             _run(203, 'Get-Content "C:/Studio/wp-config.php"', False, key="get-content"),
             _run(205, "curl -s -I http://localhost:8882/wp-login.php | Select-String -First 5",
                  True, key="curl localhost:8882/wp-login.php"),
             _run(206, 'curl -s -o $null -w "%{http_code}" http://localhost:8882/wp-login.php',
                  False, key="curl $null"),
             _run(210, '$conn = New-Object System.Data.SQLite.SQLiteConnection', True,
                  key="new-object")]
    (f,) = stopped_episodes(steps, said)
    assert f.how == "stopped" and f.first == 203 and f.ended == 212
    # the slip and the call that fixed it are no part of the stopped work, nor do they
    # make room for an older step (#200)
    assert f.ordinals() == {203, 210, 212, 213}
    assert f.cause_text.startswith("the user stopped the turn: look the react one")
    # Codex writes both records of one stop (the reply's error, <turn_aborted>): one dead end
    both = said[:1] + [Said("s", 212, "assistant", "MessageAbortedError: turn aborted",
                            "aborted"),
                       Said("s", 213, "record", "<turn_aborted>", "stopped")]
    assert len(stopped_episodes(steps, both)) == 1


def test_a_look_that_found_nothing_once_is_no_abandoned_check() -> None:
    """uicomponents__session-wordpress.json (opencode, shared) #334-#337: a search for
    php.exe that ran into its timeout, then the agent turns away from another program
    that hangs.  A look (``Get-ChildItem``, ``ls``, ``find``) that failed once found
    nothing: no approach was given up; the same failure of a program that does the work
    is one."""
    from kb.graph.episodes import check_episodes
    look = _run(334, 'Get-ChildItem -Path "C:\\laragon" -Filter "php.exe" -Recurse '
                '-ErrorAction SilentlyContinue | Select-Object -First 3', True,
                key="get-childitem", sig="Timed out")
    verdict = Said("s", 337, "assistant", "The `studio` command hangs too. Let me try a "
                   "different approach - use the WordPress REST API directly.", "dead-end")
    assert check_episodes([look], [verdict]) == []
    missing = _run(5, "ls ~/.config/solana/id.json", True, key="ls",
                   sig="No such file or directory")
    assert check_episodes([missing], []) == []
    run = look._replace(key="studio wp", command='studio wp eval "echo 1"')
    assert [f.how for f in check_episodes([run], [verdict])] == ["abandoned-check"]
    script = missing._replace(key="./deploy.sh", command="./deploy.sh")
    assert [f.how for f in check_episodes([script], [])] == ["abandoned-check"]


def test_a_look_the_user_stopped_tried_no_approach() -> None:
    # soulpass__codex-session.jsonl #152: `lsof -nP -iTCP:3000 -sTCP:LISTEN` aborted by
    # the user after 31.2s; uicomponents__session-wordpress.json #185: `studio status
    # --path=…` aborted.  Each only looked: nothing was tried, nothing given up
    for cmd, key in (("lsof -nP -iTCP:3000 -sTCP:LISTEN", "lsof"),
                     ('studio status --path="C:\\Users\\x\\Studio\\21st-showcase" 2>&1',
                      "studio status")):
        steps = [_run(152, cmd, True, key=key, sig="aborted by user after 31.2s",
                      interrupted=True)]
        said = [Said("s", 153, "user", "this page http://localhost:3000 gives an error", None)]
        assert rejected_episodes(steps, said) == []
        assert not any(f.how == "interrupted" for f in episodes(steps, said))
    # a run that works on something, stopped, is still the user saying no to it
    steps = [_run(75, "rsync -av new/ host:app/", True, key="rsync 'new",
                  sig="aborted by user after 33.4s", interrupted=True)]
    (f,) = rejected_episodes(steps, [Said("s", 77, "user", "do that for kosh ai", None)])
    assert f.how == "interrupted"


def test_a_look_that_errs_again_and_again_gave_up_no_check() -> None:
    # a `grep` into files not there yet, twice, then the agent wrote them: it explored
    sig = "grep: src/config.ts: No such file or directory"
    steps = [_run(10, "grep -n DEPART src/config.ts", True, key="grep depart", sig=sig,
                  signatures=(sig,)),
             _run(12, "grep -n DEPART src/config.ts src/index.ts", True, key="grep depart",
                  sig=sig, signatures=(sig,))]
    assert check_episodes(steps, []) == []
    # the same two failures of a build are a check that kept failing
    build = [s._replace(key="npm run build", command="npm run build") for s in steps]
    (f,) = check_episodes(build, [])
    assert f.how == "failed-check"
