"""The structural rules (:mod:`logparse.structural`): every row's real example fires it, and
trimmed real lines of each agent, read by the real reader into a real knowledge base, give
the signals the agent's own fields say."""

from __future__ import annotations

from pathlib import Path

import pytest

from logparse.structural import (
    ADMISSION_CUES,
    CORRECTION_CUES,
    DISMISSAL_CUES,
    MIXED_HEAD,
    OUTPUT_ERROR_CHARS,
    OUTPUT_ERROR_HEAD,
    OUTPUT_ERRORS,
    PERSIST,
    RULES,
    SIGNALS,
    STILL_BROKEN_CUES,
    SUPERSEDED_CUES,
    TURN_MARKS,
    CallFacts,
    admission_phrase,
    call_signals,
    correction_phrase,
    dismissal_phrase,
    failure_line,
    mixed_line,
    output_error,
    still_broken_phrase,
    superseded_phrase,
    turn_mark,
    user_reason,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "structural"


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_every_rule_fires_on_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.signal in SIGNALS
    assert rule.example.agent in rule.agents
    assert rule.source
    assert rule.test(rule.example), rule.name
    assert rule.signal in call_signals(rule.example)


def test_every_signal_a_rule_sets_has_a_rule_and_an_example() -> None:
    assert {r.signal for r in RULES} <= set(SIGNALS)
    assert len({r.name for r in RULES}) == len(RULES)


def test_a_clean_run_has_no_signal() -> None:
    assert call_signals(CallFacts("claude-code", "bash", "completed", 0, output=None,
                                  command="npm install")) == ()
    # a silent command is no lost output
    assert call_signals(CallFacts("codex", "bash", "completed", 0, output="",
                                  command="mkdir -p src && cp a b")) == ()
    # a rule of one agent does not fire on another's call
    assert "rejected_by_user" not in call_signals(CallFacts(
        "codex", "bash", "aborted", error="aborted by user after 3s"))


def test_failure_line_is_the_concrete_error() -> None:
    out = ("error: failed to load manifest for workspace member `/Users/a/apps/process_tui`\n"
           "referenced by workspace at `/Users/a/Cargo.toml`\n\nCaused by:\n"
           "  No such file or directory (os error 2)\n")
    assert failure_line(out) == ("error: failed to load manifest for workspace member "
                                 "`/Users/a/apps/process_tui`")
    assert failure_line("warning: x is deprecated\nsomething went wrong\n") == \
        "something went wrong"
    assert failure_line("  \n") is None


def test_user_reason_is_what_the_user_said() -> None:
    rule = next(r for r in RULES if r.name == "claude-rejected")
    assert user_reason(rule.example.error).startswith("I also want output to be index.mjs")
    assert user_reason("aborted by user after 3s") is None


def _signals_of(tmp_path: Path, name: str) -> dict[int, tuple[str, ...]]:
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [FIXTURES / name])
    sids = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
    calls, _, _ = load_rows(store, sids)
    return {c.ordinal: c.signals for c in calls if c.signals}


def test_claude_code_lines(tmp_path: Path) -> None:
    got = _signals_of(tmp_path, "claude_code.jsonl")
    flat = [s for sig in got.values() for s in sig]
    assert flat.count("rejected_by_user") == 2  # ExitPlanMode and the vitest run
    assert "no_output" in flat  # `npm install` came back empty


def test_codex_lines(tmp_path: Path) -> None:
    got = _signals_of(tmp_path, "codex.jsonl")
    flat = [s for sig in got.values() for s in sig]
    assert "exit_code" in flat  # cargo test exited 101
    assert "sandbox_denied" in flat  # crates.io could not be resolved in the sandbox
    assert "interrupted" in flat and "escalation_requested" in flat  # the user aborted it


def test_codex_run_answered_later_carries_its_signals(tmp_path: Path) -> None:
    """The rsync + cargo test of the same lines returned 'Process running'; its poll read
    DNS failures, its exec_command_end exit 101: the run itself carries both signals, and
    the poll is marked as the run's, no check of its own."""
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [FIXTURES / "codex.jsonl"])
        sids = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        calls, _, _ = load_rows(store, sids)
    (run,) = [c for c in calls if c.tool == "bash" and (c.command or "").startswith("rsync")
              and "escalation_requested" not in c.signals]
    assert run.exit_code == 101 and {"exit_code", "sandbox_denied"} <= set(run.signals)
    assert "still_running" not in run.signals
    (poll,) = [c for c in calls if c.tool == "write_stdin"]
    assert poll.poll and poll.exit_code is None


