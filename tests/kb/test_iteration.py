"""Iteration is no correction (kb.graph.iteration, and the episode rules that read it): every
table row's real example, and the real turns each rule rests on (trimmed), both ways."""

from __future__ import annotations

import random

import pytest

from kb.graph.episodes import (
    Said,
    Step,
    api_error_episodes,
    refuted_episodes,
    reviewed_episodes,
    reworked_episodes,
)
from kb.graph.iteration import (
    LOOK_ONLY,
    TEST_PATHS,
    TRANSIENT_API_ERRORS,
    extends,
    is_test_path,
    looks_only,
    taken_away,
    transient_api_error,
)
from tests.timing import best_cpu


def _change(o: int, target: str, wrote: str = "", took: str = "", tool: str = "edit") -> Step:
    return Step("s", o, f"{tool} {target.rsplit('/', 1)[-1]}", True, False, False, None,
                target=target,
                wrote=frozenset(x.strip() for x in wrote.splitlines() if x.strip()),
                took=frozenset(x.strip() for x in took.splitlines() if x.strip()))


def _run(o: int, key: str) -> Step:
    return Step("s", o, key, False, True, False, None, command=key)


# ----------------------------------------------------------------- the tables
@pytest.mark.parametrize("rule", TEST_PATHS, ids=[r.name for r in TEST_PATHS])
def test_every_test_path_rule_matches_its_example(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.source and rule.pattern.search(rule.example)
    assert is_test_path(rule.example)


def test_source_files_are_no_tests() -> None:
    for path in ("src/discord.ts", "src/weather.ts", "assets/widgets.css",
                 "bootstrap/test-page.php", "contest/main.go", "latest/index.html"):
        assert not is_test_path(path), path


@pytest.mark.parametrize("rule", LOOK_ONLY, ids=[r.name for r in LOOK_ONLY])
def test_every_look_only_rule_matches_its_example(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.source and rule.pattern.search(rule.example)
    assert looks_only(rule.example)


def test_runs_that_change_or_test_do_not_only_look() -> None:
    for key in ("git add composer.json", "git commit fix", "git push", "npm run build",
                "php index.php", "webfetch localhost:8000/#alert", "vitest run", "tsc"):
        assert not looks_only(key), key


@pytest.mark.parametrize("kind", TRANSIENT_API_ERRORS, ids=[k.name for k in TRANSIENT_API_ERRORS])
def test_every_transient_api_error_matches_its_example(kind) -> None:  # type: ignore[no-untyped-def]
    assert kind.source and transient_api_error(kind.example) == kind.kind


def test_an_error_about_the_model_is_no_pause() -> None:
    # pool Xeus__claude-session.jsonl (trimmed): the plan never serves that model
    assert transient_api_error("retry 1: 500: your current token plan not support model, "
                               "MiniMax-M2.7") is None


# ----------------------------------------------------------------- kept lines
def test_a_line_written_back_with_more_on_it_was_kept() -> None:
    # will-it-rain__claude.jsonl #137 (trimmed): the daily line goes into the list
    old = "const lines = [title, morningText, eveningText, ...warnings];"
    new = "const lines = [title, dailyLine, morningText, eveningText, ...warnings];"
    assert extends(old, new) and taken_away({old}, {new}) == set()
    # pool random__session.jsonl #7: Math.random() swapped for the CSPRNG: taken away
    gone = "return Math.floor(Math.random() * (max - min + 1)) + min;"
    assert not extends(gone, "return min + (buf[0] % (max - min + 1));")
    assert taken_away({gone}, {"crypto.getRandomValues(buf);"}) == {gone}
    # a shorter line keeps nothing more
    assert not extends(old, "const lines = [title];")
    # pool blockchain-dex-events__claude-session.jsonl #29: the keyless URL wrapped into an
    # environment override changes what the line does: taken away
    url = '"https://polygon-rpc.com/",'
    assert not extends(url, 'ENV.fetch("POLYGON_RPC_URL", "https://polygon-rpc.com/"),')


# will-it-rain__claude.jsonl #105-#137 (trimmed): warnings added to the verdict message;
# the user asks for the daily average; the list line is written again with the daily line
def test_a_new_requirement_that_extends_the_lines_is_no_rework() -> None:
    said = [Said("s", 95, "user", "I need to get the snow and ice", None),
            Said("s", 114, "user", "For the small message here would be a better template", None),
            Said("s", 126, "user", "Now i want to show temperature average of the day", None)]
    first = _change(105, "src/discord.ts",
                    wrote="const lines = [title, morningText, eveningText, ...warnings];")
    grown = _change(137, "src/discord.ts",
                    took="const lines = [title, morningText, eveningText, ...warnings];",
                    wrote="const lines = [title, dailyLine, morningText, eveningText, "
                          "...warnings];")
    assert reworked_episodes([first, grown], said) == []
    # the same lines struck out (#153-#162: the user drops the icons): a rework
    struck = _change(137, "src/discord.ts",
                     took="const lines = [title, morningText, eveningText, ...warnings];",
                     wrote="const lines = [title, dailyLine];")
    (f,) = reworked_episodes([first, struck], said)
    assert f.ordinals() == {105, 126, 137}


# will-it-rain__claude.jsonl #107-#123 (trimmed): a new message template; only the tests'
# expectations of the old text are rewritten
def test_tests_rewritten_to_follow_the_code_send_nothing_back() -> None:
    said = [Said("s", 95, "user", "I need to get the snow and ice", None),
            Said("s", 114, "user", "For the small message here would be a better template", None)]
    wrote = 'expect(result.content).toContain("Pas de pluie");\nexpect(x).toBe(1);'
    test = _change(107, "tests/discord.test.ts", wrote=wrote, tool="write")
    after = _change(123, "tests/discord.test.ts",
                    took='expect(result.content).toContain("Pas de pluie");',
                    wrote='expect(result.content).toContain("Matin : ✅ 8% 15°C");')
    assert reworked_episodes([test, after], said) == []
    # the code under test sent back with them: a rework
    src = _change(102, "src/weather.ts", wrote="return { departureHours, avgMaxPop };")
    redo = _change(117, "src/weather.ts", took="return { departureHours, avgMaxPop };",
                   wrote="return summary;")
    (f,) = reworked_episodes([src, test, redo, after], said)
    assert 117 in f.ordinals()


# uicomponents__session-wordpress.json #299-#326 (trimmed): widgets.css rewritten whole
# with the light-mode colours dropped, nearly every line kept
def test_a_whole_file_rewritten_with_nearly_all_kept_is_revised() -> None:
    body = [f"--c{i}: #{i:06x};" for i in range(40)]
    said = [Said("s", 290, "user", "build the elementor widgets", None),
            Said("s", 323, "user", "the css style and colors and layouts are not accurate, "
                 "update them and use only dark mode forget light mode", None)]
    first = _change(299, "assets/widgets.css", wrote="\n".join(body + ["--ic-bg: #ffffff;"]),
                    tool="write")
    again = _change(326, "assets/widgets.css", wrote="\n".join(body), tool="write")
    assert reworked_episodes([first, again], said) == []
    # pool stunning-memory sync-sessions.sh (#27-#35): 2 of 9 lines, the sync's direction
    # reversed: replaced
    script = ['SRC="$HOME/.local/share/opencode/sessions.db"', 'DST="/workspace/sessions.db"',
              "set -e", 'mkdir -p "$(dirname "$DST")"', 'cp "$SRC" "$DST"', "exit 0",
              'echo "done"', "#!/bin/bash", "# sync"]
    said2 = [Said("s", 20, "user", "make it sync", None),
             Said("s", 30, "user", "i want you to commit the session to github", None)]
    one = _change(27, "workspace/sync-sessions.sh", wrote="\n".join(script), tool="write")
    two = _change(35, "workspace/sync-sessions.sh", wrote="\n".join(
        ['SRC="/workspace/sessions.db"', 'DST="$HOME/.local/share/opencode/x.db"']
        + script[2:]), tool="write")
    (f,) = reworked_episodes([one, two], said2)
    assert f.ordinals() >= {27, 35}


# pool blockchain-dex-events__claude-session.jsonl: a review sub-agent's findings; a line
# extended with a link is no line the review sent back
def test_a_review_that_only_extends_lines_sends_nothing_back() -> None:
    said = [Said("s", 10, "user", "write q1", None),
            Said("s", 50, "assistant", "Code review of all 5 question solutions", "reviewed")]
    line = "2. **Fundy companion agent** — a personalized finance Telegram agent"
    steps = [_change(20, "q1/README.md", wrote=line),
             _change(55, "q1/README.md", took=line,
                     wrote=line.replace("agent —", "agent ([ADR-022](./0022.md)) —"))]
    assert reviewed_episodes(steps, said) == []
    steps[1] = _change(55, "q1/README.md", took=line, wrote="(see ADR-022)")
    (f,) = reviewed_episodes(steps, said)
    assert f.ordinals() == {20, 55}


# ----------------------------------------------------------------- answers and looks
# uicomponents__session-wordpress.json #184-#186 (trimmed): the user says the sites do not
# open; the turn's check is stopped; the user says to continue
def test_a_continue_after_a_stopped_turn_contradicts_no_answer() -> None:
    said = [Said("s", 184, "user", "cant open both sites", None),
            Said("s", 185, "assistant", "MessageAbortedError: Aborted", "aborted"),
            Said("s", 186, "user", "continue the site doesnt work", "doesnt work")]
    assert refuted_episodes([], said) == []
    # the same words after an answer that was given: the answer is contradicted
    said[1] = Said("s", 185, "assistant", "Both sites should open now.", None)
    (f,) = refuted_episodes([], said)
    assert f.name.startswith("the answer to «cant open both sites")


# uicomponents__session-wordpress.json #130-#132 (trimmed): a plan answered; the user says
# to go ahead and lists fixes to older work
def test_a_complaint_deep_in_a_list_of_new_tasks_contradicts_no_answer() -> None:
    said = [Said("s", 130, "user", "create new mcp file in sub folders", None),
            Said("s", 132, "user", "create the file where needed and the perform these fixes "
                 "in the website you created:\n1. dia text should keep the color to white\n"
                 "2.typewriter animation does not work just shows the text", "not work")]
    assert refuted_episodes([], said) == []
    # pool conversacion-act1-pln__session.jsonl #96-#97: "no anduvo" first: contradicted
    said2 = [Said("s", 95, "user", "Claude con un teclado en español de latam como comento "
                  "varias lineas", None),
             Said("s", 97, "user", "no anduvo, estoy en PyCharm con keybinds de VSCODE",
                  "no anduvo")]
    (f,) = refuted_episodes([], said2)
    assert f.ordinals() == {96, 97}


# k1.lib-bootstrap__session-export.json #437-#441 (trimmed): "update index too"; the turn
# only ran `git status` and `git log`; the user reports another component
def test_a_turn_that_only_looked_is_refuted_only_by_words_about_it() -> None:
    said = [Said("s", 437, "user", "update index too", None),
            Said("s", 441, "user", 'on "List Group" the selected item is not visible, the '
                 "same color as link.", "not visible")]
    steps = [_run(438, "git status"), _run(439, "git log")]
    assert refuted_episodes(steps, said) == []
    # a run that did something (`git add`, `php index.php`) is work the report is about
    (f,) = refuted_episodes([_run(438, "git status"), _run(439, "php index.php")], said)
    assert f.ordinals() >= {441}


# k1.lib-bootstrap__session-export.json #449-#460 (trimmed): a report about the modal after
# a turn that removed the Menu demo shares only "not" and "maybe" with the request
def test_words_that_name_nothing_do_not_tie_a_report_to_a_request() -> None:
    said = [Said("s", 449, "user", "please remove MENU from index demo, it seems is not a "
                 "Bootstrap thing and maybe I place it on the Mazer Project", None),
            Said("s", 460, "user", "model is not working, maybe could be better take the info "
                 "from the HTML documentation", "not working")]
    steps = [_change(452, "demo/index.php", took="<section id=\"menu\">"),
             _change(454, "demo/index.php", took="<a href=\"#menu\">Menu</a>"),
             _change(456, "demo/index.php", took="use k1lib\\html\\bootstrap\\menu;")]
    assert refuted_episodes(steps, said) == []
    said[1] = Said("s", 460, "user", "the index demo is not working now", "not working")
    (f,) = refuted_episodes(steps, said)
    assert 460 in f.ordinals()


# k1.lib-bootstrap__session-export.json #167-#187 (trimmed): the turn put prepend_child
# back into alert.php; the user says it does not exist, in words the request never used
def test_a_report_naming_code_the_turn_wrote_is_about_that_turn() -> None:
    said = [Said("s", 167, "user", "please compare http://localhost:8000 output with the "
                 "correct bootstrap HTML andmake corrections, because no all sees like "
                 "itshouldbe", "corrections"),
            Said("s", 187, "user", "ok, I did the method ->append_child() for the normal "
                 "ussage. prepend_child DO not exist, please do no t use it", "DO not exist")]
    steps = [_change(169, "bootstrap/alert.php", wrote="$this->prepend_child($heading);"),
             _change(182, "bootstrap/progress.php", wrote="$this->set_class('progress-bar');")]
    (f,) = refuted_episodes(steps, said)
    assert f.ordinals() >= {169, 187}
    # the same report after a turn that wrote other code is news, not a refutation
    other = [_change(169, "bootstrap/alert.php", wrote="$this->set_heading($heading);")]
    assert refuted_episodes(other, said) == []


# ----------------------------------------------------------------- provider pauses
# pool conversacion-act1-pln__session.jsonl #169-#170: the limit answered the request
def test_a_quota_before_any_work_cuts_no_line_of_work() -> None:
    said = [Said("s", 169, "user", "CLAUDE vamos por la pregunta 11", None),
            Said("s", 170, "assistant", "You've hit your limit · resets 7pm", "api-error")]
    assert api_error_episodes([], said) == []
    # will-it-rain__claude.jsonl #161-#164: the limit cut an edit not yet checked
    steps = [_change(162, "src/discord.ts", wrote="x")]
    said2 = [Said("s", 161, "user", "drop the icons", None),
             Said("s", 164, "assistant", "You've hit your limit · resets 1am", "api-error")]
    (f,) = api_error_episodes(steps, said2)
    assert f.ordinals() == {161, 162, 164}
    # pool Xeus__claude-session.jsonl #1-#2: a model the plan never serves ends it at once
    said3 = [Said("s", 1, "user", "hi", None),
             Said("s", 2, "assistant", "retry 1: 500: your current token plan not support "
                  "model", "api-error")]
    (g,) = api_error_episodes([], said3)
    assert g.ordinals() == {1, 2}


# ----------------------------------------------------------------- one dead end, told once
# pool blockchain-dex-events__claude-session.jsonl #112-#115 (trimmed): the Polygonscan V1
# endpoint answers "deprecated"; the agent gives that call up and runs another: the check
# rule and the switch rule read the same runs with the same error
def test_the_same_error_on_the_same_runs_is_one_dead_end() -> None:
    from kb.graph.episodes import Found, episodes

    sig = "the server answered with an error: You are using a deprecated V1 endpoint"

    def switched() -> Found:
        return Found("s", "`curl -s https://api.polygonscan.com/api?module=contract`", 112,
                     114, "switched", sig, signature=sig,
                     evidence=[(112, "tested", None), (113, "tested", None),
                               (114, "ended", None)])

    a = switched()
    b = Found("s", "`curl api.polygonscan.com/api` until it works", 113, 115,
              "abandoned-check", sig, signature=sig, evidence=[(113, "tested", None),
                                                               (115, "ended", None)])
    (f,) = episodes([], [], more=[a, b])
    assert f.how == "switched" and f.ordinals() == {112, 113, 114, 115} and f.ended == 115
    # another error on a shared run is another dead end
    c = Found("s", "`curl api.polygonscan.com/api` until it works", 113, 115,
              "abandoned-check", "HTTP 500", signature="HTTP 500",
              evidence=[(113, "tested", None), (115, "ended", None)])
    assert len(episodes([], [], more=[switched(), c])) == 2


def test_taken_away_is_extends_pair_by_pair() -> None:
    """The indexed :func:`taken_away` keeps exactly the lines no written line
    :func:`extends` (the pair-by-pair definition), on random lines and extensions."""
    rng = random.Random(7)

    def line() -> str:
        return "".join(rng.choice("ab (),;=x_") for _ in range(rng.randint(0, 30)))

    for _ in range(2000):
        lines = [line() for _ in range(rng.randint(0, 8))]
        wrote = [line() for _ in range(rng.randint(0, 8))]
        for x in list(lines):
            if rng.random() < 0.5:
                i = rng.randint(0, len(x))
                wrote.append(x[:i] + line()[:rng.randint(0, 4)] + x[i:])
        want = {x for x in lines if not any(extends(x, w) for w in wrote if w)}
        assert taken_away(lines, wrote) == want, (lines, wrote)


def test_a_rewrite_of_many_indented_lines_costs_little() -> None:
    """A thousand lines that open alike (indentation), rewritten: one index per written
    line, and pairs whose characters cannot match skipped (a matcher built per pair cost
    3.8 s of CPU here)."""
    old = [f"                const value_{i} = compute(alpha, beta, gamma_{i});"
           for i in range(1000)]
    new = [f"                const value_{i} = compute(alpha, beta, delta_{i}, more);"
           for i in range(1000)]
    took, got = best_cpu(lambda: taken_away(old, new))
    assert got == set()
    assert took < 1.5
