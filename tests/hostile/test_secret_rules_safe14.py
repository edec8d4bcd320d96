"""Faults rule set logkb-13 still showed or hid wrongly (safe14).

Shown: a token's or an API key's literal under a name in camelCase, an HTTP header's or
joined in capitals (``apiKey: "…"``, ``authToken='…'``, ``X-Api-Key: …``, ``AUTHTOKEN=…``)
with a short value or one of mixed-case letters; a password's name joined in capitals
(``ADMINPASS=…``, ``ROOTPW=…``) or ending in ``pw`` (``DB_PW``, ``ldap_rootpw``); a
password on the command line of programs other than mysql, docker and sshpass
(``redis-cli -a``, ``openssl … pass:``, ``gpg --passphrase``, ``zip -P``, ``7z -p``,
``smbclient -U user%…``, ``htpasswd -b``, ``ldapsearch -w``…), a ``.netrc`` line, a
password piped to ``sudo -S`` or ``--password-stdin``, a credential in a URL's query
(``?key=``, ``&auth=``), a short ``Bearer``/``Authorization: token`` value.
Hidden wrongly: a directory after a working directory's name (``oldpwd=/home/me``,
``PWD=src/app``) or a path after a password's (``DB_PASSWORD=/run/secrets/db``).

Every value is made up at run time (random letters and digits)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from logparse.secrets import find_secrets, may_hold_secret, redact_text
from tests.hostile import secret_corpus as corpus
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import assert_bump_rescans

_RNG = random.Random(14_014)
_UP, _LOW, _DIG = "ABCDEFGHJKLMNPQRSTUVWXYZ", "abcdefghijkmnopqrstuvwxyz", "23456789"


def _made_up(n: int = 11) -> str:
    """A password of ``n`` characters: capitals, small letters and digits, mixed."""
    chars = [_RNG.choice(_UP), _RNG.choice(_LOW), _RNG.choice(_DIG)]
    chars += _RNG.choices(_UP + _LOW + _DIG, k=n - 3)
    _RNG.shuffle(chars)
    return "".join(chars)


PW = _made_up()
MIXED = "".join(a + b for a, b in zip(_RNG.choices(_UP, k=6), _RNG.choices(_LOW, k=6)))
"""Twelve letters, a capital and a small letter in turn, no digit (mixed case)."""
WEAK = "hunter" + "22"


def _hidden(text: str, secret: str) -> None:
    assert may_hold_secret(text), "the prefilter must pass it"
    shown = redact_text(text)
    assert secret not in shown and "[redacted:" in shown, shown
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert secret not in redact_text(form, depth=2), form


def _shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


# --- 1. camelCase, a header's and a joined name in capitals ------------------------------

CAMEL = {
    "JS object": f'const client = new OpenAI({{ apiKey: "{PW}" }});',
    "JS assignment": f"const apiKey = '{PW}';",
    "python kwarg": f"Client(authToken='{PW}')",
    "JSON": f'{{"accessToken": "{PW}", "user": "me"}}',
    "YAML": f"refreshToken: {PW}\nexpires: 3600",
    "service's name": f'openaiApiKey: "{PW}"',
    "Pascal case": f'OpenAIApiKey = "{PW}"',
    "a service's key": f"stripeKey = '{PW}'",
    "mixed-case letters": f'apiKey: "{MIXED}"',
    "header": f'curl -H "X-Api-Key: {PW}" https://api.example/v1',
    "header in capitals": f"curl -H 'X-AUTH-TOKEN: {PW}' https://api.example/v1",
    "GitLab header": f'curl --header "Private-Token: {PW}" https://gitlab.example/api',
    "joined capitals": f"AUTHTOKEN={PW}\nREGION=eu",
    "joined capitals, a key": f"docker run -e APIKEY={PW} app",
    "client secret": f'clientSecret = "{PW}"',
}


@pytest.mark.parametrize("name", sorted(CAMEL))
def test_a_token_name_in_camel_case_or_capitals_is_hidden(name: str) -> None:
    _hidden(CAMEL[name], MIXED if MIXED in CAMEL[name] else PW)


CAMEL_SHOWN = [
    'sortKey: "created_at2"', 'primaryKey: "user_id_1"', 'pageToken: "CAUQAA12x"',
    "cancelToken = source.token", 'idempotencyKey: "order-1234"', 'i18nKey: "home.title2"',
    'storageKey: "app-state-v2"', "apiKey: userApiKey1", "authToken: sessionToken2",
    "apiKey: z.string().min(10)", "accessToken?: string", "apiKey: SecretStr",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Idempotency-Key: 7f3a9b2c-1d4e",
    "maxTokens: 4096", 'colorToken: "blue-500a"', 'nextToken: "AbC123dEf"',
    'eosToken: "</s>"', "SORTKEY=created_at2", "HOTKEY=ctrl+alt+k9", "MAXTOKEN=4096",
    'keyPrefix: "ab12cd34ef"', 'publicKey: "x7Gq9LmP2"', "Key: Value123ab",
    'type Token = "abc12345"', "apiKey: process.env.OPENAI_API_KEY",
    'apiKey: "<your-api-key>"', "authToken: ${{ secrets.TOKEN }}", 'apiKey: "sk-..."',
    "headers['X-Api-Key'] = apiKey", 'myProjectKey = "MyProjectKey"',
]


@pytest.mark.parametrize("text", CAMEL_SHOWN)
def test_code_or_a_value_no_token_is_shown(text: str) -> None:
    _shown(text)


# --- 2. a password's name joined in capitals, or ending in `pw` ---------------------------

JOINED = {
    "ADMINPASS": f"ADMINPASS={WEAK}\n",
    "ADMINPASS, a weak word": "ADMINPASS=hunter\n",
    "DBPASSWORD": f"environment:\n  DBPASSWORD: {PW}\n",
    "ROOTPW": f"ROOTPW={PW}",
    "LDAP_ROOTPW": f"export LDAP_ROOTPW='{PW}'",
    "DB_PW": f"DB_PW={WEAK}",
    "PGPASSWORD inline": f"PGPASSWORD={WEAK} psql -h db -U app",
    "MYSQL_ROOTPASS": f"MYSQL_ROOTPASS={PW}",
    "rootpw": f"rootpw = '{PW}'",
    "docker inspect's Env": f'"Env": [\n  "ROOTPW={PW}",\n  "PATH=/usr/bin"\n]',
}


@pytest.mark.parametrize("name", sorted(JOINED))
def test_a_joined_password_name_in_capitals_is_hidden(name: str) -> None:
    text = JOINED[name]
    _hidden(text, next(s for s in (PW, WEAK, "hunter") if s in text))


JOINED_SHOWN = [
    "COMPASS=north123", "BYPASS=1", "ALL=(ALL) NOPASSWD: ALL", "NOPASSWD: ALL",
    "SURPASS=always", "ADMINPASS=$ADMIN_PASS", "ROOTPW=${ROOT_PW}", "TOPSECRET=hunter22",
]


@pytest.mark.parametrize("text", JOINED_SHOWN)
def test_a_joined_word_in_capitals_is_shown(text: str) -> None:
    _shown(text)


# --- 3. a directory is no password ---------------------------------------------------------

PATHS = [
    "oldpwd=/home/me", "OLDPWD=/home/me/work", "PWD=/srv/app", "pwd: /srv/app",
    "export OLDPWD=/root/app", "oldpwd=relative/dir", "OLDPWD=..", "cwd=/home/me/proj",
    "DB_PASSWORD=/run/secrets/db_password", 'db_password = "/run/secrets/db"',
    "ADMIN_PASS=~/secrets/admin", "pwd=C:\\Users\\me", 'OLDPWD="/home/me/my dir"',
    "declare -x OLDPWD=\"/home/me\"\ndeclare -x PWD=\"/home/me/app\"",
]


@pytest.mark.parametrize("text", PATHS)
def test_a_directory_after_a_pwd_or_a_path_after_a_password_is_shown(text: str) -> None:
    _shown(text)


def test_a_password_after_a_pwd_name_is_still_hidden() -> None:
    for text in (f"oldpwd={PW}", f"PWD={PW}", f"MYSQL_PWD={WEAK} mysql", f"db_pwd: '{PW}'"):
        _hidden(text, next(s for s in (PW, WEAK) if s in text))


# --- 4. command lines, netrc, stdin, queries, short bearer ---------------------------------

COMMANDS = {
    "redis-cli -a": f"redis-cli -h cache -a {PW} ping",
    "redis-cli --pass": f"redis-cli --pass '{PW}' info",
    "mongosh -p": f"mongosh -u admin -p {PW} --authenticationDatabase admin",
    "gpg --passphrase": f"gpg --batch --passphrase {PW} -d notes.gpg",
    "zip -P": f"zip -P {PW} backup.zip dump.sql",
    "unzip -P": f"unzip -P '{PW}' backup.zip",
    "7z -p": f"7z x -p{PW} dump.7z",
    "openssl pass:": f"openssl pkcs12 -export -passout pass:{PW} -in c.pem -out c.p12",
    "openssl -k": f"openssl enc -aes-256-cbc -k {PW} -in f -out f.enc",
    "smbclient -U user%pw": f"smbclient //nas/share -U admin%{PW}",
    "htpasswd -b": f"htpasswd -b .htpasswd admin {PW}",
    "ssh-keygen -N": f"ssh-keygen -t ed25519 -N {PW} -f deploy_key",
    "ldapsearch -w": f"ldapsearch -x -D cn=admin,dc=x -w {PW} -b dc=x",
    "xfreerdp /p:": f"xfreerdp /u:admin /p:{PW} /v:win",
    "netrc": f"$ cat ~/.netrc\nmachine api.example login me password {PW}\n",
    "netrc, a line each": f"machine api.example\n  login me\n  password {PW}\n",
    "echo | sudo -S": f"echo '{PW}' | sudo -S apt-get install -y jq",
    "sudo -S <<<": f"sudo -S systemctl restart app <<< {PW}",
    "--password-stdin": f"echo {PW} | docker login -u ci --password-stdin ghcr.io",
    "query ?key=": f"curl 'https://maps.example/api/geocode?key={PW}&q=paris'",
    "query &auth=": f"GET /callback?state=1&auth={PW} HTTP/1.1",
    "query ?token=": f"wget https://files.example/dl?token={PW}",
    "short bearer": f'"Authorization": "Bearer {PW}"',
    "Authorization: token": f"curl -H 'Authorization: token {PW}' https://api.example",
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_password_on_a_command_line_in_a_netrc_or_a_query_is_hidden(name: str) -> None:
    _hidden(COMMANDS[name], PW)


COMMANDS_SHOWN = [
    "redis-cli -a $REDIS_PASSWORD ping", "openssl pkcs12 -passin env:P12_PASS -in c.p12",
    "openssl rsa -passin file:pass.txt -in k.pem", "openssl req -passout stdin -new",
    "gpg --passphrase-file pass.txt -d f", 'zip -P "$ZIP_PW" f.zip a', "7z x -p f.7z",
    "machine api.example login me", "echo $SUDO_PW | sudo -S true", "echo y | sudo -S true",
    "curl 'https://api.example/search?key=name&q=1'", "GET /page?sig=abc HTTP/1.1",
    "Authorization: Bearer token", "Authorization: Bearer YOUR_TOKEN",
    "Authorization: Bearer ${TOKEN}", "sudo -S ls <<< $PASSWORD",
    "redis-cli -h cache ping", "unzip -o backup.zip",
]


@pytest.mark.parametrize("text", COMMANDS_SHOWN)
def test_a_command_with_no_password_is_shown(text: str) -> None:
    _shown(text)


@pytest.mark.parametrize("unit", [
    "apiKey: 'x", "X-Api-Key: a", "ADMINPASS=", "oldpwd=/a/", "redis-cli -a ",
    "machine h login u ", "echo x | ", "?key=aaaaaaa1&", "Bearer aB3", "openssl -k ",
    "zip -P ", "AUTHTOKEN=aB3",
])
def test_the_finder_reads_long_hostile_text_in_linear_time(unit: str) -> None:
    import time

    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    t0 = time.process_time()
    may_hold_secret(text)
    find_secrets(text, depth=2)
    assert time.process_time() - t0 < 20


# --- every output, and the bump ---------------------------------------------------------------

NEW_LEAKS = {
    "safe14 camel": f'const client = new OpenAI({{ apiKey: "{PW}a" }});',
    "safe14 header": f'curl -H "X-Api-Key: {PW}b" https://api.example/v1',
    "safe14 joined": f"cat .env\nADMINPASS={PW}c\nROOTPW={PW}d\nOLDPWD=/home/me/oldplace\n",
    "safe14 redis": f"redis-cli -h cache -a {PW}e ping",
    "safe14 netrc": f"cat ~/.netrc\nmachine api.example login me password {PW}f\n",
    "safe14 sudo": f"echo '{PW}g' | sudo -S systemctl restart app",
    "safe14 query": f"curl 'https://maps.example/geocode?key={PW}h&q=paris'",
    "safe14 bearer": f"curl -H 'Authorization: Bearer {PW}i' https://api.example/v1",
}
NEW_SECRETS = [f"{PW}{c}" for c in "abcdefghi"]


def _run(*args: str) -> str:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert r.exit_code in (0, 4), (args, r.output)
    return r.stdout + r.stderr


@pytest.fixture(scope="module")
def leaky(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Claude Code, Codex and opencode sessions leaking the shapes above the way the
    hostile corpus leaks its own: in prompts, prose, commands, tool outputs, sub-agents'
    errors, failure lines and the question a session ends on."""
    src = tmp_path_factory.mktemp("safe14")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(corpus, "LEAKS", {**corpus.LEAKS, **NEW_LEAKS})
        files = [*corpus.write_opencode(src / "oc"), corpus.write_claude(src / "c.jsonl"),
                 corpus.write_codex(src / "x.jsonl")]
    db = src / "kb.duckdb"
    out = _run("ingest", "--db", str(db), *map(str, files))
    assert not [s for s in NEW_SECRETS if s in out]
    from kb.store import KbStore

    with KbStore(db, read_only=True) as store:
        rows = store.sessions()
    return db, [r["session_id"] for r in rows if not r["parent_id"]]


