"""Courses changed without a failing command: rows of cues, each with an example.

Four readings:

* the agent's reply takes a redirect in (:data:`REDIRECT_CUES`): it says it switches
  to another target, or does a thing "instead of the current" one, or ("Entonces usá
  …") answers again under the user's new constraint.  It never says it was wrong; the
  structure (a user message between the work and the reply that turns away from it) is
  read by :func:`kb.graph.episodes.redirected_episodes`;
* the user drops something the agent's last turn used (:data:`DROP_CUES`): "let's
  ignore the two existing projects", "olvidate de X", "不要用 X".  The rule checks that
  what is dropped is a name the turn before used (an identifier, a file, a package);
* a command that undoes the agent's own work right after the user spoke
  (:data:`UNDO_RULES`: a file restored or deleted, a package removed, the tree reset);
* a sub-agent task that reviews the work (:data:`REVIEW_CUES`), after which the agent
  takes its own earlier lines away.

The cues are short and language-aware (the pool has English, Spanish, Portuguese,
Chinese and Japanese); the structure around them does the rest.  Pure: no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from logparse.structural import Cue

REDIRECT_HEAD = 300
"""Characters at the start of a reply in which a redirect taken in counts (deep in a
reply "instead of" explains a design, it does not turn away from one)."""

REDIRECT_CUES: tuple[Cue, ...] = (
    Cue("en-switching-target", re.compile(
        r"(?:^|[.!\n])\W{0,8}(?:I[’']?m|I\s+am|I[’']?ll|I\s+will)\s+(?:now\s+)?"
        r"switch(?:ing)?\s+(?:the\s+[\w-]+(?:\s+[\w-]+){0,3}\s+)?(?:over\s+)?to\b", re.I),
        "I’m switching the grant application target to the `Kosh AI` project. First I’m "
        "locating that repo and its context files",
        "Trezo-Ai__codex-session.jsonl:166 (assistant, after 'do that for kosh ai')"),
    Cue("en-instead-of-current", re.compile(
        r"\binstead\s+of\s+(?:the\s+|my\s+|our\s+|your\s+)?(?:current|existing|previous"
        r"|old|original|earlier)\b", re.I),
        "The user wants a more clean, Bootstrap-standard look for the demo/index.php instead "
        "of the current terminal/code-editor inspired design.",
        "k1.lib-bootstrap__session-export.json ordinal 384 (assistant reasoning, after "
        "'now is too colorful')"),
    Cue("es-entonces-imperativo", re.compile(
        r"^\W{0,8}entonces,?\s+(?:us[aá]|hac[eé]|pon[eé]|agreg[aá]|cambi[aá]|haz|pon"
        r"|agrega|cambia|pod[eé]s|puedes)(?:[\s,.:;!]|$)", re.I),
        "Entonces usá selección de columnas sobre el DataFrame ya cargado:",
        "pool conversacion-act1-pln__session.jsonl ordinal 39 (assistant, after 'quiero "
        "hacerlo despues de la carga de datos')"),
)
"""How a reply takes in a user's change of course without admitting a mistake."""


_QUESTION = re.compile(
    r"^\W{0,4}(?:(?:do|does|did|can|could|would|will|is|are|should)\s+(?:you|i|we|it|they"
    r"|this|there)|what|how|why|which|where|when|se\s+puede|puedo|pod[eé]s|c[oó]mo|qu[eé]|por\s+qu[eé]|ser[aá]|[eé]\s+poss[ií]vel"
    r"|posso|voc[eê]\s+acha)\b|[?？]\s*$|^\s*¿", re.I)


def is_question(text: str) -> bool:
    """A user message that asks rather than tells ("do you think doing this in elementor
    would be possible"): an answer to it turns away from nothing."""
    return bool(_QUESTION.search(text.strip()[:600]))


