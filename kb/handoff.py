"""The hand-off brief: what a new engineer (or the next agent) wants on day one.

:func:`brief` gathers it from the persisted knowledge graph and the store as plain
data (``logkb handoff --json``); :func:`markdown` writes it up.  Sections, in the
order a reader needs them:

* the goal in one line, and the **status**: the best measurement with its
  configuration and message, the baseline, whether the goal is met;
* what was tried, one row per approach (todo snapshots repeat an item many times:
  they are merged), confirmed items included;
* dead ends by cause, with the ordinals of their evidence;
* open and untested questions with their caveats (what later checks found);
* next steps: the last decision in full and the open todos;
* how to reproduce the best result (its commands), and the environment (hosts,
  paths, versions seen);
* what the session did and how it ended, so that a session without any dead end
  still gets a useful brief.

``--max-tokens N`` (:func:`fit_tokens`, :func:`render`) shortens texts and leaves out
whole items, least needed first, until the brief *as printed* (Markdown or JSON) is at
most N tokens by :func:`estimate_tokens`, down to its skeleton (the goal and the
status); every claim keeps its ordinals and the brief says what it left out.  The
Markdown's lines fit 80 columns (:func:`wrap_markdown`): prose wraps, a code span
already cut, a quoted table row or code line and a long word are cut with ``…``; only a
whole code span (a command, a path) and the brief's own fenced commands stay whole.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from collections import Counter
from typing import Any

from kb.graph import store as gs
from kb.graph.report import (
    direction,
    dominant_quantity,
    is_listing_size,
    measured_quantities,
)
from kb.graph.text import short, similarity, tokens
from kb.store import KbStore
from kb.width import cells, cut, fit
from logparse.author import user_words
from logparse.request import is_greeting, request_text
from logparse.sentences import split_sentences
from logparse.structural import MessageFacts, message_signals

_VERSION_RES = (
    re.compile(r"^Name: (?P<name>[\w.-]+)\s*\nVersion: (?P<version>[\w.+-]+)", re.M),
    re.compile(r"^(?P<name>[A-Za-z][\w.-]*)==(?P<version>\d[\w.+-]*)\s*$", re.M),
    re.compile(r"\b(?P<name>CUDA Version|Driver Version):\s*(?P<version>\d[\d.]*)"),
    re.compile(r"\b(?P<name>nvcc|cuda).{0,40}?release (?P<version>\d+\.\d+)", re.I),
    re.compile(r"^(?P<name>Python) (?P<version>3\.\d+\.\d+)\s*$", re.M),
    # `pip list`: name, two or more spaces, version
    re.compile(r"^(?P<name>[A-Za-z][\w.-]*) {2,}(?P<version>\d[\w.+-]*)(?: |$)", re.M),
)
_PATH_RE = re.compile(r"(?<![\w.~$:/-])(/(?:[\w.+-]+/)*[\w.+-]+)")
_PATCH_FILE_RE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
_BORING_PATHS = ("/dev/", "/proc/", "/tmp/", "/usr/", "/bin/", "/etc/", "/sys/")
_WIDE = (  # wide (CJK) characters: two columns, a token each
    "\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f"
    "\uff00-\uff60\uffe0-\uffe6")


# ------------------------------------------------------------------ exports
# A session that ends on its own export: users commit their agent's transcript by asking
# the agent to export it, so the file often ends while that call still runs (its output
# never reaches the transcript: the transcript *is* its output).  That call is no open
# check for a successor; the brief says the session ends on its export instead.  Rules
# as data: each row names the agents' own way of exporting a session, with a real
# command it matches (tests/kb/test_handoff_status.py walks them).
@dataclasses.dataclass(frozen=True)
class ExportRule:
    agent: str
    pattern: re.Pattern[str]
    example: str
    """A real command it matches (its source in ``source``)."""
    source: str


EXPORT_RULES: tuple[ExportRule, ...] = (
    ExportRule("opencode", re.compile(r"\bopencode\s+export\b"),
               "cd /Users/j0hnd003/Develop/GitHub/server/k1lib-project/k1.lib-bootstrap && "
               "opencode export ses_1be58628dffeUlqtrOC0XgUH2I > session-export.json 2>&1",
               "labelled k1.lib-bootstrap__session-export.json, message 619"),
    ExportRule("codex", re.compile(r"\.codex[\\/]+sessions\b.*\.jsonl", re.S),
               r"$latest = Get-ChildItem -Recurse -Force $env:USERPROFILE\.codex\sessions "
               r"-Filter *.jsonl | Sort-Object LastWriteTime -Descending | Select-Object "
               r"-First 1; Copy-Item -LiteralPath $latest.FullName -Destination "
               r".\codex-session.jsonl -Force",
               "labelled Valdyum-Labs__codex-session.jsonl (the call at message 69)"),
    ExportRule("claude-code", re.compile(r"\.claude/projects/.*\.jsonl", re.S),
               "CURRENT_JSONL=$(ls -t ~/.claude/projects/-Users-mikemorgenstern-TIDR-"
               "Dropbox-TIDR-Team-Folder-RG-Collab-Admin/*.jsonl 2>/dev/null | head -1)\n"
               'cp "$CURRENT_JSONL" ~/Code/workbench/openwisprmod/session.jsonl',
               "labelled speakfree__session.jsonl (the call at message 95)"),
    ExportRule("any", re.compile(r"\bexport[-_]session\.(?:sh|py|ps1|js|mjs)\b"),
               "bash /Users/anmolbhardwaj/.claude/skills/apply-grant/export-session.sh .",
               "labelled Trezo-Ai__codex-session.jsonl (the call at message 93)"),
)
"""How the agents (and the skills they run) copy the session's own transcript."""


def is_export(command: str | None) -> bool:
    """Whether ``command`` copies the session's own transcript (:data:`EXPORT_RULES`)."""
    return bool(command) and any(r.pattern.search(command or "") for r in EXPORT_RULES)


# ------------------------------------------------------------------ asks
# A session that ends on the agent's question waits for the user: it is open, whatever
# else it left.  By structure first (:func:`_ended_on_words`: the last turn is the
# assistant's and nothing, no call and no user message, came after its words), then by
# the words' final paragraph (:func:`asks_user`): its last sentence is a question, or a
# cue of :data:`ASK_CUES` asks for an answer, a choice or an approval.  A courtesy close
# ("Let me know if you want…") asks nothing: its sentences are dropped before the rest is
# read.  Rules as data: each row has a real example (tests/kb/test_handoff_asks.py walks
# them).
@dataclasses.dataclass(frozen=True)
class AskCue:
    lang: str
    kind: str
    """``offer`` (shall I…), ``choice`` (which do you prefer…), ``approval`` (confirm…):
    the paragraph asks the user; ``courtesy``: the sentence asks nothing (it is dropped
    before the others are read)."""
    pattern: re.Pattern[str]
    example: str
    """A real final paragraph it matches (its source in ``source``)."""
    source: str


ASK_CUES: tuple[AskCue, ...] = (
    AskCue("en", "offer", re.compile(
        r"\b(?:(?:do\s+you\s+)?want\s+me\s+to|shall\s+i|should\s+i|do\s+you\s+want)\b",
        re.I),
           "Want me to continue implementing the remaining Bootstrap components to match "
           "the official docs? I can prioritize specific ones you need most.",
           "labelled k1.lib-bootstrap__session-export.json, message 255"),
    AskCue("en", "offer", re.compile(r"\bwould\s+you\s+like(?:\s+me)?\s+to\b", re.I),
           "**One question:** The `SmoothInput` currently only allows `\"text\"` and "
           "`\"password\"` types. For the date field, I'd need to extend it. Would you like "
           "me to:\n- **A)** Extend `SmoothInputType` to include `\"date\"`, `\"email\"`, "
           "`\"tel\"`, `\"number\"` so all fields use the animated caret\n- **B)** Use a "
           "regular `<input>` for the date field and keep `SmoothInput` for the rest",
           "labelled uicomponents__session-export.json, message 10"),
    AskCue("en", "choice", re.compile(
        r"\b(?:which\b[^.?!\n]{0,60}\b(?:do|would)\s+you|(?:do|would)\s+you\s+(?:prefer|"
        r"rather)|questions?\s+for\s+you)\b", re.I),
           "**Questions for you:**\n\n1. Should the category bar be **sticky** (stays at "
           "top when scrolling)?\n2. Should clicking a category **scroll to top** "
           "automatically?\n3. Any categories you want to rename, merge, or split "
           "differently?",
           "labelled uicomponents__session-export.json, message 106"),
    AskCue("en", "approval", re.compile(
        r"\b(?:once\s+you\s+(?:confirm|approve|sign\s+off)|does\s+this\s+(?:plan\s+)?look\s+"
        r"(?:good|right|ok))\b", re.I),
           "Does this plan look good? Once you confirm, I'll ask you to do the Studio login "
           "and we'll start Phase 1.",
           "labelled uicomponents__session-wordpress.json, message 9"),
    AskCue("en", "approval", re.compile(
        r"\b(?:pausing|waiting)\b[^.?!\n]{0,20}\bfor\s+your\s+(?:review|sign-?off|approval|"
        r"confirmation|go-ahead)\b", re.I),
           "Pausing here for your review before Q2.",
           "pool blockchain-dex-events__claude-session.jsonl, message 27"),
    AskCue("es", "offer", re.compile(
        # the question's own opening mark: "si querés…" is a condition, no question
        r"¿\s*(?:quer[eé]s|quieres|prefer[ií]s|prefieres|te\s+parece)\b", re.I),
           "¿Querés seguir con las preguntas del notebook?",
           "pool conversacion-act1-pln__session.jsonl, message 43"),
    AskCue("pt", "approval", re.compile(
        r"\b(?:aguardo\s+(?:a\s+)?sua\s+(?:confirma[çc][ãa]o|aprova[çc][ãa]o|resposta)|"
        r"confirma\s+(?:o|a|se)\b|(?:ou\s+)?prefere)\b", re.I),
           "Aguardo sua confirmação de que este entendimento está correto antes de "
           "prosseguir com qualquer implementação.",
           "labelled pfm-categorization__opencode-session.json, message 7"),
    AskCue("en", "courtesy", re.compile(r"\blet\s+me\s+know\s+(?:if|when|whether)\b", re.I),
           "Let me know when you want a separate `docs(roadmap)` commit for those.",
           "pool FundWise__claude-session.jsonl, message 74"),
    AskCue("en", "courtesy", re.compile(r"\bsay\s+the\s+word\b|^if\s+you\b", re.I),
           "If you'd rather move the brief into its own `docs/partners/visa-frontier.md` so "
           "it's a sibling chunked doc instead of inline in ROADMAP, say the word and I'll "
           "pull it out.",
           "pool FundWise__claude-session.jsonl, message 33"),
    AskCue("es", "courtesy", re.compile(r"\b(?:decime|avisame|av[ií]same)\s+cuando\b|"
                                        r"\bcuando\s+quieras\b", re.I),
           "Decime cuando quieras empezar a trabajar en el notebook.",
           "pool conversacion-act1-pln__session.jsonl, message 24"),
)
"""How an agent's final words ask the user for an answer, a choice or an approval (and
the courtesy closes that ask nothing)."""

