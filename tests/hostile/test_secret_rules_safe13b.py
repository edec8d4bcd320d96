"""Faults rule set logkb-12 still showed (safe13b): a Solana keypair's byte array cut into
JSON strings or pieces (joined on one line or a few, each number quoted, two arrays
added); a password's name joined to the word before it with no separator
(``adminpass=…``, ``dbpassword: …``, ``rootpwd=…``); a token's or an API key's name in
lower case with a literal shorter than the assignment row's 16 characters
(``github_token = "…"``, ``openai_apikey: …``, ``access_key=…``).  Code stays shown.

Every value is made up: keys from a seeded generator's bytes, passwords random."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from logparse.secrets import RULESET, find_secrets, may_hold_secret, redact_text
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import assert_bump_rescans, solana_key

_RNG = random.Random(13_132)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
PW = "".join(_RNG.choices(_ALNUM, k=9)) + "7"  # letters and a digit
TOK = "".join(_RNG.choices(_ALNUM, k=10)) + "3"  # 11 characters: short for a token
WORD = "hunter"

_KEY = solana_key(_RNG)
RAW = list(_KEY.private_bytes_raw() + _KEY.public_key().public_bytes_raw())
NUMS = [str(b) for b in RAW]
_OTHER = random.Random(7).randbytes(64)  # 64 random bytes: no keypair


def _pieces(nums: list[str], cuts: tuple[int, ...]) -> list[str]:
    """The array's text ``[a,b,…]`` cut at the numbers ``cuts``."""
    bounds = [0, *cuts, len(nums)]
    parts = [",".join(nums[a:b]) for a, b in zip(bounds, bounds[1:])]
    return ["[" + parts[0] + ",", *(p + "," for p in parts[1:-1]), parts[-1] + "]"]


def _forms(nums: list[str]) -> dict[str, str]:
    p3 = _pieces(nums, (20, 41))
    p2 = _pieces(nums, (30,))
    half = ",".join(nums[:32]), ",".join(nums[32:])
    return {
        "JSON strings on one line": json.dumps(p3),
        "Python strings joined by +": "K = " + " + ".join(f"'{p}'" for p in p2),
        "strings side by side": " ".join(f'"{p}"' for p in p3),
        "echo of quoted pieces": "echo " + " ".join(f"'{p}'" for p in p3) + " > id.json",
        "each number quoted": json.dumps(nums),
        "each number quoted, spaced": "[" + ", ".join(f"'{n}'" for n in nums) + "]",
        "two arrays added": f"[{half[0]}] + [{half[1]}]",
        "two bytes() added": f"kp = bytes([{half[0]}]) + bytes([{half[1]}])",
        "Uint8Array pieces": f"Uint8Array.from([{half[0]}].concat([{half[1]}]))",
        "a short first piece": json.dumps(_pieces(nums, (3, 40))),
        "JSON strings, a line each": json.dumps(p3, indent=2),
        "Python strings, a line each": "K = (" + "\n     ".join(f"'{p}'" for p in p2) + ")",
    }


FORMS = sorted(_forms(NUMS).items())


@pytest.mark.parametrize(("name", "text"), FORMS, ids=[f[0] for f in FORMS])
def test_a_keypair_array_in_pieces_is_hidden(name: str, text: str) -> None:
    runs = [",".join(NUMS[i:i + 3]) for i in range(0, 63, 3)]  # three bytes in a row
    for form in (text, f"$ cat wallet.py\n{text}\ndone", json.dumps(text)):
        assert may_hold_secret(form), "the prefilter must pass it"
        shown = redact_text(form, depth=2)
        assert "[redacted:private-key]" in shown, shown
        assert not [n for n in NUMS[1:-1] if f"{n}," in shown or f'"{n}"' in shown
                    or f"'{n}'" in shown or f'\\"{n}\\"' in shown], shown
        assert not [r for r in runs if r in shown], shown


PIECES_SHOWN = {
    **{f"64 other bytes, {k}": v for k, v in _forms([str(b) for b in _OTHER]).items()},
    "a keypair's numbers out of order": json.dumps(NUMS[32:] + NUMS[:32]),
    "a keypair's seed alone": json.dumps(_pieces(NUMS[:32], (16,))),
    "pixel rows": json.dumps([[(i * 7 + j) % 256 for j in range(64)] for i in range(4)]),
    "counts": "[" + ", ".join(f'"{i}"' for i in range(100)) + "]",
}


@pytest.mark.parametrize("name", sorted(PIECES_SHOWN))
def test_numbers_in_pieces_that_are_no_keypair_are_shown(name: str) -> None:
    text = PIECES_SHOWN[name]
    assert find_secrets(text, depth=2) == [], name


# --- a password's name with no separator ---------------------------------------------

JOINED = {
    "adminpass shell": f"adminpass={PW}",
    "adminpass, a weak word": f"export adminpass={WORD}\nnext",
    "dbpassword YAML": f"database:\n  dbpassword: {PW}\n  host: db",
    "dbpassword, a weak word": f"database:\n  dbpassword: {WORD}\n  host: db",
    "rootpwd": f"rootpwd={PW}",
    "rootpwd quoted": f'rootpwd = "{WORD}"',
    "mysql_rootpass": f"mysql_rootpass={PW}",
    "JSON": f'{{"adminpassword": "{PW}"}}',
    "clientsecret": f"clientsecret = '{PW}'",
    "userpasswd python": f"userpasswd = '{PW}'",
}


