"""Python code inspection for ``python -c CODE`` and Python fed on stdin.

``_py_code`` parses the code with :mod:`ast` and reports whether it parses,
whether it imports something and whether it is read-only (imports,
``print``, an allowlist of side-effect-free calls, names, constants, simple
assignments and ``if``/``for``/``try`` made of the same);
``_python_code_of`` finds that code on a command line or in its heredoc.  It
reasons about Python rather than shell, and both the ``import-check``
category and the safety rules for interpreters use it, so it stands alone.
"""

from __future__ import annotations

import ast
import functools

from logparse.shell.argv import _names
from logparse.shell.model import SimpleCommand
from logparse.shell.programs import _python_invocation, _stdin_redirect

# ---------------------------------------------------------------------------
# Python -c code inspection
# ---------------------------------------------------------------------------

_PY_PURE_BUILTINS = _names(
    "print len str repr type dir hasattr isinstance sorted list tuple bool int float hex "
    "sum min max any all enumerate zip range format round abs set dict id callable chr "
    "ord reversed frozenset bin oct ascii issubclass"
)
_PY_PURE_METHODS = _names(
    "items keys values get split rsplit strip lstrip rstrip join format startswith "
    "endswith lower upper count index find splitlines is_available device_count "
    "get_device_name get_device_capability get_device_properties current_device "
    "is_initialized version find_spec python_version python_implementation machine node "
    "release architecture getenv dumps isdigit isalpha zfill ljust rjust center title "
    "as_tuple is_built get_arch_list cuda_version nccl_version"
)
_PY_DANGEROUS_ROOTS = _names(
    "os shutil subprocess pathlib socket signal ctypes builtins io tempfile pickle "
    "marshal multiprocessing threading asyncio posix glob sqlite3 urllib requests http "
    "pty fcntl resource"
)


def _py_root(node) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _py_call_ok(node: ast.Call) -> bool:
    f = node.func
    if isinstance(f, ast.Name):
        ok = f.id in _PY_PURE_BUILTINS
    elif isinstance(f, ast.Attribute):
        root = _py_root(f)
        dotted = ast.unparse(f) if root else ""
        if dotted in (
            "sys.stdin.read",
            "sys.stdin.readlines",
            "sys.stdin.readline",
            "json.load",
            "json.loads",
            "json.dumps",
        ):
            ok = dotted != "json.load" or (
                len(node.args) == 1 and ast.unparse(node.args[0]) == "sys.stdin"
            )
        else:
            ok = (
                f.attr in _PY_PURE_METHODS
                and root not in _PY_DANGEROUS_ROOTS
                and _py_expr_ok(f.value)
            )
    else:
        ok = False
    return (
        ok
        and all(_py_expr_ok(a) for a in node.args)
        and all(_py_expr_ok(k.value) for k in node.keywords)
    )


def _py_expr_ok(node) -> bool:
    if node is None:
        return True
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _py_expr_ok(node.value)
    if isinstance(node, ast.Call):
        return _py_call_ok(node)
    if isinstance(node, ast.JoinedStr):
        return all(_py_expr_ok(v) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _py_expr_ok(node.value) and _py_expr_ok(node.format_spec)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_py_expr_ok(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(_py_expr_ok(k) for k in node.keys) and all(_py_expr_ok(v) for v in node.values)
    if isinstance(node, ast.Subscript):
        return _py_expr_ok(node.value) and _py_expr_ok(node.slice)
    if isinstance(node, ast.Slice):
        return _py_expr_ok(node.lower) and _py_expr_ok(node.upper) and _py_expr_ok(node.step)
    if isinstance(node, ast.Starred):
        return _py_expr_ok(node.value)
    if isinstance(node, ast.BinOp):
        return _py_expr_ok(node.left) and _py_expr_ok(node.right)
    if isinstance(node, ast.UnaryOp):
        return _py_expr_ok(node.operand)
    if isinstance(node, ast.BoolOp):
        return all(_py_expr_ok(v) for v in node.values)
    if isinstance(node, ast.Compare):
        return _py_expr_ok(node.left) and all(_py_expr_ok(c) for c in node.comparators)
    if isinstance(node, ast.IfExp):
        return _py_expr_ok(node.test) and _py_expr_ok(node.body) and _py_expr_ok(node.orelse)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return all(_py_expr_ok(e) for e in elts) and all(
            _py_target_ok(g.target) and _py_expr_ok(g.iter) and all(_py_expr_ok(i) for i in g.ifs)
            for g in node.generators
        )
    return False


def _py_target_ok(node) -> bool:
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_py_target_ok(e) for e in node.elts)
    return False


def _py_stmt_ok(node) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if isinstance(node, ast.Expr):
        return _py_expr_ok(node.value)
    if isinstance(node, ast.Assign):
        return all(_py_target_ok(t) for t in node.targets) and _py_expr_ok(node.value)
    if isinstance(node, ast.If):
        return _py_expr_ok(node.test) and all(map(_py_stmt_ok, node.body + node.orelse))
    if isinstance(node, ast.For):
        return (
            _py_target_ok(node.target)
            and _py_expr_ok(node.iter)
            and all(map(_py_stmt_ok, node.body + node.orelse))
        )
    if isinstance(node, ast.Try):
        return all(map(_py_stmt_ok, node.body + node.orelse + node.finalbody)) and all(
            _py_expr_ok(h.type) and all(map(_py_stmt_ok, h.body)) for h in node.handlers
        )
    return False


@functools.lru_cache(maxsize=4096)
def _py_code(code: str) -> tuple[bool, bool, bool]:
    """``(parses, imports something, read-only)`` for Python source text.

    Read-only means: only imports, ``print(...)`` and other calls of a small
    allowlist of side-effect-free functions, names, attributes, constants,
    simple assignments, ``if``/``for``/``try`` made of the same.  (Importing a
    module runs its code; that is accepted.)
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return (False, "import " in code, False)
    imports = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports = True
            break
    try:
        safe = all(_py_stmt_ok(s) for s in tree.body)
    except RecursionError:
        safe = False
    return (True, imports, safe)


def _python_code_of(cmd: SimpleCommand, eff: tuple[str, ...]) -> tuple[str, str | None]:
    """``(mode, code)`` where code is the ``-c`` string or the heredoc on stdin."""
    mode, value, _ = _python_invocation(eff)
    if mode == "c":
        return mode, value or ""
    if mode == "stdin":
        red = _stdin_redirect(cmd.redirects)
        if red is not None and red.op in ("<<", "<<-"):
            return "heredoc", red.heredoc or ""
        if red is not None and red.op == "<<<":
            return "heredoc", red.target
    return mode, value
