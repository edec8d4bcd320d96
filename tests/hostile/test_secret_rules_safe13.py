"""Faults rule set logkb-11 still showed (safe13): a password or a secret assigned to a
name in lower or mixed case (``admin_pass = …``, ``db_passwd: …``, ``secret_key=…``);
a private key's body cut into many pieces (wrapped narrower than 64 columns, one JSON
string a line, a listing's numbered lines) or with no BEGIN line and no cue (a body cut
at the top, 64 or 76 columns); a Solana keypair wrapped into more than 12 pieces.  And
things hidden that were no secret: a base64 dump where ``pkcs`` stood inside a line, a
public key's PEM block.

Every value is made up: keys generated here (no key anybody holds), passwords random."""

from __future__ import annotations

import base64
import datetime
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

from kb.cli import cli
from kb.store import KbStore
from logparse.secrets import RULESET, b58encode, find_secrets, may_hold_secret, redact_text
from tests.hostile.secret_corpus import write_claude_rows

_RNG = random.Random(13_13)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PW = "".join(_RNG.choices(_ALNUM, k=9)) + "7"  # letters and a digit
WORD = "hunter"  # a weak password: letters only


# --- a secret's name in any case -----------------------------------------------------

NAMED = {
    "python spaces": f"admin_pass = {PW}",
    "python quoted": f"admin_pass = '{PW}'",
    "shell": f"admin_pass={PW}",
    "shell export, a weak word": f"export smtp_pass={WORD}\nnext",
    ".env line, a weak word": f"db_password={WORD}\nDEBUG=1",
    "YAML": f"database:\n  db_passwd: {PW}\n  host: db",
    "YAML, a weak word": f"database:\n  db_passwd: {WORD}\n  host: db",
    "JSON": f'{{"db_passwd": "{PW}"}}',
    "JSON compact": f'{{"admin-pass":"{PW}"}}',
    "secret_key": f"secret_key={PW}",
    "SECRET_KEY, two kinds of characters": f"SECRET_KEY='django-insecure-{WORD}x'",
    "Secret_Key YAML": f"Secret_Key: {WORD}xyz",
    "app_secret": f"app_secret={WORD}",
    "mixed case": f"Admin_Pass={PW}",
    "hyphen": f"admin-pass={PW}",
    "properties": f"spring.datasource.password={PW}",
    "php": f"$db_pass = '{PW}';",
    "camelCase": f'const adminPass = "{PW}";',
    "walrus": f"admin_pass := {PW}",
    "fat arrow": f"'db_pwd' => '{PW}',",
    "password quoted": f'password = "{WORD}"',
    "capitals, letters and digits": "db_pass = Qz7vR2mK9xw",  # no CamelCase type
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_a_secret_assigned_to_a_secret_name_in_any_case_is_hidden(name: str) -> None:
    text = NAMED[name]
    secret = PW if PW in text else next(w for w in ("Qz7vR2mK9xw", f"django-insecure-{WORD}x",
                                                    f"{WORD}xyz", WORD) if w in text)
    assert may_hold_secret(text), "the prefilter must pass it"
    shown = redact_text(text)
    assert secret not in shown and "[redacted:" in shown, shown
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert secret not in redact_text(form, depth=2), form


NAMED_SHOWN = [
    # code passing a secret on, types, placeholders, flags
    "connect(user=user, db_pass=password)", "admin_pass = new_pass",
    "db_pass = settings.db_pass", "self.db_pass = db_pass", "db_password: SecretStr",
    "db_password: str = Field(...)", "db_password: Optional[str] = None",
    "    admin_password: bytes", "admin_pass = get_admin_pass()", "db_pass = creds['db']",
    "db_pass = os.environ['DB_PASS']", "const dbPass = userInput;",
    "let adminPass = req.body.adminPass;", "admin_pass=$ADMIN_PASS",
    "admin_pass: ${{ secrets.ADMIN_PASS }}", "db_passwd: changeme", "ssl_passphrase: ''",
    "bypass=1", "use_secret: true", "client_secret: none", "keyring_secret=/run/secrets/db",
    "if user_pass == expected:", "first_pass = True", "compile_pass: enabled",
    "render_pass = RenderPass(device)", "secret_key = SECRET_KEY",
    "mapping = {'admin_pass': admin_pass}", "password=hunter",
    # safe15: "password: hunter" is hidden now (a weak word after an explicit `:`,
    # tests/hostile/test_secret_rules_safe15.py)
]


@pytest.mark.parametrize("text", NAMED_SHOWN)
def test_code_that_names_a_secret_is_shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


# --- a private key's body in pieces, with no BEGIN line -------------------------------

def _cut(s: str, n: int) -> list[str]:
    return [s[i:i + n] for i in range(0, len(s), n)]


_RSA = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PEM = _RSA.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8,
                         ser.NoEncryption()).decode()
