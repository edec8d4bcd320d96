"""Faults a review found in rule set logkb-9 (safe11b): a cue-less BIP-39 phrase written
as wallets show it (numbered, in a grid, a word a line quoted, joined by hyphens) was
shown; so was a literal fallback after code that reads a secret, and a short password a
cut marker follows.

Every value is made up: phrases from a seeded generator's entropy (their checksums
hold), tokens and passwords random."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from logparse.secrets import (
    RULESET,
    bip39_phrase,
    bip39_words,
    find_secrets,
    may_hold_secret,
    redact_text,
)
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import assert_bump_rescans, bad_checksum

_RNG = random.Random(11_02)
P12 = bip39_phrase(_RNG.randbytes(16)).split()
P24 = bip39_phrase(_RNG.randbytes(32)).split()


def _grid(words: list[str], cols: int, pad: str = "   ") -> str:
    """The words in a grid read down each column, as a wallet's backup screen shows."""
    rows = len(words) // cols
    return "\n".join(pad.join(f"{r + rows * c + 1:>2}. {words[r + rows * c]}"
                              for c in range(cols)) for r in range(rows))


def _layouts(words: list[str]) -> dict[str, str]:
    return {
        "numbered inline": " ".join(f"{i}. {w}" for i, w in enumerate(words, 1)),
        "N. a line": "\n".join(f"{i}. {w}" for i, w in enumerate(words, 1)),
        "N) a line": "\n".join(f"{i}) {w}" for i, w in enumerate(words, 1)),
        "grid 3 columns": _grid(words, 3),
        "grid 4 columns": _grid(words, 4, "  "),
        "grid by rows": "\n".join("  ".join(f"{3 * r + c + 1}. {words[3 * r + c]}"
                                            for c in range(3)) for r in range(len(words) // 3)),
        "a word a line": "\n".join(words),
        "a word a line, quoted": "\n".join("> " + w for w in words),
        "a word a line, quoted, no blank": "\n".join(">" + w for w in words),
        "hyphens": "-".join(words),
        # Markdown, as an agent prints them: bold, bullets, code, a table's cells
        "numbered bold": "\n".join(f"{i}. **{w}**" for i, w in enumerate(words, 1)),
        "star bullets": "\n".join(f"* {w}" for w in words),
        "in code marks": " ".join(f"`{w}`" for w in words),
        "table cells": "\n".join(f"| {w} |" for w in words),
        "pipes": " | ".join(words),
    }


CASES = [(f"{name}, {len(w)} words", text, w)
         for w in (P12, P24) for name, text in _layouts(w).items()]


@pytest.mark.parametrize(("name", "text", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_phrase_as_wallets_show_it_is_hidden(name: str, text: str, words: list[str]
                                               ) -> None:
    for form in (text, f"Here you go:\n{text}\nkeep it safe", json.dumps(text)):
        assert may_hold_secret(form), "the prefilter must pass it"
        shown = redact_text(form)
        assert "[redacted:mnemonic]" in shown, shown
        left = [w for w in words if w in shown.replace("Here you go", "").replace(
            "keep it safe", "")]
        assert left == [], (left, shown)
    shown = redact_text(json.dumps(json.dumps(text)), depth=2)
    assert not any(f" {w}" in shown for w in words[1:]), shown


SHOWN = [
    # the same layouts with a checksum that fails: words of the list, no phrase
    *(text for name, text in _layouts(bad_checksum(" ".join(P12)).split()).items()),
    # numbered prose: ordinary words, some not of the list
    "\n".join(f"{i}. {w}" for i, w in enumerate(
        "Install the deps Run the tests Fix the lint Ship the build Tag it".split(), 1)),
    "1. open 2. the 3. door 4. and 5. walk 6. into 7. the 8. room 9. then 10. sit 11. down"
    " 12. slowly",
    "state-of-the-art well-known up-to-date follow-up end-to-end",
]


@pytest.mark.parametrize("text", SHOWN)
def test_lists_that_are_no_phrase_are_shown(text: str) -> None:
    assert find_secrets(text) == [], find_secrets(text)


def test_numbered_lists_of_list_words_pass_only_by_the_checksum() -> None:
    """A numbered list of 12 words of the BIP-39 list is hidden only when its checksum
    holds (1 in 16): the numbers add no ordering to try beyond the one they give."""
    rng = random.Random(7)
    words = sorted(bip39_words())
    hidden = 0
    for _ in range(800):
        pick = rng.sample(words, 12)
        text = "\n".join(f"{i}. {w}" for i, w in enumerate(pick, 1))
        hidden += bool(find_secrets(text))
    assert 20 <= hidden <= 80, hidden  # 50 expected


def test_two_numbered_phrases_in_a_row_are_two() -> None:
    a = "\n".join(f"{i}. {w}" for i, w in enumerate(P12, 1))
    b = _grid(bip39_phrase(_RNG.randbytes(16)).split(), 3)
    found = find_secrets(f"{a}\n\nand the second wallet:\n{b}")
    assert [f.kind for f in found] == ["mnemonic", "mnemonic"], found


# --- a literal fallback after code that reads a secret ------------------------------

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
TOK = "".join(_RNG.choices(_ALNUM, k=28))
PW = "".join(_RNG.choices(_ALNUM, k=9)) + "!#" + "".join(_RNG.choices(_ALNUM, k=3))
GHP = "ghp_" + "".join(_RNG.choices(_ALNUM, k=36))

FALLBACKS = {
    "or after environ.get": (f'password = os.environ.get("X") or "{PW}"', PW),
    "|| after process.env": (f"const dbPassword = process.env.DB_PASS || '{PW}';", PW),
    "?? after a call": (f'let secret = cfg.read("s") ?? "{TOK}"', TOK),
    "or after an index": (f'db_password = settings["DB_PASSWORD"] or "{PW}"', PW),
    "getenv default": (f'token = getenv("T", "{TOK}")', TOK),
    "getenv default, a GitHub token": (f'token = getenv("T", "{GHP}")', GHP),
    "environ.get default=": (f"api_key = os.environ.get('K', default='{TOK}')", TOK),
    "a dict's value": (f'{{"password": os.getenv("PW", "{PW}")}}', PW),
    "decode a literal": (f'secret = decode("{TOK}")', TOK),
    "b64decode a literal": (f"SECRET_KEY = base64.b64decode('{TOK}==')", f"{TOK}=="),
}


@pytest.mark.parametrize("name", sorted(FALLBACKS))
def test_a_literal_fallback_is_hidden_and_the_code_shown(name: str) -> None:
    text, secret = FALLBACKS[name]
    assert may_hold_secret(text)
    shown = redact_text(text)
    assert secret not in shown and "[redacted:" in shown, shown
    code = text.split(secret)[0].rstrip("\"'`")
    assert shown.startswith(code), shown  # the code that reads it stays
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert may_hold_secret(form)
        assert secret not in redact_text(form, depth=2), form


CODE = [
    'const password = data.get("password")',
    'password = os.environ.get("DB_PASSWORD")',
    'password = os.environ.get("DB_PASSWORD", "")',
    'token = os.getenv("TOKEN", "None")',
    'api_key = config.get("section", "api_key")',
    'secret_key = settings["SECRET_KEY"] or "changeme"',
    'key_path = os.environ.get("KEY_PATH", "~/.ssh/id_rsa")',
    'password = getpass("Enter the password: ")',
    'token = os.environ.get("GITHUB_TOKEN") or "${GITHUB_TOKEN}"',
    "password = os.environ.get('PW') or 'admin'",
    'public_key = load("AAAAC3NzaC1lZDI1NTE5AAAAIO")',
    "api_key = load_key2(path)",
    "password = data[...]",
    "password=getpass(...)",
    "api_key = fetch(...)",
]


@pytest.mark.parametrize("text", CODE)
def test_code_with_no_secret_literal_is_shown(text: str) -> None:
    assert find_secrets(text) == [], find_secrets(text)


def test_a_shells_default_for_a_secret_is_hidden() -> None:
    """`${DB_PASSWORD-…}` (no colon) was shown; with a colon the assignment row took the
    default with its `-`; the row hides the default alone."""
    for text, secret in ((f"psql -W ${{DB_PASSWORD-{PW}}}", PW),
                         (f"POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-{PW}}}", PW),
                         (f'export TOKEN="${{GH_TOKEN:={TOK}}}"', TOK)):
        assert may_hold_secret(text)
        assert [text[f.start:f.end] for f in find_secrets(text)] == [secret], text
    for text in ("echo ${HOME:-/root} ${PORT:-8080}", "${DB_PASSWORD:-}",
                 "${JWT_SECRET:-change-me-now}", "${API_KEY:-${FALLBACK_KEY}}"):
        assert find_secrets(text) == [], text


# --- a short password a cut marker follows ------------------------------------------

SHORT = "".join(_RNG.choices(_ALNUM, k=11))


@pytest.mark.parametrize("mark", ["[…]", "(…)", "[...]", "(...)", "[truncated]",
                                  "[… 312 chars cut]", "(truncated)"])
def test_a_value_a_cut_marker_follows_is_a_value(mark: str) -> None:
    for text in (f"DB_PASSWORD={SHORT}{mark}", f"export DB_PASSWORD={SHORT}{mark} && run",
                 f"DB_PASS={SHORT}{mark}"):
        shown = redact_text(text)
        assert SHORT not in shown and mark in shown, shown
        assert SHORT not in redact_text(json.dumps(json.dumps(text)), depth=2)


def test_a_call_with_an_ellipsis_is_still_code() -> None:
    """With blanks around `=`, `f(...)` is a call whose arguments a writer left out."""
    assert find_secrets("password = get_password(...)") == []
    assert find_secrets("password = read(…)") == []


def test_the_ruleset_bump_rescans_at_the_next_ingest(tmp_path: Path) -> None:
    """A knowledge base scanned with logkb-9 (which showed these) is scanned again by the
    next `logkb ingest`; every output hides them, the code stays shown."""
    assert RULESET.startswith("detect-secrets-1.5+logkb-")  # logkb-11 since safe12
    grid = _grid(P12, 3)
    fallback, secret = FALLBACKS["or after environ.get"]
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e11c0de-0000-4000-8000-00000011b002", [
        ("user", "Show me the wallet's backup and the config."),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "node backup.js"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": f"{grid}\n{fallback}\nDB_PASSWORD={SHORT}[…]"}]),
        ("assistant", [{"type": "text", "text": "Done."}])])

    def hidden(shown: str) -> bool:
        return (not any(f"{w}" in shown for w in ("5. " + P12[4], P12[0], secret, SHORT))
                and "os.environ.get" in shown)

    # `DB_PASSWORD=…[…]`: the environment variable's row since safe12 (the same span)
    assert_bump_rescans(tmp_path / "kb.duckdb", src, "detect-secrets-1.5+logkb-9",
                        {"logkb:bip39-phrase", "logkb:code-fallback", "logkb:env-secret"},
                        hidden)
