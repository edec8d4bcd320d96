"""Codex code mode: the tool calls inside an ``exec`` cell.

Codex 0.14x can answer with one ``exec`` custom tool call whose input is a JavaScript
cell that calls the real tools, e.g.::

    const r = await tools.exec_command({cmd: "rg -n stape src", workdir: "/srv/app"});
    const p = await tools.apply_patch(`*** Begin Patch ...`);
    text(r.output);

:func:`cell_calls` finds every ``tools.NAME(ARG)`` in the cell, in order, and reads ``ARG``
as a JavaScript literal: objects with quoted or bare keys, strings in any of the three
quotes, template strings, numbers, ``true``/``false``/``null``/``undefined``, arrays,
trailing commas and comments.  What is not a literal (a variable, an expression, a
template with ``${...}``) is kept as its source text under ``{"$expr": text}`` so nothing
is guessed; a shorthand key (``{cmd}``) becomes ``{"cmd": {"$expr": "cmd"}}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_CALL = re.compile(r"\btools\s*\.\s*([A-Za-z_$][\w$]*)\s*\(")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_ESC = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


@dataclass(frozen=True, slots=True)
class CellCall:
    """One ``tools.NAME(ARG)`` of a cell."""

    tool: str
    args: Any
    """``ARG`` read as a literal (``None`` when the call has no argument)."""
    source: str
    """``ARG`` as written."""


class _Fail(Exception):
    pass


def _skip(s: str, i: int) -> int:
    """Past blanks and comments."""
    n = len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
        elif s.startswith("//", i):
            j = s.find("\n", i)
            i = n if j < 0 else j + 1
        elif s.startswith("/*", i):
            j = s.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            break
    return i


def _string_end(s: str, i: int) -> int:
    """The index after the string literal (any quote) that starts at ``i``."""
    q = s[i]
    i += 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == q:
            return i + 1
        if q == "`" and s.startswith("${", i):
            i = _balanced_end(s, i + 1, "{", "}")
            continue
        i += 1
    raise _Fail("unterminated string")


def _balanced_end(s: str, i: int, open_: str, close: str) -> int:
    """``s[i]`` is ``open_``: the index after its matching ``close`` (strings skipped)."""
    depth = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c in "\"'`":
            i = _string_end(s, i)
            continue
        if s.startswith("//", i) or s.startswith("/*", i):
            i = _skip(s, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                if c != close:
                    raise _Fail("unbalanced")
                return i + 1
        i += 1
    raise _Fail("unbalanced")


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ESC:
            out.append(_ESC[e])
            i += 2
        elif e == "u" and body.startswith("{", i + 2):
            j = body.find("}", i + 3)
            out.append(chr(int(body[i + 3:j], 16)))
            i = j + 1
        elif e == "u":
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        elif e == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif e == "\n":  # a line continuation
            i += 2
        else:
            out.append(e)
            i += 2
    return "".join(out)


class _Reader:
    def __init__(self, s: str) -> None:
        self.s = s

    def value(self, i: int) -> tuple[Any, int]:
        s = self.s
        i = _skip(s, i)
        if i >= len(s):
            raise _Fail("end of input")
        c = s[i]
        if c == "{":
            return self._object(i)
        if c == "[":
            return self._array(i)
        if c in "\"'`":
            end = _string_end(s, i)
            body = s[i + 1:end - 1]
            if c == "`" and "${" in body:
                return self._expr(i)
            return _unescape(body), end
        m = _NUMBER.match(s, i)
        if m and not _IDENT.match(s, m.end()):
            text = m.group()
            try:
                num: Any = int(text, 0) if not any(x in text for x in ".eE") \
                    or text.lower().startswith(("0x", "-0x")) else float(text)
            except ValueError:
                num = float(text)
            return self._maybe_expr(num, i, m.end())
        m = _IDENT.match(s, i)
        if m:
            word = m.group()
            lit = {"true": True, "false": False, "null": None, "undefined": None}
            if word in lit:
                return self._maybe_expr(lit[word], i, m.end())
        return self._expr(i)

    def _maybe_expr(self, v: Any, start: int, end: int) -> tuple[Any, int]:
        """A literal followed by an operator is an expression (``1 + x``)."""
        j = _skip(self.s, end)
        if j < len(self.s) and self.s[j] not in ",}])":
            return self._expr(start)
        return v, end

    def _expr(self, i: int) -> tuple[Any, int]:
        """Source text up to the next ``,`` ``}`` ``]`` or ``)`` at this depth."""
        s = self.s
        j = i
        n = len(s)
        while j < n and s[j] not in ",}])":
            if s[j] in "\"'`":
                j = _string_end(s, j)
            elif s[j] in "([{":
                j = _balanced_end(s, j, s[j], {"(": ")", "[": "]", "{": "}"}[s[j]])
            else:
                j += 1
        return {"$expr": s[i:j].strip()}, j

    def _object(self, i: int) -> tuple[dict[str, Any], int]:
        s = self.s
        out: dict[str, Any] = {}
        i += 1
        while True:
            i = _skip(s, i)
            if i >= len(s):
                raise _Fail("unterminated object")
            if s[i] == "}":
                return out, i + 1
            if s.startswith("...", i):
                v, i = self._expr(i)
                out.setdefault("$spread", []).append(v["$expr"])
            else:
                if s[i] in "\"'":
                    end = _string_end(s, i)
                    key = _unescape(s[i + 1:end - 1])
                    i = end
                else:
                    m = _IDENT.match(s, i) or _NUMBER.match(s, i)
                    if not m:
                        raise _Fail(f"bad key at {i}")
                    key = m.group()
                    i = m.end()
                i = _skip(s, i)
                if i < len(s) and s[i] == ":":
                    out[key], i = self.value(i + 1)
                else:  # shorthand {cmd}
                    out[key] = {"$expr": key}
            i = _skip(s, i)
            if i < len(s) and s[i] == ",":
                i += 1
            elif i < len(s) and s[i] != "}":
                raise _Fail(f"expected , or }} at {i}")

    def _array(self, i: int) -> tuple[list[Any], int]:
        s = self.s
        out: list[Any] = []
        i += 1
        while True:
            i = _skip(s, i)
            if i >= len(s):
                raise _Fail("unterminated array")
            if s[i] == "]":
                return out, i + 1
            v, i = self.value(i)
            out.append(v)
            i = _skip(s, i)
            if i < len(s) and s[i] == ",":
                i += 1


def js_literal(text: str) -> Any:
    """``text`` read as one JavaScript literal; ``{"$expr": text}`` when it is not one."""
    try:
        v, end = _Reader(text).value(0)
    except (_Fail, ValueError, IndexError):
        return {"$expr": text.strip()}
    if _skip(text, end) != len(text):
        return {"$expr": text.strip()}
    return v


def cell_calls(code: str) -> list[CellCall]:
    """Every ``tools.NAME(ARG)`` of a code-mode cell, in source order (strings and comments
    of the cell itself are not searched)."""
    out: list[CellCall] = []
    i = 0
    n = len(code)
    while i < n:
        c = code[i]
        if c in "\"'`":
            try:
                end = _string_end(code, i)
            except _Fail:
                break
            body = code[i:end]
            if c == "`" and "${" in body:  # calls inside a template's ${...}
                for sub in re.finditer(r"\$\{", body):
                    try:
                        close = _balanced_end(body, sub.start() + 1, "{", "}")
                    except _Fail:
                        break
                    out.extend(cell_calls(body[sub.start() + 2:close - 1]))
            i = end
            continue
        if code.startswith("//", i) or code.startswith("/*", i):
            i = _skip(code, i)
            continue
        m = _CALL.match(code, i)
        if m and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] in "_$.")):
            paren = m.end() - 1
            try:
                close = _balanced_end(code, paren, "(", ")")
            except _Fail:
                close = n + 1
            src = code[paren + 1:close - 1].strip() if close <= n else code[paren + 1:].strip()
            args = js_literal(src) if src else None
            out.append(CellCall(tool=m.group(1), args=args, source=src))
            # calls nested in the argument (rare) are found by going on inside it
            i = paren + 1
            continue
        i += 1
    return out


_BIND = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*")


def cell_strings(code: str) -> dict[str, str]:
    """Names a cell binds to a string literal once (``const cmd = "make test";``), so that a
    call written ``tools.exec_command({cmd})`` still shows its command."""
    out: dict[str, str] = {}
    twice: set[str] = set()
    for m in _BIND.finditer(code):
        name = m.group(1)
        try:
            v, end = _Reader(code).value(m.end())
        except (_Fail, ValueError, IndexError):
            twice.add(name)
            continue
        j = _skip(code, end)
        if isinstance(v, str) and (j >= len(code) or code[j] in ";\n") and name not in out:
            out[name] = v
        else:
            twice.add(name)
    return {k: v for k, v in out.items() if k not in twice}


def resolve(value: Any, names: dict[str, str]) -> Any:
    """``{"$expr": NAME}`` replaced by the string ``NAME`` is bound to, recursively."""
    if isinstance(value, dict):
        e = value.get("$expr")
        if len(value) == 1 and isinstance(e, str) and e in names:
            return names[e]
        return {k: resolve(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, names) for v in value]
    return value
