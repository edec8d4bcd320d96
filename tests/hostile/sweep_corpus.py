"""The secret shapes today's agents print, each in a Claude Code, a Codex and an opencode
session (a tool's input, its output and the assistant's text), for the sweep of every
output path (safe11, :mod:`tests.hostile.test_secret_sweep`).

Every value is random of the right shape, drawn from a seeded generator: no real key.
Beside them, text that looks near a secret and must stay shown (git SHAs, UUIDs, sha256
digests, transaction signatures, a base64 image in Markdown, code that reads a password
from a variable)."""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from typing import Any

from logparse.secrets import b58encode, bip39_phrase
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import keypair58, solana_key

_RNG = random.Random(1111)
_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
_B64 = _ALNUM + "+/"
_HEXD = "0123456789abcdef"


def _r(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choices(alphabet, k=n))


def _pem(label: str, lines: int) -> str:
    head, tail = f"-----BEGIN {label}-----", f"-----END {label}-----"
    body = [_r(64, _B64) for _ in range(lines)] + [_r(24, _B64) + "=="]
    return "\n".join([head, *body, tail])


def _jwt() -> str:
    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    sig = base64.urlsafe_b64encode(_RNG.randbytes(32)).decode().rstrip("=")
    return ".".join((part({"alg": "HS256", "typ": "JWT"}),
                     part({"sub": _r(12), "iat": 1767225600}), sig))


_KEY = solana_key(_RNG)
KEYPAIR58 = keypair58(_KEY)
SIGNATURES = [b58encode(_KEY.sign(f"transfer {i}".encode())) for i in range(2)]
PHRASE12 = bip39_phrase(_RNG.randbytes(16))
PHRASE24 = bip39_phrase(_RNG.randbytes(32))
_KEY12 = solana_key(_RNG)
KEYPAIR58_NARROW = keypair58(_KEY12)
PHRASE_TABLE = bip39_phrase(_RNG.randbytes(16))
PHRASE_SLASH = bip39_phrase(_RNG.randbytes(16))
GCP_PEM = _pem("PRIVATE KEY", 6)
PEM_OPENSSH = _pem("OPENSSH PRIVATE KEY", 4)
PEM_EC = _pem("EC PRIVATE KEY", 2)
GCP_JSON = json.dumps({
    "type": "service_account", "project_id": "demo-project-123456",
    "private_key_id": _r(40, _HEXD), "private_key": GCP_PEM + "\n",
    "client_email": "ci@demo-project-123456.iam.gserviceaccount.com",
    "client_id": "1" + _r(20, string.digits), "token_uri": "https://oauth2.googleapis.com/token"},
    indent=2)

SECRETS: dict[str, str] = {
    "github ghp": "ghp_" + _r(36),
    "github pat": "github_pat_" + _r(22) + "_" + _r(59),
    "anthropic": "sk-ant-api03-" + _r(93, _ALNUM + "_-") + "AA",
    "openai proj": "sk-proj-" + _r(156, _ALNUM + "_-"),
    "slack bot": f"xoxb-{_r(12, string.digits)}-{_r(13, string.digits)}-{_r(24)}",
    "slack user": f"xoxp-{_r(12, string.digits)}-{_r(12, string.digits)}-"
                  f"{_r(13, string.digits)}-{_r(32, _HEXD)}",
    "aws key id": "AKIA" + _r(16, _UPPER),
    "aws secret": _r(40, _B64),
    "aws sts secret": _r(40, _B64),
    "gcp private key": GCP_PEM,
    "pem openssh": PEM_OPENSSH,
    "pem ec": PEM_EC,
    "jwt": _jwt(),
    "bearer": _r(48, _ALNUM + "-._"),
    "postgres url": _r(18, _ALNUM),
    "mongodb url": _r(20, _ALNUM),
    "stripe live": "sk_live_" + _r(99),
    "stripe restricted": "rk_live_" + _r(99),
    "npm": "npm_" + _r(36),
    "hugging face": "hf_" + _r(34, string.ascii_letters),
    "env api key": _r(40, _ALNUM),
    "env secret": _r(32, _ALNUM + "_-"),
    "phrase upper": PHRASE12.upper(),
    "phrase title": PHRASE24.title(),
    "keypair wrapped": KEYPAIR58,
    # safe12: a phrase in a numbered table, joined by `/`; a weak password in `.env`; a
    # keypair wrapped narrow, and as Python's strings
    "table phrase": "| # | Word |\n|---|------|\n" + "\n".join(
        f"| {i} | {w} |" for i, w in enumerate(PHRASE_TABLE.split(), 1)) + "\n",
    "slash phrase": "/".join(PHRASE_SLASH.split()),
    "env admin pass": _r(9, string.ascii_lowercase) + "!" + _r(3, string.digits),
    "keypair narrow": KEYPAIR58_NARROW,
}
"""Each secret by its shape; :data:`LEAKS` prints each as agents do."""

