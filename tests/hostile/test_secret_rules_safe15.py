"""Faults rule set logkb-15 still showed (safe15).

Shown: a weak password said in prose after an explicit cue (``the password is admin``,
``Password: hunter``), after ``pwd`` (``pwd admin123``), a login and its password joined
by ``/`` (``login admin / admin123``), a password in a form's or a query's body
(``-d "log=admin&pwd=admin"``, ``--data-urlencode 'pass=…'``, ``?user=a&passwd=…``, a
PowerShell body ``@{log="a"; pwd="…"}``) and the tail of a password another row cut at
its ``&`` (``Password:  ab%c&d…``: the ``&`` of a query's value).  Prose about a password
(``the password is wrong``, ``password is required``, ``password reset link``) stays
shown, and so do the real lines of the shared sessions named below.

Every made-up value is made at run time (random letters and digits)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from kb.redact import Redactor
from logparse.secrets import RULESET, find_secrets, may_hold_secret, redact_text
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import assert_bump_rescans

_RNG = random.Random(15_016)
_LOW, _DIG = "abcdefghijkmnopqrstuvwxyz", "23456789"


def _weak(n: int = 6) -> str:
    """A weak password: small letters only (no word a predicate list holds)."""
    return "".join(_RNG.choices(_LOW, k=n))


def _weak_digits() -> str:
    return _weak(5) + "".join(_RNG.choices(_DIG, k=3))


W = _weak()
WD = _weak_digits()
AMP = f"{_weak(4)}%{_weak(2)}%&{_weak(5)}^{_weak(3)}"


def _hidden(text: str, secret: str) -> None:
    assert may_hold_secret(text), "the prefilter must pass it"
    shown = redact_text(text)
    assert secret not in shown and "[redacted:password]" in shown, shown
    # the value only: the rest of the text stays
    assert shown.replace("[redacted:password]", secret) == text, shown
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert secret not in redact_text(form, depth=2), form


def _shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


HIDDEN = {
    # prose: a weak word after an explicit `is`/`was`/`:`/`set to`
    "the password is admin": ("the password is admin", "admin"),
    "is, a sentence's end": (f"The root password was {W}.", W),
    "Password: at a line's end": (f"Password: {W}\n", W),
    "password: with digits": (f"password: {WD}", WD),
    "pw:": (f"user: deploy, pw: {W}", W),
    "is now": (f"the wifi password is now {W} for guests", W),
    "set to": (f"I set the admin password set to {W}", W),
    "prompt": (f"Password for user admin: {W}\n", W),
    "a table's cell": (f"│ Admin password │ {WD}   │", WD),
    # `pwd` and a value that is no word
    "pwd": (f"ssh in as deploy, pwd {WD}", WD),
    "username … and password": (f"username deploy and password {WD}", WD),
    # a login and its password joined by `/`
    "login admin / …": (f"login admin / {WD}", WD),
    "admin: `admin` / `…`": (f"on port 8882, admin: `admin` / `{WD}`", WD),
    "credentials: user/pass": (f"Credentials: deploy/{WD}", WD),
    "login the login again": (f"log in as {W} / {W}", ""),
    # a form's or a query's body, a weak word too
    "curl -d form": (f'curl -s -X POST -d "log=editor&pwd={W}&wp-submit=Log+In" '
                     "http://localhost:8882/wp-login.php", W),
    "curl -d first pair": (f"curl -d 'pwd={W}&user=a' http://localhost/x", W),
    "--data-urlencode": (f"curl --data-urlencode 'password={W}' http://localhost/login", W),
    "--data-urlencode pass": (f'curl --data-urlencode "pass={WD}" http://localhost/x', WD),
    "-F": (f"curl -F 'passwd={W}' http://localhost/x", W),
    "query": (f"GET /login?user=admin&pass={W} HTTP/1.1", W),
    "query password=": (f"http://localhost/login?user=admin&password={W}", W),
    "bare body": (f"user=admin&pass={WD}", WD),
    "a form's field named with a word": (f"log=a&user_pass={W}&x=1", W),
    "url-encoded": (f"curl -d 'user=a&password=%21{WD}' http://localhost/x", f"%21{WD}"),
    "PowerShell body": (f'$body = @{{log="admin"; pwd="{W}"; wp_submit="Log In"}}', W),
    # the tail after `&` of a password another row read to the `&` only
    "the whole value, & in it": (f"Password:  {AMP}", AMP),
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_weak_passwords_and_form_bodies_are_hidden(name: str) -> None:
    text, secret = HIDDEN[name]
    if not secret:  # the login again: its second occurrence is the password
        shown = redact_text(text)
        assert shown.endswith("/ [redacted:password]") and may_hold_secret(text), shown
        return
    _hidden(text, secret)


SHOWN = [
    # prose about a password (the brief's, and more of the kind)
    "the password is wrong", "password is required", "the password field is empty",
    "password reset link", "the password is incorrect", "The password is wrong!",
    "my password is too short", "password is case sensitive", "password is not set",
    "the password is stored in vault", "password is hashed with bcrypt",
    "the password is different from the one in staging", "password is mandatory",
    "password is visible in the logs", "the password is missing", "Password: Enter yours",
    "password (optional): leave empty", "the password is the same as before",
    "reset your password to continue", "use password authentication",
    "the password is whatever you typed", "password: required", "password: string",
    "Password: SecretStr", "{ password: hash }", "password: hash,", "password: pwd }",
    "const user = {\n  password: hashed\n}", "password=hunter",
    # pwd is a command and a directory
    "ls && pwd && echo hi", "pwd | xargs basename", "pwd -P", "pwd: app", "pwd: src/app",
    "run pwd to check", "cd $(pwd)/build",
    # a login's words joined by `/` that are no password
    "Login page / dashboard", "the login form / admin page", "login: admin / password",
    "login/+page.server.ts", "sign in / sign up", "admin: pages / posts",
    # form-like text that is no password
    "?bypass=admin&x=1", "compass=north&x=1", "log=admin&pwd=$pwd&x=1",
    "curl -d 'user=a&pwd=${PW}' http://localhost/x", "curl -d 'user=a&password=%PW%' x",
    "x=1&pwd=/home/me&y=2", "a=1&pass=true&b=2", "log=admin&pwd=&x=1",
    "| Password | Description |", "| password | `string` | required |",
]


@pytest.mark.parametrize("text", SHOWN)
def test_prose_code_and_forms_that_hold_no_password_are_shown(text: str) -> None:
    _shown(text)


REAL_SHOWN = {
    # real lines of the shared sessions (../shared/realworld), trimmed, by file
    "civ6.ch__session.jsonl": [
        "const password = data.get('password') as string;",
        "return fail(400, { error: 'Username and password are required' });",
        "return fail(401, { error: 'Invalid username or password' });",
        "/home/selim/Documents/Code/civ6.ch/web/src/routes/login/+page.server.ts",
        '<span> Login</span>'],
    "soulpass__codex-session.jsonl": [
        "  password: string",
        '        alert(`Employee activated! Password: ${data.employee?.temporary_password'
        ' || "N/A"}`)',
        " NOTE: The backup is encrypted with PBKDF2 + AES-GCM using the user's password.",
        'ndlerRoutes = "/api/auditors/verify" | "/api/auth/login" | "/api/auth/logout"'],
    "uicomponents__session-wordpress.json": [
        "-   **Password**: The password for the admin account on your local site and can be"
        " u",
        "You do not need a username or password to view your site's dashboard as you will"
        " be automat",
        "**Credentials:** `admin` / password shown when site started (check Studio app site"
        " sett",
        "Site is live at **http://localhost:8882**. Credentials: `admin` / password stored.",
        "he defaults from WordPress Studio - usually admin/password or the ones shown during"
        " setup.",
        'if ($r -ne 200) { Write-Output "Found password: $pwd (redirect: $r)"; break }',
        '-o nul -w "%{http_code}" -L -X POST -d "log=admin&pwd=$pwd&wp-submit=Log+In&redir'
        'ect_to=http%3A%2F%2Floc',
        "foreach($pwd in $passwords) {",
        "urned 200, which means it probably showed the login form again (wrong password).",
        "Let me try using the WordPress password reset or check the database for hashed"
        " password.",
        'var pwsL10n = {"unknown":"Password strength unknown","short":"Very weak","bad":"Weak",',
        '<input type="password" name="pwd" id="user_pass" class="input password-input ltr" '
        'value="" size="20" autocomplete="current-password" spellcheck="false" />',
        "| **Password char** | `\\u2022` (bullet) for Chrome-based",
        "4.  On macOS, you'll be prompted for your account password to allow installation."],
    "uicomponents__session-export.json": [
        "Basic auth password (defaults to `OPENCODE_SERVER_PASSWORD`)", "`--password`"],
    "k1.lib-bootstrap__session-export.json": [
        "For example, you could toggle a password reset modal from within an already open"
        " sign in modal.", '"command": "pwd | xargs basename",'],
    "FundWise__claude-session.jsonl": [
        "- **FundWise-native** email/password or social identity as the primary account"
        " system"],
    "Valdyum-Labs__codex-session.jsonl": ["project_slug=\"$(pwd | sed 's|/|-|g')\""],
}


@pytest.mark.parametrize(("name", "i"), [(n, i) for n, ls in REAL_SHOWN.items()
                                         for i in range(len(ls))])
def test_real_lines_about_passwords_are_shown(name: str, i: int) -> None:
    _shown(REAL_SHOWN[name][i])


OPEN_FILES = [  # the shared sessions this test may read, one by one (never the held-out)
    "labelled/Trezo-Ai__codex-session.jsonl", "labelled/Valdyum-Labs__codex-session.jsonl",
    "labelled/k1.lib-bootstrap__session-export.json",
    "labelled/pfm-categorization__opencode-session.json",
    "labelled/soulpass__codex-session.jsonl", "labelled/speakfree__session.jsonl",
    "labelled/uicomponents__session-export.json", "labelled/will-it-rain__claude.jsonl",
    "pool/FundWise__claude-session.jsonl", "pool/Rivo__codex-session.jsonl",
    "pool/Xeus__claude-session.jsonl", "pool/blockchain-dex-events__claude-session.jsonl",
    "pool/civ6.ch__session.jsonl", "pool/conversacion-act1-pln__session.jsonl",
    "pool/matugen-theme-sync__opencode-session.json", "pool/privacy-x402__codex-session.jsonl",
    "pool/random__session.jsonl", "pool/scout__codex-session.jsonl",
    "pool/trade_arena__claude-session.jsonl", "pool/trade_arena__codex-session.jsonl",
]
"""Shared sessions with no password in them: none of safe15's rows hides anything there."""
NEW_ROWS = {"logkb:prose-password", "logkb:login-pair", "logkb:form-password"}
CUES = ("pass", "pw", "login", "log in", "sign in", "credential", "creds", "admin",
        "account")


