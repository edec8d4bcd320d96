"""Which reader handles an input: detection from content, never from file names.

``READERS`` is the ordered list of forms; the first whose ``detect`` accepts an
input reads it.  Directories are searched: an opencode data directory
(``opencode.db`` and/or ``storage/``) is read as such, anything else is walked
for transcript files (opencode, Claude Code, Codex, Gemini CLI, pi and Antigravity
JSONL alike).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from logparse.antigravity import AntigravityReader
from logparse.claude_code import ClaudeCodeReader
from logparse.claude_stream import ClaudeStreamReader
from logparse.codex import CodexReader
from logparse.gemini_cli import GeminiChatJsonReader, GeminiCliReader
from logparse.opencode import (
    ExportReader,
    JsonlReader,
    RunStreamReader,
    SqliteReader,
    TreeReader,
)
from logparse.opencode._lines import decoded_head, first_line, head_records, opens_a_json_line
from logparse.opencode.tree import storage_root
from logparse.pi import PiReader
from logparse.rewrite import RewriteReader
from logparse.safe_open import refusal
from logparse.source import NotATranscript, TranscriptReader

READERS: tuple[type[TranscriptReader], ...] = (
    SqliteReader,
    TreeReader,
    RunStreamReader,
    JsonlReader,
    GeminiChatJsonReader,  # before the export: a one-line chat may say "info" early
    ExportReader,
    CodexReader,
    GeminiCliReader,
    PiReader,
    AntigravityReader,
    ClaudeStreamReader,  # before the transcript: its records are a transcript's, renamed
    ClaudeCodeReader,
    RewriteReader,  # last: flat role/text records, what no agent's own reader took
)

HEAD_BYTES = 8192
_SKIP_SUFFIXES = ("-wal", "-shm", "-journal")
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "snapshot", "log", "bin"}


@dataclass(frozen=True, slots=True)
class Input:
    """One readable input found under a path the user gave."""

    path: Path
    reader: type[TranscriptReader]

    @property
    def form(self) -> str:
        return self.reader.form


def _head(path: Path) -> bytes:
    """The first bytes of a file as UTF-8 (a BOM skipped, UTF-16 transcoded)."""
    return decoded_head(path, HEAD_BYTES)


@dataclass(frozen=True, slots=True)
class Foreign:
    """A JSON-lines form logkb does not read, told by its first records (one row of
    :data:`FOREIGN`; ``example`` is a real first record, trimmed, that the row names)."""

    what: str
    """What the file looks like, for ``looks like WHAT: ...``."""
    why: str
    """Why it is refused."""
    test: Callable[[dict[str, Any]], bool]
    example: str


FOREIGN: tuple[Foreign, ...] = ()
"""Forms refused by name, first match wins.  Tested row by row on ``example``.  None
today: the sanitised rewrites of Claude Code and Codex sessions once refused here are
read (:mod:`logparse.rewrite`, form ``rewrite``)."""


def foreign_form(path: Path, head: bytes) -> Foreign | None:
    """The row of :data:`FOREIGN` the first records of ``path`` match, if any."""
    if not opens_a_json_line(head):
        return None
    for obj in head_records(path, 5):
        for row in FOREIGN:
            if row.test(obj):
                return row
    return None


def foreign_kind(path: Path, head: bytes) -> str | None:
    """Name the agent behind a JSON-lines file no reader accepted, when its first line
    looks like one logkb reads but is not a record of it (a damaged Claude Code or
    Codex file whose first readable records are not messages, say)."""
    if not head.lstrip().startswith(b"{"):
        return None
    try:
        obj = orjson.loads(first_line(path))
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict):
        return None
    if obj.get("type") in ("session_meta", "response_item", "event_msg", "turn_context"):
        return "an OpenAI Codex rollout"
    if "sessionId" in obj or "parentUuid" in obj:
        return "a Claude Code transcript"
    return None


def detect(path: Path) -> type[TranscriptReader]:
    """The reader for one file or opencode directory, or :class:`NotATranscript`."""
    if not path.is_dir():  # only regular files are opened (logparse.safe_open)
        why = refusal(path)
        if why is not None and not why.startswith("unreadable"):
            raise NotATranscript(path, why)
    if not path.exists():
        raise NotATranscript(path, "no such file or directory")
    if path.is_dir():
        if TreeReader.detect(path, b""):
            return TreeReader
        raise NotATranscript(path, "a directory without an opencode storage tree")
    try:
        head = _head(path)
    except OSError as e:
        raise NotATranscript(path, f"unreadable: {e.strerror or e}") from None
    if not head.strip():
        raise NotATranscript(path, "empty file")
    for reader in READERS:
        if reader is TreeReader:
            continue
        if reader.detect(path, head):
            return reader
    row = foreign_form(path, head)
    if row is not None:
        raise NotATranscript(path, f"looks like {row.what}: {row.why}", agent=row.what)
    foreign = foreign_kind(path, head)
    if foreign:
        raise NotATranscript(path, f"looks like {foreign} but no record of it could be read",
                             agent=foreign)
    raise NotATranscript(path, _cut_first_record(path, head) or "unrecognised content")


def _cut_first_record(path: Path, head: bytes) -> str | None:
    """Why a file that opens a JSON object was not recognised when its first record is
    not whole JSON (a copy taken while the agent wrote its first line): the line named,
    so the user knows what to look at."""
    if not head.lstrip().startswith(b"{"):
        return None
    n = next((i for i, ln in enumerate(head.split(b"\n"), 1) if ln.strip()), 1)
    line = first_line(path)
    if line.strip() == b"{":
        return None  # a pretty-printed JSON document, not a record cut mid-write
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError as e:
        return (f"unrecognised content: line {n} is not whole JSON ({e}); a copy taken "
                "while the agent was writing it?")
    return None


Known = Callable[[Path], type[TranscriptReader] | None]
"""What the caller already knows of a file: the reader that read it when it has not
changed since (so it is not opened to detect it again), else ``None``."""


def discover(path: Path, known: Known | None = None) -> Iterator[Input | NotATranscript]:
    """Every input under ``path``: the path itself, or what a directory holds.

    ``known`` answers for files read before and unchanged since: they are taken with
    the reader it names without being opened (a re-run costs a stat per file).

    Yields :class:`NotATranscript` for every file no reader accepts: a file met
    while walking a directory has ``walked`` set (a repository holds many JSON
    files that are not sessions: ingest lists them without failing), unless the
    refusal names an agent (``agent``), which is an error wherever the file is.
    """
    if not path.is_dir() and os.path.lexists(path):  # a file, a link, a FIFO, a device...
        reader = known(path) if known is not None and refusal(path) is None else None
        if reader is not None:
            yield Input(path, reader)
            return
        try:
            yield Input(path, detect(path))
        except NotATranscript as e:
            yield e
        return
    if not path.is_dir():
        yield NotATranscript(path, "no such file or directory")
        return
    if TreeReader.detect(path, b"") and storage_root(path) == path:
        yield Input(path, TreeReader)
        return
    found = False
    for dirpath, dirnames, filenames in os.walk(path):
        here = Path(dirpath)
        prune = set(_SKIP_DIRS)
        # an opencode data directory: its database first (sessions migrated from the
        # tree are read from it), then the pre-1.2 tree
        db = here / "opencode.db"
        if db.is_file() and ((known is not None and known(db) is SqliteReader)
                             or SqliteReader.detect(db, _head(db))):
            yield Input(db, SqliteReader)
            found = True
        root = storage_root(here)
        if root is not None:
            yield Input(root, TreeReader)
            found = True
            if root == here:  # a storage tree itself: nothing else in it is a transcript
                dirnames[:] = []
                continue
            prune.add(root.name)
        for d in sorted(dirnames):  # not followed: a link may lead anywhere, or back up
            if d not in prune and os.path.islink(here / d):
                yield NotATranscript(here / d, f"a symlink to the directory "
                                     f"{os.path.realpath(here / d)}: not followed (name the "
                                     "directory to ingest it)")
        dirnames[:] = sorted(d for d in dirnames if d not in prune
                             and not os.path.islink(here / d))
        for name in sorted(filenames):
            if name.endswith(_SKIP_SUFFIXES) or (name == "opencode.db" and db.is_file()):
                continue
            if here.name == "subagents" and name.endswith(".meta.json"):
                continue  # Claude Code's note on a sub-agent file beside it (its type, its call)
            f = here / name
            why = refusal(f)  # a FIFO, a device, a socket, a link loop: reported, not read
            if why is not None:
                yield NotATranscript(f, why)
                continue
            reader = known(f) if known is not None else None
            if reader is not None:
                yield Input(f, reader)
                found = True
                continue
            try:
                yield Input(f, detect(f))
                found = True
            except NotATranscript as e:
                e.walked = True
                yield e
    if not found:
        yield NotATranscript(path, "no transcripts found in this directory")


def default_data_dir() -> Path:
    """opencode's data directory: ``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "opencode"


