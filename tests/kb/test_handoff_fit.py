"""``handoff --max-tokens N`` holds for the text as printed, and the Markdown brief fits
80 columns: measured on every session of the shared set (../shared/realworld/labelled).

Before: ``--max-tokens 300`` came out at 392-543 tokens of Markdown and 520-700 of JSON
(the fit gave up after one item a section, and measured the Markdown for the JSON too),
and 651 prose lines ran past 80 columns (tables, headings, quotes, the prompt)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from kb import handoff as H

SHARED = Path(__file__).resolve().parents[3] / "shared" / "realworld" / "labelled"
FILES = ("Trezo-Ai__codex-session.jsonl", "Valdyum-Labs__codex-session.jsonl",
         "k1.lib-bootstrap__session-export.json", "pfm-categorization__opencode-session.json",
         "soulpass__codex-session.jsonl", "speakfree__session.jsonl",
         "stunning-memory__opencode.db", "uicomponents__session-export.json",
         "uicomponents__session-wordpress.json", "will-it-rain__claude.jsonl")
CAPS = (150, 300, 600, 1200)


@pytest.fixture(scope="module")
def briefs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The brief of every session of the shared set (its graphs derived)."""
    from kb.cli.graph import derive
    from kb.graph import store as gs
    from kb.ingest import ingest
    from kb.store import KbStore

    db = tmp_path_factory.mktemp("handoff_fit") / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [SHARED / f for f in FILES])
        derive(store, gs.unbuilt(store, gs.scopes(store)), force=False)
        sids = [r[0] for r in store.conn.execute(
            "SELECT session_id FROM sessions WHERE parent_id IS NULL").fetchall()]
        return {sid: H.brief(store, sid) for sid in sids}


def test_the_shared_set_is_read(briefs: dict[str, dict[str, Any]]) -> None:
    assert len(briefs) == len(FILES), sorted(briefs)


@pytest.mark.parametrize("form", ["markdown", "json"])
def test_max_tokens_holds_as_printed(briefs: dict[str, dict[str, Any]], form: str) -> None:
    """For every session and N: the printed text is at most N tokens
    (:func:`estimate_tokens`), or it is the skeleton (goal and status, nothing else) and
    ``render`` says by how much it is over (the CLI says so on stderr, exit 8).  The
    Markdown skeleton fits 300 tokens on every session; commands are whole or gone."""
    for sid, d in briefs.items():
        commands = {q["command"] for q in d["open"]["untested"] if q["command"]}
        steps = {s["command"] for s in d["reproduce"]}
        for n in CAPS:
            text, over = H.render(d, max_tokens=n, form=form)
            got = H.estimate_tokens(text)
            if over is None:
                assert got <= n, (sid, n, got)
            else:
                assert over == got > n, (sid, n, got)
                assert n < 300 or form == "json", (sid, n, got)
                skeleton = H.fit_tokens(d, n, form=form)
                assert not any((skeleton["tried"], skeleton["dead_ends"],
                                skeleton["open"]["untested"], skeleton["next"]["todos"],
                                skeleton["reproduce"], skeleton["measurements"]))
                if form == "markdown":
                    assert re.findall(r"^## .*", text, re.M) == ["## Goal", "## Status"]
            fitted = H.fit_tokens(d, n, form=form)
            for q in fitted["open"]["untested"]:  # a command is whole or gone
                assert not q["command"] or q["command"] in commands, (sid, n)
            for s in fitted["reproduce"]:
                assert s["command"] in steps, (sid, n)
            if form == "markdown" and fitted["reproduce"]:
                blocks = re.findall(r"^```sh\n(.*?)\n```$", text, re.M | re.S)
                assert blocks and all(b in steps for b in blocks), (sid, n)


