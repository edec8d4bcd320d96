"""Episodes around checks: the structure every debugging session shares.

A *check* is something the agent runs to learn whether a thing works (a build, a
test, a request, an import, a script); the user reporting what a page does is a
check too.  This module groups the runs of one check (same normalised command)
with the changes made between them and reads how each episode ended:

* a change followed by the same failure is a failed attempt; a failure fixed at
  the next run is a slip (a typo, a wrong flag), never a dead end;
* a check that keeps failing and is then left for something else was abandoned;
* a user message that reports the work of the turn before it as broken ("still
  doesn't work", a pasted ``Fatal error``) refutes that work; successive reports of
  one symptom join into one episode (repeated failed fixes).

Pure: compact rows in, :class:`Found` episodes out (see :mod:`kb.graph.extract`).
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import NamedTuple

from kb.graph.ablate import off
from kb.graph.causechoice import what_user_said
from kb.graph.iteration import (
    FUNCTION_WORDS,
    REWRITE_KEEPS,
    identifiers,
    is_test_path,
    looks_only,
    taken_away,
    transient_api_error,
)
from kb.graph.replycues import DESTROYED_CUES, first_match
from kb.graph.text import short, tokens
from logparse.errorline import says_more
from logparse.kinds import TIMED_OUT_ON_PROMPT
from logparse.memo import Memo, memo, text_key
from logparse.prose import refutation_phrase
from logparse.redirects import dropped_names, is_question, undone
from logparse.request import request_text
from logparse.sentences import split_sentences
from logparse.structural import (
    PERSIST,
    correction_phrase,
    dismissed_subject,
    still_broken_phrase,
    superseded_phrase,
)


class Step(NamedTuple):
    """One tool call, as the episode rules see it."""

    session_id: str
    ordinal: int
    key: str
    """The check: program and sub-command, or tool and target (``npm install``)."""
    change: bool
    """An edit or a write that succeeded (a change between two runs of a check)."""
    check: bool
    """A run that tells whether something works (not a search, read or edit)."""
    failed: bool
    signature: str | None
    rejected: bool = False
    """The user refused the tool's permission."""
    target: str = ""
    """What a change touched (a file name)."""
    signatures: tuple[str, ...] = ()
    """Every error signature of a failed run."""
    command: str = ""
    """A run's command (its start)."""
    offline: bool = False
    """It ran in a sandbox without network access."""
    judged: str = ""
    """The sentence of the reply that read this run's output as wrong ("the content is
    still just '-'"): a run that exited cleanly but did not do what it should."""
    tool: str = ""
    """The tool that ran it (``bash``, ``webfetch``, …)."""
    interrupted: bool = False
    """The user stopped it while it ran."""
    user_said: str = ""
    """What the user said when refusing or stopping it (Claude Code's rejection reason)."""
    failure: str = ""
    """A failed run without an error signature: the line it failed with (its cause when
    an episode ends on it; never used to tell one failure from another)."""
    wrote: frozenset[str] = frozenset()
    """The lines a change wrote (stripped; see :func:`kb.graph.store.edit_lines`)."""
    took: frozenset[str] = frozenset()
    """The lines a change took away."""
    escalated: bool = False
    """It asked to run outside the sandbox (Codex ``require_escalated``)."""
    child: str = ""
    """A delegation's sub-agent session, when it is stored (Claude Code ``Task``, opencode
    ``task``, Codex ``spawn_agent``): its own ending error is the delegation's to tell."""
    mixed: str = ""
    """It merged stderr into stdout and printed this line ahead of its JSON (a log line a
    file written the same way starts with)."""


class Said(NamedTuple):
    """A user message, or an assistant sentence that ends or turns away from something."""

    session_id: str
    ordinal: int
    role: str
    """``user`` or ``assistant``."""
    text: str
    signal: str | None
    """user: the phrase that reports a failure (``refute``); assistant: ``dead-end``,
    ``pivot``, ``cannot`` (a claim that it cannot do something), ``asked`` (it asked
    the user with a tool; the text is the tool's output: the questions and the answers),
    ``hypothesis`` (a guess at a cause) or ``found`` (the cause it says it found)."""
    error: str | None = None
    """user: an error the message quotes (its signature)."""


@dataclass
class Found:
    """A dead end read from an episode."""

    session_id: str
    name: str
    first: int
    ended: int
    how: str
    """``failed-attempt``, ``failed-check``, ``abandoned-check``, ``refuted`` (by the
    user), ``rejected``, ``retracted`` (by the agent, untested),
    ``judged`` (it ran, and was not worth it), ``unfound`` (what was looked up is
    not there by that name: rewritten without it, or the user asked), ``guesses`` (guesses at a cause a finding refuted),
    ``admitted`` (the agent admits the user's correction), ``superseded`` (an edit marks
    it superseded), ``dropped`` (a guess acted on, then dismissed), ``sandboxed`` (it only
    worked outside the sandbox, :func:`kb.graph.switched.escalated_episodes` reads it),
    ``stopped`` (the user stopped the turn), ``workaround``
    (a probe that only worked with an environment override), ``redirected`` (a reply
    turned to what the user now wants), ``user-dropped`` (the user set aside a name the
    turn used), ``undone`` (the agent undid its work right after the user spoke),
    ``reviewed`` (a review sub-agent sent the agent's own lines back), ``misread`` (the
    user asked again for what the turn's work left untouched, :mod:`kb.graph.misread`)."""
    cause_text: str
    signature: str | None = None
    why: str | None = None
    """The sentence that says why, when the transcript says it."""
    evidence: list[tuple[int, str, str | None]] = field(default_factory=list)
    """``(ordinal, role, note)``; roles as in :class:`kb.graph.extract.Evidence`."""
    root: Found | None = None
    """An earlier episode of the same symptom: this one shares its cause."""
    said_at: int | None = None
    """``reworked``: the user message that sent the work back."""
    stated: str | None = None
    """The root cause the agent stated later, once it looked again (see
    :mod:`kb.graph.rootcause`): it labels the cause; ``cause_text`` stays the first
    error, as evidence."""
    rule: str = ""
    """The rule that read it: the episode function that made it, without its
    ``_episodes`` suffix (``check``, ``attempt``, ``switched``…); set by
    :func:`episodes` (and for the rules of other modules by their caller), kept with
    the dead end (``via``) so ``python -m bench rule-support`` can tell which rules hold
    on sessions nobody tuned on."""

    def ordinals(self) -> set[int]:
        return {o for o, _, _ in self.evidence}


# ------------------------------------------------------------------ the check
_PREFIX = re.compile(r"^\s*(?:cd\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*(?:&&|;)\s*)+")
_ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")
_WRAPPERS = frozenset("sudo time timeout nohup env exec command npx uv uvx poetry pipenv "
                      "bunx pnpx call & .".split())
_SUBCOMMANDS = frozenset("""git gh npm pnpm yarn bun cargo go docker kubectl podman pip pip3
composer studio opencode wp dotnet make mvn gradle brew apt apt-get systemctl helm terraform
rails php artisan python python3 node deno rustup conda uv poetry npx""".split())
_SPLIT = re.compile(r"(?<!\s)\s*+(?:&&|\|\||;|\|)\s*+")
_REDIRECT = re.compile(r"^\d*[<>]|^&>")
_ASSIGN = re.compile(r"^\$([\w:]+)\s*=\s*")
"""A PowerShell assignment (``$r = Invoke-WebRequest …``): the command is what follows."""
_PRELUDE = frozenset("""cd pushd popd set-location export set source . unset sleep
get-content cat $errorActionPreference $progresspreference""".lower().split())
"""Segments that set a run up (a directory, a variable, a file read into a variable)
rather than check anything: the check is the segment after them."""


def _word(w: str) -> str:
    w = w.strip("\"'`()")
    if "://" in w:
        host = w.split("://", 1)[1].split("/", 2)
        return "/".join(host[:2])[:60]
    if "/" in w or "\\" in w:
        w = os.path.basename(w.replace("\\", "/").rstrip("/")) or w
    return w.lower()


@lru_cache(maxsize=65536)
def segment_words(command: str) -> list[list[str]]:
    """The first words of each command of a shell line, flags and wrappers left out
    (``sudo rm -rf .cache && bin/airflow dags reserialize`` → ``[rm, .cache]``,
    ``[airflow, dags, reserialize]``)."""
    out = []
    for seg in _SPLIT.split(_PREFIX.sub("", command[:600]), maxsplit=6):
        words = [_word(w) for w in _ENV.sub("", seg.strip()).split()[:8]
                 if not w.startswith("-") and not _REDIRECT.match(w)]
        while words and words[0] in _WRAPPERS:
            words.pop(0)
        if words:
            out.append(words[:3])
    return out


_CHECK_KEYS: Memo[str] = memo("check key")


def check_key(tool: str, command: str | None) -> str:
    """:func:`_check_key`, memoised (the graph asks it of each call several times)."""
    if not command:
        return tool
    return _CHECK_KEYS.get((tool, text_key(command)), lambda: _check_key(tool, command))


def _check_key(tool: str, command: str) -> str:
    """What a call checks, normalised so that reruns with other flags or paths agree: the
    program, its sub-command and their first argument (``cd x && npm install a b`` →
    ``npm install a``); ``php rebuild.php`` → ``php rebuild.php``;
    ``curl -s http://h/p?q`` → ``curl h/p?q``; a non-shell tool → ``tool target``."""
    if not command:
        return tool
    if tool not in ("bash", "shell", "powershell", "exec", "terminal"):
        return f"{tool} {_word(command.split()[0])}" if command.split() else tool
    cmd = _PREFIX.sub("", command[:600].strip())
    segments = _SPLIT.split(cmd, maxsplit=4)
    first = segments[0]
    for seg in segments:
        # `$c = Get-Content f -Raw; studio wp post create …` checks the studio call
        assign = _ASSIGN.match(seg.strip())
        if assign and f"${assign.group(1)}".lower() in _PRELUDE:
            continue  # `$ErrorActionPreference = 'Stop'` sets the shell up
        bare = _ASSIGN.sub("", seg.strip())
        head = _word(bare.split()[0]) if bare.split() else ""
        if head and head not in _PRELUDE and (bare != seg.strip() or not _ENV.fullmatch(
                seg.strip() + " ")):
            first = bare
            break
    first = _ENV.sub("", first)
    words = first.split()[:12]
    while words and _word(words[0]) in _WRAPPERS:
        words.pop(0)
    if not words:
        return "bash"
    prog = _word(words[0])
    out = [prog]
    rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w[:20]
            and not _REDIRECT.match(w) and _word(w)]
    if prog in _SUBCOMMANDS:
        # a wrapper of another such program checks that one's sub-command
        # (`studio wp post create`, `uv run pytest`, `docker compose up`)
        n = 3 if rest and _word(rest[0]) in _SUBCOMMANDS else 2
        out += [_word(w) for w in rest[:n] if not _word(w).startswith(("$", "<", ">"))]
        if prog in ("python", "python3", "node", "php", "deno") and rest:
            out = [prog, _word(rest[0])]
    elif rest:
        out.append(_word(rest[0]))
    return " ".join(out)[:80]


PROBES = frozenset("""grep egrep rg ag ack test [ diff cmp which where command type find ls
stat pgrep pidof get-command test-path select-string where.exe get-childitem gci dir
findstr""".split())
"""Programs whose non-zero exit is an answer (no match, no such file), not a failure; and
whose one failure, never run again, is a look that found nothing (or ran into its
timeout), not an approach given up (:func:`check_episodes`)."""


