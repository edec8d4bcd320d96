"""What a message of a line-keyed form is, whatever line it stands at: its content key.

Claude Code, Codex, pi and Antigravity messages are named by the line their record stands
at (:func:`logparse._agentlines.message_id`): a line added or removed before a message
gives it another id in a later reading of the file.  Its records do not move with it:
the content key of a message is the key of its own record (the one at
:attr:`~logparse.source.RawMessage.line`), and a stored message holds every record it was
read from (its raw JSON ``{"lines": [...], "records": [...]}``), so the ingest finds the
stored message a shifted one is (``kb.ingest``: it keeps the id first stored).

A record's key is its own id where it has one: Claude Code's ``uuid``, a pi entry's
``id``, an Antigravity step's ``step_index`` (with its type and creation time); else
(Codex records carry none) a digest of the record.  Keys are 64-bit integers, so an index of a long session's
records stays small.  A Codex record rewritten at its line (other content) has another
key; :func:`codex_identity` (its time, type, ids and kind) says it is the same record,
at its line or at another, as a ``uuid`` does for Claude Code (``kb.ingest``: the stored
message, changed).
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from logparse._agentlines import ID_DIGITS, message_id
from logparse.request import CONTEXT_OPENERS

LINE_KEYED = frozenset({"claude-code", "claude-stream", "codex", "pi", "antigravity",
                        "gemini-cli"})
"""Forms whose message ids are line numbers (a shifted line renames the messages after)."""


def _digest(text: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def record_key(rec: Any) -> int:
    """The key of one source record (a JSON value as read)."""
    if isinstance(rec, dict):
        uuid = rec.get("uuid")
        if isinstance(uuid, str) and uuid:
            return _digest(b"u:" + uuid.encode())
        eid = rec.get("id")
        if isinstance(eid, str) and eid:
            return _digest(b"i:" + eid.encode())
        step = rec.get("step_index")
        if isinstance(step, int) and not isinstance(step, bool):
            # with its creation time: a trajectory exported again after a rewind gives the
            # new steps the indexes of the ones taken back (another step, not this one
            # changed); a step that ran on (its status, its output) keeps its time
            return _digest(f"s:{step}:{rec.get('type')}:{rec.get('created_at')}".encode())
    return _digest(b"d:" + orjson.dumps(rec))


_IDENTITY = ("type", "role", "call_id", "id", "name")
"""The payload fields that say which Codex record it is, whatever it says."""


def _kind(p: dict[str, Any]) -> str | None:
    """What kind of message a Codex ``message`` payload is, whatever it says: the context
    fragment it opens with (:data:`CONTEXT_OPENERS`), else ``typed``.  Codex writes the
    AGENTS.md, the environment and the user's prompt in one millisecond, none with an id
    before 0.17x (pool/privacy-x402__codex-session.jsonl L3, L4, L7): their kinds keep
    them apart, and a record rewritten keeps its kind."""
    if p.get("type") != "message":
        return None
    content = p.get("content")
    first = content[0] if isinstance(content, list) and content else content
    text = first.get("text") if isinstance(first, dict) else first
    if not isinstance(text, str):
        return None
    head = text.lstrip()
    return next((o for o in CONTEXT_OPENERS if head.startswith(o)), "typed")


def codex_identity(rec: Any) -> int | None:
    """Which Codex record ``rec`` is, whatever its content: its time, its type, its
    payload's type, role, ids and name, the ``ordinal`` Codex 0.17x numbers every line
    with, and, for a message, its kind (:func:`_kind`: several messages without ids are
    written in one millisecond).  A record rewritten at its line or moved to another (an
    older copy of the session, then a newer one) keeps them, as a Claude Code record
    keeps its ``uuid``; its key (:func:`record_key`, a digest of its content) does not.
    Records that still share one (the same kind in the same millisecond) are told apart
    by their order (``kb.ingest``: the first stored one not read yet).  ``None``: no
    enveloped record with its time (a legacy bare item: only its content names it)."""
    if not isinstance(rec, dict) or "uuid" in rec:
        return None
    ts, typ, p = rec.get("timestamp"), rec.get("type"), rec.get("payload")
    if not (isinstance(ts, str) and ts and isinstance(typ, str) and isinstance(p, dict)):
        return None
    fields = [p.get(k) if isinstance(p.get(k), str) else None for k in _IDENTITY]
    ordinal = rec.get("ordinal")
    if not isinstance(ordinal, int) or isinstance(ordinal, bool):
        ordinal = None
    return _digest(b"c:" + orjson.dumps([ts, typ, ordinal, *fields, _kind(p)]))


def _records(raw: bytes | str) -> tuple[list[Any], list[Any]] | None:
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict):
        return None
    lines, recs = doc.get("lines"), doc.get("records")
    if not (isinstance(lines, list) and isinstance(recs, list) and len(lines) == len(recs)):
        return None
    return lines, recs


def record_keys(raw: bytes | str, line: int | None = None) -> tuple[list[int], list[int]]:
    """The keys of the records a message's raw JSON holds: ``(own, others)``.  Its own
    record is the one read at ``line`` (the line its stored id names); when it holds no
    record there (it was stored under another id: an alias), every record may be its
    own.  Both empty: the raw JSON is not line-based."""
    got = _records(raw)
    return ([], []) if got is None else _own_and_others(*got, line)


def _own_and_others(lines: list[Any], recs: list[Any], line: int | None
                    ) -> tuple[list[int], list[int]]:
    """:func:`record_keys` of records already parsed (``lines``: the line each was read
    at)."""
    at = next((i for i, n in enumerate(lines) if n == line), None) if line is not None \
        else None
    keys = [record_key(r) for r in recs]
    if at is None:
        return keys, []
    return [keys[at]], keys[:at] + keys[at + 1:]


_MESSAGE_ITEMS = frozenset({"message", "function_call", "custom_tool_call",
                            "local_shell_call", "function_call_output",
                            "custom_tool_call_output"})
"""The Codex ``response_item`` payloads a message is read from (its own record; a user or
assistant ``message``): the other records it holds are lines without an ordinal."""


def _own_identities(recs: list[Any]) -> list[int]:
    """The :func:`codex_identity` of the records of a stored Codex message that can be its
    own: its ``response_item`` message (user or assistant), call or output.  Not the record
    at the line its id names: a message replaced in place by a moved copy of it keeps its
    id, and that line may now be another of its records."""
    out = []
    for r in recs:
        p = r.get("payload") if isinstance(r, dict) and r.get("type") == "response_item" \
            else None
        if isinstance(p, dict) and p.get("type") in _MESSAGE_ITEMS and (
                p.get("type") != "message" or p.get("role") in ("user", "assistant")):
            ident = codex_identity(r)
            if ident is not None:
                out.append(ident)
    return out


def record_index(raw: bytes | str, line: int | None
                 ) -> tuple[list[int], list[int], list[int]]:
    """:func:`record_keys` and the :func:`codex_identity` of the records that can be the
    message's own (:func:`_own_identities`), from one parse of the raw JSON."""
    got = _records(raw)
    if got is None:
        return [], [], []
    lines, recs = got
    return (*_own_and_others(lines, recs, line), _own_identities(recs))


