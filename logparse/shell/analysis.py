"""The analysis entry point: :func:`parse_command` and the ssh wrapper chain.

``_analyse_unsafe`` parses the text, peels the ssh wrapper chain one hop at a
time (``_find_wrapper`` on a single-statement tree, then re-parsing the
remote command with its source map so later spans stay exact), walks the
local parts around each hop and the innermost command, and assembles the
:class:`ShellInfo`.  This module owns the never-raise guarantee (``_analyse``)
and the LRU cache behind :func:`parse_command`; it is the top of the parsing
side and imports the walker and the category.
"""

from __future__ import annotations

import functools

from tree_sitter import Node

from logparse.shell.argv import _basename
from logparse.shell.category import _category
from logparse.shell.model import Redirect, ShellInfo, SimpleCommand, SshCall
from logparse.shell.ssh import _parse_ssh_argv
from logparse.shell.walk import _MAX_HOPS, _Analysis, _Walker, hidden_code
from logparse.shell.words import _REDIRECTS, _Ctx, _join_words, _parse_tree, _Pieces, _Src
from logparse.shell.wrappers import _strip_wrappers

# ---------------------------------------------------------------------------
# Wrapper-chain detection and the analysis entry point
# ---------------------------------------------------------------------------


def _single_statement(root: Node) -> Node | None:
    """The only statement of a parse tree, or None (several, backgrounded, none)."""
    stmt = None
    for ch in root.children:
        t = ch.type
        if t == "comment":
            continue
        if not ch.is_named:
            if t == "&":
                return None
            continue
        if stmt is not None:
            return None
        stmt = ch
    return stmt


def _find_wrapper(
    root: Node, ctx: _Ctx, an: _Analysis
) -> tuple[SshCall, Node, Node, str, _Pieces] | None:
    """If the tree is one ssh wrapper, return ``(call, stmt, cmd_node, code, pieces)``."""
    text = ctx.text
    if "ssh" not in text and "\\" not in text and "'" not in text and '"' not in text:
        return None  # fast path: no word can unquote to "ssh"
    stmt = _single_statement(root)
    if stmt is None:
        return None
    node = stmt
    outer_reds: list[Node] = []
    for _ in range(8):
        if node.type == "pipeline":
            named = [ch for ch in node.children if ch.is_named]
            if not named:
                return None
            node = named[0]
        elif node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None:
                return None
            outer_reds.extend(ch for ch in node.children if ch.type in _REDIRECTS)
            node = body
        else:
            break
    if node.type != "command":
        return None
    w = _Walker(an)
    words, red_nodes = w._words(node, ctx)
    argv = tuple(x.value for x in words)
    idx = _strip_wrappers(argv)[0]
    if idx >= len(argv) or _basename(argv[idx]) != "ssh":
        return None
    eff = argv[idx:]
    ew = words[idx:]
    parsed = _parse_ssh_argv(eff)
    if parsed is None:
        return None
    reds: list[Redirect] = []
    for r in list(red_nodes) + outer_reds:
        reds.extend(w._redirect(r, ctx))
    probe = SimpleCommand(argv, tuple(reds), False, False, 0, 0)
    remote_words = ew[parsed.cmd_idx :]
    remote = None
    if remote_words:
        remote, pieces = _join_words(remote_words)
        remote = remote or None  # ssh runs a login shell for an empty command
    stdin_script, entry = w._ssh_stdin(probe, remote)
    if entry is not None:
        code, pieces = entry
    elif remote is not None:
        code = remote
    else:
        return None
    c = ctx.src.c
    hw = ew[parsed.host_idx]
    cs, ce = c(node.start_byte), c(node.end_byte)
    suffix = ctx.text[ce : c(stmt.end_byte)].strip()
    call = SshCall(
        parsed.host,
        parsed.user,
        parsed.port,
        parsed.identity,
        parsed.options,
        remote,
        hw.start,
        hw.end,
        cs,
        ce,
        suffix,
        stdin_script,
    )
    return call, stmt, node, code, pieces


def _analyse(text: str) -> ShellInfo:
    try:
        return _analyse_unsafe(text)
    except Exception as exc:  # never raise: report what could not be analysed
        return ShellInfo(
            text=text,
            hops=(),
            inner=text,
            commands=(),
            nested_ssh=(),
            category="other",
            parse_error=True,
            local_commands=(),
            opaque=(f"internal error while analysing the command ({type(exc).__name__})",),
        )


def _dedupe(commands: list[SimpleCommand]) -> tuple[SimpleCommand, ...]:
    seen = set()
    out = []
    for cmd in commands:
        key = (cmd.argv, cmd.start, cmd.end)
        if key in seen:
            continue
        seen.add(key)
        out.append(cmd)
    return tuple(out)


def _analyse_unsafe(text: str) -> ShellInfo:
    an = _Analysis()
    src = _Src(text)
    chain_ctx = _Ctx(src)  # maps the current level to `text`
    hops: list[SshCall] = []
    local: list[SimpleCommand] = []
    level_src = src
    tree = _parse_tree(src.data)
    for _level in range(_MAX_HOPS + 1):
        root = tree.root_node
        if root.has_error:
            an.error = True
        local_ctx = _Ctx(level_src)
        hidden_code(root, local_ctx, an)
        found = _find_wrapper(root, local_ctx, an)
        if found is None:
            break
        if _level == _MAX_HOPS:
            an.note(f"more than {_MAX_HOPS} ssh hops; the rest is analysed as one command")
            break
        call, stmt, cmd_node, code, pieces = found
        hops.append(call)
        lw = _Walker(an, skip=(chain_ctx, cmd_node.start_byte, cmd_node.end_byte))
        lw.walk(stmt, chain_ctx)
        local.extend(lw.commands)
        level_src = _Src(code)
        chain_ctx = _Ctx(level_src, chain_ctx, pieces)
        tree = _parse_tree(level_src.data)
    inner = level_src.text
    root = tree.root_node
    w = _Walker(an)
    w.walk(root, _Ctx(level_src))
    if root.has_error or an.error:
        an.error = True
        an.note("the command does not parse cleanly")
    commands = _dedupe(w.commands)
    return ShellInfo(
        text=text,
        hops=tuple(hops),
        inner=inner,
        commands=commands,
        nested_ssh=tuple(w.nested),
        category=_category(commands),
        parse_error=an.error,
        local_commands=_dedupe(local),
        opaque=tuple(an.opaque),
    )


@functools.lru_cache(maxsize=65536)
def _parse_cached(text: str) -> ShellInfo:
    return _analyse(text)


def parse_command(text: str) -> ShellInfo:
    """Analyse a shell command text.  Cached (LRU, 65536 entries); never raises.

    Non-``str`` input is coerced (bytes are decoded with ``surrogateescape``,
    ``None`` becomes ``""``).
    """
    if not isinstance(text, str):
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8", "surrogateescape")
        elif text is None:
            text = ""
        else:
            text = str(text)
    return _parse_cached(text)


parse_command.cache_info = _parse_cached.cache_info  # type: ignore[attr-defined]
parse_command.cache_clear = _parse_cached.cache_clear  # type: ignore[attr-defined]