@pytest.mark.parametrize("cue", CORRECTION_CUES, ids=[c.name for c in CORRECTION_CUES])
def test_every_correction_cue_fires_on_its_real_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert cue.pattern.search(cue.example), cue.name
    assert correction_phrase(cue.example) is not None


@pytest.mark.parametrize("cue", STILL_BROKEN_CUES, ids=[c.name for c in STILL_BROKEN_CUES])
def test_every_still_broken_cue_fires_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert cue.pattern.search(cue.example), cue.name
    assert still_broken_phrase(cue.example) is not None


@pytest.mark.parametrize("text", [
    "make the footer the same color as the header",     # a new request naming "same"
    "the output is the same file as the input, rename it",
    "perfect, nothing changed elsewhere",               # approval
    "gracias, funciona perfecto, el mismo error ya no aparece",
    "ありがとう、同じエラーはもう出ません",
    "add a second page with the same layout",
    "it's not the same as before, the hero is taller now",  # negated: it changed
    "is it the same as before?",                          # asked
])
def test_requests_and_approval_are_no_still_broken_report(text: str) -> None:
    assert still_broken_phrase(text) is None


def test_a_but_after_approval_keeps_the_report() -> None:
    assert still_broken_phrase("thanks, but nothing changed on the page") == "nothing changed"
    assert still_broken_phrase("gracias, pero sigue igual") == "sigue igual"


@pytest.mark.parametrize("cue", SUPERSEDED_CUES, ids=[c.name for c in SUPERSEDED_CUES])
def test_every_superseded_cue_fires_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert superseded_phrase(cue.example) is not None, cue.name
    assert superseded_phrase("raise DeprecationWarning('use the new client')") is None


@pytest.mark.parametrize("cue", DISMISSAL_CUES, ids=[c.name for c in DISMISSAL_CUES])
def test_every_dismissal_cue_fires_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert dismissal_phrase(cue.example) is not None, cue.name
    for line in cue.counter:  # a plan or a state described: no dismissal of this row
        assert cue.pattern.search(line) is None, (cue.name, line)


_CUE_ROWS = [c for t in (CORRECTION_CUES, STILL_BROKEN_CUES, ADMISSION_CUES, SUPERSEDED_CUES,
                         DISMISSAL_CUES) for c in t]


@pytest.mark.parametrize("cue", _CUE_ROWS, ids=[c.name for c in _CUE_ROWS])
def test_no_cue_fires_on_its_counter_examples(cue) -> None:  # type: ignore[no-untyped-def]
    """Each row's "should not match" lines (real lines that use its words for something
    else) stay unmatched, in Python and in the store's RE2 alike."""
    import duckdb

    con = duckdb.connect()
    flags = "(?i)" if cue.pattern.flags & 2 else ""
    in_sql = cue in ADMISSION_CUES or cue in DISMISSAL_CUES  # the rows the store's SQL reads
    for line in cue.counter:
        assert line.strip() and cue.pattern.search(line) is None, (cue.name, line)
        if not in_sql:
            continue  # read in Python only (a row may use lookarounds RE2 lacks)
        hit = con.execute("SELECT regexp_matches(?, ?)", [line, flags + cue.pattern.pattern])
        assert hit.fetchone() == (False,), (cue.name, line)


def test_dismissals_need_a_finding_not_a_plan() -> None:
    for text in ("I want to rule out CSS or layout issues.",
                 "We can't rule out the cache yet.",
                 "the btn-close is expected to be inside the alert div"):
        assert dismissal_phrase(text) is None, text
    for text in ("So we ruled it out: the same error shows with a cold cache.",
                 "That rules out the cache.",
                 "The timeout is expected since it's a long-running server.",
                 "It returned 404, which is expected."):
        assert dismissal_phrase(text) is not None, text