_FENCE = re.compile(r"^\s*(?:>\s?)*(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)]|\(?[A-Za-z]\))\s+")
_QUESTION_END = re.compile(r"[?？][\s*_)\]»\"'`”’]*$")


def asks_user(text: str | None) -> str | None:
    """The final paragraph of an agent's words when it asks the user something (a
    question, options to choose from, a request for approval), flattened; ``None`` when
    it asks nothing (a summary, a courtesy close like "Let me know if…", a code block)."""
    if not text or not text.strip():
        return None
    body = _without_fences(text.strip())
    paras = [p.strip() for p in re.split(r"\n[ \t]*\n", body) if p.strip()]
    if not paras:
        return None
    block = [paras[-1]]
    lines = paras[-1].splitlines()
    if len(paras) > 1 and lines and all(_LIST_ITEM.match(ln) or ln.startswith(" ")
                                        for ln in lines):
        block.insert(0, paras[-2])  # options: the lead-in that asks, then the list
    final = "\n".join(block)
    # emphasis is no end of a sentence: "**Is there an MCP server?** If you point me…"
    plain = re.sub(r"\*{1,3}|(?<!\w)_{1,3}|_{1,3}(?!\w)", "", final)
    sentences = [s.strip() for s in split_sentences(plain) if s and s.strip()]
    courtesy = [c for c in ASK_CUES if c.kind == "courtesy"]
    kept = [s for s in sentences if not any(c.pattern.search(s) for c in courtesy)]
    if not kept:
        return None
    # a question anywhere in the final paragraph ("Is there an MCP server for Studio
    # available? If you point me to it, I can…"), or a cue that asks without one
    asked = any(_QUESTION_END.search(s) for s in kept) or any(
        c.pattern.search(s) for c in ASK_CUES if c.kind != "courtesy" for s in kept)
    return " ".join(final.split()) if asked else None


def _without_fences(text: str) -> str:
    """``text`` with each fenced code block one ``[code]`` line (words that end on a
    block of code end on no question)."""
    out: list[str] = []
    fence = ""
    for line in text.splitlines():
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1).startswith(fence):
                fence = ""
            continue
        if m:
            fence = m.group(1)
            out.append("[code]")
            continue
        out.append(line)
    return "\n".join(out)


def _ended_on_words(store: KbStore, scope: str, ended: dict[str, Any] | None
                    ) -> dict[str, Any] | None:
    """The assistant's last words when the session ends on them: its last message is the
    assistant's, with no error, and no call and no user message came after its words
    (``{ordinal, text}``), else ``None``."""
    if not ended or ended.get("role") != "assistant" or ended.get("error"):
        return None
    tail = store.events(scope, kinds=["decision", "command", "prompt", "subagent"],
                        start=max(int(ended["ordinal"]) - 40, 0))
    words = [e for e in tail if e.kind == "decision" and e.role == "assistant"
             and e.source == "text" and (e.text or "").strip()]
    if not words:
        return None
    last = words[-1]
    after = [e for e in tail if (e.ordinal, e.seq) > (last.ordinal, last.seq)
             and (e.kind in ("command", "subagent") or (
                 e.kind == "prompt" and e.source == "text"
                 and len(request_text(e.text or "")) >= 2))]
    return None if after else {"ordinal": last.ordinal, "text": last.text or ""}


# ------------------------------------------------------------------ goal
# The goal is the first real request: a first prompt often opens on where the work is
# ("go through this folder, do not read any parent folder.", "we're in a new folder")
# before what it asks.  Each sentence of the first prompt is read in turn: a greeting and
# a scoping sentence are passed over, and the first that asks or orders (a clause opening
# on a cue of the table, or a question) is the goal; without one, the first sentence is.
# Rules as data: each row has a real prompt's sentence (tests/kb/test_handoff_goal.py
# walks them).
@dataclasses.dataclass(frozen=True)
class GoalCue:
    lang: str
    kind: str
    """``request``: a clause opening on it asks or orders; ``scope``: the sentence says
    where or on what the work is, no request."""
    pattern: re.Pattern[str]
    example: str
    """A real sentence of a prompt it matches (its source in ``source``)."""
    source: str


_VERBS_EN = (
    "add|analy[sz]e|build|change|check|commit|continue|convert|create|delete|deploy|"
    "design|do|explain|export|find|fix|generate|give|implement|improve|install|make|"
    "migrate|move|push|read|refactor|refine|remove|rename|restart|review|run|set\\s*up|"
    "show|tell|test|translate|update|upgrade|write")
GOAL_CUES: tuple[GoalCue, ...] = (
    GoalCue("en", "request", re.compile(
        r"^(?:so\s+)?(?:what\s+)?(?:i|we)\s+(?:do\s*n[o']?t\s+|dont\s+)?(?:want|wanna|need)\b",
        re.I),
            "i want to intgrate emailjs in the form to send email when the form is "
            "submitted guide me how to do it",
            "labelled uicomponents__session-export.json, message 1"),
    GoalCue("en", "request", re.compile(r"^(?:i|we)\s*(?:'d|\s+would)\s+like\b", re.I),
            "I would like you to create me 2-3 different variants of lannding page for our "
            "project here use the routes /landing1/2/3 for it",
            "pool trade_arena__claude-session.jsonl (a rewrite), message 1"),
    GoalCue("en", "request", re.compile(
        r"^(?:please|pls|can\s+you|could\s+you|would\s+you|help\s+me|let'?s)\b", re.I),
            "help me apply for the agentic engineering grant by Superteam",
            "labelled Trezo-Ai__codex-session.jsonl, message 2"),
    GoalCue("en", "request", re.compile(rf"^(?:{_VERBS_EN})\b", re.I),
            "Read SPEC.md and improve it for you and other ais to read and understand "
            "better",
            "labelled stunning-memory__opencode.db, message 1"),
    GoalCue("pt", "request", re.compile(
        r"^(?:fa[çc]a|mostre|crie|implemente|leia|analise|vamos|preciso|quero|pode|"
        r"por\s+favor)\b", re.I),
            "Antes de iniciar qualquer implementação, faça uma leitura completa dos quatro "
            "arquivos existentes no diretório `/docs`.",
            "labelled pfm-categorization__opencode-session.json, message 1"),
    GoalCue("es", "request", re.compile(
        r"^(?:quiero|necesito|necesitamos|podr[ií]as|pod[eé]s|puedes|ay[uú]dame|"
        r"me\s+ayud[aá]s|haz|hac[eé]|crea|arregl[aá]|cambi[aá]|escrib[ií]|investig[aá]|"
        r"mir[aá]|lee|vamos|empecemos|hagamos)\b", re.I),
            "claude me ayudas a arreglar este error:",
            "pool conversacion-act1-pln__session.jsonl, message 99"),
    GoalCue("zh", "request", re.compile(r"^(?:帮我|请|我希望|我想|我需要|能不能|麻烦)"),
            "帮我更新一下我的matugen脚本，让它也能够自动生成亮色模式的colorscheme。",
            "pool matugen-theme-sync__opencode-session.json, message 1"),
    GoalCue("en", "scope", re.compile(r"\bdo\s*n[o']?t\s+read\s+any\s+parent\b", re.I),
            "go throught this folder do not read any parent folder.",
            "labelled uicomponents__session-export.json, message 1"),
    GoalCue("en", "scope", re.compile(
        r"\bgo\s+thr\w*\s+(?:this|the\s+current)\s+(?:folder|directory|repo)", re.I),
            "go throuh the current folder dont read any parent directory only the sub "
            "folders here.",
            "labelled uicomponents__session-wordpress.json, message 1"),
    GoalCue("en", "scope", re.compile(
        r"^(?:we|i)\s*(?:'re|'m|re|\s+are|\s+am)\s+(?:in|inside|working\s+(?:on|in))\b",
        re.I),
            "were in a new folder called \"random\"",
            "pool random__session.jsonl, message 1"),
    GoalCue("en", "scope", re.compile(
        r"^this\s+(?:is|will\s+be)\s+(?:a|an|our|my)\b[^.!?]{0,40}\b(?:project|app|"
        r"application|repo|repository|codebase|site|website)\b", re.I),
            "this will be a new project!",
            "pool random__session.jsonl, message 1"),
    GoalCue("any", "scope", re.compile(
        r"^(?:context|contexto|background)\s*:|\bpara\s+contextualizarte\b|\bfor\s+context\b",
        re.I),
            "CLAUDE leer el CLAUDE.md, @Briefing.pdf, @\"PLN /Actividad 1/"
            "Rubrica_MIA_PLN_act1.xlsx\" y @\"PLN /Actividad 1/muinar02_act1/"
            "caracteristicasOdio.ipynb\" para contextualizarte",
            "pool conversacion-act1-pln__session.jsonl, message 1"),
)
"""How a prompt's sentence asks or orders (``request``) or only sets the scene
(``scope``), in the languages of the pool."""

_CLAUSE_CUT = re.compile(r"[,;，；]\s*|\s[—–]\s+|(?<=\S):\s+|：")
_LEAD = re.compile(r"^(?:(?:claude|codex|gemini|opencode)\b[\s,:]*|(?:and|so|then|also|ok(?:ay)?|"
                   r"now|but|y|e|entonces|ent[ãa]o)\b[\s,]+)+", re.I)
_SCOPES = tuple(c for c in GOAL_CUES if c.kind == "scope")
_REQUESTS = tuple(c for c in GOAL_CUES if c.kind == "request")


def is_request(sentence: str) -> bool:
    """Whether ``sentence`` asks or orders: a clause of it opens on a request cue of
    :data:`GOAL_CUES`, or it is a question."""
    if re.search(r"[?？]\s*$", sentence.strip()):
        return True
    return any(r.pattern.match(c) for c in request_clauses(sentence) for r in _REQUESTS)


