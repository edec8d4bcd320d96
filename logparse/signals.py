"""Signals in tool output: canonical error signatures (measurements: :mod:`logparse.measure`).

:func:`error_signatures` runs on every tool output during ingest (sessions of 100k messages,
outputs of 0.1-50 KB), so it never scans a whole output with a general regex: it checks ~20
short gate tokens (``"rror"``, ``"found"``, ``"Killed"``...) in one Aho-Corasick pass,
nominates only the lines holding a needle of a present gate, and runs the line rules on
those lines (plus the exception line of every ``Traceback``).  Clean output costs the
gate checks only.  Source code (grep hits of source
files, ``read`` listings, ``raise``/``except`` lines, string literals) is recognised and
never yields a signature.

Nothing here catches an error: a rule that raises is a bug that a test shows; at ingest
the error is counted and reported as a problem, and the session still ingests
(``logparse.derive.Deriver._rule``).
"""

from __future__ import annotations

import re
from types import ModuleType

# measurements moved to logparse.measure; re-exported for code that imports them from here
from logparse.kinds import TIMED_OUT_ON_PROMPT
from logparse.measure import measurement_tuples, measurements

__all__ = ["error_signatures", "measurement_tuples", "measurements", "normalise_message",
           "quoted_error"]

# --------------------------------------------------------------------------- common

_MAX_MSG = 100
_MAX_LINES_PER_NEEDLE = 200
_MAX_SIGS = 50
_MAX_MEASUREMENTS = 200

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Log prefixes that precede the real line: ``[rank0]:``, ``[2025-01-01 10:00:00 TP0]``,
# vLLM's ``(EngineCore_0 pid=123)`` / ``ERROR 06-01 10:00:00 [core.py:12]``, pytest's ``E   ``.
# Each consumes one blank after it at most, so the indentation of the real line survives.
_PREFIX_RE = re.compile(
    r"(?:\[[^\]\n]{1,120}\]:?[ \t]?"
    r"|\([\w. -]{0,40}\b(?:pid|rank)=\d+[^)\n]{0,60}\)[ \t]?"
    r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]\n]*\][ \t]?"
    r"|E {3,}"
    r")+"
)
# Line-number prefixes of file listings: ``00012| code`` (opencode read), ``   12\tcode``
# (cat -n), ``2197:code`` / ``2197-code`` (grep -n without a file name).
_LINENO_RE = re.compile(r"^[ \t]*\d+(?:\||\t|:(?!\d)|-(?=\s))[ \t]?")
_CODE_EXT = (
    r"(?:py|pyi|pyx|pxd|c|cc|cpp|cxx|cu|cuh|h|hh|hpp|hxx|inl|rs|go|js|mjs|cjs|ts|tsx|jsx|"
    r"java|kt|scala|rb|php|sh|bash|zsh|toml|ya?ml|json|cfg|ini|md|rst|cmake|txt\.in|jinja2?)"
)
# grep output of source files: ``path/to/file.py:123:...``, ``file.py-123-...``, ``file.py:...``.
_GREP_CODE_RE = re.compile(r"^[\w./~+@-]*\." + _CODE_EXT + r"(?::\d+[:-]|-\d+-|:(?!\d))")
# Lines that are code rather than output (a phrase inside a string literal, a raise...).
_CODEISH_RE = re.compile(
    r"^\s*(?:(?:raise|except|elif|while|return|assert|def|class|import|yield|await|throw|catch"
    r"|case|echo|printf|logger|logging|warnings)\b|(?:if|for|with|from|try|else)\b(?![:\-])"
    r"|print\(|log\.|self\.|#|//|/\*|\*[ /]|-- |[rfbu]?[\"'`]|[\w.\[\]'\"]+[ \t]*[+\-|]?=[ \t])"
)
_TMP_RE = re.compile(r"(?:/private)?(?:/var/folders|/var/tmp|/tmp|/dev/shm)/[^\s'\",:)\]]*")
_HEX_RE = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_UUID_RE = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_LONGNUM_RE = re.compile(r"(?<![\w.])\d{5,}(?!\w|\.\d)")
_WS_RE = re.compile(r"\s+")


def normalise_message(msg: str) -> str:
    """An error message made comparable: temp paths, hex addresses, UUIDs and long numbers
    replaced, whitespace collapsed, truncated to about 100 characters."""
    msg = msg.strip()
    if "\x1b" in msg:
        msg = _ANSI_RE.sub("", msg)
    if "/t" in msg or "/var/" in msg or "/dev/shm" in msg:
        msg = _TMP_RE.sub("<tmp>", msg)
    if "0x" in msg:
        msg = _HEX_RE.sub("<hex>", msg)
    if "-" in msg:
        msg = _UUID_RE.sub("<uuid>", msg)
    msg = _LONGNUM_RE.sub("<n>", msg)
    msg = _WS_RE.sub(" ", msg).rstrip(" .:;,")
    if len(msg) > _MAX_MSG:
        msg = msg[: _MAX_MSG - 1].rstrip() + "…"
    return msg


def _clean_line(line: str) -> str:
    if "\x1b" in line:
        line = _ANSI_RE.sub("", line)
    if "\r" in line:
        # progress bars redraw with \r: keep the last non-empty redraw
        parts = [p for p in line.split("\r") if p.strip()]
        line = parts[-1] if parts else ""
    return line


