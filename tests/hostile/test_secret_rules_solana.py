"""The kinds round 10 found shown (safe10): a Solana secret key printed in base58 with no
cue word, a base58 key after its cue, a BIP-39 phrase with no cue word (its checksum
holds), a Jupiter API key quoted in prose, a Stellar secret seed (``S…``) in a summary.  And what must stay shown in Solana
sessions, which are full of base58: public keys, transaction signatures (64 bytes, like
a keypair), program ids, block hashes; token contract addresses; English prose made of
words of the BIP-39 list.

Every value is made up (derived at import time from a seeded generator).  The rows that
find them carry examples that :mod:`tests.hostile.test_secret_rules` walks."""

from __future__ import annotations

import json
import random

import pytest

from logparse.secrets import (
    b58decode,
    b58encode,
    bip39_checksum_ok,
    bip39_phrase,
    find_secrets,
    may_hold_secret,
    redact_text,
    rules,
)
from tests.secret_builders import bad_checksum, keypair58, solana_key

_RNG = random.Random(10)
_KEY = solana_key(_RNG)
SEED = _KEY.private_bytes_raw()
PUB = _KEY.public_key().public_bytes_raw()
KEYPAIR58 = keypair58(_KEY)
SEED58 = b58encode(SEED)
PUB58 = b58encode(PUB)
# a transaction's signature: 64 bytes in base58 too, but no seed and its public key
SIGNATURE58 = b58encode(_KEY.sign(b"transfer 1 SOL to " + PUB))
BLOCKHASH58 = b58encode(_RNG.randbytes(32))
NOT_A_PAIR58 = b58encode(_RNG.randbytes(64))
PHRASE12 = bip39_phrase(_RNG.randbytes(16))
PHRASE24 = bip39_phrase(_RNG.randbytes(32))


def _strkey(version: int, payload: bytes) -> str:
    """A Stellar StrKey: version byte, payload, CRC16-XModem (little-endian), base32."""
    import base64

    data = bytes([version]) + payload
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return base64.b32encode(data + crc.to_bytes(2, "little")).decode()


STELLAR_SEED = _strkey(18 << 3, SEED)  # `S…`: a secret seed
STELLAR_ACCOUNT = _strkey(6 << 3, PUB)  # `G…`: its account (public)
STELLAR_CONTRACT = _strkey(2 << 3, _RNG.randbytes(32))  # `C…`: a contract id (public)


def test_the_encodings_are_the_standards() -> None:
    """Base58 (Bitcoin's alphabet) and BIP-39's checksum, against their published
    vectors."""
    assert b58encode(b"Hello World!") == "2NEpo7TZRRrLZSi2U"
    assert b58decode("2NEpo7TZRRrLZSi2U") == b"Hello World!"
    assert b58decode("11") == b"\0\0" and b58encode(b"\0\0\1") == "112"
    assert b58decode("0OIl") is None
    assert b58decode(KEYPAIR58) == SEED + PUB
    assert bip39_phrase(bytes(16)) == "abandon " * 11 + "about"
    assert bip39_phrase(b"\x7f" * 16) == (
        "legal winner thank year wave sausage worth useful legal winner thank yellow")
    assert bip39_phrase(b"\xff" * 32) == "zoo " * 23 + "vote"
    assert bip39_checksum_ok(PHRASE24.split()) and not bip39_checksum_ok(
        bad_checksum(PHRASE12).split())


