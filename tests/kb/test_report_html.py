"""``logkb report`` (issue 27): the static HTML site, read as files.

What a browser does with it is ``test_report_browser.py``; here: hostile transcript text
stays text (escaped, control characters shown, never emitted), secrets stay hidden, the
pages stay under 2 MB for the 5,000-message fixture, and every link lands on an id.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import click.testing
import pytest
from click.testing import CliRunner

from fixtures import secrets_session as fx
from kb.cli import cli
from kb.report_html.text import h, script_json, visible
from kb.store import KbStore

HOSTILE = ("</script><script>alert(1)</script> <img src=x onerror=alert(2)> "
           "\x1b]52;c;ZXZpbA==\x07 \x1b[2J \x9b31m \u202egnp.exe\u202c & \"q\" 'a' \x00")
"""Markup, an OSC 52 clipboard write, a screen clear, a C1 CSI, a bidi override, NUL."""
RAW_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def run(*args: str) -> click.testing.Result:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert r.exit_code == 0, (args, r.stdout, r.stderr)
    return r


def pages(site: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(site.glob("*.html"))}


def test_the_one_text_helper_escapes_and_shows_controls() -> None:
    out = h(HOSTILE)
    assert "<" not in out and ">" not in out and '"' not in out
    assert "&lt;/script&gt;" in out and "&amp;" in out
    assert RAW_CONTROLS.search(out) is None
    for shown in ("\\x1b]52;c;", "\\x07", "\\x9b", "\\u202e", "\\x00"):
        assert shown in out
    assert visible("tab\tand\nnewline") == "tab\tand\nnewline"
    js = script_json({"t": HOSTILE})
    assert "</" not in js and "<" not in js and RAW_CONTROLS.search(js) is None
    assert json.loads(js)["t"].startswith("</script>")  # the data itself is kept


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    src = tmp_path_factory.mktemp("hostile")
    ctx = BuildContext(random.Random(27), directory="/home/dev/hostile", project_id="ef" * 20)
    s = SessionBuilder(ctx, title=f"title {HOSTILE}", start_ms=1_790_000_000_000)
    s.user(f"prompt {HOSTILE}")
    s.step(f"Let me try the fast path. {HOSTILE}",
           [bash(f"echo '{HOSTILE}'", f"{HOSTILE}\n" + "x" * 9000 + "\nTHE END\n")])
    s.step("Done.")
    path = write_jsonl(s.tree(), src / "hostile.jsonl")
    db = src / "kb.duckdb"
    run("ingest", "--db", str(db), str(path))
    return db


def test_hostile_text_is_shown_never_obeyed(hostile_db: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    r = run("report", "--db", str(hostile_db), "--all", "-o", str(site))
    assert r.stdout.strip() == str(site / "index.html")
    got = pages(site)
    assert len(got) == 2  # the index and the session
    for name, text in got.items():
        assert RAW_CONTROLS.search(text) is None, name
        assert "<script>alert" not in text and "<img src=x" not in text, name
        assert text.count("<script") == 2, name  # the index and the page's own script
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), name
        assert "https://" not in text, name
    page = next(t for n, t in got.items() if n != "index.html")
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page
    assert "\\x1b]52;c;ZXZpbA==\\x07" in page and "\\u202egnp.exe" in page
    # the long output is cut in the middle, and says so
    assert "THE END" in page and "characters not shown" in page


@pytest.fixture(scope="module")
def leaky_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("leaky")
    fx.write(src)
    db = src / "kb.duckdb"
    run("ingest", "--db", str(db), str(src / "export.json"), *map(str, src.glob("export-*.json")))
    return db


def test_secrets_are_redacted_and_revealing_is_refused(leaky_db: Path, tmp_path: Path) -> None:
    db = leaky_db
    site = tmp_path / "site"
    run("report", "--db", str(db), "--all", "-o", str(site))
    got = pages(site)
    assert len(got) == 3  # index, the session, its subagent
    pieces = sorted({p for v in fx.SECRETS.values() for p in (
        [v, v[:10], v[-10:]] if "\n" not in v else v.split("\n")[1:-1])})
    for name, text in got.items():
        leaked = [p for p in pieces if p in text]
        assert not leaked, (name, leaked)
    assert "[redacted:" in "".join(got.values())
    main = next(t for n, t in got.items() if n != "index.html" and "Dead-end graph" in t)
    assert "nvidia-smi" in main  # the commands around the secrets are there
    r = CliRunner().invoke(cli, ["--show-secrets", "report", "--db", str(db), "--all",
                                 "-o", str(tmp_path / "open")])
    assert r.exit_code == 2 and "always redacted" in r.stderr
    assert not (tmp_path / "open").exists()


def test_without_graphviz_the_graph_is_left_out_and_said_so(
        leaky_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` on it
    site = tmp_path / "site"
    run("report", "--db", str(leaky_db), "--all", "-o", str(site))
    main = next(t for n, t in pages(site).items() if "Dead-end graph" in t)
    assert "<svg class=\"graph\"" not in main and "is not installed" in main
    assert 'class="deadend"' in main  # the dead ends themselves are listed


def test_a_subagent_brings_its_campaign(leaky_db: Path, tmp_path: Path
                                        ) -> None:
    with KbStore(leaky_db, read_only=True) as store:
        child = next(s["session_id"] for s in store.sessions() if s["parent_id"])
    site = tmp_path / "site"
    run("report", child, "--db", str(leaky_db), "-o", str(site))
    assert len(pages(site)) == 3  # the campaign, its subagent and the index


def _ids(text: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', text))


def test_the_blackwell_report_weighs_under_2mb_a_page_and_every_link_lands(
        blackwell_db: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    r = run("report", "--db", str(blackwell_db), "--all", "-o", str(site), "--json")
    meta = json.loads(r.stdout)
    got = pages(site)
    assert {Path(p["path"]).name for p in meta["pages"]} == set(got)
    sizes = {n: len(t.encode("utf-8")) for n, t in got.items()}
    assert max(sizes.values()) <= 2_000_000, sizes
    main = "s-ses_e88a22cffffeVTvFEDoa7BoWbl.html"
    assert main in got and "ses_e21bd022fffeJdmrfVzFvKOVy6" in got["index.html"]
    # the index: agent, title, dates, tokens and cost
    idx = got["index.html"]
    assert "opencode" in idx and "We have 8x RTX PRO 6000" in idx and "2026-" in idx
    assert "$318.68" in idx
    # the story: every dead end under its cause, with evidence links
    page = got[main]
    for cause in ("SM120 unsupported", "PCIe saturation", "incompatible with CUDA graph",
                  "deep_ep not installed", "out of memory"):
        assert f"<h3>{cause}<" in page
    assert page.count('class="deadend"') == 6
    assert "<svg class=\"graph\"" in page and "<svg class=\"plot\"" in page
    # every tool call of the session is on some page (4,964, todo and subagent calls too)
    assert sum(t.count('class="st call') for n, t in got.items()
               if n.startswith("s-ses_e88a")) == 4964
    ids = {n: _ids(t) for n, t in got.items()}
    links = 0
    for name, text in got.items():
        for target, frag in re.findall(r'href="([^"#]*)#([^"]*)"', text):
            if not frag:
                continue
            dest = target or name
            assert dest in ids, (name, target)
            assert frag in ids[dest], (name, target, frag)
            links += 1
    assert links > 100
    # the search index of each page names only pages of the site and ids on them
    for name, text in got.items():
        data = json.loads(re.search(r'id="search-index">(.*?)</script>', text, re.S)[1])
        assert data["rows"]
        for row in data["rows"]:
            dest = data["pages"][row[0]] or name
            assert dest in ids and (not row[1] or row[1] in ids[dest]), (name, row)