def claude_projects_dir() -> Path:
    """Claude Code's transcripts: ``$CLAUDE_CONFIG_DIR/projects`` (``~/.claude/projects``)."""
    base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return Path(base) / "projects"


def codex_sessions_dir() -> Path:
    """Codex's rollouts: ``$CODEX_HOME/sessions`` (``~/.codex/sessions``)."""
    base = os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")
    return Path(base) / "sessions"


def gemini_tmp_dir() -> Path:
    """Gemini CLI's chats: ``<project hash>/chats/session-*.jsonl`` under
    ``$GEMINI_CLI_HOME/.gemini/tmp`` (``~/.gemini/tmp``; the variable replaces the home
    directory), and the older single-JSON chats (``session-*.json``) there."""
    base = os.environ.get("GEMINI_CLI_HOME") or str(Path.home())
    return Path(base) / ".gemini" / "tmp"


def pi_sessions_dir() -> Path:
    """pi's sessions: ``$PI_CODING_AGENT_DIR/sessions`` (``~/.pi/agent/sessions``, one
    ``--<cwd>--`` folder a project)."""
    base = os.environ.get("PI_CODING_AGENT_DIR") or str(Path.home() / ".pi" / "agent")
    return Path(base) / "sessions"


def agent_dirs() -> list[tuple[str, Path]]:
    """Every agent's default store, existing or not: ``(agent, directory)``.  Antigravity
    keeps its conversations in its own binary form: its trajectories are read from an
    export named on the command line."""
    return [("opencode", default_data_dir()), ("Claude Code", claude_projects_dir()),
            ("Codex", codex_sessions_dir()), ("Gemini CLI", gemini_tmp_dir()),
            ("pi", pi_sessions_dir())]


def default_dirs() -> list[Path]:
    """Where ``logkb ingest`` looks with no path: every agent's directory that exists
    (opencode's is named even when missing, so its absence is reported)."""
    dirs = [default_data_dir()]
    dirs += [d for _, d in agent_dirs()[1:] if d.is_dir()]
    return dirs
