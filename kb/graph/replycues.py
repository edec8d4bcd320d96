"""What an agent's reply says of its own work, as rows of short language-aware cues.

The episode rules of :mod:`kb.graph.episodes` read structure (a guess, then a finding with
nothing changed between; a claim of inability, then the user's answer, then the agent
doing it; a run, then a reply that reads it as having damaged the work).  What they need
from the words is small: that a sentence *guesses* at a cause, *states* the cause found,
*claims* the agent cannot do something, or reads a run as having *not worked* or having
*damaged* what it worked on.  These ideas are the same in every language the pool has
(English, Spanish, Portuguese, Chinese), so each is a table of rows, one or more per
language, each with a real line (or, where the pool has none yet, a line said so).

The rows read by the store's SQL (``HYPOTHESIS``, ``FOUND``, ``CANNOT``, ``JUDGED``)
are RE2 patterns as well as Python ones: no lookaround, and no ``\\b`` next to a letter
that may be outside ASCII (RE2's ``\\b`` is ASCII-only: ``funcionó\\b`` never matches
there).  ``tests/kb/test_replycues.py`` walks every row, in Python and in DuckDB.

Pure: no database, no IO.
"""

from __future__ import annotations

import re

from logparse.structural import Cue

_F = re.I

# ----------------------------------------------------------------- a guess at a cause
HYPOTHESIS_CUES: tuple[Cue, ...] = (
    Cue("en-might-be", re.compile(
        r"\b(?:the )?(?:issue|problem|cause|culprit|bug) (?:might|may|could) be\b", _F),
        "The HTML looks correct. The issue might be that Bootstrap 5's nav-underline styling "
        "requires some specific setup.",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #575 (assistant)"),
    Cue("en-maybe-perhaps", re.compile(
        r"\bmaybe (?:the|there|it|this)\b|\bperhaps\b|\bI suspect\b"
        r"|\bI wonder (?:if|whether)\b", _F),
        "Let me check if maybe there's a CSS caching issue or maybe I should verify what the "
        "actual Bootstrap CSS does with nav-underline.",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #579 (assistant)"),
    Cue("en-probably-likely", re.compile(
        r"\b(?:it|that|this)(?:'s|’s| is) (?:probably|likely|possibly)\b"
        r"|\bthe (?:issue|problem) is (?:likely|probably|possibly)\b", _F),
        "This is likely a JavaScript error that occurs when Bootstrap is trying to "
        "initialize the modal.",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #482 (assistant)"),
    Cue("es-probablemente", re.compile(
        r"\b(?:eso|esto|el\s+problema|la\s+causa)\s+(?:muy\s+)?(?:probablemente|quiz[aá]s"
        r"|seguramente)|\b(?:el\s+problema|la\s+causa)\s+(?:puede|podr[ií]a)\s+ser\b"
        r"|\b(?:tal\s+vez|quiz[aá]s)\s+(?:el|la|sea|haya|est[eé])\s|\bsospecho\s+que\b", _F),
        "Eso probablemente está rompiendo la tokenización de spaCy.",
        "pool conversacion-act1-pln__session.jsonl (Claude Code, tune) (assistant, on the "
        "latin-1 file)"),
    Cue("pt-provavelmente", re.compile(
        r"\b(?:isso|isto|o\s+problema|a\s+causa)\s+(?:[eé]\s+)?(?:provavelmente|talvez)"
        r"|\b(?:o\s+problema|a\s+causa)\s+(?:pode|poderia)\s+ser\b"
        r"|\btalvez\s+(?:o|a|seja|haja|esteja)\s|\bsuspeito\s+que\b"
        r"|\bprovavelmente\s+(?:um|uma|o|a|seja)\s", _F),
        "Isso é uma inconsistência de organização de pastas vs. namespace — provavelmente "
        "um arquivo mal posicionado (deveria estar em `SyntheticData/`).",
        "pfm-categorization__opencode-session.json (opencode, shared) (assistant)"),
    Cue("zh-maybe", re.compile(r"可能是|也许是|或许是|估计是|我怀疑|问题可能"),
        "问题可能是 kdeglobals 的监听没有触发。",
        "(no real line yet) Chinese: 'the problem may be that the watcher did not fire'"),
)
"""A sentence that guesses at a cause ("the issue might be …", "Eso probablemente está
rompiendo …", "可能是 …").  Read with :data:`FOUND_CUES` by
``kb.graph.episodes.guess_episodes`` (guesses a finding refutes) and
``dropped_episodes`` (a guess acted on, then dismissed)."""

# ----------------------------------------------------------------- the cause found
FOUND_CUES: tuple[Cue, ...] = (
    Cue("en-the-issue-is", re.compile(
        r"\bthe (?:real |actual |root )?(?:issue|problem|cause|culprit|bug) (?:was|is)\b", _F),
        "The issue is that inside the collapse section, there's a `use k1\\lib\\html\\button "
        "as btn;`",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #114 (assistant)"),
    Cue("en-found-it", re.compile(
        r"\bfound (?:it|the (?:real |actual |root )?(?:issue|problem|cause|culprit|bug))\b"
        r"|\bturns out\b|\bI see the (?:issue|problem)\b", _F),
        "Found the issue! The demo has custom CSS that's overriding Bootstrap's nav styling:",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #580 (assistant)"),
    Cue("es-lo-que-pasa", re.compile(
        r"\b(?:el|la)\s+(?:verdadero\s+|real\s+)?(?:problema|causa|error)\s+(?:es|era|est[aá])\s"
        r"|\blo\s+que\s+pasa\s+es\b|\bencontr[eé]\s+(?:el\s+problema|la\s+causa)"
        r"|\bresulta\s+que\b|\bya\s+veo\s+(?:el\s+problema|lo\s+que\s+pasa)", _F),
        "El archivo muy probablemente **es UTF-8**, no latin-1. Lo que pasa es:",
        "pool conversacion-act1-pln__session.jsonl (Claude Code, tune) (assistant)"),
    Cue("pt-o-problema-e", re.compile(
        r"\b(?:o|a)\s+(?:verdadeir[oa]\s+|real\s+)?(?:problema|causa|erro)\s+(?:[eé]|era|est[aá])\s"
        r"|\bencontrei\s+(?:o\s+problema|a\s+causa)|\bacontece\s+que\b"
        r"|\bj[aá]\s+vi\s+o\s+problema", _F),
        "Encontrei o problema: o caminho `src/Pfm.WebApi/...` não existe mais.",
        "(no real line yet) Portuguese: 'I found the problem: …'"),
    Cue("zh-found", re.compile(r"问题(?:在于|出在|是)|原因(?:是|在于)|找到(?:了)?(?:问题|原因)|原来是"),
        "找到问题了：原因是 systemd 服务在登录前启动。",
        "(no real line yet) Chinese: 'found the problem: the cause is …'"),
)
"""A sentence that states the cause found.  Python also drops a match followed by
:data:`FOUND_NOT_AFTER` ("the issue is likely …", "the problem is now fixed")."""

FOUND_NOT_AFTER = re.compile(r"\A\s*(?:likely|probably|possibly|that we|how|now|fixed|solved"
                             r"|resolved|gone)\b", re.I)
"""After a finding's words: not a cause stated (a guess, or news that it is fixed)."""
FOUND_GUARDED = frozenset({"en-the-issue-is", "es-lo-que-pasa", "pt-o-problema-e"})
"""The rows of :data:`FOUND_CUES` that :data:`FOUND_NOT_AFTER` guards ("the issue is
likely …"; not "I see the issue now")."""

# ----------------------------------------------------------------- a claim of inability
CANNOT_CUES: tuple[Cue, ...] = (
    Cue("en-i-cannot", re.compile(
        r"\b(?:I can'?t|I cannot|I'?m unable to|I am unable to|I'?m not able to"
        r"|I don'?t have (?:access|the ability|a way))\b", _F),
        "I can't run `opencode export` from here — it's a CLI command you'd run in your own "
        "terminal",
        "uicomponents__session-export.json (opencode, shared) #53 (assistant; its mojibake dash "
        "written as —)"),
    Cue("es-no-puedo", re.compile(
        r"\bno\s+(?:puedo|tengo\s+(?:acceso|forma|manera)|soy\s+capaz\s+de|me\s+es\s+posible)\s"
        r"|\bme\s+resulta\s+imposible\s", _F),
        "No puedo ejecutar el notebook desde aquí: no tengo acceso a tu entorno de PyCharm.",
        "(no real line yet) Spanish: 'I can't run the notebook from here'"),
    Cue("pt-nao-consigo", re.compile(
        r"\bn[aã]o\s+(?:consigo|posso|tenho\s+(?:acesso|como)|sou\s+capaz\s+de)\s", _F),
        "Não consigo executar o build daqui: não tenho acesso ao Docker da sua máquina.",
        "(no real line yet) Portuguese: 'I can't run the build from here'"),
    Cue("zh-cannot", re.compile(r"我(?:无法|不能|没法|没有办法|没办法)|我这边(?:无法|不能)"),
        "我无法直接运行 opencode export，需要你在终端里执行。",
        "(no real line yet) Chinese: 'I cannot run opencode export directly'"),
)
"""A claim of inability ("I can't run `opencode export` from here").  Python drops one
about perceiving (:data:`CANNOT_NOT_AFTER`): that one is no claim a run can refute."""

CANNOT_NOT_AFTER = re.compile(
    r"\A\s*(?:\w+\s+)?(?:read|see|view|open|browse|verify|watch|display|visually|tell|know"
    r"|find|guarantee|just|easily|be\s+sure|ver|leer|saber|garantizar|asegurar|ler|abrir"
    r"|visualizar|看到|看|查看|读取|确定|保证)(?:\W|$)", re.I)

# ----------------------------------------------------------------- a run read as failed
JUDGED_CUES: tuple[Cue, ...] = (
    Cue("en-none-worked", re.compile(
        r"\bnone of (?:the |my |these |those |them\b)?(?:\w+ ){0,2}?(?:worked|succeeded"
        r"|matched|helped|did anything)\b|\bneither (?:\w+ ){0,3}?(?:worked|succeeded)\b"
        r"|\bno luck\b", _F),
        "None of the common passwords worked.",
        "uicomponents__session-wordpress.json (opencode, shared) #235 (assistant, after the "
        "loop of login attempts exited 0)"),
    Cue("en-way-too-small", re.compile(
        r"\b(?:way|much|far) too (?:small|short)\b|\b(?:that|this|it) (?:seems|looks)"
        r" (?:wrong|off|broken)\b", _F),
        "The content length is only 356 chars - that's way too short.",
        "uicomponents__session-wordpress.json (opencode, shared) #81 (assistant, after "
        "`studio wp post get` exited 0; #86 'That seems wrong.', #388 'way too small')"),
    Cue("es-no-funciono", re.compile(
        r"\bno\s+(?:funcion|cambi|se\s+(?:aplic|actualiz|guard))(?:[oó]|aron)(?:\W|$)"
        r"|\bsigue\s+(?:igual|vac[ií][oa]|mostrando|fallando)"
        r"|\bse\s+(?:rompi[oó]|corrompi[oó]|perdi[oó]|borr[oó])(?:\W|$)"
        r"|\bel\s+mismo\s+(?:error|resultado)\b"
        r"|\bningun[oa]\s+(?:de\s+(?:\S+\s+){1,2})?funcion[oó]"
        r"(?:\W|$)|\bdemasiado\s+(?:peque[nñ]o|cort[oa])", _F),
        "Los reemplazos no funcionaron: el archivo sigue igual.",
        "(no real line yet) Spanish: 'the replacements did not work: the file is the same'"),
    Cue("pt-nao-funcionou", re.compile(
        r"\bn[aã]o\s+(?:funcionou|mudou|(?:foi\s+)?(?:aplicad[oa]|salv[oa])|atualizou)(?:\W|$)"
        r"|\bcontinua\s+(?:igual|vazi[oa]|mostrando|falhando)"
        r"|\bfoi\s+(?:corrompid[oa]|perdid[oa]|sobrescrit[oa]|apagad[oa])(?:\W|$)"
        r"|\bo\s+mesmo\s+(?:erro|resultado)\b"
        r"|\bnenhu(?:m|ma)\s+(?:d[aoe]s?\s+\S+\s+)?funcionou(?:\W|$)|\bpequen[oa]\s+demais", _F),
        "A substituição não funcionou: o conteúdo continua vazio.",
        "(no real line yet) Portuguese: 'the replacement did not work: still empty'"),
    Cue("zh-not-effective", re.compile(
        r"没有?生效|不起作用|没有?效果|还是(?:一样|空的|显示|报错|失败)|被(?:破坏|覆盖|损坏|清空)了?"
        r"|丢失了|同样的(?:错误|结果)|都(?:不行|没用|失败了?)|太(?:小|短)了"),
        "替换没有生效，内容还是空的。",
        "(no real line yet) Chinese: 'the replacement did not take effect, still empty'"),
)
"""The reply after a run that reads it as not having done what it should: the English
readings no other reply rule shares (the rest: ``kb.graph.extract.JUDGED_FAILED``, whose
words the other rules of the reply share), and the other languages."""

# ----------------------------------------------------------------- a run that damaged the work
DESTROYED_CUES: tuple[Cue, ...] = (
    Cue("en-mangled", re.compile(
        r"\b(?:mangled|corrupted|wiped|garbled|clobbered|destroyed|blanked|lost|overwritten)\b"
        r"|\b(?:removed|deleted|stripped|cut|replaced)\s+(?:way\s+)?too\s+much\b", _F),
        "The content got mangled.",
        "uicomponents__session-wordpress.json (opencode, shared) #85 (assistant, after the "
        "fix_page.php run)"),
    Cue("es-se-rompio", re.compile(
        r"(?:^|\W)(?:se\s+)?(?:corrompi[oó]|destruy[oó]|perdi[oó]|sobrescribi[oó]"
        r"|borr[oó]\s+de\s+m[aá]s|elimin[oó]\s+demasiado)(?:\W|$)|\bse\s+rompi[oó]", _F),
        "El contenido se corrompió: la expresión regular borró de más.",
        "(no real line yet) Spanish: 'the content got corrupted: the regex removed too much'"),
    Cue("pt-foi-corrompido", re.compile(
        r"\bfoi\s+(?:corrompid[oa]|destru[ií]d[oa]|perdid[oa]|sobrescrit[oa]|apagad[oa])(?:\W|$)"
        r"|\b(?:removeu|apagou)\s+(?:demais|coisa\s+demais)", _F),
        "O conteúdo foi corrompido: a regex removeu demais.",
        "(no real line yet) Portuguese: 'the content got corrupted: the regex removed too "
        "much'"),
    Cue("zh-destroyed", re.compile(r"被(?:破坏|覆盖|损坏|清空|删掉)|丢失了|删多了|删除了太多"),
        "内容被破坏了：正则删多了。",
        "(no real line yet) Chinese: 'the content was destroyed: the regex removed too much'"),
)
"""A reply's words for a run that damaged what it worked on ("mangled", "overwritten";
"deleted" or "emptied" alone are said as often of what the agent meant to do)."""


# ----------------------------------------------------------------- keyword gates
GATES: dict[str, tuple[str, ...]] = {
    # FOUND_CUES: every match holds one of these (lower-cased)
    "en-the-issue-is": ("issue", "problem", "caus", "culprit", "bug"),
    "en-found-it": ("found", "turns out", "issue", "problem"),
    "es-lo-que-pasa": ("problem", "caus", "erro", "pasa", "resulta"),
    "pt-o-problema-e": ("problem", "caus", "erro", "acontece"),
    "zh-found": ("问题", "原因", "原来是"),
    # CANNOT_CUES
    "en-i-cannot": ("i can", "unable", "not able", "i don"),
    "es-no-puedo": ("puedo", "tengo", "capaz", "posible"),
    "pt-nao-consigo": ("consigo", "posso", "tenho", "capaz"),
    "zh-cannot": ("我",),
}
"""For the rows read most often (a sentence of every reply, every claim), words that
every match of the row holds, lower-cased: a text holding none of them is not scanned
(the row's regex would find nothing).  ``tests/kb/test_replycues.py`` checks each row's
example holds one."""

_FOLDS_TO_ASCII = frozenset("\u017f\u212a\u0130\u0131")
"""Letters ``re.IGNORECASE`` matches to an ASCII one that ``str.lower`` does not lower to
it (long s, the Kelvin sign, dotted and dotless i): a text holding one is not gated."""


def _gates(text: str) -> str | None:
    """``text`` lower-cased for the gates, or None when they may not be trusted."""
    if not text.isascii() and not _FOLDS_TO_ASCII.isdisjoint(text):
        return None
    return text.lower()


def joined(cues: tuple[Cue, ...]) -> str:
    """The rows as one alternation (an RE2 pattern for the store's SQL)."""
    return "|".join(f"(?:{c.pattern.pattern})" for c in cues)


_GUARD_WINDOW = 200
"""How far after a cue its guard reads."""


def first_match(cues: tuple[Cue, ...], text: str, not_after: re.Pattern[str] | None = None,
                guarded: frozenset[str] | None = None) -> re.Match[str] | None:
    """The earliest match of any row in ``text``, skipping one that ``not_after``
    matches right after (only for the rows named in ``guarded``, when given)."""
    best: re.Match[str] | None = None
    low = _gates(text)
    for cue in cues:
        keys = GATES.get(cue.name)
        if keys is not None and low is not None and not any(k in low for k in keys):
            continue  # no word every match holds: nothing to find
        guard = not_after if guarded is None or cue.name in guarded else None
        for m in cue.pattern.finditer(text):
            # the guard reads the words right after the cue (anchored ``\A`` on a window:
            # a pattern starting ``\s*`` is quadratic wherever it is searched)
            if guard is not None and guard.match(text[m.end():m.end() + _GUARD_WINDOW]):
                continue
            if best is None or m.start() < best.start():
                best = m
            break
    return best
