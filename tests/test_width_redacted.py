"""A width cut never splits a ``[redacted:KIND]`` marker (safe9): a cut keeps it whole or
drops it whole, so no screen shows ``[redacted:aws-`` or a marker's tail as if it were
text, and no reader mistakes half a marker for the transcript's own words."""

from __future__ import annotations

import re

import pytest

from kb.width import cells, cut, fit, wrap

MARKER = re.compile(r"\[redacted:[a-z0-9-]+\]")
PARTIAL = re.compile(r"\[r(?:e(?:d(?:a(?:c(?:t(?:e(?:d(?::[a-z0-9-]*)?)?)?)?)?)?)?)?\Z")


def _whole(shown: str, text: str) -> None:
    """Every marker piece ``shown`` holds is a whole marker of ``text``."""
    body = shown.removesuffix("…")
    assert not PARTIAL.search(body), (shown, text)
    assert MARKER.sub("", body).count("[redacted") == 0, shown


TEXTS = [
    "export AWS_SECRET_ACCESS_KEY=[redacted:aws-key] && aws s3 ls",
    "[redacted:private-key]",
    "token [redacted:github-token][redacted:password] end",
    "数据库 [redacted:mnemonic] 连接失败 🧪 done",
    "\x1b[31m red [redacted:url-password]@db",
]


@pytest.mark.parametrize("text", TEXTS)
def test_cut_and_fit_keep_a_marker_whole_or_drop_it(text: str) -> None:
    for cols in range(1, cells(text) + 2):
        for shown in (cut(text, cols), fit(text, cols)):
            _whole(shown, text)
            assert cells(shown) <= cols
        head = cut(text, cols)
        assert text.startswith(head)
        # dropped whole: what was cut away starts at a marker's start, not inside one
        for m in MARKER.finditer(text):
            assert not (m.start() < len(head) < m.end()), (cols, head)


@pytest.mark.parametrize("text", TEXTS)
def test_wrap_never_breaks_inside_a_marker(text: str) -> None:
    for width in range(24, 60):
        lines = wrap(text, width)
        for ln in lines:
            assert "[redacted" not in MARKER.sub("", ln), lines
        joined = "".join(lines)
        assert len(MARKER.findall(joined)) == len(MARKER.findall(text)), lines


def test_a_cut_before_a_marker_still_fills_the_columns_it_can() -> None:
    text = "abc [redacted:aws-key] def"
    assert cut(text, 10) == "abc "
    assert cut(text, 22) == "abc [redacted:aws-key]"
    assert fit(text, 12) == "abc…"
