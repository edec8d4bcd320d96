"""A way replaced by another way to the same goal: structure only, no phrases.

Two shapes the agents leave in their own records (Codex ``exec_command_end`` exit codes
and sandbox fields, Claude Code ``is_error`` / exit codes), read from the
:class:`~kb.graph.episodes.Step` rows:

* **escalated**: a run that failed inside the sandbox, then the same run asked for
  outside the sandbox (Codex ``require_escalated``).  The agent's own escalation says the
  sandboxed way could not work: the escalated run worked (``sandboxed``), or it did not
  simply work (the user stopped it, it failed otherwise, it is still running at export)
  and the sandbox explains the failure inside (:data:`SANDBOX`: no network, a write or a
  listen denied).
* **switched**: a run that failed and was never made to work as it was, then a run of
  *another* command on the same *object* that worked (the same contract address asked
  from another endpoint, the same package through another installer or at another
  version), or the same check through another *runner* (:data:`RUNNERS`: ``npm install``
  through PowerShell after the Bash tool printed nothing).  One failure fixed by the very
  next call is a slip (a trap, not a dead end); the same way failing twice and then
  replaced is not; a change made in between is a fix, not a switch.

Every table (:data:`OBJECTS`, :data:`RUNNERS`, :data:`SANDBOX`) is rows with a real
example; ``tests/kb/test_switched.py`` walks them.  The extractor passes these episodes
to :func:`kb.graph.episodes.episodes`, which weighs them with its own.

Pure: steps in, :class:`~kb.graph.episodes.Found` out.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from kb.graph.episodes import (
    _NETWORK_SIG,
    _PREFIX,
    _PRELUDE,
    _REDIRECT,
    _SPLIT,
    CHAIN_GAP,
    SLIP,
    Found,
    Said,
    Step,
    _dedupe,
    chain_key,
    check_key,
)
from kb.graph.text import short, tokens


@dataclass(frozen=True)
class ObjectRule:
    """What a command acts on, whichever program runs it."""

    name: str
    pattern: re.Pattern[str]
    example: tuple[str, str]
    """A real command (trimmed) and the object the rule reads from it."""
    source: str
    """Where the example comes from: the transcript (``../shared/realworld``) and ordinal."""
    fold: bool = True
    """Compare case-insensitively (hex ids, file names on macOS/Windows)."""
    words: bool = False
    """Group 1 is a list of arguments: each one (flags and versions left out) is one."""
    shortest: int = 6
    """Shorter objects name nothing in particular (``/api``, ``0x1``)."""

    def find(self, command: str) -> set[str]:
        got = {m.group(1) if m.groups() else m.group() for m in
               self.pattern.finditer(command[:1200])}
        if self.words:
            got = {_VERSION.sub("", w.strip("\"'")) for g in got for w in g.split()
                   if not w.startswith("-")}
        return {g.lower() if self.fold else g for g in got if len(g) >= self.shortest}


_VERSION = re.compile(r"(?<=.)@[^/\s]*$|[=<>~!^]=?.*$|\[.*$")
"""A version or extra after a package's name (``foo@2``, ``foo==1.0``, ``foo[cli]``)."""


