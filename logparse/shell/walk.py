"""The tree walker: every simple command and ssh call in a tree-sitter-bash tree.

``_Walker`` visits a tree and collects :class:`SimpleCommand` and nested
:class:`SshCall` values with exact spans, recursing into substitutions,
subshells, compound statements, pipelines, lists and process substitution,
reading heredocs (``_heredoc_value``) and re-parsing code strings (``sh -c``
and ``eval`` code, ssh remote commands, scripts fed to a shell on stdin); it
also follows the commands run by ``xargs`` and ``find -exec``/``fd -x``.  It
owns the limits that keep pathological input cheap and ``_Analysis``, the
mutable state one analysis shares across all its levels, and it knows
nothing about categories or safety.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from logparse.shell.argv import _basename, _is_assignment, _skip_options
from logparse.shell.model import Redirect, SimpleCommand, SshCall
from logparse.shell.programs import (
    _CONTAINERS,
    _SHELLS,
    LOOKUP_VARIABLES,
    _exec_targets,
    _shell_invocation,
    _stdin_redirect,
    _xargs_target,
)
from logparse.shell.ssh import _parse_ssh_argv
from logparse.shell.words import (
    _LEAVES,
    _REDIRECTS,
    _BareWord,
    _Ctx,
    _dquote_unescape,
    _GluedWord,
    _join_words,
    _Out,
    _parse_tree,
    _Pieces,
    _Src,
    _Word,
)
from logparse.shell.wrappers import _strip_wrappers

# Expansions and arithmetic that can run code hidden in a variable's value.
_RISKY = frozenset({"expansion", "arithmetic_expansion", "compound_statement",
                    "test_command", "subscript", "c_style_for_statement"})
_ARITH_TEST_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_LITERAL_INDEX = frozenset({"number", "word"})
#: An unescaped backquote or ``$(`` in a leaf's text: code tree-sitter left unparsed.
_HIDDEN_CODE = re.compile(r"(?<!\\)(?:\\\\)*(?:`|\$\()")
#: Leaves whose text bash never expands (outside double quotes).
_LITERAL_LEAVES = frozenset({"raw_string", "ansi_c_string", "comment"})
# Limits that keep pathological input cheap.
_MAX_HOPS = 8
_MAX_DEPTH = 120  # tree depth handled by the recursive walker
_MAX_REPARSE = 64  # code strings re-parsed per analysis
_MAX_CODE_NESTING = 12  # code strings inside code strings


# ---------------------------------------------------------------------------
# The walker
# ---------------------------------------------------------------------------



#: tmux commands that start a shell command (the last words) in a new pane.
_TMUX_RUNS = frozenset({"new", "new-session", "new-window", "neww", "split-window",
                        "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw"})

def hidden_code(root: Node, ctx: _Ctx, an: _Analysis) -> None:
    """Note backquotes and ``$(`` that tree-sitter left inside a leaf.

    tree-sitter-bash parses ``$(…)`` and backquotes in most places, but not in the
    word of a parameter expansion (``${x:-`cmd`}``, ``${x#$(cmd)}``) nor in the body
    of an unquoted heredoc (``cat <<EOF`` then a backquoted line); bash runs them
    all.  Any leaf bash expands that still holds substitution syntax makes the
    command opaque (``unknown``).  Single-quoted and ``$'…'`` text is literal unless
    it sits inside double quotes (``"${x:-'$(cmd)'}"`` runs ``cmd``).  One pass over
    the tree, no recursion.
    """
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, in_dq = stack.pop()
        t = node.type
        if t == "heredoc_redirect":
            starts = [ch for ch in node.children if ch.type == "heredoc_start"]
            if starts and any(q in ctx.node_text(starts[0]) for q in "'\"\\"):
                # a quoted delimiter: the body is literal; only the other redirects count
                stack.extend((ch, in_dq) for ch in node.children
                             if ch.type not in ("heredoc_body", "heredoc_content"))
                continue
        children = node.children
        if children:
            dq = in_dq or t == "string"
            stack.extend((ch, dq) for ch in children)
            continue
        if not node.is_named or (t in _LITERAL_LEAVES and not (in_dq and t != "comment")):
            continue  # a token of the syntax itself (`$(`, a backquote), or literal text
        if _HIDDEN_CODE.search(ctx.node_text(node)):
            an.note("a command substitution hides where the parser cannot see it "
                    "(in ${…} or an unquoted heredoc)")
            return


class _Analysis:
    """Mutable state of one analysis (shared by all levels and walkers)."""

    __slots__ = ("error", "opaque", "reparses")

    def __init__(self) -> None:
        self.error = False
        self.opaque: list[str] = []
        self.reparses = 0

    def note(self, msg: str) -> None:
        if msg not in self.opaque:
            self.opaque.append(msg)


class _Walker:
    """Collects simple commands and ssh calls from a tree."""

    def __init__(self, an: _Analysis, skip: tuple[_Ctx, int, int] | None = None) -> None:
        self.an = an
        self.commands: list[SimpleCommand] = []
        self.nested: list[SshCall] = []
        self.skip = skip  # (ctx, start_byte, end_byte) of a wrapper ssh command
        self.heredoc_pieces: dict[int, tuple[Redirect, str, _Pieces]] = {}

    # -- generic traversal -------------------------------------------------

    def walk(self, node: Node, ctx: _Ctx, bg: bool = False, subst: bool = False,
             pipe: bool = False, oredir: tuple[Redirect, ...] = (), via: str = "",
             depth: int = 0) -> None:
        if depth > _MAX_DEPTH:
            self.an.note("the command is nested too deeply to analyse completely")
            return
        t = node.type
        if t in _RISKY:
            self._risky(node, ctx)
        if t == "command":
            self._command(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t == "redirected_statement":
            self._redirected(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t == "pipeline":
            self._pipeline(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t in ("command_substitution", "process_substitution"):
            for ch in node.children:
                if ch.is_named:
                    self.walk(ch, ctx, False, True, False, (), via, depth + 1)
        elif t == "function_definition":
            name = node.child_by_field_name("name")
            fname = ctx.node_text(name) if name is not None else "?"
            self.an.note(f"defines shell function {fname}")
            self._children(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t in ("declaration_command", "unset_command", "test_command"):
            self._pseudo_command(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t in ("variable_assignment", "variable_assignments"):
            self._pseudo_command(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t == "comment":
            return
        elif t == "ERROR":
            self.an.error = True
            self._children(node, ctx, bg, subst, pipe, oredir, via, depth)
        else:
            self._children(node, ctx, bg, subst, pipe, oredir, via, depth)

    def _risky(self, node: Node, ctx: _Ctx) -> None:
        """Note expansions that evaluate a value as code (``${x@P}``, ``${!x}``,
        arithmetic on variables, computed array subscripts, ``[[ x -eq y ]]``)."""
        t = node.type
        kids = node.children
        if t == "expansion":
            types = [ch.type for ch in kids]
            if len(types) > 1 and types[1] == "!":
                self.an.note("${!name} expands a name indirectly, which can run code")
            for i, ty in enumerate(types[:-1]):
                if ty == "@" and kids[i + 1].type == "P":
                    self.an.note("${name@P} expands a prompt string, which can run code")
            if ":" in types:  # ${x:OFFSET:LENGTH}: both are arithmetic
                after = kids[types.index(":") + 1:]
                if any(ch.is_named and ch.type != "number" for ch in after):
                    self.an.note("a substring offset or length is evaluated as arithmetic, "
                                 "which can run code")
            for i, ty in enumerate(types):
                if ty in (":=", "=") and i > 0 and kids[i - 1].type == "variable_name":
                    name = ctx.node_text(kids[i - 1])
                    if name in LOOKUP_VARIABLES:
                        self.an.note(f"${{{name}:=…}} assigns {name}, which changes lookup")
        elif t == "subscript":
            idx = [ch for ch in kids if ch.is_named and ch.type != "variable_name"]
            for ch in idx:
                text = ctx.node_text(ch)
                if not (ch.type in _LITERAL_INDEX and (text.isdigit() or text in "@*")):
                    self.an.note("a computed array subscript is evaluated as arithmetic, "
                                 "which can run code")
                    break
        elif t in ("arithmetic_expansion", "compound_statement", "c_style_for_statement"):
            if t == "compound_statement" and (not kids or kids[0].type != "(("):
                return
            if self._has_names(node):
                self.an.note("arithmetic on variables can run code through array subscripts")
        elif t == "test_command" and kids and kids[0].type == "[[":
            self._arith_test(node, ctx)

    def _has_names(self, node: Node, depth: int = 0) -> bool:
        if depth > 60:
            return True
        for ch in node.children:
            if ch.type in ("variable_name", "simple_expansion", "expansion", "subscript",
                           "command_substitution", "word"):
                return True
            if ch.children and self._has_names(ch, depth + 1):
                return True
        return False

    def _arith_test(self, node: Node, ctx: _Ctx, depth: int = 0) -> None:
        if depth > 60:
            return
        for ch in node.children:
            if ch.type == "binary_expression":
                ops = [c for c in ch.children if c.type == "test_operator"]
                if ops and ctx.node_text(ops[0]) in _ARITH_TEST_OPS:
                    operands = [c for c in ch.children if c.is_named and c.type != "test_operator"]
                    if not all(c.type == "number" for c in operands):
                        self.an.note("[[ … -eq … ]] evaluates its operands as arithmetic, "
                                     "which can run code")
                        return
            if ch.children:
                self._arith_test(ch, ctx, depth + 1)

    def _children(self, node: Node, ctx: _Ctx, bg: bool, subst: bool, pipe: bool,
                  oredir: tuple[Redirect, ...], via: str, depth: int) -> None:
        children = node.children
        last = len(children) - 1
        for i, ch in enumerate(children):
            if not ch.is_named:
                continue
            cbg = bg or (i < last and children[i + 1].type == "&")
            self.walk(ch, ctx, cbg, subst, pipe, oredir, via, depth + 1)

    def _scan(self, node: Node, ctx: _Ctx, bg: bool, subst: bool, via: str, depth: int) -> None:
        """Walk a non-statement node (argument, redirect) for substitutions."""
        if depth > _MAX_DEPTH:
            self.an.note("the command is nested too deeply to analyse completely")
            return
        t = node.type
        if t in _LEAVES:
            return
        if t in _RISKY:
            self._risky(node, ctx)
        if t in ("command_substitution", "process_substitution"):
            self.walk(node, ctx, False, True, False, (), via, depth + 1)
        elif t in (
            "command",
            "pipeline",
            "list",
            "redirected_statement",
            "subshell",
            "compound_statement",
        ):
            # commands tree-sitter attaches to a heredoc (`cat <<EOF | grep x`)
            self.walk(node, ctx, bg, subst, True, (), via, depth + 1)
        elif t == "ERROR":
            self.an.error = True
            self.walk(node, ctx, bg, subst, False, (), via, depth + 1)
        else:
            for ch in node.children:
                if ch.is_named:
                    self._scan(ch, ctx, bg, subst, via, depth + 1)

    def _pipeline(self, node: Node, ctx: _Ctx, bg: bool, subst: bool, pipe: bool,
                  oredir: tuple[Redirect, ...], via: str, depth: int) -> None:
        seen_bar = False
        for ch in node.children:
            if not ch.is_named:
                if ch.type in ("|", "|&"):
                    seen_bar = True
                continue
            self.walk(ch, ctx, bg, subst, pipe or seen_bar, oredir, via, depth + 1)

    def _redirected(self, node: Node, ctx: _Ctx, bg: bool, subst: bool, pipe: bool,
                    oredir: tuple[Redirect, ...], via: str, depth: int) -> None:
        body = node.child_by_field_name("body")
        reds: list[Redirect] = []
        red_nodes = []
        for ch in node.children:
            if ch.type in _REDIRECTS:
                red_nodes.append(ch)
                reds.extend(self._redirect(ch, ctx))
        extra: list[_Word] = []
        if body is not None and body.type == "command" and red_nodes:
            # tree-sitter drops a lone `-` before a heredoc (`python3 - <<EOF`)
            c = ctx.src.c
            extra = self._gap_words(ctx, c(body.end_byte), c(red_nodes[0].start_byte))
        if body is None and reds:
            # a bare redirection (`> file`, `>> log`) still opens its target
            c = ctx.src.c
            s, e = ctx.span(c(node.start_byte), c(node.end_byte))
            self.commands.append(SimpleCommand((), tuple(reds) + tuple(oredir), bg, subst, s, e,
                                               pipe, via))
        if body is not None:
            if body.type == "command":
                self._command(
                    body, ctx, bg, subst, pipe, tuple(reds) + tuple(oredir), via, depth + 1, extra
                )
            else:
                self._walk_last(body, ctx, bg, subst, pipe, oredir, tuple(reds), via, depth + 1)
        for ch in node.children:
            if ch is body or ch.type == "comment":
                continue
            if ch.type in _REDIRECTS:
                self._scan(ch, ctx, bg, subst, via, depth + 1)
            elif ch.is_named and body is None:
                self.walk(ch, ctx, bg, subst, pipe, oredir, via, depth + 1)

    def _walk_last(self, node: Node, ctx: _Ctx, bg: bool, subst: bool, pipe: bool,
                   oredir: tuple[Redirect, ...], reds: tuple[Redirect, ...], via: str,
                   depth: int) -> None:
        """Walk ``node`` giving ``reds`` to its last command only.

        tree-sitter-bash attaches the redirections of ``a && b > f`` and
        ``a | b > f`` to the whole list/pipeline; bash binds them to ``b``.
        """
        t = node.type
        if depth > _MAX_DEPTH:
            self.an.note("the command is nested too deeply to analyse completely")
            return
        if t not in ("list", "pipeline"):
            if t == "command":
                self._command(node, ctx, bg, subst, pipe, reds + tuple(oredir), via, depth)
            else:
                self.walk(node, ctx, bg, subst, pipe, reds + tuple(oredir), via, depth)
            return
        children = node.children
        last = max((i for i, ch in enumerate(children) if ch.is_named), default=-1)
        seen_bar = False
        for i, ch in enumerate(children):
            if not ch.is_named:
                if ch.type in ("|", "|&"):
                    seen_bar = True
                continue
            p = pipe or (seen_bar and t == "pipeline")
            if i == last:
                self._walk_last(ch, ctx, bg, subst, p, oredir, reds, via, depth + 1)
            else:
                self.walk(ch, ctx, bg, subst, p, oredir, via, depth + 1)

    def _gap_words(self, ctx: _Ctx, a: int, b: int) -> list[_Word]:
        text = ctx.text
        words: list[_Word] = []
        i = a
        while i < b:
            while i < b and text[i] in " \t":
                i += 1
            if i < b and text[i] == "\\" and i + 1 < b and text[i + 1] == "\n":
                i += 2
                continue
            j = i
            while j < b and text[j] not in " \t\n":
                j += 1
            if j > i:
                if text[i] == "#":
                    break
                words.append(_BareWord(ctx, i, j))
            i = j if j > i else i + 1
        return words

    # -- redirections ------------------------------------------------------

    def _redirect(self, node: Node, ctx: _Ctx) -> list[Redirect]:
        t = node.type
        if t == "file_redirect":
            op = ""
            fd = None
            target_nodes = []
            for ch in node.children:
                ct = ch.type
                if ct == "file_descriptor":
                    fd = ctx.node_text(ch)
                elif not ch.is_named:
                    op += ct
                elif ct != "comment":
                    target_nodes.append(ch)
            target = "".join(_Word(n, ctx).value for n in target_nodes)
            return [Redirect(op or ">", target, fd)]
        if t == "herestring_redirect":
            words = [_Word(ch, ctx) for ch in node.named_children if ch.type != "file_descriptor"]
            target = "".join(w.value for w in words)
            fd = None
            for ch in node.children:
                if ch.type == "file_descriptor":
                    fd = ctx.node_text(ch)
            red = Redirect("<<<", target, fd)
            if len(words) == 1:
                self.heredoc_pieces[id(red)] = (red, target, words[0].pieces())
            return [red]
        # heredoc_redirect
        op = "<<"
        fd = None
        delim = ""
        quoted = False
        body_node = None
        extra: list[Redirect] = []
        for ch in node.children:
            ct = ch.type
            if ct in ("<<", "<<-"):
                op = ct
            elif ct == "file_descriptor":
                fd = ctx.node_text(ch)
            elif ct == "heredoc_start":
                raw = ctx.node_text(ch)
                quoted = any(q in raw for q in "'\"\\")
                delim = raw.replace("'", "").replace('"', "").replace("\\", "")
            elif ct == "heredoc_body":
                body_node = ch
            elif ct in _REDIRECTS:
                extra.extend(self._redirect(ch, ctx))
        body = ""
        pieces = None
        if body_node is not None:
            body, pieces = _heredoc_value(body_node, ctx, quoted, op == "<<-")
        red = Redirect(op, delim, fd, body, not quoted)
        if pieces is not None:
            self.heredoc_pieces[id(red)] = (red, body, pieces)
        return [red] + extra

    # -- commands ----------------------------------------------------------

    def _words(self, node: Node, ctx: _Ctx) -> tuple[list[_Word], list[Node]]:
        words: list[_Word] = []
        reds: list[Node] = []
        src = ctx.src
        data = src.data
        prev = -1
        glue = False
        for ch in node.children:
            ct = ch.type
            sb = ch.start_byte
            if prev >= 0 and sb != prev:
                gap = data[prev:sb]
                glue = gap == b"\\\n"
                if gap != b" " and gap.strip(b" \t\\\n"):
                    words.extend(self._gap_words(ctx, src.c(prev), src.c(sb)))
            else:
                glue = False
            prev = ch.end_byte
            if ct in _REDIRECTS:
                reds.append(ch)
            elif ct == "comment":
                continue
            elif ch.is_named:
                word = _Word(ch, ctx)
                if glue and words and ct != "variable_assignment":
                    last = words[-1]
                    parts = last.parts if isinstance(last, _GluedWord) else [last]
                    words[-1] = _GluedWord(parts + [word])
                else:
                    words.append(word)
        return words, reds

    def _command(self, node: Node, ctx: _Ctx, bg: bool, subst: bool, pipe: bool,
                 oredir: tuple[Redirect, ...], via: str, depth: int,
                 extra_words: list[_Word] | tuple[()] = ()) -> None:
        words, red_nodes = self._words(node, ctx)
        if extra_words:
            words.extend(extra_words)
        reds: list[Redirect] = []
        for r in red_nodes:
            reds.extend(self._redirect(r, ctx))
        redirects = tuple(reds) + tuple(oredir)
        c = ctx.src.c
        s, e = ctx.span(c(node.start_byte), c(node.end_byte))
        argv = tuple(w.value for w in words)
        cmd = SimpleCommand(argv, redirects, bg, subst, s, e, pipe, via)
        self.commands.append(cmd)
        is_wrapper = (
            self.skip is not None
            and self.skip[0] is ctx
            and self.skip[1] == node.start_byte
            and self.skip[2] == node.end_byte
        )
        if not is_wrapper:
            self._follow(cmd, words, ctx, bg, subst, pipe, via, depth)
        for ch in node.children:
            if ch.is_named and ch.type != "comment":
                self._scan(ch, ctx, bg, subst, via, depth + 1)

    def _pseudo_command(self, node: Node, ctx: _Ctx, bg: bool, subst: bool, pipe: bool,
                        oredir: tuple[Redirect, ...], via: str, depth: int) -> None:
        """declaration/unset/test commands and bare assignments as simple commands."""
        t = node.type
        words: list[_Word] = []
        argv: list[str] = []
        for ch in node.children:
            if ch.type == "comment":
                continue
            if t == "variable_assignments" and ch.type == "variable_assignment":
                w = _Word(ch, ctx)
                words.append(w)
                argv.append(w.value)
            elif not ch.is_named:
                argv.append(ch.type)
            elif t == "test_command":
                argv.extend(self._test_words(ch, ctx))
            else:
                w = _Word(ch, ctx)
                words.append(w)
                argv.append(w.value)
        if t == "variable_assignment":
            argv = [_Word(node, ctx).value]
        c = ctx.src.c
        s, e = ctx.span(c(node.start_byte), c(node.end_byte))
        self.commands.append(SimpleCommand(tuple(argv), tuple(oredir), bg, subst, s, e, pipe, via))
        self._scan(node, ctx, bg, subst, via, depth + 1)

    def _test_words(self, node: Node, ctx: _Ctx) -> list[str]:
        t = node.type
        if t in (
            "word",
            "string",
            "raw_string",
            "concatenation",
            "ansi_c_string",
            "number",
            "simple_expansion",
            "expansion",
            "command_substitution",
        ):
            return [_Word(node, ctx).value]
        if not node.children:
            return [ctx.node_text(node)]
        out: list[str] = []
        for ch in node.children:
            out.extend(self._test_words(ch, ctx) if ch.is_named else [ch.type])
        return out

    # -- following commands into code strings and targets -----------------

    def _follow(self, cmd: SimpleCommand, words: list[_Word], ctx: _Ctx, bg: bool, subst: bool,
                pipe: bool, via: str, depth: int) -> None:
        argv = cmd.argv
        if not argv:
            return
        idx = _strip_wrappers(argv)[0]
        if idx >= len(argv):
            return
        eff = argv[idx:]
        ew = words[idx:]
        prog = _basename(eff[0])
        if prog in _SHELLS:
            mode, k = _shell_invocation(eff)
            if mode == "c" and k is not None:
                self._code(ew[k], None, ctx, bg, subst, pipe, f"{prog} -c", depth)
            elif mode == "stdin":
                self._stdin_code(cmd, ctx, bg, subst, prog, depth)
        elif prog == "eval" and len(ew) > 1:
            code, pieces = _join_words(ew[1:])
            self._code(None, (code, pieces), ctx, bg, subst, pipe, "eval", depth)
        elif prog == "su":
            for k in range(1, len(eff)):
                if eff[k] in ("-c", "--command") and k + 1 < len(eff):
                    self._code(ew[k + 1], None, ctx, bg, subst, pipe, "su -c", depth)
                    break
                if eff[k].startswith("--command="):
                    self.an.note("su --command= code is not analysed")
        elif prog == "trap" and len(eff) > 2 and not eff[1].startswith("-"):
            self._code(ew[1], None, ctx, bg, subst, False, "trap", depth)
        elif prog == "watch":
            k = _skip_options(
                eff,
                1,
                with_arg="nq",
                long_with_arg=frozenset({"--interval", "--equexit"}),
                optional_attached="d",
            )
            if 0 < k < len(eff):
                code, pieces = _join_words(ew[k:])
                self._code(None, (code, pieces), ctx, bg, subst, False, "watch", depth)
        elif prog == "tmux" and len(eff) > 1 and eff[1] in _TMUX_RUNS:
            # the shell command a new session, window or pane runs (tmux hands it to
            # the shell): judged like the command itself, not as a bare launch
            k = _skip_options(eff, 2, with_arg="cefFnstxyl")
            if 0 < k < len(eff):
                code, pieces = _join_words(ew[k:])
                self._code(None, (code, pieces), ctx, True, subst, False, "tmux", depth)
        elif prog == "screen":
            k = _skip_options(eff, 1, with_arg="SceEhpstT",
                              long_with_arg=frozenset({"-Logfile"}))
            if 0 < k < len(eff):
                self._synthetic(ew[k:], ctx, True, subst, "screen", depth)
        elif prog == "xargs":
            k = _xargs_target(eff)
            if k is not None:
                self._synthetic(ew[k:], ctx, bg, subst, "xargs", depth)
        elif prog in ("find", "fd", "fdfind"):
            for a, b in _exec_targets(eff, prog):
                self._synthetic(ew[a:b], ctx, bg, subst, f"{prog} -exec", depth)
        elif prog in _CONTAINERS and len(eff) > 2 and eff[1] == "exec":
            k = _skip_options(
                eff,
                2,
                with_arg="euw",
                long_with_arg=frozenset(
                    {"--env", "--env-file", "--user", "--workdir", "--detach-keys"}
                ),
            )
            if 0 < k < len(eff) - 1:
                self._synthetic(ew[k + 1 :], ctx, bg, subst, f"{prog} exec", depth)
        elif prog == "ssh":
            self._ssh(cmd, eff, ew, ctx, bg, subst, depth)

    def _synthetic(self, words: list[_Word], ctx: _Ctx, bg: bool, subst: bool, via: str,
                   depth: int) -> None:
        if not words or depth > _MAX_DEPTH:
            return
        s = ctx.span(words[0].start, words[0].end)[0]
        e = ctx.span(words[-1].start, words[-1].end)[1]
        argv = tuple(w.value for w in words)
        cmd = SimpleCommand(argv, (), bg, subst, s, max(s, e), False, via)
        self.commands.append(cmd)
        self._follow(cmd, words, ctx, bg, subst, False, via, depth + 1)

    def _stdin_code(self, cmd: SimpleCommand, ctx: _Ctx, bg: bool, subst: bool, prog: str,
                    depth: int) -> None:
        red = _stdin_redirect(cmd.redirects)
        if red is None or red.op == "<":
            return
        entry = self.heredoc_pieces.get(id(red))
        if entry is None:
            self.an.note(f"{prog} reads code from stdin that is not analysed")
            return
        via = "herestring" if red.op == "<<<" else "heredoc"
        self._code(None, entry[1:], ctx, bg, subst, False, via, depth)

    def _code(self, word: _Word | None, joined: tuple[str, _Pieces] | None, ctx: _Ctx, bg: bool,
              subst: bool, pipe: bool, via: str, depth: int) -> None:
        """Parse a code string (a word or a joined/heredoc text) as shell code."""
        an = self.an
        if ctx.nesting >= _MAX_CODE_NESTING or an.reparses >= _MAX_REPARSE:
            an.note(f"code passed to {via} is nested too deeply to analyse")
            return
        if word is not None:
            code, pieces = word.value, word.pieces()
        else:
            assert joined is not None  # callers pass a word or a joined text
            code, pieces = joined
        if not code.strip():
            return
        an.reparses += 1
        sub = _Ctx(_Src(code), ctx, pieces)
        tree = _parse_tree(sub.src.data)
        root = tree.root_node
        hidden_code(root, sub, an)
        if root.has_error:
            an.error = True
            an.note(f"the code passed to {via} does not parse cleanly")
        self.walk(root, sub, bg, subst, pipe, (), via, depth + 1)

    def _ssh(self, cmd: SimpleCommand, eff: tuple[str, ...], ew: list[_Word], ctx: _Ctx,
             bg: bool, subst: bool, depth: int) -> None:
        parsed = _parse_ssh_argv(eff)
        if parsed is None:
            return
        hw = ew[parsed.host_idx]
        hs, he = ctx.span(hw.start, hw.end)
        remote_words = ew[parsed.cmd_idx :]
        remote = None
        joined = None
        if remote_words:
            joined = _join_words(remote_words)
            remote = joined[0] or None  # ssh runs a login shell for an empty command
            if remote is None:
                joined = None
        stdin_script, stdin_entry = self._ssh_stdin(cmd, remote)
        call = SshCall(
            parsed.host,
            parsed.user,
            parsed.port,
            parsed.identity,
            parsed.options,
            remote,
            hs,
            he,
            cmd.start,
            cmd.end,
            "",
            stdin_script,
        )
        self.nested.append(call)
        via = f"ssh {parsed.host}"
        if stdin_entry is not None:
            self._code(None, stdin_entry, ctx, bg, subst, False, via, depth)
        elif joined is not None:
            self._code(None, joined, ctx, bg, subst, False, via, depth)

    def _ssh_stdin(
        self, cmd: SimpleCommand, remote: str | None
    ) -> tuple[str | None, tuple[str, _Pieces] | None]:
        """The heredoc a remote shell runs as its script, if any."""
        red = _stdin_redirect(cmd.redirects)
        if red is None or red.op == "<":
            return None, None
        if remote is not None:
            head = remote.split()
            if not head:
                return None, None
            k = 0
            while k < len(head) and _is_assignment(head[k]):
                k += 1
            if k >= len(head) or _basename(head[k]) not in _SHELLS:
                return None, None
            if _shell_invocation(tuple(head[k:]))[0] != "stdin":
                return None, None
        entry = self.heredoc_pieces.get(id(red))
        if entry is None:
            return None, None
        return entry[1], entry[1:]


def _heredoc_value(body_node: Node, ctx: _Ctx, quoted: bool, strip_tabs: bool) -> tuple[str, _Pieces]:
    """The text a program reads from a heredoc, with its source map."""
    c = ctx.src.c
    a, b = c(body_node.start_byte), c(body_node.end_byte)
    text = ctx.text
    out = _Out(text, True)
    pieces = out.pieces
    assert pieces is not None
    if strip_tabs:
        # tree-sitter starts the body after the first line's tabs and ends it
        # with the tabs that precede the delimiter; drop leading tabs per line
        i = a
        while i < b:
            j = text.find("\n", i, b)
            line_end = b if j < 0 else j + 1
            k = i
            while k < line_end and text[k] == "\t":
                k += 1
            if quoted:
                out.lit(k, line_end)
            else:
                _dquote_unescape(out, k, line_end, frozenset("\\$`"))
            i = line_end
        # trailing tabs before the delimiter line are not content
        return out.value().rstrip("\t"), pieces
    if quoted:
        out.lit(a, b)
    else:
        _dquote_unescape(out, a, b, frozenset("\\$`"))
    return out.value(), pieces
