"""The one guard of the Codex, pi and Antigravity readers: a line written twice in a row
(a copy, a sync, a retried write doubled it) is read once."""

from __future__ import annotations

from logparse._agentlines import LastLine, line_digest


def test_a_line_repeats_only_the_line_right_before_it() -> None:
    last = LastLine()
    assert not last.repeats(b'{"a":1}')
    assert last.repeats(b'{"a":1}')  # twice in a row
    assert last.repeats(b'{"a":1}')  # and again: still the line before it
    assert not last.repeats(b'{"b":2}')
    assert not last.repeats(b'{"a":1}')  # the same line, not in a row: read again
    assert last.digest() == line_digest(b'{"a":1}')


def test_a_resumed_reading_knows_the_line_read_last_by_its_digest() -> None:
    first = LastLine()
    first.repeats(b"x")
    resumed = LastLine()
    resumed.resume(first.digest())  # what a Codex resume point keeps
    assert resumed.repeats(b"x")
    other = LastLine()
    other.resume(first.digest())
    assert not other.repeats(b"y") and other.repeats(b"y")
    assert LastLine().digest() is None
    fresh = LastLine()
    fresh.resume(None)  # a point kept before the digest was
    assert not fresh.repeats(b"x")
