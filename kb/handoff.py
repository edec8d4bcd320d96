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

``--max-tokens N`` (:func:`fit_tokens`) shortens lists and texts until the brief
fits about N tokens (4 characters a token); every claim keeps its ordinals.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections import Counter
from typing import Any

from kb.graph import store as gs
from kb.graph.report import throughput
from kb.graph.text import short, similarity, tokens
from kb.store import KbStore
from logparse.request import is_greeting, request_text
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


# ------------------------------------------------------------------ gather
def brief(store: KbStore, scope: str) -> dict[str, Any]:
    """Everything the brief says, as plain data (``logkb handoff --json``)."""
    from kb import views

    scopes = [scope]
    info = store.session(scope)
    usage = views.session_usage(store, [scope]).get(scope, {})
    items = gs.approaches(store, scopes)
    dead = gs.dead_ends(store, scopes)
    questions = gs.untested(store, scopes, include_answered=False)
    decisions = gs.decisions(store, scopes)
    # the user's own prompts: text an agent or its IDE injected is stored as synthetic
    own = store.events(scope, kinds=["prompt"], sources=["text"])
    prompt = first_request(own[:12])
    asks = [p.ordinal for p in own if len(request_text(p.text or "")) >= 2]
    last_ask = asks[-1] if asks else 0
    # the call that copies the transcript, still running at its end, is no open check:
    # the transcript is its answer (EXPORT_RULES)
    exports = [q for q in questions
               if (q.get("ordinal") or 0) >= last_ask and is_export(q.get("command"))]
    questions = [q for q in questions if q not in exports]
    goal_items = [a for a in items if a["kind"] == "goal"]
    goal_text = goal_items[0]["label"] if goal_items else _goal_line(
        prompt[0].text if prompt else "")
    series = throughput(store, scopes)
    status = _status(store, scope, series, goal_items, items)
    activity = _activity(store, scope)
    nxt = _next(store, scope, decisions)
    status["state"], status["state_why"] = _state(activity, questions, nxt["todos"], dead,
                                                  last_ask)
    status["exported_at"] = exports[-1]["ordinal"] if exports else None
    if exports:
        status["state_why"] += (f"; the transcript ends on its own export "
                                f"[{exports[-1]['ordinal']}]")
    # pasted into tickets and handed to other agents: redacted whatever each part read
    return store.redactor.hiding().value({
        "session": {"id": scope, "title": info["title"], "messages": info["messages"],
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


def first_request(prompts: list[Any]) -> list[Any]:
    """The first prompt event that holds a real request, its text without what was
    injected (``[]`` when there is none).  A prompt a reader marked ``synthetic`` (or
    ``ignored``) is none, whatever its text."""
    for p in prompts:
        if getattr(p, "source", None) in ("synthetic", "ignored"):
            continue
        text = request_text(p.text or "")
        if len(text) >= 2:
            return [dataclasses.replace(p, text=text)]
    return []


def _goal_line(text: str | None) -> str:
    """One line of the first prompt: its "Goal:" sentence, else its first sentence that
    is no greeting ("hi! we're in a new folder…": the folder, not the "hi!")."""
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
    flat = " ".join(text.split())
    first, _, rest = _split_sentence(flat)
    if is_greeting(first) and rest.strip():
        first = _first_sentence(rest)
    return short(first, 200)


def _split_sentence(text: str) -> tuple[str, str, str]:
    first, rest = _sentence_cut(text, ".!?,")
    if not is_greeting(first):  # a comma ends a greeting only ("hi, can you…")
        first, rest = _sentence_cut(text, ".!?")
    return first, " ", rest


def _first_sentence(text: str) -> str:
    return _sentence_cut(text, ".!?")[0]


_NOT_AN_END = re.compile(r"\s(?:\d{1,3}|e\.g|i\.e|etc|vs|cf|approx|Mr|Dr)\.$",
                         re.I)
"""What a sentence does not end with: a list number ("containing: 1. Build…", "ADd
1. Re-enable…") or an abbreviation."""


def _sentence_cut(text: str, ends: str) -> tuple[str, str]:
    """``text`` cut after its first sentence (ending in one of ``ends`` and a space)."""
    for m in re.finditer(f"[{re.escape(ends)}]\\s", text):
        head = text[:m.start() + 1]
        if head.endswith(".") and _NOT_AN_END.search(" " + head[-9:]):
            continue
        return head, text[m.end():]
    return text, ""


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
    if sign is None:
        # a quantity with no better side (a size, a count, a percentage): the last reading
        # is what there is, and no reading is the "best"
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


_HIGHER_UNITS = frozenset({"tps", "qps", "iops", "tflops", "gflops", "fps", "passed",
                           "tests passed", "gbit/s", "mbit/s", "kbit/s", "bit/s"})
_LOWER_UNITS = frozenset({"ns", "µs", "ms", "s", "min", "h", "failed", "errors", "failures",
                          "warnings", "vulnerabilities", "data races", "ns/op", "b/op",
                          "allocs/op", "tsc errors"})


def direction(unit: str) -> int | None:
    """Which way a quantity gets better: ``1`` higher (a rate, tests passed), ``-1``
    lower (a duration, a latency, errors, failures), ``None`` when no side is better
    (a size, a count of things, a percentage, an HTTP status)."""
    u = unit.strip().lower()
    if u in _HIGHER_UNITS or u.endswith(("/s", "/sec")):
        return 1
    if u in _LOWER_UNITS:
        return -1
    return None


def _state(activity: dict[str, Any], questions: list[dict[str, Any]],
           todos: list[dict[str, Any]], dead: list[dict[str, Any]],
           last_request: int = 0) -> tuple[str, str]:
    """``done``, ``open`` or ``blocked``, from how the session ended and what it left:
    blocked when it ended on an error (a provider error, an abort) or its last ended
    approach is blocked; open when a check of the last request (at ``last_request`` or
    after) went unanswered, a todo is open or the agent had not replied last; done
    otherwise.  A check left unanswered under an earlier request, which the session went
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
    late = [q for q in questions if (q.get("ordinal") or 0) >= last_request]
    earlier = len(questions) - len(late)
    if late:
        why.append(f"{len(late)} check(s) never answered"
                   + (" since the last request" if earlier else ""))
    if todos:
        why.append(f"{len(todos)} todo(s) open")
    if ended and ended.get("role") != "assistant":
        why.append("the transcript ends before the agent's reply")
    if cut:
        why.append("the last reply was cut at the output-token limit")
    if why:
        return "open", "; ".join(why)
    if earlier:
        return "done", (f"the agent replied last to the last request; {earlier} check(s) "
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
def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is (four characters a token), as --max-tokens counts."""
    return len(text) // 4 + 1


_estimate = estimate_tokens


def fit_tokens(data: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """A copy of ``data`` whose Markdown fits about ``max_tokens`` tokens: lists are cut
    (the ``omitted`` counts say by how much) and long texts shortened, in rounds, least
    needed first; ordinals always stay."""
    d = copy.deepcopy(data)
    levels = [(24, 600), (12, 400), (8, 240), (5, 160), (3, 100), (2, 80), (1, 60)]
    for keep, chars in levels:
        trimmed = _trim(copy.deepcopy(d), keep, chars)
        if _estimate(markdown(trimmed)) <= max_tokens:
            return trimmed
    trimmed = _trim(copy.deepcopy(d), 1, 60)
    # still too long: drop what a successor can look up, least needed first
    drops = [
        lambda t: _drop_environment(t),
        lambda t: _drop_activity(t),
        lambda t: t.update(measurements=[]),
        lambda t: t.update(reproduce=t["reproduce"][-1:]),
        lambda t: t["activity"]["ended"] and t["activity"]["ended"].update(last_words=None),
        lambda t: [a.update(note=None, risks=[], revisit=None)
                   for c in t["dead_ends"] for a in c["approaches"]],
        lambda t: t.update(reproduce=[]),
        lambda t: t.update(tried=_cut(t["tried"], 3, t, "tried")),
        lambda t: t["next"].update(todos=_cut(t["next"]["todos"], 1, t, "todos")),
        lambda t: t["next"]["last_decision"] and t["next"]["last_decision"].update(
            text=short(t["next"]["last_decision"]["text"], 160)),
        lambda t: t.update(tried=_cut(t["tried"], 1, t, "tried")),
        # a small budget (--max-tokens 200) still came out at ~600 tokens: one item of
        # each list, the goal in a sentence, no best/baseline (`logkb show` has them)
        lambda t: t.update(dead_ends=_cut(t["dead_ends"], 1, t, "dead_ends")),
        # the request still being worked on and the latest check (:func:`_cut_untested`)
        lambda t: t["open"].update(untested=_cut_untested(t["open"]["untested"], 2, t)),
        lambda t: t["open"].update(approaches=_cut(t["open"]["approaches"], 1, t, "open")),
        lambda t: t["goal"].update(text=short(t["goal"]["text"] or "", 160)),
        lambda t: t["status"].update(best=None, baseline=None),
    ]
    for drop in drops:
        if _estimate(markdown(trimmed)) <= max_tokens:
            break
        drop(trimmed)
    return trimmed


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
        return lst[-keep:] if key in ("tried", "reproduce") else lst[:keep]
    return lst


def _cut_untested(qs: list[dict[str, Any]], keep: int, d: dict[str, Any]) -> list[dict[str, Any]]:
    """The latest ``keep`` open checks (those of the last request, which the state
    counts), and the request the agent was still working on when the transcript ends
    (``what «…» asked for``) whatever its age: what a successor picks up first."""
    if len(qs) <= keep:
        return qs
    asked = [q for q in qs if q["question"].startswith("what «")][-1:]
    rest = [q for q in qs if q not in asked]
    kept = asked + rest[len(rest) - max(keep - len(asked), 0):] if keep > len(asked) else asked
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
        nxt["last_decision"]["text"] = short(nxt["last_decision"]["text"], chars * 2)
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
        lw["text"] = short(lw["text"], chars)
    return d


# ------------------------------------------------------------------ write
def _md(s: str | None) -> str:
    return (s or "").replace("|", "\\|").replace("\n", " ")


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


def _one(s: str | None) -> str:
    return " ".join((s or "").split())


def _ords(values: list[int], limit: int = 8) -> str:
    if not values:
        return "-"
    more = f" (+{len(values) - limit})" if len(values) > limit else ""
    return ", ".join(map(str, values[:limit])) + more


def markdown(d: dict[str, Any], *, max_tokens: int | None = None) -> str:
    """The brief as Markdown (``max_tokens``: shortened with :func:`fit_tokens` first)."""
    if max_tokens:
        d = fit_tokens(d, max_tokens)
    s = d["session"]
    title = s["title"] if s["title"] and request_text(s["title"]) == s["title"].strip() \
        else d["goal"]["text"] or s["id"]
    out = [f"# Hand-off: {' '.join(title.split())}", "",
           f"Session `{s['id']}` · {s['messages']} messages · {s['commands']} commands · "
           f"source {s['source_form']}"
           + (" (a rewrite: not the agent's own output, no tool calls or outputs)"
              if s["source_form"] == "rewrite" else "") + _usage(s), "",
           "Numbers in brackets are message ordinals: `logkb show N` shows one.", ""]
    g = d["goal"]
    out += ["## Goal", "", f"{g['text']}" + (f" [{g['ordinal']}]" if g["ordinal"] else ""), ""]
    if g.get("prompt") and g["prompt"].strip() and g["prompt"].strip() != g["text"]:
        out += ["<details><summary>The first prompt</summary>", "",
                short(g["prompt"].strip(), 1500), "", "</details>", ""]
    out += ["## Status", ""]
    st = d["status"]
    if st.get("state"):
        out.append(f"- State: **{st['state']}** ({_one(st.get('state_why') or '')})")
    met = {True: "**met**", False: "**not met**", None: "unknown"}[st["goal_met"]]
    out.append(f"- Goal: {met}" + (f" (the goal is {st['goal_status'].replace('_', ' ')})"
                                   if st.get("goal_status") else ""))
    if st["best"]:
        b = st["best"]
        out.append(f"- Best: **{b['value']:g} {b['unit']}** {_md(b['label'] or '')} "
                   f"[{b['ordinal']}]" + (f", with {_md(b['approach'])}" if b.get("approach")
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
        out.append(f"- Baseline: {base['value']:g} {base['unit']} {_md(base['label'] or '')} "
                   f"[{base['ordinal']}]{gain}")
    if not st["best"] and st.get("last"):
        last = st["last"]
        out.append(f"- Last reading: {last['value']:g} {last['unit']} "
                   f"{_md(last['label'] or '')} [{last['ordinal']}] (no better side: no best)")
    elif not st["best"] and not st["baseline"]:
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
        out.append(f"- Todos: {todo_all - len(d['next']['todos'])} of {todo_all} done or "
                   "cancelled")
    out.append("")
    if d["tried"]:
        out += ["## What was tried", "", "| approach | status | proposed | tested | ended | "
                "outcome |", "|---|---|---|---|---|---|"]
        for r in d["tried"]:
            out.append(f"| {_md(r['name'])} | {r['status']} | {r['proposed']} | "
                       f"{_ords(r['tested'], 5)} | {r['ended'] or ''} | "
                       f"{_md(short(r['outcome'] or '', 120))} |")
        out.append(_omitted(d, "tried", "more approaches"))
    out += ["## Dead ends, by cause", ""]
    if not d["dead_ends"]:
        out += ["No approach was recorded as a dead end.", ""]
    for c in d["dead_ends"]:
        out.append(f"### {c['cause']}")
        for a in c["approaches"]:
            out.append(f"- **{_md(a['name'])}** ({a['status']}): tested [{_ords(a['tested'])}], "
                       f"ended [{a['ended']}]"
                       + (f" — {_md(a['note'])}" if a.get("note") else "")
                       + f"; evidence [{_ords(a['evidence'], 10)}]")
            for r in a.get("risks") or []:
                out.append(f"  - risk: {_md(r)}")
            if a.get("revisit"):
                out.append(f"  - revisit: {_md(a['revisit'])}")
        out.append("")
    out.append(_omitted(d, "dead_ends", "more causes"))
    if d["measurements"]:
        out += ["## Measurements (throughput)", "", "| message | value | label |",
                "|---|---|---|"]
        for m in d["measurements"]:
            out.append(f"| {m['ordinal']} | {m['value']:g} {m['unit']} | {_md(m['label'])} |")
        out.append(_omitted(d, "measurements", "more measurements"))
    op = d["open"]
    out += ["## Open and untested", ""]
    if not op["untested"] and not op["approaches"]:
        out.append("Nothing was left open or untested.")
    if d.get("omitted", {}).get("untested"):
        out += [_omitted(d, "untested", "earlier untested checks").strip("\n"), ""]
    for q in op["untested"]:
        asked, block = _question(q)
        out.append(f"- untested [{q['ordinal']}]: {asked} — {_one(q['reason'])}")
        out += block
        for c in q["caveats"]:
            out.append(f"  - caveat [{c['ordinal']}]: {_one(c['text'])}")
    for a in op["approaches"]:
        out.append(f"- open since [{a['since']}]: {_md(a['name'])}")
        for r in a["risks"]:
            out.append(f"  - risk: {_md(r)}")
    out.append("")
    nxt = d["next"]
    out += ["## Next steps", ""]
    if nxt["last_decision"]:
        ld = nxt["last_decision"]
        out += [f"The last decision [{ld['ordinal']}]:", ""]
        out += ["> " + line if line else ">" for line in ld["text"].splitlines()]
        out.append("")
    if nxt["todos"]:
        out.append(f"Open todos (as of [{nxt['todos_at']}]):")
        out.append("")
        for t in nxt["todos"]:
            out.append(f"- [ ] {_md(t['content'])} ({t['status']})")
        out.append("")
    if not nxt["last_decision"] and not nxt["todos"]:
        out += ["No decision or open todo was recorded.", ""]
    if d["reproduce"]:
        out += ["## Reproduce the best result", ""]
        for step in d["reproduce"]:
            where = f" on {step['host']}" if step.get("host") else ""
            out += [f"{step['role']} [{step['ordinal']}]{where}:", "", "```sh",
                    step["command"], "```", ""]
        out.append(_omitted(d, "reproduce", "earlier steps"))
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
    if d.get("omitted", {}).get("environment"):
        out += [_omitted(d, "environment", "environment lines").strip("\n"), ""]
    act = d["activity"]
    if act["categories"] or act["files_edited"] or (act["ended"] or {}).get("last_words"):
        out += ["## What the session did", ""]  # a heading with nothing under it: none
    if d.get("omitted", {}).get("activity"):
        out += [_omitted(d, "activity", "command kinds and edited files").strip("\n"), ""]
    if act["categories"]:
        out.append("- commands: " + ", ".join(
            f"{c['commands']} {c['category']}" + (f" ({c['failed']} failed)" if c["failed"]
                                                  else "") for c in act["categories"]))
    if act["files_edited"]:
        out.append("- files edited: " + ", ".join(f"`{f}`" for f in act["files_edited"]))
    if act["ended"] and act["ended"].get("last_words"):
        lw = act["ended"]["last_words"]
        out += ["", f"How it ended, the assistant's last words [{lw['ordinal']}]:", ""]
        out += ["> " + line if line else ">" for line in lw["text"].splitlines()]
    out.append("")
    return "\n".join(line for line in out if line is not None).rstrip() + "\n"


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


def _omitted(d: dict[str, Any], key: str, what: str) -> str:
    n = d.get("omitted", {}).get(key)
    return f"\n({n} {what} left out to fit --max-tokens)\n" if n else ""




__all__ = ["EXPORT_RULES", "ExportRule", "brief", "first_request", "fit_tokens", "is_export",
           "markdown", "request_text"]