def redirect_phrase(text: str) -> str | None:
    """The phrase by which a reply opens by turning to what the user now wants ("I'm
    switching the target to …"), else ``None``."""
    head = text.lstrip()[:REDIRECT_HEAD]
    for cue in REDIRECT_CUES:
        m = cue.pattern.search(head)
        if m is not None:
            return m.group().strip(" .!\n")
    return None


DROP_OBJECT = 160
"""Characters after a drop cue in which the names it drops are read."""

_PASTED_STACK = ("Call Stack\n4\n\nShow 3 ignore-listed frame(s)\nhandleGenerate\n"
                 "components/employer/create-payroll-wizard.tsx (235:17) Console Error")
"""A user's pasted Next.js error (shared soulpass-codex, user): it drops nothing."""

DROP_CUES: tuple[Cue, ...] = (
    # a word, not part of a hyphenated name ("ignore-listed frame(s)" of a pasted stack,
    # "dropbox-ignore-watcher", "@ts-ignore"), and told, not negated: it opens a clause or
    # follows a word that tells it ("e", "então", "podemos"), never "não vamos ignorar",
    # "nunca ignore" (RE2 has no lookbehind: the allowed words are listed)
    Cue("pt-vamos-ignorar", re.compile(
        r"(?:^|[^\w\s'’-][ \t]{0,3}|\n[ \t]{0,3}|\b(?:e|mas|ent[aã]o|s[oó]|apenas|pode|podemos|favor"
        r"|melhor|quero|pra|para|gente|agora|j[aá]|tamb[eé]m)\s+)(?:vamos\s+)?(?:ignorar|ignore"
        r"|esque[cç]a|esquecer"
        r"|deixar?\s+de\s+(?:usar|lado))(?:$|[^\w-])|\bn[aã]o\s+(?:use|usar|vamos\s+usar)\b",
        re.I),
        "Uma decisão importante, vamos ignorar os dois projetos existentes, ou seja, o "
        "Pfm.Categorization.Contracts e o Pfm.Categorization.SyntheticData",
        "pfm-categorization__opencode-session.json ordinal 16 (user)",
        (_PASTED_STACK,
         "Não vamos ignorar o Pfm.Categorization.Contracts, ele ainda é usado",  # written
         )),
)
"""How a user drops something the last turn used (a project, a library, a file).  The
English row went (examples15): no user of the data drops a thing in English, so its
example was written."""


_NAMEISH = re.compile(r"[`'\"“]?([A-Za-z_][\w.-]*[\w])[`'\"”]?")


def dropped_names(text: str) -> list[str]:
    """The identifier-like names a user message drops ("ignore the Pfm.Contracts
    project" → ``["Pfm.Contracts"]``): words of at least six characters with a dot, an
    underscore, a dash or an inner capital after a drop cue, else ``[]``."""
    out: list[str] = []
    for cue in DROP_CUES:
        for m in cue.pattern.finditer(text[:2000]):
            tail = text[m.end():m.end() + DROP_OBJECT]
            for w in _NAMEISH.finditer(tail):
                name = w.group(1)
                if len(name) >= 6 and (re.search(r"[._-]", name)
                                       or re.search(r"[a-z][A-Z]", name)):
                    out.append(name)
    return list(dict.fromkeys(out))


# ----------------------------------------------------------------- the agent undoes
@dataclass(frozen=True)
class Undo:
    """A command that undoes the agent's own work: a file restored or deleted, a package
    removed or pinned back, the tree reset.  ``undoes`` says what its ``t`` group names:
    ``file`` (a file the agent changed), ``package`` (one it installed) or ``all`` (every
    change of the turn)."""

    name: str
    pattern: re.Pattern[str]
    undoes: str
    example: str
    source: str


