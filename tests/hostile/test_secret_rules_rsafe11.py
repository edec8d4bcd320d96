"""Faults found in rule set logkb-8 by trying to break it (rsafe11).

Every value is made up (a seeded generator)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from logparse.secrets import b58encode, find_secrets, may_hold_secret, redact_text
from tests.secret_builders import keypair58, solana_key

_RNG = random.Random(1111)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
TOK = "".join(_RNG.choices(_ALNUM, k=32))
_KEY = solana_key(_RNG)
K = keypair58(_KEY)


def _hidden(text: str, secret: str) -> bool:
    return any(text[f.start:f.end] == secret for f in find_secrets(text))


# --- the "code" exception (safe11) showed a token a bracket follows -------------------

TOKEN_THEN_BRACKET = [
    f"export API_KEY={TOK}(",
    f"SECRET_TOKEN={TOK}[truncated]",
    f"auth_token: {TOK}[0]",
    f"const SECRET = {TOK};",
    f"let apiKey = {TOK}",
]


@pytest.mark.parametrize("text", TOKEN_THEN_BRACKET)
def test_a_token_is_no_code_read_because_a_bracket_follows(text: str) -> None:
    """safe11 took a value followed by `(` or `[`, or an identifier after `const`, for
    code that reads a secret; a random token is no name a programmer writes."""
    assert _hidden(text, TOK), find_secrets(text)
    assert TOK not in redact_text(text)


@pytest.mark.parametrize("text", [
    'const password = data.get("password")',
    "const password = req.body.password;",
    "let token = opts?.auth.token",
    'secret_key = settings["SECRET_KEY"]',
    "api_key = load_key2(path)",
])
def test_code_reading_a_secret_is_still_shown(text: str) -> None:
    assert find_secrets(text) == []


# --- a 64-byte secret after a key's cue taken for a signature -------------------------

def _expanded(seed: bytes) -> bytes:
    """An Ed25519 expanded secret key (RFC 8032 5.1.5): the clamped scalar, then the
    prefix; 64 bytes and no keypair."""
    h = bytearray(hashlib.sha512(seed).digest())
    h[0] &= 248
    h[31] &= 127
    h[31] |= 64
    return bytes(h)


def _shown_after_cue(raw: bytes) -> bool:
    value = b58encode(raw)
    # no colon: `secret key: …` is an assignment, hidden whatever it holds
    return not _hidden(f"private key\n{value}", value)


def test_an_expanded_secret_key_is_never_taken_for_a_signature() -> None:
    """Its second half (the prefix) is below the group order 1 time in 16: safe11 showed
    those as a transaction's signature."""
    rng = random.Random(5)
    shown = [i for i in range(400) if _shown_after_cue(_expanded(rng.randbytes(32)))]
    assert shown == []


def test_random_64_bytes_after_a_cue_pass_for_a_signature_rarely() -> None:
    """A random second half is below L = 2**252 + … with odds L / 2**256 = 1/16: safe11
    showed 6 % of random 64-byte secrets named as keys.  R must also be a point of the
    curve (1 in 2): 1 in 32; a real signature always is."""
    rng = random.Random(6)
    n = 2000
    shown = sum(_shown_after_cue(rng.randbytes(64)) for _ in range(n))
    assert shown / n < 0.045, shown / n  # expected 1/32 = 0.031; safe11: 0.0625
    key = solana_key(rng)
    sigs = [key.sign(f"transfer {i}".encode()) for i in range(200)]
    assert sum(_shown_after_cue(s) for s in sigs) >= 180  # 31 in 32 expected


# --- a wrapped keypair the prefilter or the rule did not see ---------------------------

WRAPPED = {
    # a terminal's copy pads each line with blanks
    "trailing blanks": f"{K[:44]}   \n{K[44:]}  \n",
    "a Markdown quote": f"> {K[:44]}\n> {K[44:]}\n",
    "a nested quote": f"> > {K[:44]}\n> > {K[44:]}\n",
    "a shell comment": f"# wallet\n# {K[:44]}\n# {K[44:]}\n",
    "a code comment": f"// {K[:30]}\n// {K[30:60]}\n// {K[60:]}",
    "JSON, the long piece ends a line": json.dumps(f"{K[:80]}\n{K[80:]}"),
    "JSON quote": json.dumps(f"> {K[:44]}\n> {K[44:]}"),
}


@pytest.mark.parametrize("name", sorted(WRAPPED))
def test_a_wrapped_keypair_is_hidden(name: str) -> None:
    text = WRAPPED[name]
    assert may_hold_secret(text), "the prefilter must pass the text"
    shown = redact_text(text, depth=2)
    assert "[redacted:private-key]" in shown, shown
    for piece in (K[:20], K[30:44], K[-20:]):
        assert piece not in shown, shown


def test_a_quoted_wrapped_keys_lines_are_hidden_where_a_title_joins_them() -> None:
    """The known secret spans the quote's marks (`K1\\n> K2`); a title joining the lines
    with a blank shows `K2` alone: it is hidden too."""
    from kb.redact import Redactor

    for secret in (f"{K[:44]}\n> {K[44:]}", f"{K[:44]}  \n# {K[44:]}"):
        shown = Redactor({secret: "private-key"}).text(f"import {K[:44]} {K[44:]} now")
        assert K[:20] not in shown and K[-20:] not in shown, shown
