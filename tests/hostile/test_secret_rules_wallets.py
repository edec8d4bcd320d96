"""The kinds round 9 found shown (safe9): ``aws configure set`` keys, a Solana/Ethereum
keypair printed as a JSON byte array, BIP-39 mnemonic phrases, ``0x`` hex private keys.

Every value is made up (built from pieces at import time).  The rows that find them
carry examples that :mod:`tests.hostile.test_secret_rules` walks; this file holds the
kinds as a user meets them, the forms around them and the look-alikes that must stay."""

from __future__ import annotations

import json
import random

import pytest

from logparse.secrets import bip39_words, find_secrets, may_hold_secret, redact_text, rules

_RNG = random.Random(9)
AWS_SECRET = "".join(_RNG.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+",
                                  k=40))
AWS_ID = "ZK3" + "MP9QR2VX7TL4WN8BH"
AWS_SESSION = "IQoJb3JpZ2luX2Vj" + "".join(_RNG.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789/+", k=120))
KEYPAIR = [_RNG.randrange(256) for _ in range(64)]
HEX = "".join(_RNG.choices("0123456789abcdef", k=64))
WORDS = sorted(bip39_words())
PHRASE12 = " ".join(_RNG.choices(WORDS, k=12))
PHRASE24 = " ".join(_RNG.choices(WORDS, k=24))

_SPLIT = PHRASE24.split(" ")  # a terminal wrapped the phrase: 11 words, then 13
_W1, _W2 = " ".join(_SPLIT[:11]), " ".join(_SPLIT[11:])
ARRAY = "[" + ",".join(map(str, KEYPAIR)) + "]"
ARRAY_SPACED = "[" + ", ".join(map(str, KEYPAIR)) + "]"
ARRAY_LINES = "[\n  " + ",\n  ".join(map(str, KEYPAIR)) + "\n]"

FOUND: dict[str, tuple[str, str]] = {
    "aws configure secret": (f"aws configure set aws_secret_access_key {AWS_SECRET}",
                             AWS_SECRET),
    "aws configure id": (f"aws configure set aws_access_key_id {AWS_ID} --profile ci", AWS_ID),
    "aws configure session": (f"aws configure set aws_session_token {AWS_SESSION}",
                              AWS_SESSION),
    "aws configure profile.key": (
        f"aws configure set profile.ci.aws_secret_access_key '{AWS_SECRET}'", AWS_SECRET),
    "keypair cat": (f"$ cat ~/.config/solana/id.json\n{ARRAY}\n", ARRAY),
    "keypair spaced": (f"wallet.json: {ARRAY_SPACED}", ARRAY_SPACED),
    "keypair pretty": (f"cat deployer.json\n{ARRAY_LINES}\n", ARRAY_LINES),
    "keypair env": (f"SOLANA_KEYPAIR='{ARRAY}'", ARRAY),
    "mnemonic option": (f'cast wallet import dev --mnemonic "{PHRASE12}"', PHRASE12),
    "mnemonic env": (f"MNEMONIC={PHRASE24}\nRPC_URL=http://localhost:8545", PHRASE24),
    "mnemonic quoted env": (f'export MNEMONIC="{PHRASE12}"', PHRASE12),
    "seed phrase prose": (f"Your seed phrase: {PHRASE12}. Keep it safe.", PHRASE12),
    "solana-keygen output": (
        "Save this seed phrase and your BIP39 passphrase to recover your new keypair:\n"
        f"{PHRASE12}\n" + "=" * 40, PHRASE12),
    "mnemonic json": (f'{{"mnemonic": "{PHRASE24}", "path": "m/44\'/60\'/0\'/0/0"}}',
                      PHRASE24),
    "mnemonic wrapped": (f"Your recovery phrase:\n{_W1}\n{_W2}\n", f"{_W1}\n{_W2}"),
    "aws configure prompt": (f"AWS Access Key ID [None]: {AWS_ID}\nAWS Secret Access Key "
                             f"[None]: {AWS_SECRET}\nDefault region name [None]: eu-west-1",
                             AWS_SECRET),
    "PRIVATE_KEY=0x": (f"PRIVATE_KEY=0x{HEX}", f"0x{HEX}"),
    "--private-key 0x": (f"cast send --private-key 0x{HEX} 0xabc 'f()'", f"0x{HEX}"),
    "privateKey json": (f'{{"privateKey": "0x{HEX}"}}', f"0x{HEX}"),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_the_kinds_round_9_found_shown_are_found(name: str) -> None:
    text, secret = FOUND[name]
    assert may_hold_secret(text), "the prefilter must pass the text"
    found = [text[f.start:f.end] for f in find_secrets(text)]
    assert secret in found, found
    shown = redact_text(text)
    assert "[redacted:" in shown
    for piece in {secret, secret[:12], secret[-12:]}:
        assert piece not in shown, shown
    # escaped once and twice (a Codex output stored in messages.raw)
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        shown = redact_text(form, depth=2)
        assert secret[:12] not in shown and secret[-12:] not in shown, shown


def test_the_kinds_round_9_are_rows_with_examples() -> None:
    names = {r.name for r in rules()}
    assert {"logkb:aws-configure", "logkb:keypair-bytes", "logkb:mnemonic",
            "logkb:hex-private-key"} <= names, names


def test_the_mnemonic_keeps_what_follows_it() -> None:
    text = f"seed phrase: {PHRASE12} then I funded the wallet"
    assert redact_text(text) == "seed phrase: [redacted:mnemonic] then I funded the wallet"


@pytest.mark.parametrize("text", [
    "aws configure set region us-east-1",
    "aws configure set aws_access_key_id $AWS_ACCESS_KEY_ID",
    "[" + ",".join(["0"] * 64) + "]",  # a zeroed buffer
    "[" + ",".join(str(i) for i in range(64)) + "]",  # an index list
    "[" + ",".join(map(str, KEYPAIR[:32])) + "]",  # 32 bytes: a public key or a hash
    "the mnemonic is stored in the vault and read by the deploy script at run time ok",
    # 11 words and more text: no phrase (11 words that end the text are a phrase cut
    # short, hidden: tests/hostile/test_secret_rules_rv9.py)
    "mnemonic: " + " ".join(WORDS[:11]) + " is what the first page of the list reads",
    "seed phrase handling: we never log it, we never print it, we never send it anywhere",
    f"tx hash: 0x{HEX}",
    f"PUBLIC_KEY=0x{HEX}",
])
def test_lookalikes_stay(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


def test_the_word_list_is_bip39s() -> None:
    words = bip39_words()
    assert len(words) == 2048 and "abandon" in words and "zoo" in words


def test_a_private_key_cut_short_by_the_agent_is_still_hidden() -> None:
    """An opencode tool's description quotes the command cut at a few dozen characters:
    the key's head stood there, too short for a 64-digit rule, and every output showed it."""
    text = f'"description": "Run cast send --private-key 0x{HEX[:34]}"'
    shown = redact_text(text)
    assert HEX[:10] not in shown and shown.endswith('--private-key [redacted:private-key]"')


@pytest.mark.parametrize(("value", "preview"), [
    (PHRASE12, f"…({len(PHRASE12)})"),  # 4 letters name a BIP-39 word: none is shown
    (ARRAY, f"…({len(ARRAY)})"),
    (f"0x{HEX}", "0x…(66)"),
    (AWS_SECRET, "…(40)"),
    ("AKIA" + "IOSFODNN7EXAMPLE", "AKIA…(20)"),  # a public prefix names the kind of token
    ("ghp_" + "A1b2C3d4E5" * 4 + "ZZ", "ghp_…(46)"),
    ("glpat-" + "aB3dE5gH7jK9mN1pQ2sT", "glpat-…(26)"),
])
def test_the_secrets_listing_previews_no_character_of_a_secret(value: str,
                                                              preview: str) -> None:
    """`logkb secrets` showed each secret's first four characters: the first word of a
    mnemonic (BIP-39 words differ in their first four letters), a keypair's first byte, a
    random key's first 24 bits.  Only a public prefix (``AKIA``, ``ghp_``) is shown."""
    from logparse.secrets import mask

    assert mask(value) == preview
