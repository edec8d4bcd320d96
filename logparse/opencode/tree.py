"""The pre-1.2 JSON file tree (opencode 0.6 … 1.1.65).

Layout under ``storage/``::

    session/<projectID>/<sessionID>.json
    message/<sessionID>/<messageID>.json
    part/<messageID>/<partID>.json

Ids sort chronologically (ascending), so sorting file names orders messages and
parts.  A file that is not valid JSON becomes a problem naming its path and line
(kept raw); the rest of the session is still read, and the parts of a message whose
own file is damaged are kept raw with it.  A UTF-8 BOM is skipped; invalid UTF-8 is
replaced (U+FFFD) and named.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.opencode._raw import message_raw
from logparse.safe_open import open_regular
from logparse.source import RawMessage, SourceSession, TranscriptReader, message_sort_key


def storage_root(path: Path) -> Path | None:
    """The ``storage`` directory at or under ``path`` (also ``<data>/storage``)."""
    for cand in (path, path / "storage"):
        if (cand / "session").is_dir() and (cand / "message").is_dir():
            return cand
    return None


def _json_files(folder: Path, root: Path, problems: list[Problem]) -> list[Path]:
    """The ``*.json`` files of ``folder`` by name (ids sort chronologically); none when
    it is missing, and a problem when it cannot be read.  ``os.scandir``: ``Path.glob``
    costs several times more per file."""
    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it if e.name.endswith(".json") and e.is_file())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as e:
        problems.append(Problem(path=str(folder), record=str(folder.relative_to(root)),
                                reason=f"unreadable: {e.strerror or e}"))
        return []
    return [folder / n for n in names]


def _source(f: Path) -> bytes:
    """A record's bytes as stored (read again only for a record nested too deep for
    orjson to write back: :func:`~logparse.opencode._raw.message_raw`)."""
    with open_regular(f) as fh:
        return fh.read().removeprefix(codecs.BOM_UTF8)


def _sources(info_file: Path, part_files: list[Path]) -> Callable[[int], bytes]:
    return lambda i: _source(info_file if i < 0 else part_files[i])


class TreeReader(TranscriptReader):
    form = "tree"
    description = "opencode pre-1.2 JSON file tree (storage/)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return path.is_dir() and storage_root(path) is not None

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        root = storage_root(path)
        assert root is not None
        infos: list[tuple[dict[str, Any], Path]] = []
        for f in sorted((root / "session").glob("*/*.json")):
            info = self._load(f, root, problems)
            if not isinstance(info, dict) and (root / "message" / f.stem).is_dir():
                info = {"id": f.stem}  # its file is damaged (named): its messages are not
            if isinstance(info, dict):
                if not isinstance(info.get("id"), str) or not info["id"]:
                    info["id"] = f.stem
                infos.append((info, f))
        infos.sort(key=lambda x: message_sort_key(x[0]))
        for info, _f in infos:
            sid = info["id"]
            if session_ids is not None and sid not in session_ids:
                continue
            yield SourceSession(session_id=sid, form=self.form, path=str(root), info=info,
                                messages=self._messages(root, sid, problems))

    def _messages(self, root: Path, sid: str, problems: list[Problem]) -> Iterator[RawMessage]:
        # the message files first (small), in transcript order; then each message's parts,
        # read as it is yielded: a long session is never held whole
        infos: list[tuple[dict[str, Any], Path]] = []
        for f in _json_files(root / "message" / sid, root, problems):
            info = self._load(f, root, problems)
            if not isinstance(info, dict):
                self._orphan_parts(root, f.stem, problems)
                continue
            if not isinstance(info.get("id"), str) or not info["id"]:
                info["id"] = f.stem
            info.setdefault("sessionID", sid)
            infos.append((info, f))
        infos.sort(key=lambda x: message_sort_key(x[0]))
        for info, f in infos:
            parts: list[dict[str, Any]] = []
            pfiles: list[Path] = []
            for pf in _json_files(root / "part" / info["id"], root, problems):
                part = self._load(pf, root, problems)
                if isinstance(part, dict):
                    if not isinstance(part.get("id"), str):
                        part["id"] = pf.stem
                    parts.append(part)
                    pfiles.append(pf)
            yield RawMessage(info=info, parts=parts, record=info["id"],
                             raw=message_raw(info, parts, _sources(f, pfiles)))

    @classmethod
    def _orphan_parts(cls, root: Path, mid: str, problems: list[Problem]) -> None:
        """The parts of a message whose own file could not be read: each kept raw (a
        problem naming it), never dropped unsaid."""
        for pf in _json_files(root / "part" / mid, root, problems):
            try:
                with open_regular(pf) as fh:
                    data = fh.read()
            except OSError as e:
                problems.append(Problem(path=str(pf), record=str(pf.relative_to(root)),
                                        reason=f"unreadable: {e.strerror or e}"))
                continue
            problems.append(Problem(
                path=str(pf), record=str(pf.relative_to(root)),
                raw=data.decode("utf-8", errors="replace"),
                reason=f"a part of message {mid}, whose file is damaged; kept raw"))

    @staticmethod
    def _load(f: Path, root: Path, problems: list[Problem]) -> Any:
        try:
            with open_regular(f) as fh:  # not Path.read_bytes: a tree is many small files
                data = fh.read()
        except OSError as e:
            problems.append(Problem(path=str(f), record=str(f.relative_to(root)),
                                    reason=f"unreadable: {e.strerror or e}"))
            return None
        data = data.removeprefix(codecs.BOM_UTF8)  # an editor's or PowerShell's BOM
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as e:
            text = data.decode("utf-8", errors="replace")
            try:  # invalid UTF-8 in a string: the record with U+FFFD, and named
                obj = orjson.loads(text) if text.encode() != data else None
            except orjson.JSONDecodeError:
                obj = None
            if obj is None:
                problems.append(Problem(path=str(f), line=e.lineno,
                                        record=str(f.relative_to(root)),
                                        reason=f"not valid JSON: {e}", raw=text))
                return None
            problems.append(Problem(path=str(f), line=e.lineno,
                                    record=str(f.relative_to(root)),
                                    reason="invalid UTF-8 (replaced with U+FFFD)"))
        if not isinstance(obj, dict):
            problems.append(Problem(path=str(f), record=str(f.relative_to(root)),
                                    reason="not a JSON object",
                                    raw=data.decode("utf-8", errors="replace")))
            return None
        return obj