def test_dismissal_cues_agree_in_duckdb() -> None:
    import duckdb

    from kb.graph.store import _DISMISSAL_SQL

    con = duckdb.connect()
    for cue in DISMISSAL_CUES:
        hit = con.execute("SELECT regexp_matches(?, ?)", [cue.example, "(?i)" + _DISMISSAL_SQL])
        assert hit.fetchone() == (True,), cue.name


@pytest.mark.parametrize("mark", TURN_MARKS, ids=[m.name for m in TURN_MARKS])
def test_every_turn_mark_reads_its_real_record(mark) -> None:  # type: ignore[no-untyped-def]
    assert mark.source and mark.signal in SIGNALS + ("aborted_turn",)
    assert turn_mark(mark.example) is mark
    assert turn_mark("[Request interrupted by user for tool use]") is None
    assert turn_mark("please stop the server") is None


@pytest.mark.parametrize("cue", ADMISSION_CUES, ids=[c.name for c in ADMISSION_CUES])
def test_every_admission_cue_fires_on_its_real_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert cue.pattern.search(cue.example), cue.name
    assert admission_phrase(cue.example) is not None


def test_admission_cues_agree_in_duckdb() -> None:
    """The store selects replies by the same cues in SQL (RE2): every example matches
    there too, and a reply that only mentions being right deep inside does not."""
    import duckdb

    from kb.graph.store import _ADMISSION_SQL

    con = duckdb.connect()
    for cue in ADMISSION_CUES:
        hit = con.execute("SELECT regexp_matches(?, ?)", [cue.example, _ADMISSION_SQL])
        assert hit.fetchone() == (True,), cue.name


def test_plain_replies_admit_nothing() -> None:
    for text in ("Done. Single `index.html` with a pixel art font.",
                 "Right, let me check the config first.",
                 "The answer is correct: 10/10 tests pass.",
                 "x" * 400 + " You're right about that."):
        assert admission_phrase(text) is None, text


def test_persisting_problems_in_the_pools_languages() -> None:
    for text in ("it still crashes", "sigue igual", "ainda não", "まだ動かない", "还是不行"):
        assert PERSIST.search(text), text
    assert not PERSIST.search("add a settings page")


def test_praise_and_plain_requests_are_no_corrections() -> None:
    for text in ("q2 looks excellent, thanks", "add a LICENSE file with the MIT license",
                 "no more questions, ship it", "the error correction factor is 2",
                 "perfecto, claude como hago para quedarme con las columnas de interes?",
                 "たとえば、ログイン画面を追加してください", "请帮我添加一个登录页面"):
        assert correction_phrase(text) is None, text


def test_error_envelopes() -> None:
    from logparse.structural import error_body

    assert error_body('{"status":"0","message":"NOTOK","result":"You are using a deprecated '
                      'V1 endpoint, switch to Etherscan API V2"}').startswith("You are using")
    assert error_body('{"jsonrpc": "2.0", "error": {"code": -32000, "message": '
                      '"Unauthorized: You must authenticate"}}') == \
        "Unauthorized: You must authenticate"
    assert error_body('{"error": null, "result": "0x53311b7"}') is None
    assert error_body('{"jsonrpc":"2.0","result":"0x53311b7","id":1}') is None


@pytest.mark.parametrize("row", OUTPUT_ERRORS, ids=[r.name for r in OUTPUT_ERRORS])
def test_every_output_error_row_reads_its_real_clean_run(row) -> None:  # type: ignore[no-untyped-def]
    """Each row's real example is a clean run (exit 0) that this row, first of the table,
    reads as failed; the store's RE2 pre-selection lets its output through."""
    import duckdb

    assert row.source and row.example.exit_code in (None, 0)
    got = output_error(row.example.output)
    assert got is not None and got[0] is row, row.name
    assert "output_error" in call_signals(row.example)
    con = duckdb.connect()
    hit = con.execute("SELECT regexp_matches(left(?, ?), ?)",
                      [row.example.output, OUTPUT_ERROR_CHARS, OUTPUT_ERROR_HEAD])
    assert hit.fetchone() == (True,), row.name


