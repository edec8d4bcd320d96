"""Readers for every form opencode (1.x) keeps or prints sessions in.

=========  ==========================================================
form       what it is
=========  ==========================================================
export     ``opencode export``: one JSON object ``{info, messages}``
jsonl      one ``{info, parts}`` message per line (``session.jsonl``)
sqlite     the 1.2+ store ``opencode.db`` (WAL), read-only
tree       the pre-1.2 JSON file tree ``storage/``
run        the ``opencode run --format json`` event stream
=========  ==========================================================
"""

from logparse.opencode.export import ExportReader
from logparse.opencode.jsonl import JsonlReader
from logparse.opencode.runstream import RunStreamReader
from logparse.opencode.sqlite import SqliteReader
from logparse.opencode.tree import TreeReader

__all__ = ["ExportReader", "JsonlReader", "RunStreamReader", "SqliteReader", "TreeReader"]
