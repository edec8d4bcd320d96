"""Every secret rule is a table row with an example; this walks them all (issue 24)."""

from __future__ import annotations

import json

import pytest

from logparse.secrets import find_secrets, may_hold_secret, redact_text, rules

MINE = [r for r in rules() if r.name.startswith("logkb:")]


def test_every_logkb_rule_has_an_example() -> None:
    assert len(MINE) >= 20
    assert all(r.example[0] and r.example[1] for r in MINE), [
        r.name for r in MINE if not r.example[0]]


EXAMPLES = [(r, ex) for r in MINE for ex in (r.example, *r.more)]
"""Every example of every row (``_Rule.more``: a row's further examples)."""


@pytest.mark.parametrize(("rule", "example"), EXAMPLES,
                         ids=[f"{r.name}-{i}" for i, (r, _) in enumerate(EXAMPLES)])
def test_rule_finds_its_example_whole(rule: object, example: tuple[str, str]) -> None:
    text, secret = example
    assert may_hold_secret(text), "the prefilter must pass every secret's text"
    found = [(f.kind, text[f.start:f.end]) for f in find_secrets(text)]
    assert any(v == secret for _, v in found), found
    assert secret not in redact_text(text)
    # folded over two lines, as a terminal wraps it (prefixed tokens)
    if rule.fold:  # type: ignore[attr-defined]
        cut = len(secret) // 2
        folded = text.replace(secret, secret[:cut] + "\n" + secret[cut:])
        shown = redact_text(folded)
        assert secret[:cut] not in shown and secret[cut:] not in shown, shown
    # escaped once and twice, as JSON inside JSON (a Codex output in messages.raw)
    once = json.dumps(text)
    twice = json.dumps(once)
    for form in (once, twice):
        shown = redact_text(form)
        assert "[redacted:" in shown
        for piece in (secret, json.dumps(secret)[1:-1], json.dumps(json.dumps(secret))[1:-1]):
            if len(piece) >= 8:
                assert piece not in shown, (form, shown)