LINES = PEM.strip().split("\n")
BODY = "".join(LINES[1:-1])
SSH = _RSA.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.OpenSSH,
                         ser.NoEncryption()).decode().strip().split("\n")
_ED = ed25519.Ed25519PrivateKey.from_private_bytes(_RNG.randbytes(32))
SSH_ED = _ED.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.OpenSSH,
                           ser.NoEncryption()).decode().strip().split("\n")


def _bodies() -> dict[str, str]:
    return {
        "64 columns, cut at the top, no END": "\n".join(LINES[5:15]),
        "64 columns, cut at the top, END": "\n".join(LINES[5:]),
        "76 columns, cut at the top": "\n".join(_cut(BODY, 76)[3:]),
        "76 columns, cut at the top and the bottom": "\n".join(_cut(BODY, 76)[3:15]),
        "40 columns, END": "\n".join(_cut(BODY, 40)[4:]) + "\n" + LINES[-1],
        "40 columns, no END": "\n".join(_cut(BODY, 40)[4:30]),
        "one JSON string a line": json.dumps(LINES[3:-3], indent=2),
        "JSON strings on one line": json.dumps(_cut(BODY, 40)[5:]),
        "Python concatenation": "K = (\n" + "\n".join(f'    "{p}"' for p in _cut(BODY, 40)[8:])
                                + "\n)",
        "a Read tool's numbered lines": "\n".join(f"{i:>6}\u2192{ln}"
                                                  for i, ln in enumerate(LINES[6:], 7)),
        "cat -n": "\n".join(f"{i:>6}\t{ln}" for i, ln in enumerate(LINES[6:-1], 7)),
        "OpenSSH RSA, middle": "\n".join(SSH[4:12]),
        "OpenSSH Ed25519, cut at the top": "\n".join(SSH_ED[2:-1]),
    }


BODIES = sorted(_bodies().items())


@pytest.mark.parametrize(("name", "text"), BODIES, ids=[b[0] for b in BODIES])
def test_a_key_body_in_pieces_with_no_begin_line_is_hidden(name: str, text: str) -> None:
    body = "".join(SSH[1:-1]) if "RSA" in name else (
        "".join(SSH_ED[1:-1]) if "Ed25519" in name else BODY)
    chunks = [c for c in _cut(body, 12) if len(c) == 12]
    for form in (text, f"$ some command\n{text}\ndone", json.dumps(text)):
        assert may_hold_secret(form), "the prefilter must pass it"
        shown = redact_text(form, depth=2)
        assert "[redacted:private-key]" in shown, shown
        left = [c for c in chunks if c in shown or json.dumps(c)[1:-1] in shown]
        assert left == [], (left[:3], shown[:400])


def _not_keys() -> dict[str, str]:
    out: dict[str, str] = {}
    rng = random.Random(1313)
    for i in range(40):
        b = base64.b64encode(rng.randbytes(rng.randint(300, 4000))).decode()
        out[f"random {i}, 76"] = "\n".join(_cut(b, 76))
        out[f"random {i}, 64 cut"] = "\n".join(_cut(b, 64)[2:])
        out[f"random {i}, 40"] = "\n".join(_cut(b, 40))
        out[f"random {i}, JSON"] = json.dumps(_cut(b, 64))
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "x.example")])
    t0 = datetime.datetime(2026, 1, 1)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(_RSA.public_key()).serial_number(13).not_valid_before(t0)
            .not_valid_after(t0 + datetime.timedelta(days=9)).sign(_RSA, hashes.SHA256()))
    der = base64.b64encode(cert.public_bytes(ser.Encoding.DER)).decode()
    out["a certificate, 64"] = "\n".join(_cut(der, 64))
    out["a certificate, cut at the top"] = "\n".join(_cut(der, 64)[3:])
    out["a certificate, PEM"] = cert.public_bytes(ser.Encoding.PEM).decode()
    out["a public key, PEM"] = _RSA.public_key().public_bytes(
        ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo).decode()
    out["a public key, PKCS#1 PEM"] = _RSA.public_key().public_bytes(
        ser.Encoding.PEM, ser.PublicFormat.PKCS1).decode()
    out["an EC public key, PEM"] = ec.generate_private_key(ec.SECP256R1()).public_key(
    ).public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo).decode()
    ssh = _RSA.public_key().public_bytes(ser.Encoding.OpenSSH, ser.PublicFormat.OpenSSH)
    out["an ssh public key, wrapped"] = "\n".join(_cut(ssh.decode().split()[1], 70))
    out["an ssh public key"] = ssh.decode() + " me@host"
    return out


NOT_KEYS = sorted(_not_keys().items())


