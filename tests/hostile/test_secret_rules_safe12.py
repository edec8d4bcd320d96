"""Faults the closing note of rule set logkb-10 listed as still shown (safe12): BIP-39
phrases numbered with no dot (``1 word``, ``#1 word``, ``Word 1: x``), joined by ``/``,
``.`` or ``_``, or in a Markdown table whose header cells are list words; secrets
assigned to an environment variable whose name ends in ``PASS`` (and the like) that
detect-secrets' keyword list misses; Solana keypairs wrapped over lines joined by ``-``
or ``\\``, with blank lines between, as Python string concatenation, in table cells or
narrower than 29 characters a line.  And one thing hidden that was no secret: a base64
dump wrapped at 76 columns (an image) was hidden as a PEM key's body.

Every value is made up: phrases from a seeded generator's entropy (their checksums
hold), keys from seeded bytes, passwords random."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest

from logparse.secrets import (
    RULESET,
    b58encode,
    bip39_phrase,
    find_secrets,
    may_hold_secret,
    redact_text,
)
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import assert_bump_rescans, bad_checksum, keypair58, solana_key

_RNG = random.Random(12_12)
P12 = bip39_phrase(_RNG.randbytes(16)).split()
P24 = bip39_phrase(_RNG.randbytes(32)).split()


def _table(words: list[str], header: str, row: str) -> str:
    cols = header.count("|") - 1
    sep = "|" + "---|" * cols
    body = [row.format(i=i, w=w) for i, w in enumerate(words, 1)]
    return "\n".join([header, sep, *body])


def _two_columns(words: list[str]) -> str:
    rows = [f"| {a} | {b} |" for a, b in zip(words[::2], words[1::2])]
    return "\n".join(["| Word | Word |", "|------|------|", *rows])


def _layouts(words: list[str]) -> dict[str, str]:
    return {
        "1 word a line": "\n".join(f"{i} {w}" for i, w in enumerate(words, 1)),
        "1 word inline": " ".join(f"{i} {w}" for i, w in enumerate(words, 1)),
        "#1 word a line": "\n".join(f"#{i} {w}" for i, w in enumerate(words, 1)),
        "#1 word inline": " ".join(f"#{i} {w}" for i, w in enumerate(words, 1)),
        "Word 1: x": "\n".join(f"Word {i}: {w}" for i, w in enumerate(words, 1)),
        "word #1: x": "\n".join(f"word #{i}: {w}" for i, w in enumerate(words, 1)),
        "Mot 1: x (no list word)": "\n".join(f"Mot {i}: {w}" for i, w in enumerate(words, 1)),
        "01 word": "\n".join(f"{i:02d} {w}" for i, w in enumerate(words, 1)),
        "slashes": "/".join(words),
        "dots": ".".join(words),
        "underscores": "_".join(words),
        "spaced slashes": " / ".join(words),
        "table, header a list word": _table(words, "| Word |", "| {w} |"),
        "table, # and Word": _table(words, "| # | Word |", "| {i} | {w} |"),
        "table, two columns of words": _two_columns(words),
        "table, Seed word header": _table(words, "| Seed | Word |", "| {i} | {w} |"),
    }


CASES = [(f"{name}, {len(w)} words", text, w)
         for w in (P12, P24) for name, text in _layouts(w).items()]


@pytest.mark.parametrize(("name", "text", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_phrase_written_so_is_hidden(name: str, text: str, words: list[str]) -> None:
    for form in (text, f"Here you go:\n{text}\nkeep it safe", json.dumps(text)):
        assert may_hold_secret(form), "the prefilter must pass it"
        shown = redact_text(form)
        assert "[redacted:mnemonic]" in shown, shown
        rest = shown.replace("Here you go", "").replace("keep it safe", "")
        left = [w for w in words if w in rest]
        assert left == [], (left, shown)
    shown = redact_text(json.dumps(json.dumps(text)), depth=2)
    assert not any(w in shown for w in words), shown


NOT_PHRASES = [
    # the same layouts with a checksum that fails: words of the list, no phrase
    *(text for text in _layouts(bad_checksum(" ".join(P12)).split()).values()),
    # paths, dotted names, identifiers, numbered prose
    "/usr/local/share/doc/python3/examples/demo/index/main/core/test/file/case",
    "app.core.model.user.account.balance.history.query.index.cache.store.build",
    "fetch_user_account_balance_history_from_remote_cache_with_retry_and_backoff",
    "1 open 2 the 3 door 4 and 5 walk 6 into 7 the 8 room 9 then 10 sit 11 down 12 slowly",
    "Step 1: build the image\nStep 2: push it\nStep 3: deploy\nStep 4: check the logs",
]


@pytest.mark.parametrize("text", NOT_PHRASES)
def test_lists_that_are_no_phrase_are_shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


def test_a_phrase_after_a_cue_and_a_header_word_is_hidden_whole() -> None:
    """With a cue the phrase's rule takes the words after it; a header word in a list
    of 13 (`Word`, then the phrase) must not leave the phrase's last word shown."""
    for text in ("Seed phrase:\n" + _table(P12, "| Word |", "| {w} |"),
                 "Seed phrase:\nWord\n" + "\n".join(P12)):
        shown = redact_text(text)
        assert not [w for w in P12 if w in shown], shown


