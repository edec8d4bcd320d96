"""Review of round 9's secret kinds (rv9): the faults found, each held by a test.

Every value is made up (built from pieces at import time)."""

from __future__ import annotations

import json
import random

import pytest

from logparse.secrets import may_hold_secret, redact_text, rules
from tests.hostile.test_secret_rules_wallets import FOUND

ROUND9 = ("logkb:aws-configure", "logkb:aws-prompt", "logkb:keypair-bytes", "logkb:mnemonic",
          "logkb:hex-private-key")
_EXAMPLES = [(r.name, ex) for r in rules() if r.name in ROUND9 for ex in (r.example, *r.more)]
CASES = {f"{n}-{i}": ex for i, (n, ex) in enumerate(_EXAMPLES)} | FOUND


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_prefilter_passes_round_9s_secrets_json_escaped(name: str) -> None:
    """The store runs the prefilter over every stored text, a message's raw JSON too (the
    Parquet export's ``raw``, a tool's input): ``{\\"privateKey\\": \\"0x…\\"}`` passed
    the hex rule, which reads escaped quotes, but not the prefilter, so the key was never
    looked for and the export showed it."""
    text, secret = CASES[name]
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert may_hold_secret(form), form
        assert secret[-12:] not in redact_text(form, depth=2)


