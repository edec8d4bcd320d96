"""The cues of a user's change of course (logparse.redirects): every row fires on its
example, and the store's SQL (RE2) agrees with Python on every one."""

from __future__ import annotations

import pytest

from logparse.redirects import (
    DROP_CUES,
    REDIRECT_CUES,
    REVIEW_CUES,
    UNDO_RULES,
    dropped_names,
    is_question,
    redirect_phrase,
    review_phrase,
    undone,
)


@pytest.mark.parametrize("cue", REDIRECT_CUES, ids=[c.name for c in REDIRECT_CUES])
def test_every_redirect_cue_fires_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert cue.pattern.search(cue.example), cue.name
    assert redirect_phrase(cue.example) is not None
    for line in cue.counter:  # a way kept, a setting described: no redirect of this row
        assert cue.pattern.search(line) is None, (cue.name, line)


@pytest.mark.parametrize("cue", DROP_CUES, ids=[c.name for c in DROP_CUES])
def test_every_drop_cue_names_what_its_example_drops(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert cue.pattern.search(cue.example), cue.name
    assert dropped_names(cue.example), cue.name
    for line in cue.counter:  # described, pasted: this row drops nothing there
        assert cue.pattern.search(line) is None, (cue.name, line)


def test_redirect_and_drop_cues_agree_in_duckdb() -> None:
    import duckdb

    from kb.graph.store import _DROP_SQL, _REDIRECT_SQL

    con = duckdb.connect()
    for cue in REDIRECT_CUES:
        hit = con.execute("SELECT regexp_matches(?, ?)", [cue.example, _REDIRECT_SQL])
        assert hit.fetchone() == (True,), cue.name
    for cue in DROP_CUES:
        hit = con.execute("SELECT regexp_matches(?, ?)", [cue.example, _DROP_SQL])
        assert hit.fetchone() == (True,), cue.name


@pytest.mark.parametrize("cue", REDIRECT_CUES + DROP_CUES + REVIEW_CUES,
                         ids=[c.name for c in REDIRECT_CUES + DROP_CUES + REVIEW_CUES])
def test_counter_examples_stay_unmatched_in_duckdb(cue) -> None:  # type: ignore[no-untyped-def]
    """The store selects by the same patterns in RE2: a row's "should not match" lines
    stay unmatched there too."""
    import duckdb

    con = duckdb.connect()
    for line in cue.counter:
        hit = con.execute("SELECT regexp_matches(?, ?)", [line, "(?i)" + cue.pattern.pattern])
        assert hit.fetchone() == (False,), (cue.name, line)


def test_matugen_keeps_its_ways_and_switches_only_settings() -> None:
    """shared matugen-theme-sync (assistant): a way kept ("不是换成 KWin 脚本"), a theme
    set ("切换到 breeze-light"): no redirect (the Chinese row, written with no real line,
    was dropped: cues14)."""
    assert redirect_phrase("因此，最佳方案不是换成 KWin 脚本，而是重构现有的 systemd 用户服务") \
        is None
    assert redirect_phrase("- Plasma 桌面主题：切换到 `breeze-light`") is None
    assert dropped_names("错误被 `|| true` 忽略 apply-colors.sh 之后") == []


def test_plain_replies_take_no_redirect_in() -> None:
    for text in (
            # (real lines of the shared set that turn away from nothing)
            "I’ll use the `apply-grant` skill for the grant workflow, then verify the current "
            "SolAUDD grant details so the application matches the program instead of relying "
            "on memory.",
            "Entonces eso confirma que los `SHY` que ves en la interfaz del notebook son la "
            "representación visual del carácter soft hyphen.",
            "The user wants to: 1. Switch to small.en model 2. Fix the accessibility flow",
            "x" * 400 + " I'm switching the target to the other project."):
        assert redirect_phrase(text) is None, text


def test_drops_name_only_identifiers() -> None:
    # "forget light" drops a word, not a name the agent used
    assert dropped_names("use only dark mode forget light mode") == []
    assert dropped_names("please add a settings page") == []
    # a pasted stack's "ignore-listed frame(s)" is no "ignore" (shared soulpass-codex)
    assert dropped_names("Call Stack\nShow 3 ignore-listed frame(s)\nhandleGenerate\n"
                         "components/employer/create-payroll-wizard.tsx (235:17)") == []
    assert dropped_names("vamos ignorar o legado Pfm.Contracts") == ["Pfm.Contracts"]
    # the English row went (no user of the data drops in English)
    assert dropped_names("let's ignore the legacy Pfm.Contracts project") == []


def test_questions_are_told_from_requests() -> None:
    assert is_question("do you think doing this is elementor would be possible")
    assert is_question("¿se puede hacer después?")
    assert not is_question("do that for kosh ai")
    assert not is_question("quiero hacerlo despues de la carga de datos")


@pytest.mark.parametrize("rule", UNDO_RULES, ids=[r.name for r in UNDO_RULES])
def test_every_undo_rule_reads_what_its_example_undoes(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.source and rule.undoes in ("file", "package", "all")
    got = [(r, t) for r, t in undone(rule.example) if r is rule]
    assert got, rule.name
    assert all(t for _, t in got) or rule.undoes == "all"


def test_commands_that_undo_nothing() -> None:
    for cmd in ("git restore --staged nbproject/ && git commit -m 'docs'",  # k1, unstaging
                "git checkout -b feature", "rm -rf node_modules/.cache",
                "npm install lucide-react three", "git reset HEAD~1 --soft"):
        assert undone(cmd) == [], cmd
    assert [t for _, t in undone("git checkout -- src/weather.ts")] == ["weather.ts"]
    assert [t for _, t in undone("pip install requests==2.31.0")] == ["requests"]


@pytest.mark.parametrize("cue", REVIEW_CUES, ids=[c.name for c in REVIEW_CUES])
def test_every_review_cue_fires_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source
    assert review_phrase(cue.example) is not None, cue.name
    assert review_phrase("Explore the repository structure") is None


def test_a_negated_drop_drops_nothing() -> None:
    """"don't ignore X", "não vamos ignorar X" keep X: no row drops it; the told forms
    drop it."""
    for text in ("don't ignore the Pfm.Contracts project, the WebApi needs it",
                 "we should not get rid of legacy_client yet",
                 "never ignore Pfm.Contracts", "não vamos ignorar o Pfm.Contracts",
                 "nunca ignore o Pfm.Contracts"):
        assert dropped_names(text) == [], text
    for text in ("então vamos ignorar o Pfm.Contracts",
                 "não use o legacy_client"):
        assert dropped_names(text), text
