"""The raw JSON of a message read from records stored one by one (a storage tree's files,
a database's rows), when orjson cannot write it back.

orjson reads JSON nested up to 1024 levels but writes only 254: a record nested between
the two (a tool's input echoing a deep document) parsed, then ended the ingest with a
``TypeError`` when the message's ``{"info", "parts"}`` was written.  Each record that
cannot be written is its bytes as stored instead (they parsed, so they are JSON)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson


def message_raw(info: dict[str, Any], parts: list[dict[str, Any]],
                source: Callable[[int], bytes]) -> bytes:
    """``{"info": …, "parts": […]}``: each value written by orjson, or its bytes as
    stored, ``source(-1)`` for the info, ``source(i)`` for part ``i`` (called only for a
    value orjson cannot write)."""
    try:
        return orjson.dumps({"info": info, "parts": parts})
    except orjson.JSONEncodeError:
        pass

    def one(obj: dict[str, Any], i: int) -> bytes:
        try:
            return orjson.dumps(obj)
        except orjson.JSONEncodeError:
            return source(i)

    return (b'{"info":' + one(info, -1) + b',"parts":['
            + b",".join(one(p, i) for i, p in enumerate(parts)) + b"]}")