def request_clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence`` a request may open (cut at commas, dashes, colons),
    without what leads into them ("claude, …", "ok so …", "and …")."""
    out = []
    for clause in _CLAUSE_CUT.split(sentence.strip()):
        c = _LEAD.sub("", clause.strip(" \t*_`>-•\"'“”"))
        if c:
            out.append(c)
    return out


def is_scope(sentence: str) -> bool:
    """Whether ``sentence`` only sets the scene (:data:`GOAL_CUES` ``scope`` rows)."""
    s = _LEAD.sub("", sentence.strip())
    return any(c.pattern.search(s) for c in _SCOPES)


def _sentences(text: str) -> list[str]:
    """The sentences of a prompt: a line break ends one (a line that goes on indented,
    as pasted text wraps, continues it), and so do ``.!?`` before a space (not after a
    list number or an abbreviation) and ``。！？``."""
    # each line's pieces, joined once (a pasted log's indented lines, added one by one to
    # the line before them, cost quadratic time), its sentences cut in one pass
    lines: list[list[str]] = []
    for raw in text.splitlines():
        piece = raw.strip()
        if not piece:
            lines.append([])
        elif (lines and lines[-1] and raw[:1].isspace() and not _LIST_ITEM.match(raw)
              and lines[-1][-1][-1] not in ".!?:。！？："):
            lines[-1].append(piece)
        else:
            lines.append([piece])
    out = []
    for pieces in lines:
        line = " ".join(" ".join(pieces).split())
        for start, end in _sentence_spans(line, ".!?"):
            for part in re.split(r"(?<=[。！？])", line[start:end]):
                if part.strip():
                    out.append(part.strip())
    return out


# ------------------------------------------------------------------ gather
def brief(store: KbStore, scope: str) -> dict[str, Any]:
    """Everything the brief says, as plain data (``logkb handoff --json``)."""
    from kb import views

    scopes = [scope]
    info = store.session(scope)
    usage = views.session_usage(store, [scope]).get(scope, {})
    items = gs.approaches(store, scopes)
    dead = gs.dead_ends(store, scopes)
    # what the user rewound the conversation past (Gemini CLI's /rewind) is a branch
    # taken back: its prompts set no goal, its checks are left open by no one
    rewound = store.rewound(scope)
    questions = [q for q in gs.untested(store, scopes, include_answered=False)
                 if not (q.get("session_id") == scope and q.get("ordinal") in rewound)]
    decisions = gs.decisions(store, scopes)
    # the user's own prompts: text an agent or its IDE injected is stored as synthetic
    prompts = user_words(store.events(scope, kinds=["prompt"], sources=["text"]))
    own = [p for p in prompts if p.ordinal not in rewound]
    # a reader that names a session by its first prompt (Gemini CLI) may have named it
    # by one the user took back: the brief's title is then the goal
    title_rewound = bool(rewound) and _named_by(info["title"], [
        p for p in prompts if p.ordinal in rewound])
    prompt = first_request(own[:12])
    asks = [p.ordinal for p in own if len(request_text(p.text or "")) >= 2]
    last_ask = asks[-1] if asks else 0
    # the call that copies the transcript, still running at its end, is no open check:
    # the transcript is its answer (EXPORT_RULES)
    exports = [q for q in questions
               if (q.get("ordinal") or 0) >= last_ask and is_export(q.get("command"))]
    questions = [q for q in questions if q not in exports]
    goal_items = [a for a in items if a["kind"] == "goal" and not (
        a.get("session_id") == scope and a.get("ordinal") in rewound)]
    goal_text = goal_items[0]["label"] if goal_items else _goal_line(
        prompt[0].text if prompt else "")
    series = _series(store, scopes)
    status = _status(store, scope, series, goal_items, items)
    activity = _activity(store, scope)
    nxt = _next(store, scope, decisions)
    words = _ended_on_words(store, scope, activity.get("ended"))
    question = asks_user(words["text"]) if words else None
    status["asked"] = {"ordinal": words["ordinal"], "text": question} if (
        words and question) else None
    status["state"], status["state_why"] = _state(activity, questions, nxt["todos"], dead,
                                                  last_ask, status["asked"])
    status["exported_at"] = exports[-1]["ordinal"] if exports else None
    if exports:
        status["state_why"] += (f"; the transcript ends on its own export "
                                f"[{exports[-1]['ordinal']}]")
    # pasted into tickets and handed to other agents: redacted whatever each part read
    return store.redactor.hiding().value({
        "session": {"id": scope, "title": info["title"], "title_rewound": title_rewound,
                    "messages": info["messages"],
                    "commands": info["commands"], "source_form": info["source_form"],
                    "directory": info.get("directory"),
                    "tokens_input": usage.get("tokens_input"),
                    "tokens_output": usage.get("tokens_output"),
                    "tokens_cache_read": usage.get("tokens_cache_read"),
                    "tokens_cache_write": usage.get("tokens_cache_write"),
                    "tokens_total": usage.get("tokens_total"),
                    "cost": usage.get("priced_cost"),
                    "cost_complete": not usage.get("unpriced")},
        "goal": {"text": goal_text,
                 "ordinal": goal_items[0]["ordinal"] if goal_items else (
                     prompt[0].ordinal if prompt else None),
                 "prompt": prompt[0].text if prompt else None},
        "status": status,
        "measurements": [_measure(m) | {"command": None} for m in _key_points(series)],
        "tried": _tried(items),
        "dead_ends": _dead_ends(dead),
        "open": _open(store, scope, questions, items, frozenset(asks)),
        "next": nxt,
        "reproduce": _reproduce(store, scope, status.get("best")),
        "environment": _environment(store, scope, info),
        "activity": activity,
    })


def _named_by(title: str | None, prompts: list[Any]) -> bool:
    """Whether ``title`` is (the head of) one of ``prompts``' texts."""
    name = " ".join((title or "").split()).rstrip("….").strip()
    if len(name) < 2:
        return False
    return any(" ".join((p.text or "").split()).startswith(name) or
               " ".join(request_text(p.text or "").split()).startswith(name)
               for p in prompts)


def first_request(prompts: list[Any]) -> list[Any]:
    """The first prompt event that asks for work, its text without what was injected
    (``[]`` when no prompt holds a real request).  A prompt a reader marked
    ``synthetic`` (or ``ignored``) is none, whatever its text.

    The first prompt with words in it is the goal's prompt unless it asks for nothing
    (:func:`asks_for_work`: a greeting or one word such as ``init``, only where the work
    is, or a paste of a file or of output with no request about it) and a later prompt
    does ask: then that later prompt is."""
    real = []
    for p in prompts:
        if getattr(p, "source", None) in ("synthetic", "ignored"):
            continue
        text = request_text(p.text or "")
        if len(text) >= 2:
            real.append(dataclasses.replace(p, text=text))
    if not real:
        return []
    return [next((p for p in real if asks_for_work(p.text)), real[0])]


_PASTE_OPENER = re.compile(r"^\s*(?:[{}\[\]()<>|$#/\\%=+`]|[\u2500-\u257f]|"
                           r"\d{1,4}[-:/.]\d{1,2}[-:/.\s]|\w+(?:\.\w+)*\([^)]*\)[;{]?\s*$)")
"""How a pasted line of a file or of output opens (or is): a bracket, a shell prompt, a
comment sign, a box-drawing tree, a timestamp, a call (indenting alone says nothing: a
terminal's wrapped prose is indented)."""


def _is_paste_line(line: str) -> bool:
    """Whether ``line`` reads as a pasted file's or output's line, by structure: it opens
    like one (:data:`_PASTE_OPENER`), or a fifth of its characters at least are symbols
    (code, paths, JSON) rather than letters, digits, blanks and prose punctuation."""
    if _PASTE_OPENER.match(line) and not _LIST_ITEM.match(line):
        return True
    body = line.strip()
    odd = sum(1 for ch in body if not (ch.isalnum() or ch.isspace() or ch in ".,;:'\"!?-"))
    return len(body) >= 8 and odd * 5 >= len(body)


