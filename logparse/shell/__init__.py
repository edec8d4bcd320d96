"""Pure shell-command analysis for logkb, built on tree-sitter-bash.

An opencode transcript is full of ``bash`` tool calls, most of them wrapped in
one or more ssh hops::

    ssh root@10.1.230.174 'grep -rn "a2a" /root/sglang/.../server_args.py | head -10'

:func:`parse_command` turns such a command text into a :class:`ShellInfo`:

* ``hops``      the ssh *wrapper chain* (``ssh a 'ssh b "cmd"'`` has two hops),
* ``inner``     the innermost remote command (the text itself without a wrapper),
* ``commands``  every simple command of ``inner`` (recursing into ``$(...)``,
  backticks, subshells, compound statements, pipelines, lists, process
  substitution, ``sh -c``/``bash -c``/``eval`` code strings, ``xargs`` and
  ``find -exec`` targets and the remote commands of nested ssh calls),
* ``nested_ssh`` ssh calls inside ``inner`` that are not the wrapper itself,
* ``category``  what the inner command is for (search, launch, install ...).

:func:`classify_safety` decides whether re-running a command (the replay
feature) is ``read-only``, a ``launch``, ``mutating`` or ``unknown``.  It
denies by default: a command is ``read-only`` only when every part of it is
positively known (``programs.PROGRAMS``, the one table of program knowledge that
the category reads too, with allow-listed options; no executing expansion; no
write but to /dev/null or an fd; no lookup-changing assignment; Python only as
allow-listed AST forms).  ``Safety.endpoints`` lists the network endpoints a
command names outside ssh.

Public API (import it from ``logparse.shell``; the submodules are internal):

* :func:`parse_command` ``(text) -> ShellInfo``, and :func:`classify_safety`
  ``(ShellInfo) -> Safety``;
* the result types :class:`ShellInfo`, :class:`SshCall`,
  :class:`SimpleCommand`, :class:`Redirect` and :class:`Safety`;
* :data:`CATEGORIES` (highest priority first) and :data:`SAFETY_CLASSES`
  (least severe first).

Contracts:

* :func:`parse_command` never raises and accepts any input (bytes are decoded
  with ``surrogateescape``, ``None`` becomes ``""``, anything else goes
  through ``str``); it is LRU-cached (65536 entries) and exposes
  ``parse_command.cache_info()`` and ``parse_command.cache_clear()``.
* Results are frozen, slotted dataclasses of strings, ints and tuples:
  hashable, immutable and safe to share.
* Spans (``start``/``end``, ``host_start``/``host_end``) are *character*
  offsets (not bytes) into the text named in :class:`SshCall` and
  :class:`SimpleCommand`, exact also for commands found in re-parsed code.
* :func:`classify_safety` is a pure function of its :class:`ShellInfo`: the
  worst class wins (``read-only < launch < unknown < mutating``) and every
  opaque part counts as ``unknown``.

Design rules:

* Shell *syntax* is never parsed with regular expressions: the structure comes
  from the tree-sitter-bash tree, and individual word nodes are unquoted by
  node type (``'raw'``, ``"string"``, ``$'ansi-c'``, bare words, concatenations).
  Expansions (``$X``, ``$(...)``) stay as literal text inside unquoted words.
* Code strings (``bash -c '...'``, ssh remote commands, heredocs fed to a
  shell) are parsed again.  Every unquoting step records where each output
  character came from, so spans of commands and ssh hosts found in re-parsed
  code are exact character offsets into the text the caller sees.
* Nothing here raises: tree-sitter reports syntax errors as ERROR nodes and the
  analyser works on whatever tree it gets, setting ``parse_error``.  Any
  internal failure is caught and reported as an opaque part of the command.
* No I/O and no imports of storage or UI code: this is a leaf package (the
  import-linter contract "logparse is pure" keeps it so).

Layout, lowest layer first.  A module imports only modules listed above it,
so the import graph is a DAG:

===============  ==============================================================
module           owns
===============  ==============================================================
``argv``         name tables, basenames, ``VAR=x`` detection, option skipping
``wrappers``     stripping ``sudo``/``env``/``timeout``/``uv run``... wrappers
``ssh``          OpenSSH argv parsing (getopt rules, ``-o``, ``ssh://``)
``model``        the public dataclasses, ``CATEGORIES``, ``SAFETY_CLASSES``
``words``        tree-sitter parser, character offsets, unquoting, word joining
``programs``     program knowledge shared by the walker and both classifiers,
                 including ``PROGRAMS``, the one table of what each program does
``pycode``       read-only check of ``python -c`` code
``sedawk``       sed and awk command-line and script readers
``subcommands``  pip, package managers, git, containers: tables and rules
``walk``         the tree walker, heredocs, re-parsed code strings, limits
``category``     the category of the inner command
``analysis``     the ssh wrapper chain and :func:`parse_command` with its cache
``safety``       :func:`classify_safety` and the per-program safety rules
===============  ==============================================================
"""

from logparse.shell.analysis import parse_command
from logparse.shell.model import (
    CATEGORIES,
    SAFETY_CLASSES,
    Redirect,
    Safety,
    ShellInfo,
    SimpleCommand,
    SshCall,
)
from logparse.shell.safety import classify_safety

__all__ = [
    "CATEGORIES",
    "SAFETY_CLASSES",
    "Redirect",
    "Safety",
    "ShellInfo",
    "SimpleCommand",
    "SshCall",
    "classify_safety",
    "parse_command",
]