def test_no_output_shows_the_new_shapes(leaky: tuple[Path, list[str]],
                                        tmp_path: Path) -> None:
    db, sids = leaky
    d = ["--db", str(db)]
    raw = _run("--show-secrets", "query", "--json", "--limit", "5000",
               "SELECT raw::VARCHAR AS r FROM messages", *d)
    assert all(s in raw for s in NEW_SECRETS)  # the sessions do leak them
    assert "/home/me/oldplace" in _run("search", "oldplace", "--json", *d)  # no false hide
    outs = {
        "search": _run("search", corpus.WORD, "--json", *d),
        "deadends": _run("deadends", "--all", "--json", *d),
        "untested": _run("untested", "--all", "--json", *d),
        "graph": _run("graph", "--all", "--format", "json", *d),
        "query-raw": _run("query", "--json", "--limit", "5000",
                          "SELECT raw::VARCHAR AS r FROM messages", *d),
        "query-events": _run("query", "--json", "--limit", "5000",
                             "SELECT * FROM events", *d),
        "secrets": _run("secrets", "--json", *d),
    }
    for sid in sids:
        outs[f"events-{sid}"] = _run("events", "-s", sid, "--json", *d)
        outs[f"handoff-{sid}"] = _run("handoff", "-s", sid, "--json", *d)
        outs[f"timeline-{sid}"] = _run("timeline", "-s", sid, "--json", *d)
        outs[f"plan-{sid}"] = _run("replay", "plan", "--from", "1", "-s", sid, "--json", *d)
    site = tmp_path / "site"
    _run("report", "--all", "-o", str(site), *d)
    outs["report"] = " ".join(p.read_text(errors="replace") for p in site.rglob("*")
                              if p.is_file())
    pq = tmp_path / "pq"
    _run("export", "--parquet", str(pq), "--all", "--include-raw", *d)
    import duckdb

    dumped = ""
    con = duckdb.connect()
    for f in pq.rglob("*.parquet"):
        for row in con.execute(f"SELECT * FROM read_parquet('{f}')").fetchall():
            dumped += json.dumps(row, default=str)
    outs["export"] = dumped
    forms = {f for s in NEW_SECRETS for f in (s, json.dumps(s)[1:-1], s[:9], s[-9:])}
    bad = {name: [f for f in forms if f in text] for name, text in outs.items()
           if any(f in text for f in forms)}
    assert not bad, bad
    assert "[redacted:" in outs["query-raw"] and "[redacted:" in outs["report"]
    assert "[redacted:" in outs["export"]


