"""The most specific error line of a failed run's output.

A failed run's cause is the concrete line it failed with, and not every line that looks
like an error says why: ``Error: Command failed`` and ``exit status 1`` only say that it
failed, ``Check the spelling of the name …`` is advice, stack frames say where.  Each row
of :data:`ERROR_LINES` gives a kind of line a rank (an exception type with its message
above a line that says "error", above a bare "failed"; advice and frames never), with
a real example; ``tests/logparse/test_errorline.py`` walks them.  PowerShell's error
record puts its message behind a gutter (``| Exception calling …``), under the script's
line: the gutter goes, the script's line is a frame.  A signature that only names an
error's type is labelled with the message line (:func:`says_more`).  Pure: no IO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass(frozen=True)
class LineRule:
    """One kind of output line and how much it says about why a run failed."""

    name: str
    rank: int
    """3: an error with its type and message; 2: a line that says error, fatal, cannot;
    1: a line that only says it failed; 0: never the cause (advice, frames, progress)."""
    pattern: re.Pattern[str]
    example: str
    """A real line (trimmed) of a failed run's output."""
    source: str


ERROR_LINES: tuple[LineRule, ...] = (
    # never the cause: what to do next, where it happened, what was going on
    LineRule("advice", 0, re.compile(
        r"^(?:Check the spelling of the name|See ['\"`]?[\w.-]+ (?:help|--help)|Run with --"
        r"|For more information|Try ['\"`]?[\w.-]+ --help|A complete log of this run"
        r"|(?:npm )?(?:ERR!|error) A complete log|Did you mean\b|hint:|help:|note:)", re.I),
        "Check the spelling of the name, or if a path was included, verify that the path "
        "is correct and try again.",
        "labelled/uicomponents__session-wordpress.json #32 (PowerShell, webfetch)"),
    LineRule("usage", 0, re.compile(r"^usage:\s+\S", re.I),
        "usage: cat [-belnstuv] [file ...]",
        "labelled/k1.lib-bootstrap__session-export.json #554 (`head … | cat -A` on macOS: the "
        "line above it, «cat: illegal option -- A», says why)"),
    LineRule("ps-gutter", 0, re.compile(r"^(?:Line\s*\||\d+\s*\|\s|\|\s*~+\s*$)"),
        "2 |  $content.Substring(0, [Math]::Min(100, $content.Length))",
        "labelled/uicomponents__session-wordpress.json #82 (PowerShell 7's error record: "
        "«Line |», the line of the script, the «~~~» under it; the message follows)"),
    LineRule("frame", 0, re.compile(
        r"^(?:at\s|File \"|\^|Traceback \(most recent call last\)|Caused by:?\s*$|\.\.\.\s*\d+ more"
        r"|#\d+\s|warning\b|\[\d+/\d+\]|\d+%\s)", re.I),
        "    at Connection.getAccountInfo (/Users/rythme/developer/blockchain/Civitas-Sol/"
        "frontend/node_modules/@solana/web3.js/lib/index.cjs.js:6378:13)",
        "labelled/soulpass__codex-session.jsonl #299"),
    # only that it failed
    LineRule("bare-failure", 1, re.compile(
        r"exit status \d+\s*$|^(?:Error: )?Command failed\b|Process (?:completed|exited) with "
        r"exit code \d+|^(?:npm )?(?:ERR!|error) code \S+$|^(?:make|gmake|ninja)(?:\[\d+\])?: "
        r"\*\*\* .*Error \d+$", re.I),
        "failed to run git: exit status 128",
        "labelled/k1.lib-bootstrap__session-export.json (gh repo create)"),
    # the error, with its type and message
    LineRule("typed-error", 3, re.compile(
        r"(?:^|[\s:(])(?:[A-Za-z_][\w.\\]*)?(?:Error|Exception|Fault)(?:\[\w+\])?:\s+\S"
        r"|^error(?:\[E\d+\])?(?: TS\d+)?:\s+\S|^error TS\d+:|^fatal:\s+\S|^E\s+\w+(?:Error|Exception)"
        r"|^(?:PHP )?(?:Fatal|Parse) error:\s+\S"),
        "Error: failed to get info about account CQW3TnN4X6iG2potguVv2hCKfk4f9tf8PMG7dTV6e24y: "
        "TypeError: fetch failed",
        "labelled/soulpass__codex-session.jsonl #299"),
    LineRule("not-recognized", 3, re.compile(
        r"\bis not recognized as (?:the |a )?name of a cmdlet|\bis not recognized as an "
        r"internal or external command|\bcommand not found\b|\bNo such file or directory\b",
        re.I),
        "webfetch: The term 'webfetch' is not recognized as a name of a cmdlet, function, "
        "script file, or executable program.",
        "labelled/uicomponents__session-wordpress.json #32 (PowerShell, webfetch)"),
    # a line that says error, fatal or cannot
    LineRule("says-error", 2, re.compile(
        r"^\s*(?:\S*\s)?(?:error|fatal|failed|failure|panic|exception|denied|cannot|can't|"
        r"could not|couldn't|unable to|not found|no such)\b|\*\*\* fatal error|"
        r"\b(?:ERROR|FATAL|Error|Exception)\b[:\]]", re.I),
        "⨯ Failed to start server",
        "labelled/soulpass__codex-session.jsonl #143 (`next dev`; the line under it, «Error: "
        "listen EPERM …», says why)"),
    # what failed, then why, anywhere in the line
    LineRule("failed-colon", 2, re.compile(r"\bfailed:\s+\S", re.I),
        "apply_patch verification failed: Failed to find expected lines in /Users/rythme/"
        "developer/blockchain/Civitas-Sol/frontend/app/api/vault/init/route.ts:",
        "labelled/soulpass__codex-session.jsonl #314 (the lines it looked for follow; also "
        "«execvpe(/bin/bash) failed: No such file or directory» in labelled/Valdyum-Labs__"
        "codex-session.jsonl)"),
)
"""Kinds of output lines, the rank of each (first matching row wins)."""