# -------------------------------------------------------------------- episodes
CHAIN_GAP = 40
"""Ordinals without a run of a check after which its next run starts a new episode."""
SLIP = 3
"""A failure fixed by a run of the same check this close is a slip, not a dead end."""
VERDICT_WINDOW = 3
"""Messages after a failure in which a sentence that gives up on it ends it."""
ASK_WINDOW = 3
"""Messages after a check's last failure within which a question to the user says the
agent could not go on without the user (when the check is not run again)."""
MAX_EVIDENCE = 12


class _Index:
    """Steps of each session in ordinal order, for range queries in O(log n)."""

    def __init__(self, steps: list[Step]) -> None:
        self.by: dict[str, list[Step]] = {}
        for s in steps:
            self.by.setdefault(s.session_id, []).append(s)
        self.keys = {sid: [s.ordinal for s in ss] for sid, ss in self.by.items()}

    def between(self, sid: str, lo: int, hi: int) -> list[Step]:
        """Steps with ``lo < ordinal < hi``."""
        keys = self.keys.get(sid)
        if not keys:
            return []
        return self.by[sid][bisect_right(keys, lo):bisect_left(keys, hi)]


_SCRIPT_SUBS = frozenset({"run", "exec", "x", "dlx", "run-script"})
_SCRIPT_RUNNERS = frozenset({"python", "python3", "node", "php", "deno"})


def chain_key(s: Step) -> str:
    """The target a run works on, for grouping runs into attempts: the check, less an
    argument that only gave a flag its value (``cargo test -p a`` and ``cargo test
    --manifest-path b`` are one target, ``cargo test``); a positional argument stays
    (``npm install left-pad`` is about that package, ``npm run build`` that script)."""
    words = s.key.split(" ")
    if len(words) >= 3 and words[0] in _SUBCOMMANDS and words[0] not in _SCRIPT_RUNNERS \
            and words[1] not in _SCRIPT_SUBS and words[1] not in _SUBCOMMANDS:
        toks = s.command.split()
        if any(_word(t) == words[2] and toks[i - 1].startswith("-")
               for i, t in enumerate(toks) if i):
            return " ".join(words[:2])
    return s.key


def _chains(steps: list[Step]) -> list[list[Step]]:
    by_key: dict[tuple[str, str], list[list[Step]]] = {}
    for s in steps:
        if not s.check or s.interrupted:
            continue  # a run the user stopped answered nothing (see rejected_episodes)
        chains = by_key.setdefault((s.session_id, chain_key(s)), [])
        if chains and s.ordinal - chains[-1][-1].ordinal <= CHAIN_GAP:
            chains[-1].append(s)
        else:
            chains.append([s])
    return [c for cs in by_key.values() for c in cs if any(s.failed for s in c)]


def _failures(chain: list[Step]) -> list[Step]:
    """The failures of a chain that were neither slips (fixed at the next run) nor
    progress (the next run failed differently: the change fixed this failure)."""
    out = []
    for i, s in enumerate(chain):
        if not s.failed:
            continue
        nxt = chain[i + 1] if i + 1 < len(chain) else None
        if nxt is None or (nxt.failed and s.ordinal == chain[-1].ordinal):
            out.append(s)
            continue
        if nxt is not None and not nxt.failed and nxt.ordinal - s.ordinal <= SLIP:
            continue
        if nxt is not None and nxt.failed and (s.signature or nxt.signature) \
                and s.signature != nxt.signature:
            continue
        out.append(s)
    return out


_NETWORK_SIG = re.compile(r"resolve|connect|network|fetch failed|unreachable|ENOTFOUND|"
                          r"EAI_AGAIN|timed out", re.I)
"""A failure a sandbox without network explains (not a compile error met offline)."""
_UNANSWERED = ("Timed out", "the tool call was")
"""Failures that answered nothing (a timeout, a call still running): they leave a
question open (see untested) rather than telling how the check went."""
_MISSING_TOOL = re.compile(r"command not found|not recognized as (?:the name of )?a cmdlet|"
                           r"is not recognized as an internal or external command|"
                           r"No such file or directory|ENOENT", re.I)
"""A check whose program (or script) is not there did not run at all."""


def _retyped(checks: _Index, failed: Step) -> bool:
    """The failed run was a slip: a run right after it with nearly the same command (the
    script's name typed right, a flag fixed) worked."""
    after = checks.between(failed.session_id, failed.ordinal, failed.ordinal + SLIP + 1)
    was = _PREFIX.sub("", failed.command)
    return bool(was) and any(
        not s.failed and SequenceMatcher(None, _PREFIX.sub("", s.command), was).ratio() >= 0.9
        for s in after if s.command)


_ANSWERED = re.compile(r'"="[^"]*(?:"|$)')
"""An answer in a question tool's output (``"Which file?"="opencode.db"``)."""


def _question_words(text: str) -> frozenset[str]:
    """The words of the questions a question tool asked, not of the user's answers."""
    return tokens(_ANSWERED.sub(" ", text)) - _TOOL_WORDS


_TOOL_WORDS = frozenset(tokens("User has answered your questions You can now continue with "
                               "the user's answers in mind"))


def _asks_about(question: str, run: Step) -> bool:
    """Whether a question to the user names something of the failed run: its command or
    its error."""
    return bool(_question_words(question) & (tokens(run.command) | tokens(run.signature or "")))


def _sig_label(sig: str | None) -> str:
    return sig or "it kept failing"


def check_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """Dead ends of checks that kept failing, or failed once and were given up on."""
    verdicts: dict[str, list[Said]] = {}
    asked: dict[str, list[Said]] = {}
    for s in said:
        if s.role == "assistant" and s.signal in ("dead-end", "pivot"):
            verdicts.setdefault(s.session_id, []).append(s)
        elif s.signal == "asked":
            asked.setdefault(s.session_id, []).append(s)
    changes = _Index([s for s in steps if s.change])
    checks = _Index([s for s in steps if s.check])
    failed_runs = _Index([s for s in steps if s.check and s.failed])
    hangs = Counter((s.session_id, s.key.split(" ", 1)[0]) for s in steps
                    if s.check and s.signature and s.signature.startswith("Timed out"))
    out: list[Found] = []
    for chain in _chains(steps):
        # runs in one message are one attempt (the same call made for two settings)
        fails = list({f.ordinal: f for f in reversed(_failures(chain))}.values())[::-1]
        answered = [f for f in fails if not (f.signature or "").startswith(_UNANSWERED)]
        if answered and len(answered) < len(fails):
            # a run the timeout cut answered nothing: the runs that did fail tell the story
            # (the cut one stays an open question, see untested)
            fails = answered
        if not fails or chain[0].key.split(" ", 1)[0] in PROBES:
            # a look that errs again and again (`grep` into a file that is not there, `ls`
            # of a folder not made yet) explored; it tried no approach to give up
            continue
        sid = chain[0].session_id
        last = chain[-1]
        passed_at_end = not last.failed
        first, final = fails[0].ordinal, fails[-1].ordinal
        vs = verdicts.get(sid, [])
        lo = bisect_left([v.ordinal for v in vs], first) if vs else 0
        said_so = []
        for v in vs[lo:]:
            if v.ordinal > final + VERDICT_WINDOW:
                break
            said_so.append(v)
        ask = next((a for a in asked.get(sid, ()) if final < a.ordinal <= final + ASK_WINDOW
                    and not failed_runs.between(sid, final, a.ordinal)
                    and _asks_about(a.text, fails[-1])), None)
        sigs = [f.signature for f in fails if f.signature] or \
            [s.signature for s in chain if s.failed and s.signature]
        signature = max(sigs, key=sigs.count) if sigs else None
        if len(fails) >= 2 and (not passed_at_end or len(fails) >= 3):
            how = "failed-check"
        elif len(fails) == 1 and not passed_at_end and (signature or fails[0].judged) and \
                not _retyped(checks, fails[0]) and (
                (said_so and (not signature or not signature.startswith(_UNANSWERED)
                              or hangs[(sid, chain[0].key.split(" ", 1)[0])] == 1))
                or (signature and len(chain) == 1 and (_MISSING_TOOL.search(signature)
                                         or (fails[0].offline and _NETWORK_SIG.search(signature))
                                         or signature == TIMED_OUT_ON_PROMPT
                                         or (ask and not signature.startswith(_UNANSWERED))))):
            # one failure, never run again: the agent said it turns away (a clean run the
            # agent's own reply read as failed, then turned away from, too), or the check
            # could not start at all (its program is not there, or it sat at a prompt
            # no one could answer) and was left for another, or the agent stopped to ask
            # the user what it should have done instead.
            # A program that hangs again and again is the environment: its timeouts leave
            # questions open (see untested) rather than refuting an approach each.
            how = "abandoned-check"
        else:
            continue
        progress = _progress_runs(chain)
        ev: list[tuple[int, str, str | None]] = [
            (f.ordinal, "tested", f.signature or f.judged or None) for f in fails
            if f.ordinal not in progress or f is fails[-1]]
        between = changes.between(sid, first, final)
        ev += [(c.ordinal, "tested", f"changed {c.target}") for c in between[-6:]]
        if ask and not said_so:
            said_so = [ask._replace(text=f"the user was asked: {ask.text}")]
        why = said_so[-1].text if said_so else None
        # with nothing said, the next message ends it, unless a run there failed: that
        # failure is a story of its own (a slip made in the new form)
        end = said_so[-1].ordinal if said_so else final if any(
            s.failed for s in checks.between(sid, final, final + 2)) else final + 1
        ev.append((end, "ended", why))
        first_failure = next(s.ordinal for s in chain if s.failed)
        judged = next((f.judged for f in fails if f.judged), "")
        failure = next((f.failure for f in reversed(fails) if f.failure), "")
        cause = judged if judged and not signature else \
            _sig_label(next((m for f in reversed(fails + chain) if f.signature == signature
                             and (m := says_more(signature, f.failure))), None)
                       or signature or failure or None)
        if all(f.offline for f in fails) and _NETWORK_SIG.search(cause):
            cause = f"the sandbox has no network access ({cause})"
        out.append(Found(
            session_id=sid, name=f"`{chain[0].key}` until it works", first=first_failure,
            ended=end, how=how, cause_text=cause, signature=signature,
            why=why, evidence=_dedupe(ev)))
    return _same_mode(out)


_QUOTED = re.compile(r"`[^`]*`")


def _same_mode(found: list[Found]) -> list[Found]:
    """Checks of several targets failing the same way at the same time (``npm install``
    and ``npx vitest run`` both printing nothing, run in turns) are one approach that did
    not work (the shell they ran in), not one dead end per target."""
    out: list[Found] = []
    for f in sorted(found, key=lambda f: (f.session_id, f.first)):
        mode = _QUOTED.sub("`…`", f.cause_text)
        last = next((o for o in reversed(out) if o.session_id == f.session_id), None)
        if last is not None and "`…`" in mode and _QUOTED.sub("`…`", last.cause_text) == mode \
                and f.first <= last.ended and last.first <= f.ended:
            quoted = list(dict.fromkeys(_QUOTED.findall(last.cause_text)
                                        + _QUOTED.findall(f.cause_text)))
            last.cause_text = f"{', '.join(quoted[:4])} {_QUOTED.sub('', mode).strip()}"
            last.name = f"{last.name.split(' until ')[0]}, {f.name}"
            last.evidence = _dedupe(last.evidence + f.evidence)
            last.ended = max(last.ended, f.ended)
            continue
        out.append(f)
    return out