# --- a secret assigned to a variable whose name ends in PASS, SECRET, TOKEN, KEY -------

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PW = "".join(_RNG.choices(_ALNUM, k=9)) + "!" + "".join(_RNG.choices(_ALNUM, k=3))
WORDPW = "hunter"  # a weak password: letters only, short
SHORT_TOK = "".join(_RNG.choices(_ALNUM, k=9)) + "7"  # too short for the entropy test

ENV = {
    "ADMIN_PASS=": (f"ADMIN_PASS={PW}", PW),
    "export SMTP_PASS": (f"export SMTP_PASS='{PW}'", PW),
    "docker -e": (f"docker run -e MYSQL_ROOT_PASS={PW} mysql:8", PW),
    "YAML env": (f"environment:\n  RABBITMQ_DEFAULT_PASS: {PW}\n  X: 1", PW),
    "JSON env": (f'{{"REDIS_PASS": "{PW}"}}', PW),
    "a weak word": (f"ADMIN_PASS={WORDPW}", WORDPW),
    "a weak word, PASSWORD": (f"DB_PASSWORD={WORDPW}", WORDPW),
    "PWD": (f"FTP_PWD={PW}", PW),
    "PASSWD": (f"ROOT_PASSWD={WORDPW}", WORDPW),
    "SECRET": (f"APP_SECRET={WORDPW}", WORDPW),
    "TOKEN, short": (f"ADMIN_TOKEN={SHORT_TOK}", SHORT_TOK),
    "KEY, short": (f"MASTER_KEY={SHORT_TOK}", SHORT_TOK),
    "PASSPHRASE": (f"GPG_PASSPHRASE={PW}", PW),
}


@pytest.mark.parametrize("name", sorted(ENV))
def test_a_secret_assigned_to_a_secret_variable_is_hidden(name: str) -> None:
    text, secret = ENV[name]
    assert may_hold_secret(text)
    shown = redact_text(text)
    assert secret not in shown and "[redacted:" in shown, shown
    name_part = text.split(secret)[0].rstrip("\"'")
    assert shown.startswith(name_part), shown  # the variable's name stays
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert secret not in redact_text(form, depth=2), form