def test_the_ruleset_bump_rescans_at_the_next_ingest(tmp_path: Path) -> None:
    """A knowledge base scanned with logkb-13 (which showed these) is scanned again by the
    next `logkb ingest`; every output hides them."""
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e14c0de-0000-4000-8000-000000014a01", [
        ("user", "Show me the config."),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "cat .env app.js"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": f"ADMINPASS={PW}x\nconst apiKey = '{PW}y';\n"}]),
        ("assistant", [{"type": "text", "text": "Done."}])])

    def hidden(shown: str) -> bool:
        return (f"{PW}x" not in shown and f"{PW}y" not in shown
                and "ADMINPASS=" in shown and "apiKey = " in shown)

    assert_bump_rescans(tmp_path / "kb.duckdb", src, "detect-secrets-1.5+logkb-13",
                        {"logkb:name-secret", "logkb:name-token"}, hidden)


def test_a_secret_in_a_session_title_is_found_and_hidden(tmp_path: Path) -> None:
    """A Claude Code ``summary`` line titles the session with text no message holds: its
    secret showed in ``sessions``, the hand-off and the report (all rule sets before
    safe14: the title was never scanned).  Now the title is scanned at ingest and on a
    rescan, and a title changed by a later copy leaves no stale finding."""
    sid = "5e14c0de-0000-4000-8000-000000014b02"
    src = write_claude_rows(tmp_path / "c.jsonl", sid, [
        ("user", "Fix the login."), ("assistant", [{"type": "text", "text": "Done."}])])
    head = {"type": "summary", "leafUuid": "u-2",
            "summary": f"Login fixed with mysql -uroot -p{PW}t and apiKey: '{PW}u'"}
    src.write_text(json.dumps(head) + "\n" + src.read_text())
    db = tmp_path / "kb.duckdb"
    d = ["--db", str(db)]
    _run("ingest", str(src), *d)
    site = tmp_path / "site"
    _run("report", "--all", "-o", str(site), *d)
    outs = {"sessions": _run("sessions", "--json", *d), "sessions-text": _run("sessions", *d),
            "handoff": _run("handoff", "--json", *d), "handoff-text": _run("handoff", *d),
            "secrets": _run("secrets", "--json", *d),
            "report": " ".join(p.read_text() for p in site.rglob("*.html"))}
    bad = {k: v for k, v in outs.items() if f"{PW}t" in v or f"{PW}u" in v}
    assert not bad, sorted(bad)
    assert "Login fixed with mysql" in outs["sessions"] and "[redacted:" in outs["sessions"]
    assert outs["secrets"].count("sessions.title") == 2, outs["secrets"]
    assert PW + "t" in _run("--show-secrets", "sessions", "--json", *d)
    head["summary"] = "Login fixed, nothing secret"  # a later copy retitles the session
    src.write_text(json.dumps(head) + "\n" + "\n".join(src.read_text().splitlines()[1:]) + "\n")
    _run("ingest", str(src), *d)
    assert "sessions.title" not in _run("secrets", "--json", *d)
