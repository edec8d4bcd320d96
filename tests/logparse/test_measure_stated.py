"""Issue 22 item 5: results stated in words.  One test walks every row of
:data:`logparse.measure_stated.RULES` against its real example (trimmed copy in
``fixtures/measure/stated.txt``); the others say what the rows never take."""

from __future__ import annotations

from pathlib import Path

import pytest

from logparse.measure import measurement_tuples
from logparse.measure_stated import (
    CURL_WRITE_OUT_EXAMPLES,
    RULES,
    curl_write_out,
    read_note_measurements,
    stated_measurements,
)

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "measure" / "stated.txt"


def _fixture_lines() -> dict[str, tuple[str, str]]:
    out = {}
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, source, example = line.split("\t", 2)
        out[name] = (source, example)
    return out


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_every_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    fixtures = _fixture_lines()
    assert rule.name in fixtures, f"{rule.name}: no trimmed copy in {FIXTURE.name}"
    source, example = fixtures[rule.name]
    assert example == rule.example and source == rule.source
    assert rule.scope in ("prose", "output", "both")
    assert any(g in rule.example for g in rule.gate), "the gate shuts out its own example"
    hits = [h for m in rule.pattern.finditer(rule.example) for h in rule.read(m, rule.example)]
    assert rule.expect in {(v, u) for _, v, u, _ in hits}, (rule.name, hits)
    # and the whole engine reports it
    prose = rule.scope != "output"
    assert rule.expect in {(v, u) for v, u, _ in measurement_tuples(rule.example, prose)} or \
        rule.expect[0] in {v for v, _, _ in measurement_tuples(rule.example, prose)}


def test_rule_names_are_unique_and_every_fixture_line_has_a_rule() -> None:
    names = [r.name for r in RULES]
    assert len(set(names)) == len(names)
    curls = {f"curl-write-out-{k}" for k in range(1, len(CURL_WRITE_OUT_EXAMPLES) + 1)}
    assert set(_fixture_lines()) == set(names) | curls


@pytest.mark.parametrize(("text", "want"), [
    ("All 212 tests pass.", (212.0, "passed")),
    ("Tests: 10/10 passing.", (10.0, "passed")),
    ("The bundle is 2.3 MB, down from 3.1 MB.", (3.1, "MB")),
    ("p95 latency is now 180 ms.", (180.0, "ms")),
    ("Response time went from 1.2 s to 300 ms.", (1.2, "s")),
    ("Response time went from 1.2 s to 300 ms.", (300.0, "ms")),
    ("The endpoint now returns 200.", (200.0, "HTTP")),
    # a metric that changed to a value (logparse.measure's soft label)
    ("CPU usage went to 100%", (100.0, "%")),
    ("build time dropped to 41 s", (41.0, "s")),
])
def test_stated_results_in_prose(text: str, want: tuple[float, str]) -> None:
    assert want in {(v, u) for v, u, _ in measurement_tuples(text, True)}


@pytest.mark.parametrize("text", [
    # edits and settings: a value changed in code is no reading
    "- `styles.css`: reduced inset from 8% to 5%, making the cooldown circle larger",
    "- JS: Start typing with a 500ms delay instead of 1000ms, and clear initial text",
    "REQUESTS_PER_SECOND=3  # Down from 3.5",
    "    // Set max missed heartbeats periods to 1.0 (down from 3.0).",
    "The timeout is now 30 s.",
    # plans and specs: what a server should return is no status it returned
    "implement validation logic to return 400 for invalid input and 422 when",
    "the endpoint should always return 200 with a category",
    # counts that are no tally, ids, versions, ports, line numbers
    "It returned 200 rows from the table.",
    "3/2 tests pass",
    "Upgraded to 1.2.3 and the server listens on port 8080; see line 421.",
    "run `npm test` — all unit tests pass",
])
def test_what_the_rows_never_take(text: str) -> None:
    assert stated_measurements(text, True) == [], text


def test_output_rows_stay_off_prose_and_prose_rows_off_outputs() -> None:
    assert stated_measurements("4 moderate severity vulnerabilities", True) == []
    assert stated_measurements("All 11 tests pass.", False) == []
    # a finished action counts its noun; an action under way does not
    assert stated_measurements("Installing 31 skills...", False) == []
    assert stated_measurements("Added 120 packages", False)[0][1:3] == (120.0, "packages")


def test_a_directory_read_counts_no_entries() -> None:
    # opencode's footer of a directory read is an ``ls`` entry count (issue 22 item 5)
    got = read_note_measurements("ygo-tool-cli/\nygopro/\n\n(21 entries)\n</entries>",
                                 "Projects")
    assert 21.0 not in {v for v, _, _ in got}


def test_a_read_the_tool_refused_or_summarised_says_its_size() -> None:
    from logparse.derive import call_measurements

    # Claude Code's Read of a file too large, and of a PDF (conversacion-act1-pln, L268, L10)
    big = call_measurements("read", "search", {"filePath": "/u/out1.txt"},
                            "File content (40694 tokens) exceeds maximum allowed tokens "
                            "(10000). Use offset and limit parameters to read specific "
                            "portions of the file, or search for specific content instead "
                            "of reading the whole file.", {})
    assert big is not None and (40694.0, "tokens") in {(m["value"], m["unit"]) for m in big}
    pdf = call_measurements("read", "search", {"filePath": "/u/Briefing.pdf"},
                            "PDF file read: /u/Mi unidad/Briefing.pdf (295.5KB)", {})
    assert pdf is not None and (295.5, "kB") in {(m["value"], m["unit"]) for m in pdf}
    # a file's own content is never read for numbers
    assert call_measurements("read", "search", {"filePath": "/u/a.py"},
                             "<content>\n1: TIMEOUT = 5  # 5 ms\n</content>", {}) is None


