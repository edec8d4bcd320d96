"""``python -m bench prose-classes``: the language of a text part, the width of its lines,
and the held-out transcripts it never reads."""

from __future__ import annotations

from collections import Counter

from bench.held_out import HELD_OUT
from bench.prose_classes import clip, language, report, sessions


def test_language_of_the_pool_lines() -> None:
    assert language("Te recomiendo lo segundo: reescribilo con tu voz y dejá la cita.") == "es"
    assert language("Confirmado: o namespace ainda aponta para o caminho antigo, não existe "
                    "mais.") == "pt"
    assert language("我更推荐保留“脚本 + systemd 用户服务”。") == "zh"
    assert language("Let me check whether the flag works.") == "en"


def test_lines_fit_80_columns_with_cjk() -> None:
    r = {"name": "x", "parts": Counter({("zh", "decision"): 1}),
         "sentences": Counter({("zh", "decision"): 1}), "decisions": None,
         "firings": [{"session": "x", "at": "matugen-theme-sync__opencode-session.json #5",
                      "class": "decision", "rule": "zh_decide",
                      "sentence": "我更推荐保留“脚本 + systemd 用户服务”，不建议把核心逻辑放进 KWin "
                                  "脚本。因为 KWin 脚本主要面向窗口管理。"}]}
    for line in report([r], True):
        assert sum(2 if "\u4e00" <= ch <= "\u9fff" or ch in "“”，。" else 1
                   for ch in line) <= 80, line
    assert clip("因此" * 50, 10) == "因此" * 2 + "因"


def test_the_held_out_transcripts_are_never_listed() -> None:
    for which in ("tune", "shared", "pool"):
        for _, transcript, _ in sessions(which, []):
            assert not any(h in transcript.name for h in HELD_OUT), transcript