OBJECTS: tuple[ObjectRule, ...] = (
    ObjectRule(
        "hex id (an on-chain address, a hash)",
        re.compile(r"(?<![\w])(0x[0-9a-fA-F]{16,})(?![0-9a-fA-F])"),
        # blockchain-dex-events (Claude Code, tune), #114: the V1 explorer API failed on
        # this address, the same address was then asked from an RPC node
        ("curl -s -X POST https://polygon-bor-rpc.publicnode.com -d '[{\"method\":"
         "\"eth_call\",\"params\":[{\"to\":\"0xa5e0829caced8ffdd4de3c43696c57f7d7a678ff\"}]}]'",
         "0xa5e0829caced8ffdd4de3c43696c57f7d7a678ff"),
        source="pool/blockchain-dex-events__claude-session.jsonl #114"),
    ObjectRule(
        "a document or data file",
        re.compile(r"(?<![\w.-])([\w.-]+\.(?:docx|xlsx|xls|pptx|pdf|odt|ods|csv|tsv|parquet"
                   r"|sqlite3?|zip|tgz|dmg|whl|jar|apk))\b", re.I),
        # conversacion-act1-pln (Claude Code, tune), #4: python-docx could not read it, so
        # the document was converted with macOS textutil
        ("textutil -convert txt -stdout \"/Users/u/Mi unidad/Unir/PLN /Actividad 1/"
         "muinar02_act1/muinar02_act1.docx\"", "muinar02_act1.docx"),
        source="pool/conversacion-act1-pln__session.jsonl #4"),
    ObjectRule(
        "a package an installer installs (whichever installer, whichever version)",
        re.compile(r"(?:^|[;&|(]\s*|\s)(?:npm|pnpm|yarn|bun|pip3?|uv\s+pip|uv|poetry|pipx"
                   r"|conda|mamba|brew|cargo|gem|composer)\s+(?:install|add|i|require)"
                   r"((?:\s+(?:--?[\w-]+(?:=\S+)?|[\"']?[@a-zA-Z][\w@/.=<>~^!\[\],-]*[\"']?))+)",
                   re.I),
        # conversacion-act1-pln (Claude Code, tune), #5: openpyxl was missing; installed
        ("pip install openpyxl -q 2>&1 | tail -1", "openpyxl"), words=True, shortest=2,
        source="pool/conversacion-act1-pln__session.jsonl #5"),
    ObjectRule(
        "a script a run executes (whichever interpreter or shell runs it)",
        re.compile(r"(?<![\w.-])([\w.-]+?\.(?:sh|py|js|mjs|cjs|ts|rb|php|ps1|go|rs|pl))"
                   r"(?![\w-])"),
        # Valdyum-Labs (Codex, shared), #48: the skill's export script through Git Bash
        # (the interpreter, bash.exe, is no object: ``.exe`` is left out)
        ("& 'C:\\Program Files\\Git\\bin\\bash.exe' 'C:\\Users\\HP\\.agents\\skills\\"
         "apply-grant\\scripts\\export-session.sh'", "export-session.sh"),
        source="labelled/Valdyum-Labs__codex-session.jsonl #48"),
    ObjectRule(
        "a URL (host and path)",
        re.compile(r"(?<![\w/.:-])https?://([^\s\"'|;)?#]+)"),
        # Valdyum-Labs (Codex, shared), #8: the installer's URL, run through WSL bash,
        # then through Git Bash
        ("bash -lc \"curl -fsSL https://www.solana.new/setup.sh | bash\"",
         "www.solana.new/setup.sh"),
        source="labelled/Valdyum-Labs__codex-session.jsonl #8"),
)


@dataclass(frozen=True)
class RunnerRule:
    """A program that runs another command line for the agent (a shell of another kind, a
    container): the same command run through another runner is another way to it."""

    name: str
    pattern: re.Pattern[str]
    """Group 1: the command line it runs."""
    example: tuple[str, str]
    """A real command (trimmed) and the check it runs (:func:`kb.graph.episodes.check_key`)."""
    source: str
    """Where the example comes from: the transcript (``../shared/realworld``) and ordinal."""


_Q = r"[\"']"
RUNNERS: tuple[RunnerRule, ...] = (
    RunnerRule(
        "PowerShell -Command",
        re.compile(rf"^(?:powershell|pwsh)(?:\.exe)?\s+(?:-\w+\s+)*?-c(?:ommand)?\s+{_Q}?(.+)",
                   re.I | re.S),
        # will-it-rain (Claude Code, shared), #51: npm through the Bash tool printed
        # nothing; through PowerShell it installed
        ("powershell -Command \"Set-Location 'c:\\Users\\v\\will-it-rain'; npm install 2>&1\"",
         "npm install"),
        source="labelled/will-it-rain__claude.jsonl #51"),
    RunnerRule(
        "a POSIX shell given a command line (bash -lc, Git Bash, sh -c)",
        re.compile(rf"^(?:&\s*)?{_Q}?(?:[\w:\\/. ()-]*[\\/])?(?:bash|sh|zsh)(?:\.exe)?{_Q}?"
                   rf"\s+-l?c\s+{_Q}(.+)", re.I | re.S),
        # Valdyum-Labs (Codex, shared), #47: the installer through Git Bash after WSL's bash
        ("& 'C:\\Program Files\\Git\\bin\\bash.exe' -lc \"curl -fsSL "
         "https://www.solana.new/setup.sh | bash\"", "curl www.solana.new/setup.sh"),
        source="labelled/Valdyum-Labs__codex-session.jsonl #47"),
    RunnerRule(
        "a container (docker run/exec … sh -c)",
        re.compile(rf"^(?:docker|podman)\s+(?:run|exec)\b.*?\s(?:sh|bash|ash)\s+-l?c\s+{_Q}(.+)",
                   re.I | re.S),
        # will-it-rain (Claude Code, shared), #40: npm run in node:20-alpine instead
        ("docker run --rm -v \"c:/Users/v/will-it-rain:/app\" -w /app node:20-alpine sh -c "
         "\"npm install && npx vitest run --reporter=verbose\"", "npm install"),
        source="labelled/will-it-rain__claude.jsonl #40"),
)