_AKIA_STS = "ASIA" + _r(16, _UPPER)
_STS_SESSION = "IQoJb3JpZ2luX2Vj" + _r(300, _B64)
SECRETS["aws sts session"] = _STS_SESSION

LEAKS: dict[str, str] = {
    "github ghp": f"git remote set-url origin https://x-access-token:{SECRETS['github ghp']}"
                  "@github.com/acme/app.git",
    "github pat": f"echo {SECRETS['github pat']} | gh auth login --with-token",
    "anthropic": f"export ANTHROPIC_API_KEY={SECRETS['anthropic']}",
    "openai proj": f'client = OpenAI(api_key="{SECRETS["openai proj"]}")',
    "slack bot": f"curl -s -H 'Authorization: Bearer {SECRETS['slack bot']}' "
                 "https://slack.com/api/auth.test",
    "slack user": f"SLACK_USER_TOKEN={SECRETS['slack user']}",
    "aws key id": f"aws_access_key_id = {SECRETS['aws key id']}",
    "aws secret": f"aws_secret_access_key = {SECRETS['aws secret']}",
    "aws sts secret": json.dumps({"Credentials": {
        "AccessKeyId": _AKIA_STS, "SecretAccessKey": SECRETS["aws sts secret"],
        "SessionToken": _STS_SESSION, "Expiration": "2026-12-06T10:00:00+00:00"}}, indent=4),
    "gcp private key": f"cat sa.json\n{GCP_JSON}",
    "pem openssh": f"cat ~/.ssh/id_ed25519\n{PEM_OPENSSH}",
    "pem ec": f"openssl ecparam -genkey -name prime256v1\n{PEM_EC}",
    "jwt": f"TOKEN={SECRETS['jwt']}",
    "bearer": f"curl -H \"Authorization: Bearer {SECRETS['bearer']}\" "
              "https://api.example.test/v1/me",
    "postgres url": f"psql postgres://app:{SECRETS['postgres url']}@db.internal:5432/app",
    "mongodb url": f"MONGO_URL=mongodb+srv://admin:{SECRETS['mongodb url']}"
                   "@cluster0.abcde.mongodb.net/prod?retryWrites=true",
    "stripe live": f"STRIPE_SECRET_KEY={SECRETS['stripe live']}",
    "stripe restricted": f"stripe.api_key = '{SECRETS['stripe restricted']}'",
    "npm": f"//registry.npmjs.org/:_authToken={SECRETS['npm']}\nnpm whoami",
    "hugging face": f"huggingface-cli login --token {SECRETS['hugging face']}",
    "env api key": f"$ cat .env\nNODE_ENV=production\nFOO_API_KEY={SECRETS['env api key']}\n",
    "env secret": f"SESSION_SECRET={SECRETS['env secret']}",
    "phrase upper": f"{SECRETS['phrase upper']}\n",
    "phrase title": f"Here it is: {SECRETS['phrase title']}.",
    "keypair wrapped": f"WALLET={KEYPAIR58[:50]}\n{KEYPAIR58[50:]}\n",
    "table phrase": SECRETS["table phrase"],
    "slash phrase": f"backup: {SECRETS['slash phrase']}",
    "env admin pass": f"$ cat .env\nADMIN_USER=root\nADMIN_PASS={SECRETS['env admin pass']}\n",
    "keypair narrow": "\n".join(KEYPAIR58_NARROW[i:i + 16] for i in range(0, 88, 16)) + "\n",
}
"""A text leaking each secret (a command, a file's content, an API's answer)."""

SHOWN: dict[str, str] = {
    "git sha": "c0ffee1" + _r(33, _HEXD),
    "uuid": "0c1a2b3c-4d5e-4f60-8a7b-" + _r(12, _HEXD),
    "sha256": _r(64, _HEXD),
    "signature": SIGNATURES[0],
    "signature 2": SIGNATURES[1],
    "image": "data:image/png;base64," + base64.b64encode(_RNG.randbytes(120)).decode(),
    "password from a variable": 'const password = data.get("password")',
    "public key": b58encode(_KEY.public_key().public_bytes_raw()),
    # safe12: a base64 dump wrapped at 76 columns is no key's body
    "base64 dump": base64.encodebytes(_RNG.randbytes(300)).decode().rstrip("\n"),
    "admin pass placeholder": "ADMIN_PASS=${ADMIN_PASS}",
}
"""Near-secret text that must stay shown."""

KEPT = (f"commit {SHOWN['git sha']}\nrequest {SHOWN['uuid']}\n"
        f"sha256:{SHOWN['sha256']}  dist/app.tar.gz\n"
        f"![chart]({SHOWN['image']})\n{SHOWN['password from a variable']}\n"
        f"pubkey: {SHOWN['public key']}\n"
        f"keypair\n{SHOWN['signature']}\nSignature: {SHOWN['signature 2']}\n"
        f"$ base64 logo.png\n{SHOWN['base64 dump']}\n{SHOWN['admin pass placeholder']}\n")
"""The near-secret text as one tool output (a signature after a keypair's cue)."""

WORD = "quokkafy"
"""A plain word in every event: search and the handoff find it."""