_GUTTER = re.compile(r"^\|\s+")
"""The gutter of PowerShell's error record before its message."""

BARE_TYPE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Fault):?$")
"""An error signature that names only the type (``MethodInvocationException``): the
failed run's message line says what went wrong (:func:`says_more`)."""


def says_more(signature: str | None, line: str | None) -> str | None:
    """``signature: line`` when the signature is only an error type (:data:`BARE_TYPE`) and
    the run's error line says more; else ``None``."""
    if not (signature and line and BARE_TYPE.match(signature.strip())):
        return None
    sig = signature.strip().rstrip(":")
    line = line.strip()
    if line.rstrip(":") == sig:
        return None
    return line if line.startswith(sig) else f"{sig}: {line}"


@dataclass(frozen=True)
class Tidy:
    """One thing an error line carries that a cause reads better without."""

    name: str
    pattern: re.Pattern[str]
    """What goes (it is replaced by nothing)."""
    example: str
    """A real error line (a signature as stored) that has it."""
    tidied: str
    """What :func:`readable` leaves of the example."""
    source: str


TIDY: tuple[Tidy, ...] = (
    Tidy("escaped-newline", re.compile(r"(?<=\S)\s*\\n(?![A-Za-z0-9_]).*$", re.S),
         "Error: Too many positional arguments: $pos\\n; echo bin2hex(substr($c, $pos - 5, "
         "15)) . \\n; echo substr($c,…",
         "Error: Too many positional arguments: $pos",
         "labelled/uicomponents__session-wordpress.json #107 (WP-CLI quotes the arguments it "
         "refused, the script's newlines escaped: what follows the first is the script; a "
         "«\\n» before a letter is a Windows path, «C:\\Users\\nina», and stays)"),
    Tidy("where-in-path", re.compile(
        r"(?<!\s)\s+in\s+(?:phar://|file://|/|[A-Za-z]:[\\/]|\\\\)\S*?(?::\d+|\s+on\s+line\s+\d+|…)\s*$"),
         "PHP Fatal error: Error: Undefined constant \"test\" in phar://C:/Users/salma/"
         "AppData/Local/studio_app/app-1.15.0/resou…",
         "PHP Fatal error: Error: Undefined constant \"test\"",
         "labelled/uicomponents__session-wordpress.json #177 (PHP names the file and line it "
         "failed at, «in /path/file.php:12» or «… on line 12», after the message: where in "
         "the code, not what went wrong; a path that is no code location stays)"),
)
"""What an error line carries that its cause reads better without; ``tests/logparse/
test_errorline.py`` walks every row."""