@pytest.mark.parametrize(("name", "text"), NOT_KEYS, ids=[n[0] for n in NOT_KEYS])
def test_base64_of_other_data_is_shown(name: str, text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end][:16])
                                      for f in find_secrets(text)]


# --- a keypair in more than 12 pieces --------------------------------------------------

_KP_KEY = ed25519.Ed25519PrivateKey.from_private_bytes(_RNG.randbytes(32))
KP = b58encode(_KP_KEY.private_bytes_raw() + _KP_KEY.public_key().public_bytes_raw())


@pytest.mark.parametrize("width", [7, 6, 5, 4])
def test_a_keypair_in_many_pieces_is_hidden(width: str) -> None:
    pieces = _cut(KP, int(width))
    for text in ("\n".join(pieces), "\n".join(f'  "{p}",' for p in pieces),
                 json.dumps(pieces, indent=1)):
        assert len(pieces) > 12 and may_hold_secret(text)
        shown = redact_text(text)
        assert "[redacted:private-key]" in shown, shown
        assert not [p for p in _cut(KP, 10) if p in shown.replace("\n", "")], shown


def test_columns_of_short_words_and_numbers_are_shown() -> None:
    for text in ("\n".join(str(i) for i in range(1, 400)),
                 "\n".join(["src", "tests", "docs", "bin", "Makefile", "setup", "README"] * 20),
                 "\n".join(_cut(b58encode(bytes(range(1, 65))), 6))):
        assert find_secrets(text) == [], text[:80]


# --- linear, and the bump rescans ------------------------------------------------------

@pytest.mark.parametrize("unit", [
    "admin_pass=x ", "a_pass = b\n", "QUJD" * 10 + "\n", '"' + "QUJD" * 10 + '", ',
    "   12\u2192" + "QUJD" * 16 + "\n", "5Kb8\n", "\x02\x81\x90" * 30,
])
def test_the_finder_reads_long_hostile_text_in_linear_time(unit: str) -> None:
    import time

    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    t0 = time.process_time()
    may_hold_secret(text)
    find_secrets(text, depth=2)
    assert time.process_time() - t0 < 20