def runner(command: str) -> tuple[str, str]:
    """The runner a command line goes through (a row of :data:`RUNNERS`, ``""`` for the
    agent's own shell) and the command line it runs."""
    line = _PREFIX.sub("", command.strip())
    for rule in RUNNERS:
        m = rule.pattern.match(line)
        if m:
            return rule.name, m.group(1).strip().rstrip("\"'")
    return "", line


@lru_cache(maxsize=16384)
def runs(command: str) -> frozenset[str]:
    """The checks a command line runs, each as :func:`kb.graph.episodes.check_key` reads
    it (the setup around them left out: ``cd``, ``Set-Location``, variables)."""
    out = set()
    for seg in _SPLIT.split(runner(command)[1][:600]):
        key = check_key("bash", seg.strip())
        if key != "bash" and key.split(" ", 1)[0] not in _PRELUDE | _SETUP:
            out.add(key)
    return frozenset(out)


_SETUP = frozenset("set-location sl ls dir echo write-host".split())


@lru_cache(maxsize=16384)
def objects(command: str) -> frozenset[str]:
    """Every object a command acts on, by the rows of :data:`OBJECTS`."""
    out: set[str] = set()
    for rule in OBJECTS:
        out |= {o.rstrip("/.,") for o in rule.find(command)}
    return frozenset(out)


def _changed(changes: list[int], lo: int, hi: int) -> bool:
    """Whether a change was made with ``lo < ordinal < hi`` (``changes``: sorted)."""
    return bisect_right(changes, lo) < bisect_left(changes, hi)


@dataclass(frozen=True)
class MissingRule:
    """How a failed run names a module or program it needed and did not find: the way
    that used it is the library (or the tool) itself, not only the command line."""

    name: str
    pattern: re.Pattern[str]
    """Group 1: what is missing; matched against a failure's signature or line."""
    example: tuple[str, str]
    """A real signature or output line (trimmed) and what it names."""
    source: str
    """Where the example comes from: the transcript (``../shared/realworld``) and ordinal."""
    program: bool = False
    """What is missing is the program the run started: no edit made afterwards fixes
    that way (the shell still has no such program), so another command on the same
    object replaces it whatever was changed in between."""


MISSING: tuple[MissingRule, ...] = (
    MissingRule(
        "a Python module (the signature of ModuleNotFoundError / ImportError)",
        re.compile(r"^(?:ModuleNotFoundError|ImportError): (?:No module named )?['\"]?"
                   r"([\w.-]+)"),
        # conversacion-act1-pln (Claude Code, tune), #3: the rubric read with openpyxl
        ("ModuleNotFoundError: openpyxl", "openpyxl"),
        source="pool/conversacion-act1-pln__session.jsonl #3"),
    MissingRule(
        "a program the shell did not find",
        re.compile(r"^(?:\S*sh:\d+: )?command not found: ['\"]?([\w.+-]+)"),
        # k1 (opencode, shared), #156: `rg … | head -20` exited 0
        ("zsh:1: command not found: rg", "rg"), program=True,
        source="labelled/k1.lib-bootstrap__session-export.json #156"),
    MissingRule(
        "a program PowerShell did not find",
        re.compile(r"^(?:[\w.-]+: )?The term '([\w.+-]+)' is not recognized as (?:the |a )?"
                   r"name of a cmdlet"),
        # uicomponents-wordpress (opencode, shared), #32: `webfetch` typed into PowerShell;
        # Invoke-WebRequest fetched the same URL at #39
        ("webfetch: The term 'webfetch' is not recognized as a name of a cmdlet, function, "
         "script file, or executable program.", "webfetch"), program=True,
        source="labelled/uicomponents__session-wordpress.json #32"),
    MissingRule(
        "a probe that printed a module is not available (logparse.structural)",
        re.compile(r"^\s*([\w.@/-]+)\s*(?::|is|was)\s*(?:NOT|not)\s+(?:available|installed)"),
        # conversacion-act1-pln (Claude Code, tune), #4: the try/except probe after #3
        ("openpyxl: NOT available", "openpyxl"),
        source="pool/conversacion-act1-pln__session.jsonl #4"),
)


def missing(step: Step) -> str | None:
    """The module or program a failed run says it did not find (a row of
    :data:`MISSING` on its signature or its failure line), else ``None``."""
    for text in (step.signature or "", step.failure):
        for rule in MISSING:
            m = rule.pattern.match(text.strip())
            if m is not None:
                return m.group(1).strip("'\"").lower()
    return None


