"""A way replaced by another way to the same goal (kb.graph.switched)."""

from __future__ import annotations

import re

import pytest

from kb.graph.episodes import Said, Step, episodes
from kb.graph.switched import (
    ESCALATIONS,
    MISSING,
    OBJECTS,
    RUNNERS,
    SANDBOX,
    SINKS,
    USAGE,
    USAGE_HEAD,
    dropped_option_episodes,
    escalated_episodes,
    escalation_ending,
    merged_into,
    merged_stderr_episodes,
    missing,
    missing_program,
    objects,
    options_dropped,
    printed_usage,
    runner,
    runs,
    sandbox_failure,
    switched_episodes,
)


@pytest.mark.parametrize("rule", OBJECTS, ids=lambda r: r.name)
def test_every_object_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    command, wanted = rule.example
    assert command and wanted, f"{rule.name}: a rule needs a real example"
    assert wanted in rule.find(command)
    assert wanted in objects(command)


def _run(o: int, cmd: str, failed: bool, key: str, **kw) -> Step:  # type: ignore[no-untyped-def]
    return Step("s", o, key, False, True, failed, kw.pop("sig", None), command=cmd, **kw)


ADDR = "0xa5e0829caced8ffdd4de3c43696c57f7d7a678ff"
V1 = f'curl -s "https://api.polygonscan.com/api?module=contract&address={ADDR}"'
RPC = (f"curl -s -X POST https://polygon-bor-rpc.publicnode.com -d "
       f"'[{{\"method\":\"eth_call\",\"params\":[{{\"to\":\"{ADDR}\"}}]}}]'")


def test_an_endpoint_failing_twice_then_another_on_the_same_object() -> None:
    # blockchain-dex-events #112-#114: the V1 explorer API fails twice on an address,
    # the same address is then asked from an RPC node
    steps = [_run(112, V1, True, "curl api.polygonscan.com/api",
                  sig="AttributeError: 'str' object has no attribute 'get'"),
             _run(113, V1, True, "curl api.polygonscan.com/api",
                  failure="You are using a deprecated V1 endpoint"),
             _run(114, RPC, False, "curl polygon-bor-rpc.publicnode.com")]
    (f,) = switched_episodes(steps)
    assert f.how == "switched" and f.ordinals() == {112, 113, 114}
    assert "AttributeError" in f.cause_text or "deprecated" in f.cause_text
    assert any(e.how == "switched" for e in episodes(steps, [], more=switched_episodes(steps)))


def test_one_failure_replaced_at_the_next_call_is_a_slip() -> None:
    steps = [_run(112, V1, True, "curl api.polygonscan.com/api", sig="boom"),
             _run(113, RPC, False, "curl polygon-bor-rpc.publicnode.com")]
    assert switched_episodes(steps) == []


def test_the_same_way_made_to_work_is_no_switch() -> None:
    steps = [_run(10, V1, True, "curl api.polygonscan.com/api", sig="boom"),
             _run(11, V1, True, "curl api.polygonscan.com/api", sig="boom"),
             _run(12, V1, False, "curl api.polygonscan.com/api"),
             _run(20, RPC, False, "curl polygon-bor-rpc.publicnode.com")]
    assert switched_episodes(steps) == []


def test_a_change_before_the_other_run_is_a_fix_not_a_switch() -> None:
    steps = [_run(10, V1, True, "curl api.polygonscan.com/api", sig="boom"),
             _run(11, V1, True, "curl api.polygonscan.com/api", sig="boom"),
             Step("s", 12, "edit solve.rb", True, False, False, None, target="solve.rb"),
             _run(13, RPC, False, "curl polygon-bor-rpc.publicnode.com")]
    assert switched_episodes(steps) == []


def test_runs_on_other_objects_are_no_switch() -> None:
    steps = [_run(10, V1, True, "curl api.polygonscan.com/api", sig="boom"),
             _run(11, V1, True, "curl api.polygonscan.com/api", sig="boom"),
             _run(20, "curl -s https://example.org/other", False, "curl example.org/other")]
    assert switched_episodes(steps) == []