_MIN_TIDIED = 16
"""Letters a tidied line keeps at least (else it stays whole)."""


def readable(line: str) -> str:
    """An error line as a cause reads it: without what :data:`TIDY` takes away, unless
    too little would be left."""
    out = line
    for row in TIDY:
        out = row.pattern.sub("", out)
    out = out.strip()
    return out if len(out) >= _MIN_TIDIED else line


CANCELLED_BY_SIBLING = re.compile(
    r"^(?:<tool_use_error>)?\s*Cancelled: parallel tool call .{1,200}? errored", re.S)
"""A call the agent cancelled because a call made beside it, in the same message, failed
(Claude Code): it never ran, so its cause is that call's error, not the cancel.  A real
example: ``<tool_use_error>Cancelled: parallel tool call Bash(cd "/Users/francobertoldi/
Library/CloudS…) errored</tool_use_error>`` (pool/conversacion-act1-pln__session.jsonl,
ordinal 3, beside ``python3 -c "import openpyxl …"`` that failed with
«ModuleNotFoundError: No module named 'openpyxl'»)."""


def cancelled_by(error: str | None, key: str, said: str) -> str | None:
    """The cause of a call cancelled because ``key`` (a call beside it) failed, saying
    ``said`` (:data:`CANCELLED_BY_SIBLING`); ``None`` when ``error`` is no such cancel."""
    if not error or not CANCELLED_BY_SIBLING.search(error.strip()):
        return None
    return f"cancelled: the parallel call `{key}` failed first ({said})"


def rank(line: str) -> tuple[int, str | None]:
    """The rank of one output line and the row that gave it (``None``: no row)."""
    line = line.strip()
    for row in ERROR_LINES:
        if row.pattern.search(line):
            return row.rank, row.name
    return -1, None


READ = 4000
"""Characters of a long output read at each end: a run often says why it failed last
(psql prints the rows it read, then ``ERROR:``; a build log ends on its error), and
sometimes first (``fatal:``); the middle is progress."""


def _ends(output: str) -> str:
    """The head and the tail of a long output (whole lines), the middle left out."""
    if len(output) <= 2 * READ:
        return output
    tail = output[-READ:]
    cut = tail.find("\n")
    return output[:READ] + "\n" + (tail[cut + 1:] if cut >= 0 else tail)


def specific_line(output: str) -> str | None:
    """The most specific error line of a failed run's output: the first of the highest
    rank of :data:`ERROR_LINES`; else the last line that is no advice or frame; ``None``
    for an empty output.  ANSI colours are dropped; a long output is read at both ends
    (:data:`READ`)."""
    lines = [ln.strip() for ln in _ANSI.sub("", _ends(output)).splitlines() if ln.strip()]
    if not lines:
        return None
    best: tuple[int, str] | None = None
    for ln in lines:
        r, _ = rank(ln)
        if r > 0 and (best is None or r > best[0]):
            best = (r, ln)
    if best is not None:
        # PowerShell's record puts its message behind a gutter ("| Exception calling …")
        return _GUTTER.sub("", best[1])[:300]
    plain = [ln for ln in lines if rank(ln)[0] != 0]
    return _GUTTER.sub("", (plain or lines)[-1])[:300]