def _public_key(seed: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()


def _solana_keypair(seed: bytes) -> list[int]:
    """A keypair as ``solana-keygen`` writes it: the 32-byte seed, then its Ed25519
    public key (checked against RFC 8032 below)."""
    return list(seed) + list(_public_key(seed))


def test_ed25519_public_key_is_rfc_8032s() -> None:
    seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    assert _public_key(seed).hex() == (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")  # TEST 1


_PIXELS = [(i * 97 + (i * i) % 23 * 5 + 31) % 256 for i in range(64)]
"""A row of an 8x8 image's grey levels, or any 64 numbers under 256 that vary."""


@pytest.mark.parametrize("text", [
    "row 0 of the thumbnail: " + json.dumps(_PIXELS),
    "expected = " + json.dumps(_PIXELS) + "\nassert hist(img) == expected",
    json.dumps({"histogram": _PIXELS, "bins": 64}),
])
def test_64_varied_numbers_that_are_no_keypair_stay(text: str) -> None:
    """Any JSON array of 64 varied numbers under 256 was hidden as a private key (a
    pixel row, a histogram, a test's expected bytes): a keypair is told by a cue next to
    it (``id.json``, ``keypair``, ``wallet`` …) or by its second half being the Ed25519
    public key of its first (what every Solana keypair is)."""
    assert redact_text(text) == text


def test_a_solana_keypair_with_no_cue_is_still_hidden() -> None:
    """A tool's output holds the array alone (``cat`` was the call, in another text)."""
    pair = _solana_keypair(bytes(range(7, 39)))
    for text in (json.dumps(pair) + "\n", json.dumps(pair, indent=2)):
        shown = redact_text(text)
        assert shown.strip() == "[redacted:private-key]", shown


_PHRASE = ("velvet orbit canyon humble ladder pepper ritual sample tobacco unusual wagon "
           "zebra").split()


@pytest.mark.parametrize(("text", "shown_words"), [
    ("Your seed phrase: " + " ".join(_PHRASE[:11]), 11),  # the output cut at its end
    ("seed phrase: " + " ".join(_PHRASE[:11]) + "…", 11),
    ('"description": "Import it: cast wallet import dev --mnemonic \\"'
     + " ".join(_PHRASE[:9]) + ' tob"', 9),  # a tool's description cut inside a word
    ("MNEMONIC=" + " ".join(_PHRASE[:8]) + "...\n", 8),
])
def test_a_phrase_cut_short_after_its_cue_is_still_hidden(text: str, shown_words: int) -> None:
    """A phrase needed 12 words to be hidden: cut at 11 (an output or a tool's
    description cut short), 11 words stood in the clear, and the 12th is one of 2048
    (its checksum narrows it to 128); at 8 words the rest is 40 bits of search.  A run
    of 6 or more words of the list after a cue that the text ends in is hidden."""
    shown = redact_text(text)
    assert "[redacted:mnemonic]" in shown, shown
    for w in _PHRASE[:shown_words]:
        assert f"{w} " not in shown and not shown.rstrip('"…. \n').endswith(w), shown


@pytest.mark.parametrize("text", [
    "Never paste your seed phrase: we should always keep it in a safe place",
    "mnemonic: " + " ".join(_PHRASE[:11]) + " and then the rest of my notes",
    "The recovery phrase screen: tap next",  # 2 words of the list
])
def test_a_cue_followed_by_ordinary_words_stays(text: str) -> None:
    assert redact_text(text) == text


_RNG = random.Random(22)
_PAIR = [_RNG.randrange(256) for _ in range(64)]


@pytest.mark.parametrize("text", [
    "$ cat ~/.config/solana/id.json\n" + json.dumps(_PAIR)[:170],  # an output cut short
    "$ cat ~/.config/solana/id.json\n" + json.dumps(_PAIR)[:170] + "…",
    '"description": "Write the keypair: echo \'' + json.dumps(_PAIR)[:150] + '"',
])
def test_a_keypair_cut_after_its_seed_is_still_hidden(text: str) -> None:
    """A keypair's first 32 bytes are its seed, the whole secret: an array cut after them
    (an output or a tool's description cut short) was not 64 bytes, and every byte
    stood in the clear."""
    shown = redact_text(text)
    assert "[redacted:private-key]" in shown, shown
    assert ", ".join(map(str, _PAIR[5:10])) not in shown, shown
    shown = redact_text(json.dumps(text), depth=2)
    assert ", ".join(map(str, _PAIR[5:10])) not in shown, shown


def test_a_cut_array_with_no_cue_stays() -> None:
    text = "row 0 of the thumbnail: " + json.dumps(_PIXELS)[:170]
    assert redact_text(text) == text


_HEX = "".join(random.Random(23).choices("0123456789abcdef", k=64))


@pytest.mark.parametrize("text", [
    f"$ cat .env\nDEPLOYER_PRIVATE_KEY=0x{_HEX[:56]}\n{_HEX[56:]}\nRPC_URL=http://localhost",
    json.dumps(f"DEPLOYER_PRIVATE_KEY=0x{_HEX[:56]}\n{_HEX[56:]}\n"),
])
def test_a_hex_key_wrapped_over_two_lines_is_hidden_whole(text: str) -> None:
    """A terminal wraps ``DEPLOYER_PRIVATE_KEY=0x`` and 64 digits (87 columns) at 80: the
    rule hid the first line's digits and showed the rest of the key."""
    shown = redact_text(text, depth=2)
    assert _HEX[:12] not in shown and _HEX[-8:] not in shown, shown


def test_a_whole_hex_key_does_not_take_the_next_line() -> None:
    text = f"PRIVATE_KEY=0x{_HEX}\nbe careful with it"
    assert redact_text(text) == "PRIVATE_KEY=[redacted:private-key]\nbe careful with it"


@pytest.mark.parametrize("text", [
    "mnemonic: " + json.dumps(_PHRASE),  # a JSON array of the words
    json.dumps({"mnemonic": _PHRASE}, indent=2),
    "Your recovery phrase: " + ", ".join(_PHRASE),
    "Seed phrase:\n" + "\n".join(f"{i}. {w}" for i, w in enumerate(_PHRASE, 1)),
    "Seed phrase:\n" + "\n".join(f"  {i:2}) {w}" for i, w in enumerate(_PHRASE, 1)),
])
def test_a_phrase_listed_word_by_word_is_hidden(text: str) -> None:
    """A phrase stood only as words apart by blanks: a JSON array of its words, a list
    apart by commas, a numbered list (one word a line, as wallets show it) showed all."""
    shown = redact_text(text)
    assert "[redacted:mnemonic]" in shown, shown
    assert not any(w in shown for w in _PHRASE[1:-1]), shown
    shown = redact_text(json.dumps(text), depth=2)
    assert not any(w in shown for w in _PHRASE[1:-1]), shown


_ALL = [(r.name, ex) for r in rules() if r.name.startswith("logkb:")
        for ex in (r.example, *r.more)]


@pytest.mark.parametrize(("name", "example"), _ALL,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(_ALL)])
def test_the_prefilter_passes_every_rules_example_json_escaped(
        name: str, example: tuple[str, str]) -> None:
    """A tool's input is stored as JSON (``calls.input``): a file written with
    ``{"apiKey": "…"}`` in it stands there as ``{\\"apiKey\\": \\"…\\"}``.  The finder
    reads escaped text, but the prefilter the store runs first wanted a bare quote
    after the name, so the key was never looked for and every output showed it."""
    text, secret = example
    for form in (json.dumps(text), json.dumps(json.dumps(text)),
                 json.dumps({"content": text})):
        assert may_hold_secret(form), form


@pytest.mark.parametrize("text", [
    '{"apiKey": "Zk3mP9qR2vX7tL4wN8bH6abQ"}',
    '{"password": "Hunter2-x9Q!"}',
    '{"auth_token": "Zk3mP9qR2vX7tL4wN8bH6abQ"}',
])
def test_a_json_file_written_with_a_key_passes_the_prefilter(text: str) -> None:
    form = json.dumps({"file_path": "config.json", "content": text})
    assert may_hold_secret(form), form
    assert "[redacted:" in redact_text(form)