RSYNC = ("rsync -a '/Users/a/New project/programs/cfo_oracle/' /tmp/check/ && "
         "cargo test --manifest-path /tmp/check/Cargo.toml")


def test_a_sandboxed_run_escalated_and_stopped_gave_up_the_sandbox() -> None:
    # Trezo-Ai #70-#75: cargo test in the sandbox cannot resolve crates.io; the agent
    # asks to run it outside the sandbox, and the user stops that run
    steps = [_run(70, RSYNC, True, "rsync 'new", offline=True,
                  sig="`cargo test` printed nothing"),
             _run(73, RSYNC, True, "rsync 'new", offline=True,
                  sig="Could not resolve hostname"),
             _run(75, RSYNC, True, "rsync 'new", sig="aborted by user after 33.4s",
                  interrupted=True, escalated=True)]
    (f,) = escalated_episodes(steps)
    assert f.how == "escalated" and f.ordinals() == {70, 73, 75}
    assert "no network" in f.cause_text and "resolve" in f.cause_text


def test_an_escalated_run_that_works_is_told_as_sandboxed() -> None:
    steps = [_run(73, RSYNC, True, "rsync 'new", offline=True,
                  sig="Could not resolve hostname"),
             _run(75, RSYNC, False, "rsync 'new", escalated=True)]
    (f,) = escalated_episodes(steps)
    assert f.how == "sandboxed" and f.ordinals() == {73, 75}
    assert f.cause_text.startswith("the sandbox has no network access")
    assert [f.how for f in episodes(steps, [], more=escalated_episodes(steps))] == ["sandboxed"]


def test_an_offline_compile_error_escalated_is_not_the_network() -> None:
    steps = [_run(5, "cargo build", True, "cargo build", offline=True,
                  sig="error[E0425]: cannot find value `x`"),
             _run(6, "cargo build", True, "cargo build", escalated=True, sig="error[E0425]")]
    assert escalated_episodes(steps) == []


@pytest.mark.parametrize("rule", RUNNERS, ids=lambda r: r.name)
def test_every_runner_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    command, check = rule.example
    assert runner(command)[0] == rule.name
    assert check in runs(command)


def test_the_same_check_through_another_runner_replaces_the_first() -> None:
    # will-it-rain #35-#51: `npm install` through the Bash tool printed nothing twice,
    # then PowerShell ran it
    ps = "powershell -Command \"Set-Location 'c:\\Users\\v\\app'; npm install 2>&1\""
    steps = [_run(35, 'cd "c:/Users/v/app" && npm install', True, "npm install",
                  sig="`npm install` printed nothing"),
             _run(49, 'cd "c:/Users/v/app" && npm install 2>&1', True, "npm install",
                  sig="`npm install` printed nothing"),
             _run(51, ps, False, "powershell set-location")]
    (f,) = switched_episodes(steps)
    assert f.ordinals() == {35, 49, 51} and "printed nothing" in f.cause_text


def test_another_check_in_the_same_shell_is_no_runner_switch() -> None:
    # a cache cleared, then the install again: a fix in the same shell, not another way
    steps = [_run(1, "npm install", True, "npm install", sig="ERESOLVE"),
             _run(2, "npm install", True, "npm install", sig="ERESOLVE"),
             _run(9, "rm -rf node_modules && npm install", False, "rm node_modules")]
    assert switched_episodes(steps) == []


@pytest.mark.parametrize("rule", SANDBOX, ids=lambda r: r.name)
def test_every_sandbox_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    assert sandbox_failure(rule.example) is rule


