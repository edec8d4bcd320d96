"""Small synthetic sessions in the six agents' formats, each leaking every secret kind
issue 24 found shown by default (fake values, built from pieces).

Every secret sits in a prompt, a command, an output and the assistant's prose of an
opencode export, a Claude Code JSONL transcript and a Codex rollout (whose tool outputs
are JSON inside JSON, so ``messages.raw`` holds them escaped twice), a Gemini CLI chat
log, a pi session and an Antigravity trajectory (whose call arguments are JSON-encoded).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any


def _x(*parts: str) -> str:
    return "".join(parts)


PW = _x("Tr0ub4dor", "-&3xQ")
COOKIE = _x("sid=", "Qw3rTy7uI9oP2aS4dF6g")
BASIC = "YWRtaW46VHIwdWI0ZG9yLSYzeFE="  # base64 of admin:Tr0ub4dor-&3xQ
BEARER = _x("Zk3mP9qR2vX7", "tL4wN8bH6yC5")
GLPAT = _x("glpat-", "aB3dE5gH7jK9mN1pQ2sT")
GHP = _x("ghp", "_", "R4nd0mT0k3nV4lu3Qw3rTy7uI9oP2aS4dF6g")[:40]
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_RNG = random.Random(24)
PEM_BODY = "".join(_RNG.choices(_B64, k=64))
KEY = _x("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n") + "\n".join(
    "".join(_RNG.choices(_B64, k=64)) for _ in range(4)) + _x("\n-----END OPENSSH ",
                                                              "PRIVATE KEY-----")

AWS_SECRET = "".join(_RNG.choices(_B64, k=40))
AWS_ID = _x("ZK3MP9Q", "R2VX7TL4WN8B")
AWS_SESSION = _x("IQoJb3JpZ2luX2Vj", "".join(_RNG.choices(_B64, k=96)))
KEYPAIR = "[" + ",".join(str(_RNG.randrange(256)) for _ in range(64)) + "]"
"""A Solana keypair as ``solana-keygen`` writes ``id.json`` (64 bytes)."""
HEX_KEY = "0x" + "".join(_RNG.choices("0123456789abcdef", k=64))
MNEMONIC = _x("velvet orbit canyon humble ladder pepper ritual sample tobacco unusual",
              " wagon zebra")
"""12 words of the BIP-39 list (a made-up phrase)."""

NAMED_PW = _x("Qz7", "vR2mK9xw")
"""A password assigned to a name in lower case (safe13: ``admin_pass = …``)."""


def _made_up_key_body() -> str:
    """The body of a made-up RSA private key (its DER's shape, numbers from a seeded
    generator: no key anybody holds), 76 columns, cut at the top as ``tail`` shows it."""
    import base64

    rng = random.Random(13)

    def integer(n: int) -> bytes:
        body = bytes([rng.randrange(1, 128)]) + rng.randbytes(n - 1)
        return b"\x02" + (bytes([0x81, n]) if n < 256 else bytes([0x82, n >> 8, n & 255])) + body

    parts = (b"\x02\x01\x00" + integer(256) + b"\x02\x03\x01\x00\x01" + integer(256)
             + b"".join(integer(128) for _ in range(5)))
    der = b"\x30\x82" + len(parts).to_bytes(2, "big") + parts
    b64 = base64.b64encode(der).decode()
    return "\n".join(b64[i:i + 76] for i in range(304, len(b64), 76))


KEY_BODY = _made_up_key_body()


def _made_up_keypair() -> str:
    """A Solana keypair in base58 (a seeded seed and its Ed25519 public key), 7 characters
    a line: 13 pieces."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from logparse.secrets import b58encode

    k = Ed25519PrivateKey.from_private_bytes(random.Random(1313).randbytes(32))
    kp = b58encode(k.private_bytes_raw() + k.public_key().public_bytes_raw())
    return "\n".join(kp[i:i + 7] for i in range(0, len(kp), 7))


KEYPAIR_PIECES = _made_up_keypair()