def test_output_errors_name_what_is_missing_and_nothing_else() -> None:
    # what the line names is what kb.graph.switched reads as given up (the store keeps
    # the matched line as the run's failure)
    from kb.graph.episodes import Step
    from kb.graph.switched import missing

    def named(out: str) -> str | None:
        got = output_error(out)
        assert got is not None, out
        return missing(Step("s", 1, "python3", False, True, True, None, failure=got[1]))

    assert named("openpyxl: NOT available\n") == "openpyxl"
    assert named("zsh:1: command not found: rg\n") == "rg"
    assert named("not available\n") is None
    for out in ("pandas: available\n", "openpyxl is available\n",
                "The feature is not available on the free plan for this region\n",
                "Checking whether node is not installed or outdated...\n"):
        assert output_error(out) is None, out
        assert "output_error" not in call_signals(CallFacts(
            "claude-code", "bash", "completed", 0, output=out, command="python3 -c x"))
    # a run that failed anyway keeps its exit code as its signal
    assert call_signals(CallFacts("claude-code", "bash", "completed", 1,
                                  output="openpyxl: NOT available\n")) == ("exit_code",)


def test_a_log_line_ahead_of_json_with_stderr_merged() -> None:
    """k1 #618: what the export printed with ``2>&1``; the store's RE2 pre-selection
    agrees (the command and the head)."""
    import duckdb

    rule = next(r for r in RULES if r.signal == "stderr_mixed")
    f = rule.example
    assert mixed_line(f.command, f.output) == "Exporting session: ses_1be58628dffeUlqtrOC0XgUH2I"
    con = duckdb.connect()
    hit = con.execute("SELECT regexp_matches(?, '2>&1|&>|[*]>&1') AND "
                      "regexp_matches(left(?, 400), ?)", [f.command, f.output, MIXED_HEAD])
    assert hit.fetchone() == (True,)
    # without stderr merged, or JSON from the first line, or a log with no JSON: nothing
    assert mixed_line(f.command.replace(" 2>&1", ""), f.output) is None
    assert mixed_line(f.command, '{\n  "info": {}\n}') is None
    assert mixed_line(f.command, "Compiling foo v0.1.0\n   Finished dev\n") is None


def test_the_corrections_written_on_one_session_read_their_idea_anywhere() -> None:
    """The rows first written with blockchain-dex-events' words ("no more … tab", "fix:",
    "V4, not V3") and speakfree's ("a different program") say their idea in general terms
    and in the pool's other languages (the rows written for a correction's label and for
    "another program" in Spanish, Portuguese and Chinese, with no real line, were dropped:
    cues14)."""
    # k1.lib-bootstrap__session-export.json #338 (opencode, shared): another session's fix
    assert correction_phrase("i did a fix: was : $li = $ol->append_li('breadcrumb-item'); "
                             "i didi : $li = $ol->append_li()") == "a fix:"
    for text in ("the --legacy flag no longer exists in v3",
                 "there is no longer a \"Settings\" menu in the new dashboard",
                 "ese endpoint ya no existe en la API nueva",
                 "essa aba não existe mais no etherscan",
                 "这个选项已经不存在了",
                 "es Node 20, no 18"):
        assert correction_phrase(text) is not None, text
    for text in ("no more than 3 retries, please", "the page no longer loads slowly, thanks",
                 "Você pode ajustar a correção do plano depois"):
        assert correction_phrase(text) is None, text


def test_a_negated_or_asked_dismissal_dismisses_nothing() -> None:
    """"haven't ruled out" keeps the guess open (a negated negation); "not a red herring"
    says the opposite.  The said forms still dismiss, in Python and in the store's RE2."""
    import duckdb

    from kb.graph.store import _DISMISSAL_SQL

    con = duckdb.connect()
    kept = ("We haven't ruled out the cache yet.", "The lockfile has not been ruled out.",
            "That cannot be ruled out.", "The proxy is not a red herring.")
    said = ("We've ruled out the cache.", "The lockfile has been ruled out.",
            "That rules out the proxy.", "The warning is a red herring.")
    for text in kept:
        assert dismissal_phrase(text) is None, text
        assert con.execute("SELECT regexp_matches(?, ?)",
                           [text, "(?i)" + _DISMISSAL_SQL]).fetchone() == (False,), text
    for text in said:
        assert dismissal_phrase(text) is not None, text
        assert con.execute("SELECT regexp_matches(?, ?)",
                           [text, "(?i)" + _DISMISSAL_SQL]).fetchone() == (True,), text
