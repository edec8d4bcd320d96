"""Tokens and cost: per message as the agents record them, summed per session, day, week,
month or 5-hour block.

A price is a row of :data:`PRICES` (USD per million tokens, with the date the vendor's list
price was read); a user file (``$XDG_CONFIG_HOME/logkb/prices.json`` or ``--prices``) adds
or overrides rows.  A message whose agent recorded its cost (opencode) keeps that cost; any
other is priced from its model's row; a model without a row is *unpriced*: its cost is
unknown, never 0, and every total that includes it says so.

Token semantics (what the readers store): ``input`` is the input that was not read from a
cache, ``cache_read`` and ``cache_write`` the cached parts, ``output`` every generated token
(reasoning included where the vendor bills it as output), ``reasoning`` informational only.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Price:
    """USD per million tokens of one model."""

    input: float
    output: float
    cache_read: float | None = None
    """``None``: the vendor bills cached input as input."""
    cache_write: float | None = None
    """``None``: the vendor bills cache writes as input.  Anthropic: the five-minute
    cache."""
    as_of: str = ""
    """When the list price was read (ISO date), or ``user`` for a user file's row."""
    cache_write_1h: float | None = None
    """Writes to the one-hour cache; ``None``: at the ``cache_write`` rate."""


PRICES: dict[str, Price] = {
    # Anthropic list prices (cache write: the 5-minute cache at 1.25x input; the last
    # figure, the 1-hour cache, at 2x input).
    # The 4.6/4.7 rows and gpt-5.3-codex, gpt-5.4 and gpt-5.5 below are the rates of the
    # LiteLLM table embedded in ccusage 20.0.24, read 2026-12-05: with them logkb's cost
    # of every real session using those models equals ccusage's to the cent
    # (docs/usage-vs-ccusage.md, tests/kb/test_usage.py).
    "claude-opus-4-7": Price(5.0, 25.0, 0.50, 6.25, "2026-12-05", 10.00),
    "claude-opus-4-6": Price(5.0, 25.0, 0.50, 6.25, "2026-12-05", 10.00),
    "claude-sonnet-4-6": Price(3.0, 15.0, 0.30, 3.75, "2026-12-05", 6.00),
    "claude-opus-4-5": Price(5.0, 25.0, 0.50, 6.25, "2025-11-24", 10.00),
    "claude-opus-4-1": Price(15.0, 75.0, 1.50, 18.75, "2025-08-05", 30.00),
    "claude-opus-4": Price(15.0, 75.0, 1.50, 18.75, "2025-05-22", 30.00),
    "claude-sonnet-4-5": Price(3.0, 15.0, 0.30, 3.75, "2025-09-29", 6.00),
    "claude-sonnet-4": Price(3.0, 15.0, 0.30, 3.75, "2025-05-22", 6.00),
    "claude-3-7-sonnet": Price(3.0, 15.0, 0.30, 3.75, "2025-02-24", 6.00),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.10, 1.25, "2025-10-15", 2.00),
    "claude-3-5-haiku": Price(0.80, 4.0, 0.08, 1.0, "2024-11-04", 1.60),
    # OpenAI list prices (cached input is a part of input, billed at the cache rate).
    "gpt-5.5": Price(5.0, 30.0, 0.50, None, "2026-12-05"),
    "gpt-5.4": Price(2.50, 15.0, 0.25, None, "2026-12-05"),
    "gpt-5.3-codex": Price(1.75, 14.0, 0.175, None, "2026-12-05"),
    "gpt-5": Price(1.25, 10.0, 0.125, None, "2025-08-07"),
    "gpt-5-codex": Price(1.25, 10.0, 0.125, None, "2025-09-15"),
    "gpt-5.1": Price(1.25, 10.0, 0.125, None, "2025-11-13"),
    "gpt-5.1-codex": Price(1.25, 10.0, 0.125, None, "2025-11-13"),
    "gpt-5.1-codex-max": Price(1.25, 10.0, 0.125, None, "2025-11-19"),
    "gpt-5-mini": Price(0.25, 2.0, 0.025, None, "2025-08-07"),
    "gpt-5-nano": Price(0.05, 0.40, 0.005, None, "2025-08-07"),
    "gpt-4.1": Price(2.0, 8.0, 0.50, None, "2025-04-14"),
    "gpt-4o": Price(2.50, 10.0, 1.25, None, "2024-08-06"),
}
"""List prices logkb ships.  A model not here is unpriced (add it with a user file)."""

_DATED = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")


