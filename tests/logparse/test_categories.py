"""Coding-session categories (issue 23 item 6): every rule row's real example is
categorised as the row says, and the share of ``other`` stays low."""

from __future__ import annotations

import pytest

from logparse.kinds import Category
from logparse.shell import CATEGORIES, parse_command
from logparse.shell.catrules import GENERIC, RULES, RUNNERS, SCRIPTS, script_category

_ROWS = ([(r.example, r.category, r.source) for r in RULES]
         + [(r.example, r.category, r.source) for r in GENERIC]
         + [(r.example, r.inner_category, r.source) for r in RUNNERS])


@pytest.mark.parametrize(("example", "category", "source"), _ROWS,
                         ids=[f"{i}:{e[:40]}" for i, (e, _, _) in enumerate(_ROWS)])
def test_every_rule_row(example, category, source):
    assert category in CATEGORIES
    assert source
    assert parse_command(example).category == category, (example, source)


def test_every_script_row():
    for s in SCRIPTS:
        assert s.category in CATEGORIES
        for name in s.names:
            assert script_category(name) == s.category, name
        # the example runs the script through its runner
        assert parse_command(s.example).category == s.category, s.example


def test_categories_are_known_to_the_store():
    # `events --category` takes the values of logparse.kinds.Category
    assert set(CATEGORIES) <= {c.value for c in Category}


@pytest.mark.parametrize(("text", "category"), [
    ("rm -r /tmp/tmpqwh7888i/tests/", "file"),
    ("mv ~/Code/openwisprmod ~/Code/workbench/openwisprmod", "file"),
    ("cp -r OpenWisprMod.app /Applications/", "file"),
    ("pkill -f whisper-server", "kill"),
    ("git status && git diff --stat", "git"),
    ("npx tsc --noEmit 2>&1 && npx vite build 2>&1", "build"),
    ("bun tsc --noEmit -p apps/web/tsconfig.json 2>&1 | grep consultationId", "typecheck"),
    ("COREPACK_ENABLE_PROJECT_SPEC=0 pnpm build 2>&1 | tail -60", "build"),
    ("just lint 2>&1", "lint"),
    ("make test", "test"),
    ("make -j8", "build"),
    ("npm install -D @types/three", "install"),
    ("npm publish", "package"),
    ("python -m pytest -q tests/", "test"),
    ("python3 -m mypy src", "typecheck"),
    ("python export_codex_session.py -l 019a -o prompt_history.md", "run"),
    ("$r = Invoke-WebRequest -Uri http://localhost:8882/ -UseBasicParsing", "http"),
    ("Get-Command php -ErrorAction SilentlyContinue; where.exe php 2>$null", "search"),
    ('"C:/Program Files/Git/bin/bash.exe" -c "cd /c/dev/x && npx vitest run"', "test"),
    ("kubectl apply -f deploy.yaml", "deploy"),
    ("docker push registry/app:1.2", "deploy"),
    ("spl-token --help | sed -n '1,180p'", "search"),
    ("frobnicate --now", "other"),
    # docker run: what runs in the container (here an install, then the tests)
    ('docker run --rm -v "c:/Users/vassa/Documents/dev/will-it-rain:/app" -w /app '
     'node:20-alpine sh -c "npm install && npx vitest run --reporter=verbose"', "install"),
    ("docker run --rm node:20 npx vitest run", "test"),
    ("docker run --rm alpine", "run"),
])
def test_coding_session_commands(text, category):
    assert parse_command(text).category == category