def test_the_ruleset_bump_rescans_at_the_next_ingest(tmp_path: Path) -> None:
    """A knowledge base scanned with logkb-11 (which showed these) is scanned again by the
    next `logkb ingest`; every output hides them, a base64 dump stays shown."""
    assert RULESET.startswith("detect-secrets-1.5+logkb-")  # logkb-13 since safe13b
    body = "\n".join(_cut(BODY, 76)[3:])
    dump = "\n".join(_cut(base64.b64encode(random.Random(7).randbytes(900)).decode(), 76))
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e13c0de-0000-4000-8000-000000013a01", [
        ("user", "Show me the config and the key."),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "cat app.conf; tail -n 20 k.b64"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": f"admin_pass = {PW}\n{body}\n"}]),
        ("assistant", [{"type": "tool_use", "id": "toolu_2", "name": "Bash",
                        "input": {"command": "base64 logo.png"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_2", "content": dump}]),
        ("assistant", [{"type": "text", "text": "Done."}])])
    db = tmp_path / "kb.duckdb"

    def run(*args: str) -> str:
        r = CliRunner().invoke(cli, [*args, "--db", str(db)], catch_exceptions=False)
        assert r.exit_code in (0, 4), r.output
        return r.stdout

    line = dump.split("\n")[3]

    def hidden(shown: str) -> bool:
        return (PW not in shown and not any(c in shown for c in _cut(BODY, 76)[3:-1])
                and line in shown and "admin_pass = " in shown)

    run("ingest", str(src))
    with KbStore(db) as store:
        found = store.conn.execute("SELECT DISTINCT rule FROM secrets ORDER BY 1").fetchall()
        assert {r for r, in found} == {"logkb:name-secret", "logkb:key-body-run"}, found
        store.conn.execute("DELETE FROM secrets")  # as logkb-11 left it
        store.conn.execute("UPDATE secret_scans SET ruleset = 'detect-secrets-1.5+logkb-11'")
    assert hidden(run("events", "--json"))  # meanwhile: the finder runs on what is shown
    run("ingest", str(src))
    with KbStore(db, read_only=True) as store:
        again = store.conn.execute("SELECT DISTINCT rule FROM secrets ORDER BY 1").fetchall()
        rulesets = store.conn.execute("SELECT DISTINCT ruleset FROM secret_scans").fetchall()
    assert again == found and rulesets == [(RULESET,)]
    assert hidden(run("events", "--json"))


# --- a raw record's fields no derived text holds (red team, safe13) ------------------

RAW_PW = "".join(_RNG.choices(_ALNUM, k=11)) + "9"


def write_raw_leaks(path: Path) -> Path:
    """A Claude Code transcript whose records hold a secret only where no derived field
    reads it: a timestamp, a field the reader does not know, a parent id that is an object
    (``{"admin_pass": …}``: the name a key, the secret its value), and a line that is no
    JSON at all."""
    src = write_claude_rows(path, "5e13c0de-0000-4000-8000-000000013b01", [
        ("user", "Please frobnicate the config."),
        ("assistant", [{"type": "text", "text": "Done."}])])
    lines = src.read_text().splitlines()
    first = json.loads(lines[0])
    odd = []
    for i, (key, value) in enumerate((
            ("timestamp", f"ADMIN_PASS={RAW_PW}"),
            ("extra", f"db_passwd: {RAW_PW}"),
            ("parentUuid", {"admin_pass": RAW_PW}))):
        rec = dict(first, uuid=f"u-raw-{i}")
        rec[key] = value
        odd.append(json.dumps(rec))
    bad = '{"type": "user", "message": {"content": "admin_pass = ' + RAW_PW + '" broken'
    src.write_text("\n".join([*lines, bad, *odd]) + "\n")
    return src


def test_an_export_of_the_raw_records_holds_no_secret(tmp_path: Path) -> None:
    """`logkb export --include-raw` wrote a raw record's secret that no derived field held
    (logkb-11: only the values the ingest's scan found were hidden there)."""
    import duckdb

    src = write_raw_leaks(tmp_path / "claude.jsonl")
    db = tmp_path / "kb.duckdb"
    for args in (["ingest", str(src)], ["export", "--parquet", str(tmp_path / "out"),
                                         "--include-raw", "--all"],
                 ["query", "--json", "SELECT * FROM problems"],
                 ["query", "--json", "SELECT raw::VARCHAR FROM messages"]):
        r = CliRunner().invoke(cli, [*args, "--db", str(db)], catch_exceptions=False)
        assert r.exit_code in (0, 4), r.output
        assert RAW_PW not in r.stdout + r.stderr, args
    files = list((tmp_path / "out").rglob("*.parquet"))
    assert files
    dump = "\n".join(str(duckdb.sql(f"SELECT * FROM '{f}'").fetchall()) for f in files)
    assert "frobnicate" in dump and "[redacted:" in dump
    assert RAW_PW not in dump


def test_a_problem_that_quotes_its_record_quotes_no_secret(tmp_path: Path) -> None:
    """A problem's reason may quote the record it is about (a pi header whose id is no
    string: ``{'admin_pass': '…'}``); it is printed on stderr, put in the `--json` report
    and stored, and showed the secret there (safe13)."""
    ts = "2026-06-08T17:05:46.114Z"
    recs = [{"type": "session", "version": 3, "id": {"admin_pass": RAW_PW},
             "timestamp": ts, "cwd": "/w"},
            {"type": "message", "id": "p0", "parentId": None, "timestamp": ts,
             "message": {"role": "user", "content": [{"type": "text", "text": "frobnicate"}]}}]
    src = tmp_path / "2026-06-08T17-05-46-114Z_019ea801-0000-7000-8000-0000000000e9.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    db = tmp_path / "kb.duckdb"
    seen = ""
    for args in (["ingest", str(src)], ["ingest", "--force", "--json", str(src)],
                 ["query", "--json", "SELECT reason, record FROM problems"]):
        r = CliRunner().invoke(cli, [*args, "--db", str(db)], catch_exceptions=False)
        assert r.exit_code in (0, 4), r.output
        seen += r.stdout + r.stderr
    assert "header names no session id" in seen  # the problem is still said
    assert RAW_PW not in seen
    with KbStore(db, read_only=True) as store:
        stored = store.conn.execute("SELECT string_agg(reason, ' ') FROM problems").fetchone()
    assert stored and stored[0] and RAW_PW not in stored[0]


def test_a_derive_workers_traceback_quotes_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """A derive worker's failure is said with its traceback, whose exception text may
    quote the record it failed on (safe13: it went to stderr as it was)."""
    import types

    import kb.derive_pool as dp

    tb = ("Traceback (most recent call last):\n  File \"derive.py\", line 9, in f\n"
          f"ValueError: cannot read 'admin_pass = {RAW_PW}'\n")
    pool = dp.DerivePool.__new__(dp.DerivePool)
    pool._pending = [object()]  # type: ignore[list-item]
    pool._procs = [types.SimpleNamespace(stdout=object())]  # type: ignore[list-item]
    monkeypatch.setattr(dp, "_read", lambda f: {"error": tb})
    with pytest.raises(dp.DeriveWorkerError) as e:
        pool.receive(0)
    assert "ValueError: cannot read 'admin_pass = [redacted:" in str(e.value)
    assert RAW_PW not in str(e.value)
