"""Signals in tool output: canonical error signatures and reported measurements.

Both functions run on every tool output during ingest (sessions of 100k messages, outputs of
0.1-50 KB), so neither scans a whole output with a general regex:

* :func:`error_signatures` checks ~20 short gate tokens with ``in`` (``"rror"``, ``"found"``,
  ``"Killed"``...; tokens without spaces, which ``str`` searches fastest), nominates only the
  lines holding a needle of a present gate, and runs the line rules on those lines (plus the
  exception line of every ``Traceback``).  Clean output costs the gate checks only.  Source
  code (grep hits of source files, ``read`` listings, ``raise``/``except`` lines, string
  literals) is recognised and never yields a signature.
* :func:`measurements` finds candidate numbers with scanners anchored on rare literals
  (``/s``, ``TFLOP``, ``": "`` + number + bare unit, ``"("`` + unit + ``"):"``, markdown
  table cells, ``% faster``...), each behind a substring gate, then labels every candidate
  from the words before it on its line.  Its cost grows with the number of measurements
  found (a server-log tail with hundreds of ``gen throughput`` lines is the slow case).

Both never raise: any internal failure yields ``[]``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from logparse.models import Measurement

__all__ = ["error_signatures", "measurements", "normalise_message", "quoted_error"]

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
)

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
    r"(?:PHP )?(?:Fatal error|Parse error):|\b(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*)?(?:Error|Exception):"
    r"|\berror(?:\[\w+\])?:|\bnpm (?:ERR!|error)")
_NOT_DEFINED_RE = re.compile(
    r"\b(?:[Cc]ommand|[Ff]unction|[Cc]lass|[Mm]ethod|[Cc]onstant|[Vv]ariable|[Mm]odule|[Pp]ackage)"
    r"\s+[\"'`]?([\w.:\\\\/-]+)[\"'`]?\s+(?:is\s+)?not\s+(?:defined|found)")


def quoted_error(text: str) -> str | None:
    """The signature of an error someone quotes inside prose: a user pasting what the page
    or the terminal printed ("when I click I got: TypeError: x is null"), else None."""
    try:
        for m in _QUOTED_AT_RE.finditer(text[:20_000]):
            line_end = text.find("\n", m.start())
            seg = text[m.start(): line_end if line_end != -1 else len(text)]
            sigs = error_signatures(seg)
            if sigs:
                return sigs[0]
        m = _NOT_DEFINED_RE.search(text[:20_000])
        if m:
            return f"{m.group(1)} not defined"
    except Exception:  # noqa: BLE001 - prose must never break extraction
        return None
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
    if _GREP_CODE_RE.match(line):
        return None
    line = _strip_prefixes(line)
    if not line.strip():
        return None
    if not in_tb and _CODEISH_RE.match(line):
        return None  # source code (a listing, a grep hit, a cat of a script), not output
    col0 = not line[:1].isspace()

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


def _line_bounds(text: str, i: int) -> tuple[int, int]:
    s = text.rfind("\n", 0, i) + 1
    e = text.find("\n", i)
    return s, (len(text) if e == -1 else e)


def _traceback_lines(text: str, cands: dict[int, tuple[int, bool]]) -> None:
    """Nominate the exception line of every traceback (the first line after the header
    that is not indented deeper than the header)."""
    n = 0
    i = text.find(_TB_HEADER)
    while i != -1 and n < 50:
        n += 1
        s, e = _line_bounds(text, i)
        header = _strip_prefixes(_clean_line(text[s:e]))
        hdr_indent = len(header) - len(header.lstrip())
        pos = e + 1
        walked = 0
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
                    cands[pos] = (le, True)
                    break
            pos = le + 1
        i = text.find(_TB_HEADER, e)


def error_signatures(output: str) -> list[str]:
    """The canonical error signatures ``output`` shows, in order of appearance, deduplicated.

    ``[]`` for ordinary output.  Never raises.
    """
    try:
        return _error_signatures(output)
    except Exception:  # noqa: BLE001 - ingest must never fail on odd text
        return []


def _error_signatures(text: str) -> list[str]:
    if not isinstance(text, str) or not text:
        return []
    cands: dict[int, tuple[int, bool]] = {}
    if "Traceback" in text and _TB_HEADER in text:
        _traceback_lines(text, cands)
    for gate, needles in _GATES:
        if gate not in text:
            continue
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


# --------------------------------------------------------------------------- measurements

# unit spellings → canonical unit
_UNIT_CANON = {
    "tokens/sec": "tokens/s", "tokens/s": "tokens/s", "token/s": "token/s", "tok/sec": "tok/s",
    "tok/s": "tok/s", "toks/s": "tok/s", "requests/s": "req/s", "requests/sec": "req/s",
    "reqs/s": "req/s", "req/sec": "req/s", "req/s": "req/s", "it/s": "it/s",
    "GB/s": "GB/s", "GiB/s": "GiB/s", "MB/s": "MB/s", "TFLOPS": "TFLOPS", "TFLOP/s": "TFLOPS",
    "TFLOPs": "TFLOPS", "tflops": "TFLOPS",
    "milliseconds": "ms", "millisecond": "ms", "msec": "ms", "ms": "ms",
    "microseconds": "us", "microsecond": "us", "usec": "us", "us": "us", "µs": "µs", "μs": "µs",
    "nanoseconds": "ns", "ns": "ns",
    "seconds": "s", "second": "s", "secs": "s", "sec": "s", "s": "s",
    "GB": "GB", "GiB": "GiB", "MB": "MB", "MiB": "MiB", "%": "%", "x": "x", "×": "x",
}
_STRONG_UNITS = frozenset({"tokens/s", "token/s", "tok/s", "req/s", "it/s", "GB/s", "GiB/s",
                           "MB/s", "TFLOPS"})
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNIT_CANON, key=len, reverse=True))
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_QUAL = r"(?:(total|output|input|prompt|generation|gen|decode|prefill)[ \t]+)?"
# ``number [qualifier] unit`` at a position a scanner found
_NUM_UNIT_HERE_RE = re.compile(
    r"(" + _NUM + r")(?!\.\d)[ \t]?" + _QUAL + r"(" + _UNIT_ALT + r")(?![\w/])"
)
# a number (and qualifier) ending where a unit starts
_NUM_BEFORE_RE = re.compile(r"(?<![\w.\-/:])(?:" + _NUM + r")(?!\.\d)[ \t]?" + _QUAL + r"$")

# Scanners.  Each starts with a literal or a small character set so that ``re`` skips
# quickly to the few places worth a closer look.
# ``label: 12.3 ms`` / ``label = 12.3 GB`` with a bare unit
_BARE_UNIT = (r"(?:[mµμun]?s|secs?|seconds?|msec|milliseconds?|microseconds?|nanoseconds|[GM]i?B"
              r"|%|x|×)(?![\w/])")
# (a colon needs a space after it: timestamps like 10:00:00 are thus never looked at)
_BARE_COLON_RE = re.compile(r":[ \t]+[~≈]?[ \t]?(\d[\d.,]*) ?" + _BARE_UNIT)
_BARE_EQ_RE = re.compile(r"=[ \t]?[~≈]?[ \t]?(\d[\d.,]*) ?" + _BARE_UNIT)
# ``label (unit): 12.3``
_PAREN_RE = re.compile(r"\((" + _UNIT_ALT + r")\)[ \t]*[:=][ \t]*(" + _NUM + r")(?![\w.])")
_CELL_RE = re.compile(r"\|[ \t]*(?=\.?\d)")
_MD_SEP_LINE_RE = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*\|")  # a markdown table rule
# a "/s" unit end; not "(tok/s):", which is a row label taken with its value by _PAREN_RE
_SLASH_S_RE = re.compile(r"/s(?:ec)?(?![\w/])(?!\)[ \t]*[:=])")
_CMP_WORDS = ("faster", "slower", "better", "worse", "higher", "lower", "improvement",
              "speedup", "regression", "reduction", "increase", "decrease", "gain", "more",
              "less", "fewer")
_CMP_BEFORE_RE = re.compile(r"(?<![\w.])(?:" + _NUM + r")[ \t]?(?:%|x|×)[ \t]+$")
_PCT_CMP_RE = re.compile(r"[ \t]*(" + "|".join(_CMP_WORDS) + r")\b", re.I)
_SOFT_MAX = 4096  # the prose form "median TPOT of 11.17 ms" is looked for in short texts
# metric words that make "<word> 11.17 ms" / "<metric> of 11.17 ms" a measurement in prose
_METRIC_WORDS = ("latency", "Latency", "TPOT", "TTFT", "ITL", "throughput", "Throughput",
                 "bandwidth", "duration", "overhead", "speedup", "p50", "p90", "p95", "p99", "P50",
                 "P90", "P95", "P99", "elapsed", "busbw")
_SOFT_WORDS = (" of ", " is ", " was ", " at ", " are ", " were ")
_METRIC_RE = re.compile(
    r"\b(?:latency|tpot|ttft|itl|e2e|time|duration|throughput|bandwidth|busbw|algbw|mem(?:ory)?"
    r"|usage|util(?:i[sz]ation)?|speedup|overhead|p\d\d|median|mean|avg|average|size|elapsed)\b",
    re.I,
)
_LABEL_ROW_RE = re.compile(r"^[ \t]*([A-Za-z][\w .()/#'-]{0,60}?)[ \t]*:[ \t]+(" + _NUM
                           + r")[ \t]*$", re.M)
_UNITLESS_RE = re.compile(
    r"\b((?:avg |average |mean )?(?:accept(?:ance)?[ _](?:length|len|rate)|accept_len(?:gth)?"
    r"|acceptance rate|avg_accept_len))[ \t]*[:=][ \t]*(" + _NUM + r")(?![\w.])[ \t]*(%)?",
    re.I,
)
_NCCL_AVG_RE = re.compile(r"#\s*Avg bus bandwidth\s*:\s*(" + _NUM + r")")
_NCCL_ROW_RE = re.compile(
    r"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)",
    re.M,
)
_LABEL_TAIL_RE = re.compile(r"[:=][ \t]*[~≈]?[ \t]*$")
_METRIC_TAIL = r"tpot|ttft|itl|e2e|latency|p50|p90|p95|p99|throughput|bandwidth|busbw|algbw|duration|overhead|elapsed"
_SOFT_LABEL_TAIL_RE = re.compile(
    r"\b(?:of|is|was|at|are|were|" + _METRIC_TAIL + r")[ \t*]*[~≈]?[ \t*]*$", re.I
)
_HEAD_LABEL_RE = re.compile(r"^[ \t]*(?:[-*•][ \t]+)?([A-Za-z][^:\n]{0,60}?)[ \t]*:")
_LS_RE = re.compile(r"^[-dlcbps][rwxsStT-]{9}[.+@]?\s")
_CLAUSE_CUT_RE = re.compile(r"[,;()|\[\]{}—–#]|\s-\s|[.!?](?:\s|$)|\*\*|" + r"(" + (
    r"\bvs\.?(?=\s)|\bversus\b|\bagainst\b|\bcompared\s+(?:to|with)\b|\bthan\b") + r")", re.I)
_STOP = frozenset(
    "a an the and or vs vs. versus against with at of to from in on for by is are was were be "
    "been about around approximately approx roughly only just now then than ~ ≈ = : - this "
    "that it its which while whereas but so we i our my down up over under nearly almost still "
    "also even more less".split()
)
_VERBS = frozenset(
    "is are was were gives give gave giving produces produced produce hits hit reaches reached "
    "reaching achieves achieved gets got get getting yields yielded yielding delivers delivered "
    "does did runs ran drops dropped falls fell shows showed showing measured measures reports "
    "reported sits sat stays stayed improves improved goes went crushed crushes rises rose "
    "reach achieve".split()
)
_MAX_LABEL_WORDS = 6


_NUMBERISH_RE = re.compile(r"^[\d:.<>,/+-]+$")  # 00:40<00:00, 8/8, 12:30


def _is_number_word(w: str) -> bool:
    w = w.strip("~≈()[],;:")
    if not w or _NUMBERISH_RE.match(w):
        return True
    try:
        float(w.replace(",", "").rstrip("%x×"))
        return True
    except ValueError:
        return False


def _trim(words: list[str]) -> list[str]:
    while words and (words[0].lower() in _STOP or words[0].lower() in _VERBS
                     or _is_number_word(words[0])) and not (
        len(words) > 1 and words[0].endswith("%") and words[1].lower().startswith("percentile")
    ):
        words.pop(0)
    while words and (words[-1].lower().rstrip(":=") in _STOP or _is_number_word(words[-1])
                     or words[-1] in (":", "=")):
        words.pop()
    return words


@lru_cache(maxsize=4096)
def _tidy_label(s: str, tail: bool = True, fallback: bool = True) -> str:
    """A short label from free text: the last clause (``tail``; with ``fallback`` the one
    before when the last holds only numbers and stop words) or the first one, trimmed of stop
    words and bare numbers; "custom allreduce produced a" keeps its subject."""
    s = s.replace("`", "").replace("*", "")
    cuts = list(_CLAUSE_CUT_RE.finditer(s))
    if not tail:
        words = _trim(s[:cuts[0].start()].split() if cuts else s.split())[:4]
        return " ".join(words).rstrip(":=").strip()
    parts = [s[cuts[-1].end():]] if cuts else [s]
    # fall back to the clause before ("... by 9% (from 82 to 89.5 tok/s)"), never past a
    # comparison ("54 tok/s vs 82 tok/s": the words before "vs" belong to the first number)
    if cuts and fallback and cuts[-1].group(1) is None:
        parts.insert(0, s[cuts[-2].end() if len(cuts) > 1 else 0:cuts[-1].start()])
    words: list[str] = []
    for part in reversed(parts):
        words = _trim(part.split()[-(_MAX_LABEL_WORDS + 2):])
        if words:
            break
    for k, w in enumerate(words):
        if k and w.lower() in _VERBS:
            subject, rest = _trim(words[:k]), _trim(words[k + 1:])
            # "Reducing X improves baseline throughput" is about the object, not the gerund
            gerund = bool(subject) and subject[0].lower().endswith("ing")
            words = rest if gerund and rest else subject
            break
    words = _trim(words[-_MAX_LABEL_WORDS:])
    return " ".join(words).rstrip(":=").strip()


def _to_float(s: str) -> float:
    return float(s.replace(",", ""))


def measurements(text: str) -> list[Measurement]:
    """Numbers ``text`` reports, with unit and label, in order of appearance.  Never raises."""
    # the fields are already a float and two str: skip pydantic's validation
    return [Measurement.model_construct(value=v, unit=u, label=lab)
            for v, u, lab in measurement_tuples(text)]


def measurement_tuples(text: str) -> list[tuple[float, str, str]]:
    """:func:`measurements` as ``(value, unit, label)`` tuples (the ingest hot path)."""
    try:
        return _measurements(text)
    except Exception:  # noqa: BLE001 - ingest must never fail on odd text
        return []


def _unit_hit(text: str, p: int, seen: set[int], out: list[re.Match[str]]) -> None:
    if p in seen:
        return
    m = _NUM_UNIT_HERE_RE.match(text, p)
    if m is not None:
        seen.add(p)
        out.append(m)


def _candidates(text: str) -> list[re.Match[str]]:
    """``number [qualifier] unit`` matches where a scanner found one: before a ``/s`` or
    ``TFLOP`` unit, after ``label:``/``label =`` with a bare unit, in a table cell, before
    ``% faster``, and (short texts with a metric word) after ``of``/``is``/``at``."""
    seen: set[int] = set()
    out: list[re.Match[str]] = []
    limit = 4 * _MAX_MEASUREMENTS
    if "/s" in text:
        for k, sm in enumerate(_SLASH_S_RE.finditer(text)):
            if k >= limit:
                break
            i = sm.start()
            j = i
            while j > 0 and j > i - 10 and (text[j - 1].isalpha() or text[j - 1] in "µμ"):
                j -= 1
            if j < i:
                mb = _NUM_BEFORE_RE.search(text, max(0, j - 48), j)
                if mb is not None:
                    _unit_hit(text, mb.start(), seen, out)
    for key in ("TFLOP", "tflop"):
        i = text.find(key)
        k = 0
        while i != -1 and k < limit:
            k += 1
            mb = _NUM_BEFORE_RE.search(text, max(0, i - 48), i)
            if mb is not None:
                _unit_hit(text, mb.start(), seen, out)
            i = text.find(key, i + 5)
    for rx, sep in ((_BARE_COLON_RE, ": "), (_BARE_EQ_RE, "=")):
        if sep in text:
            for k, sm in enumerate(rx.finditer(text)):
                if k >= limit:
                    break
                _unit_hit(text, sm.start(1), seen, out)
    if _has_md_table(text):
        for k, sm in enumerate(_CELL_RE.finditer(text)):
            if k >= limit:
                break
            _unit_hit(text, sm.end(), seen, out)
    if ("% " in text or "x " in text or "× " in text or "%\t" in text) and (
        len(text) <= _SOFT_MAX or "faster" in text or "slower" in text or "speedup" in text
    ):
        for w in _CMP_WORDS:
            i = text.find(w)
            k = 0
            while i != -1 and k < limit:
                k += 1
                if i > 2 and text[i - 1] in " \t" and text[i - 2] in "%x× \t":
                    mb = _CMP_BEFORE_RE.search(text, max(0, i - 32), i)
                    if mb is not None:
                        _unit_hit(text, mb.start(), seen, out)
                i = text.find(w, i + len(w))
    if len(text) <= _SOFT_MAX and any(map(text.__contains__, _METRIC_WORDS)):
        # "median TPOT of 11.17 ms", "median TPOT **11.17 ms**": numbers right after a linking
        # word or a metric word (found with str.find: a regex alternation is slower here)
        n = len(text)
        for w in _SOFT_WORDS + _METRIC_WORDS:
            i = text.find(w)
            while i != -1:
                j = i + len(w)
                if w[0] != " " and (i and text[i - 1].isalnum() or j < n and text[j].isalnum()):
                    i = text.find(w, j)
                    continue
                while j < n and text[j] in " \t~≈*":
                    j += 1
                if j < n and (text[j].isdigit() or text[j] == "." and text[j + 1:j + 2].isdigit()):
                    _unit_hit(text, j, seen, out)
                i = text.find(w, j)
    out.sort(key=lambda m: m.start())
    return out


def _has_md_table(text: str) -> bool:
    """Whether ``text`` has a markdown table rule (``|---|---|``); nvidia-smi's box drawing
    (``|-----+-----|``, ``+====+``) is no table."""
    for key in ("|-", "| -", "|:-"):
        i = text.find(key)
        k = 0
        while i != -1 and k < 50:
            k += 1
            ls = text.rfind("\n", 0, i) + 1
            if _MD_SEP_LINE_RE.match(text, ls):
                return True
            i = text.find(key, i + 2)
    return False


def _skip_line(line: str) -> bool:
    """Lines whose numbers are not measurements: grep output of source files, ``ls -l``."""
    return bool(_GREP_CODE_RE.match(line) or _LS_RE.match(line))


def _paren_label(text: str, line_start: int, open_paren: int) -> str:
    seg = text[max(line_start, open_paren - 80):open_paren]
    cut = max(seg.rfind(","), seg.rfind(";"), seg.rfind("|"), seg.rfind("]"))
    raw = seg[cut + 1:].strip()
    return _tidy_label(raw, True, False) or raw


def _measurements(text: str) -> list[tuple[float, str, str]]:
    if not isinstance(text, str) or not text:
        return []
    found: list[tuple[int, float, str, str]] = []
    taken: list[tuple[int, int]] = []  # spans a block form consumed

    # label (unit): value — bench_serving rows, sglang's "gen throughput (token/s): 89.12"
    if "):" in text or ") :" in text or ")=" in text:
        ls = line_end = -1
        skip = False
        for m in _PAREN_RE.finditer(text):
            if m.start() >= line_end:
                ls, line_end = _line_bounds(text, m.start())
                skip = _skip_line(text[ls:line_end])
            if skip:
                continue
            found.append((m.start(), _to_float(m.group(2)), _UNIT_CANON[m.group(1)],
                          _paren_label(text, ls, m.start())))
            taken.append((m.start(), m.end()))
            if len(found) > 4 * _MAX_MEASUREMENTS:
                break

    # unitless rows of a benchmark result block; acceptance length anywhere
    if "Benchmark Result" in text:
        start = text.find("Benchmark Result")
        end = text.find("\n==", start + 20)
        end = len(text) if end == -1 else end
        for m in _LABEL_ROW_RE.finditer(text, start, end):
            label = m.group(1).strip()
            if label.endswith(")") and any(a <= m.start(1) + len(label) <= b for a, b in taken):
                continue  # "Mean TTFT (ms):" rows were taken with their unit above
            found.append((m.start(), _to_float(m.group(2)), "", label))
            taken.append((m.start(), m.end()))
    elif "ccept" in text:
        for m in _UNITLESS_RE.finditer(text):
            unit = "%" if m.group(3) else ""
            label = m.group(1).strip().replace("_", " ")
            label = label[:1].upper() + label[1:]
            found.append((m.start(), _to_float(m.group(2)), unit, label))
            taken.append((m.start(), m.end()))

    # nccl-tests: the summary line and the out-of-place busbw of each size
    if "bus bandwidth" in text:
        for m in _NCCL_AVG_RE.finditer(text):
            found.append((m.start(), _to_float(m.group(1)), "GB/s", "Avg bus bandwidth"))
            taken.append((m.start(), m.end()))
    if "busbw" in text:
        for m in _NCCL_ROW_RE.finditer(text):
            found.append((m.start(), _to_float(m.group(8)), "GB/s", f"busbw {m.group(1)} B"))
            taken.append((m.start(), m.end()))

    taken.sort()
    taken_starts = [a for a, _ in taken]

    def is_taken(p: int) -> bool:
        k = bisect_right(taken_starts, p) - 1
        return k >= 0 and p < taken[k][1]

    line_start = line_end = -1
    line = ""
    seg_start = 0
    skip = False
    head_label = ""
    for m in _candidates(text):
        p = m.start()
        if taken and is_taken(p):
            continue
        if p >= line_end:
            line_start, line_end = _line_bounds(text, p)
            line = text[line_start:line_end]
            skip = _skip_line(line)
            seg_start = line_start
            hm = _HEAD_LABEL_RE.match(line)
            head_label = _tidy_label(hm.group(1), False) if hm else ""
        if skip:
            continue
        unit = _UNIT_CANON[m.group(3)]
        qual = m.group(2)
        before = text[seg_start:p]
        label_form = _LABEL_TAIL_RE.search(before) is not None
        if not label_form and unit not in _STRONG_UNITS and _SOFT_LABEL_TAIL_RE.search(before):
            label_form = _METRIC_RE.search(_tidy_label(before)) is not None
        table_cell = False
        if not label_form and line.lstrip().startswith("|"):
            # markdown table: a cell holding only ``value unit`` takes the row's first cell
            cs = text.rfind("|", line_start, p)
            ce = text.find("|", m.end(), line_end)
            if (cs != -1 and ce != -1 and not text[cs + 1:p].strip()
                    and not text[m.end():ce].strip()):
                table_cell = True
        if unit == "%":
            nxt = text[m.end():m.end() + 12].lstrip(" \t")
            if nxt[:1] == "|" or nxt.startswith("Completed"):
                continue  # a progress bar
        cmp_word = ""
        if unit not in _STRONG_UNITS and not label_form and not table_cell:
            if unit not in ("%", "x"):
                continue
            pm = _PCT_CMP_RE.match(text, m.end(), line_end)
            if not pm:
                continue
            cmp_word = pm.group(1).lower()
        if table_cell:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            label = _tidy_label(cells[0], False) if cells else ""
        elif cmp_word:
            pre = _tidy_label(before, True, False)
            label = f"{pre} {cmp_word}" if pre else cmp_word
        else:
            label = _tidy_label(before)
            if not label:
                after = text[m.end():line_end].lstrip(" \t*")
                if after[:1].isalpha():  # "82 tok/s baseline", not "82 tok/s / 12.2 ms"
                    label = _tidy_label(after, False)
            if not label and head_label and not label_form:
                label = head_label
        if qual:
            label = f"{label} ({qual.lower()})" if label else qual.lower()
        found.append((p, _to_float(m.group(1)), unit, label))
        seg_start = m.end()
        if len(found) > 4 * _MAX_MEASUREMENTS:
            break

    found.sort(key=lambda t: t[0])
    out: list[tuple[float, str, str]] = []
    seen: set[tuple[float, str, str]] = set()
    for _, value, unit, label in found:
        key = (value, unit, label)
        if key in seen:
            continue
        seen.add(key)
        out.append(key)
        if len(out) >= _MAX_MEASUREMENTS:
            break
    return out