def test_a_denied_run_escalated_that_then_fails_otherwise() -> None:
    # soulpass #143-#145: next dev cannot listen in the sandbox; escalated, the port is
    # taken (had the escalated run worked, it would be told as `sandboxed`)
    steps = [_run(143, "npm run dev -- --port 3000", True, "npm run dev", offline=True,
                  sig="Error: listen EPERM: operation not permitted 0.0.0.0:3000"),
             _run(145, "npm run dev -- --port 3000", True, "npm run dev", escalated=True,
                  sig="Address already in use")]
    (f,) = escalated_episodes(steps)
    assert f.ordinals() == {143, 145} and f.cause_text.startswith("the sandbox denied it")
    worked = [*steps, _run(148, "npm run dev -- --port 3001", False, "npm run dev",
                           escalated=True)]
    assert [f.how for f in escalated_episodes(worked)] == ["sandboxed"]


def test_a_package_installed_another_way_after_failing_twice() -> None:
    # another installer, or another version (a downgrade), for the same package
    steps = [_run(1, "pnpm add @solana/spl-token@0.4", True, "pnpm add @solana/spl-token@0.4",
                  sig="ERR_PNPM_PEER_DEP_ISSUES"),
             _run(2, "pnpm add @solana/spl-token@0.4", True, "pnpm add @solana/spl-token@0.4",
                  sig="ERR_PNPM_PEER_DEP_ISSUES"),
             _run(3, "npm install @solana/spl-token@0.3.11", False,
                  "npm install @solana/spl-token@0.3.11")]
    (f,) = switched_episodes(steps)
    assert f.ordinals() == {1, 2, 3} and "PEER_DEP" in f.cause_text


def test_other_packages_are_other_objects() -> None:
    steps = [_run(1, "pip install tensorflow", True, "pip install tensorflow", sig="no wheel"),
             _run(2, "pip install tensorflow", True, "pip install tensorflow", sig="no wheel"),
             _run(3, "pip3 install numpy", False, "pip3 install numpy")]
    assert switched_episodes(steps) == []


def test_a_run_that_failed_once_then_escalated_is_one_dead_end() -> None:
    # Trezo-Ai #70-#75 as the reader now links it: the run that returned 'Process running'
    # carries its poll's DNS failures and its exit 101 (one failure, no poll of its own);
    # left after one failure and asked for outside the sandbox, it is the escalated dead
    # end, not also an abandoned check
    steps = [_run(70, RSYNC, True, "rsync 'new", offline=True,
                  sig="Could not resolve hostname"),
             _run(75, RSYNC, True, "rsync 'new", sig="aborted by user after 33.4s",
                  interrupted=True, escalated=True)]
    hows = [f.how for f in episodes(steps, [], more=escalated_episodes(steps)) if 70 in
            f.ordinals()]
    assert hows == ["escalated"]


@pytest.mark.parametrize("rule", USAGE, ids=lambda r: r.name)
def test_every_usage_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    command, output = rule.example
    assert re.search(USAGE_HEAD, output), "the store must load this head"
    assert printed_usage(command, output)
    # asking for the usage is no refusal
    assert printed_usage(command.replace("|", "--help |", 1) if "|" in command
                         else f"{command} --help", output) is None


def test_an_output_that_is_no_usage_is_no_refusal() -> None:
    assert printed_usage("opencode session list", "Session ID   Title\nses_1  GitHub") is None
    # another program's usage line: not the one the run started
    assert printed_usage("make build", "usage: cat [-belnstuv] [file ...]") is None


K1 = "cd /Users/u/k1.lib-bootstrap && opencode export ses_1be58628dffeUlqtrOC0XgUH2I"


