"""The one terminal-width counter (:mod:`kb.width`): its rule on hostile strings, its
agreement with rich (which draws the TUI and the tables), and every line of ``search``,
``handoff``, ``deadends`` and ``untested`` within 80 columns on transcripts whose every
text carries Thai vowel signs, a ZWJ family, CJK glued to Latin, fullwidth letters,
emoji presentation sequences and control characters."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from rich.cells import cell_len

from kb.safe_text import visible
from kb.width import cells, clusters, cut, fit, wrap

from .cli_kb import invoke

FAMILY = "👨\u200d👩\u200d👧\u200d👦"
THAI = "ที่นี่ไม่มีน้ำ"  # 14 code points, 7 columns: vowel signs and tone marks are Mn
WIDE = (f"{THAI} {FAMILY} 我的matugen脚本 ❤️ 1️⃣ ｆｕｌｌ e\u0301 🇯🇵 👍🏽 🏳️\u200d🌈 "
        "a\u200cb \x1b[31m \u202e")

CASES = [  # (text, columns)
    ("plain ascii", 11),
    (THAI, 7),
    (FAMILY, 2),  # a ZWJ sequence is one emoji
    ("我的matugen脚本", 15),
    ("❤️", 2),  # text-default heart + VS16: emoji presentation
    ("1️⃣", 2),  # keycap: digit, VS16, combining enclosing keycap (Me)
    ("🇯🇵", 2),  # a flag: two regional indicators
    ("👍🏽", 2),  # skin-tone modifier drawn on the emoji
    ("🏳️\u200d🌈", 2),
    ("ｆｕｌｌ", 8),  # fullwidth
    ("e\u0301", 1),  # combining acute
    ("x\u0488y", 2),  # enclosing mark (Me)
    ("a\u200cb\u200dc", 15),  # ZWNJ and ZWJ next to ASCII: shown as escapes (safe_text)
    ("\u0645\u200c\u0627", 2),  # between letters beyond ASCII: zero, the letters count
    # (rich 15 joins whatever follows a ZWJ into the character before it: 2 here)
    ("\ufeffbom", 9),  # a BOM mid-text is shown as its escape (kb.safe_text)
    ("\u1100\u1161\u11a8", 2),  # conjoining jamo: one syllable
    ("\x1b[31m", 8),  # ESC shown as \x1b: four columns
    ("\u202eevil", 10),  # RLO shown as \u202e: six
    ("a\x9bb", 6),  # C1 CSI shown as \x9b
]


@pytest.mark.parametrize(("text", "want"), CASES, ids=[repr(t)[:20] for t, _ in CASES])
def test_the_rule(text: str, want: int) -> None:
    assert cells(text) == want
    assert sum(w for _, _, w in clusters(text)) == want
    # what rich (which draws the TUI) measures for the text as shown
    if "\u200d" not in text or text[0] > "\x7f":
        assert cell_len(visible(text)) == want
    # the escape as shown measures what the character did
    assert cells(visible(text)) == want


def test_cut_never_splits_what_is_drawn_as_one() -> None:
    text = WIDE * 2
    spans = [(a, b) for a, b, _ in clusters(text)]
    assert "".join(text[a:b] for a, b in spans) == text
    ends = {b for _, b in spans} | {0}
    for cols in range(0, cells(text) + 2):
        head = cut(text, cols)
        assert cells(head) <= cols and len(head) in ends, (cols, head)
        if len(head) < len(text):  # nothing more would fit
            nxt = next(w for a, _, w in clusters(text) if a == len(head))
            assert cells(head) + nxt > cols
        assert cells(fit(text, cols)) <= max(cols, 1)
    assert fit("short", 80) == "short" and fit("x" * 81, 80) == "x" * 79 + "…"
    assert cut(FAMILY + "ab", 1) == "" and cut(FAMILY + "ab", 3) == FAMILY + "a"
    assert cut(THAI, 1) == "ที่"  # the consonant with its two marks


@pytest.mark.parametrize("width", [20, 40, 80])
def test_wrap_fits_and_keeps_every_word(width: int) -> None:
    text = " ".join([WIDE] * 6 + ["x" * 100, "tail"])
    lines = wrap(visible(text), width, "  ", "      ")
    assert all(cells(ln) <= width for ln in lines), [ln for ln in lines if cells(ln) > width]
    assert "".join("".join(lines).split()) == "".join(visible(text).split())
    # latin glued to CJK breaks between the wide characters, never inside the word
    if width >= 40:
        assert not any(ln.endswith(("matu", "matug", "matuge")) for ln in lines), lines


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile story (opencode) and two trimmed real untested cases (Codex, Claude
    Code) with :data:`WIDE` in every text."""
    import tests.hostile.corpus as corpus
    from fixtures.opencode_writer import write_jsonl

    d = tmp_path_factory.mktemp("width")
    untested = Path(__file__).resolve().parents[1] / "fixtures" / "untested"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(corpus, "HOSTILE", WIDE)
        paths = [write_jsonl(corpus.story(), d / "wide-opencode.jsonl")]
        for name in ("codex_unfinished.jsonl", "claude_interrupt.jsonl"):
            p = d / f"wide-{name}"
            p.write_bytes(b"".join(orjson.dumps(corpus._poisoned(orjson.loads(line))) + b"\n"
                                   for line in (untested / name).read_bytes().splitlines()))
            paths.append(p)
    r = invoke("ingest", "--db", str(d / "kb.duckdb"), *map(str, paths))
    assert r.exit_code == 0, r.stderr
    return d / "kb.duckdb"


