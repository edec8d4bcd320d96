"""The public data model: the result dataclasses and the two vocabularies.

:class:`Redirect`, :class:`SimpleCommand`, :class:`SshCall`,
:class:`ShellInfo` and :class:`Safety` are frozen, slotted dataclasses made of
strings, ints and tuples only (no tree-sitter objects), so results are
hashable, cheap to cache and safe to share between callers;
:data:`CATEGORIES` and :data:`SAFETY_CLASSES` list the values their
``category`` and ``cls`` fields take.  The few derived properties (effective
argv, program, wrappers, jump hosts) delegate to :mod:`.wrappers` and
:mod:`.ssh`, which is why those two modules sit below this one.
"""

from __future__ import annotations

from dataclasses import dataclass

from logparse.shell.argv import _basename
from logparse.shell.ssh import _ssh_option_kv
from logparse.shell.wrappers import _strip_wrappers

CATEGORIES: tuple[str, ...] = (
    "launch",
    "benchmark",
    "deploy",
    "install",
    "build",
    "test",
    "typecheck",
    "lint",
    "kill",
    "file-edit",
    "file",
    "git",
    "package",
    "import-check",
    "package-query",
    "http",
    "run",
    "search",
    "other",
)
"""All categories, highest priority first (a line that installs then tests is an
``install``, one that builds then tests a ``build``: the GPU campaigns' order, where a
step that changes the machine is what the line is for)."""

SAFETY_CLASSES: tuple[str, ...] = ("read-only", "launch", "unknown", "mutating")
"""All safety classes, least severe first."""