def missing_program(step: Step) -> bool:
    """Whether a failed run says the shell did not find the program it started (a row of
    :data:`MISSING` with ``program``)."""
    for text in (step.signature or "", step.failure):
        for rule in MISSING:
            if rule.program and rule.pattern.match(text.strip()) is not None:
                return True
    return False


def _names(command: str, what: str) -> bool:
    """Whether a command line names a module or program (as a word of its own)."""
    return re.search(rf"(?<![\w.-]){re.escape(what)}(?![\w-])", command, re.I) is not None


SWITCH_WINDOW = 40
"""Messages after a failed run within which a run of another command on the same object
that works replaces it."""


def switched_episodes(steps: list[Step]) -> list[Found]:
    """A run that failed and was never made to work as it was, then another command on
    the same object (:data:`OBJECTS`) that worked: the first way was given up."""
    checks = [s for s in steps if s.check and s.command and not s.interrupted
            and not s.rejected]
    by_sid: dict[str, list[Step]] = {}
    for s in checks:
        by_sid.setdefault(s.session_id, []).append(s)
    changes: dict[str, list[int]] = {}
    edits: dict[str, list[int]] = {}
    for s in steps:
        if s.change:
            changes.setdefault(s.session_id, []).append(s.ordinal)
            if not s.check:
                edits.setdefault(s.session_id, []).append(s.ordinal)
    for v in [*changes.values(), *edits.values()]:
        v.sort()
    out: list[Found] = []
    for sid, mine in by_sid.items():
        done: set[str] = set()
        for i, f in enumerate(mine):
            key = chain_key(f)
            if not f.failed or key in done:
                continue
            wanted = objects(f.command)
            same_checks = runs(f.command)
            if not wanted and not same_checks:
                continue
            fails = [f]
            gone = missing(f)
            for s in mine[i + 1:]:
                if s.ordinal - fails[-1].ordinal > SWITCH_WINDOW:
                    break
                if chain_key(s) == key and not (gone and not _names(s.command, gone)):
                    if not s.failed:
                        break  # made to work as it was
                    fails.append(s)
                    continue
                if s.failed:
                    continue
                other_runner = runner(s.command)[0] != runner(f.command)[0]
                # the same program without the module (or tool) it did not find: the
                # library was the way (`import openpyxl`, then `pandas.read_excel`)
                other_library = gone is not None and not _names(s.command, gone)
                if not (objects(s.command) & wanted
                        or (other_runner and runs(s.command) & same_checks)):
                    continue
                # installing what was missing is no fix of a way the run no longer takes
                made = edits if other_library else changes
                if not (other_library and missing_program(f)) and \
                        _changed(made.get(sid, []), fails[-1].ordinal, s.ordinal):
                    break  # something was changed first: a fix, then another check
                if len({x.ordinal for x in fails}) < 2 and s.ordinal - f.ordinal <= SLIP:
                    break  # one failure fixed at once another way: a slip
                done.add(key)
                was = _PREFIX.sub("", f.command)
                cause = next((x.signature or x.failure for x in reversed(fails)
                              if x.signature or x.failure), "") or "it failed"
                out.append(Found(
                    session_id=sid, name=f"`{short(was, 70)}` (replaced by another way)",
                    first=f.ordinal, ended=s.ordinal, how="switched", cause_text=cause,
                    signature=next((x.signature for x in reversed(fails) if x.signature),
                                   None),
                    evidence=_dedupe([(x.ordinal, "tested", x.signature or x.failure or None)
                                      for x in fails]
                                     + [(s.ordinal, "ended",
                                         f"done another way: {short(s.command, 80)}")])))
                break
    return out


@dataclass(frozen=True)
class UsageRule:
    """How a program prints its own usage: what it does when it refuses its arguments
    (an option it does not take, a sub-command missing).  A run that printed it without
    asking for help failed, whatever its exit code (``| head`` hides a non-zero one)."""

    name: str
    pattern: re.Pattern[str]
    """Matched against the head of the output; ``{prog}`` is the program's name."""
    example: tuple[str, str]
    """A real command (trimmed) and the head of what it printed."""
    source: str
    """Where the example comes from: the transcript (``../shared/realworld``) and ordinal."""


