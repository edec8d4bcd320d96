"""Causes from evidence: a root the agent states later wins over the first error
(kb.graph.rootcause), and an episode's own explanation of its error labels the cause."""

from __future__ import annotations

import pytest

from kb.graph.extract import _cause, _diagnosis_sentences
from kb.graph.rootcause import (
    NARRATION,
    REVIEW_READINGS,
    ROOT_STATEMENTS,
    announces,
    later_root,
    plain,
    review_finding,
    root_tier,
    unnarrated,
)
from kb.graph.text import tokens


@pytest.mark.parametrize("rule", ROOT_STATEMENTS, ids=lambda r: r.name)
def test_every_root_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.example and rule.source, f"{rule.name}: a rule needs a real example"
    assert rule.regex.search(rule.example), rule.name
    found = root_tier(rule.example)
    assert found is not None and found[0] >= rule.tier


MINT = ROOT_STATEMENTS[0].example
GUESS = ("The most likely causes are either the program id is not deployed on the selected "
         "cluster, or the configured USDC mint is not a Token-2022 mint.")
SUBJECT = tokens("vault initialization failed Simulation failed initialize_vault mint")


def test_the_root_stated_after_the_agent_looked_again_wins() -> None:
    # soulpass (Codex, shared) #296-#302: the user says the vault still fails to
    # simulate; the agent guesses (#297), queries the accounts (#299, #301), then says
    # the mint is the problem (#302)
    said = {("s", 297): [GUESS], ("s", 302): [MINT]}
    later = later_root(said, "s", 296, SUBJECT, user_ordinals=[296, 320],
                       step_ordinals=[299, 301, 305])
    assert later is not None and later.ordinal == 302 and later.tier == 3
    assert "legacy SPL Token" in later.text


def test_a_guess_is_no_root() -> None:
    assert root_tier(GUESS) is None
    assert later_root({("s", 297): [GUESS]}, "s", 296, SUBJECT, [296], [299]) is None


def test_the_root_must_come_in_the_same_turn_after_a_look() -> None:
    said = {("s", 302): [MINT]}
    # the user spoke again before it: another turn, another question
    assert later_root(said, "s", 296, SUBJECT, user_ordinals=[296, 300],
                      step_ordinals=[299, 301]) is None
    # nothing was run since the end: the agent did not look again
    assert later_root(said, "s", 296, SUBJECT, user_ordinals=[296],
                      step_ordinals=[290]) is None
    # about something else than the episode
    assert later_root(said, "s", 296, tokens("docker compose port"), [296], [299]) is None


def test_an_episode_that_explains_its_error_labels_the_cause_with_it() -> None:
    # soulpass #299: a devnet query in the sandbox, then the same query escalated
    sig = ("Error: failed to get info about account CQW3TnN4X6iG2potguVv2hCKfk4f9tf8PMG7dTV6e24y: "
           "TypeError: fetch failed")
    text = f"the sandbox has no network access ({sig})"
    said = _cause(text, sig)
    assert said.label == text
    # the words that explain the error are a stated cause, named by them
    assert said.kind == "stated" and said.key.startswith("stated:") and "sandbox" in said.key
    # a cause text that is the error itself stays the error
    err = _cause(sig, sig)
    assert err.label == sig and err.kind == "error"


@pytest.mark.parametrize("row", NARRATION, ids=lambda r: r.name)
def test_every_narration_row_reads_its_real_example(row) -> None:  # type: ignore[no-untyped-def]
    assert row.example and row.source, f"{row.name}: a row needs a real example"
    assert row.regex.match(row.example), row.name


def test_a_cause_is_never_a_narration_heading() -> None:
    # k1 (opencode, shared) #419, #484, #579: findings that open with a heading
    assert unnarrated("I see the issue.") == ""
    assert unnarrated("I see the issue! Look at lines 123-126: ```css") == ""
    assert unnarrated(NARRATION[2].example) == ""  # a pointer at code, no statement
    assert unnarrated("I see the issue - if you don't call set_header(), the body is never "
                      "appended to the card!").startswith("if you don't call set_header()")
    # a text without a lead-in is kept as it is
    assert unnarrated("PHP Fatal error: Class \"alert\" not found") == \
        "PHP Fatal error: Class \"alert\" not found"