def _whole_command(line: str) -> bool:
    """A code span on a line of its own: the hand-off never cuts a command in half."""
    s = line.strip().removeprefix("- ").removeprefix("**")
    return s.startswith("`") and s.endswith("`") and s.count("`") == 2


@pytest.mark.parametrize("args", [
    ("search", "flashinfer"), ("search", "我的"),
    ("handoff",), ("handoff", "--session", "ses_"), ("handoff", "--session", "019df"),
    ("deadends", "--all"), ("untested", "--all")], ids=" ".join)
def test_every_line_fits_80_columns(db: Path, args: tuple[str, ...]) -> None:
    r = invoke(*args, "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    out = r.stdout.splitlines()
    assert len(out) > 1
    assert any(THAI[:3] in ln or "我的" in ln or FAMILY in ln for ln in out), out
    wide = [ln for ln in out + r.stderr.splitlines()
            if (cells(ln) > 80 or cell_len(ln) > 80) and not _whole_command(ln)]
    assert not wide, wide
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout


def test_a_hint_on_a_terminal_wraps_at_its_width_in_columns(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """``logkb why build`` ended with a 112-column hint; its wrap counted characters, so a
    hint or an error in CJK came out at twice the width."""
    import io

    from rich.console import Console

    from kb.cli import tools

    buf = io.StringIO()
    monkeypatch.setattr(tools, "err", Console(file=buf, force_terminal=True, width=80,
                                              color_system=None))
    tools.labelled("hint:", "`logkb deadends` lists what ended; `logkb search build` looks "
                   "in the transcripts; --all asks every session", "bold")
    tools.labelled("logkb: error:", "找不到" * 30 + " matugen脚本", "bold red")
    lines = buf.getvalue().splitlines()
    assert len(lines) >= 4 and all(cells(ln) <= 80 for ln in lines), lines
    assert lines[0].startswith("hint: `logkb deadends`") and lines[1].startswith("  ")


def test_show_says_where_the_call_of_an_empty_message_is(tmp_path: Path) -> None:
    """A Codex rollout writes parallel calls as records of their own and the reader keeps
    each call with the message its result came in: ``show`` of the message that made it
    printed a bare heading (23 of 71 messages of the pool's Rivo session)."""
    import json

    lines = [
        {"timestamp": "2026-05-02T12:37:00.000Z", "type": "session_meta", "payload": {
            "id": "019de7fa-0000-7c71-8bc1-db36480b3ecc", "cwd": "/home/dev/p",
            "cli_version": "0.128.0", "originator": "codex_cli_rs"}},
        {"timestamp": "2026-05-02T12:37:01.000Z", "type": "response_item", "payload": {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "list the repo"}]}},
    ]
    calls = [("call_AAAAAAAAAAAAAAAAAAAAAAAA", "git log --oneline -20"),
             ("call_BBBBBBBBBBBBBBBBBBBBBBBB", "git remote -v")]
    for i, (cid, cmd) in enumerate(calls):
        lines.append({"timestamp": f"2026-05-02T12:37:0{2 + i}.000Z", "type": "response_item",
                      "payload": {"type": "function_call", "name": "shell_command",
                                  "arguments": json.dumps({"command": cmd}), "call_id": cid}})
    for i, (cid, _) in enumerate(calls):
        lines.append({"timestamp": f"2026-05-02T12:37:0{5 + i}.000Z", "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": cid,
                                  "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nok\n"}})
    src = tmp_path / "rollout-2026-05-02T12-37-00-019de7fa-0000-7c71-8bc1-db36480b3ecc.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    db = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--wait", "--db", str(db), str(src)).exit_code == 0
    shown = []
    for n in range(1, 8):
        r = invoke("show", str(n), "--db", str(db), "--json")
        if r.exit_code:
            break
        got = json.loads(r.stdout)
        if not got["events"]:
            text = invoke("show", str(n), "--db", str(db), env={"COLUMNS": "80"}).stdout
            shown.append((got["calls_at"], text))
    with_calls = [(c, t) for c, t in shown if c]
    assert with_calls, shown  # the reader still keeps the calls apart: the note says where
    for calls_at, text in with_calls:
        where = ", ".join(str(c["ordinal"]) for c in calls_at)
        assert f"shown with message {where}" in " ".join(text.split()), text
        assert calls_at[0]["command"] in {c for _, c in calls}
        assert all(cells(ln) <= 80 for ln in text.splitlines())