FOUND: dict[str, tuple[str, str]] = {
    "keypair alone": (KEYPAIR58, KEYPAIR58),
    "keypair .env": (f"$ cat .env\nRPC_URL=https://api.devnet.solana.com\nWALLET={KEYPAIR58}\n",
                     KEYPAIR58),
    "keypair json config": (f'{{"cluster": "devnet", "payer": "{KEYPAIR58}"}}', KEYPAIR58),
    "keypair prose": (f"I generated a fresh wallet for the bot: {KEYPAIR58}. Fund it first.",
                      KEYPAIR58),
    "keypair python": (f"kp = Keypair.from_base58_string(\"{KEYPAIR58}\")", KEYPAIR58),
    "keypair in a markdown cell": (f"| dev wallet | `{KEYPAIR58}` |", KEYPAIR58),
    "seed after PRIVATE_KEY=": (f"PRIVATE_KEY={SEED58}", SEED58),
    "seed after secretKey": (f'{{"secretKey": "{SEED58}"}}', SEED58),
    "seed after private key:": (f"Private key: {SEED58}", SEED58),
    "64 bytes after --keypair": (f"solana transfer --keypair {NOT_A_PAIR58} 9 1", NOT_A_PAIR58),
    "phrase alone": (PHRASE12, PHRASE12),
    "phrase 24 on a line": (f"ok\n{PHRASE24}\ndone", PHRASE24),
    "phrase after echo": (f'echo "{PHRASE12}" | solana-keygen recover', PHRASE12),
    "phrase as a json list": (json.dumps({"words": PHRASE12.split()}),
                              '", "'.join(PHRASE12.split())),
    "phrase then list words": (f"use\n{PHRASE12}\nthen fund", PHRASE12),
    "stellar seed .env": (f"STELLAR_AGENT_SECRET={STELLAR_SEED}\n", STELLAR_SEED),
    "stellar seed markdown": (f"- **Secret Key**: `{STELLAR_SEED}`", STELLAR_SEED),
    "stellar seed alone": (f"{STELLAR_ACCOUNT}\n{STELLAR_SEED}\n", STELLAR_SEED),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_the_kinds_round_10_found_shown_are_found(name: str) -> None:
    text, secret = FOUND[name]
    assert may_hold_secret(text), "the prefilter must pass the text"
    found = [(f.kind, text[f.start:f.end]) for f in find_secrets(text)]
    assert any(v == secret for _, v in found), found
    assert all(k in ("private-key", "mnemonic") for k, v in found if v == secret), found
    shown = redact_text(text)
    for piece in {secret, secret[:12], secret[-12:]}:
        assert piece not in shown, shown
    # escaped once and twice (a Codex output stored in messages.raw)
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        shown = redact_text(form, depth=2)
        assert secret[:12] not in shown and secret[-12:] not in shown, shown


def test_the_kinds_round_10_are_rows_with_examples() -> None:
    names = {r.name for r in rules()}
    assert {"logkb:base58-keypair", "logkb:base58-key", "logkb:bip39-phrase",
            "logkb:jupiter-key", "logkb:stellar-seed"} <= names, names


TOKEN_MINT = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
SHOWN = [
    f"Signature: {SIGNATURE58}",
    f"solana confirm -v {SIGNATURE58}",
    f'{{"signature": "{SIGNATURE58}", "slot": 312345678, "err": null}}',
    f"tx {SIGNATURE58} confirmed in slot 312345678",
    f"Wrote new keypair to id.json\npubkey: {PUB58}",
    f"Public key: {PUB58}",
    f"keypair: {PUB58}",  # a keypair's name before 32 bytes: its public key
    f"Program Id: {TOKEN_MINT}",
    f"owner: 11111111111111111111111111111111, mint: {TOKEN_MINT}",
    f"Recent blockhash: {BLOCKHASH58}",
    f"{SIGNATURE58} {SIGNATURE58}",
    NOT_A_PAIR58,  # 64 random bytes with no cue: a signature as far as anyone can tell
    # an ERC-20 token's contract address under a `*_TOKEN` name (a real config's shape)
    'MANA_TOKEN       = "0xA1c57f48F0Deb89f569dFbE6E2B7f46D33606fD4"',
    f"- **Public Key**: `{STELLAR_ACCOUNT}`",
    f"Contract ID: {STELLAR_CONTRACT}",
    "S" + STELLAR_SEED[1:-1] + ("A" if STELLAR_SEED[-1] != "A" else "B"),  # bad checksum
    # the phrase with a failing checksum and no cue: 1 in 16 runs of list words pass it
    bad_checksum(PHRASE12),
]


@pytest.mark.parametrize("text", SHOWN)
def test_public_base58_stays_shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


# real prose of non-held-out sessions (the longest runs of list words in them: 5 to 7)
PROSE = [
    "you make sure that when you edit a symbol, the change is either backward-compatible "
    "or you find and update all references as needed.",
    "The `find_referencing_symbols` tool will give you code snippets around the references"
    " as well as symbolic information.",
    "request one that will allow you to fulfill similar requests from the user in the "
    "future without re-requesting escalation.",
    "you assume they want you to make the change or run the tools needed to solve the "
    "problem.",
    "Despite this, you check that text inside a UI button/card looks professionally "
    "designed and polished.",
]


def test_prose_of_list_words_is_no_phrase() -> None:
    for line in PROSE:
        assert find_secrets(line) == [], line
    assert find_secrets("\n".join(PROSE)) == []


def test_the_word_list_itself_is_no_phrase() -> None:
    """An agent prints the BIP-39 list (a word a line, or all on one): 1 in 16 windows
    of 12 words pass the checksum, but no run of 2048 words is a phrase."""
    from importlib.resources import files

    words = files("logparse").joinpath("data/bip39-english.txt").read_text("utf-8")
    assert find_secrets(words) == []
    assert find_secrets(" ".join(words.split())) == []
    assert find_secrets(json.dumps(words.split())) == []


def test_a_bad_checksum_still_needs_its_cue() -> None:
    bad = bad_checksum(PHRASE12)
    assert find_secrets(bad) == []
    text = f"MNEMONIC={bad}"
    assert [text[f.start:f.end] for f in find_secrets(text)] == [bad]


def test_a_line_of_a_keypair_alone_passes_the_prefilter() -> None:
    """The store's cheap first pass (RE2 in DuckDB) hands Python only the texts it
    matches: a keypair or a phrase with nothing else on its line must be one."""
    for text in (KEYPAIR58, f"\n{KEYPAIR58}\n", json.dumps(KEYPAIR58), PHRASE12,
                 json.dumps(f"x\n{PHRASE24}\n"), f"--keypair {NOT_A_PAIR58}"):
        assert may_hold_secret(text), text


JUP = "jup_" + "".join(_RNG.choices("0123456789abcdef", k=64))


@pytest.mark.parametrize("text", [
    f"- Configured Jupiter API key `{JUP}`",
    f"jup config set --api-key {JUP}",
    f"JUPITER_API_KEY={JUP}",
    f'curl -H "x-api-key: {JUP}" http://127.0.0.1:8080/quote',
])
def test_a_jupiter_key_is_found_in_prose_too(text: str) -> None:
    """A Jupiter API key (`jup_` and 64 hex digits) quoted in an agent's summary had no
    cue the rules knew: only its value, found elsewhere in the session, hid it."""
    assert may_hold_secret(text)
    shown = redact_text(text)
    assert JUP[4:20] not in shown and "[redacted:" in shown, shown


def test_long_runs_stay_linear() -> None:
    """A long run of base58 or of list words is read once (no key or phrase in it)."""
    assert find_secrets("5Kb8kLf9zgWQnogidDA76Mz" * 5000) == []
    assert find_secrets("zoo " * 50_000) == []
    assert find_secrets((PHRASE12 + " ") * 2000) == []


HEX = "".join(_RNG.choices("0123456789abcdef", k=64))
TOKEN = "".join(_RNG.choices("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", k=32))
PASSWORD = "Tr0ub4dor" + "&3x!"
MARKDOWN = {  # an agent's summary names a value in bold (the Valdyum-Labs line's shape)
    "private key hex": (f"- **Private Key**: `0x{HEX}`", f"0x{HEX}"),
    "api key": (f"**API Key**: `{TOKEN}`", TOKEN),
    "password": (f"- **Password**: `{PASSWORD}`", PASSWORD),
    "colon inside the bold": (f"**Auth token:** `{TOKEN}`", TOKEN),
    "private key hex, a space": (f"Private Key: {HEX}", HEX),
}


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_a_value_named_in_bold_is_hidden(name: str) -> None:
    """`**Secret Key**: \\`…\\`` in an agent's summary: no rule read a name in bold or
    a value in backquotes, and the value showed wherever it was not found elsewhere."""
    text, secret = MARKDOWN[name]
    assert may_hold_secret(text)
    shown = redact_text(text)
    assert secret not in shown and secret[2:14] not in shown and "[redacted:" in shown, shown


@pytest.mark.parametrize("text", [
    f"- **Public Key**: `{PUB58}`",
    "- **Password**: The password for the admin account you created",
    "| **Password char** | `\\u2022` (bullet) for Chrome |",
    "**API Key**: `OPENWEATHER_API_KEY` (set it in `.env`)",
    "**Key points:** `frontend.js` already does it",
])
def test_bold_names_of_what_is_no_secret_stay(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


@pytest.mark.parametrize("text", [
    f"Use the new wallet: {PHRASE12}.",
    f"the test wallet ({PHRASE12}) is funded",
    f"**{PHRASE24}**",
    f"{PHRASE12}; then fund it",
    json.dumps(f"Import it: {PHRASE12}."),
])
def test_a_phrase_touching_punctuation_is_hidden(text: str) -> None:
    """A phrase with no cue ends a sentence (`… zebra.`) or stands in brackets or in
    Markdown's bold: the pattern allowed it, but the word-run gate read `zebra.` as no
    word of the list, so the phrase was shown."""
    assert may_hold_secret(text)
    shown = redact_text(text)
    assert "[redacted:" in shown, shown
    for phrase in (PHRASE12, PHRASE24):
        assert " ".join(phrase.split()[4:7]) not in shown, shown