def test_a_retry_that_only_drops_an_option_gave_it_up() -> None:
    # k1 #617-#618: `--md` printed export's usage (`| head` hid the exit code); the same
    # export without it worked: the markdown export was given up, not fixed
    steps = [_run(617, f"{K1} --md 2>&1 | head -100", True, "opencode export ses_1",
                  failure="it printed its usage: opencode export [sessionID]"),
             _run(618, f"{K1} 2>&1 | head -200", False, "opencode export ses_1")]
    asked = Said("s", 612, "user", "use the export session to a MD is enough to continue "
                 "en another machine ? or is better the use the CLI to export the session "
                 "to a JSON ?", None)
    (f,) = dropped_option_episodes(steps, [asked])
    assert f.ordinals() == {617, 618} and "--md" in f.cause_text and "--md" in f.name
    assert switched_episodes(steps) == []  # the same way, made to work: not that rule
    # an option the user never asked for, dropped at once: a flag fixed, a slip
    other = asked._replace(text="can you export this session on this folder?")
    assert dropped_option_episodes(steps, [other]) == []
    assert dropped_option_episodes(steps) == []


def test_a_retry_that_adds_or_changes_a_word_is_a_slip() -> None:
    # k1 #615-#616 (a labelled trap): `opencode session` printed its usage, then
    # `opencode session list` worked
    steps = [_run(615, "opencode session 2>&1", True, "opencode session",
                  failure="it printed its usage: opencode session"),
             _run(616, "opencode session list 2>&1", False, "opencode session list")]
    assert dropped_option_episodes(steps, [Said("s", 1, "user", "list the sessions", None)]) \
        == []
    assert options_dropped("ls src/a.py", "ls src/b.py") == ()
    assert options_dropped("grep -P 'x' f", "grep -E 'x' f") == ()
    assert options_dropped("opencode mcp list --format json", "opencode mcp list") == \
        ("--format",)


def test_a_dropped_option_after_a_change_or_much_later_is_no_give_up() -> None:
    fail = _run(10, "npm test --coverage", True, "npm test", sig="unknown option")
    edit = Step("s", 11, "edit package.json", True, False, False, None, target="package.json")
    asked = [Said("s", 9, "user", "run the tests with coverage", None)]
    assert dropped_option_episodes([fail, _run(12, "npm test", False, "npm test")], asked)
    assert dropped_option_episodes([fail, edit, _run(12, "npm test", False, "npm test")],
                                   asked) == []
    assert dropped_option_episodes([fail, _run(30, "npm test", False, "npm test")],
                                   asked) == []


def test_the_store_reads_a_usage_printed_by_a_clean_run() -> None:
    from kb.graph.store import load_rows
    from kb.store import KbStore

    store = KbStore(":memory:")
    usage = USAGE[1].example[1]
    for o, cmd, code, out in ((1, f"{K1} --md 2>&1 | head -100", 0, usage),
                              (2, "opencode export --help", 0, usage),
                              (3, "opencode session list", 0, "Session ID  Title\n")):
        store.conn.execute(
            "INSERT INTO calls (session_id, ordinal, seq, message_id, tool, category, status,"
            " exit_code, command, output) VALUES ('s', ?, 0, ?, 'bash', 'other', 'completed',"
            " ?, ?, ?)", [o, f"m{o}", code, cmd, out])
    calls, _, _ = load_rows(store, ["s"])
    assert [(c.ordinal, c.usage) for c in calls] == [
        (1, "opencode export [sessionID]"), (2, None), (3, None)]


@pytest.mark.parametrize("rule", MISSING, ids=lambda r: r.name)
def test_every_missing_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    text, what = rule.example
    m = rule.pattern.match(text)
    assert m is not None and m.group(1) == what, rule.name
    assert missing(Step("s", 1, "k", False, True, True, None, failure=text)) == what


XLSX = "Rubrica_MIA_PLN_act1.xlsx"
OPENPYXL = (f"cd \"/Users/u/PLN /Actividad 1\" && python3 -c \"\nimport openpyxl\nwb = "
            f"openpyxl.load_workbook('{XLSX}')\n\"")
PROBE = (f"cd \"/Users/u/PLN /Actividad 1\" && python3 -c \"\nimport pandas as pd\ndf = "
         f"pd.read_excel('{XLSX}', engine='openpyxl')\n\" 2>/dev/null || python3 -c \"\n"
         "for mod in ['openpyxl', 'xlrd', 'pandas']:\n    print(f'{mod}: NOT available')\n\"")