def attempt_episodes(steps: list[Step]) -> list[Found]:
    """Changes made between two failing runs of one check that did not make the failure
    go away: every failure of the first run is still there (the fix did not fix), or the
    second run reports other errors besides or instead of several (the change broke
    something else, or exposed why it cannot work).  One error replaced by another,
    or a run that only lost failures, is progress."""
    changes = _Index([s for s in steps if s.change])
    out: list[Found] = []
    for chain in _chains(steps):
        out += _broke_passing(chain, changes)
        progress = _progress_runs(chain)
        for before, after in zip(chain, chain[1:]):
            if not (before.failed and after.failed and before.signatures
                    and after.signatures):
                continue
            sid = before.session_id
            between = changes.between(sid, before.ordinal, after.ordinal)
            new = [x for x in after.signatures if not _among(x, before.signatures)]
            kept = [x for x in before.signatures if _among(x, after.signatures)]
            if new and (kept or len(after.signatures) >= 2):
                # one error replaced by another is progress; a compiler that now reports
                # other errors (or more) says the change went the wrong way
                signature, how = new[0], "broke"
            elif kept and len(kept) == len(before.signatures) and between:
                signature, how = kept[0], "did not fix"
            else:
                continue
            # the run before is the state the change started from, unless the change broke
            # something (then only the change and what it led to are the attempt) or that
            # run is where a new error first showed (progress on the one before it)
            ev: list[tuple[int, str, str | None]] = [] if how == "broke" or \
                before.ordinal in progress else [(before.ordinal, "tested",
                                                  before.signatures[0])]
            ev += [(c.ordinal, "tested", f"changed {c.target}") for c in between[-6:]]
            ev.append((after.ordinal, "ended", signature))
            last = out[-1] if out else None
            if last is not None and last.session_id == sid and \
                    last.ended == before.ordinal and last.signature == signature:
                # one symptom, fixed again and again: one episode
                last.evidence = _dedupe(last.evidence + ev)
                last.ended = after.ordinal
                continue
            what = ", ".join(dict.fromkeys(c.target for c in between if c.target)) or \
                "the change"
            out.append(Found(session_id=sid, name=f"{short(what, 80)} ({how})",
                             first=before.ordinal, ended=after.ordinal,
                             how="failed-attempt", cause_text=signature,
                             signature=signature, evidence=_dedupe(ev)))
    return out


_RELATIVE = re.compile(r"(?<![\w.])(?:\.\.?[/\\])+")


def _unrelative(signature: str) -> tuple[str, bool]:
    """A signature without the relative-path climbs before the names it quotes (one error
    about ``app/page.js`` reached from two folders, ``../../app/page.js`` and
    ``../../../../app/page.js``, is one error), and whether it was cut (``…``)."""
    text = _RELATIVE.sub("", signature)
    return text.rstrip("…"), text.endswith("…")


def _among(signature: str, signatures: Sequence[str]) -> bool:
    """Whether ``signatures`` hold ``signature``, read without relative climbs and up to
    where the shorter of two was cut."""
    mine = _unrelative(signature)
    for other in signatures:
        theirs = _unrelative(other)
        (a, a_cut), (b, _) = (mine, theirs) if len(mine[0]) <= len(theirs[0]) else \
            (theirs, mine)
        if a == b or (a_cut and len(a) >= 40 and b.startswith(a)):
            return True
    return False


def _progress_runs(chain: list[Step]) -> set[int]:
    """Runs that failed differently from the failing run before them: the change between
    fixed that failure (progress) and this run first shows the next one."""
    return {s.ordinal for p, s in zip(chain, chain[1:]) if p.failed and s.failed
            and p.signature and s.signature and p.signature != s.signature}


_UNUSED = re.compile(r"never (?:read|used)|declared and not used|unused (?:variable|import)|"
                     r"imported but unused", re.I)
"""Errors about a name left unused: tidying, not an approach that broke anything."""


def _broke_passing(chain: list[Step], changes: _Index) -> list[Found]:
    """Changes that broke a check which passed before them, mended only after some
    looking (not at the next try): the change was wrong, the mend confirms it."""
    out: list[Found] = []
    for before, after, mended in zip(chain, chain[1:], chain[2:]):
        if before.failed or not after.failed or not after.signatures or mended.failed \
                or mended.ordinal - after.ordinal <= SLIP or _UNUSED.search(after.signatures[0]):
            continue
        sid = before.session_id
        made = changes.between(sid, before.ordinal, after.ordinal)
        if not made:
            continue
        fix = changes.between(sid, after.ordinal, mended.ordinal)
        ev = [(c.ordinal, "tested", f"changed {c.target}") for c in made[-4:]]
        ev += [(after.ordinal, "tested", after.signatures[0])]
        ev += [(c.ordinal, "tested", f"changed {c.target}") for c in fix[-2:]]
        ev.append((mended.ordinal, "ended", "passed again"))
        what = ", ".join(dict.fromkeys(c.target for c in made if c.target)) or "the change"
        out.append(Found(session_id=sid, name=f"{short(what, 80)} (broke `{after.key}`)",
                         first=made[0].ordinal, ended=mended.ordinal, how="failed-attempt",
                         cause_text=after.signatures[0], signature=after.signatures[0],
                         evidence=_dedupe(ev)))
    return out


# ----------------------------------------------------------------- the user says
def refuted_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """The turns whose work the next user message reports as broken."""
    by_session: dict[str, list[Said]] = {}
    for s in said:
        if s.role == "user":
            by_session.setdefault(s.session_id, []).append(s)
    work = _Index([s for s in steps if s.change or (s.check and not s.failed)])
    aborted = {(s.session_id, s.ordinal) for s in said if s.signal == "aborted"}
    compacted = {(s.session_id, s.ordinal) for s in said if s.signal == "compaction"}
    out: list[Found] = []
    for sid, users in by_session.items():
        current: Found | None = None
        for i, (prev, report) in enumerate(zip(users, users[1:])):
            turn = work.between(sid, prev.ordinal, report.ordinal)
            changed = [w for w in turn if w.change]
            back = i
            while not changed and back > 0 and _short_reply(users[back]) \
                    and i - back < ASSENTS:
                # "yes", "commit it": the last change is still the one reported on, when
                # the report names what it changed
                back -= 1
                changed = [w for w in work.between(sid, users[back].ordinal, prev.ordinal)
                           if w.change]
                if not tokens(report.text[:1500]) & {t for w in changed
                                                     for t in tokens(w.target)}:
                    changed = []
            if not changed:  # a turn that changed nothing: what it ran is what it did
                changed = [w for w in turn if w.check and not w.failed]
            between = range(prev.ordinal + 1, report.ordinal)
            lost = any((sid, o) in compacted for o in between)  # the context was compacted
            # the replies after the compaction changed nothing: they lost the task (a turn
            # that went on working after it is judged by what it did)
            squeezed = max((o for o in between if (sid, o) in compacted), default=None)
            lost_task = squeezed is not None and not any(
                w.change and w.ordinal > squeezed for w in turn)
            # a turn whose runs only looked (`git status`, `git log`) made nothing to find
            # broken: like a turn that only answered, its answer is what a report can
            # contradict (kb.graph.iteration.LOOK_ONLY)
            looked = bool(changed) and all(looks_only(w.key) for w in changed)
            if not changed or looked:
                contradicts = bool(report.signal) and not _ERRORISH.search(report.signal or "") \
                    and (looked or report.ordinal - prev.ordinal <= SHORT_TURN) \
                    and not any((sid, o) in aborted for o in between) \
                    and _opens_with_report(report) and (
                        _shared(report.text, prev.text)
                        or correction_phrase(report.text) is not None)
                # a turn that only answered (it read, searched, said): the answer is what
                # the user contradicts, when the user speaks of what was asked, says so
                # first, and the turn was not cut (a "continue" after a stopped turn asks
                # for the answer that never came)
                if not contradicts:
                    changed = []
                elif not changed:
                    changed = [Step(sid, o, ANSWER, False, False, False, None)
                               for o in between]
            if report.signal and current is not None and current.how == "refuted" \
                    and current.ended == prev.ordinal and current.first < prev.ordinal \
                    and not lost and not any(w.change for w in turn) and (
                        _same_symptom(current, report) or _AGAIN.search(report.text[:1500])
                        or still_broken_phrase(report.text) is not None):
                # the user reports the same problem again and nothing was changed since
                # (the agent only looked or answered): one dead end, not one per message
                # (a compaction in between is a story of its own)
                current.evidence = _dedupe(current.evidence + [
                    (report.ordinal, "ended", short(report.text, 200))])
                current.ended = report.ordinal
                continue
            refutes = report.signal is not None and bool(changed) and (
                _about(report, prev, changed) or (current is not None
                                                  and _same_symptom(current, report)))
            if not refutes:
                current = None
                continue
            # an edit redone at once (the next message rewrites the same file) was a
            # slip of the hand, not part of what the user saw
            kept = [w for w, nxt in zip(changed, [*changed[1:], None]) if nxt is None
                    or not w.change or nxt.target != w.target or nxt.ordinal - w.ordinal > 1]
            ev = [(w.ordinal, "tested", f"changed {w.target}") for w in kept[-6:]]
            ev.append((report.ordinal, "ended", short(report.text, 200)))
            assert report.signal is not None  # it refutes: the report has a signal
            # the user's complaint (or the error it quotes) is the cause; a compaction in
            # the turn is one only when the replies after it lost the task
            cause = report.error or _complaint(report.text, report.signal)
            if lost_task:
                cause = f"{LOST_TASK} ({cause})"
            # another fix of the symptom the user reported before is an attempt of its
            # own, with the same cause
            root = (current.root or current) if current is not None and \
                _same_symptom(current, report) else None
            files = list(dict.fromkeys(w.target for w in changed if w.target))
            ran = [w.key for w in changed if not w.change]
            what = f"change to {', '.join(files[:3])}" if files else \
                "the answer" if ran and ran[-1] == ANSWER else \
                f"`{ran[-1]}`" if ran else "the change"
            name = f"{what} {'to' if what == 'the answer' else 'for'} «{short(prev.text, 70)}»"
            current = Found(session_id=sid, name=name, first=changed[0].ordinal,
                            ended=report.ordinal, how="refuted", cause_text=cause,
                            signature=report.error, why=short(report.text, 240),
                            evidence=_dedupe(ev), root=root)
            # one report naming several complaints is still one dead end: the turn the
            # user sent back.  Cut by complaint (each with the changes it alone names) it
            # gave pieces that matched no labelled dead end more often than a new one
            # (uicomponents #192's split found nothing another rule did not; its pieces
            # held a wrong cause), so the whole turn stays one reading (prec14)
            out.append(current)
    return out


LOST_TASK = "a context compaction during the turn"
"""How a cause begins when the replies after a compaction lost the task (they changed
nothing after it): :mod:`kb.graph.extract` then looks for no later root."""
_ERRORISH = re.compile(r"(?i)\b(?:fail\w*|error\w*|crash\w*|exception|traceback|undefined|"
                       r"uncaught)\b|(?:Error|Exception)\b")
"""A report of an error: news about the work, not a contradiction of an answer."""
ANSWER = "\0answer"
"""The key of a reply's message in a turn that only answered (no run, no change)."""
ASSENTS = 2
"""Assents ("yes", "commit it") a report may look back across to the change it is about."""


_ASSENT = frozenset("""yes yeah yep y ok okay sure go ahead do it that please pls continue
proceed commit push and sounds good fine right""".split())


def _short_reply(said: Said) -> bool:
    """A reply that only says go on ("yes", "ok, commit it")."""
    words = re.findall(r"[a-z]+", said.text.lower())
    return 0 < len(words) <= 5 and said.signal is None and all(w in _ASSENT for w in words)


_AGAIN = PERSIST
"""Words for a problem still there, in the pool's languages (see :mod:`logparse.structural`)."""


SHORT_REPORT = 6
"""Words of a report too short to name anything: it is about the turn just before it."""
SHORT_REPORT_CHARS = 40
"""Characters of a failure report too short to be about anything but the turn before it
(scripts without spaces between words have no word count)."""
_BACK_REFERENCE = frozenset("it its this that nothing still doesnt didnt not".split())
"""First words of a report that point back at what was just done rather than name it."""
SHORT_TURN = 4
"""A report this close after the request it follows is about that turn's work."""


