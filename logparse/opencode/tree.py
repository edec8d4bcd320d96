"""The pre-1.2 JSON file tree (opencode 0.6 … 1.1.65).

Layout under ``storage/``::

    session/<projectID>/<sessionID>.json
    message/<sessionID>/<messageID>.json
    part/<messageID>/<partID>.json

Ids sort chronologically (ascending), so sorting file names orders messages and
parts.  A file that is not valid JSON becomes a problem naming its path; the
rest of the session is still read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.source import RawMessage, SourceSession, TranscriptReader, message_sort_key


def storage_root(path: Path) -> Path | None:
    """The ``storage`` directory at or under ``path`` (also ``<data>/storage``)."""
    for cand in (path, path / "storage"):
        if (cand / "session").is_dir() and (cand / "message").is_dir():
            return cand
    return None


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
        out: list[RawMessage] = []
        for f in sorted((root / "message" / sid).glob("*.json")):
            info = self._load(f, root, problems)
            if not isinstance(info, dict):
                continue
            if not isinstance(info.get("id"), str) or not info["id"]:
                info["id"] = f.stem
            info.setdefault("sessionID", sid)
            parts: list[dict[str, Any]] = []
            for pf in sorted((root / "part" / info["id"]).glob("*.json")):
                part = self._load(pf, root, problems)
                if isinstance(part, dict):
                    if not isinstance(part.get("id"), str):
                        part["id"] = pf.stem
                    parts.append(part)
            out.append(RawMessage(info=info, parts=parts, record=info["id"],
                                  raw=orjson.dumps({"info": info, "parts": parts})))
        out.sort(key=lambda r: message_sort_key(r.info))
        yield from out

    @staticmethod
    def _load(f: Path, root: Path, problems: list[Problem]) -> Any:
        try:
            data = f.read_bytes()
        except OSError as e:
            problems.append(Problem(path=str(f), record=str(f.relative_to(root)),
                                    reason=f"unreadable: {e.strerror or e}"))
            return None
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as e:
            problems.append(Problem(path=str(f), record=str(f.relative_to(root)),
                                    reason=f"not valid JSON: {e}",
                                    raw=data.decode("utf-8", errors="replace")))
            return None
        if not isinstance(obj, dict):
            problems.append(Problem(path=str(f), record=str(f.relative_to(root)),
                                    reason="not a JSON object",
                                    raw=data.decode("utf-8", errors="replace")))
            return None
        return obj