PANDAS = (f"cd \"/Users/u/PLN /Actividad 1\" && python3 -c \"\nimport pandas as pd\ndf = "
          f"pd.read_excel('{XLSX}', header=None)\nprint(df.to_string())\"")
INSTALL = "pip install openpyxl -q 2>&1 | tail -1"


def _install(o: int) -> Step:
    return Step("s", o, "pip install openpyxl", True, True, False, None,
                command=INSTALL, target="pip install openpyxl")


def test_a_library_that_was_missing_given_up_for_another() -> None:
    # conversacion-act1-pln #3-#6: openpyxl is missing (#3), a probe prints "openpyxl:
    # NOT available" with exit 0 (#4), openpyxl is installed (#5) and the rubric is read
    # with pandas instead (#6): the openpyxl way was given up, the install fixes nothing
    steps = [_run(3, OPENPYXL, True, "python3 import", sig="ModuleNotFoundError: openpyxl"),
             _run(4, PROBE, True, "python3 import", failure="openpyxl: NOT available"),
             _install(5),
             _run(6, PANDAS, False, "python3 import")]
    (f,) = switched_episodes(steps)
    assert f.ordinals() == {3, 4, 6} and "openpyxl" in f.cause_text


def test_the_missing_library_installed_and_used_is_a_fix() -> None:
    again = OPENPYXL + "\nprint(wb.sheetnames)"
    steps = [_run(3, OPENPYXL, True, "python3 import", sig="ModuleNotFoundError: openpyxl"),
             _run(4, OPENPYXL, True, "python3 import", sig="ModuleNotFoundError: openpyxl"),
             _install(5),
             _run(6, again, False, "python3 import")]
    assert switched_episodes(steps) == []


def test_an_edit_before_the_other_library_is_still_a_fix() -> None:
    steps = [_run(3, OPENPYXL, True, "python3 import", sig="ModuleNotFoundError: openpyxl"),
             _run(4, PROBE, True, "python3 import", failure="openpyxl: NOT available"),
             Step("s", 5, "edit read.py", True, False, False, None, target="read.py"),
             _run(6, PANDAS, False, "python3 import")]
    assert switched_episodes(steps) == []


def test_a_missing_library_replaced_at_once_is_a_slip() -> None:
    steps = [_run(3, OPENPYXL, True, "python3 import", sig="ModuleNotFoundError: openpyxl"),
             _run(4, PANDAS, False, "python3 import")]
    assert switched_episodes(steps) == []


@pytest.mark.parametrize("rule", SINKS, ids=lambda r: r.name)
def test_every_sink_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    command, into = rule.example
    m = rule.pattern.search(command)
    assert m is not None and m.group(1) == into, rule.name
    assert merged_into(command) == into


EXPORT = "cd /Users/u/k1.lib-bootstrap && opencode export ses_1be58628dffeUlqtrOC0XgUH2I"


def test_stderr_merged_into_a_data_file_after_it_showed_ahead_of_the_json() -> None:
    # k1 #618-#619: the export printed "Exporting session: …" ahead of its JSON with
    # 2>&1, then was written the same way into session-export.json
    key = "opencode export ses_1be58628dffeulqtroc0xguh2i"
    steps = [_run(618, EXPORT + " 2>&1 | head -200", False, key,
                  mixed="Exporting session: ses_1be58628dffeUlqtrOC0XgUH2I"),
             _run(619, EXPORT + " > session-export.json 2>&1", True, key)]
    (f,) = merged_stderr_episodes(steps)
    assert f.ordinals() == {618, 619} and "stderr" in f.cause_text
    assert "Exporting session" in f.cause_text