def test_a_hedged_root_is_a_guess_wherever_the_hedge_stands() -> None:
    # uicomponents-wordpress (opencode, shared) #142, after the user's report at #132
    assert root_tier("Actually, you know what - maybe the issue is about the Dia Text inline "
                     "block inside the paragraph containing the text cycle.") is None
    # will-it-rain (Claude Code, shared) #46: an impression of the symptom, not its root
    assert root_tier("Vitest seems to have no output at all.") is None


def test_a_cause_loses_its_markdown() -> None:
    # uicomponents (opencode, shared): a numbered, bold heading of a reply's list
    assert plain("1. **Section titles not centered**: Looking at the App.tsx, some section "
                 "titles lost their `text-center` wrapper because I did a replaceAll.") \
        .startswith("Section titles not centered: Looking at the App.tsx")
    # uicomponents-wordpress (opencode, shared): a list mark, then a check mark
    assert plain("- ❌ **Footer** is missing (WP doesn't have \"Powered by 21st.dev\")") == \
        "Footer is missing (WP doesn't have \"Powered by 21st.dev\")"
    # code spans and names with underscores stay
    assert plain("`__init__.py` has no `main`") == "`__init__.py` has no `main`"


def test_an_interjection_leads_no_cause_in() -> None:
    # uicomponents-wordpress and uicomponents (opencode, shared)
    assert unnarrated("Actually, this won't work because the admin-ajax.php requires "
                      "authentication.").startswith("this won't work because")
    assert unnarrated("Wait, maybe the issue is that the category buttons work") == \
        "maybe the issue is that the category buttons work"
    # a user's "Wait it's a different program." has no lead-in to take away
    assert unnarrated("Wait it's a different program.") == "Wait it's a different program."


def test_a_diagnosis_sentence_is_the_statement_not_its_opener() -> None:
    # uicomponents-wordpress (opencode, shared) #84: a short opener that says nothing of
    # a cause is not glued to the sentence that does
    said = ("OK, I can see the content is there. The issue with `$content.Length` being 356 "
            "was that `studio wp` outputs the content to stderr when `$()` captures it.")
    got = _diagnosis_sentences(said)
    assert got and got[0][0].startswith("The issue with `$content.Length`") and got[0][1] == 3
    # a hedge anywhere ranks a diagnosis below the same one stated
    hedged = _diagnosis_sentences("Wait, maybe the issue is that the category buttons work "
                                  "but the PortfolioPage buttons are hidden.")
    assert hedged and hedged[0][0].startswith("maybe the issue is") and hedged[0][1] == 2


# uicomponents (opencode, labelled) #192-#196, trimmed: the user says some section titles
# are no longer centred; the agent's first reading (#194, then it reads App.tsx in the same
# message) blames the replaceAll; after the reads it states the root as a numbered item
# under a bold heading (#195), then edits (#196)
CENTRED = tokens("section titles are good but keep all of them centred, now some are not "
                 "change to src/App.tsx")
READING = ("1. **Section titles not centered**: Looking at the App.tsx, some section titles "
           "lost their `text-center` wrapper because I did a replaceAll. Let me check:")
ROOT = ("Looking at the issues:\n\n1. **Section centering** — 4 h2s lost centering because "
        "`inline-block` + `text-center` on self doesn't work without parent `text-center`. "
        "I'll wrap them in `<div className=\"text-center\">`.")


def test_a_root_after_the_first_reading_counts_the_reads_of_its_message() -> None:
    said = {("s", 194): [READING], ("s", 195): [ROOT]}
    # the reads of #194 ran after its prose: looking again, once the diagnosis was said
    later = later_root(said, "s", 194, CENTRED, [192, 219], [194, 196], said=True)
    assert later is not None and later.ordinal == 195
    # read without its Markdown: no list mark, no bold heading
    assert later.text.startswith("Section centering") and "inline-block" in later.text
    # an episode's own end is a run: its message's steps do not count as looking again
    assert later_root(said, "s", 194, CENTRED, [192, 219], [194]) is None