def test_no_row_of_safe15_hides_a_word_of_the_shared_sessions(realworld: Path) -> None:
    looked = 0
    for name in OPEN_FILES:
        path = realworld / name
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                 .splitlines(), 1):
            low = line.lower()
            if not any(c in low for c in CUES):
                continue
            looked += 1
            bad = [(f.rule, line[f.start:f.end]) for f in find_secrets(line, depth=2)
                   if f.rule in NEW_ROWS]
            assert bad == [], (name, n, bad)
    assert looked > 1000
    # and the one shared session that typed its WordPress password into a form: hidden
    wp = (realworld / "labelled/uicomponents__session-wordpress.json").read_text(
        encoding="utf-8", errors="replace")
    lines = [ln for ln in wp.splitlines() if "pwd=admin123&" in ln]
    assert lines and all("pwd=admin123&" not in redact_text(ln, depth=2) for ln in lines)


def test_ingest_finds_them_and_a_bump_rescans(tmp_path: Path) -> None:
    """A session whose prose, commands and outputs hold them: found by the three rows
    at ingest; a knowledge base left by logkb-15 hides them all the same and is scanned
    again at the next ingest."""
    assert RULESET == "detect-secrets-1.5+logkb-16"
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e15c0de-0000-4000-8000-000000016a01", [
        ("user", f"Log in to staging; the password is {W}."),
        ("assistant", [{"type": "text", "text": f"Trying login deploy / {WD} first."},
                       {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {
                           "command": f"curl -s -d 'log=editor&pwd={W}x' "
                                      "http://localhost:8882/wp-login.php"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "302"}])])

    def hidden(shown: str) -> bool:
        return all(v not in shown for v in (W, WD)) and "[redacted:" in shown

    assert_bump_rescans(tmp_path / "kb.duckdb", src, "detect-secrets-1.5+logkb-15",
                        NEW_ROWS, hidden)


