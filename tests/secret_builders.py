"""Builders of the made-up secrets the secret tests hide, shared by ``tests/hostile`` and
``tests/kb`` (each file keeps its own seeded generator, so its values stay its own), and
the check that a ruleset bump scans a knowledge base again.  Never a real key: a real one
must never be copied into the tree."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from kb.cli import cli
from kb.store import KbStore
from logparse.secrets import RULESET, b58encode, bip39_checksum_ok


def solana_key(rng: random.Random) -> Ed25519PrivateKey:
    """An Ed25519 key (a Solana wallet's) from the next 32 bytes of ``rng``."""
    return Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))


def keypair58(key: Ed25519PrivateKey) -> str:
    """The 64-byte keypair (the seed, then the public key) in base58, as a wallet exports
    it and ``solana-keygen`` prints it."""
    return b58encode(key.private_bytes_raw() + key.public_key().public_bytes_raw())


def bad_checksum(phrase: str) -> str:
    """``phrase`` with its last word changed so that its BIP-39 checksum fails."""
    words = phrase.split()
    for w in ("zoo", "zone", "abandon", "ability", "able"):
        if not bip39_checksum_ok([*words[:-1], w]):
            return " ".join([*words[:-1], w])
    raise AssertionError("no failing word")


def assert_bump_rescans(db: Path, src: Path, older: str, rules: set[str],
                        hidden: Callable[[str], bool]) -> None:
    """``src`` ingested finds ``rules``; a knowledge base left as the ``older`` ruleset
    left it (no findings, scanned with ``older``) hides them all the same (the finder runs
    on what is shown), and the next ``logkb ingest``, with nothing new to read, scans the
    session again with :data:`RULESET` and finds the same."""

    def run(*args: str) -> str:
        r = CliRunner().invoke(cli, [*args, "--db", str(db)], catch_exceptions=False)
        assert r.exit_code in (0, 4), r.output
        return r.stdout

    run("ingest", str(src))
    with KbStore(db) as store:
        found = store.conn.execute("SELECT rule FROM secrets ORDER BY 1").fetchall()
        assert {r for r, in found} == rules, found
        store.conn.execute("DELETE FROM secrets")  # as the older ruleset left it
        store.conn.execute("UPDATE secret_scans SET ruleset = ?", [older])
    assert hidden(run("events", "--json"))  # meanwhile: the finder runs on what is shown
    run("ingest", str(src))  # nothing new to read: the backfill scans the session again
    with KbStore(db, read_only=True) as store:
        again = store.conn.execute("SELECT rule FROM secrets ORDER BY 1").fetchall()
        rulesets = store.conn.execute("SELECT DISTINCT ruleset FROM secret_scans").fetchall()
    assert again == found and rulesets == [(RULESET,)]
    assert hidden(run("events", "--json"))