def pieces() -> list[str]:
    """What must never show: each secret, its head and tail (16 characters), each line
    of a multi-line one, and their JSON-escaped forms."""
    out: set[str] = set()
    for name, v in SECRETS.items():
        if name == "table phrase":  # a row a word: `| 3 | velvet |`
            out.update(v.split("\n")[2:-1])
            continue
        if "\n" in v:
            out.update(ln for ln in v.split("\n")[1:-1] if len(ln) >= 16)
            continue
        if name.startswith("phrase"):
            words = v.split()
            out.update((" ".join(words[:3]), " ".join(words[-3:]), v))
            continue
        out.update((v, v[:16], v[-16:]))
        if name == "keypair wrapped":
            out.update((v[:50], v[50:]))
        if name == "keypair narrow":
            out.update(v[i:i + 16] for i in range(0, 80, 16))
    forms = set()
    for p in out:
        forms.update((p, json.dumps(p)[1:-1], json.dumps(json.dumps(p))[1:-1]))
    return sorted(f for f in forms if len(f) >= 12)


def write_claude(path: Path) -> Path:
    rows: list[tuple[str, object]] = [("user", f"Please {WORD} the deploy.")]
    for i, (name, leak) in enumerate(LEAKS.items()):
        cid = f"toolu_{i:03d}"
        rows += [
            ("assistant", [{"type": "text", "text": f"Next I {WORD} {name}: {leak}"},
                           {"type": "tool_use", "id": cid, "name": "Bash",
                            "input": {"command": leak, "description": f"{WORD} {name}"}}]),
            ("user", [{"type": "tool_result", "tool_use_id": cid,
                       "content": f"{WORD}: {leak}\nok\n", "is_error": False}])]
    rows += [("assistant", [{"type": "tool_use", "id": "toolu_kept", "name": "Bash",
                             "input": {"command": f"{WORD} --report"}}]),
             ("user", [{"type": "tool_result", "tool_use_id": "toolu_kept", "content": KEPT}]),
             ("assistant", [{"type": "text", "text": f"The {WORD} deploy is done.\n{KEPT}"}])]
    return write_claude_rows(path, "5e11c0de-4d5e-4f60-8a7b-8c9d0e1f2a11", rows)


def write_codex(path: Path) -> Path:
    ts = "2026-10-01T10:00:00Z"
    sid = "019a0000-0000-7000-8000-0000000005e1"
    recs: list[dict[str, Any]] = [{"timestamp": ts, "type": "session_meta", "payload": {
        "id": sid, "timestamp": ts, "cwd": "/w", "cli_version": "0.46.0"}}]

    def item(payload: dict[str, Any]) -> None:
        recs.append({"timestamp": "2026-10-01T10:00:01.000Z", "type": "response_item",
                     "payload": payload})

    item({"type": "message", "role": "user",
          "content": [{"type": "input_text", "text": f"Please {WORD} the deploy."}]})
    for i, (name, leak) in enumerate([*LEAKS.items(), ("kept", KEPT)]):
        cid = f"call_{i:03d}"
        item({"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": f"Next I {WORD} {name}: {leak}"}]})
        item({"type": "function_call", "name": "shell", "call_id": cid,
              "arguments": json.dumps({"command": ["bash", "-lc", leak], "workdir": "/w"})})
        item({"type": "function_call_output", "call_id": cid, "output": json.dumps(
            {"output": f"{WORD}: {leak}\nok\n",
             "metadata": {"exit_code": 0, "duration_seconds": 0.1}})})
    item({"type": "message", "role": "assistant",
          "content": [{"type": "output_text", "text": f"The {WORD} deploy is done."}]})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path


def write_opencode(outdir: Path) -> list[Path]:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_all as write_tree

    ctx = BuildContext(random.Random(1111), directory="/home/dev/sweep", project_id="5e" * 20)
    b = SessionBuilder(ctx, title="", start_ms=1_795_000_000_000)
    b.user(f"Please {WORD} the deploy.")
    for name, leak in LEAKS.items():
        b.step(f"Next I {WORD} {name}: {leak}",
               [bash(leak, f"{WORD}: {leak}\nok\n", description=f"{WORD} {name}")])
    b.step(f"Next I {WORD} the report.", [bash(f"{WORD} --report", KEPT)])
    b.step(f"The {WORD} deploy is done.")
    outdir.mkdir(parents=True, exist_ok=True)
    write_tree(b.tree(), outdir)
    return [outdir / "export.json", *sorted(outdir.glob("export-*.json"))]


def write_all(outdir: Path) -> list[Path]:
    """The three sessions under ``outdir``; the files to ingest."""
    return [*write_opencode(outdir / "opencode"), write_claude(outdir / "claude.jsonl"),
            write_codex(outdir / "rollout-2026-10-01T10-00-00-sweep.jsonl")]


if __name__ == "__main__":  # write the corpus where asked (a manual check)
    import sys

    for p in write_all(Path(sys.argv[1])):
        print(p)