def _about(report: Said, request: Said, changed: list[Step]) -> bool:
    """A report is about the last turn's work when it names what was asked or changed,
    or says the problem persists ("still", "again", "same")."""
    if report.error or _AGAIN.search(report.text[:1500]) \
            or still_broken_phrase(report.text) is not None:
        return True  # "nothing changed", "no resolvió": the fix just made did not take
    if report.ordinal - request.ordinal <= SHORT_TURN:
        return True  # a turn of a step or two: there is nothing else it could be about
    words = report.text.lower().split()
    if len(words) <= SHORT_REPORT and words and words[0].strip(".,!'\"").replace("'", "") in \
            _BACK_REFERENCE:
        return True  # "it's not working": a bare report speaks of what was just done
    if report.signal and len(report.text.strip()) <= SHORT_REPORT_CHARS and (
            not report.text.isascii() or correction_phrase(report.text) is not None):
        # "no anduvo", "还是不行": too short to name anything else, in any script (English
        # reports keep the word rules above: a short one naming nothing else is often news
        # of something else the user saw, measured on shared)
        return True
    asked = tokens(request.text[:1500]) | {t for w in changed for t in tokens(w.target)}
    if (tokens(report.text[:1500]) & asked) - _FUNCTION:
        return True
    # a code name the turn wrote ("prepend_child DO not exist") names that work
    said = identifiers(report.text[:1500])
    return bool(said) and any(said & identifiers(line) for w in changed for line in w.wrote)


_FUNCTION = tokens(" ".join(sorted(FUNCTION_WORDS)))
""":data:`kb.graph.iteration.FUNCTION_WORDS` as tokens (stemmed as :func:`tokens` does)."""


def _shared(report: str, other: str) -> bool:
    """Whether a report shares a word that names something with another text (a request,
    the files a turn changed); "not" and "maybe" name nothing."""
    return bool((tokens(report[:1500]) & tokens(other[:1500])) - _FUNCTION)


def _opens_with_report(report: Said) -> bool:
    """Whether the report's first line already says the answer is wrong ("no that was an
    earlier export", "Wait it's a different program"): a complaint deep in a list of new
    tasks is about other work."""
    first = report.text.strip().split("\n", 1)[0]
    return bool(refutation_phrase(first) or correction_phrase(first)
                or still_broken_phrase(first) or report.error and report.error in first)


_CONTRAST = re.compile(r"(?i)(?:^|[\s,;])(?:but|pero|mas|por[ée]m|however)\s+|でも|けど|但是?|不过")
"""Where the complaint starts in a sentence that first praises ("looks better, but …")."""


def _complaint(text: str, phrase: str) -> str:
    """The sentence of a user message that reports the failure, from the "but" that
    turns to it when the sentence first praises ("it looks better, but the sentences
    are not split" gives "the sentences are not split"), as a dead end shows it."""
    return short(_complaint_sentence(text, phrase) or text, 160)


def _complaint_sentence(text: str, phrase: str) -> str | None:
    """:func:`_complaint` whole (never cut to what a dead end shows), or ``None`` when
    no sentence holds ``phrase``."""
    for sentence in split_sentences(text):
        at = sentence.lower().find(phrase.lower())
        if at < 0:
            continue
        cut = [m.end() for m in _CONTRAST.finditer(sentence, 0, at)]
        if cut:
            sentence = sentence[cut[-1]:]
        return sentence.strip(" \t,;:、，：；")
    return None


def _same_symptom(prev: Found, report: Said) -> bool:
    if prev.signature and report.error:
        return prev.signature == report.error
    # most of the symptom's words again ("still nothing happens when I press new game"),
    # not three words any two long messages share
    a, b = tokens(prev.cause_text), tokens(report.error or report.text[:300])
    return len(a & b) >= max(3, len(a) / 2)


USER_REPLY = 2
"""Messages after a refused or stopped call in which the user's own message says what
they want instead."""


def rejected_episodes(steps: list[Step], said: Sequence[Said] = ()) -> list[Found]:
    """Calls whose permission the user refused, or that the user stopped while they ran:
    the user said no to that approach.  The cause is what the user said (the reason
    given with the refusal, or the message right after), else the refusal itself."""
    users: dict[str, list[Said]] = {}
    for x in said:
        if x.role == "user" and x.text.strip():
            users.setdefault(x.session_id, []).append(x)
    out: list[Found] = []
    for s in steps:
        if not (s.rejected or s.interrupted):
            continue
        if s.interrupted and not s.rejected and looks_only(s.key):
            # a look the user stopped (`lsof`, `studio status` hanging) tried no approach:
            # it answered nothing, which leaves a question open (see untested), and the
            # user's next words are about the work, read by the rules of replies
            continue
        if out and out[-1].session_id == s.session_id and s.ordinal - out[-1].ended <= 1:
            out[-1].ended = s.ordinal
            out[-1].evidence = _dedupe(out[-1].evidence + [(s.ordinal, "ended", None)])
            continue
        reply = next((u for u in users.get(s.session_id, ())
                      if s.ordinal < u.ordinal <= s.ordinal + USER_REPLY), None)
        what = "rejected the call" if s.rejected else "stopped the run"
        told = s.user_said or (what_user_said(reply.text) if reply is not None else "")
        how = "" if s.rejected or not s.signature else f" ({s.signature})"
        cause = f"the user {what}{how}: {short(told, 200)}" if told else (
            "the user rejected the tool permission" if s.rejected else
            f"the user stopped the run ({s.signature or 'aborted'})")
        ev: list[tuple[int, str, str | None]] = [
            (s.ordinal, "ended", "permission rejected" if s.rejected else s.signature)]
        if reply is not None:
            ev.append((reply.ordinal, "ended", short(reply.text, 200)))
        out.append(Found(session_id=s.session_id, name=f"`{s.key}`", first=s.ordinal,
                         ended=s.ordinal, how="rejected" if s.rejected else "interrupted",
                         cause_text=cause, why=told or None, evidence=ev))
    for f in out:  # the reply that takes the refusal in belongs to the episode
        f.evidence.append((f.ended + 1, "ended", None))
        f.evidence = _dedupe(f.evidence)
    return out


ADMIT_REPLY = 3
"""Messages after a user's message within which a reply's admission takes it in."""