def test_stderr_kept_out_of_the_file_or_never_seen_is_no_dead_end() -> None:
    key = "opencode export ses_1be58628dffeulqtroc0xguh2i"
    shown = _run(618, EXPORT + " 2>&1 | head -200", False, key, mixed="Exporting session: x")
    for cmd in (EXPORT + " > session-export.json",            # stderr to the terminal
                EXPORT + " 2>&1 > session-export.json",       # stderr to the old stdout
                EXPORT + " 2>/dev/null > session-export.json"):
        assert merged_stderr_episodes([shown, _run(619, cmd, False, key)]) == [], cmd
    # the same file written by a run that never showed a line ahead of its JSON
    plain = _run(618, EXPORT + " | head -200", False, key)
    assert merged_stderr_episodes(
        [plain, _run(619, EXPORT + " > session-export.json 2>&1", False, key)]) == []


@pytest.mark.parametrize("row", ESCALATIONS, ids=lambda r: r.name)
def test_every_escalation_ending_reads_its_real_example(row) -> None:  # type: ignore[no-untyped-def]
    # the runs inside the sandbox failed there (the reader's sandbox record: offline);
    # the last one asked for outside it, and ended the row's way
    *inside, (o, cmd, sig, esc, stopped) = row.example
    steps = [_run(n, c, True, "check", sig=g, offline=True) for n, c, g, _, _ in inside]
    last = _run(o, cmd, bool(sig), "check", sig=sig or None, escalated=esc,
                interrupted=stopped)
    assert escalation_ending(last) is row
    (f,) = escalated_episodes([*steps, last])
    assert f.how == row.how and f.ordinals() == {x[0] for x in row.example}
    assert "sandbox" in f.cause_text
    if row.needs_sandbox:
        # without a sandbox reason for the failure inside, a run that did not work
        # outside either says nothing of the sandbox
        plain = [s._replace(signature="error[E0425]: cannot find value `x`") for s in steps]
        assert escalated_episodes([*plain, last]) == []


def test_an_escalation_of_another_check_reads_nothing() -> None:
    # soulpass #299 failed inside; #301 escalated another query: not the same run
    (o1, c1, g1, _, _), (o2, _, _, _, _) = ESCALATIONS[0].example
    steps = [_run(o1, c1, True, "node const", sig=g1, offline=True),
             _run(o2, "curl -s https://api.devnet.solana.com", False, "curl api.devnet",
                  escalated=True)]
    assert escalated_episodes(steps) == []


def test_a_program_the_shell_lacks_is_replaced_whatever_was_edited_between() -> None:
    # uicomponents-wordpress #32-#39: `webfetch` is no PowerShell command; theme files
    # were written (#35, #36) before Invoke-WebRequest fetched the same URL (#39)
    (line, prog) = next(r.example for r in MISSING if r.name == "a program PowerShell did "
                        "not find")
    steps = [_run(32, 'webfetch "http://localhost:8882/" 2>&1 | Select-Object -First 50',
                  True, "webfetch localhost:8882", failure=line),
             Step("s", 35, "write functions.php", True, False, False, None,
                  target="twentyfirst-showcase/functions.php"),
             _run(39, '$r = Invoke-WebRequest -Uri "http://localhost:8882/" -UseBasicParsing',
                  False, "$r invoke-webrequest")]
    assert missing_program(steps[0]) and missing(steps[0]) == prog
    (f,) = switched_episodes(steps)
    assert f.ordinals() == {32, 39} and "not recognized" in f.cause_text
    # a failure that is no missing program: the edit between was a fix, then a check
    other = [steps[0]._replace(failure="Invoke-WebRequest: Unable to connect"), *steps[1:]]
    assert switched_episodes(other) == []


@pytest.mark.parametrize("rule", [*OBJECTS, *RUNNERS, *MISSING, *USAGE, *SANDBOX, *ESCALATIONS,
                                  *SINKS], ids=lambda r: r.name)
def test_every_row_names_its_source(rule) -> None:  # type: ignore[no-untyped-def]
    # issue 22: a row's example is a real line; its source says which (a tune or shared
    # transcript and the ordinal, as `python -m bench rules` counts it)
    assert rule.source.startswith(("labelled/", "pool/")) and " #" in rule.source