@pytest.mark.parametrize("name", sorted(JOINED))
def test_a_password_name_with_no_separator_is_hidden(name: str) -> None:
    text = JOINED[name]
    secret = PW if PW in text else WORD
    assert may_hold_secret(text)
    shown = redact_text(text)
    assert secret not in shown and "[redacted:" in shown, shown
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert secret not in redact_text(form, depth=2), form


JOINED_SHOWN = [
    "bypass=1", "bypass = hunter", "compass = north", "surpass: everything",
    "trespass=forbidden", "nopasswd: all", "topsecret = hunter", "overpass: bridge",
    "adminpass = new_pass", "dbpassword = get_password()", "rootpwd=$ROOT_PWD",
    "dbpassword = settings.dbpassword", "adminpass: ${{ secrets.ADMIN }}",
    "f(dbpassword=password)", "userpassword: SecretStr",
    "dbpassword: changeme", "const adminPassword = input;",
]


@pytest.mark.parametrize("text", JOINED_SHOWN)
def test_a_joined_word_or_code_is_shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


# --- a token's or an API key's name in lower case ------------------------------------

TOKENS = {
    "python": f'github_token = "{TOK}"',
    "python single": f"slack_bot_token = '{TOK}'",
    "YAML": f"openai_apikey: {TOK}\nmodel: x",
    "JSON": f'{{"x_api_key": "{TOK}"}}',
    "JSON compact": f'{{"service_api_key":"{TOK}"}}',
    ".env": f"access_key={TOK}\nregion=eu",
    "shell export": f"export bot_token={TOK}",
    "hyphen": f"x-api-key: {TOK}",
    "fat arrow": f"'app_token' => '{TOK}',",
}


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_a_token_name_in_lower_case_and_a_literal_is_hidden(name: str) -> None:
    text = TOKENS[name]
    assert may_hold_secret(text)
    shown = redact_text(text)
    assert TOK not in shown and "[redacted:" in shown, shown
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert TOK not in redact_text(form, depth=2), form


TOKENS_SHOWN = [
    "api_key = get_api_key()", "api_key=$API_KEY", "api_key: ${{ secrets.API_KEY }}",
    "github_token = os.environ['GITHUB_TOKEN']", "api_key = self.api_key",
    "api_key = cfg.api_key2", "id_token = id_token_v2", "refresh_token: Optional[str]",
    "access_token: str = Field(...)", 'eos_token = "</s>"', 'pad_token = "[PAD]"',
    "api_key = keys[0]", "const api_key = userKey2;", "max_token = 4096",
    "next_token: null", 'token = "abc12345"', "mytoken=abc12345", "bos_token_id = 12345678",
    'api_key: "<your-api-key>"', "user_token = jwt.encode(payload, key)",
    "api_key: your_api_key_here", "sort_key = created_at2", "github_token: ''",
    "access_key: AWS_ACCESS_KEY_ID", "csrf_token = '{{ csrf_token }}'",
    "api_key = 'sk-...'", "api_key = request.headers.get('X-Key')",
]


@pytest.mark.parametrize("text", TOKENS_SHOWN)
def test_code_that_names_a_token_is_shown(text: str) -> None:
    assert find_secrets(text) == [], [(f.rule, text[f.start:f.end]) for f in find_secrets(text)]


# --- linear, and the bump rescans ------------------------------------------------------

@pytest.mark.parametrize("unit", [
    "[1,", '["12", ', "[" + ",".join(NUMS[:20]) + "] + ", "1, ", "]) + bytes([",
    "adminpass=x ", "a_token = b\n", "x_api_key: '1234567", "[" * 7 + "1" * 7,
])
def test_the_finder_reads_long_hostile_text_in_linear_time(unit: str) -> None:
    import time

    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    t0 = time.process_time()
    may_hold_secret(text)
    find_secrets(text, depth=2)
    assert time.process_time() - t0 < 20


def test_the_ruleset_bump_rescans_at_the_next_ingest(tmp_path: Path) -> None:
    """A knowledge base scanned with logkb-12 (which showed these) is scanned again by the
    next `logkb ingest`; every output hides them."""
    assert RULESET.startswith("detect-secrets-1.5+logkb-")  # logkb-14 since safe14
    pieces = json.dumps(_pieces(NUMS, (20, 41)))
    src = write_claude_rows(tmp_path / "claude.jsonl", "5e13c0de-0000-4000-8000-000000013b02", [
        ("user", "Show me the config and the wallet."),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "cat app.conf wallet.json"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": f"adminpass={PW}\ngithub_token = '{TOK}'\n{pieces}\n"}]),
        ("assistant", [{"type": "text", "text": "Done."}])])

    def hidden(shown: str) -> bool:
        return (PW not in shown and TOK not in shown and ",".join(NUMS[4:8]) not in shown
                and "adminpass=" in shown and "github_token = " in shown)

    assert_bump_rescans(tmp_path / "kb.duckdb", src, "detect-secrets-1.5+logkb-12",
                        {"logkb:name-secret", "logkb:name-token", "logkb:keypair-pieces"},
                        hidden)