SECRETS: dict[str, str] = {
    "mysql -p": PW + "a", "mysql --password": PW + "b", "curl -u": PW + "c",
    "docker login -p": PW + "d", "sshpass -p": PW + "e", "cookie": COOKIE,
    "basic": BASIC, "bearer": BEARER, "redis url": PW + "f", "postgres url": PW + "g",
    "https url": PW + "h", "gitlab": GLPAT, "pem body": PEM_BODY, "folded": GHP,
    "private key": KEY,
    "docker login -p &": _x("Tr0ub", "&4d;or|x(9)<y>,zQ"),
    "url userinfo @": _x("Tr0ub", "@4dor~Wq7"),
    # safe9: round 9's kinds
    "aws configure secret": AWS_SECRET, "aws configure id": AWS_ID,
    "aws configure session": AWS_SESSION, "keypair": KEYPAIR, "mnemonic": MNEMONIC,
    "hex private key": HEX_KEY,
    # safe13: a name in lower case, a key's body with no BEGIN line, a keypair in pieces
    "name in lower case": NAMED_PW, "key body": KEY_BODY, "keypair pieces": KEYPAIR_PIECES,
}
"""Each secret by the kind of leak it stands for (``private key``: a whole PEM block)."""

LEAKS: dict[str, str] = {
    "mysql -p": f"mysql -h db -uroot -p{SECRETS['mysql -p']} app -e 'select 1'",
    "mysql --password": f"mysql --password={SECRETS['mysql --password']} app",
    "curl -u": f"curl -s -u admin:{SECRETS['curl -u']} https://api.example/v1/users",
    "docker login -p": f"docker login -u deploy -p {SECRETS['docker login -p']} reg.example",
    "sshpass -p": f"sshpass -p {SECRETS['sshpass -p']} ssh root@gpu1 nvidia-smi",
    "cookie": f"curl -b '{COOKIE}' -H 'Cookie: {COOKIE}' https://app.example/admin",
    "basic": f"curl -H 'Authorization: Basic {BASIC}' https://api.example/v1",
    "bearer": f"curl -H 'Authorization: Bearer {BEARER}' https://api.example/v1",
    "redis url": f"redis-cli -u redis://:{SECRETS['redis url']}@cache:6379 ping",
    "postgres url": f"psql postgres://app:{SECRETS['postgres url']}@db:5432/app -c 'select 1'",
    "https url": f"git clone https://bob:{SECRETS['https url']}@git.example/team/app.git",
    "gitlab": f"git push https://oauth2:{GLPAT}@gitlab.example/team/app.git",
    "pem body": f"the second line of the old key was {PEM_BODY} if I remember",
    "folded": f"export GITHUB_TOKEN={GHP[:22]}\n{GHP[22:]}",
    "private key": f"cat ~/.ssh/id_ed25519\n{KEY}",
    # rvsafe2: an unquoted password holding shell metacharacters, one holding `@`
    "docker login -p &": f"docker login -u ci -p {SECRETS['docker login -p &']} reg.example",
    "url userinfo @": f"psql 'postgres://app:{SECRETS['url userinfo @']}@db:5432/app'",
    "aws configure secret": f"aws configure set aws_secret_access_key {AWS_SECRET}",
    "aws configure id": f"aws configure set aws_access_key_id {AWS_ID} --profile ci",
    "aws configure session": f"aws configure set aws_session_token {AWS_SESSION}",
    "keypair": f"cat ~/.config/solana/id.json && echo {KEYPAIR}",
    "mnemonic": f'cast wallet import dev --mnemonic "{MNEMONIC}"',
    "hex private key": f"cast send --private-key {HEX_KEY} 0xabc 'ping()'",
    "name in lower case": f"cat app.ini\n[db]\nadmin_pass = {NAMED_PW}\nhost = db",
    "key body": f"tail -n 12 k.b64\n{KEY_BODY}\n",
    "keypair pieces": f"cat wallet.txt\n{KEYPAIR_PIECES}\n",
}
"""A text leaking each secret as transcripts do."""

WORD = "frobnicate"
"""A plain word in every event: search and the filters must still find it."""
CJK_WORD = "数据库"
"""A word inside unspaced Chinese (the opencode prompt): a CJK search finds it."""


def pieces() -> list[str]:
    """What must never show: each secret, its head and tail, each line of the key, the
    folded token's two lines, and their JSON-escaped forms."""
    out: set[str] = set()
    for name, v in SECRETS.items():
        if name == "folded":  # never whole in the text: its two lines are
            continue
        if "\n" in v:
            out.update(ln for ln in v.split("\n")[1:-1])
        else:
            out.update((v, v[:10], v[-10:]))
    out.update((GHP[:22], GHP[22:]))
    short = set(KEYPAIR_PIECES.split("\n")[1:-1])  # 7 characters of base58: no chance hit
    return sorted(p for p in out if len(p) >= 8 or p in short)


