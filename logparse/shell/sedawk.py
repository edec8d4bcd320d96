"""Readers for sed and awk command lines and programs.

``_sed_in_place`` and ``_sed_scripts`` read a sed command line,
``_sed_script_effects`` walks a sed script for commands that write files
(``w``) or run commands (``e``), and ``_awk_program``/``_awk_effects`` find an
awk program and whether it runs commands, pipes or writes files.  These are
small hand-written readers of the sed and awk languages (not of shell
syntax) shared by the category and the safety rules; they need nothing else
from the package, so they form a leaf module.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------
# sed and awk
# ---------------------------------------------------------------------------


def _sed_in_place(argv: tuple[str, ...]) -> bool:
    for a in argv[1:]:
        if a == "--":
            break
        if a.startswith("--in-place") or a == "-i":
            return True
        if a.startswith("-") and not a.startswith("--"):
            for ch in a[1:]:
                if ch == "i":
                    return True
                if ch in "efl":
                    break
    return False


def _sed_scripts(argv: tuple[str, ...]) -> tuple[list[str], bool]:
    """The sed scripts of a command line and whether a script file (-f) is used."""
    scripts: list[str] = []
    from_file = False
    explicit = False
    n = len(argv)
    i = 1
    operands: list[str] = []
    while i < n:
        a = argv[i]
        if a == "--":
            operands.extend(argv[i + 1 :])
            break
        if a.startswith("--"):
            if a.startswith("--expression="):
                scripts.append(a.split("=", 1)[1])
                explicit = True
            elif a == "--expression" and i + 1 < n:
                scripts.append(argv[i + 1])
                explicit = True
                i += 1
            elif a.startswith("--file"):
                from_file = True
                if "=" not in a:
                    i += 1
            elif a == "--line-length":
                i += 1
            i += 1
            continue
        if len(a) > 1 and a[0] == "-":
            j = 1
            while j < len(a):
                ch = a[j]
                if ch in "efl":
                    val = a[j + 1 :]
                    if not val and i + 1 < n:
                        i += 1
                        val = argv[i]
                    if ch == "e":
                        scripts.append(val)
                        explicit = True
                    elif ch == "f":
                        from_file = True
                    break
                j += 1
            i += 1
            continue
        operands.append(a)
        i += 1
    if not explicit and not from_file and operands:
        scripts.append(operands[0])
    return scripts, from_file


def _sed_script_effects(script: str) -> set[str]:
    """Effects of a sed script: ``w`` (writes files), ``e`` (runs commands), ``?`` (unreadable)."""
    effects: set[str] = set()
    s = script
    n = len(s)
    i = 0

    def skip_regex(i: int, delim: str) -> int:
        while i < n and s[i] != delim:
            if s[i] == "\\":
                i += 1
            elif s[i] == "\n":
                return -1
            i += 1
        return i + 1 if i < n else -1

    def address(i: int) -> int:
        if i < n and s[i].isdigit():
            while i < n and (s[i].isdigit() or s[i] == "~"):
                i += 1
        elif i < n and s[i] == "$":
            i += 1
        elif i < n and s[i] == "/":
            i = skip_regex(i + 1, "/")
            if i < 0:
                return -1
            while i < n and s[i] in "IM":
                i += 1
        elif i + 1 < n and s[i] == "\\":
            i = skip_regex(i + 2, s[i + 1])
            if i < 0:
                return -1
            while i < n and s[i] in "IM":
                i += 1
        return i

    def to_eol(i: int) -> int:
        j = s.find("\n", i)
        return n if j < 0 else j

    guard = 0
    while i < n:
        guard += 1
        if guard > 100000:
            effects.add("?")
            break
        while i < n and s[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        i = address(i)
        if i < 0:
            effects.add("?")
            break
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == ",":
            i += 1
            while i < n and s[i] in " \t":
                i += 1
            if i < n and s[i] in "+~":
                i += 1
                while i < n and s[i].isdigit():
                    i += 1
            else:
                i = address(i)
                if i < 0:
                    effects.add("?")
                    break
        while i < n and s[i] in " \t!":
            i += 1
        if i >= n:
            break
        c = s[i]
        if c in "{}":
            i += 1
        elif c == "#":
            i = to_eol(i)
        elif c in "aic":
            i = i + 1
            while True:
                j = to_eol(i)
                if j > 0 and j < n and s[j - 1] == "\\":
                    i = j + 1
                    continue
                i = j
                break
        elif c in ":btT":
            i += 1
            while i < n and s[i] not in ";\n":
                i += 1
        elif c in "rR":
            i = to_eol(i)
        elif c in "wW":
            effects.add("w")
            i = to_eol(i)
        elif c == "e":
            effects.add("e")
            i = to_eol(i)
        elif c in "sy":
            if i + 1 >= n or s[i + 1] in "\n\\":
                effects.add("?")
                break
            delim = s[i + 1]
            i = skip_regex(i + 2, delim)
            if i < 0:
                effects.add("?")
                break
            # replacement may span escaped newlines
            while i < n and s[i] != delim:
                if s[i] == "\\":
                    i += 1
                i += 1
            if i >= n:
                effects.add("?")
                break
            i += 1
            if c == "s":
                while i < n and s[i] not in ";\n}":
                    f = s[i]
                    if f == "w":
                        effects.add("w")
                        i = to_eol(i)
                        break
                    if f == "e":
                        effects.add("e")
                    elif f not in "gpiImM0123456789 \t":
                        effects.add("?")
                    i += 1
        elif c in "pPdDnNgGhHxlqQzF=LvuU":
            i += 1
            while i < n and (s[i].isdigit() or s[i] in " \t"):
                i += 1
        else:
            effects.add("?")
            break
    return effects


_AWK_PRINT_REDIRECT = re.compile(r"\bprintf?\b[^;{}\n]*>")


def _awk_program(argv: tuple[str, ...]) -> tuple[str | None, str | None]:
    """``(program text, problem)`` for an awk command line."""
    n = len(argv)
    i = 1
    sources: list[str] = []  # gawk -e/--source: program text, and more options may follow
    while i < n:
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a in ("-e", "--source") and i + 1 < n:
            sources.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("--source=") or (a.startswith("-e") and len(a) > 2):
            sources.append(a.split("=", 1)[1] if a.startswith("--") else a[2:])
            i += 1
            continue
        if a.startswith("-W") and a not in ("-Wversion", "-Wv") and not (
                a == "-W" and i + 1 < n and argv[i + 1] in ("version", "v")):
            # mawk -W exec FILE runs a program file; gawk -W file=…/source=…/load=…
            return None, "takes a -W option (mawk -W exec runs a program file)"
        if a in ("-f", "--file", "-E", "--exec") or a.startswith(("--file=", "--exec=")):
            return None, "reads its program from a file"
        if a.startswith("-f") or a.startswith("-E"):
            return None, "reads its program from a file"
        if a in ("-i", "--include", "-l", "--load") and i + 1 < n:
            if argv[i + 1] == "inplace":
                return None, "edits files in place"
            return None, "loads an extension or a source file"
        if a in ("-F", "-v", "--assign", "--field-separator") and i + 1 < n:
            i += 2
            continue
        if a.startswith("-") and len(a) > 1:
            if a in ("-iinplace", "--include=inplace"):
                return None, "edits files in place"
            if a.startswith(("-i", "-l", "--include", "--load")):
                return None, "loads an extension or a source file"
            i += 1
            continue
        break
    if sources:
        return "\n".join(sources), None
    if i >= n:
        return None, "has no program"
    return argv[i], None


_AWK_DIRECTIVE = re.compile(r"@\s*(?:load|include)\b")


def _awk_effects(program: str) -> str | None:
    if _AWK_DIRECTIVE.search(program):
        # gawk loads a shared library (@load "./x" from the working tree) or runs the
        # awk code of a file (@include), which the plan cannot read
        return "awk program loads an extension or a source file (@load, @include)"
    if "system" in program:
        return "awk program runs commands (system)"
    if "|" in program.replace("||", ""):
        return "awk program pipes to or from commands"
    if _AWK_PRINT_REDIRECT.search(program):
        return "awk program writes to files"
    return None