def _strip_prefixes(line: str) -> str:
    c = line[:1]
    if c == "[" or c == "(" or c == "E" or c == "I" or c == "W" or c == "D" or c == "C":
        m = _PREFIX_RE.match(line)
        if m:
            line = line[m.end():]
    if line[:1].isdigit() or line[:1] in " \t":
        m = _LINENO_RE.match(line)
        if m and (m.group().strip()[:1].isdigit()):
            line = line[m.end():]
    return line


# --------------------------------------------------------------------------- error signatures

_TB_HEADER = "Traceback (most recent call last)"

# Two-level gate.  Level 1: short tokens without spaces (``str.__contains__`` is fastest for
# those: a space in the needle defeats its skip table on padded output) that together cover
# every rule below.  Level 2: for each token present, the needles that nominate lines.
_GATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rror", ("rror", "ld:", "undefined reference", "unexpected EOF", "build stopped",
              "Cuda failure", "out of memory", "exitcode")),
    ("RROR", ("RROR",)),
    ("xception", ("xception",)),
    ("module", ("No module named",)),
    ("ailed", ("ailed",)),
    ("denied", ("denied",)),
    ("resol", ("resolve", "resolution")),
    ("imed", ("imed out",)),
    ("imeout", ("imeout",)),
    ("IMEOUT", ("IMEOUT",)),
    # ssh/curl: "connect to host X port 22: No route to host", "send disconnect: Broken pipe"
    ("onnect", ("onnection", "No route to host", "unreachable", "Broken pipe", "connect to server")),
    ("found", ("found",)),
    ("such", ("No such file or directory",)),
    ("fault", ("Segmentation fault",)),
    ("SIG", ("SIG",)),
    ("Killed", ("Killed",)),
    ("Abort", ("Abort", "terminate called")),
    ("fatal", ("fatal", "build stopped")),
    ("E:", ("\nE: ",)),
    ("recogni", ("is not recognized as", "not recognized as the name")),
    ("too long", ("line is too long",)),
    ("ERR!", ("npm ERR!",)),
    # lines of _family_sig the gates above do not nominate ("Error from server" holds
    # "rror", "OOMKilled" "Killed", "Module not found" "found")
    ("DATA RACE", ("WARNING: DATA RACE",)),
    ("--- FAIL", ("--- FAIL",)),
    ("panic:", ("panic:",)),
    (".go:", (".go:",)),
    ("emory", ("Out of memory", "out of memory")),
    ("Docker daemon", ("Cannot connect to the Docker daemon",)),
    ("HTTP/", ("HTTP/",)),
    ("curl: (", ("curl: (",)),
    ("space left", ("No space left on device", "no space left on device")),
    ("[rejected]", ("[rejected]",)),
    ("FAILED ", ("FAILED ",)),
)

_ahocorasick: ModuleType | None
try:  # one pass over the text for every gate token (Aho-Corasick, in Rust)
    import ahocorasick_rs as _ahocorasick
except ImportError:  # pragma: no cover - the ``in`` checks give the same answer, slower
    _ahocorasick = None
_GATE_FINDER = (_ahocorasick.AhoCorasick([g for g, _ in _GATES],
                                         matchkind=_ahocorasick.MatchKind.Standard)
                if _ahocorasick is not None else None)


