"""Faults rule set logkb-14 still showed or hid wrongly (prose14).

Shown: a password said in prose or typed after a program's prompt (``my password is
…``, ``the password is: …``, ``Password for user admin: …``, ``use password … to log
in``, ``pw: …``, ``passphrase "…"``, ``WITH PASSWORD '…'``).  Hidden wrongly: a map's
key assigned structured text (``cacheKey = "user:1234:profile"``).  Prose about a
password (``the password is wrong``, ``password is required``) stays shown.

Every value is made up at run time (random letters, digits and symbols)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from logparse.secrets import find_secrets, may_hold_secret, redact_text
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import assert_bump_rescans

_RNG = random.Random(14_015)
_UP, _LOW, _DIG, _SYM = "ABCDEFGHJKLMNPQRSTUVWXYZ", "abcdefghijkmnopqrstuvwxyz", "23456789", "!#&%@"


def _made_up(n: int = 10, sym: bool = False) -> str:
    """A password of ``n`` characters: a capital, a small letter, a digit (and a symbol),
    the rest any of them, shuffled."""
    chars = [_RNG.choice(_UP), _RNG.choice(_LOW), _RNG.choice(_DIG)]
    chars += [_RNG.choice(_SYM)] if sym else []
    chars += _RNG.choices(_UP + _LOW + _DIG, k=n - len(chars))
    _RNG.shuffle(chars)
    return "".join(chars)


PW = _made_up()
SYM = _made_up(9, sym=True)
WEAK = "hunter" + "".join(_RNG.choices(_DIG, k=2)) + "x"
PHRASE = " ".join(_RNG.choice(("velvet", "orbit", "canyon", "humble", "ladder")) for _ in range(4))


def _hidden(text: str, secret: str) -> None:
    assert may_hold_secret(text), "the prefilter must pass it"
    shown = redact_text(text)
    assert secret not in shown and "[redacted:password]" in shown, shown
    # the value only: the sentence around it stays
    assert shown.replace("[redacted:password]", secret) == text, shown
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert secret not in redact_text(form, depth=2), form


def _shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


PROSE = {
    "my password is": (f"ok, my password is {WEAK} for the box", WEAK),
    "is, a sentence's end": (f"The root password was {PW}.", PW),
    "is:": (f"the password is: {SYM}", SYM),
    "a prompt: Password for user": (f"Password for user admin: {SYM}\n", SYM),
    "sudo's prompt": (f"[sudo] password for alice: {PW}", PW),
    "Enter passphrase for key": (f"Enter passphrase for key '/home/me/.ssh/id': {PW}", PW),
    "use password … to log in": (f"use password {SYM} to log in", SYM),
    "log in with password": (f"Log in as admin with password {PW} and then", PW),
    "pw:": (f"user: admin, pw: {SYM}", SYM),
    "passphrase in quotes": (f'gpg asked, I typed passphrase "{PHRASE}"', PHRASE),
    "quoted after is": (f"the password is 'hunter{_RNG.randint(10, 99)}'", ""),
    "SQL WITH PASSWORD": (f"ALTER USER app WITH PASSWORD '{SYM}';", SYM),
    "set to": (f"I reset the admin password to {PW} on staging", PW),
    "password for the db is": (f"the password for the db is `{PW}`", PW),
    "digits": ("my password is " + "".join(_RNG.choices(_DIG, k=8)), ""),
    "Password (again):": (f"Password (again): {PW}", PW),
    "passcode": (f"the passcode is {PW}", PW),
}


@pytest.mark.parametrize("name", sorted(PROSE))
def test_a_password_said_in_prose_or_after_a_prompt_is_hidden(name: str) -> None:
    text, secret = PROSE[name]
    if not secret:  # the value is the text's last word (its quotes taken off)
        secret = text.rsplit(" ", 1)[1].strip("'")
    _hidden(text, secret)


PROSE_SHOWN = [
    "the password is wrong", "password is required", "password is stored in vault",
    "my password is the same as before", "reset the password is done",
    "The password is wrong!", "password is sha256-hashed before it is stored",
    "the password is base64-encoded", "password is 256-bit", "the password is: TBD",
    "password for the db is stored in the vault", "Password for user admin:",
    "[sudo] password for alice: \nSorry, try again.", "password isolation level",
    "the password is `user.password`", "password is $DB_PASSWORD",
    "the password is <your-password>", "password is ********", "password is None",
    "use password authentication", "with password hashing enabled",
    "the password is in .env", "password is 1234", "reset your password to continue",
    # safe15: "password: hunter" is hidden now (a weak word after an explicit `:`,
    # tests/hostile/test_secret_rules_safe15.py)
    "the password field is empty", "sudo passwd deploy2",
    "password is user_password_v2", "Password is 8+ characters", "pw: /srv/app",
    "the password is admin@example.com", "password (optional): leave empty",
]


@pytest.mark.parametrize("text", PROSE_SHOWN)
def test_prose_about_a_password_is_shown(text: str) -> None:
    _shown(text)


def test_a_map_key_with_structured_text_is_shown_a_credential_key_hidden() -> None:
    for text in ('cacheKey = "user:1234:profile"', "cache_key: 'orders/42/items'",
                 'redisKey = "session:9876:data"', 'key = "tenant:12:user:7"'):
        _shown(text)
    # a credential's key name keeps its value hidden, structured or not
    _hidden_any('apiKey = "user:1234:profile"', "user:1234:profile")
    token = _made_up(24)
    _hidden_any(f'cacheKey = "{token}"', token)


def _hidden_any(text: str, secret: str) -> None:
    shown = redact_text(text)
    assert secret not in shown and "[redacted:" in shown, shown


def test_ingest_finds_prose_and_a_bump_rescans(tmp_path: Path) -> None:
    """A session whose prose holds a password: found by ``logkb:prose-password`` at
    ingest; a knowledge base left by logkb-14 hides it all the same and is scanned
    again at the next ingest."""
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e14c0de-0000-4000-8000-000000015a01", [
        ("user", f"Log in to staging, my password is {WEAK}."),
        ("assistant", [{"type": "text", "text": f"Logged in; Password for user admin: {SYM}"}])])

    def hidden(shown: str) -> bool:
        return WEAK not in shown and SYM not in shown and "[redacted:" in shown

    assert_bump_rescans(tmp_path / "kb.duckdb", src, "detect-secrets-1.5+logkb-14",
                        {"logkb:prose-password"}, hidden)