PW = "Hunter" + "2-x9Q!"
NINE = {  # issue 24's nine kinds that leaked by default, each as a text and its secret
    "mysql -p": (f"mysql -h db -uroot -p{PW} app", PW),
    "mysql --password": (f"mysql --password={PW} app", PW),
    "curl -u": (f"curl -u admin:{PW} https://x.example/api", PW),
    "docker login -p": (f"docker login -u me -p {PW} registry.example", PW),
    "sshpass -p": (f"sshpass -p {PW} ssh root@h", PW),
    "curl -b": ("curl -b 'sid=Qw3rTy7uI9oP2aS4' https://x.example", "sid=Qw3rTy7uI9oP2aS4"),
    "Cookie header": ("Cookie: sid=Qw3rTy7uI9oP2aS4; lang=en", "sid=Qw3rTy7uI9oP2aS4; lang=en"),
    "Basic": ("Authorization: Basic YWRtaW46SHVudGVyMi14OVEh", "YWRtaW46SHVudGVyMi14OVEh"),
    "Bearer": ("Authorization: Bearer Zk3mP9qR2vX7tL4wN8bH6", "Zk3mP9qR2vX7tL4wN8bH6"),
    "redis url": (f"redis-cli -u redis://:{PW}@cache:6379", PW),
    "postgres url": (f"psql postgres://app:{PW}@db:5432/x", PW),
    "https url": (f"git clone https://bob:{PW}@git.example/a.git", PW),
    "gitlab whole": ("glpat-" + "aB3dE5gH7jK9mN1pQ2sT", "glpat-" + "aB3dE5gH7jK9mN1pQ2sT"),
    "pem body in prose": ("I pasted MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
                          " from the key", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"),
    "folded token": ("token: ghp_" + "Zk3mP9qR2vX7tL4\nwN8bH6Zk3mP9qR2vX7tL4w", ""),
}


@pytest.mark.parametrize("name", sorted(NINE))
def test_the_kinds_that_leaked_are_found(name: str) -> None:
    text, secret = NINE[name]
    shown = redact_text(text)
    assert "[redacted:" in shown
    if secret:
        assert secret not in shown and may_hold_secret(text)
    else:  # the folded token: neither line's piece shows
        assert "Zk3mP9qR2vX7tL4" not in shown and "wN8bH6" not in shown, shown


@pytest.mark.parametrize("text", [
    "docker run -u 1000:1000 image", "git checkout -b feature", "sort -b file.txt",
    "the cookie: policy says nothing", "basic auth is disabled here",
    "/home/user/projects/MyProject2/src/components/SomethingLong/index.tsx",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
])
def test_lookalikes_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == [], [(f.kind, text[f.start:f.end]) for f in find_secrets(text)]


@pytest.mark.parametrize("token", [
    "ghp_" + "A1b2C3d4E5" * 3 + "A1b2C3",   # 36 after the prefix: fixed length
    "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",  # longer than the rule needs
    "AKIA" + "IOSFODNN7EXAMPLE",
])
def test_a_whole_token_ending_a_line_keeps_the_next_lines_words(token: str) -> None:
    """The fold finder joined `…ZZ\\nAGAIN=` and `…AB\\nerror: boom` into one token, so
    the redacted text lost `AGAIN` and `error` (and the line break) on every screen."""
    text = f"GH={token}\nAGAIN={token}\nerror: boom\n{token}\nnext"
    shown = redact_text(text)
    assert token[4:] not in shown
    assert shown.count("\n") == 4 and "\nAGAIN=[redacted:" in shown, shown
    assert "\nerror: boom\n[redacted:" in shown and shown.endswith("]\nnext"), shown
    # a token really folded (its first line too short to be whole) is still found whole
    folded = f"export GITHUB_TOKEN={token[:12]}\n{token[12:]}\nnext"
    shown = redact_text(folded)
    assert token[:12] not in shown and token[12:] not in shown and shown.endswith("\nnext")


def test_a_token_folded_over_an_escaped_line_break_is_hidden_whole() -> None:
    """In JSON-escaped text (`\\n` as two characters), an assignment rule took the first
    line of a folded token and the second half was shown."""
    token = "ghp_" + "A1b2C3d4E5" * 3 + "A1b2C3"
    text = f"export GITHUB_TOKEN={token[:22]}\\n{token[22:]}\\nnext"
    shown = redact_text(text)
    assert token[:22] not in shown and token[22:] not in shown, shown
    assert shown.endswith("]\\nnext"), shown


MW = "Tr0ub" + "&4d;or|x(9)<y>,z"  # every shell metacharacter a password may hold
SHELL_WORDS = {  # option-style rules: the value runs to the shell word's end (rvsafe2)
    "docker login -p &": (f"docker login -u me -p {MW} reg.example", MW),
    "docker login --password": (f"podman login --password={MW} reg.example", MW),
    "docker login -p quoted space": ("docker login -p 'Tr0 ub&4dor' reg", "Tr0 ub&4dor"),
    "docker login -p escaped &": ("docker login -u me -p Tr0ub\\&4dor reg", "Tr0ub\\&4dor"),
    "docker login -p backquote": ("docker login -p Tr0ub4dor`x reg", "Tr0ub4dor`x"),
    "mysql -p &": (f"mysql -uroot -p{MW} app", MW),
    "mysql -p quoted space": ("mysql -uroot -p'Tr0ub&4 dor' app", "Tr0ub&4 dor"),
    "sshpass -p &": (f"sshpass -p {MW} ssh root@h true", MW),
    "--password= &": (f"tool --password={MW} x", MW),
    "--token <>": ("tool --token Tr0ub<4dor>x --verbose", "Tr0ub<4dor>x"),
    "--api-key {}": ("tool --api-key Tr0ub{4dor} x", "Tr0ub{4dor}"),
    "--password dq escaped quote": ('tool --password "Tr0ub\\"4dor" x', 'Tr0ub\\"4dor'),
    "--secret dq space": ('tool --secret "Tr0 ub&4dor" x', "Tr0 ub&4dor"),
    "curl -u @": ("curl -u admin:Tr0ub@4dor https://x.example", "Tr0ub@4dor"),
    "curl -u &": (f"curl -u admin:{MW} https://x.example", MW),
    "curl -u quoted space": ("curl -u 'admin:Tr0 ub&4dor' https://x.example", "Tr0 ub&4dor"),
    "url userinfo @": ("psql 'postgres://u:Tr0ub@4dor@db.example/app'", "Tr0ub@4dor"),
}


@pytest.mark.parametrize("name", sorted(SHELL_WORDS))
def test_an_option_secret_runs_to_the_shell_words_end(name: str) -> None:
    """`docker login -p PASS` with an unquoted `&` in PASS: the finder stopped at the
    `&` and every screen showed the password's tail."""
    text, secret = SHELL_WORDS[name]
    assert may_hold_secret(text)
    found = [text[f.start:f.end] for f in find_secrets(text)]
    assert secret in found, found
    shown = redact_text(text)
    for piece in (secret, secret[-5:]):
        assert piece not in shown, shown
    # what follows the secret is kept
    assert shown.endswith(text[text.index(secret) + len(secret):]), shown


@pytest.mark.parametrize(("text", "kept"), [
    ("curl 'https://api.example/v1?password=Tr0ub4dor99&page=2'", "&page=2'"),
    ('cmd = "mysql --password " + pw + " app"', '" + pw + " app"'),
    ("docker login -p Tr0ub4dor reg.example && echo ok", " reg.example && echo ok"),
])
def test_a_shell_word_stops_where_the_word_does(text: str, kept: str) -> None:
    """A query string's `&` ends its value, a quoted value is not the code around it,
    and the words after the secret's word stay."""
    shown = redact_text(text)
    assert shown.endswith(kept), shown


def test_rows_carry_the_shell_word_examples() -> None:
    """The option-style rows changed for shell words each carry such an example."""
    more = {r.name for r in MINE if r.more}
    assert {"logkb:mysql-p", "logkb:user-colon", "logkb:login-p", "logkb:sshpass",
            "logkb:option", "logkb:url-userinfo"} <= more, more
