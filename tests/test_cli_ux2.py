"""A demanding new user's release check of the CLI (the ux2 pass over the real pool and
every agent): what a terminal at 80 columns shows, NO_COLOR, exit codes and help text.

Each test runs the real CLI (``python -m kb`` as a process where the terminal matters,
click's runner otherwise) over sessions built here or trimmed from the shared pool."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from .cli_kb import invoke

ROOT = Path(__file__).resolve().parents[1]
TRIM = ROOT / "fixtures" / "realworld_trim"
SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""A Select Graphic Rendition sequence: colour, bold, dim, underline…"""


def on_tty(args: list[str], env: dict[str, str]) -> bytes:
    """``logkb ARGS`` as a real process whose stdout and stderr are an 80×24 terminal
    (stdin is not one: nothing is paged); everything it wrote to the terminal."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
            "HOME": env.get("HOME", "/nonexistent"), "LANG": "C.UTF-8", "TZ": "UTC",
            "TERM": "xterm-256color", "LOGKB_NO_PAGER": "1", **env}
    proc = subprocess.Popen([sys.executable, "-m", "kb", *args], stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, env=full, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    return b"".join(chunks)


CJK_TITLE = ("帮我更新一下我的matugen脚本，让它也能够自动生成亮色模式的colorscheme。"
             "我希望做到这一点：在kcolorscheme中生成暗色和亮色两种模式")
"""A title as the pool's opencode session has it: wide characters, two columns each."""


