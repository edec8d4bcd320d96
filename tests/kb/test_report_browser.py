"""``logkb report`` in a real browser (issue 27): headless Chromium (Debian's package,
driven by Playwright through ``executable_path``) opens the report from ``file://``,
clicks from the index to a session, expands a dead end, follows an evidence link to its
message, searches, and checks what is visible; one screenshot per page size is kept.

Without Chromium or Playwright the test skips on a workstation and fails under CI
(``CI=true``: ``.ci/run`` installs ``chromium``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kb.cli import cli

CHROMIUM = os.environ.get("LOGKB_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
MAIN = "ses_e88a22cffffeVTvFEDoa7BoWbl"


def _missing(why: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{why}: CI must run the browser test (.ci/run installs chromium)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    if not (os.access(CHROMIUM, os.X_OK) or shutil.which(CHROMIUM)):
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site(blackwell_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "site"
    r = CliRunner().invoke(cli, ["report", "--db", str(blackwell_db), "--all", "-o", str(out)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.stderr
    return out


@pytest.mark.parametrize("size", list(SIZES))
def test_a_reader_finds_the_dead_ends_and_their_evidence(
        browser: Any, site: Path, size: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    from playwright.sync_api import expect

    artifacts = tmp_path_factory.getbasetemp() / "report-screenshots"
    artifacts.mkdir(exist_ok=True)
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    # the index: the campaign with its tokens and cost, a click to its page
    page.goto((site / "index.html").as_uri())
    row = page.locator("tr", has_text="We have 8x RTX PRO 6000")
    expect(row).to_be_visible()
    expect(row).to_contain_text("$318.68")
    row.get_by_role("link").click()
    page.wait_for_url(f"**/s-{MAIN}.html")
    expect(page.locator("h1")).to_contain_text("We have 8x RTX PRO 6000")
    expect(page.locator("#goal")).to_contain_text("Make EAGLE-3 faster than the baseline")

    # a dead end, folded until clicked; its cause and evidence then show
    dead = page.locator("details.deadend").filter(
        has=page.locator("summary", has_text="FlashInfer allreduce fusion"))
    evidence = dead.locator("ul.evidence")
    expect(evidence).to_be_hidden()
    dead.locator("summary").click()
    expect(evidence).to_be_visible()
    expect(dead).to_contain_text("why: DEAD END: JIT cannot build for SM120")
    expect(page.locator("section.cause", has=dead).locator("h3")).to_contain_text(
        "SM120 unsupported")
    expect(page.locator("svg.graph")).to_be_visible()
    page.screenshot(path=str(artifacts / f"report-{size}-{width}x{height}.png"))

    # its evidence: message 4131 (the failed JIT build) on a timeline page, open
    evidence.get_by_role("link", name="4131", exact=True).click()
    page.wait_for_url("**#m4131")
    msg = page.locator("#m4131")
    expect(msg).to_be_in_viewport()
    expect(msg.locator("details.call")).to_have_attribute("open", "")
    expect(msg.locator("details.call pre").last).to_contain_text("compute_120a")
    expect(msg.locator("details.call summary")).to_contain_text("✘")

    # search: the index of the session page finds a command's step and goes there
    page.go_back()
    page.wait_for_url(f"**/s-{MAIN}.html*")
    page.locator("#q").fill("NCCL_ALGO=Tree")
    results = page.locator("#results")
    expect(results).to_be_visible()
    expect(results.locator("li.count")).to_contain_text("match")
    hit = results.locator("a", has_text="NCCL_ALGO=Tree").first
    expect(hit).to_be_visible()
    hit.click()
    page.wait_for_url("**#*")
    target = page.evaluate("location.hash.slice(1)")
    expect(page.locator(f"[id='{target}']")).to_be_in_viewport()
    expect(page.locator(f"[id='{target}']")).to_contain_text("NCCL_ALGO=Tree")
    page.locator("#q").fill("zzzz-no-such-words")
    expect(page.locator("#results li.count")).to_have_text("0 matches")

    # nothing but the report's own files was asked for
    assert all(u.startswith("file://") for u in requests), [
        u for u in requests if not u.startswith("file://")]
    assert not errors, errors
    page.close()
    print(f"\nscreenshots in {artifacts}")