def overflow(md: str, width: int = 80) -> list[str]:
    """The lines of ``md`` wider than ``width`` columns, but the brief's own fenced code
    (unquoted: its commands) and a line that is one whole code span (with its list
    marker or quote, no ``…`` in it): a command or a path is never cut, it gets a line
    of its own.  A quoted table row or code line, a long word, a span already cut: cut."""
    bad, fence = [], ""
    for line in md.split("\n"):
        quoted = re.match(r"^(?:[ \t]*>[ \t]?)+", line)
        body = line[quoted.end():] if quoted else line
        m = re.match(r"\s*(`{3,}|~{3,})", body)
        if fence:
            if m and m.group(1).startswith(fence):
                fence = ""
            if quoted and H.cells(line) > width:
                bad.append(line)
            continue
        if m:
            fence = m.group(1)
            continue
        if H.cells(line) <= width:
            continue
        rest = re.sub(r"^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?", "", body)
        if not re.fullmatch(r"[^\s`]*`[^`…]*`\S*", rest):
            bad.append(line)
    return bad


def test_no_prose_line_passes_80_columns(briefs: dict[str, dict[str, Any]]) -> None:
    """Every brief of the shared set, whole and fitted to each N: every line fits 80
    columns (a wide character takes two) but a whole command or path."""
    for sid, d in briefs.items():
        for n in (None, *CAPS):
            md = H.markdown(d, max_tokens=n)
            assert overflow(md) == [], (sid, n, overflow(md)[:3])


def test_wrapping_keeps_lists_quotes_and_commands() -> None:
    cmd = "`cd /srv/app && " + "npm run build -- --mode production " * 3 + "`"
    md = "\n".join([
        "- untested [12]: what does " + cmd + " report? — the user stopped the run before "
        "it could print anything at all",
        "  - caveat [14]: a later check found: " + "words " * 20,
        "> " + "quoted words " * 12,
        "```sh", "x" * 120, "```",
        "帮我更新一下我的matugen脚本，让它也能够自动生成亮色模式的colorscheme。" * 2,
    ])
    out = H.wrap_markdown(md).split("\n")
    assert overflow("\n".join(out)) == []
    assert f"  {cmd}" in out  # the command whole, on a line of its own, under its item
    assert out[0] == "- untested [12]: what does"
    assert all(ln.startswith("    ") for ln in out[out.index(next(
        ln for ln in out if ln.startswith("  - caveat"))) + 1:][:1])
    assert [ln for ln in out if ln.startswith(">")] and all(
        ln.startswith("> ") for ln in out if "quoted" in ln)
    assert "x" * 120 in out  # fenced code is never touched
    assert max(H.cells(ln) for ln in out if "matugen" in ln) <= 80
    assert " ".join(H.wrap_markdown("a " * 100).split()) == " ".join(("a " * 100).split())


def test_the_estimator_counts_what_is_printed() -> None:
    assert H.estimate_tokens("") == 0
    assert H.estimate_tokens("abcd" * 10) == 10  # ASCII: four characters a token
    assert H.estimate_tokens("帮我更新") == 4  # a wide character is a token
    assert H.estimate_tokens("ação") == 2  # two ASCII quarters + two accented halves


def test_prose_with_control_characters_wraps_at_80_columns_as_shown() -> None:
    """A transcript's control characters and bidi overrides are shown as escapes
    (``\\x1b``: four columns, ``\\u202e``: six) after the wrap: the wrap measured them as
    one column each, so a hostile reply's lines came out at 160-185 columns."""
    from kb.safe_text import visible
    from tests.hostile.corpus import HOSTILE

    line = "- State: **open** (waiting for the user: the agent asked [21] «" + " ".join(
        f"word{i} {HOSTILE}" if i % 4 == 0 else f"word{i}" for i in range(40)) + "»)"
    shown = visible(H.wrap_markdown(line)).split("\n")
    too_wide = [ln for ln in shown if H.cells(ln) > 80 and " " in ln.strip()]
    assert len(shown) > 1 and not too_wide, too_wide
    head = visible(H._fit_cells("# Hand-off: " + HOSTILE * 3))
    assert H.cells(head) <= 80, head