# ------------------------------------------------------------------ opencode
def write_opencode(outdir: Path) -> list[Path]:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_all

    ctx = BuildContext(random.Random(24), directory="/home/dev/hostile", project_id="ef" * 20)
    b = SessionBuilder(ctx, title="", start_ms=1_790_000_000_000)
    b.user(f"Please {WORD} the app. " + " ".join(LEAKS[k] for k in ("redis url", "basic"))
           + f"\n请{WORD}数据库连接失败的问题：{LEAKS['https url']}")
    for name, leak in LEAKS.items():
        cmd = leak if "\n" not in leak else leak.split("\n", 1)[0]
        b.step(f"Next I {WORD} with {name}: {leak}", [
            bash(cmd, f"{WORD}: {leak}\nok\n"),
        ])
    b.step(f"The {WORD} approach is a dead end: the app is not installed.")
    outdir.mkdir(parents=True, exist_ok=True)
    write_all(b.tree(), outdir)
    return [outdir / "export.json", *sorted(outdir.glob("export-*.json"))]


# ------------------------------------------------------------------ Claude Code
def write_claude(path: Path) -> Path:
    sid = "0c1a2b3c-4d5e-4f60-8a7b-8c9d0e1f2a3b"
    lines: list[dict[str, Any]] = []
    n = 0
    last: str | None = None

    def line(kind: str, content: Any) -> None:
        nonlocal n, last
        n += 1
        msg: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            msg.update(id=f"msg_{n}", model="claude-opus-4-5", type="message")
        uuid = f"u-{n:06d}"
        lines.append({"parentUuid": last, "isSidechain": False, "sessionId": sid, "cwd": "/w",
                      "version": "2.0.1", "gitBranch": "main", "type": kind, "message": msg,
                      "uuid": uuid,
                      "timestamp": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}Z"})
        last = uuid

    line("user", f"Please {WORD} the app. {LEAKS['mysql -p']}")
    for i, (name, leak) in enumerate(LEAKS.items()):
        cid = f"toolu_{i:03d}"
        line("assistant", [{"type": "text", "text": f"Next I {WORD} with {name}: {leak}"},
                           {"type": "tool_use", "id": cid, "name": "Bash",
                            "input": {"command": leak, "description": f"{WORD} {name}"}}])
        line("user", [{"type": "tool_result", "tool_use_id": cid,
                       "content": f"{WORD}: {leak}\nok\n", "is_error": False}])
    # a sub-agent that failed, its error holding a secret; one run in the background whose
    # <task-notification> reports a failure holding another; a run whose failure line
    # ("... failed: why") holds a third
    line("assistant", [{"type": "tool_use", "id": "toolu_sub", "name": "Task", "input": {
        "description": f"{WORD} the cache", "prompt": f"{WORD} the cache",
        "subagent_type": "general-purpose"}}])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_sub", "is_error": True,
                   "content": f"Agent failed: {LEAKS['redis url']}"}])
    line("assistant", [{"type": "tool_use", "id": "toolu_bg", "name": "Task", "input": {
        "description": f"{WORD} the database", "prompt": f"{WORD} the database",
        "subagent_type": "general-purpose", "run_in_background": True}}])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_bg", "content": [
        {"type": "text", "text": "Async agent launched successfully.\nagentId: "
                                 "a1b2c3d4e5f6a7b8c\noutput_file: /tmp/a1b2c3d4e5f6a7b8c.output"}]}])
    line("user", "<task-notification>\n<task-id>a1b2c3d4e5f6a7b8c</task-id>\n<tool-use-id>"
                 "toolu_bg</tool-use-id>\n<status>failed</status>\n<summary>Agent "
                 f"\"{WORD} the database\" failed: {LEAKS['postgres url']}</summary>\n"
                 "</task-notification>")
    line("assistant", [{"type": "tool_use", "id": "toolu_push", "name": "Bash", "input": {
        "command": "git push origin main", "description": f"{WORD} push"}}])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_push", "is_error": True,
                   "content": f"Exit code 1\nerror: {WORD} push failed: {LEAKS['gitlab']}"}])
    # the session ends on the agent's question (the hand-off quotes it: ``asked``)
    line("assistant", [{"type": "text", "text": f"The {WORD} approach is a dead end.\n\n"
                        f"Would you like me to retry with {LEAKS['cookie']}?"}])
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