USAGE: tuple[UsageRule, ...] = (
    UsageRule(
        "a usage line (getopt, argparse, clap, BSD tools)",
        re.compile(r"^(?:[^\n]*\n){0,2}?\s*usage:\s+\S*?{prog}\b", re.I),
        # k1 (opencode, shared), #554: BSD cat refuses GNU's -A
        ("head -20 src/klan1/html/bootstrap/nav.php | cat -A",
         "cat: illegal option -- A\nusage: cat [-belnstuv] [file ...]\n"),
        source="labelled/k1.lib-bootstrap__session-export.json #554"),
    UsageRule(
        "a synopsis line, then a section of options (yargs, cobra)",
        re.compile(r"^\s*{prog}\b[^\n]*\n(?:[^\n]*\n){0,6}?\s*(?:Options|Commands"
                   r"|Positionals|Arguments|Flags|Available Commands):", re.I),
        # k1 (opencode, shared), #617: `export` has no --md; `| head` hid its exit code
        ("cd /Users/u/k1.lib-bootstrap && opencode export ses_1be58628dffeUlqtrOC0XgUH2I "
         "--md 2>&1 | head -100",
         "opencode export [sessionID]\n\nexport session data as JSON\n\nPositionals:\n"
         "  sessionID  session id to export   [string]\n"),
        source="labelled/k1.lib-bootstrap__session-export.json #617"),
)
USAGE_HEAD = (r"(?i)usage:|\n\s*(?:options|commands|positionals|arguments|flags"
              r"|available commands):")
"""What every row of :data:`USAGE` needs in the head of an output: the store loads the
head of a clean run's output only where it shows (an RE2 pattern, DuckDB's too)."""
_HELP = re.compile(r"(?:^|\s)(?:-h|--help|-\?|/\?|help)(?:\s|$)", re.I)
"""A run that asked for the usage (``--help``, ``help``): printing it is its answer."""


def printed_usage(command: str, output: str | None) -> str | None:
    """The first line of the usage a run printed although it did not ask for it (a row
    of :data:`USAGE` matches the head of its output for the program the run started), or
    ``None``."""
    if not output or not command:
        return None
    cmd = runner(command)[1]
    segs = [w for w in _SPLIT.split(cmd) if w.strip()]
    if not segs or _HELP.search(cmd):
        return None
    head = output.lstrip()[:400]
    for seg in segs:
        words = seg.split()
        if not words:
            continue
        prog = re.escape(words[0].replace("\\", "/").rsplit("/", 1)[-1].strip("\"'"))
        if len(prog) < 2:
            continue
        for rule in USAGE:
            m = re.search(rule.pattern.pattern.replace("{prog}", prog), head,
                          rule.pattern.flags)
            if m:
                lines = [x for x in head.splitlines() if x.strip()]
                usage = next((x for x in lines if re.match(r"\s*usage:", x, re.I)),
                             lines[0] if lines else "")
                return usage.strip()[:120]
    return None


def _line_words(command: str) -> list[str]:
    """The words of a command line's first command that does something (the setup before
    it, redirects and what its output is piped to left out)."""
    for seg in _SPLIT.split(_PREFIX.sub("", runner(command)[1][:600])):
        words = seg.split()
        if not words or words[0].lower() in _PRELUDE | _SETUP:
            continue
        out: list[str] = []
        skip = False
        for w in words:
            if skip:
                skip = False
            elif w in (">", ">>", "<", "2>", "2>>", "&>"):
                skip = True  # the file it redirects to
            elif not _REDIRECT.match(w):
                out.append(w)
        return out
    return []


def options_dropped(was: str, now: str) -> tuple[str, ...]:
    """The options a retry left out of a command line when leaving them out (with the
    value each took) is all it changed; ``()`` otherwise (a word added or changed, a
    path fixed: a slip, not something given up)."""
    a, b = _line_words(was), _line_words(now)
    if not b or len(b) >= len(a) or b[0] != a[0]:
        return ()
    dropped: list[str] = []
    j = 0
    for i, w in enumerate(a):
        if j < len(b) and w == b[j]:
            j += 1
        elif w.startswith("-") and w.strip("-"):
            dropped.append(w)
        elif dropped and i and a[i - 1] == dropped[-1] and "=" not in dropped[-1]:
            continue  # the value the dropped option took (`--format json`)
        else:
            return ()
    return tuple(dropped) if j == len(b) else ()