def test_wrapping_costs_linear_time_in_the_line() -> None:
    """The last words and the last decision are quoted whole: a reply of one long line of
    code spans run together (```x``x``x`…``) grew its one word by adding each span to it
    again (800,000 characters: 2.8 s, 11x the cost of 200,000)."""
    from tests.timing import best_cpu

    def cpu(n: int) -> float:
        line = "> " + "`x`" * (n // 3)
        best, out = best_cpu(lambda: H.wrap_markdown(line))
        assert out.replace("\n", "") == line
        return best

    small, large = cpu(50_000), cpu(200_000)
    assert large < 6 * max(small, 0.003), (small, large)


def test_every_line_fits_80_columns_but_a_whole_code_span() -> None:
    """Real lines of the shared set's and the tune pool's briefs that ran past 80
    columns: a code span the graph had already cut (``…``) was kept whole (83 and 88
    columns), a quoted table row and a quoted path were left long.  A span already cut
    is cut further; a quoted table row, a quoted code line and a long word are cut with
    ``…``; only a whole code span (a command, a path) stays whole."""
    from kb.width import cells

    lines = [
        # labelled uicomponents__session-wordpress.json (what was tried)
        "- **`studio wp eval 'echo get_post(5)->post_content;' --path=\"C:\\Users\\salma"
        "\\Studio\\…`**",
        # labelled uicomponents__session-export.json (the last decision)
        "`const AuroraBackground: React.FC<{ fixed?: boolean; height?: number }> = ({ fix…`;",
        # pool FundWise__claude-session.jsonl (the last words: a quoted path pair)
        "> ([0021](docs/adr/0021-gtm-rollout-order-split-fundy-fund-mode-beta.md)–[0024]"
        "(docs/adr/0024-visa-frontier-track-and-card-partnerships.md))",
        # labelled will-it-rain__claude.jsonl (a quoted table row)
        "> | `RAIN_THRESHOLD` | `30` (% probability above which rain is considered likely) |",
        # labelled pfm-categorization__opencode-session.json (a quoted tree)
        "> │  ├─ CategorizeRequest.cs           # DTO de entrada (JSON snake_case via "
        "[JsonPropertyName])",
        # labelled k1.lib-bootstrap__session-export.json (a path as a word)
        "  /Users/j0hnd003/Develop/GitHub/server/k1lib-project/k1.lib-bootstrap/demo/"
        "index.php:814",
    ]
    for line in lines:
        out = H.wrap_markdown(line).split("\n")
        assert all(cells(ln) <= 80 for ln in out), out
        assert out[0][:4] == line[:4], out
    spans = H.wrap_markdown(lines[0])
    assert spans.startswith("- **`studio wp eval") and spans.endswith("…`**"), spans
    # a whole command stays whole, quoted or not
    cmd = "`rg --files -g idea-context.md -g build-context.md -g README.md -g Readme.md " \
          "-g Cargo.toml`"
    for line in (f"  {cmd}", f"> {cmd}"):
        assert H.wrap_markdown(line) == line
    fenced = "> ```cs\n> " + "x" * 120 + "\n> ```"
    assert all(cells(ln) <= 80 for ln in H.wrap_markdown(fenced).split("\n"))


def test_a_quoted_tree_drawing_keeps_its_spaces_and_is_cut_not_wrapped() -> None:
    """The brief quotes the last decision: a tree drawing in it (labelled
    will-it-rain__claude.jsonl, message 13) wrapped as prose lost its runs of spaces
    and its shape; a line of it longer than 80 columns is cut with ``…`` instead, and
    quoted prose keeps the runs of spaces between its words."""
    md = "\n".join([
        "> ├── src/  # comment",
        "> │   ├── index.ts          # Lambda handler + local runner, then the weather "
        "client and the Discord sender",
        "> plain  prose that is long enough to wrap past the eighty columns of the "
        "terminal for  sure",
    ])
    out = H.wrap_markdown(md).split("\n")
    assert out[0] == "> ├── src/  # comment"
    assert out[1].startswith("> │   ├── index.ts          # Lambda") and out[1].endswith("…")
    assert H.cells(out[1]) <= 80
    assert out[2].startswith("> plain  prose") and out[3] == "> terminal for  sure"