# ------------------------------------------------------------------ Codex
def write_claude_rows(path: Path, sid: str, rows: list[tuple[str, object]]) -> Path:
    """A Claude Code session at ``path``: one line per ``(role, content)`` row, each
    linked to the one before it, a second apart."""
    lines = []
    for n, (kind, body) in enumerate(rows, 1):
        msg: dict[str, object] = {"role": kind, "content": body}
        if kind == "assistant":
            msg.update(id=f"msg_{n}", model="claude-opus-4-5", type="message")
        lines.append({"parentUuid": f"u-{n - 1}" if n > 1 else None, "isSidechain": False,
                      "sessionId": sid, "cwd": "/w", "version": "2.0.1", "type": kind,
                      "message": msg, "uuid": f"u-{n}",
                      "timestamp": f"2026-01-01T00:00:{n:02d}Z"})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def write_codex(path: Path) -> Path:
    sid = "019a0000-0000-7000-8000-0000000000c4"
    ts = "2025-10-01T10:00:00Z"
    recs: list[dict[str, Any]] = [
        {"timestamp": ts, "type": "session_meta",
         "payload": {"id": sid, "timestamp": ts, "cwd": "/w", "cli_version": "0.46.0"}}]

    def item(payload: dict[str, Any]) -> None:
        recs.append({"timestamp": "2025-10-01T10:00:01.000Z", "type": "response_item",
                     "payload": payload})

    item({"type": "message", "role": "user",
          "content": [{"type": "input_text", "text": f"Please {WORD} the app. "
                       f"{LEAKS['docker login -p']}"}]})
    for i, (name, leak) in enumerate(LEAKS.items()):
        cid = f"call_{i:03d}"
        item({"type": "message", "role": "assistant",
              "content": [{"type": "output_text", "text": f"Next I {WORD} with {name}: {leak}"}]})
        item({"type": "function_call", "name": "shell", "call_id": cid,
              "arguments": json.dumps({"command": ["bash", "-lc", leak], "workdir": "/w"})})
        out = json.dumps({"output": f"{WORD}: {leak}\nok\n",
                          "metadata": {"exit_code": 0, "duration_seconds": 0.1}})
        item({"type": "function_call_output", "call_id": cid, "output": out})
    # sub-agents: one whose task holds a secret across the 300 characters the graph keeps
    # of it, and whose wait reports an error holding a secret; one not waited for, its
    # <subagent_notification> reporting an error holding another
    head = f"{WORD} the deploy. "
    task = head + "x" * (288 - len(head) - len("curl -s -u admin:")) + LEAKS["curl -u"]
    assert task.index(SECRETS["curl -u"]) == 288  # 12 of its 15 characters before 300
    item({"type": "function_call", "name": "spawn_agent", "call_id": "call_spawn",
          "arguments": json.dumps({"message": task})})
    item({"type": "function_call_output", "call_id": "call_spawn",
          "output": json.dumps({"agent_id": "019a3f52-7c1e-7d10-9b8e-2f4c5a6b7c8d"})})
    item({"type": "function_call", "name": "wait", "call_id": "call_wait",
          "arguments": json.dumps({"ids": ["019a3f52-7c1e-7d10-9b8e-2f4c5a6b7c8d"]})})
    item({"type": "function_call_output", "call_id": "call_wait", "output": json.dumps(
        {"status": {"019a3f52-7c1e-7d10-9b8e-2f4c5a6b7c8d": {
            "errored": f"{WORD} failed: {LEAKS['gitlab']}"}}, "timed_out": False})})
    item({"type": "function_call", "name": "spawn_agent", "call_id": "call_spawn2",
          "arguments": json.dumps({"message": f"{WORD} the README"})})
    item({"type": "function_call_output", "call_id": "call_spawn2",
          "output": json.dumps({"agent_id": "019a3f53-0a2b-7c3d-8e4f-5a6b7c8d9e0f"})})
    item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": (
        "<subagent_notification>\n" + json.dumps(
            {"agent_id": "019a3f53-0a2b-7c3d-8e4f-5a6b7c8d9e0f",
             "status": {"errored": f"{WORD}: {LEAKS['bearer']}"}})
        + "\n</subagent_notification>")}]})
    item({"type": "message", "role": "assistant",
          "content": [{"type": "output_text", "text": f"The {WORD} approach is a dead end."
                       f"\n\nShall I retry it with {LEAKS['basic']}?"}]})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