def dropped_option_episodes(steps: list[Step], said: Sequence[Said] = ()) -> list[Found]:
    """A run that failed, then the same command run again at once with only some of its
    options left out, that worked, where a dropped option names what the user's last
    request asked for (``--md`` after "export the session to a MD"): that was given up,
    not fixed.  A dropped option the user never asked for (``--colour`` mistyped) and a
    retry that adds or changes a word are slips."""
    checks = [s for s in steps if s.check and s.command and not s.interrupted
              and not s.rejected]
    changes: dict[str, list[int]] = {}
    for s in steps:
        if s.change:
            changes.setdefault(s.session_id, []).append(s.ordinal)
    for v in changes.values():
        v.sort()
    users: dict[str, list[Said]] = {}
    for x in said:
        if x.role == "user" and x.text:
            users.setdefault(x.session_id, []).append(x)
    out: list[Found] = []
    for i, f in enumerate(checks):
        if not f.failed:
            continue
        key = chain_key(f)
        nxt = next((s for s in checks[i + 1:] if s.session_id == f.session_id
                    and chain_key(s) == key), None)
        if nxt is None or nxt.failed or nxt.ordinal - f.ordinal > SLIP or \
                _changed(changes.get(f.session_id, []), f.ordinal, nxt.ordinal):
            continue
        opts = options_dropped(f.command, nxt.command)
        asked = next((u for u in reversed(users.get(f.session_id, []))
                      if u.ordinal < f.ordinal), None)
        if not opts or asked is None:
            continue
        wanted = tokens(asked.text)
        if not any(tokens(o.split("=", 1)[0]) & wanted for o in opts):
            continue  # not what the user asked for: a flag fixed, a slip
        why = f.signature or f.failure or "it failed"
        gave_up = " ".join(opts)
        out.append(Found(
            session_id=f.session_id,
            name=f"`{short(_PREFIX.sub('', f.command), 60)}` (gave up {short(gave_up, 30)})",
            first=f.ordinal, ended=nxt.ordinal, how="switched",
            cause_text=f"{gave_up} refused: {short(why, 150)}", signature=f.signature,
            evidence=[(f.ordinal, "tested", why),
                      (nxt.ordinal, "ended", f"run again without {short(gave_up, 40)}")]))
    return out


@dataclass(frozen=True)
class SandboxRule:
    """A failure a sandbox explains (its network cut off, a write or a listen denied)."""

    name: str
    pattern: re.Pattern[str]
    cause: str
    """What the sandbox did, as the cause states it."""
    example: str
    """A real failure line (trimmed)."""
    source: str
    """Where the example comes from: the transcript (``../shared/realworld``) and ordinal."""


SANDBOX: tuple[SandboxRule, ...] = (
    SandboxRule(
        "no network", _NETWORK_SIG, "the sandbox has no network access",
        # Trezo-Ai (Codex, shared), #73: cargo test of a copy in /tmp, in the sandbox
        "warning: spurious network error (3 tries remaining): [6] Couldn't resolve host "
        "name (Could not resolve host: index.crates.io)",
        source="labelled/Trezo-Ai__codex-session.jsonl #73"),
    SandboxRule(
        "denied", re.compile(r"\bEPERM\b|operation not permitted|read-only file system",
                             re.I),
        "the sandbox denied it",
        # soulpass (Codex, shared), #143: next dev in the sandbox cannot listen
        "Error: listen EPERM: operation not permitted 0.0.0.0:3000",
        source="labelled/soulpass__codex-session.jsonl #143"),
)


def sandbox_failure(text: str) -> SandboxRule | None:
    """The row of :data:`SANDBOX` that explains a failure line, if one does."""
    return next((r for r in SANDBOX if r.pattern.search(text)), None)


@dataclass(frozen=True)
class Escalation:
    """How a run asked for outside the sandbox, after the same run failed inside it,
    ended: each ending is one reading of the escalation."""

    name: str
    how: str
    """The :attr:`~kb.graph.episodes.Found.how` of the dead end."""
    needs_sandbox: bool
    """Whether a row of :data:`SANDBOX` must explain the failure inside: an escalated run
    that did not work does not by itself say the sandbox was the obstacle."""
    example: tuple[tuple[int, str, str, bool, bool], ...]
    """Real runs (trimmed): ``(ordinal, command, signature or "", escalated, stopped by
    the user)``, the last the escalated one, every other failed inside the sandbox."""
    ended: str
    """What the escalated run did, with ``{error}`` its own error."""
    source: str
    """Where the example comes from: the transcript (``../shared/realworld``) and ordinal."""


