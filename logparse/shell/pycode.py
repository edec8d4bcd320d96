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
#: Pure method names that a module's own function of the same name is not
#: (``httpx.get(url)``, ``niquests.get(url)`` send a request).
_PY_MODULE_VERBS = _names("get")
_PY_DANGEROUS_ROOTS = _names(
    "os shutil subprocess pathlib socket signal ctypes builtins io tempfile pickle "
    "marshal multiprocessing threading asyncio posix glob sqlite3 urllib requests http "
    "pty fcntl resource"
)


_PY_SAFE_DUNDERS = _names("__version__ __file__ __name__ __path__ __doc__")
_PY_DANGEROUS_ATTRS = _names(
    "modules _getframe settrace setprofile meta_path path_hooks path_importer_cache "
    "displayhook excepthook breakpointhook addaudithook system popen remove unlink rmdir "
    "removedirs rmtree rename renames replace kill killpg chmod chown truncate write "
    "write_text write_bytes mkdir makedirs symlink link fork run call check_call "
    "check_output Popen open load loads exec execv execve execl execlp execvp spawnl "
    "spawnv putenv unsetenv setattr delattr copy copyfile copytree move")
_PY_CONSTANTS = _names("True False None Ellipsis NotImplemented __name__")


def _py_root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _PyCheck:
    """Allow-list walk of one program's AST with the names it binds.

    ``bound`` maps every name the code binds to what it is: ``"value"`` (assigned
    from an allowed expression), ``"module:X"`` (``import X [as name]``) or
    ``"from:X"`` (``from X import y [as name]``).  Rebinding a builtin or a name that
    is already bound makes the code unknown (``print = exec``, ``from shutil import
    rmtree as print``), and so does loading any name that is neither bound, an
    allow-listed builtin nor a constant (``exec``, ``getattr``, ``__import__``).
    """

    def __init__(self) -> None:
        self.bound: dict[str, str] = {}

    def real_root(self, name: str | None) -> str | None:
        if name is None:
            return None
        kind = self.bound.get(name, "")
        if kind.startswith(("module:", "from:")):
            return kind.split(":", 1)[1].split(".", 1)[0]
        return name

    def bind(self, name: str, kind: str) -> bool:
        if name in _PY_PURE_BUILTINS or name in _PY_CONSTANTS or name.startswith("__"):
            return False
        if name in self.bound and (self.bound[name] != "value" or kind != "value"):
            return False
        self.bound[name] = kind
        return True

    def name_ok(self, name: str) -> bool:
        if name in _PY_CONSTANTS or name in _PY_PURE_BUILTINS:
            return True
        kind = self.bound.get(name)
        if kind is None:
            return False
        if kind.startswith("from:"):
            return kind.split(":", 1)[1].split(".", 1)[0] not in _PY_DANGEROUS_ROOTS
        return True

    def call_ok(self, node: ast.Call) -> bool:
        f = node.func
        if isinstance(f, ast.Name):
            ok = f.id in _PY_PURE_BUILTINS and f.id not in self.bound
        elif isinstance(f, ast.Attribute):
            root = self.real_root(_py_root(f))
            dotted = ast.unparse(f) if root else ""
            if root != _py_root(f):
                dotted = ""  # an alias: only the generic method rule applies
            if dotted in ("sys.stdin.read", "sys.stdin.readlines", "sys.stdin.readline",
                          "json.loads", "json.dumps"):
                ok = True
            elif dotted == "json.load":
                ok = len(node.args) == 1 and ast.unparse(node.args[0]) == "sys.stdin"
            elif (f.attr in _PY_MODULE_VERBS and isinstance(f.value, ast.Name)
                  and self.bound.get(f.value.id, "").startswith(("module:", "from:"))):
                ok = False  # httpx.get(URL): a module's get is a request, not dict.get
            else:
                ok = (f.attr in _PY_PURE_METHODS and root not in _PY_DANGEROUS_ROOTS
                      and self.expr_ok(f.value))
        else:
            ok = False
        return (ok and all(self.expr_ok(a) for a in node.args)
                and all(k.arg is not None and self.expr_ok(k.value) for k in node.keywords))

    def expr_ok(self, node: ast.expr | None) -> bool:  # noqa: C901 - one branch per node type
        if node is None:
            return True
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return self.name_ok(node.id)
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("__") and node.attr not in _PY_SAFE_DUNDERS:
                return False
            if node.attr in _PY_DANGEROUS_ATTRS or node.attr.startswith(("exec", "spawn")):
                return False
            root = self.real_root(_py_root(node))
            if root in _PY_DANGEROUS_ROOTS and root not in ("sys",):
                return False
            return self.expr_ok(node.value)
        if isinstance(node, ast.Call):
            return self.call_ok(node)
        if isinstance(node, ast.JoinedStr):
            return all(self.expr_ok(v) for v in node.values)
        if isinstance(node, ast.FormattedValue):
            return self.expr_ok(node.value) and self.expr_ok(node.format_spec)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return all(self.expr_ok(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return all(self.expr_ok(k) for k in node.keys) and all(
                self.expr_ok(v) for v in node.values)
        if isinstance(node, ast.Subscript):
            return self.expr_ok(node.value) and self.expr_ok(node.slice)
        if isinstance(node, ast.Slice):
            return self.expr_ok(node.lower) and self.expr_ok(node.upper) and self.expr_ok(
                node.step)
        if isinstance(node, ast.Starred):
            return self.expr_ok(node.value)
        if isinstance(node, ast.BinOp):
            return self.expr_ok(node.left) and self.expr_ok(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.expr_ok(node.operand)
        if isinstance(node, ast.BoolOp):
            return all(self.expr_ok(v) for v in node.values)
        if isinstance(node, ast.Compare):
            return self.expr_ok(node.left) and all(self.expr_ok(c) for c in node.comparators)
        if isinstance(node, ast.IfExp):
            return self.expr_ok(node.test) and self.expr_ok(node.body) and self.expr_ok(
                node.orelse)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for g in node.generators:
                if not (self.expr_ok(g.iter) and self.target_ok(g.target)
                        and all(self.expr_ok(i) for i in g.ifs)):
                    return False
            elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return all(self.expr_ok(e) for e in elts)
        return False

    def target_ok(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return self.bind(node.id, "value")
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.target_ok(e) for e in node.elts)
        return False

    def stmt_ok(self, node: ast.stmt) -> bool:
        if isinstance(node, ast.Pass):
            return True
        if isinstance(node, ast.Import):
            return all(not _acts_on_import(a.name) and self.bind(
                a.asname or a.name.split(".", 1)[0], f"module:{a.name}") for a in node.names)
        if isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                return False
            return all(a.name != "*" and not _acts_on_import(f"{node.module}.{a.name}")
                       and self.bind(a.asname or a.name, f"from:{node.module}.{a.name}")
                       for a in node.names)
        if isinstance(node, ast.Expr):
            return self.expr_ok(node.value)
        if isinstance(node, ast.Assign):
            return self.expr_ok(node.value) and all(self.target_ok(t) for t in node.targets)
        if isinstance(node, ast.If):
            return self.expr_ok(node.test) and all(map(self.stmt_ok, node.body + node.orelse))
        if isinstance(node, ast.For):
            return (self.expr_ok(node.iter) and self.target_ok(node.target)
                    and all(map(self.stmt_ok, node.body + node.orelse)))
        if isinstance(node, ast.Try):
            return all(map(self.stmt_ok, node.body + node.orelse + node.finalbody)) and all(
                self.expr_ok(h.type) and (h.name is None or self.bind(h.name, "value"))
                and all(map(self.stmt_ok, h.body)) for h in node.handlers)
        return False


_PY_PURE_BUILTINS = _PY_PURE_BUILTINS | _names("Exception ImportError ModuleNotFoundError "
                                               "AttributeError KeyError ValueError OSError")


_ACTS_ON_IMPORT = frozenset({"antigravity", "idlelib.idle", "__main__"})
"""Modules whose import is made to act (``antigravity`` opens a web browser,
``idlelib.idle`` starts IDLE); so is any ``PACKAGE.__main__`` (``pip.__main__`` runs pip)."""


def _acts_on_import(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in _ACTS_ON_IMPORT) or (
        name.endswith(".__main__"))


@functools.lru_cache(maxsize=4096)
def _py_code(code: str) -> tuple[bool, bool, bool]:
    """``(parses, imports something, read-only)`` for Python source text.

    Read-only means: an AST made only of allow-listed forms: imports,
    ``print(...)`` and other calls of a small allowlist of side-effect-free
    functions, names the code bound itself, attributes (no dunders but
    ``__version__`` and friends), constants, assignments to fresh names and
    ``if``/``for``/``try`` made of the same, with no rebinding of a builtin or of
    a name already bound (see :class:`_PyCheck`).  (Importing a module runs its
    code; that is accepted, and the sandbox is the wall behind it.)
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
        check = _PyCheck()
        safe = all(check.stmt_ok(s) for s in tree.body)
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
