"""Shared test fixtures: an isolated home, the real-world samples, the fixture campaign."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REALWORLD = SHARED / "realworld"
SELFTEST = REALWORLD / "opencode-recorded" / "selftest"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Nothing a test runs may touch the real ~/.local/share or ~/.config."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("LOGKB_DB", raising=False)
    monkeypatch.setenv("LOGKB_HOME", str(home / "logkb"))
    monkeypatch.setenv("LOGKB_LOCK_TIMEOUT", "2")
    return home


@pytest.fixture(scope="session")
def realworld() -> Path:
    if not REALWORLD.is_dir():
        pytest.fail(f"the shared real-world samples are missing: {REALWORLD}")
    return REALWORLD


@pytest.fixture(scope="session")
def selftest(realworld: Path) -> Path:
    return SELFTEST