ESCALATIONS: tuple[Escalation, ...] = (
    Escalation(
        "worked outside", "sandboxed", False,
        # soulpass (Codex, shared), #299/#301: a devnet query in the sandbox fails with
        # "fetch failed"; the same query escalated prints the accounts
        ((299, "node -e \"const {Connection}=require('@solana/web3.js')\"",
          "Error: failed to get info about account CQW3…: TypeError: fetch failed", False,
          False),
         (301, "node -e \"const {Connection}=require('@solana/web3.js')\"", "", True, False)),
        "it worked outside the sandbox",
        source="labelled/soulpass__codex-session.jsonl #299, #301"),
    Escalation(
        "stopped by the user", "escalated", True,
        # Trezo-Ai (Codex, shared), #70-#75: cargo test of a copy in /tmp cannot fetch
        # crates offline; escalated, the user stops it (turn_aborted)
        ((73, "rsync -a '/Users/a/New project/programs/cfo_oracle/' /tmp/check/ && cargo "
              "test --manifest-path /tmp/check/Cargo.toml",
          "Could not resolve host: index.crates.io", False, False),
         (75, "rsync -a '/Users/a/New project/programs/cfo_oracle/' /tmp/check/ && cargo "
              "test --manifest-path /tmp/check/Cargo.toml", "aborted by user after 33.4s",
          True, True)),
        "asked to run it outside the sandbox (stopped by the user)",
        source="labelled/Trezo-Ai__codex-session.jsonl #73, #75"),
    Escalation(
        "failed otherwise", "escalated", True,
        # soulpass (Codex, shared), #143/#145: next dev cannot listen in the sandbox;
        # escalated, the port is taken
        ((143, "npm run dev -- --port 3000",
          "Error: listen EPERM: operation not permitted 0.0.0.0:3000", False, False),
         (145, "npm run dev -- --port 3000", "Error: listen EADDRINUSE: address already in "
          "use :::3000", True, False)),
        "asked to run it outside the sandbox ({error})",
        source="labelled/soulpass__codex-session.jsonl #143, #145"),
)
"""The endings of an escalation, in the order they are tried (the first whose
:func:`escalation_ending` test holds)."""


def escalation_ending(esc: Step) -> Escalation:
    """The row of :data:`ESCALATIONS` an escalated run's outcome reads as."""
    if not esc.failed:
        return ESCALATIONS[0]
    return ESCALATIONS[1] if esc.interrupted or esc.rejected else ESCALATIONS[2]


ESCALATE_WINDOW = 12
"""Messages after a sandboxed failure within which the same run asked for outside the
sandbox, when that did not simply work, escalates it (one that worked outside is read
however late it came in the run's chain)."""


def escalated_episodes(steps: list[Step]) -> list[Found]:
    """A run that failed inside the sandbox (the agent's own record says so: no network,
    ``sandbox_denied``), then the same run asked for outside it (Codex
    ``require_escalated``): the agent's escalation says the sandboxed way could not work.
    One structure, two endings:

    * ``sandboxed``: the escalated run worked; whatever failed inside is the sandbox's
      doing, whatever else the agent tried between;
    * ``escalated``: the escalated run did not simply work (the user stopped it, it never
      answered, it failed otherwise) and a row of :data:`SANDBOX` explains the failure
      inside (without one, a compile error met offline is no sandbox's doing)."""
    by_sid: dict[str, list[Step]] = {}
    for s in steps:
        if s.check or s.interrupted or s.rejected:
            by_sid.setdefault(s.session_id, []).append(s)
    ords = {sid: [s.ordinal for s in mine] for sid, mine in by_sid.items()}
    out: list[Found] = []
    for sid, mine in by_sid.items():
        used: set[int] = set()
        worked_at: set[int] = set()
        for i, f in enumerate(mine):
            if not (f.failed and f.offline and not f.escalated) or f.ordinal in used:
                continue
            key = chain_key(f)
            ok = _worked_outside(mine, i, key)
            if ok is not None:
                if ok.ordinal in worked_at:
                    continue  # told at the first failure of its chain
                worked_at.add(ok.ordinal)
                error = f.signature or f.failure
                known = sandbox_failure(error)
                row = escalation_ending(ok)
                out.append(Found(
                    session_id=sid, name=f"`{f.key}` inside the sandbox",
                    first=f.ordinal, ended=ok.ordinal, how=row.how,
                    cause_text=f"{known.cause if known else 'the sandbox stopped it'} "
                               f"({short(error, 160)})",
                    signature=f.signature, evidence=[
                        (f.ordinal, "tested", short(error, 160)),
                        (ok.ordinal, "ended", row.ended)]))
                continue
            lo = bisect_left(ords[sid], f.ordinal - ESCALATE_WINDOW)
            hi = bisect_right(ords[sid], f.ordinal + ESCALATE_WINDOW)
            same = [s for s in mine[lo:i] if chain_key(s) == key and s.failed and s.offline
                    and not s.escalated]
            tried = [*same, f]
            later = [s for s in mine[i + 1:hi] if s.escalated and chain_key(s) == key]
            if not later or any(not s.failed for s in later):
                continue  # not escalated (or it worked outside, read above)
            esc = later[0]
            row = escalation_ending(esc)
            why = next(((x, r) for x in tried
                        if (r := sandbox_failure(x.signature or x.failure or ""))), None)
            if why is None and row.needs_sandbox:
                continue  # not the sandbox: a compile error met offline
            used |= {x.ordinal for x in tried}
            run, cause = why if why is not None else (f, None)
            cause_of = cause.cause if cause is not None else "the sandbox stopped it"
            out.append(Found(
                session_id=sid, name=f"`{short(_PREFIX.sub('', f.command), 70)}` inside the "
                "sandbox (escalated)", first=tried[0].ordinal, ended=esc.ordinal,
                how=row.how,
                # the escalation says what the cause was: the sandbox, not the error
                cause_text=f"{cause_of} ({short(run.signature or run.failure, 160)})",
                evidence=_dedupe([(x.ordinal, "tested", x.signature or x.failure or None)
                                  for x in tried]
                                 + [(esc.ordinal, "ended", row.ended.format(
                                     error=short(esc.signature or esc.failure
                                                 or "it failed too", 80)))])))
    return out


