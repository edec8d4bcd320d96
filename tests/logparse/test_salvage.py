"""The streaming export scanner: messages one at a time, damage reported with its offset."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

from logparse.models import Problem
from logparse.opencode import ExportReader
from logparse.opencode._scan import ExportScanner
from logparse.registry import detect
from logparse.source import NotATranscript

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"
SAMPLE = REAL / "opencode" / "session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json"


def events(data: bytes) -> list:
    sc = ExportScanner(io.BytesIO(data))
    sc.skip_prefix()
    return list(sc.events())


def read(tmp_path: Path, data: bytes) -> tuple[list[str], list[Problem], str]:
    f = tmp_path / "e.json"
    f.write_bytes(data)
    problems: list[Problem] = []
    out, sid = [], ""
    for src in ExportReader().sessions(f, problems):
        sid = src.session_id
        out += [m.info["id"] for m in src.messages]
    return out, problems, sid


@pytest.fixture(scope="module")
def doc() -> dict:
    return orjson.loads(SAMPLE.read_bytes())


def test_scanner_matches_a_whole_parse(doc: dict) -> None:
    for data in (SAMPLE.read_bytes(), orjson.dumps(doc)):  # pretty and compact
        evs = events(data)
        assert [e.value for e in evs if e.kind == "message"] == doc["messages"]
        assert [e.value for e in evs if e.kind == "key" and e.key == "info"] == [doc["info"]]
        assert not [e for e in evs if e.kind == "damage"]


def test_compact_export_truncated_and_flipped(tmp_path: Path, doc: dict) -> None:
    data = orjson.dumps(doc)
    starts = [e.offset for e in events(data) if e.kind == "message"]
    ids = [m["info"]["id"] for m in doc["messages"]]
    got, problems, _ = read(tmp_path, data[: starts[3] + 40])
    assert got == ids[:3] and len(problems) == 1 and problems[0].record == f"byte {starts[3]}"
    b = bytearray(data)
    q = data.index(b'"', starts[5] + 2)  # a quote inside message 6: its structure breaks
    b[q] = ord("#")
    got, problems, _ = read(tmp_path, bytes(b))
    assert got == ids[:5] + ids[6:]
    assert [p.record for p in problems] == [f"byte {starts[5]}"]


def test_damaged_session_info_keeps_the_messages(tmp_path: Path, doc: dict) -> None:
    data = SAMPLE.read_bytes()
    b = bytearray(data)
    at = data.index(b'"title"')
    b[at + 6] = ord("X")  # the key's closing quote: the info's structure breaks
    got, problems, sid = read(tmp_path, bytes(b))
    assert got == [m["info"]["id"] for m in doc["messages"]]
    assert sid == doc["messages"][0]["info"]["sessionID"]
    assert problems and all(p.record and p.record.startswith("byte ") for p in problems)


def test_misspelt_messages_key_is_read_and_reported(tmp_path: Path, doc: dict) -> None:
    data = SAMPLE.read_bytes().replace(b'"messages"', b'"messagez"', 1)
    got, problems, _ = read(tmp_path, data)
    assert len(got) == len(doc["messages"])
    assert any("'messagez'" in p.reason for p in problems)


def test_damage_far_from_a_message_start_is_bounded(tmp_path: Path, doc: dict) -> None:
    """A broken message followed by megabytes without a message start: the scanner
    reports it once and keeps at most about one MB of its text."""
    head = SAMPLE.read_bytes()
    cut = head.index(b'"messages"')
    blob = head[:cut] + b'"messages": [\n    {"info": {"id": "m", "x": "' + b"y" * (5 << 20)
    f = tmp_path / "e.json"
    f.write_bytes(blob)
    problems: list[Problem] = []
    srcs = list(ExportReader().sessions(f, problems))
    assert len(srcs) == 1 and list(srcs[0].messages) == []
    assert len(problems) == 1 and len(problems[0].raw or "") <= (1 << 20)


def test_markdown_mentioning_exports_is_not_an_export(tmp_path: Path) -> None:
    f = tmp_path / "notes.md"
    f.write_text("# Notes\n\nAn export is `{info, messages}`:\n\n```json\n{\n  \"info\": {}\n}\n```\n"
                 + "text\n" * 50)
    with pytest.raises(NotATranscript):
        detect(f)


def test_status_line_without_newline(tmp_path: Path, doc: dict) -> None:
    data = b"Exporting session: " + doc["info"]["id"].encode() + SAMPLE.read_bytes()
    f = tmp_path / "e.json"
    f.write_bytes(data)
    assert detect(f) is ExportReader
    got, problems, _ = read(tmp_path, data)
    assert len(got) == len(doc["messages"])
    assert [p.line for p in problems] == [1]
