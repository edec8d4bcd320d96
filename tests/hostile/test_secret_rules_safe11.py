"""The faults round 10 left (safe11): a cue-less BIP-39 phrase in capitals or Title
Case and a base58 Solana keypair wrapped over lines were shown; a transaction signature
after a keypair's cue and code reading a password from a variable were hidden.  And the
rule set's bump makes the next ingest scan stored text again.

Every value is made up (a seeded generator)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.redact import Redactor
from kb.store import KbStore
from logparse.secrets import (
    RULESET,
    b58encode,
    bip39_phrase,
    find_secrets,
    may_hold_secret,
    redact_text,
    rules,
)
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import bad_checksum, keypair58, solana_key

_RNG = random.Random(1101)
_KEY = solana_key(_RNG)
KEYPAIR58 = keypair58(_KEY)
SIGS = [b58encode(_KEY.sign(f"transfer {i}".encode())) for i in range(3)]
PHRASE12 = bip39_phrase(_RNG.randbytes(16))
PHRASE24 = bip39_phrase(_RNG.randbytes(32))
K = KEYPAIR58

HIDDEN: dict[str, tuple[str, str]] = {
    "phrase in capitals": (f"{PHRASE12.upper()}\n", PHRASE12.upper()),
    "phrase in Title Case": (f"Backup: {PHRASE24.title()}.", PHRASE24.title()),
    "phrase capitals, a word a line": ("\n".join(PHRASE12.upper().split()),
                                       "\n".join(PHRASE12.upper().split())),
    "phrase capitals, JSON list": (json.dumps(PHRASE12.upper().split()),
                                   '", "'.join(PHRASE12.upper().split())),
    "keypair over two lines": (f"WALLET={K[:50]}\n{K[50:]}\n", f"{K[:50]}\n{K[50:]}"),
    "keypair over three lines": (f"key:\n  {K[:30]}\n  {K[30:60]}\n  {K[60:]}\nok",
                                 f"{K[:30]}\n  {K[30:60]}\n  {K[60:]}"),
    "keypair over lines, CRLF": (f"{K[:44]}\r\n{K[44:]}\r\n", f"{K[:44]}\r\n{K[44:]}"),
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_what_round_10_showed_is_hidden(name: str) -> None:
    text, secret = HIDDEN[name]
    assert may_hold_secret(text), "the prefilter must pass the text"
    found = [text[f.start:f.end] for f in find_secrets(text)]
    assert secret in found, found
    shown = redact_text(text)
    pieces = [p for p in secret.replace("\r", "").replace(", ", "\n").split("\n") if p.strip()]
    for piece in pieces if len(pieces) > 1 else [secret[:20], secret[-20:]]:
        assert piece.strip(' "[]') not in shown, shown
    # escaped once and twice (a Codex output stored in messages.raw)
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        shown = redact_text(form, depth=2)
        assert "[redacted:" in shown and secret.split()[0][:12] not in shown, shown


SHOWN = [
    f"Using keypair\n{SIGS[0]}\n{SIGS[1]}",
    f"keypair\n{SIGS[0]}",
    f"secret key {SIGS[1]}",
    f"private key\n{SIGS[2]}",
    'const password = data.get("password")',
    "password = data.get('password')",
    "const password = req.body.password;",
    "let token = opts?.auth.token",
    'secret_key = settings["SECRET_KEY"]',
    # a phrase-like run in capitals with a failing checksum, and a heading in Title Case
    bad_checksum(PHRASE12).upper(),
    "Please Review The Attached Draft Before Friday And Send Your Notes Back To Me",
    f"{K[:40]}\n{K[44:]}",  # two lines of a keypair with 4 characters lost: no keypair
]


@pytest.mark.parametrize("text", SHOWN)
def test_what_round_10_hid_is_shown(text: str) -> None:
    found = [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]
    assert found == [], found


def test_the_keypair_cue_still_hides_a_key_and_shows_what_follows() -> None:
    text = f"keypair: {KEYPAIR58}\nSignature: {SIGS[0]}\n{SIGS[1]}"
    shown = redact_text(text)
    assert KEYPAIR58[:20] not in shown and SIGS[0] in shown and SIGS[1] in shown, shown
    raw = bytes(range(7, 71))  # 64 bytes after --keypair, no signature (S above L)
    text = f"solana transfer --keypair {b58encode(raw)} 9 1"
    assert b58encode(raw) not in redact_text(text)


def test_the_new_kinds_are_rows_with_examples() -> None:
    names = {r.name for r in rules()}
    assert {"logkb:base58-keypair-wrapped", "logkb:npm-token"} <= names
    phrase = next(r for r in rules() if r.name == "logkb:bip39-phrase")
    assert any(ex[1].isupper() for ex in phrase.more) and any(
        ex[1].istitle() for ex in phrase.more)


def test_a_wrapped_keys_lines_are_hidden_where_a_title_joins_them() -> None:
    """A description or a title joins a wrapped keypair's lines with a blank: each line
    of the known secret is hidden where it stands alone."""
    r = Redactor({f"{K[:50]}\n{K[50:]}": "private-key"})
    shown = r.text(f"Run WALLET={K[:50]} {K[50:60]}")
    assert K[:50] not in shown and "[redacted:private-key]" in shown, shown
    # a multi-line secret's lines with blanks (a PEM header) stay elsewhere
    pem = "-----BEGIN EC PRIVATE KEY-----\n" + "Ab3" * 22 + "\n-----END EC PRIVATE KEY-----"
    r = Redactor({pem: "private-key"})
    assert r.text("-----BEGIN EC PRIVATE KEY-----") == "-----BEGIN EC PRIVATE KEY-----"


def test_the_ruleset_bump_rescans_at_the_next_ingest(tmp_path: Path) -> None:
    """A knowledge base scanned with logkb-7 (which missed these kinds and hid the
    signature) is scanned again by the next `logkb ingest`, even with no new input; until
    then the finder runs on every text handed out."""
    assert RULESET.startswith("detect-secrets-1.5+logkb-")  # logkb-10 since safe11b
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e11c0de-0000-4000-8000-000000001101", [
        ("user", "Back up the bot's wallet."),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "node backup.js"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": f"{PHRASE12.upper()}\nWALLET={K[:50]}\n{K[50:]}\n"
                              f"keypair\n{SIGS[0]}"}]),
        ("assistant", [{"type": "text", "text": "Backed up."}])])
    db = tmp_path / "kb.duckdb"

    def run(*args: str) -> str:
        r = CliRunner().invoke(cli, [*args, "--db", str(db)], catch_exceptions=False)
        assert r.exit_code in (0, 4), r.output
        return r.stdout

    run("ingest", str(src))
    with KbStore(db) as store:
        found = store.conn.execute("SELECT rule FROM secrets ORDER BY 1").fetchall()
        assert {r for r, in found} == {"logkb:bip39-phrase", "logkb:base58-keypair-wrapped"}
        # as logkb-7 left it: these not found, the signature taken for a key
        store.conn.execute("DELETE FROM secrets")
        store.conn.execute("UPDATE secret_scans SET ruleset = 'detect-secrets-1.5+logkb-7'")
    shown = run("events", "--json")  # meanwhile: the finder runs on what is shown
    assert K[:20] not in shown and PHRASE12.upper()[:20] not in shown and SIGS[0] in shown
    run("ingest", str(src))  # nothing new to read: the backfill scans the session again
    with KbStore(db, read_only=True) as store:
        again = store.conn.execute("SELECT rule FROM secrets ORDER BY 1").fetchall()
        rulesets = store.conn.execute("SELECT DISTINCT ruleset FROM secret_scans").fetchall()
    assert again == found and rulesets == [(RULESET,)]
    shown = run("events", "--json")
    assert K[:20] not in shown and PHRASE12.upper()[:20] not in shown and SIGS[0] in shown


NPM = "npm_" + "".join(_RNG.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                                    k=36))


def test_an_npm_token_in_json_ends_where_the_token_does() -> None:
    """detect-secrets' `_authToken=(npm_.+)` ran to the line's end: in a call's JSON
    input, over quotes and braces, and `export --include-raw` failed to parse the raw
    message it had redacted.  A bare `npm_` token had no rule at all."""
    from logparse.secrets import _find

    text = json.dumps({"command": f"//registry.npmjs.org/:_authToken={NPM}\nnpm whoami",
                       "description": "set the token"})
    theirs = [r for r in rules() if r.name == "NpmDetector"]
    assert [text[f.start:f.end] for f in _find(text, theirs)] == [NPM]
    shown = json.loads(redact_text(text))
    assert shown["command"].endswith("[redacted:npm-token]\nnpm whoami"), shown
    for bare in (f"NPM_TOKEN: {NPM}", f"npm token: {NPM[:24]}"):  # whole, or cut short
        assert "[redacted:npm-token]" in redact_text(bare) and NPM[4:20] not in redact_text(
            bare), bare
    assert find_secrets("npm_config_cache=/tmp/x npm_package_version=1.2.3") == []