ENV_SHOWN = [
    "ADMIN_PASS=$ADMIN_PASS", "ADMIN_PASS=${ADMIN_PASS}", "ADMIN_PASS=<your-password>",
    "ADMIN_PASS=<placeholder>", "ADMIN_PASS=changeme", "ADMIN_PASS=", 'ADMIN_PASS=""',
    "ADMIN_PASS=xxxxxxxx", "ADMIN_PASS=***", "ADMIN_PASS=...", "SMTP_PASS=%SMTP_PASS%",
    "ADMIN_PASS=true", "ADMIN_PASS: ${{ secrets.ADMIN_PASS }}",
    # test runners' counts and names, limits, identifiers, paths, public keys
    "PASS: test_login\nFAIL: test_logout", "PASS=12 FAIL=0", "ALLOW_PASS=1",
    "MAX_TOKENS=4096", "SORT_KEY=created_at", "PARTITION_KEY=tenant_id",
    "CACHE_KEY=users", "SSH_KEY=~/.ssh/id_ed25519", "TLS_KEY=/etc/ssl/private/site.key",
    "PUBLIC_KEY=abc123XYZ789", "NEXT_PUBLIC_SUPABASE_KEY=anon",
    "PRIMARY_KEY=id", "API_KEY=os.environ['API_KEY']", "TOKEN_KEY=TOKEN_2022_PROGRAM_ID",
]


@pytest.mark.parametrize("text", ENV_SHOWN)
def test_no_secret_assigned_is_shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


# --- Solana keypairs wrapped in more ways -------------------------------------------

_KEY = solana_key(_RNG)
KP = keypair58(_KEY)
SIG = b58encode(_KEY.sign(b"transfer 12"))


def _cut(s: str, n: int) -> list[str]:
    return [s[i:i + n] for i in range(0, len(s), n)]


def _wraps(k: str) -> dict[str, str]:
    return {
        "hyphens": "-\n".join(_cut(k, 44)),
        "backslashes": "\\\n".join(_cut(k, 30)),
        "backslashes, indented": "solana-keygen recover \\\n  " + "\\\n  ".join(_cut(k, 30)),
        "a blank line between": "\n\n".join(_cut(k, 44)),
        "Python concatenation": "KEY = (\n" + "\n".join(f'    "{p}"' for p in _cut(k, 30))
                                + "\n)",
        "Python concatenation, +": "KEY = " + " +\n".join(f'"{p}"' for p in _cut(k, 44)),
        "JS concatenation": "const k =\n" + " +\n".join(f"  '{p}'" for p in _cut(k, 30)) + ";",
        "table cells": "| piece |\n|---|\n" + "\n".join(f"| {p} |" for p in _cut(k, 30)),
        "22 a line": "\n".join(_cut(k, 22)),
        "16 a line": "\n".join(_cut(k, 16)),
        "10 a line": "\n".join(_cut(k, 10)),
        "16 a line, quoted": "\n".join("> " + p for p in _cut(k, 16)),
    }


WRAPS = sorted(_wraps(KP).items())


@pytest.mark.parametrize(("name", "text"), WRAPS, ids=[w[0] for w in WRAPS])
def test_a_keypair_wrapped_so_is_hidden(name: str, text: str) -> None:
    pieces = [p for p in _cut(KP, 10) if len(p) == 10]
    for form in (text, f"the key:\n{text}\ndone", json.dumps(text)):
        assert may_hold_secret(form), "the prefilter must pass it"
        shown = redact_text(form)
        assert "[redacted:private-key]" in shown, shown
        assert not [p for p in pieces if p in shown], shown
    shown = redact_text(json.dumps(json.dumps(text)), depth=2)
    assert not [p for p in pieces if p in shown], shown


@pytest.mark.parametrize("name", sorted(_wraps(SIG)))
def test_a_signature_wrapped_so_is_shown(name: str) -> None:
    text = _wraps(SIG)[name].replace("KEY = ", "sig = ")  # not a key's name
    assert find_secrets(text) == [], find_secrets(text)


# --- a base64 dump is no PEM key ----------------------------------------------------

_BLOB = _RNG.randbytes(900)
DUMP76 = base64.encodebytes(_BLOB).decode()  # 76 columns, as `base64` writes
DUMP64 = "\n".join(_cut(base64.b64encode(_BLOB).decode(), 64))  # as `openssl base64`