# ------------------------------------------------------------------ Gemini CLI

def write_gemini(path: Path) -> Path:
    """A Gemini CLI chat log: the reply written first as its text, then again with its
    ``run_shell_command`` call and result (as the CLI does), a thought leaking too."""
    ts = "2026-05-06T16:09:29.426Z"
    recs: list[dict[str, Any]] = [
        {"sessionId": "9e4a1c2b-0d3e-4f5a-8b6c-7d8e9f0a1b2c", "projectHash": "ab" * 32,
         "startTime": ts, "lastUpdated": ts, "kind": "main"},
        {"id": "u-0", "timestamp": ts, "type": "user",
         "content": [{"text": f"Please {WORD} the app. {LEAKS['curl -u']}"}]}]
    for i, (name, leak) in enumerate(LEAKS.items()):
        reply = {"id": f"g-{i}", "timestamp": ts, "type": "gemini", "model": "gemini-3",
                 "content": f"Next I {WORD} with {name}: {leak}",
                 "thoughts": [{"subject": WORD, "description": leak, "timestamp": ts}],
                 "tokens": {"input": 10, "output": 5, "cached": 0, "thoughts": 1, "total": 16}}
        recs.append(reply)
        recs.append({"$set": {"lastUpdated": ts}})
        recs.append({**reply, "toolCalls": [{
            "id": f"run_shell_command-{i}", "name": "run_shell_command",
            "args": {"command": leak, "description": f"{WORD} {name}"}, "status": "success",
            "timestamp": ts, "result": [{"functionResponse": {
                "id": f"run_shell_command-{i}", "name": "run_shell_command",
                "response": {"output": f"Output: {WORD}: {leak}\nok\n"
                                       "Process Group PGID: 7"}}}]}]})
    # a branch the user rewound away from (``$rewindTo``): its prompt, reply and call hold
    # secrets
    recs.append({"id": f"u-r-{GLPAT}", "timestamp": ts, "type": "user",
                 "content": [{"text": f"Now {WORD} with {LEAKS['https url']}"}]})
    recs.append({"id": "g-r", "timestamp": ts, "type": "gemini", "model": "gemini-3",
                 "content": f"Rewound {WORD}: {LEAKS['https url']}", "toolCalls": [{
                     "id": "run_shell_command-r", "name": "run_shell_command",
                     "args": {"command": LEAKS["https url"]}, "status": "error",
                     "timestamp": ts, "result": [{"functionResponse": {
                         "id": "run_shell_command-r", "name": "run_shell_command",
                         "response": {"output": f"Output: {WORD} failed: "
                                                f"{LEAKS['https url']}\nExit Code: 1"}}}]}]})
    recs.append({"$rewindTo": f"u-r-{GLPAT}"})  # an id holding a secret
    recs.append({"id": "u-after", "timestamp": ts, "type": "user",
                 "content": [{"text": f"Never mind, {WORD} the app as it was."}]})
    recs.append({"id": "g-end", "timestamp": ts, "type": "gemini", "model": "gemini-3",
                 "content": f"The {WORD} approach is a dead end."})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


# ------------------------------------------------------------------ pi

