"""The TUI at 80×24 marks a message the user rewound away from (Gemini CLI's
``$rewindTo``, ``fixtures/gemini_rewind``): the detail pane's head says ``rewound`` and
a dim line says after which message; a message of the conversation says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.cli_kb import invoke
from tui.app import make_app
from tui.screens import TimelineScreen
from tui.widgets.detail import DetailPane

from .conftest import screen_text, settle

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "gemini_rewind" / \
    "session-rewind.jsonl"
SID = "5e7c1a2b-0d4f-4c8e-9a61-3f2b7d9e0c11"


@pytest.fixture
def rewind_db(tmp_path: Path) -> Path:
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), "--wait", str(FIXTURE))
    assert r.exit_code == 0, r.stderr
    return db


async def test_the_detail_pane_marks_a_rewound_message_at_80(rewind_db: Path) -> None:
    app = make_app(rewind_db, session_id=SID)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        shown = {}
        for ordinal in (2, 5):
            screen.jump(ordinal)
            await settle(pilot)
            pane = screen.query_one(DetailPane)
            assert pane.detail is not None and pane.detail.ordinal == ordinal
            shown[ordinal] = (pane.text, screen_text(pilot))
        text, screen2 = shown[2]
        assert text.startswith("message 2 · rewound · assistant"), text
        assert "(rewound after message 3: the user took this message back)" in " ".join(
            text.split())
        assert "message 2 · rewound" in screen2  # on the 80×24 screen itself
        assert all(cell_len(ln) <= 80 for ln in screen2.splitlines())
        text5, screen5 = shown[5]
        assert text5.startswith("message 5") and "rewound" not in text5