def test_a_usage_error_of_a_hidden_form_names_the_command_the_user_typed() -> None:
    """``logkb replay --dry-run`` answered "hint: logkb replay legacy -h shows its
    options": ``legacy`` is the hidden command behind ``replay --from N``."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "kb", "replay", "--dry-run"], cwd=root,
                       capture_output=True, text=True, env={"PYTHONPATH": str(root)},
                       timeout=120)
    assert r.returncode == 2
    assert "No such option '--dry-run'" in r.stderr
    assert "legacy" not in r.stderr and "replay -h shows its options" in r.stderr, r.stderr


def test_show_leaves_no_spaces_at_line_ends(tmp_path: Path) -> None:
    """A prompt wrapped at 80 columns kept the spaces at its line ends (the wrap leaves
    them, and the transcript's own lines had some): the pool's Rivo prompt, 8 lines."""
    import random

    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(4), directory="/home/dev/p", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="pitch", start_ms=1_790_000_000_000)
    s.user("refine these message for pitch , > In web2 platform they sucks because, \n"
           "creators required to setup their \npayment and stripe account which becomes "
           "expense to setup and non available to any countries also. If all setup are "
           "done then  also platfrom charges more than 10-30 % flat on your income.\n\n"
           "Using solana will solve all these issues.   ")
    s.step("Reading.", [bash("cat notes.md", "line one   \n\nline three\n")])
    db = tmp_path / "kb.duckdb"
    src = write_jsonl(s.tree(), tmp_path / "s.jsonl")
    assert invoke("ingest", "--wait", "--db", str(db), str(src)).exit_code == 0
    for n in ("1", "2"):
        r = invoke("show", n, "--db", str(db), env={"COLUMNS": "80"})
        assert r.exit_code == 0, r.stderr
        lines = r.stdout.splitlines()
        assert len(lines) > 3 and all(cells(ln) <= 80 for ln in lines)
        assert [ln for ln in lines if ln != ln.rstrip()] == [], lines


# a quoted tree drawing as agents write them (labelled will-it-rain__claude.jsonl,
# message 13, lengthened past a line)
TREE = ("> │   ├── index.ts          # Lambda handler + local runner, then the weather "
        "client and the Discord sender")


def test_wrap_keeps_runs_of_spaces_between_words_on_a_line() -> None:
    """A tree drawing's ``src/  # comment`` and aligned columns lost their runs of
    spaces when a line was wrapped (every gap became one space); where a line breaks
    the run goes, and other whitespace is still one space."""
    lines = wrap(TREE, 80)
    assert lines[0].startswith("> │   ├── index.ts          # Lambda"), lines
    assert all(cells(ln) <= 80 and ln == ln.rstrip() for ln in lines)
    assert " ".join(" ".join(lines).split()) == " ".join(TREE.split())
    assert wrap("a  b\tc\n d", 80) == ["a  b c d"]


def test_show_keeps_a_quoted_tree_drawing_as_written(tmp_path: Path) -> None:
    """``show`` prints a prompt's quoted tree drawing with its runs of spaces, the line
    longer than 80 columns too (its rest wraps under it)."""
    import random

    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(4), directory="/home/dev/p", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="tree", start_ms=1_790_000_000_000)
    s.user("make this layout:\n> ├── src/  # comment\n" + TREE)
    s.step("Making it.", [bash("ls", "src\n")])
    db = tmp_path / "kb.duckdb"
    src = write_jsonl(s.tree(), tmp_path / "s.jsonl")
    assert invoke("ingest", "--wait", "--db", str(db), str(src)).exit_code == 0
    r = invoke("show", "1", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    assert "  > ├── src/  # comment" in r.stdout.splitlines()
    assert any(ln.startswith("  > │   ├── index.ts          # Lambda")
               for ln in r.stdout.splitlines()), r.stdout