# ---------------------------------------------------------------------------
# Public data model
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirection as written: ``2>&1``, ``> /tmp/log``, ``<<'EOF'``.

    ``op`` is the operator (``>``, ``>>``, ``<``, ``&>``, ``&>>``, ``>&``,
    ``<&``, ``>|``, ``>&-``, ``<<``, ``<<-``, ``<<<``); ``target`` is the
    unquoted destination (a file name, an fd number, the heredoc delimiter or
    the herestring); ``fd`` is the explicit descriptor (``"2"`` in ``2>x``) or
    ``None``.  For heredocs, ``heredoc`` is the body as the reading program
    sees it (tabs stripped for ``<<-``; for an unquoted delimiter the
    backslash escapes ``\\$ \\\\ \\``` are processed and expansions kept as
    text).
    """

    op: str
    target: str
    fd: str | None
    heredoc: str | None = None
    expands: bool = False
    """True for a heredoc with an unquoted delimiter: the shell expands ``$x`` and
    ``$(...)`` in its body before the reading program sees it."""

    @property
    def writes(self) -> bool:
        """True when the redirection opens ``target`` as a file for writing."""
        if self.op in ("<", "<<", "<<-", "<<<", "<&", ">&-", "<&-"):
            return False
        if self.op in (">&", "<&") or self.op.endswith("&-"):
            return not (self.target.isdigit() or self.target == "-")
        return True


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command found in a command text.

    ``argv`` is the unquoted word list as written, leading ``VAR=x``
    assignments included; ``redirects`` are the command's own redirections
    followed by those of enclosing statements (``{ a; b; } > f`` gives both
    ``a`` and ``b`` the ``> f``).  ``background`` is True when the command
    runs under ``&``; ``in_substitution`` when it runs inside ``$(...)``,
    backticks or ``<(...)``/``>(...)``; ``stdin_pipe`` when it reads the
    output of an earlier pipeline stage.  ``start``/``end`` are character
    offsets of the command into the text that was analysed (``ShellInfo.inner``
    for ``ShellInfo.commands``), also for commands found inside re-parsed code
    strings (the span then covers their quoted source).  ``via`` says how the
    command was reached when it is not written directly: ``"bash -c"``,
    ``"eval"``, ``"xargs"``, ``"find -exec"``, ``"ssh HOST"``, ``"heredoc"``...
    """

    argv: tuple[str, ...]
    redirects: tuple[Redirect, ...]
    background: bool
    in_substitution: bool
    start: int
    end: int
    stdin_pipe: bool = False
    via: str = ""

    @property
    def effective_argv(self) -> tuple[str, ...]:
        """``argv`` without leading assignments and wrappers.

        Wrappers are ``sudo``, ``doas``, ``nohup``, ``timeout DUR``,
        ``env [-i] [-u N] [A=B]...``, ``nice [-n N]``, ``ionice``, ``time``,
        ``stdbuf``, ``exec``, ``command``, ``builtin``, ``setsid``,
        ``taskset MASK``, ``numactl ...``, ``sshpass -p X``, ``unbuffer``,
        ``coproc``, ``uv run``, ``conda run``.  A wrapper that has no command
        after it (``sudo -i``, ``env``) *is* the effective command.
        """
        return self.argv[_strip_wrappers(self.argv)[0] :]

    @property
    def program(self) -> str:
        """Basename of the first effective word (``""`` for bare assignments)."""
        eff = self.effective_argv
        return _basename(eff[0]) if eff else ""

    @property
    def wrappers(self) -> tuple[str, ...]:
        """The wrapper programs stripped off, outermost first (``("sudo", "timeout")``)."""
        return _strip_wrappers(self.argv)[1]


@dataclass(frozen=True, slots=True)
class SshCall:
    """One ssh invocation, parsed with OpenSSH's getopt rules.

    ``host`` is the destination host (without ``user@``, ``ssh://`` or port),
    ``user``/``port``/``identity`` come from ``user@``, ``ssh://user@h:port``,
    ``-l``, ``-p``, ``-i`` or ``-o User=/Port=/IdentityFile=`` (first value
    wins, as in ssh).  ``options`` are all options in argv form (``-p``,
    ``2222``, ``-o``, ``StrictHostKeyChecking=no``, ``-t``, ``-t``; attached
    and clustered forms are split).  ``remote_command`` is exactly the string
    ssh sends: the words after the destination, unquoted and joined with
    single spaces, or ``None`` (interactive login or a script on stdin).

    ``host_start``/``host_end`` delimit the destination word as written
    (``root@10.1.230.174``, quotes included if it was quoted) and
    ``start``/``end`` the whole simple command (including wrappers such as
    ``sshpass``/``timeout``), as offsets into the text it was parsed from:
    for ``ShellInfo.hops[0]`` that is ``ShellInfo.text``, for ``hops[k]``
    it is ``hops[k-1].remote_command`` (or ``hops[k-1].stdin_script``); for
    ``ShellInfo.nested_ssh`` it is ``ShellInfo.inner``.

    ``local_suffix`` (hops only) is what follows the ssh command on the same
    statement and runs locally, e.g. ``2>&1 | head -10``.  ``stdin_script``
    is the heredoc/herestring fed to ssh when the remote side runs it as a
    script (``ssh h <<'EOF' ... EOF``, ``ssh h bash -s <<EOF``).
    """

    host: str
    user: str | None
    port: int | None
    identity: str | None
    options: tuple[str, ...]
    remote_command: str | None
    host_start: int
    host_end: int
    start: int
    end: int
    local_suffix: str = ""
    stdin_script: str | None = None

    @property
    def jump(self) -> tuple[str, ...]:
        """Jump hosts from ``-J a,b`` / ``-o ProxyJump=a,b`` (first option wins)."""
        opts = self.options
        for i in range(len(opts) - 1):
            if opts[i] == "-J":
                return tuple(p for p in opts[i + 1].split(",") if p)
            if opts[i] == "-o":
                key, value = _ssh_option_kv(opts[i + 1])
                if key == "proxyjump" and value.lower() != "none":
                    return tuple(p for p in value.split(",") if p)
        return ()

    @property
    def destination(self) -> str:
        """``user@host`` (or ``host``) as ssh resolves it."""
        return f"{self.user}@{self.host}" if self.user else self.host


@dataclass(frozen=True, slots=True)
class ShellInfo:
    """Everything :func:`parse_command` learns about one command text.

    ``hops``/``inner``/``commands``/``nested_ssh``/``category`` are described
    in the module docstring.  ``local_commands`` are the commands of the
    wrapper levels that run outside ``inner`` (the ssh commands themselves with
    their redirections, local pipelines such as ``| head -10``, substitutions
    in ssh arguments); their offsets are into ``text``.  ``parse_error`` is
    True when any level (including re-parsed code strings) had a syntax error.
    ``opaque`` lists parts the analyser could not see through (function
    definitions, syntax errors, nesting limits), one short sentence each;
    :func:`classify_safety` treats each as ``unknown``.
    """

    text: str
    hops: tuple[SshCall, ...]
    inner: str
    commands: tuple[SimpleCommand, ...]
    nested_ssh: tuple[SshCall, ...]
    category: str
    parse_error: bool
    local_commands: tuple[SimpleCommand, ...] = ()
    opaque: tuple[str, ...] = ()

    @property
    def local_suffix(self) -> str:
        """The outermost hop's local suffix (``"| head -10"``), ``""`` without hops."""
        return self.hops[0].local_suffix if self.hops else ""


@dataclass(frozen=True, slots=True)
class Safety:
    """How safe it is to re-run a command: ``cls`` is one of :data:`SAFETY_CLASSES`.

    ``reasons`` are short human sentences naming the pieces that decided the
    class, most severe first (for ``read-only`` a single summary sentence).
    ``endpoints`` are the network endpoints the command names outside ssh
    (``HOST:PORT`` of ``/dev/tcp``, URL hosts, ``nc HOST``, ``git ls-remote URL``);
    replay refuses a step whose endpoint is not loopback.  ``blind`` says why the
    hosts it reaches cannot be read from the text at all (a curl ``-K`` config file,
    a wget ``-i`` URL list, a proxy variable computed at run time); replay refuses
    such a step whatever ``--allow`` says.  ``follows`` names the HTTP clients that
    follow a redirect (``curl -L``, wget by default): the server, not the text, says
    where they go next, so replay runs such a step only where no other host is reachable.
    """

    cls: str
    reasons: tuple[str, ...]
    endpoints: tuple[str, ...] = ()
    blind: tuple[str, ...] = ()
    follows: tuple[str, ...] = ()