def model_key(model: str) -> str:
    """``anthropic/claude-opus-4-5-20251101`` → ``claude-opus-4-5``: the provider prefix
    and a release date suffix dropped, nothing else (``claude-opus-4-6`` stays itself and is
    never priced as ``claude-opus-4``)."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return _DATED.sub("", name)


def user_prices_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "logkb" / "prices.json"


def load_prices(path: Path | None = None) -> dict[str, Price]:
    """The shipped table with a user file's rows over it.  The file is a JSON object
    ``{"model": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75,
    "cache_write_1h": 6}}`` (USD per million tokens; the cache rates optional); a missing
    default file is no error, a bad one is."""
    table = dict(PRICES)
    file = path or user_prices_path()
    if path is None and not file.is_file():
        return table
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        def rate(row: dict[str, Any], key: str) -> float | None:
            v = row.get(key)
            return None if v is None else float(v)

        for model, row in data.items():
            table[model_key(model)] = Price(
                float(row["input"]), float(row["output"]), rate(row, "cache_read"),
                rate(row, "cache_write"), "user", rate(row, "cache_write_1h"))
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"{file}: not a price table ({e})") from e
    return table


@dataclass(frozen=True)
class MessageUsage:
    """One assistant message's tokens as its agent recorded them."""

    session_id: str
    agent: str | None
    model: str | None
    time: int | None
    """Milliseconds since the epoch."""
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    recorded_cost: float | None = None
    cache_write_1h: int = 0
    """The part of ``cache_write`` that went to the one-hour cache (Claude Code)."""


def message_cost(m: MessageUsage, prices: Mapping[str, Price]) -> float | None:
    """The recorded cost, else the model's price applied; ``None`` when unpriced."""
    if m.recorded_cost:
        return m.recorded_cost
    if not (m.input or m.output or m.cache_read or m.cache_write):
        return 0.0
    p = prices.get(model_key(m.model)) if m.model else None
    if p is None:
        return None
    read = p.input if p.cache_read is None else p.cache_read
    write = p.input if p.cache_write is None else p.cache_write
    hour = write if p.cache_write_1h is None else p.cache_write_1h
    long = min(max(m.cache_write_1h, 0), m.cache_write)
    return (m.input * p.input + m.output * p.output + m.cache_read * read
            + (m.cache_write - long) * write + long * hour) / 1_000_000


@dataclass
class Total:
    """Sums over a group of messages."""

    key: str
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    cost: float = 0.0
    """Of the priced messages."""
    unpriced: int = 0
    """Messages with tokens whose model has no price: the cost is a lower bound."""
    messages: int = 0
    sessions: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def add(self, m: MessageUsage, cost: float | None) -> None:
        self.input += m.input
        self.output += m.output
        self.cache_read += m.cache_read
        self.cache_write += m.cache_write
        self.reasoning += m.reasoning
        self.messages += 1
        self.sessions.add(m.session_id)
        if m.model:
            self.models.add(m.model)
        if cost is None:
            self.unpriced += 1
        else:
            self.cost += cost

    def as_json(self) -> dict[str, object]:
        return {"key": self.key, "input": self.input, "output": self.output,
                "cache_read": self.cache_read, "cache_write": self.cache_write,
                "reasoning": self.reasoning, "total_tokens": self.tokens,
                "cost": None if self.unpriced and not self.cost else round(self.cost, 6),
                "cost_complete": not self.unpriced, "unpriced_messages": self.unpriced,
                "messages": self.messages, "sessions": len(self.sessions),
                "models": sorted(self.models)}


BY = ("session", "day", "week", "month", "block")
BLOCK = timedelta(hours=5)


def _day(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def _key(by: str, m: MessageUsage) -> str:
    if by == "session":
        return m.session_id
    if m.time is None:
        return "undated"
    t = _day(m.time)
    if by == "day":
        return t.strftime("%Y-%m-%d")
    if by == "week":
        y, w, _ = t.isocalendar()
        return f"{y}-W{w:02d}"
    return t.strftime("%Y-%m")


def blocks(rows: Sequence[MessageUsage]) -> list[tuple[str, list[MessageUsage]]]:
    """5-hour billing blocks: a block starts at the hour of its first message and holds the
    messages of the next five hours; the first message after it starts the next one."""
    out: list[tuple[str, list[MessageUsage]]] = []
    end: datetime | None = None
    for m in sorted((r for r in rows if r.time is not None), key=lambda r: r.time or 0):
        t = _day(m.time or 0)
        if end is None or t >= end:
            start = t.replace(minute=0, second=0, microsecond=0)
            end = start + BLOCK
            out.append((start.strftime("%Y-%m-%d %H:00"), []))
        out[-1][1].append(m)
    undated = [r for r in rows if r.time is None]
    if undated:
        out.append(("undated", undated))
    return out


def totals(rows: Iterable[MessageUsage], by: str, prices: Mapping[str, Price]) -> list[Total]:
    """Sums per ``by`` group, in time order (sessions by their first message)."""
    rows = list(rows)
    groups: dict[str, Total] = {}
    if by == "block":
        for key, ms in blocks(rows):
            t = groups.setdefault(key, Total(key))
            for m in ms:
                t.add(m, message_cost(m, prices))
        return list(groups.values())
    for m in sorted(rows, key=lambda r: (r.time is None, r.time or 0)):
        groups.setdefault(_key(by, m), Total(_key(by, m))).add(m, message_cost(m, prices))
    return list(groups.values())


def grand_total(groups: Iterable[Total]) -> Total:
    t = Total("total")
    for g in groups:
        t.input += g.input
        t.output += g.output
        t.cache_read += g.cache_read
        t.cache_write += g.cache_write
        t.reasoning += g.reasoning
        t.cost += g.cost
        t.unpriced += g.unpriced
        t.messages += g.messages
        t.sessions |= g.sessions
        t.models |= g.models
    return t