UNDO_RULES: tuple[Undo, ...] = (
    Undo("git-restore-file", re.compile(
        r"\bgit\s+(?:checkout\s+(?:HEAD\s+)?--|restore(?:\s+--worktree)?(?:\s+--source[= ]\S+)?)"
        r"\s+[\"']?(?P<t>[^\s\"';&|-][^\s\"';&|]*)"), "file",
        "git restore Cargo.toml && rm -rf services notes/split-plan.md && git status --short",
        "fixtures/campaigns/rustci.py:1013 (the agent reverts its workspace split; "
        "fixtures/examples/lines.txt)"),
    Undo("git-reset-revert", re.compile(
        r"\bgit\s+(?:revert\s+(?:--no-edit\s+)?(?:HEAD|[0-9a-f]{7,40})|reset\s+--hard)\b"),
        "all", "git reset --hard HEAD~1",
        "(no real line yet) the last commit or the work tree thrown away"),
    Undo("rm-file", re.compile(
        r"(?:^|[;&|]\s*)(?:rm|del|unlink|Remove-Item)\s+(?:-{1,2}\w+\s+)*[\"']?"
        r"(?P<t>[^\s\"';&|]+)", re.I), "file",
        "rm /Users/j0hnd003/Develop/GitHub/server/k1lib-project/k1.lib-bootstrap/src/klan1/"
        "html/bootstrap/nav.php",
        "k1.lib-bootstrap__session-export.json ordinal 602 (bash; the command shape)"),
    Undo("package-removed", re.compile(
        r"\b(?:npm|pnpm|yarn|bun|pip3?|uv|poetry|cargo|composer|gem)\s+(?:uninstall|remove"
        r"|rm|un)\s+(?:-{1,2}[\w-]+\s+)*(?P<t>@?[\w][\w@/.-]*)"), "package",
        "npm uninstall @hugeicons/react react-icons",
        "(no real line yet) a dependency the agent added, removed"),
    Undo("package-pinned-back", re.compile(
        r"\b(?:npm|pnpm|yarn|bun)\s+(?:install|add|i)\s+(?:-{1,2}[\w-]+\s+)*"
        r"(?P<t>@?[\w][\w/.-]*)@[~^]?\d|\bpip3?\s+install\s+(?:-\S+\s+)*(?P<p>[\w.-]+)==\d"),
        "package", "npm install three@0.160.0",
        "(no real line yet) a dependency pinned to another version"),
)
"""Commands that undo the agent's own work (see ``kb.graph.episodes.undone_episodes``)."""


_FILE_NAME = re.compile(r"\A[^.*?\[\]]+\.\w{1,8}\Z")
"""A file's base name (anchored: searching a long text tries one start only)."""


def undone(command: str) -> list[tuple[Undo, str]]:
    """What a shell command undoes: each rule that fires, with the name it undoes (a file's
    base name, a package; ``""`` for a rule that undoes the whole turn)."""
    out: list[tuple[Undo, str]] = []
    for rule in UNDO_RULES:
        for m in rule.pattern.finditer(command[:600]):
            t = m.groupdict().get("t") or m.groupdict().get("p") or ""
            if rule.undoes == "file":
                t = t.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
                if not _FILE_NAME.fullmatch(t):
                    continue  # a file by its name, not a folder, a dotfile or a glob
            out.append((rule, t))
    return out


# ----------------------------------------------------------------- a review sends work back
REVIEW_CUES: tuple[Cue, ...] = (
    Cue("en-review", re.compile(r"\b(?:code\s+)?review(?:s|ing|er)?\b|\baudit\b", re.I),
        "Code review of all 5 question solutions",
        "blockchain-dex-events__claude-session.jsonl ordinal 111 (Task description)"),
)
"""How an agent names a sub-agent task that reviews the work so far (its description):
what such a review finds may send the agent's own earlier lines back
(``kb.graph.episodes.reviewed_episodes``)."""


def review_phrase(title: str) -> str | None:
    """The words that make a sub-agent task a review of the work, else ``None``."""
    for cue in REVIEW_CUES:
        m = cue.pattern.search(title[:300])
        if m is not None:
            return m.group()
    return None
