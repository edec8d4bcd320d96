"""SQL lives behind the store (issue 29): a SQL string anywhere else in ``kb/`` fails.

The modules that may hold SQL are :data:`SQL_ROOMS` (docs/architecture.md says why
each); every other module asks them.  A SQL string is a literal (or an f-string's
literal part) that starts with a statement keyword in capitals and has the words a
statement needs (``SELECT … FROM``, ``INSERT INTO``, ``DELETE FROM``, …), so prose that
mentions SQL does not count.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SQL_ROOMS = {
    "kb/store.py": "the store: every core table, the event read path",
    "kb/graph/store.py": "the graph's tables",
    "kb/replay/store.py": "replay_runs, replay_steps",
    "kb/secrets.py": "secrets, secret_scans: the scan's own tables",
    "kb/views.py": "read models (what a screen or command shows)",
    "kb/search/scan.py": "the search fallback that scans the tables",
    "kb/team/server.py": "the team's PostgreSQL schema and members",
    "kb/team/push.py": "writes to the team's PostgreSQL",
    "kb/team/read.py": "reads from the team's PostgreSQL",
    "kb/team/export.py": "copies the store's tables (or the team's) out as Parquet",
    "kb/team/mirror.py": "copies what a member may read into a read-only local store",
    "kb/migrations/__init__.py": "applies kb/migrations/*.sql",
}
"""Module → what it owns.  (``kb/search/query.py`` compiles a search to a WHERE
condition, never a statement: scan.py runs it.)"""

STATEMENT = re.compile(
    r"^\s*(?:SELECT\b[\s\S]*\bFROM\b|SELECT\s+\d|SELECT\s+to_regclass|SELECT\s+current_user"
    r"|SELECT\s+pg_|INSERT\s+(?:OR\s+REPLACE\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b"
    r"|CREATE\s+(?:OR\s+REPLACE\s+|TEMP\s+)?(?:TABLE|VIEW|INDEX|SCHEMA|ROLE)\b"
    r"|DROP\s+(?:TABLE|VIEW|INDEX)\b|ALTER\s+(?:TABLE|ROLE)\b|WITH\s+\w+\s+AS\s*\("
    r"|BEGIN(?:\s+TRANSACTION)?\s*$|COMMIT\s*$|ROLLBACK\s*$|SET\s+\w+\s*=|PRAGMA\s+\w+)")


def sql_strings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if STATEMENT.match(node.value):
                found.append((node.lineno, node.value.strip()[:60]))
        elif isinstance(node, ast.JoinedStr):
            head = "".join(v.value if isinstance(v, ast.Constant) else "x"
                           for v in node.values)
            if STATEMENT.match(head):
                found.append((node.lineno, head.strip()[:60]))
    return found


def test_sql_only_in_the_store_and_read_model_modules() -> None:
    stray = {}
    for path in sorted((ROOT / "kb").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in SQL_ROOMS:
            continue
        hits = sql_strings(path)
        if hits:
            stray[rel] = hits
    assert not stray, f"SQL outside {sorted(SQL_ROOMS)}: {stray}"


def test_the_check_sees_sql() -> None:
    """It would fail: every room it allows does hold SQL it recognises."""
    for rel in SQL_ROOMS:
        assert sql_strings(ROOT / rel), rel