def admitted_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A user message, then a reply that opens by admitting the agent was wrong ("You're
    right", "Me equivoqué", "おっしゃる通り"): what the agent said or did in the turn the
    user answered is a dead end (a wrong claim, a misread request, a design the user
    corrected), whatever language the user wrote in.  The cause is the user's
    correction, with the agent's own words on it."""
    users: dict[str, list[Said]] = {}
    for x in said:
        if x.role == "user" and x.text.strip():
            users.setdefault(x.session_id, []).append(x)
    index = _Index(steps)
    out: list[Found] = []
    for a in said:
        if a.signal != "admit":
            continue
        us = users.get(a.session_id, [])
        k = bisect_left([u.ordinal for u in us], a.ordinal)
        if k == 0 or a.ordinal - us[k - 1].ordinal > ADMIT_REPLY:
            continue  # no user message just before: the agent's own aside
        u = us[k - 1]
        start = us[k - 2].ordinal if k >= 2 else 0
        if u.ordinal - start <= 1:
            continue  # nothing was said or done between two user messages
        last = out[-1] if out else None
        if last is not None and last.session_id == a.session_id and last.said_at == u.ordinal:
            # the admission told again in the next message ("you're right, let me check"
            # … "I was wrong"): one episode, the later words say more
            last.evidence = _dedupe(last.evidence + [(a.ordinal, "ended", a.text)])
            last.ended = a.ordinal
            last.cause_text = f"{last.cause_text} {short(a.text, 200)}"
            continue
        turn = index.between(a.session_id, start, u.ordinal)
        changed = [s for s in turn if s.change]
        files = list(dict.fromkeys(c.target for c in changed if c.change and c.target))
        ev: list[tuple[int, str, str | None]] = [
            (c.ordinal, "tested", f"changed {c.target}") for c in changed[-4:]]
        ev.append((u.ordinal - 1, "proposed", None))  # the reply the user answered
        ev.append((u.ordinal, "tested", short(u.text, 200)))
        ev.append((a.ordinal, "ended", a.text))
        asked = next((x for x in reversed(us[:k - 1])), None)
        what = f"change to {', '.join(files[:3])}" if files else \
            f"the answer to «{short(asked.text, 60)}»" if asked is not None else "the answer"
        out.append(Found(
            session_id=a.session_id, name=f"{what} (corrected: «{short(u.text, 60)}»)",
            first=min(o for o, _, _ in ev), ended=a.ordinal, how="admitted",
            cause_text=f"the user corrected it: «{short(u.text, 200)}»; the agent: "
                       f"{short(a.text, 240)}",
            why=short(u.text, 240), evidence=_dedupe(ev), said_at=u.ordinal))
    return out


SUPERSEDED_SPAN = 20
"""Messages within which edits marking things superseded are one redesign."""


def superseded_episodes(steps: list[Step], said: Sequence[Said] = ()) -> list[Found]:
    """Edits that write into a document that an earlier design is superseded (an ADR's
    "Superseded by ADR-022"): that design was given up, replaced at the request the user
    made before the edits.  The cause is the line that says what replaced it."""
    users: dict[str, list[int]] = {}
    for x in said:
        if x.role == "user":
            users.setdefault(x.session_id, []).append(x.ordinal)
    out: list[Found] = []
    for s in steps:
        if not s.change:
            continue
        marks = sorted((ln for ln in s.wrote - s.took if superseded_phrase(ln)),
                       key=lambda ln: (-len(ln), ln))
        if not marks:
            continue
        last = out[-1] if out else None
        if last is not None and last.session_id == s.session_id and \
                s.ordinal - last.ended <= SUPERSEDED_SPAN:
            last.evidence = _dedupe(last.evidence + [(s.ordinal, "ended",
                                                      f"changed {s.target}")])
            last.ended = s.ordinal
            continue
        us = users.get(s.session_id, [])
        k = bisect_left(us, s.ordinal)
        ev: list[tuple[int, str, str | None]] = [(us[k - 1], "tested", None)] if k else []
        ev.append((s.ordinal, "ended", f"changed {s.target}"))
        out.append(Found(
            session_id=s.session_id, name=f"what {s.target} marks superseded "
            f"(«{short(marks[0], 60)}»)", first=ev[0][0], ended=s.ordinal, how="superseded",
            cause_text=short(marks[0], 240), evidence=ev))
    return out


_ACTS = re.compile(r"\b(?:kill|pkill|killall|restart|start|stop|reload|rm|mv|install|"
                   r"uninstall|reset|clear|launchctl|systemctl|service)\b")
"""Commands that act on a guess (stop the extra process, restart, clear) rather than look."""
DROP_SPAN = 8
"""Messages after a guess within which a sentence that dismisses what it names drops it."""
_GUESS_WORDS = frozenset(tokens("""the issue problem cause culprit bug that this it is was
likely probably possibly maybe perhaps might may could be there are were normal expected
suspect wonder let me check server"""))


def dropped_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A guess at a cause ("two whisper-server processes — that's likely the issue"),
    then a sentence of the agent's that dismisses what the guess named ("the two
    processes are normal"): the guess, and what was done on it, was a dead end; the
    dismissal is its cause.  A guess and its dismissal must name the same things."""
    index = _Index(steps)
    out: list[Found] = []
    guesses: list[Said] = []
    for d in said:
        if d.role != "assistant":
            continue
        if d.signal == "hypothesis":
            guesses.append(d)
            continue
        if d.signal != "dismissed":
            continue
        # what the sentence dismisses (its subject), not what else it mentions
        about = tokens(dismissed_subject(d.text) or "") - _GUESS_WORDS
        g = next((g for g in reversed(guesses) if g.session_id == d.session_id
                  and 0 < d.ordinal - g.ordinal <= DROP_SPAN
                  and any(len(t) >= 4 for t in about & tokens(g.text))), None)
        if g is None:
            continue
        if out and out[-1].session_id == d.session_id and out[-1].first == g.ordinal:
            continue
        # the agent acted on the guess (a restart, a kill, an edit) before dropping it;
        # a guess only looked at is how debugging goes
        runs = [s for s in index.between(d.session_id, g.ordinal - 1, d.ordinal + 1)
                if s.change or (s.check and not s.failed and s.key != "")]
        if not any(s.change or _ACTS.search(s.command) for s in runs):
            continue
        runs = [s for s in runs if s.change or _ACTS.search(s.command)][-4:]
        out.append(Found(
            session_id=d.session_id, name=f"the guess «{short(g.text, 70)}»",
            first=g.ordinal, ended=d.ordinal, how="dropped",
            cause_text=f"{short(d.text, 240)} (the guess: {short(g.text, 120)})",
            why=d.text, evidence=_dedupe([(g.ordinal, "proposed", g.text),
                                          *((s.ordinal, "tested", None) for s in runs),
                                          (d.ordinal, "ended", d.text)])))
    return out


STOPPED_WORK = 4
"""Steps of a turn the user stopped that were the work it cut."""


def _unslipped(work: list[Step]) -> list[Step]:
    """``work`` without its slips: a run that failed and the next run, of the same
    program, that worked at once (within :data:`SLIP`): a trap fixed by the next call,
    not the work that was stopped.  (The stopped work stays the last
    :data:`STOPPED_WORK` steps: a slip left out brings no earlier step in.)"""
    slips: set[int] = set()
    runs = [s for s in work if s.check]
    for was, s in zip(runs, runs[1:]):
        if was.failed and not s.failed and s.ordinal - was.ordinal <= SLIP \
                and was.key.split(" ", 1)[0] == s.key.split(" ", 1)[0]:
            slips |= {was.ordinal, s.ordinal}
    return [s for s in work if s.ordinal not in slips]


STOP_MARKS = ("stopped", "aborted")
"""The ``Said`` signals that record a turn the user stopped, whichever agent wrote it:
``stopped``, a user-side record (Claude Code's "[Request interrupted by user]", Codex's
``<turn_aborted>``: :data:`logparse.structural.TURN_MARKS`); ``aborted``, the reply's
own error (opencode's ``MessageAbortedError: Aborted``, the ``aborted`` row of
:data:`logparse.structural.TURN_RULES`).  Where one stop left both records (Codex), the
user-side one tells it."""

STOP_SAME = 2
"""Ordinals within which an ``aborted`` reply and a ``stopped`` record are one stop."""


def stopped_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A turn the user stopped (the agent's own record of it, :data:`STOP_MARKS`): the
    work it was doing is a dead end; the cause is what the user said next (else the
    stop itself)."""
    users: dict[str, list[Said]] = {}
    marks: dict[str, list[int]] = {}
    for x in said:
        if x.signal == "stopped":
            marks.setdefault(x.session_id, []).append(x.ordinal)
        if x.role == "user" and x.text.strip() and x.signal != "stopped" \
                and not x.text.lstrip().startswith(("[Request interrupted", "<turn_aborted>")):
            users.setdefault(x.session_id, []).append(x)
    for near in marks.values():
        near.sort()
    index = _Index(steps)
    out: list[Found] = []
    for m in said:
        if m.signal not in STOP_MARKS:
            continue
        if m.signal == "aborted":
            near = marks.get(m.session_id, [])
            j = bisect_left(near, m.ordinal - STOP_SAME)
            if j < len(near) and near[j] <= m.ordinal + STOP_SAME:
                continue  # the same stop, told by its user-side record
        us = users.get(m.session_id, [])
        k = bisect_left([u.ordinal for u in us], m.ordinal)
        start = us[k - 1].ordinal if k else 0
        work = _unslipped(index.between(m.session_id, start, m.ordinal)[-STOPPED_WORK:])
        if not work or work[-1].interrupted or work[-1].rejected:
            # stopped before it did anything; or the stop was of a call, which the call's
            # own record tells (see rejected_episodes)
            continue
        reply = us[k] if k < len(us) and us[k].ordinal - m.ordinal <= USER_REPLY else None
        ev: list[tuple[int, str, str | None]] = [(s.ordinal, "tested", None) for s in work]
        ev.append((m.ordinal, "ended", "the user stopped the turn"))
        if reply is not None:
            ev.append((reply.ordinal, "ended", short(reply.text, 200)))
        # "claude continua" only says go on: no cause (kb.graph.causechoice.GO_ON)
        words = what_user_said(reply.text) if reply is not None else ""
        told = f": {short(words, 200)}" if words else f" (`{work[-1].key}`)"
        out.append(Found(
            session_id=m.session_id, name=f"the turn the user stopped (`{work[-1].key}`)",
            first=work[0].ordinal, ended=m.ordinal, how="stopped",
            cause_text=f"the user stopped the turn{told}", why=words or None,
            evidence=_dedupe(ev)))
    return out


def retracted_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A change the agent gives up on before anything tested it ("that won't fix it,
    since …"): the edit just made, then a sentence that turns away from it.  And a run
    that worked but is judged not worth it (a benchmark slower than the baseline): the
    run just made, then the sentence that drops it."""
    index = _Index(steps)
    out: list[Found] = []
    for v in said:
        if v.role != "assistant" or v.signal != "dead-end":
            continue
        # the steps since the message before the verdict, up to the verdict's own calls
        # (a message's prose comes before its calls)
        recent = index.between(v.session_id, v.ordinal - RETRACT - 1, v.ordinal)
        if not index.between(v.session_id, v.ordinal - 1, v.ordinal + 2):
            continue  # a turn's closing summary looks back on many things, not on the last
        # the run judged may be a message further back when only searches came between
        # (the agent grepped the run's logs before judging it)
        ran = recent or index.between(v.session_id, v.ordinal - JUDGE_BACK - 1, v.ordinal)
        if ran and ran[-1].check and not ran[-1].failed and ran[-1].command:
            # a run that worked, judged not worth it ("slower: 100.9 against 114.5")
            run = ran[-1]
            if out and out[-1].session_id == v.session_id and out[-1].ended >= run.ordinal:
                continue
            out.append(Found(
                session_id=v.session_id,
                name=f"`{short(_PREFIX.sub('', run.command) or run.command, 80)}`",
                first=run.ordinal, ended=v.ordinal, how="judged",
                cause_text=short(v.text, 200), why=v.text,
                evidence=[(run.ordinal, "tested", None), (v.ordinal, "ended", v.text)]))
            continue
        if not recent or not recent[-1].change or any(s.check for s in recent):
            continue
        changed = [s for s in recent if s.change]
        last = changed[-1]
        if last.wrote and any(
                s.change and s.target == last.target
                and len(last.wrote & s.wrote) >= REWRITE_KEEPS * len(last.wrote)
                for s in index.between(v.session_id, v.ordinal - 1, v.ordinal + 1)):
            # the verdict's own call writes the same file again with nearly every line the
            # change wrote: the edit went wrong on the way ("it left part of the old file")
            # and is redone, nothing was given up (a slip, as kb.graph.iteration reads a
            # rewrite that keeps the file)
            continue
        if out and out[-1].session_id == v.session_id and out[-1].ended >= changed[0].ordinal:
            out[-1].ended = v.ordinal
            out[-1].evidence = _dedupe(out[-1].evidence + [(v.ordinal, "ended", v.text)])
            continue
        files = list(dict.fromkeys(c.target for c in changed if c.target))
        out.append(Found(
            session_id=v.session_id, name=f"change to {', '.join(files[:3]) or 'the code'}",
            first=changed[0].ordinal, ended=v.ordinal, how="retracted",
            cause_text=short(v.text, 200), why=v.text,
            evidence=_dedupe([(c.ordinal, "tested", f"changed {c.target}") for c in changed]
                             + [(v.ordinal, "ended", v.text)])))
    return out


API_WORK = 6
"""Steps before an API error that were the work it cut (when no user message is nearer)."""


def api_error_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """An error from the model's provider (a quota, an overload, an unknown model) after
    which the agent made no further call before the user spoke again or the transcript
    ended: the line of work it was on ended there, unfinished."""
    index = _Index(steps)
    users: dict[str, list[int]] = {}
    for x in said:
        if x.role == "user":
            users.setdefault(x.session_id, []).append(x.ordinal)
    out: list[Found] = []
    for e in said:
        if e.signal != "api-error":
            continue
        us = users.get(e.session_id, [])
        k = bisect_right(us, e.ordinal)
        nxt = us[k] if k < len(us) else 10**9
        if index.between(e.session_id, e.ordinal, nxt):
            continue  # the agent went on by itself: a hiccup, not an end
        start = us[k - 1] if k > 0 else 0
        work = index.between(e.session_id, start - 1, e.ordinal)[-API_WORK:]
        if out and out[-1].session_id == e.session_id and out[-1].ended >= start:
            continue
        if start and not index.between(e.session_id, start, e.ordinal) \
                and transient_api_error(e.text):
            # a quota or an overload answered the request before any work began: it cut
            # no line of work (the request stays an open question: "unanswered")
            continue
        out.append(Found(
            session_id=e.session_id, name=f"work cut by a provider error ({short(e.text, 60)})",
            first=start or e.ordinal, ended=e.ordinal, how="api-error",
            cause_text=f"the model's provider answered with an error: {short(e.text, 160)}",
            evidence=_dedupe(([(start, "tested", None)] if start else [])
                             + [(s.ordinal, "tested", None) for s in work]
                             + [(e.ordinal, "ended", e.text)])))
    return out


RETRACT = 1
"""Messages before a verdict in which the change it retracts was made."""
JUDGE_BACK = 2
"""Messages before a verdict in which the run it judges was made, when no step came
after it (searches are no steps)."""

CLAIM_RUN = 8
"""Messages after the user's answer to a claim of inability in which the agent does it."""
_CLAIM_WORDS = frozenset("""run do make create use execute access install write edit modify
push here from right now directly myself yourself you your terminal command file files""".split())
"""Words of a claim that do not say what it is about."""


def claim_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A claim of inability that ended a turn ("I can't run `opencode export` from here"),
    then the user's answer, then the agent doing it after all: a run of what the claim
    names that worked.  The claim was the dead end, and it was wrong."""
    users: dict[str, list[int]] = {}
    for x in said:
        if x.role == "user":
            users.setdefault(x.session_id, []).append(x.ordinal)
    runs = _Index([s for s in steps if s.check and not s.failed and s.command])
    out: list[Found] = []
    for c in said:
        if c.signal != "cannot":
            continue
        us = users.get(c.session_id, [])
        k = bisect_right(us, c.ordinal)
        if k == len(us) or us[k] - c.ordinal > 2:
            continue  # the claim did not end the turn: the agent went on by itself
        about = tokens(c.text) - _CLAIM_WORDS
        run = next((r for r in runs.between(c.session_id, us[k], us[k] + CLAIM_RUN + 1)
                    if any(len(t) >= 4 for t in about & tokens(r.command))), None)
        if run is None:
            continue
        last = out[-1] if out else None
        if last is not None and last.session_id == c.session_id and last.ended == run.ordinal:
            last.evidence = _dedupe(last.evidence + [(c.ordinal, "tested", c.text),
                                                     (us[k], "tested", None)])
            continue
        out.append(Found(
            session_id=c.session_id, name=f"the claim «{short(c.text, 70)}»",
            first=c.ordinal, ended=run.ordinal, how="claim",
            cause_text=f"the claim was wrong: `{short(_PREFIX.sub('', run.command), 60)}` ran "
            f"through the {run.tool or 'shell'} tool at #{run.ordinal} once the user answered",
            why=c.text, evidence=[(c.ordinal, "proposed", c.text), (us[k], "tested", None),
                                  (run.ordinal, "ended", "it ran")]))
    return out


DAMAGE = 4
"""Messages before the damaging run in which the change it ran was made."""


def damage_episodes(steps: list[Step]) -> list[Found]:
    """A run the next reply reads as having damaged the work ("the content got mangled:
    the regex removed too much"): the change that ran is a dead end at once, however the
    check goes on (it is usually restored, then done another way)."""
    changes = _Index([s for s in steps if s.change and not s.check])
    index = _Index(steps)
    out: list[Found] = []
    for s in steps:
        if not s.judged or first_match(DESTROYED_CUES, s.judged) is None:
            continue
        made = changes.between(s.session_id, s.ordinal - DAMAGE - 1, s.ordinal + 1)
        if not made:
            continue
        if out and out[-1].session_id == s.session_id and out[-1].ended >= made[0].ordinal:
            continue
        runs = [r for r in index.between(s.session_id, made[-1].ordinal, s.ordinal)
                if r.check]
        files = list(dict.fromkeys(c.target for c in made if c.target))
        out.append(Found(
            session_id=s.session_id, name=f"{', '.join(files[:3]) or 'the change'} (damaged "
            "the work)", first=made[0].ordinal, ended=s.ordinal + 1, how="damage",
            cause_text=s.judged, why=s.judged,
            evidence=_dedupe([(c.ordinal, "tested", f"changed {c.target}") for c in made]
                             + [(r.ordinal, "tested", None) for r in runs]
                             + [(s.ordinal, "tested", s.judged),
                                (s.ordinal + 1, "ended", s.judged)])))
    return out


REPLACED = 8
"""Messages after a script's failed run in which a new script of a like name replaces it."""


def replaced_episodes(steps: list[Step]) -> list[Found]:
    """A script the agent wrote, a run of it that failed, then a new script of a like
    name (``convert.php`` → ``convert2.php``) written instead of fixing it: the first
    script was given up."""
    changes = _Index([s for s in steps if s.change and s.target and not s.check])
    runs = _Index([s for s in steps if s.check and s.command])
    out: list[Found] = []
    for s in steps:
        if not (s.check and s.failed and s.command):
            continue
        made = [c for c in changes.between(s.session_id, s.ordinal - 3 * REPLACED, s.ordinal)
                if len(os.path.basename(c.target)) > 4
                and os.path.basename(c.target) in s.command]
        if not made:
            continue
        name = os.path.basename(made[-1].target)
        ext = name.rsplit(".", 1)[-1]
        new = next((g for g in changes.between(s.session_id, s.ordinal, s.ordinal + REPLACED + 1)
                    if (b := os.path.basename(g.target)) != name and b.endswith("." + ext)
                    and SequenceMatcher(None, b, name).ratio() >= 0.7), None)
        if new is None:
            continue
        later = runs.between(s.session_id, new.ordinal, new.ordinal + REPLACED + 1)
        new_name = os.path.basename(new.target)
        if not any(new_name in r.command for r in later) or any(
                name in r.command.replace(new_name, "") for r in later):
            continue  # the new script must run, and the old one be left
        if out and out[-1].session_id == s.session_id and out[-1].ended == new.ordinal:
            out[-1].evidence = _dedupe(out[-1].evidence + [(s.ordinal, "tested",
                                                            s.signature or s.judged)])
            continue
        out.append(Found(
            session_id=s.session_id, name=f"{name} (replaced by {os.path.basename(new.target)})",
            first=made[0].ordinal, ended=new.ordinal, how="replaced",
            cause_text=s.signature or s.judged or "its run failed",
            signature=s.signature,
            evidence=_dedupe([(c.ordinal, "tested", f"changed {c.target}") for c in made[-3:]]
                             + [(s.ordinal, "tested", s.signature or s.judged or None),
                                (new.ordinal, "ended", f"wrote {new.target} instead")])))
    return out


_SPECIFIC = frozenset({"replaced", "damage", "unfound", "claim"})
"""Episodes about one change or one claim: a long failing check around them does not
tell them."""

UNFOUND = 4
"""Messages between a change and a search that finds nothing of it, and between that
search and the rewrite of the same file."""
_NAME_RE = re.compile(r"[A-Za-z_$][\w$]{3,}")
_DEFINITION = re.compile(r"\b(?:function|def|class|func|fn|interface|struct|trait|type|const|"
                         r"let|var|impl|module)\s+\w", re.I)
"""A search for where a name is defined, not for where it is used."""
_DECLARES = frozenset("""function def class func fn const let var public private protected
static async interface type struct impl trait module import from export return""".split())


def unfound_episodes(steps: list[Step], unfound: Sequence[tuple[str, int, str]]
                     ) -> list[Found]:
    """A name the agent just wrote that a search for its definition then does not find
    (``function insert_child``: no files found), and the same file rewritten: the change
    assumed an API that is not there.  (A search for a bare name after removing it
    confirms the removal: no dead end.)"""
    changes = _Index([s for s in steps if s.change and s.target and not s.check])
    out: list[Found] = []
    for sid, o, pattern in unfound:
        if not _DEFINITION.search(pattern):
            continue
        names = [n for n in dict.fromkeys(_NAME_RE.findall(pattern))
                 if n.lower() not in _DECLARES and ("_" in n or n != n.lower()
                                                     or len(n) >= 6)]
        before = changes.between(sid, o - UNFOUND - 1, o)
        after = changes.between(sid, o, o + UNFOUND + 1)
        if not names or not before or not after:
            continue
        first = next((b for b in before if any(a.target == b.target for a in after)), None)
        if first is None:
            continue
        redo = next(a for a in after if a.target == first.target)
        if out and out[-1].session_id == sid and out[-1].ended >= first.ordinal:
            continue
        what = " or ".join(f"`{n}`" for n in names[:2])
        out.append(Found(
            session_id=sid, name=f"{first.target} using {what}", first=first.ordinal,
            ended=redo.ordinal, how="unfound",
            cause_text=f"{what} does not exist: a search for it found nothing",
            evidence=[(first.ordinal, "tested", f"changed {first.target}"),
                      (o, "tested", f"no match for {short(pattern, 80)}"),
                      (redo.ordinal, "ended", f"changed {redo.target} again")]))
    return out


SEEN_WINDOW = 12
"""Messages between an error read (a log, a paste) and the first run of a check."""


def seen_episodes(steps: list[Step], said: list[Said],
                  seen: Sequence[tuple[str, int, tuple[str, ...]]]) -> list[Found]:
    """An error read before the check ever ran (a saved log the agent greps, an error
    the user pastes), a change, and the check's first run failing with that same error:
    the change did not fix it."""
    changes = _Index([s for s in steps if s.change])
    read: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for sid, o, sigs in seen:
        read.setdefault(sid, []).append((o, sigs))
    for a in said:
        if a.role == "user" and a.error:
            read.setdefault(a.session_id, []).append((a.ordinal, (a.error,)))
    for rows in read.values():
        rows.sort()
    out: list[Found] = []
    for chain in _chains(steps):
        first = chain[0]
        if not first.failed or not first.signatures:
            continue
        sid = first.session_id
        for o, sigs in reversed(read.get(sid, ())):
            if o >= first.ordinal:
                continue
            if first.ordinal - o > SEEN_WINDOW:
                break
            common = [x for x in first.signatures if x in sigs]
            if not common:
                continue
            between = changes.between(sid, o, first.ordinal)
            if between:
                what = ", ".join(dict.fromkeys(c.target for c in between if c.target)) or \
                    "the change"
                out.append(Found(
                    session_id=sid, name=f"{short(what, 80)} (did not fix)", first=o,
                    ended=first.ordinal, how="failed-attempt", cause_text=common[0],
                    signature=common[0], evidence=_dedupe(
                        [(o, "tested", common[0]),
                         *((c.ordinal, "tested", f"changed {c.target}") for c in between[-6:]),
                         (first.ordinal, "ended", common[0])])))
            break
    return out


ASK_LOOKUP = 4
"""Messages before a question to the user in which the lookups it is about ran."""


def asked_episodes(said: list[Said], lookups: Sequence[tuple[str, int, str]]
                   ) -> list[Found]:
    """A name looked up that is not there, given up by asking the user about it
    ("which component did you mean by 'interactive slider'?").  One reading with
    :func:`unfound_episodes` (the ``unfound`` rule): a lookup whose answer does not
    hold what it looked for, and the agent leaving that name (here: asking which one
    was meant; there: rewriting the code that used it).  ``lookups``: ``(session,
    ordinal, query)`` of the lookups that came back without their query (nothing found,
    or a lookup tool's answer that does not hold it: ``CallRow.absent``); one counts
    when every word it looked up is in the question, so a question that merely follows
    some searches is about none of them."""
    by: dict[str, list[tuple[int, str]]] = {}
    for sid, o, query in lookups:
        by.setdefault(sid, []).append((o, query))
    out: list[Found] = []
    for a in said:
        if a.signal != "asked":
            continue
        question = _question_words(a.text)
        looked = [(o, q) for o, q in by.get(a.session_id, ())
                  if a.ordinal - ASK_LOOKUP <= o < a.ordinal and tokens(q)
                  and tokens(q) <= question]
        if not looked or len(frozenset().union(*(tokens(q) for _, q in looked))) < 2:
            continue
        what = max((q for _, q in looked), key=len)
        out.append(Found(
            session_id=a.session_id, name=f"looking up «{short(what, 60)}»",
            first=looked[0][0], ended=a.ordinal, how="unfound",
            cause_text=f"nothing is called «{short(what, 60)}»: the user was asked "
                       f"({short(a.text, 200)})",
            evidence=[*((o, "tested", f"looked up {short(q, 60)}") for o, q in looked),
                      (a.ordinal, "ended", a.text)]))
    return out


GUESSES = 3
"""Replies guessing at a cause, with no change made between them, that a finding makes
an investigation that went the wrong way (one guess is how debugging starts)."""
GUESS_SPAN = 12
"""Messages before a finding in which its guesses were made."""


def guess_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """Guesses at a cause made over several replies (the version, a cache, the
    markup …) while only looking, and then a finding of another cause ("I see the
    issue! …"): the guesses were the dead end, the finding is its cause."""
    changes = _Index([s for s in steps if s.change])
    out: list[Found] = []
    guesses: list[Said] = []
    for a in said:
        if a.signal == "hypothesis":
            if guesses and (guesses[-1].session_id != a.session_id or changes.between(
                    a.session_id, guesses[0].ordinal - 1, a.ordinal)):
                guesses = []  # something was changed: a new round of guessing
            guesses.append(a)
        elif a.signal == "found" and guesses:
            made = [g for g in guesses if g.session_id == a.session_id
                    and 0 < a.ordinal - g.ordinal <= GUESS_SPAN]
            found = tokens(a.text)
            if len({g.ordinal for g in made}) >= GUESSES and not changes.between(
                    a.session_id, made[0].ordinal - 1, a.ordinal) and not any(
                    len(tokens(g.text) & found) * 5 >= len(tokens(g.text)) * 3 for g in made):
                # guessed while only looking, and the finding is none of the guesses
                # (a guess the finding restates was right)
                out.append(Found(
                    session_id=a.session_id, name=f"guessing: {short(made[0].text, 80)}",
                    first=made[0].ordinal, ended=a.ordinal, how="guesses",
                    cause_text=a.text, why=a.text,
                    evidence=_dedupe([*((g.ordinal, "tested", g.text) for g in made),
                                      (a.ordinal, "ended", a.text)])))
            guesses = []
    return out


def _dedupe(ev: Sequence[tuple[int, str, str | None]]) -> list[tuple[int, str, str | None]]:
    seen: dict[int, tuple[int, str, str | None]] = {}
    for e in ev:
        if e[0] not in seen or (seen[e[0]][2] is None and e[2] is not None):
            seen[e[0]] = e
    items = sorted(seen.values())
    if len(items) > MAX_EVIDENCE:
        items = items[:MAX_EVIDENCE // 2] + items[-(MAX_EVIDENCE // 2):]
    return items


REWORK_LINES = 1
"""Lines of its own earlier writing an edit must take away to rework it (a one-line tweak
asked for is no dead end)."""
REWORK_TURNS = 2
"""How many user turns back the reworked lines may have been written."""
REWORK_WINDOW = 12
"""Messages after the user's within which the rework must begin: later edits answer what
the turn found, not what the user said."""
_WHOLE_WRITES = frozenset({"write", "create", "create_file", "write_file"})
"""Tools that write a whole file (Claude Code ``Write``, opencode ``write``)."""


def reworked_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """Work the user sent back: after a user message, the agent takes away lines it had
    itself written in the turns before it (a design replaced, an approach rewritten, a
    wrong claim struck from a document).  Structure only: which lines the earlier writes
    added and the later edits removed, whatever language the user spoke."""
    users: dict[str, list[Said]] = {}
    for u in said:
        if u.role == "user" and u.text.strip():
            users.setdefault(u.session_id, []).append(u)
    changes: dict[str, list[Step]] = {}
    for c in steps:
        if c.change and c.target and (c.wrote or c.took):
            changes.setdefault(c.session_id, []).append(c)
    out: list[Found] = []
    for sid, us in users.items():
        mine = changes.get(sid, [])
        ords = [c.ordinal for c in mine]
        # in transcript order (as the pass feeds them): the windows are slices
        ordered = all(a <= b for a, b in zip(ords, ords[1:]))
        for i in range(1, len(us)):
            u = us[i]
            if u.signal or u.error:
                continue  # a reported failure: the refutation rules read it
            start = us[max(0, i - REWORK_TURNS)].ordinal
            end = us[i + 1].ordinal if i + 1 < len(us) else 1 << 31
            stop = min(end, u.ordinal + REWORK_WINDOW + 1)
            if ordered:
                before = mine[bisect_right(ords, start):bisect_left(ords, u.ordinal)]
                after = mine[bisect_right(ords, u.ordinal):bisect_left(ords, stop)]
            else:
                before = [c for c in mine if start < c.ordinal < u.ordinal]
                after = [c for c in mine if u.ordinal < c.ordinal < stop]
            if not before or not after:
                continue
            redone: list[Step] = []
            made: list[Step] = []
            for c in after:
                whole = c.key.split(" ", 1)[0] in _WHOLE_WRITES and not c.took
                if whole:
                    # a whole file written again: what its earlier writing had and this
                    # one has not was taken away
                    c = c._replace(took=frozenset().union(
                        *(e.wrote for e in before if e.target == c.target)) - c.wrote)
                own = [e for e in before if e.target == c.target and e.wrote & c.took]
                if not own:
                    continue
                mine_lines = frozenset().union(*(e.wrote for e in own))
                # a line written back with more on it stayed (kb.graph.iteration)
                lost = taken_away(mine_lines & c.took, c.wrote)
                if whole and len(lost) < (1 - REWRITE_KEEPS) * len(
                        frozenset().union(*(e.wrote for e in before if e.target == c.target))):
                    continue  # the file rewritten with nearly all of it kept: revised
                if len(lost) >= REWORK_LINES:
                    redone.append(c._replace(took=frozenset(lost)))
                    made += [e for e in own if e not in made]
            if redone and all(is_test_path(c.target) for c in redone):
                continue  # only tests' expectations rewritten: they follow the code
            if not redone:
                continue
            made.sort(key=lambda e: e.ordinal)
            files = list(dict.fromkeys(c.target for c in redone))
            # what was given up: the longest of its own lines the agent took away
            gone = sorted(frozenset().union(*(e.wrote for e in made))
                          & frozenset().union(*(c.took for c in redone)),
                          key=lambda x: (-len(x), x))[:3]
            replaced = "; ".join(f"`{short(x, 80)}`" for x in gone)
            ev: list[tuple[int, str, str | None]] = [
                (e.ordinal, "tested", f"changed {e.target}") for e in made[-3:]]
            ev.append((u.ordinal, "tested", short(u.text, 200)))
            ev.append((redone[0].ordinal, "ended", f"changed {redone[0].target}"))
            out.append(Found(session_id=sid,
                             name=f"{', '.join(files[:2])}: {short(gone[0], 70)} (sent back: "
                                  f"«{short(u.text, 50)}»)",
                             first=made[0].ordinal, ended=redone[-1].ordinal, how="reworked",
                             cause_text=f"{short(u.text, 200)} (took away "
                                        f"{replaced})",
                             why=short(u.text, 240), evidence=_dedupe(ev), said_at=u.ordinal))
    return out


# ------------------------------------------------------------- env workaround
WORKAROUND_GAP = 12
"""Ordinals from a probe's last failure within which a run of it with an environment
override that works is its workaround."""
WORKAROUND_FAILS = 2
"""Failed runs of a probe before a workaround makes the direct way a dead end (one
failure fixed at once is a slip)."""


class Probe(NamedTuple):
    """A shell run that only looks (``pnpm --version``, ``which x``): not a check, but a
    family of them failing tells that the direct way does not work."""

    session_id: str
    ordinal: int
    command: str
    failed: bool
    failure: str = ""
    """The line a failed run failed with."""


_ENV_WORD = re.compile(r"(?<![A-Z0-9_])[A-Z_][A-Z0-9_]*=\S*")  # one start a name: linear


def _env_override(segment: str) -> frozenset[str]:
    """The variables a command sets for its program (``A=0 pnpm -v`` → ``{"A"}``)."""
    out = set()
    for w in segment.split():
        if not _ENV_WORD.fullmatch(w):
            break
        out.add(w.split("=", 1)[0])
    return frozenset(out)


_PROBE_KEYS: Memo[tuple[tuple[str, frozenset[str]], ...]] = memo("probe keys")


def _probe_keys(command: str) -> dict[str, frozenset[str]]:
    """The programs a probe runs, each with the variables it sets for it
    (``node -v && A=0 pnpm -v | head`` → ``{node: {}, pnpm: {A}, head: {}}``); memoised
    (the episode rules read every probe of a scope again after each update)."""
    return dict(_PROBE_KEYS.get(text_key(command),
                                lambda: tuple(_probe_programs(command).items())))


def _probe_programs(command: str) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for seg in _SPLIT.split(_PREFIX.sub("", command.strip())):
        key = check_key("bash", seg.strip())
        if key != "bash" and key.split(" ", 1)[0] not in _PRELUDE:
            out.setdefault(key, _env_override(seg.strip()))
    return out


def workaround_episodes(probes: Sequence[Probe]) -> list[Found]:
    """A probe that fails again and again, then works once the agent sets an environment
    variable for it (``COREPACK_ENABLE_PROJECT_SPEC=0 pnpm --version``): the direct way
    was a dead end, and the first failure says why.  One failure is a slip; a clean run
    without the override between them (its failure piped into ``head`` exits 0) does not
    end the family."""
    out: list[Found] = []
    fails: dict[tuple[str, str], list[Probe]] = {}
    for p in probes:
        for key, env in _probe_keys(p.command).items():
            mine = fails.setdefault((p.session_id, key), [])
            if mine and p.ordinal - mine[-1].ordinal > WORKAROUND_GAP:
                mine.clear()
            if p.failed:
                if not env:
                    mine.append(p)
                continue
            if not env:
                continue
            if len(mine) >= WORKAROUND_FAILS:
                cause = next((f.failure for f in mine if f.failure), "") or \
                    f"{key} failed {len(mine)} times"
                ev = [(f.ordinal, "tested", short(f.failure, 120) or None) for f in mine]
                ev.append((p.ordinal, "ended", f"worked with {', '.join(sorted(env))} set"))
                out.append(Found(session_id=p.session_id, name=f"{short(key, 60)} run "
                                 "directly (replaced by an environment override)",
                                 first=mine[0].ordinal, ended=p.ordinal,
                                 how="workaround", cause_text=short(cause, 200),
                                 signature=None, evidence=_dedupe(ev)))
            mine.clear()
    out.sort(key=lambda f: (f.session_id, f.first))
    return out



# ------------------------------------------------------------- the user redirects
REDIRECT_REPLY = 3
"""Messages after a user's within which a reply's taking in of a redirect answers it."""
REDIRECT_REWORK = 8
"""Messages after that reply within which its first change is the work redone."""


def _users(said: Sequence[Said]) -> dict[str, list[Said]]:
    out: dict[str, list[Said]] = {}
    for x in said:
        if x.role == "user" and x.text.strip():
            out.setdefault(x.session_id, []).append(x)
    return out


def _redirect(steps: _Index, us: list[Said], k: int, reply: int, how: str, cause: str,
              name: str) -> Found | None:
    """The episode of the work of the turn before user message ``us[k]`` that the user
    turned away from: its last changes, the reply the user answered, the user's message,
    the reply that took it in and the first change that redid the work."""
    u = us[k]
    start = us[k - 1].ordinal if k >= 1 else 0
    if u.ordinal - start <= 1 or _short_reply(u):
        return None  # nothing was done between two user messages; or only "ok, go on"
    sid = u.session_id
    turn = steps.between(sid, start, u.ordinal)
    # the work the user turned away from: where it began and where it ended
    work = [s for s in turn if s.change] or [s for s in turn if s.check]
    changed = work[:2] + work[2:][-3:]
    nxt = us[k + 1].ordinal if k + 1 < len(us) else 1 << 31
    redo = next((s for s in steps.between(sid, reply, min(nxt, reply + REDIRECT_REWORK + 1))
                 if s.change), None)
    ev: list[tuple[int, str, str | None]] = [
        (c.ordinal, "tested", f"changed {c.target}" if c.change else None) for c in changed]
    ev.append((u.ordinal - 1, "proposed", None))  # the reply the user answered
    ev.append((u.ordinal, "tested", short(u.text, 200)))
    ev.append((reply, "ended", None))
    if redo is not None:
        ev.append((redo.ordinal, "ended", f"redone: changed {redo.target}"))
    files = list(dict.fromkeys(c.target for c in changed if c.target))
    what = f"change to {', '.join(files[:3])}" if files else \
        f"the reply to «{short(us[k - 1].text, 60)}»" if k >= 1 else "the reply"
    return Found(session_id=sid, name=f"{what} ({name}: «{short(u.text, 60)}»)",
                 first=min(o for o, _, _ in ev), ended=max(o for o, _, _ in ev), how=how,
                 cause_text=cause, why=short(u.text, 240), evidence=_dedupe(ev),
                 said_at=u.ordinal)


def redirected_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A user message that is no failure report, then a reply that opens by turning to
    what the user now wants ("I'm switching the target to Kosh AI", "… instead of the
    current design", "Entonces usá …"): the work or the answer of the turn before was
    given up on the user's word, though the agent never says it was wrong.  The cause is
    the user's message; the reply's words only tell that it was taken in."""
    users = _users(said)
    index = _Index(steps)
    out: list[Found] = []
    for a in said:
        if a.signal != "redirect" or a.role != "assistant":
            continue
        us = users.get(a.session_id, [])
        k = bisect_left([u.ordinal for u in us], a.ordinal) - 1
        if k < 0 or a.ordinal - us[k].ordinal > REDIRECT_REPLY:
            continue  # no user message just before: the agent's own change of plan
        u = us[k]
        if u.error or is_question(u.text):
            continue  # an error quoted (the refutation rules read it), or a question
        if out and out[-1].session_id == a.session_id and out[-1].said_at == u.ordinal:
            continue  # the same redirect, taken in again (reasoning, then text)
        f = _redirect(index, us, k, a.ordinal, "redirected",
                      f"the user redirected it: «{short(u.text, 200)}»", "redirected")
        if f is not None:
            out.append(f)
    return out


def user_dropped_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A user message that drops a name the reply it answers used ("vamos ignorar os dois
    projetos existentes, o Pfm.Categorization.Contracts …" after a plan built on that
    project): what the turn proposed on it was a dead end, set aside by the user.  Only
    identifier-like names count (a dotted or camel-case name, a file, a package), and
    only names the answered reply wrote."""
    users = _users(said)
    index = _Index(steps)
    answered = {(x.session_id, x.ordinal): x.text for x in said if x.signal == "answered"}
    out: list[Found] = []
    for sid, us in users.items():
        for k, u in enumerate(us):
            if u.signal is not None or u.error:
                continue
            names = dropped_names(request_text(u.text))  # (the user's words only)
            if not names:
                continue
            before = " ".join(answered.get((sid, o), "") for o in (u.ordinal - 2, u.ordinal - 1))
            used = [n for n in names if n in before]
            if not used:
                continue
            f = _redirect(index, us, k, u.ordinal + 1, "user-dropped",
                          f"the user set {', '.join(used[:3])} aside: «{short(u.text, 200)}»",
                          "set aside")
            if f is not None:
                out.append(f)
    return out



UNDO_WINDOW = 4
"""Messages after a user's within which a command that undoes the agent's own work is the
answer to it (later, it is the agent's own cleaning up)."""
_INSTALLS = re.compile(r"\b(?:install|add|i|require|get)\b")


def undone_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A user message, then at once a command that undoes what the agent did in the turns
    before it (a file it changed restored or deleted, a package it installed removed or
    pinned back, the tree reset): the work was turned down, whether or not anyone says so.
    Structure only (:data:`logparse.redirects.UNDO_RULES`); the cause is the user's
    message."""
    users = _users(said)
    index = _Index(steps)
    out: list[Found] = []
    for sid, us in users.items():
        for k, u in enumerate(us):
            if u.error or _short_reply(u):
                continue
            start = us[max(0, k - REWORK_TURNS)].ordinal if k else 0
            end = us[k + 1].ordinal if k + 1 < len(us) else 1 << 31
            before = index.between(sid, start, u.ordinal)
            if not before:
                continue
            own: list[Step] = []
            undo: Step | None = None
            for s in index.between(sid, u.ordinal, min(end, u.ordinal + UNDO_WINDOW + 1)):
                for rule, t in undone(s.command) if s.command else ():
                    if rule.undoes == "file":
                        if rule.name == "rm-file" and any(
                                c.check and t in c.command for c in before):
                            continue  # a helper script it ran, cleaned up
                        mine = [c for c in before if c.change and c.target
                                and os.path.basename(c.target) == t]
                    elif rule.undoes == "package":
                        mine = [c for c in before if c.command and t and t in c.command
                                and _INSTALLS.search(c.command) and not undone(c.command)]
                    else:
                        mine = [c for c in before if c.change]
                    own += [c for c in mine if c not in own]
                    if mine and undo is None:
                        undo = s
            if undo is None:
                continue
            own.sort(key=lambda c: c.ordinal)
            ev: list[tuple[int, str, str | None]] = [
                (c.ordinal, "tested", f"changed {c.target}" if c.change else None)
                for c in own[-4:]]
            ev.append((u.ordinal, "tested", short(u.text, 200)))
            ev.append((undo.ordinal, "ended", f"undone: {short(undo.command, 120)}"))
            what = ", ".join(dict.fromkeys(c.target or c.key for c in own[-3:]))
            out.append(Found(
                session_id=sid, name=f"{short(what, 70)} (undone after «{short(u.text, 50)}»)",
                first=min(o for o, _, _ in ev), ended=undo.ordinal, how="undone",
                cause_text=f"the user: «{short(u.text, 200)}»; the agent undid it: "
                           f"`{short(undo.command, 100)}`",
                why=short(u.text, 240), evidence=_dedupe(ev), said_at=u.ordinal))
    return out



REVIEW_WINDOW = 20
"""Messages after a review within which the agent's edits act on what it found."""


def reviewed_episodes(steps: list[Step], said: list[Said]) -> list[Found]:
    """A sub-agent that reviewed the work (its task named a review: Claude Code's and
    opencode's ``task``, Codex's ``spawn_agent`` answered by its ``wait``), then, before
    the user speaks again, edits that take away lines the agent itself wrote earlier in
    the session: what those lines said or did was found wrong by the review, with no
    failing command.  The ``taken_back`` rule's reading (:mod:`kb.graph.takenback`: own
    lines taken away, no user and no failure asking for it) with the review as what made
    the agent read its work again, so the writing may be far back.  (Any sub-agent's
    answer as that trigger was tried: its one new hit, uicomponents-wordpress #172 ->
    #230, is a refactor, not a dead end.)  One episode per file sent back; the cause is
    the agent's reading of the findings (the diagnosis after the review), else the review
    itself."""
    users = _users(said)
    changes: dict[str, list[Step]] = {}
    for c in steps:
        if c.change and c.target and (c.wrote or c.took):
            changes.setdefault(c.session_id, []).append(c)
    out: list[Found] = []
    for r in said:
        if r.signal != "reviewed":
            continue
        sid = r.session_id
        nxt = next((u.ordinal for u in users.get(sid, ()) if u.ordinal > r.ordinal), 1 << 31)
        end = min(nxt, r.ordinal + REVIEW_WINDOW + 1)
        mine = changes.get(sid, [])
        before = [c for c in mine if c.ordinal < r.ordinal]
        sent: dict[str, tuple[list[Step], list[Step], set[str]]] = {}
        for c in (c for c in mine if r.ordinal < c.ordinal < end):
            took = c.took
            if c.key.split(" ", 1)[0] in _WHOLE_WRITES and not took:
                took = frozenset().union(*(e.wrote for e in before if e.target == c.target)) \
                    - c.wrote
            own = [e for e in before if e.target == c.target and e.wrote & took]
            if not own:
                continue
            # a line written back with more on it stayed (kb.graph.iteration)
            lost = taken_away(frozenset().union(*(e.wrote for e in own)) & took, c.wrote)
            if not lost:
                continue
            made, redone, gone = sent.setdefault(c.target, ([], [], set()))
            made += [e for e in own if e not in made]
            redone.append(c)
            gone |= lost
        for target, (made, redone, gone) in sent.items():
            made.sort(key=lambda e: e.ordinal)
            lines = sorted(gone, key=lambda x: (-len(x), x))[:2]
            ev: list[tuple[int, str, str | None]] = [
                (e.ordinal, "tested", f"changed {e.target}") for e in made[-3:]]
            # (the review itself is how it was found, not a step of the dead end)
            ev += [(c.ordinal, "ended", f"changed {c.target}") for c in redone[:3]]
            out.append(Found(
                session_id=sid, name=f"{target}: {short(lines[0], 70)} (sent back by a review)",
                first=made[0].ordinal, ended=redone[-1].ordinal, how="taken-back",
                cause_text=f"a review («{short(r.text, 80)}») found it wrong: took away "
                           + "; ".join(f"`{short(x, 80)}`" for x in lines),
                evidence=_dedupe(ev), said_at=r.ordinal))
    return out



def made_by(rule: str, found: list[Found]) -> list[Found]:
    """``found`` with the rule that read them named (where no caller named one); none
    of a family ``LOGKB_ABLATE`` switched off (:mod:`kb.graph.ablate`, benches only)."""
    for f in found:
        f.rule = f.rule or rule
    return [f for f in found if not off(f.rule)]


def episodes(steps: list[Step], said: list[Said],
             unfound: Sequence[tuple[str, int, str]] = (),
             seen: Sequence[tuple[str, int, tuple[str, ...]]] = (),
             lookups: Sequence[tuple[str, int, str]] = (),
             probes: Sequence[Probe] = (), more: Sequence[Found] = (),
             weak: Sequence[Found] = ()) -> list[Found]:
    """Every dead end the episode rules find, in transcript order; an episode that
    repeats one already found (most of its evidence shared) is dropped.  ``more``: the
    episodes of rules kept in modules of their own (:mod:`kb.graph.switched`), weighed
    with these; ``weak``: ones of such modules that never hide another
    (:mod:`kb.graph.takenback`)."""
    found = made_by("attempt", attempt_episodes(steps)) + \
        made_by("check", check_episodes(steps, said)) + \
        made_by("refuted", refuted_episodes(steps, said)) + \
        made_by("rejected", rejected_episodes(steps, said)) + \
        made_by("api_error", api_error_episodes(steps, said)) + \
        made_by("retracted", retracted_episodes(steps, said)) + \
        made_by("claim", claim_episodes(steps, said)) + \
        made_by("admitted", admitted_episodes(steps, said)) + \
        made_by("superseded", superseded_episodes(steps, said)) + \
        made_by("dropped", dropped_episodes(steps, said)) + \
        made_by("stopped", stopped_episodes(steps, said)) + \
        made_by("unfound", unfound_episodes(steps, unfound)
                + asked_episodes(said, lookups)) + \
        made_by("damage", damage_episodes(steps)) + \
        made_by("replaced", replaced_episodes(steps)) + \
        made_by("guess", guess_episodes(steps, said)) + \
        made_by("seen", seen_episodes(steps, said, seen)) + \
        made_by("workaround", workaround_episodes(probes)) + \
        list(more)
    found.sort(key=lambda f: (f.session_id, f.first))
    # a run given up in the sandbox and asked for outside it (kb.graph.switched) tells the
    # whole story of the run left after one failure: one dead end, not two
    escalated = {(f.session_id, f.first) for f in found if f.how == "escalated"}
    found = [f for f in found if f.how != "abandoned-check"
             or (f.session_id, f.first) not in escalated]
    kept: list[Found] = []
    for f in found:
        mine = f.ordinals()
        near = [k for k in kept[-32:] if k.session_id == f.session_id
                and (f.how not in _SPECIFIC or k.how in _SPECIFIC)]
        if any(len(mine & k.ordinals()) * 2 > len(mine) for k in near):
            continue
        same = next((k for k in kept[-32:] if k.session_id == f.session_id and f.signature
                     and k.signature == f.signature and mine & k.ordinals()), None)
        if same is not None:
            # the same error on the same runs, read by two rules (a check given up, the
            # run switched for another): one dead end, told once with all its evidence
            same.evidence = _dedupe(same.evidence + f.evidence)
            same.ended = max(same.ended, f.ended)
            continue
        kept.append(f)
    # work the user sent back or turned away from is the weakest reading: it never hides
    # another episode, and is dropped where another one already tells what happened
    for f in made_by("reworked", reworked_episodes(steps, said)) + \
            made_by("redirected", redirected_episodes(steps, said)) + \
            made_by("user_dropped", user_dropped_episodes(steps, said)) + \
            made_by("undone", undone_episodes(steps, said)) + \
            made_by("taken_back", reviewed_episodes(steps, said)) + list(weak):
        mine = f.ordinals()
        if not any(k.session_id == f.session_id and len(mine & k.ordinals()) * 2 > len(mine)
                   for k in kept):
            kept.append(f)
    kept.sort(key=lambda f: (f.session_id, f.first))
    return kept