def test_an_api_error_keeps_its_http_status() -> None:
    from logparse.derive import derive_session, to_events
    from logparse.source import RawMessage

    # Claude Code's api_error record (Xeus__claude-session L3) as the reader hands it on
    err = {"name": "APIError", "data": {"message": "500: your current token plan not "
                                        "support model, MiniMax-M2.7 (2061)",
                                        "statusCode": 500}}
    msgs = [RawMessage({"id": "m1", "role": "user", "time": {"created": 1}},
                       [{"type": "text", "id": "p1", "text": "hi"}], b"{}"),
            RawMessage({"id": "m2", "role": "assistant", "time": {"created": 2},
                        "error": err},
                       [{"type": "retry", "id": "p2", "attempt": 1, "error": err,
                         "time": {"created": 2}}], b"{}")]
    batch, _ = derive_session("s", "src", msgs)
    got = {(m.value, m.unit) for e in to_events("s", batch) for m in e.measurements}
    assert (500.0, "HTTP") in got


@pytest.mark.parametrize("text", [
    # a style property is a value set, not read (uicomponents, #135 and #12)
    "the canvas now has width: 100% and height: 100%",
    '<table style="width: 100%">',
    "the width grew to 100%",
    "We moved the sleep to 5 s",
    # a bound is no reading: vite's warning (uicomponents), a limit named after the value
    "(!) Some chunks are larger than 500 kB after minification. Consider:",
    "no file breaks GitHub's 100 MB limit, and",
])
def test_styles_and_settings_are_no_readings(text: str) -> None:
    assert measurement_tuples(text, True) == [], text


@pytest.mark.parametrize("ex", CURL_WRITE_OUT_EXAMPLES, ids=[e.source for e in CURL_WRITE_OUT_EXAMPLES])
def test_curl_write_out_reads_its_real_examples(ex) -> None:  # type: ignore[no-untyped-def]
    from logparse.derive import call_measurements

    copies = {(src, ex_) for src, ex_ in _fixture_lines().values()}
    assert (ex.source, f"{ex.command}\t{ex.output}".replace("\r", "\\r").replace(
        "\n", "\\n")) in copies, "no trimmed copy in fixtures/measure/stated.txt"
    assert ex.expect in {(v, u) for v, u, _ in curl_write_out(ex.command, ex.output)}
    got = call_measurements("bash", "http", {"command": ex.command}, ex.output, {})
    assert got is not None and ex.expect in {(m["value"], m["unit"]) for m in got}


@pytest.mark.parametrize(("command", "output", "want"), [
    ('curl -s -o /dev/null -w "http_code=%{http_code} time=%{time_total}\\n" http://x',
     "http_code=200 time=0.123456\n", [(200.0, "HTTP"), (0.123456, "s")]),
    ('curl -w "\\nHTTP_STATUS:%{http_code}\\nTOTAL_TIME:%{time_total}\\n" -X POST http://x',
     '{"ok":true}\nHTTP_STATUS:201\nTOTAL_TIME:0.5\n', [(201.0, "HTTP"), (0.5, "s")]),
    # no answer (000), a body where the code should be, a format with no measure
    ('$r = curl -s -o nul -w "%{http_code}" http://localhost/a; Write-Output "got: $r"',
     "Nonce: ca2e 1e46\r\ngot: 000\r\n", []),
    ('curl -s -o $null -w "%{http_code}" http://localhost:8882/wp-login.php',
     '<!DOCTYPE html>\n<html lang="en-US">\n<title>Log In</title>', []),
    ('curl -s -w "%{url_effective}" http://x', "http://x/", []),
])
def test_curl_write_out(command: str, output: str, want: list[tuple[float, str]]) -> None:
    assert [(v, u) for v, u, _ in curl_write_out(command, output)] == want


def test_a_codex_turn_aborted_after_its_user_message_keeps_its_duration(tmp_path: Path) -> None:
    """Codex 0.120+ writes the ``<turn_aborted>`` user message before the
    ``turn_aborted`` event (Trezo-Ai L157-158, trimmed copy in fixtures/measure/)."""
    import shutil

    from logparse.derive import derive_session, to_events
    from logparse.registry import detect

    path = Path(shutil.copy(FIXTURE.parent / "codex_turn_aborted.jsonl", tmp_path / "s.jsonl"))
    got = set()
    for s in detect(path)().sessions(path, []):  # messages are read while the file is
        batch, _ = derive_session(s.session_id, str(path), list(s.messages))
        got |= {(m.value, m.unit, m.label) for e in to_events(s.session_id, batch)
                for m in e.measurements}
    assert (187258.0, "ms", "turn duration") in got


@pytest.mark.parametrize("text", [
    # a status is read with its own reason phrase only
    "200 Not Found",
    "404 OK",
    "the 500 Client Error",
    # a status written in source code is no answer a request got
    "    res.end('404 Not Found');",
    '        return "403 Forbidden", 403',
    # ports, versions and line numbers before a phrase
    "port 8080 Not Found",
    "v1.404 Not Found",
])
def test_an_output_status_needs_its_own_phrase_outside_code(text: str) -> None:
    assert [h for h in stated_measurements(text, False) if h[2] == "HTTP"] == [], text