def _present_gates(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The entries of :data:`_GATES` whose token occurs in ``text``, in their order.

    One Aho-Corasick pass instead of ~20 ``in`` scans (4× faster on a session's outputs);
    the ``in`` checks when the matcher is missing or refuses the text (lone surrogates)."""
    if _GATE_FINDER is not None:
        try:
            hits = _GATE_FINDER.find_matches_as_indexes(text, overlapping=True)
        except (UnicodeError, ValueError, TypeError):
            pass
        else:
            return [_GATES[i] for i in sorted({h[0] for h in hits})]
    return [g for g in _GATES if g[0] in text]

_MODULE_RE = re.compile(r"No module named ['\"]?([\w.\-]+)")
_MODULE_LINE_RE = re.compile(
    r"^(?:(?:[\w]+\.)*(?:ModuleNotFoundError|ImportError): |\S+: )?No module named\b"
)
_IMPORT_NAME_RE = re.compile(r"cannot import name ['\"]?([\w.]+)")
_EXC_LINE_RE = re.compile(r"^((?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*))(?:(:)[ \t]*(.*))?$")
_EXC_NAME_OK_RE = re.compile(r"^(?:[A-Z]\w*)?(?:Error|Exception)$")
_TB_NAME_OK_RE = re.compile(r"^_?[A-Z]\w*[a-z]\w*$")

_NCCL_IN_RE = re.compile(
    r"NCCL error in:?\s*\S+?,\s*(.+?)(?:\s*\(run with NCCL_DEBUG|,\s*NCCL version|\.?\s*$)"
)
_NCCL_ERR_RE = re.compile(r"NCCL error:?\s*(.+?)(?:\s*\(run with NCCL_DEBUG|,\s*NCCL version|$)")
_NCCL_ENUM = {
    "ncclUnhandledCudaError": "unhandled cuda error",
    "ncclSystemError": "unhandled system error",
    "ncclInternalError": "internal error",
    "ncclInvalidArgument": "invalid argument",
    "ncclInvalidUsage": "invalid usage",
    "ncclRemoteError": "remote process exited or there was a network error",
    "ncclInProgress": "operation in progress",
}
_NCCL_ENUM_RE = re.compile(r"\b(nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidArgument|"
                           r"InvalidUsage|RemoteError|InProgress))\b")
_NCCL_CUDA_FAIL_RE = re.compile(r"NCCL WARN Cuda failure(?: \d+)? '([^']+)'")
_CUDA_ERR_RE = re.compile(r"CUDA error:\s*(.+)")
_ARCH_RE = re.compile(r"Unsupported gpu architecture '([\w.]+)'")
_NVFATAL_RE = re.compile(r"^\s*(nvcc|ptxas|nvlink|fatbinary|cicc)\s+fatal\s*:\s*(.+)")
_CC_ERR_RE = re.compile(
    r"^\s*\S+?\.(?:c|cc|cpp|cxx|cu|cuh|h|hh|hpp|hxx|inl|cl|m|mm|S|s|f90|rs|go|ts|tsx|mts|cts|js|jsx"
    r"|vue|svelte|cs|java|kt|swift)"
    r"(?::\d+(?::\d+)?:|\(\d+(?:,\d+)?\)\s*:)\s*(fatal error|error)\s*(?:\[[\w-]+\])?\s*:?\s*(.+)"
)
_RUST_ERR_RE = re.compile(r"^error(\[E\d+\])?: (.+)")
_PHP_ERR_RE = re.compile(
    r"^(?:PHP )?(Fatal error|Parse error|Warning|Deprecated):\s*(?:Uncaught\s+)?"
    r"(?:((?:[A-Za-z_][\w\\\\]*\\\\)?[A-Z]\w*(?:Error|Exception)):\s*)?(.+?)"
    r"(?:\s+in\s+\S+?(?::\d+| on line \d+).*)?$")
_NOT_RECOGNIZED_RE = re.compile(
    r"^(?:[\w.-]+ : )?(?:The term )?['‘\"]?([^'’\"\s]+)['’\"]? is not recognized as (?:an internal"
    r"|the name of a cmdlet)")
_NPM_ERR_RE = re.compile(r"^npm (?:ERR!|error) code (\S+)")
_PIP_KEBAB_RE = re.compile(r"^\s*error: ([a-z]+(?:-[a-z]+)+)\s*$")
_GIT_FATAL_RE = re.compile(r"^fatal: (.+)")
_LD_RE = re.compile(r"^(?:\S*/)?(?:ld|ld\.\w+|collect2|lld)(?::| error:)\s*(?:error:\s*)?(.+)")
_UNDEF_RE = re.compile(r"undefined reference to [`'\"]?([^`'\"\s]+)")
_CMD_NF_RE = (
    re.compile(r"^(?:\S*sh: )?command not found: (\S+)"),
    re.compile(r"^(?:\S*sh: )?(?:line \d+: )?(?:\d+: )?([^\s:]+): command not found"),
    re.compile(r"^(?:\S*sh|exec): (?:line )?\d+: (?:exec: )?([^\s:]+): not found"),
    re.compile(r"^(?:\S*/)?env: [‘'\"]?([^'’\"\s:]+)[’'\"]?: No such file or directory"),
    re.compile(r"^nohup: failed to run command [‘'\"]?([^'’\"\s]+)[’'\"]?: No such file"),
)
_SHELL_NOFILE_RE = re.compile(
    r"^(?:\S*/)?(?:ba|z|da|k)?sh: (?:line \d+: )?(?:\d+: )?(?:(?:cd|source|\.|exec): )?\S.*?: "
    r"No such file or directory"
)
_PY_CANT_OPEN_RE = re.compile(r"^\S*python[\d.]*: can't open file")
_KILLED_RE = re.compile(
    r"^(?:\S*sh: )?(?:line \d+: )?\d+ Killed\b|^\[\d+\][+-]?\s+Killed\b|\bKilled process \d+"
    r"|\bSIGKILL\b|\bsignal 9\b|\bSignals\.SIGKILL\b|\bexit (?:code|status) 137\b"
    r"|\bexitcode\s*:\s*-9\b"
)
_ABORT_RE = re.compile(
    r"^(?:\S*sh: )?(?:line \d+: )?\d+ Aborted\b|^\[\d+\][+-]?\s+Aborted\b|\bSIGABRT\b"
    r"|^Fatal Python error: Aborted"
)
_TERMINATE_RE = re.compile(r"terminate called after throwing an instance of '([^']+)'")
_TIMEOUT_LINE_RE = re.compile(r"^\s*(?:ERROR:?\s*)?(?:Timeout|TIMEOUT|Timed out)\b(?!\s*[:=(]\s*\d)")
_PIP_NOMATCH_RE = re.compile(r"No matching distribution found for (\S+)")
_PIP_NOVERSION_RE = re.compile(r"Could not find a version that satisfies the requirement (\S+)")
_PIP_NOTFOUND_RE = re.compile(r"Package\(s\) not found: (.+)")
_APT_LOCATE_RE = re.compile(r"Unable to locate package (\S+)")
_CMAKE_RE = re.compile(r"^CMake Error(?: at [^:\n]+:\d+ \([\w]+\))?:?\s*(.*)")
_BASH_SYNTAX_RE = re.compile(r"syntax error near unexpected token [`'](.+?)'")
_BASH_EOF_RE = re.compile(r"unexpected EOF while looking for matching [`'](.+?)'")

# Simple phrases, most specific first: (needle in line, canonical signature).
# Simple phrases, most specific first: (needle, canonical signature, needs a context).
# A phrase that needs a context must start its line or follow ": ", "] " or "(" as tools
# print it ("ssh: connect to host h port 22: Connection refused", "[Errno 111] Connection
# refused"), so that prose such as a commit subject "Handle Connection refused" is no hit.
_PHRASES = (
    ("Host key verification failed", "Host key verification failed", True),
    ("Permission denied (publickey", "Permission denied (publickey)", True),
    ("Could not resolve hostname", "Could not resolve hostname", True),
    ("Could not resolve host", "Could not resolve hostname", True),
    ("Temporary failure in name resolution", "Could not resolve hostname", True),
    ("Connection timed out", "Connection timed out", True),
    ("Connection refused", "Connection refused", True),
    ("connection refused", "Connection refused", True),
    ("No route to host", "No route to host", True),
    ("Connection closed by", "Connection closed by remote host", True),
    ("Connection reset by peer", "Connection reset by peer", True),
    ("Network is unreachable", "Network is unreachable", True),
    ("Couldn't connect to server", "Couldn't connect to server", True),
    ("Broken pipe", "Broken pipe", True),
    ("Address already in use", "Address already in use", True),
    ("address already in use", "Address already in use", True),
    ("Segmentation fault", "Segmentation fault", False),
    ("SIGSEGV", "Segmentation fault", False),
    ("Aborted (core dumped)", "Aborted (core dumped)", False),
)
_TIMEOUT_PHRASES = ("timed out", "Timed out", "exceeding timeout", "before timing out")
# words that may precede "timed out" in tool output ("curl: (28) Operation timed out")
_TIMED_OUT_SUBJECTS = frozenset(
    "operation read request command connection process call job task query it has had have "
    "execution wait waiting server worker socket handshake ssh rpc future".split()
)


def _in_context(msg: str, i: int) -> bool:
    """The phrase at ``i`` starts the line or follows ``:``, ``]``, ``(`` or a quote."""
    before = msg[:i].rstrip()
    return not before or before[-1] in ":])('\"" or before.endswith("--")


def _timed_out_ok(msg: str, i: int) -> bool:
    if _in_context(msg, i):
        return True
    words = msg[:i].split()
    return bool(words) and words[-1].lower().strip("*.,") in _TIMED_OUT_SUBJECTS


def _special_at(msg: str) -> tuple[str, int] | None:
    """The canonical signature of a message that names a well-known failure and where in
    ``msg`` the naming phrase starts, else None."""
    if "out of memory" in msg or "OUT_OF_MEMORY" in msg or "MemoryAllocation" in msg:
        if ("CUDA" in msg or "cuda" in msg or "GPU" in msg or "OutOfMemory" in msg
                or "MemoryAllocation" in msg):
            i = max(msg.find("out of memory"), msg.find("OUT_OF_MEMORY"),
                    msg.find("MemoryAllocation"))
            return "CUDA out of memory", i
    if "NCCL" in msg or "nccl" in msg:
        i = msg.find("Watchdog caught collective operation timeout")
        if i != -1:
            return "NCCL error: collective operation timeout", i
        m = _NCCL_IN_RE.search(msg)
        if m:
            return "NCCL error: " + normalise_message(m.group(1)), m.start()
        m = _NCCL_ENUM_RE.search(msg)
        if m:
            return "NCCL error: " + _NCCL_ENUM[m.group(1)], m.start()
        m = _NCCL_CUDA_FAIL_RE.search(msg)
        if m:
            if "out of memory" in m.group(1):
                return "CUDA out of memory", m.start()
            return f"NCCL error: Cuda failure '{m.group(1)}'", m.start()
        m = _NCCL_ERR_RE.search(msg)
        if m and "NCCL error" in msg:
            return "NCCL error: " + normalise_message(m.group(1)), m.start()
    if "CUDA error" in msg:
        m = _CUDA_ERR_RE.search(msg)
        if m:
            return "CUDA error: " + normalise_message(m.group(1)), m.start()
    if "Unsupported gpu architecture" in msg:
        m = _ARCH_RE.search(msg)
        if m:
            return f"Unsupported gpu architecture '{m.group(1)}'", m.start()
    for needle, sig, context in _PHRASES:
        i = msg.find(needle)
        if i != -1 and (not context or _in_context(msg, i)):
            return sig, i
    for needle in _TIMEOUT_PHRASES:
        i = msg.find(needle)
        if i != -1 and (needle[0] != "t" and needle[0] != "T" or _timed_out_ok(msg, i)):
            return "Timed out", i
    return None


def _special(msg: str) -> str | None:
    hit = _special_at(msg)
    return hit[0] if hit else None


def _canon_exception(name: str, msg: str) -> str:
    short = name.rsplit(".", 1)[-1]
    if "No module named" in msg:
        m = _MODULE_RE.search(msg)
        if m:
            return "ModuleNotFoundError: " + m.group(1).rstrip(".")
    if short == "ImportError" and "cannot import name" in msg:
        m = _IMPORT_NAME_RE.search(msg)
        if m:
            return "ImportError: " + m.group(1)
    sp = _special(msg)
    if sp:
        return sp
    if short == "OutOfMemoryError":
        return "CUDA out of memory"
    msg = normalise_message(msg)
    return f"{short}: {msg}" if msg else short


_QUOTED_AT_RE = re.compile(
    # A qualified name is tried only where a dotted run begins (linear: from inside the
    # run, ``zoo.zoo.…``, each start read to its end); a bare one at any word start.
    r"(?:PHP )?(?:Fatal error|Parse error):"
    r"|(?<![\w.])[A-Za-z_][\w.]*\.(?:[A-Z]\w*)?(?:Error|Exception):"
    r"|\b(?:[A-Z]\w*)?(?:Error|Exception):"
    r"|\berror(?:\[\w+\])?:|\bnpm (?:ERR!|error)")
_NOT_DEFINED_RE = re.compile(
    r"\b(?:[Cc]ommand|[Ff]unction|[Cc]lass|[Mm]ethod|[Cc]onstant|[Vv]ariable|[Mm]odule|[Pp]ackage)"
    r"\s+[\"'`]?([\w.:\\\\/-]+)[\"'`]?\s+(?:is\s+)?not\s+(?:defined|found)")


def quoted_error(text: str) -> str | None:
    """The signature of an error someone quotes inside prose: a user pasting what the page
    or the terminal printed ("when I click I got: TypeError: x is null"), else None."""
    m: re.Match[str] | None
    for m in _QUOTED_AT_RE.finditer(text[:20_000]):
        line_end = text.find("\n", m.start())
        seg = text[m.start(): line_end if line_end != -1 else len(text)]
        sigs = error_signatures(seg)
        if sigs:
            return sigs[0]
    m = _NOT_DEFINED_RE.search(text[:20_000])
    if m:
        return f"{m.group(1)} not defined"
    return None


def _codeish(line: str, idx: int) -> bool:
    """True when the phrase at ``idx`` sits in code: a string literal that an expression goes
    on after (``raise X("...")``, ``"...": 1``, ``("...",)``), or a code-looking line."""
    if idx > 0 and line[idx - 1] in "\"'`":
        q = line[idx - 1]
        close = line.find(q, idx)
        if close != -1:
            rest = line[close + 1:].lstrip()
            if rest[:1] in (")", ",", ":", ";", "]", "}", "+", "%") or rest.startswith(".format"):
                return True
    return _CODEISH_RE.match(line) is not None


def _line_sig(raw: str, in_tb: bool) -> str | None:
    line = _clean_line(raw)
    if not line.strip():
        return None
    # compiler diagnostics look like grep output of source files: test them first
    if ": error" in line or "): error" in line or ": fatal error" in line:
        m = _CC_ERR_RE.match(line)
        if m:
            kind = m.group(1)
            return f"{kind}: {normalise_message(m.group(2))}"
    if ".go:" in line:  # a Go compiler's "file.go:12:2: undefined: x" is no grep hit
        m = _GO_COMPILE_RE.match(line.strip())
        if m:
            return normalise_message(m.group(1))
    if _GREP_CODE_RE.match(line):
        return None
    line = _strip_prefixes(line)
    if not line.strip():
        return None
    if not in_tb and _CODEISH_RE.match(line):
        return None  # source code (a listing, a grep hit, a cat of a script), not output
    col0 = not line[:1].isspace()

    fam = _family_sig(line, line.strip(), col0)
    if fam is not None:
        return fam
    # Python exception lines
    if in_tb or col0:
        m = _EXC_LINE_RE.match(line.rstrip())
        if m:
            name, short, colon, msg = m.group(1), m.group(2), m.group(3), m.group(4) or ""
            if in_tb:
                if _TB_NAME_OK_RE.match(short) and not short.endswith("Warning"):
                    return _canon_exception(name, msg)
            elif colon and _EXC_NAME_OK_RE.match(short) and (
                short not in ("Error", "Exception") or any(ch.isalpha() for ch in msg)
            ):
                return _canon_exception(name, msg)
    stripped = line.strip()

    if "No module named" in line:
        if (in_tb or col0) and _MODULE_LINE_RE.match(stripped):
            m = _MODULE_RE.search(line)
            if m:
                return "ModuleNotFoundError: " + m.group(1).rstrip(".")
    if "fatal" in line:
        m = _NVFATAL_RE.match(line)
        if m:
            msg = m.group(2)
            sp = _special(msg) if "Unsupported gpu" in msg else None
            return sp or f"{m.group(1)} fatal: {normalise_message(msg)}"
        if col0:
            m = _GIT_FATAL_RE.match(line)
            if m:
                return "fatal: " + normalise_message(m.group(1))
    if "error" in line and col0:
        m = _RUST_ERR_RE.match(line)
        if m and not _CODEISH_RE.match(line):
            code = m.group(1) or ""
            msg = m.group(2).strip()
            if code or msg.startswith(("could not compile", "linking with", "aborting due")):
                return f"error{code}: {normalise_message(msg)}"
    if "error" in line or "Warning" in line or "Deprecated" in line:
        m = _PHP_ERR_RE.match(stripped)
        if m and (m.group(1) != "Warning" or "Uncaught" in line):
            exc = m.group(2).rsplit("\\", 1)[-1] + ": " if m.group(2) else ""
            return f"PHP {m.group(1)}: {exc}{normalise_message(m.group(3))}"
    if "recognized" in line:
        m = _NOT_RECOGNIZED_RE.match(stripped)
        if m:
            return "command not found: " + m.group(1)
    if "line is too long" in line and stripped.startswith("The command line is too long"):
        return "The command line is too long"
    if "npm" in line and "code" in line:
        m = _NPM_ERR_RE.match(stripped)
        if m:
            return "npm error: " + m.group(1)
    if "error: " in line:
        m = _PIP_KEBAB_RE.match(line)
        if m:
            return "error: " + m.group(1)
    if "command not found" in line or "not found" in line or "No such file" in line:
        for rx in _CMD_NF_RE:
            m = rx.search(stripped)
            if m:
                return "command not found: " + m.group(1)
    if "No such file or directory" in line or "can't open file" in line:
        if _SHELL_NOFILE_RE.match(stripped) or _PY_CANT_OPEN_RE.match(stripped):
            return "No such file or directory"
    if ("ld" in line or "collect2" in line) and ("cannot find" in line or "ld returned" in line):
        m = _LD_RE.match(stripped)
        if m:
            return "ld: " + normalise_message(m.group(1))
    if "undefined reference" in line:
        m = _UNDEF_RE.search(line)
        if m and not _codeish(line, m.start()):
            return "undefined reference to " + normalise_message(m.group(1))
    if "No matching distribution" in line or "Could not find a version" in line:
        m = _PIP_NOMATCH_RE.search(line) or _PIP_NOVERSION_RE.search(line)
        if m and not _codeish(line, m.start()):
            return "No matching distribution found for " + m.group(1)
    if "Package(s) not found" in line:
        m = _PIP_NOTFOUND_RE.search(line)
        if m and not _codeish(line, m.start()):
            return "Package(s) not found: " + normalise_message(m.group(1))
    if line.startswith("E: "):
        m = _APT_LOCATE_RE.search(line)
        if m:
            return "E: Unable to locate package " + m.group(1)
        return "E: " + normalise_message(line[3:])
    if "build stopped" in line and stripped.startswith("ninja: build stopped"):
        return "ninja: build stopped: subcommand failed"
    if "CMake Error" in line and col0:
        m = _CMAKE_RE.match(line)
        if m:
            msg = normalise_message(m.group(1))
            return f"CMake Error: {msg}" if msg else "CMake Error"
    if "syntax error" in line or "unexpected EOF" in line:
        if "sh: " in line or stripped.startswith("sh:"):
            m = _BASH_SYNTAX_RE.search(line)
            if m:
                return f"bash: syntax error near unexpected token '{m.group(1)}'"
            m = _BASH_EOF_RE.search(line)
            if m:
                return f"bash: unexpected EOF while looking for matching '{m.group(1)}'"
    if "terminate called" in line:
        m = _TERMINATE_RE.search(line)
        if m:
            return f"terminate called after throwing '{m.group(1)}'"

    # phrases anywhere in a line that is not code
    hit = _special_at(line)
    if hit is not None:
        return None if _codeish(line, hit[1]) else hit[0]
    if "Killed" in line or "SIG" in line or "signal 9" in line or "137" in line or "-9" in line:
        if stripped in ("Killed", "Killed."):
            return "Killed"
        m = _KILLED_RE.search(stripped)
        if m and not _codeish(stripped, m.start()):
            return "Killed"
    if "Abort" in line or "SIGABRT" in line:
        if stripped in ("Aborted", "Aborted."):
            return "Aborted"
        m = _ABORT_RE.search(stripped)
        if m and not _codeish(stripped, m.start()):
            return "Aborted"
    if "Timeout" in line or "TIMEOUT" in line or "Timed out" in line:
        if _TIMEOUT_LINE_RE.match(line):
            return "Timed out"
    return None


_GO_COMPILE_RE = re.compile(
    r"^(?:\./)?[\w./-]+\.go:\d+:\d+: ((?:undefined|cannot use|declared and not used|"
    r"imported and not used|missing return|too many arguments|not enough arguments|"
    r"syntax error|invalid operation|assignment mismatch)\b.*)")
_AWS_RE = re.compile(r"An error occurred \((\w+)\) when calling the (\w+) operation")
_API_ERROR_RE = re.compile(r"\bapi error (\w+): (.+)")
_K8S_RE = re.compile(r"^Error from server \((\w+)\)(?::\s*(.*))?")
_JVM_RE = re.compile(r'^(?:Exception in thread "[^"]*"|Caused by:)\s+'
                     r"((?:[\w$]+\.)*([\w$]+(?:Error|Exception)))(?::\s*(.*))?")
_PG_RE = re.compile(r"(?:^|: )(ERROR|FATAL|PANIC):  (\S.+)")  # PostgreSQL: two spaces
_CANT_RESOLVE_RE = re.compile(r"Can't resolve ('[^']+'|\"[^\"]+\")")
_VITE_RESOLVE_RE = re.compile(r"failed to resolve import (\"[^\"]+\"|'[^']+')")
_PYTEST_FAILED_RE = re.compile(r"^FAILED (\S+::\S+)(?: - (.+))?$")
_HTTP_FAIL_RE = re.compile(r"^(?:< )?HTTP/[\d.]+ (5\d\d|401|403)\b(.*)$")
_CURL_RE = re.compile(r"^curl: \((\d+)\) (.+)")
_PUSH_REJECTED_RE = re.compile(r"\[rejected\].*\(([\w -]+)\)")
_SYSTEMD_RE = re.compile(r"^Job for (\S+) failed\b")
_GRADLE_RE = re.compile(r"Execution failed for task '?([\w:.-]+)'?")
_MVN_RE = re.compile(r"Could not (find artifact|resolve dependencies for project) (\S+)")


def _family_sig(line: str, stripped: str, col0: bool) -> str | None:
    """Signatures of tool families whose lines the generic rules do not read (Go, the JVM,
    Kubernetes, AWS, PostgreSQL, build tools, HTTP …), ``None`` when no family applies."""
    if "DATA RACE" in line and stripped.startswith("WARNING: DATA RACE"):
        return "WARNING: DATA RACE"
    if "--- FAIL" in line and stripped.startswith("--- FAIL: "):
        return "--- FAIL: " + stripped[10:].split(" (")[0].strip()
    if col0 and line.startswith("panic: "):
        return "panic: " + normalise_message(line[7:])
    if col0 and line.startswith("fatal error: "):
        return "fatal error: " + normalise_message(line[13:])
    if "OOMKilled" in line and not _codeish(line, line.find("OOMKilled")):
        return "OOMKilled"
    if "Out of memory" in line or "out of memory" in line:
        if ("Killed process" in line or stripped.startswith(("Out of memory", "FATAL ERROR"))) \
                and "CUDA" not in line:
            return "out of memory"
    if "api error " in line:
        m = _API_ERROR_RE.search(line)
        if m:
            return f"api error {m.group(1)}: {normalise_message(m.group(2))}"
    if "An error occurred (" in line:
        m = _AWS_RE.search(line)
        if m:
            return f"An error occurred ({m.group(1)}) when calling the {m.group(2)} operation"
    if "Error from server" in line:
        m = _K8S_RE.match(stripped)
        if m:
            return f"Error from server ({m.group(1)})"
    if "Exception in thread" in line or "Caused by:" in line:
        m = _JVM_RE.match(stripped)
        if m:
            return _canon_exception(m.group(1), m.group(3) or "")
    if ("ERROR:  " in line or "FATAL:  " in line or "PANIC:  " in line) and col0:
        m = _PG_RE.search(stripped)
        if m:
            return f"{m.group(1)}: {normalise_message(m.group(2))}"
    if "Type error: " in line and col0 and line.startswith("Type error: "):
        return "Type error: " + normalise_message(line[12:])  # Next.js / webpack builds
    if "Module not found" in line and stripped.startswith("Module not found: "):
        m = _CANT_RESOLVE_RE.search(line)
        return f"Module not found: Can't resolve {m.group(1)}" if m else \
            "Module not found: " + normalise_message(stripped[18:])
    if "failed to resolve import" in line:
        m = _VITE_RESOLVE_RE.search(line)
        if m:
            return f"failed to resolve import {m.group(1)}"
    if "Docker daemon" in line and stripped.startswith("Cannot connect to the Docker daemon"):
        return "Cannot connect to the Docker daemon"
    if "Permission denied" in line and "(publickey" not in line and (
            stripped.endswith(": Permission denied") or stripped == "Permission denied") \
            and not stripped.startswith(("find:", "ls:", "du:", "grep:", "tar:", "rsync:")):
        return "Permission denied"  # (a walk's unreadable paths are noise, not the failure)
    if "FAILED " in line and stripped.startswith("FAILED "):  # pytest's summary line
        m = _PYTEST_FAILED_RE.match(stripped)
        if m:
            exc = m.group(2) and _EXC_LINE_RE.match(m.group(2))
            if exc and exc.group(3) and _EXC_NAME_OK_RE.match(exc.group(2)):
                return _canon_exception(exc.group(1), exc.group(4) or "")
            return "FAILED " + m.group(1)
    if "HTTP/" in line:
        m = _HTTP_FAIL_RE.match(stripped)
        if m:
            return f"HTTP {m.group(1)} {m.group(2).strip()}".strip()
    if "curl: (" in line:
        m = _CURL_RE.match(stripped)
        if m and m.group(1) not in ("6", "7", "28"):  # those are the transport phrases
            return f"curl: ({m.group(1)}) {normalise_message(m.group(2))}"
    if "o space left on device" in line:
        return "No space left on device"
    if "[rejected]" in line:
        m = _PUSH_REJECTED_RE.search(line)
        if m:
            return f"git push rejected ({m.group(1)})"
    if "failed to push some refs" in line:
        return "error: failed to push some refs"
    if "Job for " in line and " failed" in line:
        m = _SYSTEMD_RE.match(stripped)
        if m:
            return f"Job for {m.group(1)} failed"
    if "Execution failed for task" in line:
        m = _GRADLE_RE.search(line)
        if m:
            return f"Execution failed for task {m.group(1)}"
    if "Could not " in line:
        m = _MVN_RE.search(line)
        if m:
            what = "find artifact" if m.group(1) == "find artifact" else "resolve dependencies for"
            return f"Could not {what} {m.group(2).rstrip(':,')}"
    return None


def _line_bounds(text: str, i: int) -> tuple[int, int]:
    s = text.rfind("\n", 0, i) + 1
    e = text.find("\n", i)
    return s, (len(text) if e == -1 else e)


_EXCEPTION_LINE = re.compile(r"^\s*[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning"
                             r"|Iteration|Fault|Failure)\b(?::|\s*$)")
"""The line a traceback ends with: an exception's type, then its message (``UnicodeEncodeError:
'charmap' codec can't encode …``, ``KeyboardInterrupt``)."""


def _traceback_lines(text: str, cands: dict[int, tuple[int, bool]]) -> None:
    """Nominate the exception line of every traceback: the first line after the header
    that is not indented deeper than the header and names an exception; else the first
    line not indented deeper.  What the program printed to stdout can stand between the
    frames when both streams were captured (``Showcase`` before ``UnicodeEncodeError: …``,
    pool/uicomponents__session-wordpress #200): it is no exception."""
    n = 0
    i = text.find(_TB_HEADER)
    while i != -1 and n < 50:
        n += 1
        s, e = _line_bounds(text, i)
        header = _strip_prefixes(_clean_line(text[s:e]))
        hdr_indent = len(header) - len(header.lstrip())
        pos = e + 1
        walked = 0
        first: tuple[int, int] | None = None
        while pos < len(text) and walked < 2000:
            walked += 1
            le = text.find("\n", pos)
            if le == -1:
                le = len(text)
            line = _strip_prefixes(_clean_line(text[pos:le]))
            if line.strip():
                if _TB_HEADER in line:
                    break
                indent = len(line) - len(line.lstrip())
                if indent <= hdr_indent:
                    if _EXCEPTION_LINE.match(line):
                        first = (pos, le)
                        break
                    if first is None:
                        first = (pos, le)
            pos = le + 1
        if first is not None:
            cands[first[0]] = (first[1], True)
        i = text.find(_TB_HEADER, e)


def error_signatures(output: str) -> list[str]:
    """The canonical error signatures ``output`` shows, in order of appearance, deduplicated.

    ``[]`` for ordinary output.  A rule that raises is a bug a test shows: nothing here
    catches it (ingest counts and reports it, see ``logparse.derive.Deriver._rule``).
    """
    return _error_signatures(output)


_HTML_TAG_RE = re.compile(r"</?(?:b|br|strong|i|em|code|pre|p|font|span|div)\b[^>]*>", re.I)


def _unhtml(text: str) -> str:
    """Output of a page fetched as HTML (PHP's ``<b>Parse error</b>:``, entities such as
    ``&quot;``) as the text the page shows, so its errors read like a terminal's."""
    import html

    return html.unescape(_HTML_TAG_RE.sub("", text))


def _error_signatures(text: str) -> list[str]:
    if not isinstance(text, str) or not text:
        return []
    if "</b>" in text or "<br" in text:
        text = _unhtml(text)
    cands: dict[int, tuple[int, bool]] = {}
    if "Traceback" in text and _TB_HEADER in text:
        _traceback_lines(text, cands)
    for _gate, needles in _present_gates(text):
        for needle in needles:
            i = text.find(needle)
            k = 0
            while i != -1 and k < _MAX_LINES_PER_NEEDLE:
                k += 1
                s, e = _line_bounds(text, i + 1 if needle[0] == "\n" else i)
                if s not in cands:
                    cands[s] = (e, False)
                i = text.find(needle, e)
    if text.startswith("E: "):
        cands.setdefault(0, (_line_bounds(text, 0)[1], False))
    if not cands:
        return []
    out = _signatures_at(text, cands)
    if "Timed out" in out and _waiting_for_input(text):
        out[out.index("Timed out")] = TIMED_OUT_ON_PROMPT
    return out


_PROMPT_RE = re.compile(
    r"(?i:\[\s*y(?:es)?\s*/\s*no?\s*\]|\(\s*\[?y(?:es)?\]?\s*/\s*\[?no?\]?\s*\)"
    r"|\?\s*\(y\)\s*$|\bpress (?:any key|enter|return)\b|\bare you sure\b"
    r"|\bok to proceed\b|\bdo you want to continue\b|\bcontinue\?\s*$"
    r"|\b(?:password|passphrase)(?: for [^:]*)?:\s*$|^username for '[^']*':\s*$)"
    r"|\bto select\b.*\b(?:confirm|Enter)\b|\bUse arrow[- ]keys\b")
"""The prompts of common CLIs: yes/no (``[Y/n]``, ``(y/N)``, ``Proceed ([y]/n)?``),
npx's ``Ok to proceed? (y)``, "Press Enter", passwords, git's username, and the
pickers of prompt libraries (clack's "↑/↓ to select • Enter: confirm", inquirer's
"(Use arrow keys)")."""
_METADATA_RE = re.compile(r"<(?:shell|bash)_metadata>|(?<!\s)[^\S\n]*\n\s*+\[?(?:Command|Process) (?:timed out|killed)", re.I)


def waiting_for_input(text: str) -> bool:
    """The last lines the program printed before it was cut end at a prompt (what the
    ``waiting_for_input`` signal of :mod:`logparse.structural` reads)."""
    return _waiting_for_input(text)


def _waiting_for_input(text: str) -> bool:
    """The last lines the program printed before it was cut end at a prompt."""
    m = _METADATA_RE.search(text)
    head = text[:m.start()] if m else text
    lines = [ln.strip() for ln in _ANSI_RE.sub("", head[-2000:]).splitlines() if ln.strip()]
    return any(_PROMPT_RE.search(ln) for ln in lines[-6:])


def _signatures_at(text: str, cands: dict[int, tuple[int, bool]]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    memo: dict[tuple[str, bool], str | None] = {}
    for s in sorted(cands):
        e, in_tb = cands[s]
        key = (text[s:e], in_tb)
        sig = memo.get(key, "")
        if sig == "":
            sig = memo[key] = _line_sig(key[0], in_tb)
        if sig and sig not in seen:
            seen.add(sig)
            out.append(sig)
            if len(out) >= _MAX_SIGS:
                break
    return out
