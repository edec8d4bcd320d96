"""``python -m bench rules``: how many extraction rules rest on a real line.

Issue 22 asks that every rule be a table row with a real example and that the closing
note give the share of rules that have one.  This walks every module of ``logparse``
and ``kb`` (not the TUI), finds the rule tables (module-level tuples or lists of
dataclass rows that carry an ``example`` or a ``source``), counts each table once
(``kb.graph.store`` re-exports some) and sorts its rows by where the example comes
from:

- ``real``: the row names a real line (a transcript and line, or a public file);
- ``written``: the row says its example is written (``(no real line yet)``,
  ``not in the data``);
- ``unsourced``: the table has no ``source`` field, so the census cannot tell.

Secrets rules are not counted: their table is built on first use and their
examples are synthetic by design (a real key must never be copied into the tree).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import pkgutil
import sys
from dataclasses import dataclass
from typing import Any

_PACKAGES = ("logparse", "kb")
_SKIP = ("kb.tui", "kb.__main__", "kb.cli",
         "logparse.coverage")  # the signals × agents matrix (`bench signals`), no rules
_WRITTEN = ("(no real line yet)", "not in the data")


@dataclass
class Table:
    module: str
    name: str
    rows: int = 0
    real: int = 0
    written: int = 0
    unsourced: int = 0


def _is_table(value: Any) -> bool:
    if not isinstance(value, (tuple, list)) or not value:
        return False
    if not all(dataclasses.is_dataclass(v) and not isinstance(v, type) for v in value):
        return False
    names = {f.name for f in dataclasses.fields(value[0])}
    return "example" in names or "source" in names


def _where(row: Any) -> str | None:
    source = getattr(row, "source", None)
    return None if source is None else str(source)


def census() -> list[Table]:
    seen: set[int] = set()
    tables: list[Table] = []
    for top in _PACKAGES:
        package = importlib.import_module(top)
        for info in pkgutil.walk_packages(package.__path__, top + "."):
            if info.name.startswith(_SKIP):
                continue
            module = importlib.import_module(info.name)
            for name, value in sorted(vars(module).items()):
                if id(value) in seen or not _is_table(value):
                    continue
                seen.add(id(value))
                table = Table(info.name, name)
                for row in value:
                    table.rows += 1
                    where = _where(row)
                    if where is None:
                        table.unsourced += 1
                    elif where.startswith(_WRITTEN):
                        table.written += 1
                    else:
                        table.real += 1
                tables.append(table)
    return tables


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench rules", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="one object per table")
    args = parser.parse_args(argv)
    tables = census()
    if args.json:
        for t in tables:
            sys.stdout.write(json.dumps(dataclasses.asdict(t)) + "\n")
        return
    print(f"{'table':<44} {'rows':>5} {'real':>5} {'written':>7} {'unsrc':>5}")
    for t in tables:
        label = f"{t.module.split('.', 1)[1]}.{t.name}"[:44]
        print(f"{label:<44} {t.rows:>5} {t.real:>5} {t.written:>7} {t.unsourced:>5}")
    rows = sum(t.rows for t in tables)
    real = sum(t.real for t in tables)
    written = sum(t.written for t in tables)
    sourced = rows - sum(t.unsourced for t in tables)
    print(f"{'all':<44} {rows:>5} {real:>5} {written:>7} {rows - sourced:>5}")
    if sourced:
        print(f"rows that name where their example comes from: {real}/{sourced} "
              f"real ({real / sourced:.0%}), {written} written")