def _worked_outside(mine: list[Step], i: int, key: str) -> Step | None:
    """The escalated run of ``mine[i]``'s check that worked, later in its chain (runs of
    one check no more than :data:`kb.graph.episodes.CHAIN_GAP` apart, none the user
    stopped), where no run of that chain before it was escalated: else ``None``."""
    f = mine[i]
    chain = [s for s in mine if s.check and not s.interrupted and chain_key(s) == key]
    at = chain.index(f)
    lo = at
    while lo and chain[lo].ordinal - chain[lo - 1].ordinal <= CHAIN_GAP:
        lo -= 1
    if any(s.escalated for s in chain[lo:at + 1]):
        return None
    prev = f
    for s in chain[at + 1:]:
        if s.ordinal - prev.ordinal > CHAIN_GAP:
            return None
        if s.escalated and not s.failed:
            return s
        prev = s
    return None


@dataclass(frozen=True)
class SinkRule:
    """A command line that writes a run's stdout and stderr together into a data file."""

    name: str
    pattern: re.Pattern[str]
    """Group 1: the data file."""
    example: tuple[str, str]
    """A real command (trimmed) and the file it writes."""
    source: str
    """Where the example comes from: the transcript (``../shared/realworld``) and ordinal."""


_DATA = r"[^\s'\"|;&<>]+\.(?:json|jsonl|ndjson|csv|tsv|xml|ya?ml|toml)"
SINKS: tuple[SinkRule, ...] = (
    SinkRule(
        "stdout to a data file, then stderr to the same place (> f.json 2>&1)",
        re.compile(rf"(?<![\d&])1?>\s*['\"]?({_DATA})['\"]?\s+2>&1"),
        # k1 (opencode, shared), #619: the export with its "Exporting session:" line
        ("cd /Users/u/k1.lib-bootstrap && opencode export ses_1be58628dffeUlqtrOC0XgUH2I > "
         "session-export.json 2>&1", "session-export.json"),
        source="labelled/k1.lib-bootstrap__session-export.json #619"),
)


def merged_into(command: str) -> str | None:
    """The data file a command line writes its stdout and stderr into (a row of
    :data:`SINKS`), else ``None``."""
    for rule in SINKS:
        m = rule.pattern.search(command[:1200])
        if m is not None:
            return m.group(1)
    return None


def merged_stderr_episodes(steps: list[Step]) -> list[Found]:
    """A run that printed a log line ahead of its JSON with stderr merged (``2>&1 |
    head``), then the same run written with stderr merged into a data file: the file
    starts with that line and is no data (``opencode export <id> > session-export.json
    2>&1``).  The run's exit status says nothing of it."""
    out: list[Found] = []
    seen: dict[tuple[str, str], Step] = {}
    for s in steps:
        if not s.check or not s.command:
            continue
        key = (s.session_id, chain_key(s))
        if s.mixed:
            seen[key] = s
            continue
        was = seen.get(key)
        into = merged_into(s.command)
        if was is None or into is None or s.ordinal - was.ordinal > SWITCH_WINDOW:
            continue
        del seen[key]
        out.append(Found(
            session_id=s.session_id,
            name=f"`{short(_PREFIX.sub('', s.command), 70)}` (stderr into {short(into, 30)})",
            first=was.ordinal, ended=s.ordinal, how="merged",
            cause_text=f"`2>&1` writes stderr into {into}: its first line is "
            f"«{short(was.mixed, 80)}», not data",
            evidence=[(was.ordinal, "tested", f"stderr ahead of the JSON: {short(was.mixed, 80)}"),
                      (s.ordinal, "ended", f"written with stderr into {into}")]))
    return out
