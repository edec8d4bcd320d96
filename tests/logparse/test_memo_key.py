"""A memo's key of a long text, remembered for the last text keyed (issue 28): the same
key as computing it afresh, for the same object, an equal copy and the texts between."""

from __future__ import annotations

import hashlib

from logparse import memo


def _fresh(text: str) -> object:
    if len(text) <= memo.LONG:
        return text
    return (len(text), hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                       digest_size=16).digest())


def test_last_key_is_the_key() -> None:
    a = "x" * 300 + "a"
    b = "x" * 300 + "b"
    a_copy = "".join(["x" * 300, "a"])
    assert a_copy is not a
    seq = [a, a, b, a, a_copy, b, b, "short", a, "\ud800" + "y" * 300, a]
    for t in seq:
        assert memo.text_key(t) == _fresh(t)
    assert memo.text_key(a) != memo.text_key(b)
