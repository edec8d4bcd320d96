"""Held-out hygiene: no rule, reader or rule test names a held-out transcript.

The held-out files (``bench.held_out``) measure wording nobody tuned on, so no rule row
may take its example from one, and no module of the layers (nor a test of ``logparse``)
may say it read one.  The tests and benches that read the whole pool on purpose, and the
reader-shape fixtures of ``fixtures/realworld_trim``, are outside this walk."""

from __future__ import annotations

from pathlib import Path

from bench.held_out import STEMS

ROOT = Path(__file__).resolve().parents[1]
WALKED = ("logparse", "kb", "tui", "tests/logparse")


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_no_module_of_the_layers_names_a_held_out_file() -> None:
    found = [f"{path.relative_to(ROOT)}: {stem}"
             for folder in WALKED for path in _modules(folder)
             for stem in STEMS if stem in path.read_text(encoding="utf-8")]
    assert found == []