DUMPS = {"base64": f"$ base64 logo.png\n{DUMP76}",
         "openssl base64": f"$ openssl base64 -in logo.png\n{DUMP64}",
         "MIME": f"Content-Type: image/png\nContent-Transfer-Encoding: base64\n\n{DUMP76}",
         "76 alone": DUMP76, "64 alone": DUMP64}


@pytest.mark.parametrize("text", list(DUMPS.values()), ids=list(DUMPS))
def test_a_base64_dump_is_shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end][:20])
                                      for f in find_secrets(text)]


_DER = base64.b64encode(bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7")
                        + _RNG.randbytes(120)).decode()
"""The head of a PKCS#8 private key's body (a SEQUENCE, version 0, rsaEncryption)."""


@pytest.mark.parametrize(("text", "lines"), [
    # after a secret's cue, in a PEM block cut short, with its END line only
    (f"the private key:\n{DUMP64}", _cut(DUMP64.replace(chr(10), ''), 64)[:-1]),
    (f"cat ~/.ssh/id_rsa | sed -n 2,9p\n{DUMP64}", _cut(DUMP64.replace(chr(10), ''), 64)[:-1]),
    (f"{DUMP64}\n-----END PRIVATE KEY-----", _cut(DUMP64.replace(chr(10), ''), 64)[:-1]),
    # a body's first line tells a private key by its structure, no cue needed
    ("\n".join(_cut(_DER, 64)) + "\n", _cut(_DER, 64)[:2]),
])
def test_a_key_body_is_hidden(text: str, lines: list[str]) -> None:
    shown = redact_text(text)
    assert not [ln for ln in lines if ln in shown], shown


# --- linear ------------------------------------------------------------------------

@pytest.mark.parametrize("unit", [
    "1 zoo ", "#1 zoo ", "Word 1: zoo\n", "zoo/", "zoo.", "zoo_", "| 1 | zoo |\n",
    "1234567890", "ADMIN_PASS=x ", "5Kb8kLf9zg\n", "5Kb8kLf9zgWQnogidDA76Mz-\n",
    '"5Kb8kLf9zg" +\n', "| 5Kb8kLf9zg |\n", "QUJD" * 19 + "\n", " ".join(P12) + " 1 ",
])
def test_the_finder_reads_long_hostile_text_in_linear_time(unit: str) -> None:
    """The finder, not its patterns alone (those: ``test_linear_time``), on 100k
    characters of each new shape repeated; a quadratic step costs minutes here."""
    import time

    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    t0 = time.process_time()
    may_hold_secret(text)
    find_secrets(text, depth=2)
    assert time.process_time() - t0 < 20


# --- the bump rescans ----------------------------------------------------------------

def test_the_ruleset_bump_rescans_at_the_next_ingest(tmp_path: Path) -> None:
    """A knowledge base scanned with logkb-10 (which showed these) is scanned again by the
    next `logkb ingest`; every output hides them, a base64 dump stays shown."""
    assert RULESET.startswith("detect-secrets-1.5+logkb-")  # logkb-12 since safe13
    table = _layouts(P12)["table, # and Word"]
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e11c0de-0000-4000-8000-000000012a01", [
        ("user", "Show me the wallet's backup and the config."),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "node backup.js"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": f"{table}\nADMIN_PASS={PW}\n{_wraps(KP)['16 a line']}\n"}]),
        ("assistant", [{"type": "tool_use", "id": "toolu_2", "name": "Bash",
                        "input": {"command": "base64 logo.png"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_2", "content": DUMP76}]),
        ("assistant", [{"type": "text", "text": "Done."}])])
    line76 = DUMP76.split("\n")[3]

    def hidden(shown: str) -> bool:
        return (not any(w in shown for w in (P12[0], P12[-1], PW, KP[16:32]))
                and line76 in shown and "ADMIN_PASS=" in shown)

    assert_bump_rescans(tmp_path / "kb.duckdb", src, "detect-secrets-1.5+logkb-10",
                        {"logkb:bip39-phrase", "logkb:env-secret",
                         "logkb:base58-keypair-wrapped"}, hidden)