def write_pi(path: Path) -> Path:
    ts = "2026-06-08T17:05:46.114Z"
    recs: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "019ea801-0000-7000-8000-0000000000e1",
         "timestamp": ts, "cwd": "/w"},
        {"type": "model_change", "id": "m0", "parentId": None, "timestamp": ts,
         "provider": "anthropic", "modelId": "claude-sonnet-4-6"},
        {"type": "message", "id": "p0", "parentId": "m0", "timestamp": ts,
         "message": {"role": "user", "content": [
             {"type": "text", "text": f"Please {WORD} the app. {LEAKS['sshpass -p']}"}]}}]
    last = "p0"
    for i, (name, leak) in enumerate(LEAKS.items()):
        cid = f"toolu_{i:03d}"
        recs.append({"type": "message", "id": f"a{i}", "parentId": last, "timestamp": ts,
                     "message": {"role": "assistant", "stopReason": "toolUse", "content": [
                         {"type": "thinking", "thinking": f"{WORD}: {leak}"},
                         {"type": "text", "text": f"Next I {WORD} with {name}: {leak}"},
                         {"type": "toolCall", "id": cid, "name": "bash",
                          "arguments": {"command": leak}}]}})
        recs.append({"type": "message", "id": f"r{i}", "parentId": f"a{i}", "timestamp": ts,
                     "message": {"role": "toolResult", "toolCallId": cid, "toolName": "bash",
                                 "content": [{"type": "text", "text": f"{WORD}: {leak}\nok\n"}],
                                 "isError": False}})
        last = f"r{i}"
    revise = [
        ("look", None, "psql -c '\\d game_players'", "pre_rating | integer\npost_rating | int\n"),
        ("revise", "The ratings table only stores current ratings without historical data, "
                   "so I'll skip the rating history chart. Actually, I can reconstruct rating "
                   "history from the game_players table since the dump at "
                   f"{LEAKS['postgres url']} records pre_rating values.",
         "psql -c 'select pre_rating from game_players'", f"{WORD}\n1500\n"),
    ]
    for rid, thinking, cmd, out in revise:
        content: list[dict[str, Any]] = [{"type": "thinking", "thinking": thinking}] \
            if thinking else []
        content.append({"type": "toolCall", "id": f"t-{rid}", "name": "bash",
                        "arguments": {"command": cmd}})
        recs.append({"type": "message", "id": f"a-{rid}", "parentId": last, "timestamp": ts,
                     "message": {"role": "assistant", "stopReason": "toolUse",
                                 "content": content}})
        recs.append({"type": "message", "id": f"r-{rid}", "parentId": f"a-{rid}",
                     "timestamp": ts, "message": {
                         "role": "toolResult", "toolCallId": f"t-{rid}", "toolName": "bash",
                         "content": [{"type": "text", "text": out}], "isError": False}})
        last = f"r-{rid}"
    recs.append({"type": "message", "id": "end", "parentId": last, "timestamp": ts,
                 "message": {"role": "assistant", "stopReason": "stop", "content": [
                     {"type": "text", "text": f"The {WORD} approach is a dead end."}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


# ------------------------------------------------------------------ Antigravity

def write_antigravity(path: Path) -> Path:
    """An Antigravity trajectory: every call argument JSON-encoded as a string (so the raw
    record holds a command escaped twice), each call's ``RUN_COMMAND`` step after it."""
    at = "2026-06-18T22:17:25Z"
    recs: list[dict[str, Any]] = [
        {"step_index": 0, "source": "USER_EXPLICIT", "type": "USER_INPUT", "status": "DONE",
         "created_at": at, "content": f"<USER_REQUEST>\nPlease {WORD} the app. "
                                      f"{LEAKS['postgres url']}\n</USER_REQUEST>"}]
    for name, leak in LEAKS.items():
        recs.append({"step_index": len(recs), "source": "MODEL", "type": "PLANNER_RESPONSE",
                     "status": "DONE", "created_at": at,
                     "content": f"Next I {WORD} with {name}: {leak}", "thinking": leak,
                     "tool_calls": [{"name": "run_command", "args": {
                         "CommandLine": json.dumps(leak), "Cwd": json.dumps("/w"),
                         "toolSummary": json.dumps(f"{WORD} {name}")}}]})
        recs.append({"step_index": len(recs), "source": "MODEL", "type": "RUN_COMMAND",
                     "status": "DONE", "created_at": at,
                     "content": f"Created At: {at}\nCompleted At: {at}\nThe command completed "
                                f"successfully.\nOutput:\n{WORD}: {leak}\nok\n"})
    recs.append({"step_index": len(recs), "source": "MODEL", "type": "PLANNER_RESPONSE",
                 "status": "DONE", "created_at": at,
                 "content": f"The {WORD} approach is a dead end."})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def write_all(outdir: Path) -> list[Path]:
    """The sessions under ``outdir``; the files to ingest."""
    return [*write_opencode(outdir / "opencode"), write_claude(outdir / "claude.jsonl"),
            write_codex(outdir / "rollout-2025-10-01T10-00-00-codex.jsonl"),
            write_gemini(outdir / "session-2026-05-06T16-09-9e4a1c2b.jsonl"),
            write_pi(outdir / "2026-06-08T17-05-46-114Z_019ea801.jsonl"),
            write_antigravity(outdir / "antigravity-trajectory.jsonl")]
