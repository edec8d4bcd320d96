"""Knowledge bases the CLI tests share: several top-level sessions, and a transcript whose
text looks like rich markup and emoji codes (it must be printed literally)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import click.testing
from click.testing import CliRunner

from kb.cli import cli

MARKUP = "[bold]hi[/bold] :x: a:b:c"
"""Text that rich would turn into bold ``hi``, ❌ and ``a🅱c`` if it interpreted it."""

CURIOUS = "ses_39b7f9e89ffe7J0WzLzYrUt4eW"
"""A real opencode session (several tool calls per message)."""
FIXTURE = "ses_e88a22cffffeVTvFEDoa7BoWbl"


def invoke(*args: str, env: dict[str, str] | None = None) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)


def lines(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def markup_session(dst: Path) -> Path:
    """A tiny session whose title, prompt, prose, command and output are :data:`MARKUP`."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(3), directory="/home/dev/markup", project_id="cd" * 20)
    s = SessionBuilder(ctx, title=f"title {MARKUP}", start_ms=1_790_000_000_000)
    s.user(f"prompt {MARKUP}")
    s.step(f"prose {MARKUP}", [bash(f"echo '{MARKUP}'", f"{MARKUP}\n")])
    s.step("Done.")
    return write_jsonl(s.tree(), dst)


def several_sessions(blackwell_db: Path, realworld: Path, dst: Path) -> Path:
    """The fixture campaign, then two real sessions ingested after it (so the latest
    ingested top-level session is not the campaign)."""
    shutil.copyfile(blackwell_db, dst)
    opencode = realworld / "opencode"
    r = invoke("ingest", "--db", str(dst),
               str(opencode / "session__curious-sailor__ses_39b7f9e89ffe7J0WzLzYrUt4eW.json"),
               str(opencode / "session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus.json"))
    assert r.exit_code == 0, r.stderr
    return dst