def cjk_session(dst: Path) -> Path:
    """An opencode session in Chinese (title, prose and output), as the pool holds one."""
    import random

    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(7), directory="/home/hjk", project_id="ef" * 20)
    s = SessionBuilder(ctx, title=CJK_TITLE, start_ms=1_790_000_000_000)
    s.user(CJK_TITLE)
    s.step("先看看配置。" * 3, [bash("cat ~/.config/matugen/config.toml",
                                   "## 主配置、脚本和运行链路 " * 8 + "\n")])
    for i in range(6):  # more messages than the trimmed pi session has
        s.step(f"第{i}步。", [bash(f"ls /tmp/{i}", f"{i}\n")])
    s.step("完成。")
    return write_jsonl(s.tree(), dst)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pi session and a Codex one (trimmed from the pool) and one in Chinese, ingested
    with their graphs."""
    d = tmp_path_factory.mktemp("ux2")
    kb = d / "kb.duckdb"
    r = invoke("ingest", "--db", str(kb), "--wait", str(TRIM / "pi.jsonl"),
               str(TRIM / "codex_code_mode.jsonl"), str(cjk_session(d / "cjk.jsonl")))
    assert r.exit_code == 0, r.stderr
    return kb


# ------------------------------------------------------------------ NO_COLOR
NO_COLOR_COMMANDS = [
    ["sessions"],
    ["show", "3", "--session", "019ea801"],
    ["events", "--session", "019ea801"],
    ["search", "exited"],
    ["usage"],
    ["query", "select 1 as x"],
    ["show", "999", "--session", "019ea801"],  # the error line
]


@pytest.mark.parametrize("args", NO_COLOR_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_no_color_means_no_styling_at_all(db: Path, args: list[str]) -> None:
    """NO_COLOR left bold table headers, bold+dim rules and dim text on a terminal (rich
    drops only colours); with it set nothing is styled, without it the same output is."""
    styled = on_tty([*args, "--db", str(db)], {})
    assert SGR.search(styled), styled[:400]  # the terminal is one: styles are used
    plain = on_tty([*args, "--db", str(db)], {"NO_COLOR": "1"})
    assert not SGR.search(plain), plain[:400]
    assert SGR.sub(b"", styled).replace(b"\r", b"") == plain.replace(b"\r", b"")


# ------------------------------------------------------------------ width
@pytest.mark.parametrize("query", ["matugen", "主配置"])
def test_search_fits_80_with_wide_characters(db: Path, query: str) -> None:
    """search cut its session line and snippets by characters, not columns: a Chinese
    title ran to 116 columns and a snippet to 123 at COLUMNS=80."""
    r = invoke("search", query, "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(cell_len(ln) <= 80 for ln in lines), [ln for ln in lines if cell_len(ln) > 80]
    head = next(ln for ln in lines if "matugen脚本" in ln)
    assert head.endswith("…") and cell_len(head) >= 78, head  # cut, and only as needed
    assert any(query in ln for ln in lines[1:]), lines


# ------------------------------------------------------------------ exit codes
@pytest.mark.parametrize("regex, why", [
    ("(", "missing )"),
    ("(?=exit)exited", "RE2"),  # Python reads look-ahead, DuckDB's RE2 does not
    (r"(e)\1", "RE2"),  # nor back-references
])
def test_a_regex_that_cannot_be_read_is_a_usage_error(db: Path, regex: str, why: str) -> None:
    """Like grep, an unreadable pattern is exit 2 with one error line: `(` was exit 1 (the
    code of "no match"), and an RE2-only refusal (look-ahead) was a DuckDB traceback."""
    r = invoke("search", "--regex", regex, "--db", str(db))
    assert r.exit_code == 2, r.stderr
    assert r.stdout == ""
    assert r.stderr.startswith(f"logkb: error: bad regular expression {regex!r}"), r.stderr
    assert why in r.stderr and "Traceback" not in r.stderr
    ok = invoke("search", "--regex", "exited with code [0-9]", "--db", str(db))
    assert ok.exit_code == 0, ok.stderr


# ------------------------------------------------------------------ hints
@pytest.mark.parametrize("args", [["show", "8"], ["why", "8"]])
def test_a_missing_ordinal_of_a_named_session_points_nowhere_else(db: Path,
                                                                  args: list[str]) -> None:
    """`show 8 --session <the pi session>` answered "(found in <another session>; use
    --session …)": message 8 of another session is another message.  The pointer stays
    for a session logkb chose (the latest ingested), on its own `hint:` line, and every
    line fits 80 columns (it ran to 125)."""
    named = invoke(*args, "--session", "019ea801", "--db", str(db), env={"COLUMNS": "80"})
    assert named.exit_code == 6, named.stderr
    assert "found in" not in named.stderr and "hint:" not in named.stderr, named.stderr
    assert named.stderr.startswith("logkb: error: ")
    if args[0] == "show":
        assert "session 019ea80 has no message 8 (its messages are 1–5)" in named.stderr
    chosen = invoke("use", "019ea801", "--db", str(db))
    assert chosen.exit_code == 0, chosen.stderr
    try:
        other = invoke(*args, "--db", str(db), env={"COLUMNS": "80"})
    finally:
        invoke("use", "--clear", "--db", str(db))
    assert other.exit_code == 6, other.stderr
    if args[0] == "show":  # the Chinese session has a message 8
        assert "\nhint: found in " in other.stderr, other.stderr
    assert all(cell_len(ln) <= 80 for ln in other.stderr.splitlines()), other.stderr


# ------------------------------------------------------------------ replay
def test_replay_plan_head_keeps_its_counts_at_80(db: Path) -> None:
    """The plan's first line put the whole session id first: at 80 columns its point, how
    many commands run and how many are skipped, was the part cut ("· 4…").  With none to
    run, the closing note no longer says "`logkb replay run` runs them"."""
    r = invoke("replay", "plan", "--from", "1", "--session", "019ea80", "--db", str(db),
               env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(cell_len(ln) <= 80 for ln in lines), lines[:3]
    assert lines[0].startswith("replay plan · session 019ea80 · "), lines[0]
    assert lines[1] == ("4 steps, one per recorded tool call: 0 would run, 4 skipped"
                        ), lines[:2]  # none exists here
    assert "no step would run" in r.stderr and "runs them" not in r.stderr, r.stderr
    wide = invoke("replay", "plan", "--from", "1", "--session", "019ea80", "--db", str(db),
                  env={"COLUMNS": "200"})
    assert wide.stdout.splitlines()[0].endswith(
        "· 4 steps, one per recorded tool call: 0 would run, 4 skipped")


# ------------------------------------------------------------------ secrets
def test_secrets_at_80_keeps_field_and_count_beside_a_private_key(tmp_path: Path) -> None:
    """A private key's preview ("-----BEGIN OPENSSH PRIVATE KEY-----…(329)") made the
    preview column 40 wide: at 80 columns the field, rule and count columns went, and
    rows differing only by field (the prose, the command, the call's input) printed as
    identical lines."""
    from tests.hostile.secret_corpus import write_codex

    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(write_codex(tmp_path / "c.jsonl"))).exit_code == 0
    r = invoke("secrets", "--db", db, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["session", "ordinal", "field", "kind", "preview", "rule",
                                "n"], lines[0]
    assert all(cell_len(ln) <= 80 for ln in lines), [ln for ln in lines if cell_len(ln) > 80]
    assert len(set(lines)) == len(lines), "rows that look the same"
    keys = [ln for ln in lines if "private-key" in ln]
    assert keys and all(ln.split()[-1].isdigit() for ln in keys), keys
    assert {ln.split()[2] for ln in keys} >= {"prose.text", "calls.command"}, keys


def test_query_csv_lines_end_in_newline_only(db: Path) -> None:
    """--csv wrote RFC 4180's \\r\\n: `logkb query --csv … | cut -d, -f2` left a \\r on
    every last field (and `while read` loops carried it).  A field holding a line break
    is still quoted whole."""
    r = invoke("query", "--csv", "--db", str(db), "SELECT 'a,b' AS x, 2 AS y, 'one\ntwo' AS z")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == 'x,y,z\n"a,b",2,"one\ntwo"\n', repr(r.stdout)


# ------------------------------------------------------------------ help text
def _help(*command: str) -> str:
    r = invoke(*command, "--help", env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    return " ".join(r.stdout.split())


def test_help_names_every_agent_logkb_reads() -> None:
    """`logkb --help` said "opencode in every form, Claude Code, Codex" and `watch --help`
    that it follows opencode's, Claude Code's and Codex's folders, while both read
    Gemini CLI and pi too (and ingest reads Antigravity exports)."""
    from logparse.registry import agent_dirs

    top, watch = _help(), _help("watch")
    for agent, _ in agent_dirs():
        assert agent in top, agent
    assert "Antigravity" in top
    for folder in ("~/.claude/projects", "~/.codex/sessions", "~/.gemini/tmp",
                   "~/.pi/agent/sessions"):
        assert folder in watch, folder


def test_resume_says_its_session_is_optional_and_how_to_name_one(db: Path) -> None:
    """`resume --help` showed `resume [OPTIONS] SESSION` though SESSION defaults to the
    current one, and the note naming the chosen session said "choose another with
    --session", an option resume does not have."""
    assert "resume [OPTIONS] [SESSION]" in _help("resume")
    r = invoke("resume", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    assert "choose another with `logkb resume SESSION` or `logkb use`" in r.stderr, r.stderr
    assert "--session" not in r.stderr


@pytest.mark.parametrize("command", ["export", "report"])
def test_export_and_report_summaries_fit_80(db: Path, tmp_path: Path, command: str) -> None:
    """The closing line of `export` (every table's row count) ran to 181 columns and
    report's ("… open PATH") past 80: diagnostics wrap at the width like the others."""
    deep = tmp_path / ("a-rather-long-directory-name-" * 2) / "out"
    args = (["export", "--parquet", str(deep), "--all"] if command == "export"
            else ["report", "-o", str(deep), "--all"])
    r = invoke(*args, "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    assert r.stderr.strip(), "the summary is said"
    assert all(cell_len(ln) <= 80 for ln in r.stderr.splitlines()), r.stderr
    flat = " ".join(r.stderr.split())
    assert ("exported 3 sessions to" if command == "export" else "wrote ") in flat, flat


def test_ingest_line_of_a_one_message_session_is_singular(tmp_path: Path) -> None:
    """A truncated export read as one message printed "1 messages, 1 events" (the closing
    summary said "1 message, 1 event")."""
    src = ROOT.parent / "shared" / "realworld" / "labelled" / \
        "pfm-categorization__opencode-session.json"
    cut = tmp_path / "cut.json"
    cut.write_bytes(src.read_bytes()[:5000])
    r = invoke("ingest", "--db", str(tmp_path / "kb.duckdb"), str(cut))
    assert r.exit_code == 4, r.stderr  # read, with a problem: the rest is cut off
    assert "1 message, 1 event, 1 new" in r.stdout, r.stdout
    assert re.search(r"cut\.json:\d+ \[byte \d+\]", r.stderr)  # the file, line and byte


# ------------------------------------------------------------------ handoff
@pytest.fixture(scope="module")
def pool_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two whole sessions of the shared pool: pi (civ6.ch) and Claude Code (CoinGecko)."""
    pool = ROOT.parent / "shared" / "realworld" / "pool"
    kb = tmp_path_factory.mktemp("ux2pool") / "kb.duckdb"
    r = invoke("ingest", "--db", str(kb), str(pool / "civ6.ch__session.jsonl"),
               str(pool / "blockchain-dex-events__claude-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    return kb


@pytest.mark.parametrize("session", ["019ea801", "da254fb"])
def test_handoff_max_tokens_is_kept_or_says_why_not(pool_db: Path, session: str) -> None:
    """`handoff --max-tokens 500` on the CoinGecko session came out at ~610 tokens (and
    at 200 the same, silently): the cuts stopped at two items a list.  They go on to
    whole sections, down to the goal and the status; what is still over the budget (the
    skeleton itself) is printed, said on stderr, and exits 8."""
    from kb.exitcodes import ExitCode
    from kb.handoff import estimate_tokens

    def brief(n: int) -> tuple[str, str, int]:
        r = invoke("handoff", "--session", session, "--max-tokens", str(n), "--db",
                   str(pool_db), env={"COLUMNS": "80"})
        return r.stdout, r.stderr, r.exit_code

    full = invoke("handoff", "--session", session, "--db", str(pool_db)).stdout
    text, err, code = brief(500)
    assert estimate_tokens(text) <= 500 < estimate_tokens(full), estimate_tokens(text)
    assert err == "" and code == 0
    assert "left out to fit --max-tokens" in text or "…" in text  # cut, or shortened
    assert "## What the session did\n\n##" not in text and \
        not text.rstrip().endswith("## What the session did")  # no empty section
    tiny, err, code = brief(60)
    assert len(tiny) < len(text) and "## Goal" in tiny and "## Status" in tiny
    assert code == ExitCode.OVER_BUDGET, (code, err)
    flat = " ".join(err.split())
    assert (f"handoff: the goal and the status alone are about {estimate_tokens(tiny)} "
            "tokens, over --max-tokens 60") in flat
    assert re.search(r"\[\d+\]", tiny)  # claims keep their ordinals


def test_errors_wrap_on_a_terminal_and_stay_one_line_in_a_pipe(db: Path) -> None:
    """Error lines ran past 80 columns (a team server's refusal to 240): on a terminal
    they wrap at word ends under the label; piped, the error stays one line for grep."""
    name = "no-such-session-" + "x" * 30
    args = ["resume", f"{name} and more words of a title nobody wrote", "--db", str(db)]
    shown = on_tty(args, {"NO_COLOR": "1"}).decode().replace("\r", "")
    lines = shown.splitlines()
    assert lines[0].startswith("logkb: error: no session"), lines
    assert len(lines) > 1 and all(ln.startswith("  ") for ln in lines[1:]), lines
    assert all(cell_len(ln) <= 80 for ln in lines), lines
    assert " ".join(shown.split()).startswith(f"logkb: error: no session '{name} and more")
    piped = invoke(*args)
    assert piped.exit_code == 6
    assert piped.stderr.count("\n") == 1 and piped.stderr.startswith("logkb: error: no session")
    # a message's own lines stay as they are: the caret under a query's mistake
    query = on_tty(["query", "select * from nosuch_table_here", "--db", str(db)],
                   {"NO_COLOR": "1"}).decode().replace("\r", "").splitlines()
    at = next(i for i, ln in enumerate(query) if ln.startswith("LINE 1: select"))
    assert query[at + 1].strip() == "^" * len("nosuch_table_here"), query
    assert query[at + 1].index("^") == query[at].index("nosuch"), query


def test_graph_summary_wraps_at_the_width(pool_db: Path) -> None:
    """The summary of a big session's graph ran to 94 columns at COLUMNS=80 (node counts
    by type, on one line); it wraps under itself."""
    r = invoke("graph", "--session", "da254fb", "--db", str(pool_db), env={"COLUMNS": "40"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) > 1 and all(cell_len(ln) <= 40 for ln in lines), lines
    assert all(ln.startswith("  ") for ln in lines[1:]), lines
    assert re.match(r"\d+ nodes, \d+ edges: \d+ approach", " ".join(r.stdout.split()))


# ------------------------------------------------------------------ secrets in replay
def test_replay_plan_never_shows_a_secret(tmp_path: Path) -> None:
    """The plan's `safety:` line quoted the classifier on the recorded command,
    unredacted ("sshpass -p Tr0ub4dor- is not understood"), in the text plan, in
    --json and in the stored runs; every other line of the plan was redacted."""
    from tests.hostile import secret_corpus as corpus

    db = str(tmp_path / "kb.duckdb")
    files = corpus.write_all(tmp_path / "src")
    r = invoke("ingest", "--db", db, *map(str, files))
    assert r.exit_code == 0, r.stderr
    pieces = corpus.pieces()
    shown_any = False
    for row in [json.loads(x) for x in invoke("sessions", "--json", "--db", db).stdout
                .splitlines()]:
        for extra in ([], ["--json"]):
            p = invoke("replay", "plan", "--from", "1", "-s", row["id"], *extra, "--db", db)
            assert p.exit_code == 0, p.stderr
            text = p.stdout + p.stderr
            assert not [x for x in pieces if x in text], (row["agent"], extra)
            shown_any = shown_any or "safety:" in text or "safety_reasons" in text
    assert shown_any  # the plans did show their safety reasons
    shown = invoke("--show-secrets", "replay", "plan", "--from", "1", "-s", "019a000",
                   "--db", db).stdout
    assert corpus.SECRETS["sshpass -p"].split("&")[0] in shown  # asked for, shown


def test_deadends_rows_have_no_gap_in_the_middle(pool_db: Path) -> None:
    """The tested lists are ragged ("tested 41, 43, 44, 45 +2" beside "tested 60") and
    sat before "ended N": most rows had a gap of ~15 columns in their middle.  Where it
    ended comes first now; the ragged list ends the row."""
    r = invoke("deadends", "--session", "da254fb", "--db", str(pool_db),
               env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if "dead_end" in ln]
    assert rows
    for row in rows:
        tail = row.split("dead_end", 1)[1]
        assert re.fullmatch(r"  ended \d+ {2,4}(tested [\d, +]+|never tested)", tail), row


def test_rebuilding_a_thousand_messages_shows_progress(tmp_path: Path) -> None:
    """`rebuild --graph --all` over the pool (2,800 messages) worked 8 s in silence: the
    bar came only above 5,000 messages.  Above 1,000 a terminal sees it (on stderr)."""
    lab = ROOT.parent / "shared" / "realworld" / "labelled"
    db = str(tmp_path / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(lab / "k1.lib-bootstrap__session-export.json"),
               str(lab / "uicomponents__session-wordpress.json"))  # 619 + 393 messages
    assert r.exit_code == 0, r.stderr
    shown = on_tty(["rebuild", "--graph", "--all", "--db", db], {"NO_COLOR": "1"}).decode()
    assert "deriving knowledge graphs" in shown and "1012/1012" in shown, shown[-400:]
    assert "derived 2 knowledge graphs" in shown
    piped = invoke("rebuild", "--graph", "--all", "--db", db)
    assert piped.exit_code == 0 and "deriving" not in piped.stderr  # no bar in a pipe


def test_ingest_problems_wrap_on_a_terminal(tmp_path: Path) -> None:
    """`problem: FILE:LINE: …` lines ran to 116-156 columns on a terminal, cut anywhere by
    its wrap; they wrap under their label now, and stay one line each in a pipe."""
    src = (ROOT.parent / "shared" / "realworld" / "pool" / "random__session.jsonl")
    lines = src.read_text().splitlines(keepends=True)
    bad = tmp_path / ("a-long-directory-name-" * 2) / "damaged.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text("".join(lines[:20]) + "{broken json\n" + "".join(lines[20:40]))
    shown = on_tty(["ingest", str(bad), "--db", str(tmp_path / "a.duckdb")],
                   {"NO_COLOR": "1"}).decode().replace("\r", "")
    out = shown.splitlines()
    i = next(k for k, ln in enumerate(out) if ln.startswith("problem: "))
    assert out[i + 1].startswith("  ") and "damaged.jsonl:21" in " ".join(out[i:i + 3])
    assert all(cell_len(ln) <= 80 for ln in out), out
    piped = invoke("ingest", str(bad), "--db", str(tmp_path / "b.duckdb"))
    assert piped.exit_code == 4, piped.stderr
    problem = [ln for ln in piped.stderr.splitlines() if ln.startswith("problem: ")]
    assert len(problem) == 1 and f"{bad}:21: not valid JSON" in problem[0], piped.stderr