def test_a_conditional_or_a_short_word_states_no_root() -> None:
    cond = "In that case, the navbar needs to be inside the `relative overflow-hidden` wrapper."
    assert root_tier(cond) is None
    # k1 (opencode, labelled) #598
    assert root_tier("But if we move `nav` to `/componentes`, the demo/index.php will break "
                     "because it imports from `k1lib\\html\\bootstrap\\nav`.") is None
    # "but" is the only word it shares with the complaint: it names nothing of it
    other = ("The issue is that the useEffect captures `height` in its closure, but the "
             "handleResize is defined inside the effect.")
    assert later_root({("s", 197): [other]}, "s", 192, CENTRED | {"but"}, [192], [193]) is None


def test_a_plan_to_look_states_no_root() -> None:
    # k1 (opencode, labelled) #489, before the agent found the double render
    assert root_tier("I should check whether `generate()` is corrupting the internal state "
                     "on the first call, or if the issue is that Bootstrap's JavaScript is "
                     "finding something that isn't actually a proper DOM element.") is None


def test_the_root_after_the_first_reading_of_a_complaint_labels_its_cause() -> None:
    # the same turn through the extractor: the user sends the titles back (#192), the
    # agent's first reading (#194) blames the replaceAll and reads App.tsx, its root
    # (#195) names the inline-block, then it edits (#196)
    from kb.graph import extract
    from kb.graph.extract import CallRow, ProseRow

    def call(o: int, tool: str, category: str, what: str) -> CallRow:
        return CallRow("s", o, 1, tool, category, what, None, None, "completed", None)

    calls = [call(174, "edit", "file-edit", "/site/src/App.tsx"),
             call(194, "read", "search", "/site/src/App.tsx"),
             call(196, "edit", "file-edit", "/site/src/App.tsx")]
    prose = [ProseRow("s", 166, 0, "prompt", "give the section titles a pill style", None),
             ProseRow("s", 192, 0, "prompt", "section titles are good but keep all of them "
                      "centred, now some are not and the buttons still dont show ui for "
                      "those categoires", None),
             ProseRow("s", 194, 0, "explains", READING, "reply"),
             ProseRow("s", 195, 0, "explains", ROOT, "reply")]
    ex = extract("s", ["s"], calls, prose)
    (dead,) = [a for a in ex.approaches if a.status == "dead_end"]
    assert dead.cause is not None and "inline-block" in dead.cause.label
    # the user's complaint stays with it, as evidence
    assert "keep all of them centred" in (dead.cause_text or "")


@pytest.mark.parametrize("row", REVIEW_READINGS, ids=lambda r: r.name)
def test_every_review_reading_names_its_real_finding(row) -> None:  # type: ignore[no-untyped-def]
    assert row.reading and row.redo and row.source, f"{row.name}: a row needs a real example"
    # the review at #10, the agent's reading of it at #12, the edit's message at #14
    said = {("s", 12): [row.reading], ("s", 14): [row.redo]}
    found = review_finding(said, "s", 10, [14])
    assert found is not None and row.finding in found, row.name
    # the reading must come after the review: an earlier message is no reading of it
    if row.name == "heading-names-finding":
        assert review_finding(said, "s", 12, [14]) is None


DISPOSITION = REVIEW_READINGS[0].reading


def test_a_heading_names_a_finding_only_when_one_item_shares_most() -> None:
    said = {("s", 12): [DISPOSITION]}
    # "Q3" alone names two items: which one the edit acts on is not said
    assert review_finding({**said, ("s", 14): ["Now Q3's fix:"]}, "s", 10, [14]) is None
    # one shared word is not enough
    assert review_finding({**said, ("s", 14): ["Now the rounding:"]}, "s", 10, [14]) is None
    # the other Q3 item, named by its dollar figure
    found = review_finding({**said, ("s", 14): ["Now Q3's `$16.81` softening:"]}, "s", 10, [14])
    assert found is not None and "date-sensitive" in found