def _prose_of_paste(text: str) -> str | None:
    """The prose around a paste when ``text`` is mostly a pasted file or output (two
    thirds of its characters, five lines or more, fenced or by the lines' structure),
    else ``None``."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 5:
        return None
    prose, pasted, fenced = [], 0, False
    for ln in lines:
        if _FENCE.match(ln.lstrip()):
            fenced = not fenced
            pasted += len(ln)
        elif fenced or _is_paste_line(ln):
            pasted += len(ln)
        else:
            prose.append(ln)
    if pasted * 3 < 2 * sum(len(ln) for ln in lines):
        return None
    return "\n".join(prose)


def asks_for_work(text: str) -> bool:
    """Whether a prompt's ``text`` (injected parts stripped) asks for work, by
    structure: a sentence of it that is no greeting and no scoping (:data:`GOAL_CUES`)
    and has two words at least (``init``, ``hi!``, ``continue`` ask for nothing a
    brief can name); a prompt that is mostly a pasted file or output asks only when its
    prose around the paste holds a request (:func:`is_request`)."""
    prose = _prose_of_paste(text)
    if prose is not None:
        return any(is_request(s) and not is_scope(s) and not is_greeting(s)
                   for s in _sentences(prose))
    for s in _sentences(text):
        if is_greeting(s) or is_scope(s):
            continue
        words = s.split()
        if len(words) >= 2 or re.search(f"[{_WIDE}]{{4}}", s):
            return True
    return False


def _goal_line(text: str | None) -> str:
    """One line of the first prompt: its "Goal:" sentence, else its first sentence that
    asks or orders and is no greeting and no scoping (:data:`GOAL_CUES`: "go through this
    folder do not read any parent folder. i want to integrate emailjs…": the emailjs),
    else its first sentence that is no greeting."""
    if not text:
        return "(no prompt recorded)"
    lines = [ln.strip() for ln in text.splitlines()]
    for i, ln in enumerate(lines):
        m = re.match(r"^(?:[#*\s-]*)goals?\s*[:\-—]\s*(.*)$", ln, re.I) or re.search(
            r"\bgoal\s*:\s*(.+)$", ln, re.I)
        if m:
            rest = m.group(1).strip()
            if not rest:
                rest = next((x for x in lines[i + 1:] if x), "")
            return short(_first_sentence(rest.lstrip("-*• ").strip()), 200)
    sentences = []
    for s in _sentences(text):
        if is_greeting(s):
            continue
        head, _, tail = s.partition(",")  # "hi, can you…": the greeting, then the ask
        sentences.append(tail.strip() if tail.strip() and is_greeting(head) else s)
    if not sentences:
        return short(" ".join(text.split()), 200)
    asks = [i for i, s in enumerate(sentences) if not is_scope(s) and is_request(s)]
    # a pasted install line and the short request about it ("install this in bash and
    # answer this") are setup: the goal is the first request after them, if any
    i = next((i for i in asks if not _is_setup(sentences, i)), asks[0] if asks else 0)
    ask = sentences[i]
    if i and len(ask) < 60 and _POINTS_BACK.search(ask) and not is_scope(sentences[i - 1]):
        # "curl -fsSL https://…/setup.sh | bash" / "install this in bash": a short request
        # about what was pasted above it keeps what it points at
        ask = f"{sentences[i - 1]} {ask}"
    return short(ask, 200)


_POINTS_BACK = re.compile(
    r"\b(?:this|that|these|those|it|esto|eso|isso|isto)(?=\s*(?:$|[.,!?;:]|\s(?:in|on|as|for|"
    r"to|too|and|with|again|now|first|please)\b))", re.I)
"""A request's object that points back at the sentence before it ("install this in bash
and answer this"), not forward ("this react website into…")."""


_SHELL_TOKEN = re.compile(r"^(?:-{1,2}[A-Za-z][\w=.-]*|\w+://\S+|[\w.@~-]*/\S*|\||\|\||&&|"
                          r"[12]?>{1,2}\S*|<|\.)$")
"""A token only a shell line has: a flag, a URL, a path, a pipe, a redirection."""
_PIPE_TO_SHELL = re.compile(r"\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b")
_PROGRAM = re.compile(r"^(?:\$\s*)?[a-z][\w.+-]*$")


def is_command_line(sentence: str) -> bool:
    """Whether ``sentence`` is mostly a pasted shell command, by structure: it opens on a
    program name (after an optional ``$`` prompt) and pipes into a shell, or a third of
    its tokens at least are shell syntax (flags, URLs, paths, pipes, redirections)."""
    toks = sentence.strip().lstrip("$").split()
    if not toks or not _PROGRAM.match(toks[0]) or sentence.rstrip()[-1:] in "?!":
        return False
    if _PIPE_TO_SHELL.search(sentence):
        return True
    return len(toks) >= 2 and sum(1 for t in toks[1:] if _SHELL_TOKEN.match(t)) * 3 >= len(toks)


def _is_setup(sentences: list[str], i: int) -> bool:
    """Whether request ``i`` of a prompt's ``sentences`` only sets the session up: a
    pasted command, or a short request that points back at one ("install this")."""
    s = sentences[i]
    return is_command_line(s) or bool(
        i and len(s) < 60 and _POINTS_BACK.search(s) and is_command_line(sentences[i - 1]))


def _first_sentence(text: str) -> str:
    return _sentence_cut(text, ".!?")[0]


_NOT_AN_END = re.compile(r"\s(?:\d{1,3}|e\.g|i\.e|etc|vs|cf|approx|Mr|Dr)\.$",
                         re.I)
"""What a sentence does not end with: a list number ("containing: 1. Build…", "ADd
1. Re-enable…") or an abbreviation."""


def _sentence_cut(text: str, ends: str) -> tuple[str, str]:
    """``text`` cut after its first sentence (ending in one of ``ends`` and a space)."""
    spans = _sentence_spans(text, ends)
    end = spans[0][1] if spans else len(text)
    return text[:end], text[end + 1:]  # (the space after its end: one character)


def _sentence_spans(text: str, ends: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text`` (one ends in one of ``ends`` and a
    space, not after a list number or an abbreviation), in one pass: no sentence cut
    copies the rest of the text."""
    spans = []
    start = 0
    for m in re.finditer(f"[{re.escape(ends)}]\\s", text):
        end = m.start() + 1
        if text[end - 1] == "." and _NOT_AN_END.search(" " + text[max(start, end - 9):end]):
            continue
        spans.append((start, end))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


_NO_SIDE_RESULTS = frozenset({"http", "%"})
"""Units of a result with no better side that still say how the work went (an HTTP
status, a share); a count of things ("31 skills") or a size is what a tool saw."""


def is_result(unit: str | None, label: str | None) -> bool:
    """Whether a reading is a measured result the status may show: a quantity with a
    better side (tests, durations, throughput) or one of :data:`_NO_SIDE_RESULTS`,
    never a listing's file size (:func:`is_listing_size`)."""
    u = (unit or "").strip()
    return not is_listing_size(u, label) and (
        direction(u) is not None or u.lower() in _NO_SIDE_RESULTS)


def _series(store: KbStore, scopes: list[str]) -> list[dict[str, Any]]:
    """The progress series of :func:`kb.graph.report.throughput` among measured results
    only (:func:`is_result`: no listing's file size, no count of things): the quantity
    the session measured most of them, or nothing."""
    sids = [s for sc in scopes for s in gs.scope_sessions(store, sc)]
    q = dominant_quantity([x for x in measured_quantities(store, sids)
                           if is_result(x[0], x[1])])
    if q is None:
        return []
    unit, label = q
    return [m for m in gs.measurements(store, scopes, unit) if (m["label"] or "") == label]


def _status(store: KbStore, scope: str, series: list[dict[str, Any]],
            goal_items: list[dict[str, Any]], items: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"best": None, "baseline": None, "improvement": None,
                           "goal_met": None, "goal_status": None, "last": None}
    if goal_items:
        g = goal_items[0]
        out["goal_status"] = g["status"]
        out["goal_met"] = True if g["status"] == "confirmed" else (
            False if g["status"] in ("open", "dead_end", "blocked", "superseded") else None)
    if not series:
        return out
    sign = direction(series[0]["unit"] or "")
    out["last"] = _measure(series[-1])
    if sign is None or len(series) < 2:
        # a quantity with no better side (a size, a count, a percentage): the last reading
        # is what there is, and no reading is the "best"; nor is the only reading of one
        # (a best, its baseline and the gain between them need two to compare)
        return out
    best = max(series, key=lambda m: sign * m["value"])
    base = series[0]
    approach = _approach_at(items, best["ordinal"])
    full = next((e.command for e in store.events(scope, kinds=["command"], start=best["ordinal"],
                                                 end=best["ordinal"]) if e.command), None)
    out["best"] = {**_measure(best), "approach": approach["label"] if approach else None,
                   "command": full or best.get("command"),
                   "message": _message_line(store, scope, best["ordinal"])}
    out["baseline"] = _measure(base)
    if base["value"]:
        out["improvement"] = round((best["value"] - base["value"]) / base["value"] * 100, 1)
    return out


def _state(activity: dict[str, Any], questions: list[dict[str, Any]],
           todos: list[dict[str, Any]], dead: list[dict[str, Any]],
           last_request: int = 0, asked: dict[str, Any] | None = None) -> tuple[str, str]:
    """``done``, ``open`` or ``blocked``, from how the session ended and what it left:
    blocked when it ended on an error (a provider error, an abort) or its last ended
    approach is blocked; open when the agent's last words ask the user something that
    no answer followed (``asked``: :func:`asks_user`), a check of the last request (at
    ``last_request`` or after) went unanswered, a todo is open or the agent had not
    replied last; done otherwise.  A check left unanswered under an earlier request, which the session went
    on past, is listed (and said) but leaves the end no less done."""
    ended = activity.get("ended") or {}
    # what the last reply ended with, read by the same turn rules for every agent
    # (logparse.structural.TURN_RULES): a reply cut at the output limit (opencode's
    # MessageOutputLengthError, Claude Code's max_tokens) leaves the work open, not blocked
    cut = "truncated" in message_signals(MessageFacts(
        str(ended.get("role") or ""), ended.get("finish"),
        ended.get("error_text") or ended.get("error"))) if ended else False
    if ended.get("error") and not cut:
        # what the error said (a usage limit, an unknown model), not only its class
        return "blocked", f"the session ended on an error: {short(_error_said(ended), 120)}"
    last_end = max(dead, key=lambda d: d.get("ended_at") or 0, default=None)
    if last_end is not None and last_end["status"] == "blocked" and (
            last_end.get("ended_at") or 0) >= (ended.get("ordinal") or 0) - 3:
        return "blocked", f"the last approach is blocked: {short(last_end['name'], 80)}"
    why = []
    if asked:
        why.append(f"waiting for the user: the agent asked [{asked['ordinal']}] "
                   f"«{short(asked['text'], 160)}»")
    late = [q for q in questions if (q.get("ordinal") or 0) >= last_request]
    earlier = len(questions) - len(late)
    if late:
        why.append(f"{_n(len(late), 'check')} never answered"
                   + (" since the last request" if earlier else ""))
    if todos:
        why.append(f"{_n(len(todos), 'todo')} open")
    if ended and ended.get("role") != "assistant":
        why.append("the transcript ends before the agent's reply")
    if cut:
        why.append("the last reply was cut at the output-token limit")
    if why:
        return "open", "; ".join(why)
    if earlier:
        return "done", (f"the agent replied last to the last request; {_n(earlier, 'check')} "
                        "of earlier requests never answered")
    return "done", "the agent replied last, nothing was left open"


def _error_said(ended: dict[str, Any]) -> str:
    """The error a session ended on, as the agent recorded it: ``APIError: You've hit your
    limit · resets 1am``, else the error's class (``APIError``)."""
    text = " ".join(str(ended.get("error_text") or "").split())
    return text or str(ended.get("error"))


def _key_points(series: list[dict[str, Any]], limit: int = 12) -> list[dict[str, Any]]:
    """A few measurements that tell the story: first, largest changes, best, worst, last."""
    if len(series) <= limit:
        return series
    keep = {0, len(series) - 1, max(range(len(series)), key=lambda i: series[i]["value"]),
            min(range(len(series)), key=lambda i: series[i]["value"])}
    changes = sorted(range(1, len(series)), key=lambda i: -abs(
        series[i]["value"] - series[i - 1]["value"]))
    for i in changes:
        if len(keep) >= limit:
            break
        keep.add(i)
    return [series[i] for i in sorted(keep)]


def _measure(m: dict[str, Any]) -> dict[str, Any]:
    return {"value": m["value"], "unit": m["unit"], "label": m.get("label"),
            "ordinal": m["ordinal"], "command": m.get("command")}


def _approach_at(items: list[dict[str, Any]], ordinal: int) -> dict[str, Any] | None:
    hits = [a for a in items if a["kind"] != "goal"
            and any(e["ordinal"] == ordinal and e["role"] == "tested" for e in a["evidence"])]
    return hits[0] if hits else None


def _message_line(store: KbStore, scope: str, ordinal: int) -> str | None:
    """What the assistant said about a result: prose of its message or the next few."""
    evs = store.events(scope, kinds=["decision"], start=ordinal, end=ordinal + 3)
    after = [e for e in evs if e.ordinal > ordinal] + [e for e in evs if e.ordinal == ordinal]
    for ev in after:
        if ev.text and len(ev.text.strip()) > 30:
            return short(" ".join(ev.text.split()), 300)
    return None


def _tried(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per approach or task: snapshots of the same todo merged by their words."""
    rows: list[dict[str, Any]] = []
    for a in items:
        if a["kind"] == "goal":
            continue
        tested = sorted({e["ordinal"] for e in a["evidence"] if e["role"] == "tested"})
        outcome = a.get("cause") or next(
            (e.get("note") for e in reversed(a["evidence"])
             if e["role"] in ("tested", "confirmed") and e.get("note")), "") or ""
        outcome = _without_name(outcome, a["label"])
        want = tokens(a["label"])
        twin = next((r for r in rows if r["name"].lower() == a["label"].lower()
                     or similarity(want, tokens(r["name"])) >= 0.8), None)
        if twin is not None:
            twin["tested"] = sorted(set(twin["tested"]) | set(tested))
            twin["ordinals"] = sorted(set(twin["ordinals"]) | {a["ordinal"]})
            if not twin["outcome"] and outcome:
                twin["outcome"] = outcome
            continue
        rows.append({"name": a["label"], "kind": a["kind"], "status": a["status"],
                     "proposed": a["ordinal"], "tested": tested, "ended": a.get("ended"),
                     "outcome": outcome, "ordinals": [a["ordinal"]]})
    return rows


def _without_name(outcome: str, name: str) -> str:
    """``Baseline with X: 89.5 tok/s`` → ``89.5 tok/s``; an outcome that only repeats the
    name says nothing."""
    o = outcome.strip()
    if o.lower() == name.lower().strip():
        return ""
    if o.lower().startswith(name.lower()):
        o = o[len(name):].lstrip(" :—-–")
    return o


def _dead_ends(dead: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_cause: dict[str, list[dict[str, Any]]] = {}
    for d in dead:
        by_cause.setdefault(d["cause"] or "cause unknown", []).append(d)
    out = []
    for cause, group in sorted(by_cause.items(),
                               key=lambda kv: min(d["ended_at"] or 0 for d in kv[1])):
        rows = []
        for d in group:
            ended = next((e for e in d["evidence"] if e["role"] == "ended"), None)
            rows.append({"name": d["name"], "status": d["status"],
                         "tested": sorted({e["ordinal"] for e in d["evidence"]
                                           if e["role"] == "tested"}),
                         "ended": d["ended_at"],
                         "evidence": sorted({e["ordinal"] for e in d["evidence"]}),
                         "note": ended.get("note") if ended else None,
                         "revisit": d.get("revisit"), "risks": d.get("risks", [])})
        out.append({"cause": cause, "approaches": rows})
    return out


def _open(store: KbStore, scope: str, questions: list[dict[str, Any]],
          items: list[dict[str, Any]], asks: frozenset[int] = frozenset()) -> dict[str, Any]:
    """The untested checks with their caveats (what a later check found, or what the
    user said later: a message at an ordinal of ``asks`` is the user's, no check), and
    the approaches still open."""
    qs = []
    for q in questions:
        caveats = []
        owner = next((a for a in items if any(e["ordinal"] == q["ordinal"]
                                               for e in a["evidence"])), None)
        if owner is not None:
            for e in owner["evidence"]:
                if e["role"] == "tested" and e["ordinal"] > q["ordinal"] and e.get("note"):
                    who = ("the user said later" if e["ordinal"] in asks
                           else "a later check found")
                    caveats.append({"ordinal": e["ordinal"],
                                    "text": f"{who}: {short(e['note'], 200)}"})
        qs.append({"ordinal": q["ordinal"], "question": q["question"], "reason": q["reason"],
                   "host": q.get("host"), "command": q.get("command"), "caveats": caveats})
    open_items = [{"name": a["label"], "kind": a["kind"], "since": a["ordinal"],
                   "risks": a.get("risks", [])}
                  for a in items if a["status"] == "open" and a["kind"] != "goal"]
    return {"untested": qs, "approaches": open_items}


def _next(store: KbStore, scope: str, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    from kb import views

    last = None
    if decisions:
        d = decisions[-1]
        text = d["label"]
        for ev in store.events(scope, kinds=["decision"], start=d["ordinal"],
                               end=d["ordinal"]):
            if ev.text and (ev.classification == "decision" or text.rstrip("…")[:40]
                            in " ".join(ev.text.split())):
                text = ev.text.strip()
                break
        last = {"ordinal": d["ordinal"], "text": text}
    at, todos = views.todo_at(store, scope, store.max_ordinal(scope))
    open_todos = [{"content": t.content, "status": t.status, "priority": t.priority}
                  for t in todos if t.status not in ("completed", "cancelled")]
    return {"last_decision": last, "todos_at": at, "todos": open_todos,
            "todo_total": len(todos)}


def _reproduce(store: KbStore, scope: str, best: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The commands behind the best result: the launch before it and the measuring one."""
    if not best:
        return []
    o = best["ordinal"]
    steps = []
    launches = [e for e in store.events(scope, kinds=["command"], categories=["launch"],
                                        end=o) if e.command]
    if launches:
        e = launches[-1]
        steps.append({"ordinal": e.ordinal, "role": "launch", "host": e.host,
                      "command": e.command})
    for e in store.events(scope, kinds=["command"], start=o, end=o):
        if e.command:
            steps.append({"ordinal": e.ordinal, "role": "measure", "host": e.host,
                          "command": e.command})
    return steps


def _environment(store: KbStore, scope: str, info: dict[str, Any]) -> dict[str, Any]:
    from kb import views

    hosts = [{"host": h, "user": u, "commands": n} for h, u, n in views.host_counts(store, scope)]
    paths: Counter[str] = Counter()
    for cmd in views.command_texts(store, scope):
        for p in _PATH_RE.findall(cmd or ""):
            if p.startswith(_BORING_PATHS) or p.count("/") < 2:
                continue
            paths["/".join(p.split("/")[:3])] += 1
    versions: dict[str, str] = {}
    for out in views.package_outputs(store, scope):
        for rx in _VERSION_RES:
            for m in rx.finditer(out or ""):
                # the last version seen is the one a successor finds
                versions.pop(m.group("name"), None)
                versions[m.group("name")] = m.group("version")
    return {"directory": info.get("directory"), "hosts": hosts,
            "paths": [p for p, _ in paths.most_common(8)],
            "versions": [{"name": k, "version": v} for k, v in list(versions.items())[-16:]]}


def _activity(store: KbStore, scope: str) -> dict[str, Any]:
    """What the session did (commands by category, files edited) and how it ended."""
    from kb import views

    cats = [{"category": c or "other", "commands": n, "failed": f}
            for c, n, f in views.category_counts(store, scope)]
    files: list[str] = []
    for path, patch in views.file_edits(store, scope):
        names = [path] if path else _PATCH_FILE_RE.findall(patch or "")
        for n in names:
            if n and n not in files:
                files.append(n)
    files = files[:12]
    last, prose, compacted = views.how_it_ended(store, scope)
    ended = None
    if last is not None:
        ended = {"ordinal": int(last[0]), "role": last[1], "finish": last[2],
                 "error": last[3], "error_text": last[4],
                 "compacted_at": int(compacted[0]) if compacted and compacted[0] else None,
                 "last_words": ({"ordinal": int(prose[0]), "text": str(prose[1]).strip()}
                                if prose else None)}
    return {"categories": cats, "files_edited": files, "ended": ended}


# ------------------------------------------------------------------ fit
_WIDE_RE = re.compile(f"[{_WIDE}]")


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is, as ``--max-tokens`` counts them: four ASCII
    characters a token, two other characters (accented letters, Cyrillic…) a token, and
    a wide (CJK) character a token of its own, rounded up.  Counted on the text exactly
    as printed (Markdown with its headings, bullets, wrapping and ``left out`` lines, or
    the JSON)."""
    wide = len(_WIDE_RE.findall(text))
    ascii_ = len(text.encode("ascii", "ignore"))
    other = len(text) - ascii_ - wide
    return -(-(ascii_ + 2 * other + 4 * wide) // 4)


def render(data: dict[str, Any], *, max_tokens: int | None = None,
           form: str = "markdown") -> tuple[str, int | None]:
    """The brief as printed, in ``form`` (``markdown`` or ``json``), fitted to
    ``max_tokens`` when given (:func:`fit_tokens`); and its :func:`estimate_tokens` when
    it is still over ``max_tokens`` (even its skeleton, the goal and the status, is
    longer), else ``None``."""
    d = fit_tokens(data, max_tokens, form=form) if max_tokens else data
    text = _RENDERERS[form](d)
    got = estimate_tokens(text)
    return text, (got if max_tokens and got > max_tokens else None)


def _json(d: dict[str, Any]) -> str:
    import orjson

    from kb.safe_text import json_text

    return json_text(orjson.dumps({k: v for k, v in d.items() if not k.startswith("_")},
                                  default=str).decode())


def _markdown_text(d: dict[str, Any]) -> str:
    from kb.safe_text import visible

    return visible(markdown(d))


_RENDERERS = {"markdown": _markdown_text, "json": _json}


def fit_tokens(data: dict[str, Any], max_tokens: int, *, form: str = "markdown"
               ) -> dict[str, Any]:
    """A copy of ``data`` that, printed in ``form``, is at most ``max_tokens`` tokens
    (:func:`estimate_tokens`), or its skeleton when even that is longer: lists are cut
    (the ``omitted`` counts say by how much) and long texts shortened, in rounds, least
    needed first, whole items only (a command is whole or gone); ordinals always stay.
    The skeleton is the goal and the status, and one line saying what was left out."""
    def fits(t: dict[str, Any]) -> bool:
        return estimate_tokens(_RENDERERS[form](t)) <= max_tokens

    d = copy.deepcopy(data)
    levels = [(24, 600), (12, 400), (8, 240), (5, 160), (3, 100), (2, 80), (1, 60)]
    for keep, chars in levels:
        trimmed = _trim(copy.deepcopy(d), keep, chars)
        if fits(trimmed):
            return trimmed
    trimmed = _trim(copy.deepcopy(d), 1, 60)
    # still too long: drop what a successor can look up, least needed first
    drops = [
        lambda t: _drop_environment(t),
        lambda t: _drop_activity(t),
        lambda t: t.update(measurements=_cut(t["measurements"], 0, t, "measurements")),
        lambda t: t.update(reproduce=_cut(t["reproduce"], 1, t, "reproduce")),
        lambda t: _drop_last_words(t),
        lambda t: [a.update(note=None, risks=[], revisit=None)
                   for c in t["dead_ends"] for a in c["approaches"]],
        lambda t: t.update(reproduce=_cut(t["reproduce"], 0, t, "reproduce")),
        lambda t: t.update(tried=_cut(t["tried"], 3, t, "tried")),
        lambda t: t["next"].update(todos=_cut(t["next"]["todos"], 1, t, "todos")),
        lambda t: t["next"]["last_decision"] and t["next"]["last_decision"].update(
            text=_clip(t["next"]["last_decision"]["text"], 160)),
        lambda t: t.update(tried=_cut(t["tried"], 1, t, "tried")),
        # a small budget (--max-tokens 200) still came out at ~600 tokens: one item of
        # each list, the goal in a sentence, no best/baseline (`logkb show` has them)
        lambda t: t.update(dead_ends=_cut(t["dead_ends"], 1, t, "dead_ends")),
        # the request still being worked on and the latest check (:func:`_cut_untested`)
        lambda t: t["open"].update(untested=_cut_untested(t["open"]["untested"], 2, t)),
        lambda t: t["open"].update(approaches=_cut(t["open"]["approaches"], 1, t, "open")),
        lambda t: t["goal"].update(text=short(t["goal"]["text"] or "", 160)),
        lambda t: t["status"].update(best=None, baseline=None, improvement=None),
        # and on to the skeleton (--max-tokens 300 came out at 400-540 tokens): each
        # section goes whole, the brief says how much it left out
        lambda t: t.update(tried=_cut(t["tried"], 0, t, "tried")),
        lambda t: t.update(dead_ends=_cut(t["dead_ends"], 0, t, "dead_ends")),
        lambda t: t["open"].update(approaches=_cut(t["open"]["approaches"], 0, t, "open")),
        lambda t: t["next"].update(todos=_cut(t["next"]["todos"], 0, t, "todos")),
        lambda t: _drop_decision(t),
        lambda t: t["status"].update(last=None),
        # the header's niceties and the sentences of empty sections before the checks
        # the session left open
        lambda t: t.update(_compact=True),
        lambda t: t["open"].update(untested=_cut_untested(t["open"]["untested"], 1, t)),
        lambda t: t["open"].update(untested=_cut_untested(t["open"]["untested"], 0, t)),
        lambda t: t["goal"].update(text=short(t["goal"]["text"] or "", 100)),
        lambda t: t["status"].update(state_why=short(t["status"]["state_why"] or "", 100)),
    ]
    skeleton = len(drops) - 11  # the drops from here on leave whole sections out
    before: list[dict[str, Any]] = []
    for i, drop in enumerate(drops):
        if fits(trimmed):
            break
        if i >= skeleton:
            before.append(copy.deepcopy(trimmed))
        drop(trimmed)
    # a section dropped whole may have left room for the one after it (a long cause went,
    # the first approach fits again): each is given back, most needed first, if it fits
    for key in ("untested", "dead_ends", "decision", "tried", "todos", "open"):
        for state in before:
            back = _give_back(trimmed, state, key)
            if back is not None and fits(back):
                trimmed = back
                break
    return trimmed


_SECTIONS: dict[str, tuple[str, ...]] = {
    "tried": ("tried",), "dead_ends": ("dead_ends",), "open": ("open", "approaches"),
    "untested": ("open", "untested"), "todos": ("next", "todos"),
    "decision": ("next", "last_decision")}


def _give_back(d: dict[str, Any], state: dict[str, Any], key: str) -> dict[str, Any] | None:
    """``d`` with the section ``key`` as it was in ``state`` (an earlier round of the
    fit), its ``omitted`` count with it; ``None`` when that gives nothing back."""
    *path, last = _SECTIONS[key]

    def at(x: dict[str, Any]) -> dict[str, Any]:
        for p in path:
            x = x[p]
        return x

    was, now = at(state)[last], at(d)[last]
    if not was or (now and len(now) >= len(was)) or was == now:
        return None
    out = copy.deepcopy(d)
    at(out)[last] = copy.deepcopy(was)
    n = (state.get("omitted") or {}).get(key)
    if n:
        out.setdefault("omitted", {})[key] = n
    else:
        out.get("omitted", {}).pop(key, None)
    return out


def _drop_last_words(d: dict[str, Any]) -> None:
    """The assistant's last words, left out (and counted)."""
    ended = d["activity"]["ended"]
    if ended and ended.get("last_words"):
        ended["last_words"] = None
        d.setdefault("omitted", {})["last_words"] = 1


def _drop_decision(d: dict[str, Any]) -> None:
    """The last decision, left out (and counted)."""
    if d["next"]["last_decision"]:
        d["next"]["last_decision"] = None
        d.setdefault("omitted", {})["decision"] = 1


def _drop_environment(d: dict[str, Any]) -> None:
    """The environment section, left out (and counted: the brief says so)."""
    env = d["environment"]
    n = sum(len(env.get(k) or []) for k in ("hosts", "paths", "versions")) + bool(
        env.get("directory"))
    if n:
        d.setdefault("omitted", {})["environment"] = n
    d["environment"] = {"directory": None, "hosts": [], "paths": [], "versions": []}


def _drop_activity(d: dict[str, Any]) -> None:
    """The kinds of commands and the files edited, left out (and counted)."""
    act = d["activity"]
    n = len(act["categories"]) + len(act["files_edited"])
    if n:
        d.setdefault("omitted", {})["activity"] = n
    act.update(categories=[], files_edited=[])


def _cut(lst: list[Any], keep: int, d: dict[str, Any], key: str) -> list[Any]:
    if len(lst) > keep:
        d.setdefault("omitted", {})[key] = d.get("omitted", {}).get(key, 0) + len(lst) - keep
        return lst[len(lst) - keep:] if key in ("tried", "reproduce") else lst[:keep]
    return lst


def _cut_untested(qs: list[dict[str, Any]], keep: int, d: dict[str, Any]) -> list[dict[str, Any]]:
    """The latest ``keep`` open checks (those of the last request, which the state
    counts), and the request the agent was still working on when the transcript ends
    (``what «…» asked for``) whatever its age: what a successor picks up first."""
    if len(qs) <= keep:
        return qs
    asked = [q for q in qs if q["question"].startswith("what «")][-1:]
    rest = [q for q in qs if q not in asked]
    kept = (asked + rest[len(rest) - max(keep - len(asked), 0):] if keep > len(asked)
            else asked[:keep])
    d.setdefault("omitted", {})["untested"] = (d.get("omitted", {}).get("untested", 0)
                                               + len(qs) - len(kept))
    return sorted(kept, key=lambda q: q["ordinal"])


def _trim(d: dict[str, Any], keep: int, chars: int) -> dict[str, Any]:
    d["goal"]["prompt"] = None
    if len(d["tried"]) > keep * 2:
        # open items are listed under "Open and untested" too: they go first
        closed = [r for r in d["tried"] if r["status"] != "open"]
        d.setdefault("omitted", {})["tried"] = len(d["tried"]) - len(closed)
        d["tried"] = closed
    d["tried"] = _cut(d["tried"], keep * 2, d, "tried")
    for r in d["tried"]:
        r["outcome"] = short(r["outcome"] or "", chars // 2)
        r["tested"] = r["tested"][:keep + 2]
    d["measurements"] = _cut(d["measurements"], keep + 2, d, "measurements")
    d["dead_ends"] = _cut(d["dead_ends"], keep * 2, d, "dead_ends")
    for c in d["dead_ends"]:
        for a in c["approaches"]:
            a["note"] = short(a["note"] or "", chars // 2) or None
            a["risks"] = [short(r, chars // 2) for r in a["risks"][:1]]
            a["revisit"] = short(a["revisit"] or "", chars // 2) or None
    d["open"]["untested"] = _cut_untested(d["open"]["untested"], keep * 2, d)
    for q in d["open"]["untested"]:
        # a command is whole or gone (its ordinal stays: `logkb show N` has it)
        if q["command"] and len(q["command"]) > chars // 2:
            q["command"] = None
    d["open"]["approaches"] = _cut(d["open"]["approaches"], keep * 2, d, "open")
    nxt = d["next"]
    if nxt["last_decision"]:
        nxt["last_decision"]["text"] = _clip(nxt["last_decision"]["text"], chars * 2)
    nxt["todos"] = _cut(nxt["todos"], keep * 2, d, "todos")
    # commands to paste are never cut in half: fewer steps, each whole
    d["reproduce"] = _cut(d["reproduce"], keep + 1, d, "reproduce")
    if d["status"].get("best"):
        b = d["status"]["best"]
        b["command"] = None
        b["message"] = short(b["message"] or "", chars // 2) or None
    if d["status"].get("baseline"):
        d["status"]["baseline"]["command"] = None
    env = d["environment"]
    env["hosts"] = env["hosts"][:keep + 1]
    env["paths"] = env["paths"][:keep + 1]
    env["versions"] = env["versions"][:keep * 2]
    act = d["activity"]
    act["categories"] = act["categories"][:keep + 3]
    act["files_edited"] = act["files_edited"][:keep + 2]
    if act["ended"] and act["ended"].get("last_words"):
        lw = act["ended"]["last_words"]
        lw["text"] = _clip(lw["text"], chars)
    return d


# ------------------------------------------------------------------ write
def _inline(command: str, ordinal: int, limit: int = 400) -> str:
    """A command in a line of prose: whole, or (too long for a line) a pointer to where
    it is shown whole, never cut in half."""
    one = _one(command)
    return f"`{one}`" if len(one) <= limit else (
        f"a command of {len(one)} characters (`logkb show {ordinal}`)")


_CUT_COMMAND = re.compile(r"`[^`\n]*…`")
"""A command the graph shortened inside a question's words (``what does `cd … &&
php -S localho…` report?``)."""


def _question(q: dict[str, Any]) -> tuple[str, list[str]]:
    """A question's words with its command whole, and the lines of a code block when the
    command does not fit on one line: a command is never shown cut in half (the brief is
    pasted to another agent, which would run it).  Without its command (``--max-tokens``
    left it out) the question names the message that has it."""
    text = _one(q["question"])
    if not _CUT_COMMAND.search(text):
        return text, []
    cmd = q.get("command")
    if not cmd:
        return _CUT_COMMAND.sub(lambda _: f"the command at [{q['ordinal']}]", text, 1), []
    if "\n" not in cmd and "`" not in cmd:
        return _CUT_COMMAND.sub(lambda _: f"`{cmd}`", text, 1), []
    fence = "~~~~" if "```" in cmd or "~~~" in cmd else "```"
    return (_CUT_COMMAND.sub(lambda _: "the command below", text, 1),
            ["", f"  {fence}", *("  " + ln for ln in cmd.splitlines()), f"  {fence}", ""])


def _n(n: int, word: str) -> str:
    """``1 check``, ``2 checks``."""
    return f"{n} {word if n == 1 else word + 's'}"


def _count(n: int, key: str) -> str:
    """``3 approaches``, ``1 approach``: what ``omitted[key]`` counts."""
    one, many = OMITTED.get(key, (key.replace("_", " "), key.replace("_", " ")))
    return f"{n} {one if n == 1 else many}" if not one.startswith("the ") else one


def _said(label: str | None) -> str:
    """A reading's label after its value and unit, with the space before it; nothing for
    a reading with none (``2 files changed``, not ``2 files changed  [19]``)."""
    one = _one(label)
    return f" {one}" if one else ""


def _one(s: str | None) -> str:
    """``s`` on one line; a code span the graph cut short (``took away `DST="$HOME/…``)
    closed, so that what follows it is prose again."""
    one = " ".join((s or "").split())
    return one + "`" if one.count("`") % 2 else one


def _clip(text: str, chars: int) -> str:
    """``text`` cut to about ``chars`` characters at the end of a line, a code block
    it cuts closed and the cut marked (``…``): Markdown quoted as it was written, never
    a block of code flattened into a line."""
    if len(text) <= chars:
        return text
    out: list[str] = []
    used, fence = 0, ""
    for line in text.splitlines():
        if used + len(line) > chars:
            break
        out.append(line)
        used += len(line) + 1
        m = _FENCE.match(line)
        if m:
            fence = "" if fence and m.group(1).startswith(fence) else (fence or m.group(1))
    if not out:
        first = _without_fences(text).strip().splitlines()[0]
        return _one(short(first, chars))
    return "\n".join([*out, *([fence] if fence else []), "…"])


def _ords(values: list[int], limit: int = 8) -> str:
    if not values:
        return "-"
    more = f" (+{len(values) - limit})" if len(values) > limit else ""
    return ", ".join(map(str, values[:limit])) + more


OMITTED: dict[str, tuple[str, str]] = {
    "tried": ("approach", "approaches"), "dead_ends": ("cause of dead ends",
                                                      "causes of dead ends"),
    "measurements": ("measurement", "measurements"),
    "untested": ("untested check", "untested checks"),
    "open": ("open approach", "open approaches"), "todos": ("open todo", "open todos"),
    "decision": ("the last decision", "the last decision"),
    "reproduce": ("step to reproduce", "steps to reproduce"),
    "environment": ("environment line", "environment lines"),
    "activity": ("command kind or edited file", "command kinds and edited files"),
    "last_words": ("the last words", "the last words"),
}
"""What ``omitted`` counts, by its key, as the brief says it (``--max-tokens``)."""


def markdown(d: dict[str, Any], *, max_tokens: int | None = None) -> str:
    """The brief as Markdown, its prose wrapped at :data:`WIDTH` columns
    (:func:`wrap_markdown`: commands stay whole), ``max_tokens``: shortened with
    :func:`fit_tokens` first."""
    if max_tokens:
        d = fit_tokens(d, max_tokens)
    return wrap_markdown(_markdown(d))


def _markdown(d: dict[str, Any]) -> str:
    s = d["session"]
    compact = bool(d.get("_compact"))
    omitted = d.get("omitted") or {}
    title = s["title"] if s["title"] and request_text(s["title"]) == s["title"].strip() \
        and not is_greeting(s["title"]) and not s.get("title_rewound") \
        and not is_command_line(s["title"]) \
        else d["goal"]["text"] or s["id"]
    out = [_fit_cells(f"# Hand-off: {' '.join(title.split())}"), ""]
    if compact:
        out += [f"Session `{s['id']}` · {s['messages']} messages · {s['commands']} "
                "commands", ""]
    else:
        out += [f"Session `{s['id']}` · {s['messages']} messages · {s['commands']} "
                f"commands · source {s['source_form']}"
                + (" (a rewrite: not the agent's own output, no tool calls or outputs)"
                   if s["source_form"] == "rewrite" else "") + _usage(s), "",
                "Numbers in brackets are message ordinals: `logkb show N` shows one.", ""]
    g = d["goal"]
    out += ["## Goal", "", f"{g['text']}" + (f" [{g['ordinal']}]" if g["ordinal"] else ""), ""]
    if g.get("prompt") and g["prompt"].strip() and g["prompt"].strip() != g["text"]:
        out += ["<details><summary>The first prompt</summary>", "",
                _clip(g["prompt"].strip(), 1500), "", "</details>", ""]
    out += ["## Status", ""]
    st = d["status"]
    if st.get("state"):
        out.append(f"- State: **{st['state']}** ({_one(st.get('state_why') or '')})")
    # None: no recorded check says whether the goal was met ("unknown" read as "the
    # goal is unknown" right under the Goal section)
    met = {True: "**met**", False: "**not met**", None: "not judged"}[st["goal_met"]]
    out.append(f"- Goal: {met}" + (f" (the goal is {st['goal_status'].replace('_', ' ')})"
                                   if st.get("goal_status") else ""))
    if st["best"]:
        b = st["best"]
        out.append(f"- Best: **{b['value']:g} {b['unit']}**{_said(b['label'])} "
                   f"[{b['ordinal']}]" + (f", with {_one(b['approach'])}" if b.get("approach")
                                          else ""))
        launch = next((r for r in d["reproduce"] if r["role"] == "launch"), None)
        if launch is not None:
            out.append(f"  - configuration [{launch['ordinal']}]: "
                       + _inline(launch["command"], launch["ordinal"]))
        if b.get("command"):
            out.append("  - measured by: " + _inline(b["command"], b["ordinal"]))
        if b.get("message"):
            out.append(f"  - said [{b['ordinal']}+]: {_one(b['message'])}")
    if st["baseline"]:
        base = st["baseline"]
        gain = (f" ({st['improvement']:+g}% for the best)"
                if st.get("improvement") is not None else "")
        out.append(f"- Baseline: {base['value']:g} {base['unit']}{_said(base['label'])} "
                   f"[{base['ordinal']}]{gain}")
    if not st["best"] and st.get("last"):
        out.append(_markdown_last(st["last"], one=direction(st["last"]["unit"] or "")
                                  is not None))
    elif not st["best"] and not st["baseline"] and not compact:
        out.append("- No throughput measurement was recorded.")
    ended = d["activity"]["ended"]
    if ended:
        how = (short(_error_said(ended), 120) if ended.get("error")
               else f"finish: {ended['finish']}" if ended.get("finish")
               else f"last message from the {ended['role']}")
        out.append(f"- Ended at message {ended['ordinal']} ({_one(how)})"
                   + (f"; the context was compacted at [{ended['compacted_at']}]"
                      if ended.get("compacted_at") else ""))
    todo_all = d["next"].get("todo_total")
    if todo_all:
        out.append(f"- Todos: {todo_all - len(d['next']['todos']) - omitted.get('todos', 0)} "
                   f"of {todo_all} done or cancelled")
    out.append("")
    shown = {"tried": d["tried"], "dead_ends": d["dead_ends"],
             "measurements": d["measurements"], "untested": d["open"]["untested"],
             "open": d["open"]["approaches"], "todos": d["next"]["todos"],
             "reproduce": d["reproduce"]}
    gone = [k for k in omitted if compact or not shown.get(k)]
    if gone:
        # whole sections left out: said once, under the status
        out += ["Left out to fit --max-tokens: " + ", ".join(
            _count(omitted[k], k) for k in gone) + ".", ""]

    def left(key: str) -> list[str]:
        """Under a list the fit cut short: how many more it had."""
        n = omitted.get(key)
        return [] if not n or key in gone else [
            f"({n} more {_count(n, key).split(' ', 1)[1]} left out to fit --max-tokens)",
            ""]

    if d["tried"]:
        out += ["## What was tried", ""]
        for r in d["tried"]:
            out.append(f"- **{_one(r['name'])}** ({r['status']}): proposed [{r['proposed']}]"
                       + (f", tested [{_ords(r['tested'], 5)}]" if r["tested"] else "")
                       + (f", ended [{r['ended']}]" if r["ended"] else "")
                       + (f" — {_one(short(r['outcome'] or '', 120))}" if r["outcome"]
                          else ""))
        out += [""] + left("tried")
    elif omitted.get("tried"):
        out += left("tried")
    if d["dead_ends"] or not (omitted.get("dead_ends") or compact):
        out += ["## Dead ends, by cause", ""]
    if not d["dead_ends"] and not (omitted.get("dead_ends") or compact):
        out += ["No approach was recorded as a dead end.", ""]
    for c in d["dead_ends"]:
        head = f"### {_one(c['cause'])}"
        out.append(_fit_cells(head))
        if cells(head) > WIDTH:  # a heading does not wrap: the cause in full under it
            out += ["", f"Cause: {_one(c['cause'])}", ""]
        for a in c["approaches"]:
            out.append(f"- **{_one(a['name'])}** ({a['status']}): tested "
                       f"[{_ords(a['tested'])}], ended [{a['ended']}]"
                       + (f" — {_one(a['note'])}" if a.get("note") else "")
                       + f"; evidence [{_ords(a['evidence'], 10)}]")
            for r in a.get("risks") or []:
                out.append(f"  - risk: {_one(r)}")
            if a.get("revisit"):
                out.append(f"  - revisit: {_one(a['revisit'])}")
        out.append("")
    out += left("dead_ends")
    if d["measurements"]:
        out += ["## Measurements (throughput)", ""]
        for m in d["measurements"]:
            out.append(f"- [{m['ordinal']}] {m['value']:g} {m['unit']}{_said(m['label'])}")
        out.append("")
    out += left("measurements")
    op = d["open"]
    if op["untested"] or op["approaches"] or not (omitted.get("untested")
                                                   or omitted.get("open") or compact):
        out += ["## Open and untested", ""]
        if not op["untested"] and not op["approaches"]:
            out += ["Nothing was left open or untested.", ""]
    out += left("untested")
    for q in op["untested"]:
        asked, block = _question(q)
        out.append(f"- untested [{q['ordinal']}]: {asked} — {_one(q['reason'])}")
        out += block
        for c in q["caveats"]:
            out.append(f"  - caveat [{c['ordinal']}]: {_one(c['text'])}")
    for a in op["approaches"]:
        out.append(f"- open since [{a['since']}]: {_one(a['name'])}")
        for r in a["risks"]:
            out.append(f"  - risk: {_one(r)}")
    if op["untested"] or op["approaches"]:
        out.append("")
    out += left("open")
    nxt = d["next"]
    cut_next = omitted.get("decision") or omitted.get("todos") or compact
    if nxt["last_decision"] or nxt["todos"] or not cut_next:
        out += ["## Next steps", ""]
    if nxt["last_decision"]:
        ld = nxt["last_decision"]
        out += [f"The last decision [{ld['ordinal']}]:", ""]
        out += ["> " + line if line else ">" for line in ld["text"].splitlines()]
        out.append("")
    out += left("decision")
    if nxt["todos"]:
        out.append(f"Open todos (as of [{nxt['todos_at']}]):")
        out.append("")
        for t in nxt["todos"]:
            out.append(f"- [ ] {_one(t['content'])} ({t['status']})")
        out.append("")
    out += left("todos")
    if not nxt["last_decision"] and not nxt["todos"] and not cut_next:
        out += ["No decision or open todo was recorded.", ""]
    if d["reproduce"]:
        out += ["## Reproduce the best result", ""]
        for step in d["reproduce"]:
            where = f" on {step['host']}" if step.get("host") else ""
            fence = "~~~~" if "```" in step["command"] else "```"
            out += [f"{step['role']} [{step['ordinal']}]{where}:", "", f"{fence}sh",
                    step["command"], fence, ""]
    out += left("reproduce")
    env = d["environment"]
    if env["hosts"] or env["paths"] or env["versions"] or env.get("directory"):
        out += ["## Environment", ""]
        if env.get("directory"):
            out.append(f"- working directory: `{env['directory']}`")
        for h in env["hosts"]:
            user = f"{h['user']}@" if h.get("user") else ""
            out.append(f"- host `{user}{h['host']}` ({h['commands']} commands)")
        if env["paths"]:
            out.append("- paths: " + ", ".join(f"`{p}`" for p in env["paths"]))
        if env["versions"]:
            out.append("- versions seen: " + ", ".join(f"{v['name']} {v['version']}"
                                                        for v in env["versions"]))
        out.append("")
    out += left("environment")
    act = d["activity"]
    if act["categories"] or act["files_edited"] or (act["ended"] or {}).get("last_words"):
        out += ["## What the session did", ""]  # a heading with nothing under it: none
    out += left("activity")
    if act["categories"]:
        out.append("- commands: " + ", ".join(
            f"{c['commands']} {c['category']}" + (f" ({c['failed']} failed)" if c["failed"]
                                                  else "") for c in act["categories"]))
    if act["files_edited"]:
        # named from the working directory when they are under it: twelve absolute paths
        # ran each line past 80 columns (a code span is never broken)
        top = (env.get("directory") or "").rstrip("/")
        under = bool(top) and any(f.startswith(top + "/") for f in act["files_edited"])
        out.append((f"- files edited in `{top}`: " if under else "- files edited: ")
                   + ", ".join(f"`{f[len(top) + 1:] if under and f.startswith(top + '/') else f}`"
                               for f in act["files_edited"]))
    if act["ended"] and act["ended"].get("last_words"):
        lw = act["ended"]["last_words"]
        out += ["", f"How it ended, the assistant's last words [{lw['ordinal']}]:", ""]
        out += ["> " + line if line else ">" for line in lw["text"].splitlines()]
    out.append("")
    text = "\n".join(line for line in out if line is not None)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


def _markdown_last(last: dict[str, Any], *, one: bool) -> str:
    """The status's last reading when there is no best: ``one`` reading of a quantity
    with a better side says why there is no best; a quantity with no better side (an
    HTTP status, a percentage) says nothing of sides."""
    return (f"- Last reading: {last['value']:g} {last['unit']}{_said(last['label'])} "
            f"[{last['ordinal']}]" + (" (one reading: no best)" if one else ""))


# ------------------------------------------------------------------ wrap
WIDTH = 80
"""The columns the Markdown brief fits: its prose wraps there (a command does not)."""

_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
_DRAWING = re.compile(r"[\u2500-\u257f]{2}")
"""Box drawing (``├──``, ``└──``, a table's ``─┼─``): a line holding it is a drawing."""
_MARKER = re.compile(r"^([ \t]*)((?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?")
_UNIT = re.compile(f"(\\s+)|(`[^`\\n]*`[^\\s`{_WIDE}]*)|([{_WIDE}])|([^\\s`{_WIDE}]+|`)")
"""What a line wraps between: spaces; a code span (with what sticks to it: a command is
never cut); a wide (CJK) character, between which lines may break; any other word."""


def _fit_cells(line: str, width: int = WIDTH) -> str:
    """``line`` cut to ``width`` columns (``…`` where it was cut): a heading, which
    does not wrap."""
    if cells(line) <= width:
        return line
    head = _one(fit(line, width))  # a code span cut open is closed: one column more
    return head if cells(head) <= width else _one(fit(line, width - 1))


def wrap_markdown(text: str, width: int = WIDTH) -> str:
    """Markdown with its prose lines wrapped at ``width`` columns, each continuation
    under its list item's text (and in its quote).  Cut with ``…`` (wrapped, they would
    be no table, no code): the rows of a table the agent wrote and its quoted code
    lines; a code span already cut (``…``) is cut further, a word longer than a line is
    cut.  Left whole: the brief's own fenced code and a whole code span longer than a
    line, which gets a line of its own (a command is never cut in half)."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        quote_m = _QUOTE.match(line)
        quote = quote_m.group(0) if quote_m else ""
        body = line[len(quote):]
        m = _FENCE.match(body)
        if fence:
            if m and m.group(1).startswith(fence):
                fence = ""
            # quoted code (the agent's words) is cut to fit; a brief's own block is a
            # command: whole
            out.append(_cut_line(line, width) if quote else line)
            continue
        if m:
            fence = m.group(1)
            out.append(_cut_line(line, width) if quote else line)
            continue
        if cells(line) <= width:
            out.append(line)
            continue
        if body.lstrip().startswith("|") or _DRAWING.search(body):
            # a table row or a tree drawing, wrapped, is no row and no drawing: cut
            out.append(_cut_line(line, width))
            continue
        mk = _MARKER.match(body)
        indent, marker = (mk.group(1), mk.group(2) or "") if mk else ("", "")
        first = quote + indent + marker
        more = (quote + indent + " " * len(marker)) if not body.lstrip().startswith("#") \
            else quote
        out += [_fit_wrapped(ln, width)
                for ln in _wrap_line(body[len(indent) + len(marker):], first, more, width)]
    return "\n".join(out)


_CUT_SPAN = re.compile(r"`([^`\n]*)…`")
_WHOLE_SPAN = re.compile(r"`[^`\n…]*`")


def _fit_wrapped(line: str, width: int) -> str:
    """A wrapped line cut to ``width`` columns when it is still wider: a code span the
    graph already cut (``…`` in it) is cut further, from its end; what is left too wide
    is cut with ``…``, unless a whole code span (a command, a path: never cut) makes
    it so."""
    over = cells(line) - width
    if over <= 0:
        return line
    for m in reversed(list(_CUT_SPAN.finditer(line))):
        body = m.group(1)
        keep = cut(body, max(cells(body) - over, 1)).rstrip()
        line = line[:m.start()] + f"`{keep}…`" + line[m.end():]
        over = cells(line) - width
        if over <= 0:
            return line
    if cells(line) - sum(cells(w) for w in _WHOLE_SPAN.findall(line)) <= width:
        return line
    return _cut_line(line, width)


def _cut_line(line: str, width: int) -> str:
    """``line`` cut to ``width`` columns with ``…``, its spacing kept (a quoted code
    line's indent, a list item's), a code span cut open closed."""
    if cells(line) <= width:
        return line
    head = fit(line, width - 1)
    return head + "`" if head.count("`") % 2 else head


@functools.lru_cache(maxsize=4096)  # --max-tokens re-renders the same lines many times
def _wrap_line(text: str, first: str, more: str, width: int) -> tuple[str, ...]:
    # words: what no space separates sticks together ("(`a b`)."), but a line may
    # break between wide characters
    # (a word's pieces joined once: adding each to the word again was quadratic)
    words: list[list[Any]] = []  # [its pieces, the spaces before it, wide]
    space = 0
    for m in _UNIT.finditer(text):
        if m.group(1):  # a run of spaces is kept on a line ("src/  # entry")
            space = len(m.group(1)) if m.group(1).strip(" ") == "" else 1
            continue
        wide = bool(m.group(3))
        if words and not space and not wide and not words[-1][2]:
            words[-1][0].append(m.group(0))
        else:
            words.append([[m.group(0)], space, wide])
        space = 0
    lines: list[str] = []
    cur, used, empty = first, cells(first), True
    for pieces, spaced, _ in words:
        word = "".join(pieces)
        gap = spaced if not empty else 0
        w = cells(word)
        if not empty and used + gap + w > width:
            lines.append(cur.rstrip())
            cur, used, gap = more, cells(more), 0
        cur += " " * gap + word
        used += gap + w
        empty = False
    lines.append(cur.rstrip())
    return tuple(lines)


def _usage(s: dict[str, Any]) -> str:
    """The tokens line: total, its parts, and the cost (``unknown`` when no model of the
    session has a price; ``≥`` when some have none)."""
    from kb.views import tokens_text, usage_cost_text

    if not s.get("tokens_total"):
        return ""
    parts = ", ".join(f"{tokens_text(s.get(k) or 0)} {name}" for k, name in (
        ("tokens_input", "in"), ("tokens_output", "out"),
        ("tokens_cache_read", "cache read"), ("tokens_cache_write", "cache write"))
        if s.get(k))
    cost = usage_cost_text({"tokens_total": s["tokens_total"], "priced_cost": s.get("cost"),
                            "unpriced": 0 if s.get("cost_complete", True) else 1})
    return f"\n\nTokens: {tokens_text(s['tokens_total'])} ({parts}) · cost {cost}"


__all__ = ["EXPORT_RULES", "ExportRule", "brief", "first_request", "fit_tokens", "is_export",
           "markdown", "request_text"]