def test_a_weak_word_is_hidden_where_it_stands_apart_not_inside_a_name() -> None:
    """The redactor replaces a known short secret of letters only (``admin``, found in
    ``pwd=admin&``) where it stands apart, not as a piece of a name joined by ``-``,
    ``.`` or ``@`` (``wp-admin``, ``admin@localhost``): those pieces are no password, and
    every place a rule finds one in stands apart.  Its SQL pattern still finds the rows."""
    red = Redactor({"admin": "password", "12ab": "password"})
    text = ('curl -d "log=x&pwd=admin&wp-submit=1" http://localhost/wp-login.php -> '
            "Location: /wp-admin/; mail admin@localhost.com; host admin.example; "
            "the password is admin. admin / admin")
    shown = red.text(text)
    assert "pwd=[redacted:password]&" in shown and "is [redacted:password]." in shown
    assert "[redacted:password] / [redacted:password]" in shown
    assert "/wp-admin/" in shown and "admin@localhost" in shown and "admin.example" in shown
    assert red.text("x-12ab y") == "x-[redacted:password] y"  # not letters only: as before
    assert red.pattern() == r"(?:\b|-p)admin\b|(?:\b|-p)12ab\b"


def test_a_weak_word_found_as_a_urls_password_is_hidden_there() -> None:
    """``url-password`` finds a weak word in a URL's userinfo (``root:hunter@localhost``),
    where ``@`` follows it: the redactor hides it there, as it did before safe15, while
    ``admin@localhost`` (a login, no ``:`` before it) stays shown (review15)."""
    text = "curl http://root:hunter@localhost/x; mail hunter@localhost.com"
    assert [text[f.start:f.end] for f in find_secrets(text)] == ["hunter"]
    shown = Redactor({"hunter": "password"}).text(text)
    assert shown == ("curl http://root:[redacted:password]@localhost/x; "
                     "mail hunter@localhost.com")
    assert Redactor({"hunter": "password"}).pattern() == r"(?:\b|-p)hunter\b"


@pytest.mark.parametrize("value", ["hunter", "h4nt3r"])
def test_a_short_password_glued_to_mysqls_p_is_hidden_there(value: str) -> None:
    """``logkb:mysql-p`` finds the password glued to its option (``-phunter``); a short
    one (under 8 characters) was replaced only as a whole word, so the redactor showed it
    in the very command it was found in (review15).  ``-p`` starting a word is enough;
    inside a word (``wp-phunter``) it is not."""
    text = f"mysql -u root -p{value} db; echo '-p{value}'; cd wp-p{value}"
    found = [text[f.start:f.end] for f in find_secrets(text)]
    assert found[:1] == [value], found
    shown = Redactor({value: "password"}).text(text)
    assert shown == ("mysql -u root -p[redacted:password] db; echo '-p[redacted:password]'; "
                     f"cd wp-p{value}")
    # the SQL pattern that picks the rows the redactor walks (KbStore.events) finds it
    pattern = Redactor({value: "password"}).pattern()
    assert pattern is not None and re.search(pattern, f"mysql -u root -p{value} db")