def _own_record(raw: bytes | str, line: int | None) -> tuple[Any] | None:
    """A message's own record, the one read at ``line``, in a 1-tuple (``None``: the raw
    JSON is not line-based or holds no record at that line)."""
    got = _records(raw)
    if got is None or line is None:
        return None
    lines, recs = got
    for n, rec in zip(lines, recs):
        if n == line:
            return (rec,)
    return None


def own_key(raw: bytes | str, line: int | None) -> int | None:
    """The key of a message's own record: the one read at ``line`` (``None``: the raw JSON
    is not line-based or holds no record at that line)."""
    own = _own_record(raw, line)
    return None if own is None else record_key(own[0])


def content_digest(raw: bytes | str) -> int | None:
    """A digest of a line-based message's raw JSON without its ``lines``: equal for two
    readings of the same message at other lines (``None``: not line-based)."""
    data = raw.encode() if isinstance(raw, str) else raw
    at = data.find(b',"records":')
    return None if not data.startswith(b'{"lines":') or at < 0 else _digest(data[at:])


def id_line(message_id: str) -> int | None:
    """The line a line-keyed message id names (:func:`logparse._agentlines.message_id`)."""
    head = message_id[:ID_DIGITS]
    return int(head) if len(head) == ID_DIGITS and head.isdigit() else None


def line_id(line: int) -> str:
    """The id a line-keyed message read at ``line`` gets (:func:`id_line` reads it back)."""
    return message_id(line)


def own_identity(raw: bytes | str, line: int | None) -> int | None:
    """The :func:`codex_identity` of a message's own record, the one read at ``line``
    (``None``: not line-based, no record there, or not a Codex record with its time)."""
    own = _own_record(raw, line)
    return None if own is None else codex_identity(own[0])