def test_a_plan_or_a_guess_at_an_edit_names_no_finding() -> None:
    said = {("s", 12): ["Acting on the findings now."]}
    for opening in ("Let me update the README with the corrected numbers.",
                    "Now I'll collapse it to a single dated snapshot.",
                    "This is probably the wrong reserve, the README may be stale.",
                    "Done."):
        assert review_finding({**said, ("s", 14): [opening]}, "s", 10, [14]) is None, opening


def test_each_edit_after_a_review_names_its_own_finding() -> None:
    rounding, typo = REVIEW_READINGS
    said = {("s", 12): [rounding.reading], ("s", 14): [rounding.redo], ("s", 16): [typo.redo]}
    found = review_finding(said, "s", 10, [16, 14])
    assert found is not None
    first, second = found.split(" · ")
    assert rounding.finding in first and typo.finding in second


def test_an_episode_cause_from_a_reply_loses_its_markdown_and_its_interjection() -> None:
    from kb.graph.episodes import Found
    from kb.graph.extract import Extractor

    # uicomponents-wordpress (opencode, shared) #202: the reply that judged the run lists
    # what is missing; k1 (opencode, shared): a root the reply opens with "Ah,"
    for text, want in (
            ("- ❌ **Code Export section** with reusable tags is missing (WP has \"Ready to "
             "use\" but without the tag badges)", "Code Export section with reusable tags"),
            (NARRATION[-1].example, "the issue is that in PHP")):
        f = Found(session_id="s", name="`curl localhost:8882/wp-json` until it works",
                  first=200, ended=202, how="failed-check", cause_text=text,
                  evidence=[(200, "tested", None), (202, "ended", text)])
        a = Extractor("s")._from_episode(f)
        assert a.cause is not None and a.cause.label.startswith(want), a.cause.label
    # the error of a run stays as it printed it
    sig = "- error: no such file"
    f = Found(session_id="s", name="x", first=1, ended=2, how="failed-check",
              cause_text=sig, signature=sig, evidence=[(1, "tested", sig)])
    a = Extractor("s")._from_episode(f)
    assert a.cause is not None and a.cause.label == sig


def test_a_root_stated_over_an_error_is_a_stated_cause() -> None:
    from kb.graph.episodes import Found
    from kb.graph.extract import Extractor

    # k1 (opencode, shared) #196: the user pastes the page's fatal error, the agent states
    # its root (#198); the cause is the agent's words and named by them, not by the error
    sig = ("Fatal error: Uncaught TypeError: k1lib\\html\\tag::append_child(): Argument #1 "
           "($child_object) must be of type k1lib\\html\\tag, string given")
    root = ("The problem is that `$this->message` is a string, and `append_child()` expects "
            "a tag object.")
    f = Found(session_id="s", name="change to callout.php", first=1, ended=3, how="refuted",
              cause_text=sig, signature=sig, why=f"Callout PREVIEW {sig}", stated=root,
              evidence=[(1, "tested", "changed callout.php"), (3, "ended", sig)])
    a = Extractor("s")._from_episode(f)
    assert a.cause is not None and a.cause.kind == "stated", a.cause
    assert a.cause.label == root and a.cause.key.startswith("stated:")
    # without a stated root the error names the cause
    f.stated = None
    a = Extractor("s")._from_episode(f)
    assert a.cause is not None and a.cause.kind == "error" and a.cause.key.startswith("error:")


def test_the_sentence_a_finding_heading_announces_names_the_root() -> None:
    # k1 (opencode, shared) #580: "Found the issue!" heads the root; before, the
    # sentence after it ranked as no diagnosis at all (it says "overriding", no "because")
    reply = ("Found the issue! The demo has custom CSS that's overriding Bootstrap's nav "
             "styling:\n\n```css\n.nav-link.active {\n    background-color: #0d6efd "
             "!important;\n}\n```\n\nThis forces a blue background on ALL active nav links.")
    assert announces("Found the issue!") and announces("**I see the problem now.**")
    assert not announces("I see the issue! Look at lines 123-126:")
    assert not announces("The issue is that the id is set on the body div.")
    assert _diagnosis_sentences(reply) == (
        ("The demo has custom CSS that's overriding Bootstrap's nav styling:", 3),)
    # a plan after the heading is no root
    assert _diagnosis_sentences("Found it! Let me fix the nav styling in index.php.") == ()
