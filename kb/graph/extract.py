"""Rule-based extraction of the campaign's story from a session's event rows.

One pass over a session's signal rows in transcript order (todo snapshots,
assistant prose, tool calls) tracks *approaches* (things the engineer set out
to try), the *experiments* that tested them, how each ended and why, the
*pivots* between them, *decisions*, and *questions* a check never answered.
Then annotations (``logkb mark``) are applied: they win over every heuristic.

Pure: rows in, :class:`Extraction` out; no IO (see :mod:`kb.graph.store`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kb.graph.ablate import off as ablated
from kb.graph.causechoice import concluded_finding, files_named, own_root
from kb.graph.delegated import AGENT_KEY, delegated_episodes, told_once
from kb.graph.disproved import HEAD as DISPROVED_HEAD
from kb.graph.disproved import disproved_episodes
from kb.graph.episodes import (
    JUDGE_BACK,
    LOST_TASK,
    PROBES,
    Found,
    Probe,
    Said,
    Step,
    check_key,
    episodes,
    made_by,
    segment_words,
)
from kb.graph.misread import misread_episodes
from kb.graph.replycues import (
    CANNOT_CUES,
    CANNOT_NOT_AFTER,
    FOUND_CUES,
    FOUND_GUARDED,
    FOUND_NOT_AFTER,
    HYPOTHESIS_CUES,
    JUDGED_CUES,
    first_match,
    joined,
)
from kb.graph.revised import revised_episodes
from kb.graph.rewound import rewound_episodes
from kb.graph.rootcause import (
    GUESS,
    LATER,
    announces,
    later_root,
    plain,
    review_finding,
    unnarrated,
)
from kb.graph.switched import (
    dropped_option_episodes,
    escalated_episodes,
    merged_stderr_episodes,
    switched_episodes,
)
from kb.graph.takenback import taken_back_episodes
from kb.graph.text import (
    RETEST,
    STOPWORDS,
    Cause,
    announced,
    before_forward,
    cause_of,
    clause_with,
    item_kind,
    lead_up,
    question_of,
    sentence_bounds,
    sentence_with,
    short,
    similarity,
    split_todo,
    squash,
    tokens,
    transport_failure,
    version_entity,
)
from logparse.errorline import cancelled_by, readable, says_more
from logparse.memo import Memo, memo, text_key
from logparse.prose import dead_end_phrase, decision_phrase, pivot_phrase, refutation_phrase
from logparse.redirects import review_phrase
from logparse.request import INTERRUPT_MARK, request_text
from logparse.revision import quoted
from logparse.sentences import SENTENCE_BREAK, split_sentences
from logparse.structural import (
    DELEGATION_TOOLS,
    MessageFacts,
    admission_phrase,
    correction_phrase,
    dismissal_phrase,
    message_signals,
    printing_segment,
    still_broken_phrase,
    turn_mark,
    user_reason,
)

EXTRACTOR_VERSION = 95
"""Version of the extraction rules: bump it whenever a rule changes what is derived, so
knowledge bases derived by older rules are re-derived (see :mod:`kb.graph.store`).
15 (measure3): untested checks of an output the tool cut, of a result the user's
interrupt left unread, and the last request of a transcript that ends mid-turn.
16 (extract3): corrections the agent admits (any language), redesigns marked superseded,
guesses acted on and dismissed, turns the user stopped end the work they concern.
18 (xcodex): a way replaced by another command on the same object, and a sandboxed run
escalated that did not simply work (:mod:`kb.graph.switched`).
19 (xrefute): work the user redirected, set aside or saw undone, and own lines a review
sub-agent sent back, with no failing command (:mod:`logparse.redirects`).
20 (xcause): a root cause the agent states later in the turn, once it looked again, labels
an episode's cause (:mod:`kb.graph.rootcause`).
21 (xdead): a design the agent took back on its own, with no user turn and no failed run
between (:mod:`kb.graph.takenback`).
22 (codexrd): a Codex ``write_stdin`` poll linked to the run it polls is no check of its
own (the run carries the answer it read); a run given up after one failure in the sandbox
and asked for outside it is one dead end (the escalated one), not two.

23 (xmeas): the measurements a graph reads (``tested``, decisive results) changed with
``DERIVE_VERSION`` 14, and the graph's fingerprint sees messages, not events.

24 (xswitch): a clean run that printed its program's usage failed; a failed run whose
retry only dropped options gave up what the options asked for.

25 (xcause2): a diagnosis sentence loses its Markdown and narration lead-in, a short
opener that says nothing of a cause leads no sentence in, and a hedge anywhere ranks it
below a stated one.

26 (xstill): the user's "nothing changed" / "still the same" in any language of the pool
refutes the change before it, and reports of the same problem with no change between
join one dead end.

27 (xcodex): a Codex plan step dropped with no user request between ends its approach;
an open question on an MCP call names its tool.

28 (xexit0): a clean exit whose output says a tool or library it needs failed (a probe's
"openpyxl: NOT available", ``zsh:1: command not found`` behind ``| head``) is a failed
run; a module or program that was missing and then left out of the run that worked on
the same object was given up (an install in between fixes nothing); one user report
with several complaints about changes of their own gives a dead end per complaint.

29 (xhyp): an explanation the agent gave that a later statement turned round, or that the
user's evidence made it replace by another cause (:mod:`kb.graph.disproved`).

30 (xprec): iteration is no correction: a line written back with more added, tests that
follow the code, a rewrite that keeps most of the file, a turn that only looked, an
approval opening the next request and a quota hit before any work send nothing back
(:mod:`kb.graph.iteration`); two rules with the same error on the same runs give one
dead end.

31 (xsupport): every dead end names the rule that ended it (``via``), for
``python -m bench rule-support``.

32 (xcause3): a root the agent states after it looked again (a read or a search is
looking) revises a diagnosis it gave after the end; the later statement is read without
its Markdown, must name a word of four letters or more of the subject and is no
conditional; a complaint piece is read against its own complaint; a compaction is the
cause only when the replies after it changed nothing (they lost the task).

33 (xmisread): a request the user restates, naming what the turn never touched, and the
agent then does with other work is a misread request (:mod:`kb.graph.misread`).

34 (xrevise): a limiting belief a later sentence of the same block turns round, grounded
in what the calls touched and acted on, and a quantity read off a result that the agent
names again with the reason it read it wrong (:mod:`kb.graph.revised`).

35 (ux3): the branch a user rewound away from (Gemini CLI ``$rewindTo``) is a dead end
(:mod:`kb.graph.rewound`).

36 (xsub): a delegation to a sub-agent is a step whose outcome is the sub-agent's own
(``subagent_failed``); one that failed and was not redone is a dead end
(:mod:`kb.graph.delegated`); one with no answer at export is an open question.

37 (xcause4): lines a review sent back, whose first edit gives no reason (a heading),
take as cause the finding each edit names: the item of the agent's reading of the review
its heading names, else the statement its message opens with
(:data:`kb.graph.rootcause.REVIEW_READINGS`); a cause from a reply loses its Markdown and
an "Ah,"; a failed run's line is never a usage synopsis, and "… failed: why" says why
(:data:`logparse.errorline.ERROR_LINES`).

38 (xsig): what a reply ended with is read by the turn rules (an opencode
``MessageOutputLengthError`` is a cut reply, not a provider error, as Claude Code's
``max_tokens``; an Antigravity call the tool could not parse is no provider error); runs cut
by opencode's timeout, outputs cut by Claude Code, opencode and pi, and runs that sat at a
prompt leave their questions open as Codex's do.

39 (xfit): the cue rows of the rules fitted to one session say their idea in general terms
and in every language of the pool: guesses, findings, claims of inability, runs read as
failed or damaging (:mod:`kb.graph.replycues`); a user's correction label and "no longer
there" (:data:`logparse.structural.CORRECTION_CUES`).

40 (xcodex2): a Codex ``spawn_agent`` whose child's rollout ended on an error failed; the
spawn and the ``wait`` of one sub-agent are one delegation, and the child's own provider
error that the delegation reports is not told again (:mod:`kb.graph.delegated`).

41 (xcause5): a user message that only says go on ("claude
continua") is no cause of the turn it stopped; a change the user's next message does not
speak of (it names other files) takes as cause the root the agent stated about the change
before it; no cause opens with a narration lead-in, nor quotes one in a parenthesis
(:mod:`kb.graph.causechoice`).

42 (xstruct): a change the agent undid itself after a check, and a target given up for
another of its kind (both removed at the merge, see 43).

43 (fix5): a Claude Code ``Task`` (or opencode ``task``) whose child session ended on the
error the delegation reports is told once, as the delegation (:func:`kb.graph.delegated.
told_once`); the stored title of a Gemini CLI session skips a prompt the user rewound
away from (:mod:`kb.ingest`).  xstruct's two rules are gone: ``retarget`` found no dead end of
its own on tune or shared and one extra on the held-out set; ``reverted`` found one on
shared (one session) and four false ones on the recorded campaigns (a config set back
after a smoke run is no dead end).

44 (fix9): claims, revisions, disproved hypotheses, stated roots, guesses, complaints and
the hand-off's asks are read in the sentences of one splitter (:mod:`logparse.sentences`),
which ends a sentence at a full-width ``。！？`` with or without a space after it and
before a Spanish ``¿``/``¡``.
45 (xcodex3): a run that failed in the sandbox and was then asked for outside it is one
rule whatever the escalated run did (:func:`kb.graph.switched.escalated_episodes`: it
worked, ``sandboxed``; it did not, ``escalated``); ``sandboxed_episodes`` is gone.  A run
that failed, then another command on the same target that worked, is one rule too
(:func:`kb.graph.switched.switched_episodes`; a script is one of its objects now):
``replaced_run_episodes``, which read the same shape on URLs and scripts, is gone; a run
whose program the shell did not find (PowerShell's "is not recognized" too) is replaced
by another command on its object whatever was edited in between.
46 (xloso2): a turn the user stopped is read from every agent's record of the stop, the
reply's own ``aborted_turn`` error too (opencode ``MessageAbortedError: Aborted``), not
only Claude Code's and Codex's user-side marks (:data:`kb.graph.episodes.STOP_MARKS`);
a slip in the stopped work (a failed run the next call fixed) is left out of it.
47 (ux6): two rules that read one dead end keep a single end when merged (the earlier
one), not both end notes with the later one as the end.
48: 47's merge taken back: two readings of one dead end keep both ends and the later
one as its end again (47 broke a recorded campaign's precision and the iteration test).
49 (meas10): the measurements a graph reads gained amounts of money, unit-named keys,
spaced compound durations, whole Claude Code reads' lengths (DERIVE_VERSION 32).
50: 49 (prec10) and 49 (meas10) merged; prec10's 49: a user report refutes the turn
only when its complaint sentence itself shares a word with the request.
51 (ccrec): a change a provider error cut before it was checked ("does the change to X
work?") is answered by the next check the session runs (after a "continue"), as a
recorded Claude Code 2.1.332 session does; a Claude Code run started in the background
(``Command running in background with ID: …``) has the exit code the ``<task-notification>``
naming it reports (``failed with exit code 124``), or none (``still_running``) when none
came.
52 (review10): 49's complaint read whole, not cut to the 160 characters a dead end
shows; a key's epoch time is no reading (DERIVE_VERSION 35).
53: 49's rule taken back (a report refutes the turn when any of its first 1,500
characters names the work again): it removed one false positive in one tuning session
and cost three true dead ends on the held-out labels.
55 (cause11): a root the agent stated over an error (a failed run's, or one the user
pasted), and an episode's words that explain the error they quote, are a stated cause,
named by those words, not by the error.
57 (codex11): a Codex code-mode ``wait`` on a cell that yielded is a poll of the cell's
run, as ``write_stdin`` is of a process (the reader links it: ``input.polls``): what it
read is the run's, no step, no question, no dead end of its own.
60: 55 and 57 together (both branches' changes, merged).
62 (recall12): a request the user restates is one rule, read by structure
(:mod:`kb.graph.misread`): the restated words no call of the turn touched, then either
work of another kind that takes them up or the request said again nearly whole (a turn
of replies with no call too); the refutation rule's own "asked again" reading is gone.
Words are letter runs in any alphabet and Han/Katakana character pairs.
65 (cause12): an error signature that only names a type (``MethodInvocationException``)
takes the run's message line as its cause's label (PowerShell's error record: the line
behind the gutter), the key unchanged; a call Claude Code cancelled because the call
beside it failed takes that call's error as its cause; an error's label drops the script
it quotes after an escaped newline and the code location PHP names (``TIDY``).
67: 62 and 65 together.
71 (fit13): a look (a program of :data:`kb.graph.episodes.PROBES`: ``find``,
``Get-ChildItem``, ``ls``, ``which``, ...) that failed once and was not run again found
nothing, or ran into its timeout: no approach given up (``abandoned-check``).  Claude
Code's IDE blocks in a user message (``<ide_opened_file>``, ``<ide_selection>``) are read
as no report (:func:`logparse.request.without_ide`).
70 (recall13): a clean run the reply reads as failed by "none of them worked", "way too
short", "that seems wrong" (and their Spanish, Portuguese, Chinese rows) is a failure of
its check, and so is the last run up to two messages back when only reads came between;
one such failure the agent turns away from gives its check up.
73: 70 and 71 together.
74 (cues13b): cue rows keep "should not match" lines (``Cue.counter``): "I want to rule
out" is a plan, no dismissal; "is expected to be" describes, "is expected" finds;
"不是换成" keeps a way and a bare "切换到" switches a setting (no redirect); "错误被 …
忽略" describes and "ignore-listed frame(s)" of a pasted stack is no "ignore" (no drop).
77 (prec14): one user report of several complaints sends its turn back as one dead end
(the cut by complaint of 28 is gone); a look the user stopped (``lsof``, ``studio
status``: :data:`kb.graph.iteration.LOOK_ONLY`) tried no approach; a look that errs
again and again (a program of :data:`kb.graph.episodes.PROBES`) explored, it gave up
no check.
75 (loao14): a lookup whose answer lacks what it looked for (``absent``; a shell grep or rg
exiting 1 with no output) ends ``unfound``; a review's take-back is ``taken_back``.
84: 75 and 77 together.
79 (cues14): the user-words rules read a user message without what was injected into it
(:func:`logparse.request.request_text`: reminders, a command's caveat and output, skill
bodies, instructions, the IDE's blocks), never the whole record.  Cue rows no longer fire
inside a negation or a question: "haven't ruled out", "not a red herring", "no es
normal", "不是正常的", "是不是问题？" dismiss nothing; "don't ignore X", "não vamos ignorar
X", "不要去掉 X" drop nothing; "it's not the same as before", "is it the same as before?"
report no fix that did not take; "no corrections needed" corrects nothing.  The cue rows
written for Spanish, Portuguese, Japanese and Chinese with no real line (37 of them; no
tune or shared session says their ideas in those languages) are gone; the Chinese
"found" row rests on matugen's real line.
85: 84 and 79 together.
87 (examples15): rows whose example was written and that match no real line of the data
go: the English drop "let's ignore X" (a user's Portuguese drop stays); the Portuguese and
Chinese pivot, decision and cause rows of prose (DERIVE_VERSION 72).  The English
dismissal stays, on the pgpool story's line.
89 (causes15): a round of guesses whose finding the agent went on guessing after, in the
same turn, takes as cause the finding the turn ends on, not the first one
(:func:`kb.graph.causechoice.concluded_finding`); the sentence after a bare finding
heading ("Found the issue! The demo has custom CSS that's overriding …") names the
root (:func:`kb.graph.rootcause.announces`).
94: 87 and 89 together.
86 (author): the user's words are a prompt the human wrote (``prose.author`` human or
queued, :mod:`logparse.author`): a sub-agent's task (its parent agent's), text the harness
injected and a compaction's summary are read by no rule of the user's; a transcript that
ends on what the harness wrote (a local command's output, a background task's note) ends
on no request.
95: 94 and 86 together."""

MATCH = 0.6
"""Token overlap at which two names are the same approach."""
_FAILING = ("error", "aborted", "interrupted")
_EXPERIMENT_CATEGORIES = frozenset({"launch", "benchmark", "build", "install", "import-check",
                                    "package-query"})
_DEAD_MARK = re.compile(r"[❌✘✗⛔🚫]|\b(?:abandon\w*|dropped|shelved|parked|scrapped|"
                        r"ruled out|gave up|no[\s-]?go)\b", re.I)
_DONE_MARK = re.compile(r"[✅✔]")
_BLOCKED = re.compile(r"\bblocked\b|\bcan'?t (?:be )?install|"
                      r"\bnot installable\b|\bneeds? \S+ (?:first|before)\b", re.I)
_TOGETHER = re.compile(r"\b(?:both|all (?:three|four|of them)|each|neither|none of them|"
                       r"either)\b", re.I)
_SAME_CAUSE = re.compile(r"\bsame (?:root )?(?:cause|problem|issue|reason|wall|blocker|story|bug|"
                         r"failure) as (?:the |with |for )?(?P<ref>[^.;,)\n]{2,60})", re.I)
_CAUSAL = re.compile(r"\b(?:because|since|due to|so|which means|means|isn'?t|aren'?t|can'?t|"
                     r"cannot|won'?t|no |not |fails?|failed|broke|breaks|blocked|without|"
                     r"needs?|requires?|too (?:old|new|slow)|slower|only)\b|→|->", re.I)
_SUPERSEDED = re.compile(r"supersed|replaced by|no longer needed|not needed|obsolete|"
                         r"moot|skip(?:ped)?\b", re.I)
_POSITIVE = re.compile(r"\b(?:win|wins|works|worked|improv\w*|faster|speed-?up|gain|"
                       r"\+\d+(?:\.\d+)?\s*%)", re.I)
_TIMEOUT = re.compile(r"timed out|timeout", re.I)
_CANNOT_READ = re.compile(r"\b(?:can'?t|cannot|can not|unable to|not able to|don'?t have a way"
                          r" to)\s+(?:\w+\s+)?(?:read|see|view|open|access|process|display)\b",
                          re.I)
_DIAGNOSIS = re.compile(
    r"\b(?:because|since|due to|the (?:real |root |actual )?(?:issue|problem|cause|error|bug|reason)"
    r"|caused by|is that|means|the culprit|turns out|doesn'?t|does not|isn'?t|is not|aren'?t|"
    r"can'?t|cannot|won'?t|never|only|instead of|wrong|missing|no such|not (?:a|an|the)\b"
    r"|stale|out(?:dated|-of-date| of date)|left (?:over|behind)|leftover"
    r"|, not (?:to|in|from|on|as|a|an|the)\b|not to (?:a|an|the)\b|forgot|I (?:need|have) to (?!(?:find|check|look|see|search|read|understand|investigate|"
    r"figure|verify|test|try|know|ask|get|learn)\b)"
    r"|(?:didn'?t|did not|never) (?:\w+ )?(?:push|commit|sav|restart|run|install|build|deploy"
    r"|enabl|includ|import|add|call|regist|load)\w*)",
    re.I)
_ROOT = re.compile(
    r"\b(?:because|due to|caused by|the (?:real |root |actual )?(?:issue|problem|cause|bug|culprit"
    r"|reason) (?:is|was)|\w+ (?:issue|problem)\b|(?:is|was) that\b|turns out|root cause"
    r"|should be|must be|needs? to be|instead of|has no|have no|doesn'?t (?:have|exist|support)"
    r"|does not (?:have|exist|support)|is not (?:a|an|defined|supported)|isn'?t (?:a|an|defined)"
    r"|expects?|requires?|only accepts?)\b", re.I)
_STRONG_ROOT = re.compile(
    r"\b(?:because|due to|caused by|the (?:real |root |actual )?(?:issue|problem|cause|bug|culprit"
    r"|reason) (?:is|was)|(?:is|was) that\b|turns out|root cause)\b", re.I)
"""A sentence that says it names the root, before one that only contrasts or expects."""
_RESTATES = re.compile(r"^(?:the user|user)\b|\b(?:the user|user) (?:is )?(?:say|said|report|"
                       r"tell|ask|want|mention)", re.I)
_NETWORK = re.compile(r"Couldn't connect|Failed to connect|Connection refused|Could not resolve|"
                      r"fetch failed|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|Network is unreachable|"
                      r"getaddrinfo|Name or service not known|No route to host", re.I)
JUDGED_FAILED = (
    r"\b(?:didn'?t|did not|doesn'?t|does not|isn'?t|is not|wasn'?t|was not|aren'?t|weren'?t"
    r"|hasn'?t|has not|haven'?t)\s+(?:\w+\s+){0,2}?(?:work\w*|show\w*|render\w*|appl\w*"
    r"|updat\w*|match\w*|chang\w*|sav\w*|take effect|find|found|appear\w*|replac\w*|fix\w*)\b"
    r"|\bstill\s+(?:\w+\s+){0,2}?(?:shows?|showing|the same|empty|blank|fails?|failing"
    r"|broken|not)\b|\bstill\s+just\s+[\"'`]|\bno effect\b|\bnothing (?:changed|happened)\b"
    r"|\bsame (?:as before|result|output|error)\b|\bI see (?:the|what'?s) (?:issue|problem)\b"
    r"|\b(?:got|was|were|is|are|been|have|has) (?:\w+ )?(?:mangled|corrupted|wiped|garbled"
    r"|clobbered)\b"
    r"|\b(?:content|data|changes|work|page) (?:\w+ ){0,2}(?:was|were|got|been) (?:\w+ )?"
    r"(?:lost|overwritten)\b|" + joined(JUDGED_CUES))
"""The start of a reply that reads the run before it as not having done what it should
("the replacements didn't work", "the content is still just '-'", "the content got
mangled").  RE2 syntax (no lookaround): the store's SQL selects with it the prose that
may match; :func:`_judged_failed` then drops what reports success."""
_JUDGED_FAILED = re.compile(JUDGED_FAILED, re.I)
_SEES_ISSUE = re.compile(r"\bI see (?:the|what'?s) (?:issue|problem)\b", re.I)
"""The reading of :data:`JUDGED_FAILED` that names no run: what the agent sees may be in
what it read since."""
_FINE_AFTER = re.compile(r"(?<!\s)\s+(?:any|anything|no|a single|anywhere)\b"
                         r"|(?<!\s)\s+(?:errors?|problems?|warnings?|issues?)\b", re.I)
"""After "didn't find": nothing wrong was found ("ESLint didn't find any problems")."""
_NEGATED_BEFORE = re.compile(r"\b(?:no|not|nothing|never)\s+(?:\w+\s+)?$", re.I)
"""Before "was lost": it was not ("no data was lost")."""


def _judged_failed(sentence: str) -> bool:
    """Whether a sentence reads the run before it as not having worked."""
    for m in _JUDGED_FAILED.finditer(sentence):
        if _FINE_AFTER.match(sentence, m.end()) or _NEGATED_BEFORE.search(sentence, 0,
                                                                           m.start()):
            continue
        return True
    return False


HYPOTHESIS = joined(HYPOTHESIS_CUES)
"""A sentence that guesses at a cause ("the issue might be that …", "maybe there's a
caching issue", "Eso probablemente …"): the rows of
:data:`kb.graph.replycues.HYPOTHESIS_CUES`.  RE2 syntax: the store selects with it (and
:data:`FOUND`) the prose that may hold a guess or a finding."""
FOUND = joined(FOUND_CUES)
"""A sentence that states the cause found (:data:`kb.graph.replycues.FOUND_CUES`)."""
_HYPOTHESIS = re.compile(HYPOTHESIS, re.I)
HYPOTHESIS_HEAD = 3000
"""Characters of a reply read for guesses and findings."""
CANNOT = joined(CANNOT_CUES)
"""A claim of inability ("I can't run `opencode export` from here"), in the languages of
:data:`kb.graph.replycues.CANNOT_CUES`."""
_STATEFUL = frozenset("""install add i ci generate gen typegen codegen migrate restart reload
rm clean reset upgrade update prune rebuild link daemon-reload apply up reserialize clear flush
flushall flushdb purge invalidate""".split())
"""Sub-commands that change state rather than tell how things are (``npm install``,
``next typegen``, ``systemctl restart``, ``docker compose up``)."""
_REMOVERS = frozenset("rm rmdir unlink".split())
_FIND_REMOVES = re.compile(r"\s-delete\b|\s-exec(?:dir)?\s+rm\b")
"""``find … -delete`` or ``-exec rm``: a cache or build output cleared."""
_FOUND_NOTHING = re.compile(r"(?<!\s)\s*+(?:No (?:files|matches|results) found|Found 0 (?:matches|files)"
                            r"|0 matches)\b", re.I)
"""A search tool's answer that nothing matched (``grep``/``glob`` say "No files found")."""
ASK_TOOLS = ("question",)
"""Tools with which the agent asks the user (opencode's; Claude Code's AskUserQuestion is
read as it)."""
_LOOKUP_TOOL = re.compile(r"search|find|lookup|list|query", re.I)
"""A tool that looks something up (an MCP ``*_search``, ``websearch``)."""
_NOT_CHECKS = frozenset({"task", "question", "todowrite", "todoread", "skill", "read", "grep",
                         "glob", "list", "ls"})


# ------------------------------------------------------------------------ rows
class CallRow(NamedTuple):
    session_id: str
    ordinal: int
    seq: int
    tool: str
    category: str
    command: str | None
    remote_command: str | None
    host: str | None
    status: str
    exit_code: int | None
    signatures: tuple[str, ...] = ()
    measurements: tuple[tuple[float, str, str], ...] = ()
    child_session_id: str | None = None
    title: str | None = None
    hops: tuple[dict[str, Any], ...] = ()
    todos: tuple[tuple[str, str], ...] | None = None
    """``todowrite``: ``(content, status)`` of every item."""
    output_tail: str | None = None
    """The end of a failed run's output; a search's whole output when it is short (what
    says it found nothing)."""
    error: str | None = None
    """The tool's own error message (``The user rejected permission ...``)."""
    offline: bool = False
    """It ran in a sandbox without network access (Codex ``network_access=false``)."""
    signals: tuple[str, ...] = ()
    """What the agent's own fields say happened to the call
    (:data:`logparse.structural.SIGNALS`)."""
    failure: str | None = None
    """The concrete line a failed run failed with (:func:`logparse.structural.failure_line`),
    for a run without an error signature."""
    edit: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    """An edit's lines written and lines taken away (:func:`kb.graph.store.edit_lines`)."""
    poll: bool = False
    """A poll of a run another call started (Codex ``write_stdin``): what it read, the
    run's exit code included, is that call's answer, so it is no check of its own."""
    usage: str | None = None
    """A clean run that printed its program's usage without asking for it (its arguments
    were refused, :func:`kb.graph.switched.printed_usage`): the usage's first line."""
    agent: str = ""
    """The session's agent (``codex``, ``claude-code``, ...; empty when not known)."""
    mixed: str | None = None
    saved: str | None = None
    """Where the tool saved the whole of an output it cut
    (:func:`logparse.structural.saved_output`)."""
    """A clean run that merged stderr into stdout: the line it printed ahead of its JSON
    (:func:`logparse.structural.mixed_line`)."""
    absent: bool = False
    """A lookup tool's run (not a shell's) whose answer does not hold the query it was
    given: what was looked up is not there by that name."""
    delegate: str | None = None
    """The Codex sub-agent a collab call concerns (:func:`kb.graph.delegated.collab_agent`):
    its spawn and the wait that reports it are one delegation."""


REWIND_ROLE = "rewind"
"""The role of a :class:`MessageRow` that only tells of a rewind (the message's own shape
said nothing; :func:`kb.graph.store.load_rows`)."""


class MessageRow(NamedTuple):
    """A message whose shape says something: cut short, empty, aborted, with an
    attachment, or the last one (see :func:`kb.graph.store.load_rows`)."""

    session_id: str
    ordinal: int
    role: str
    finish: str | None
    error: str | None
    tokens_output: int | None
    completed: bool
    said: bool
    """It has a text part (not only reasoning); a user message, a prompt someone wrote
    (not text the harness injected, not a compaction's summary)."""
    acted: bool
    """It made a tool call."""
    attachment: str | None
    last: bool
    compacted: bool = False
    """The context was compacted here (the marker or the summary that replaces it)."""
    rewound_from: int | None = None
    """The user rewound the conversation right after this message, taking back the
    messages from this ordinal to this one (Gemini CLI's ``$rewindTo``;
    :meth:`kb.store.KbStore.rewound`)."""


class ProseRow(NamedTuple):
    session_id: str
    ordinal: int
    seq: int
    classification: str | None
    text: str
    prose_role: str | None = None


@dataclass(frozen=True, slots=True)
class Annotation:
    id: int
    session_id: str
    ordinal: int | None
    kind: str
    """``dead_end``, ``confirmed``, ``hypothesis``, ``link``, ``note``, ``revisit``."""
    value: str | None = None
    target: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The latest replay verdict of a recorded step (from ``logkb replay``)."""

    session_id: str
    ordinal: int
    verdict: str
    note: str | None = None


# ---------------------------------------------------------------------- output
@dataclass
class Evidence:
    session_id: str
    ordinal: int
    role: str
    """``proposed``, ``tested``, ``ended``, ``research``, ``annotated``, ``confirmed``."""
    note: str | None = None

    def key(self) -> tuple[str, int, str]:
        return (self.session_id, self.ordinal, self.role)


@dataclass
class Approach:
    id: str
    name: str
    session_id: str
    first: int
    kind: str = "approach"
    tokens: frozenset[str] = frozenset()
    aliases: list[str] = field(default_factory=list)
    sources: set[str] = field(default_factory=set)
    todo_status: str | None = None
    active: bool = False
    status: str = "open"
    ended: int | None = None
    end_text: str | None = None
    end_notes: list[tuple[int, str]] = field(default_factory=list)
    """Texts that may state why it ended, with a priority (todo note 3, prose 2)."""
    cause: Cause | None = None
    evidence: list[Evidence] = field(default_factory=list)
    experiments: list[CallRow] = field(default_factory=list)
    """Calls that name the approach, or decided its fate (see :meth:`Extractor._settle`)."""
    weak: list[CallRow] = field(default_factory=list)
    """Calls made while it was the active approach without naming it."""
    research: list[str] = field(default_factory=list)
    risks: list[str] = field(default_factory=list)
    revisit: str | None = None
    blocked_hint: bool = False
    """A note said it is blocked (waiting on something), not dead."""
    explanation: list[str] = field(default_factory=list)
    """Sentences around its end that say why (the concluding prose)."""
    cause_text: str | None = None
    """The text its cause was read from."""
    notes: list[str] = field(default_factory=list)
    annotated: bool = False
    last_position: int = -1
    via: str | None = None
    """The rule that ended it: ``<episode rule>:<how>`` (``check:failed-check``), or
    ``todo:cancelled``, ``todo:dead-note``, ``todo:blocked-note``, ``todo:plan-dropped``,
    ``prose:dead-end``, ``annotation``.  Stored with the node (``data.via``) and shown by
    ``deadends --json``, for ``python -m bench rule-support``."""

    def add_evidence(self, ev: Evidence) -> None:
        if all(e.key() != ev.key() for e in self.evidence):
            self.evidence.append(ev)

    def alias(self, name: str) -> None:
        if name != self.name and name not in self.aliases:
            self.aliases.append(name)


@dataclass
class Question:
    id: str
    session_id: str
    ordinal: int
    question: str
    reason: str
    host: str | None
    command: str
    approach_id: str | None = None
    answered_at: int | None = None


@dataclass
class Pivot:
    session_id: str
    ordinal: int
    text: str
    sources: list[str]
    targets: list[str]


@dataclass
class Decision:
    session_id: str
    ordinal: int
    text: str
    approach_ids: list[str] = field(default_factory=list)


@dataclass
class Extraction:
    scope: str
    sessions: list[str]
    approaches: list[Approach]
    questions: list[Question]
    pivots: list[Pivot]
    decisions: list[Decision]
    measurements: list[tuple[str, int, float, str, str]]
    """``(session_id, ordinal, value, unit, label)`` of every measured result."""
    causes: dict[str, Cause]
    links: list[tuple[str, str, str | None]]


_GUESSES: Memo[tuple[tuple[str, str], ...]] = memo("guesses")


def _guesses(text: str) -> tuple[tuple[str, str], ...]:
    """The sentences of a reply that guess at a cause (``hypothesis``), rule one out
    (``dismissed``) or say the cause was found (``found``), each as told: memoised."""
    return _GUESSES.get(text_key(text), lambda: _guess_sentences(text))


def _guess_sentences(text: str) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    bounds = [0, *(m.end() for m in SENTENCE_BREAK.finditer(text)), len(text)]
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        sentence = text[a:b].strip()
        if _HYPOTHESIS.search(sentence):
            out.append((short(sentence, 240), "hypothesis"))
        elif dismissal_phrase(sentence) is not None:
            out.append((short(sentence, 240), "dismissed"))
        elif first_match(FOUND_CUES, sentence, FOUND_NOT_AFTER, FOUND_GUARDED) is not None:
            # a short finding ("I see the issue!") is spelled out by what follows
            more = text[a:bounds[min(i + 3, len(bounds) - 1)]].strip()
            out.append((short(more if len(sentence) < 60 else sentence, 300), "found"))
    return tuple(out)


# ------------------------------------------------------------------- extractor
_AT_THE_END = (":unfinished", ":request")
"""Ids of the questions that say the transcript ends (a request nobody answered, a turn
still running): dropped when the session grows."""


class Extractor:
    """Walks one scope (a top-level session and its subagent sessions) in order."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self.approaches: list[Approach] = []
        self.questions: list[Question] = []
        self.pivots: list[Pivot] = []
        self.decisions: list[Decision] = []
        self.measurements: list[tuple[str, int, float, str, str]] = []
        self.links: list[tuple[str, str, str | None]] = []
        self.together: list[list[str]] = []
        """Approaches one verdict ended together ("both fail because …"): one cause."""
        self.common: frozenset[str] = frozenset()
        """Tokens too frequent in this scope's commands to identify an approach."""
        self.steps: list[Step] = []
        """Checks and changes, for the episode rules (:mod:`kb.graph.episodes`)."""
        self.said: list[Said] = []
        """User messages and the assistant sentences that end or turn away from things."""
        self._answered_upto = 0
        """Index in :attr:`questions` before which every question is answered."""
        self._found: list[Found] | None = None
        """The episode rules' dead ends for the rows fed so far (:meth:`found`)."""
        self.open_plan_items: dict[str, tuple[int, set[str]]] = {}
        """Per session, the open items of its last todo list: ``(ordinal, ids)``."""
        self.saved_outputs: dict[tuple[str, str], str] = {}
        """``(session, file)`` → the question of an output the tool cut and saved whole
        to that file: a later read of the file answers it."""
        self.unfound: list[tuple[str, int, str]] = []
        """``(session, ordinal, pattern)`` of searches that found nothing."""
        self.lookups: list[tuple[str, int, str]] = []
        self.absent: list[tuple[str, int, str]] = []
        self.reviews: dict[str, str] = {}
        """Codex: the agents spawned to review the work (agent id: the task asked)."""
        """The lookups whose answer does not hold what was looked up (nothing found, or
        not by that name)."""
        """Searches and lookup tools' runs: ``(session, ordinal, command)``."""
        self.probes: list[Probe] = []
        """Shell runs that only look, for :func:`kb.graph.episodes.workaround_episodes`."""
        self.seen: list[tuple[str, int, tuple[str, ...]]] = []
        """Errors read in a search or a file read (a saved log): ``(session, ordinal,
        signatures)``."""
        self.last_call: CallRow | None = None
        """The call fed last (a user interrupt right after it leaves its result unread)."""
        self.last_request: tuple[str, int, str] | None = None
        """The user's last real request: ``(session, ordinal, its words)``."""
        self.rewinds: list[tuple[str, int, int]] = []
        """``(session, first ordinal taken back, ordinal of the rewind)``: branches the
        user rewound away from (Gemini CLI ``$rewindTo``)."""
        self.attachments: list[tuple[str, int, str]] = []
        """``(session, ordinal, what)`` of user attachments (images, PDFs)."""
        self._n = 0

    def __getstate__(self) -> dict[str, Any]:
        """What is kept (:mod:`kb.graph.state` encodes it as data): the index
        :meth:`mentioned` builds is left out."""
        state = self.__dict__.copy()
        state.pop("_ix", None)
        state.pop("_ix_n", None)
        return state

    # -- approaches --------------------------------------------------------
    def _new(self, name: str, session_id: str, ordinal: int, source: str,
             kind: str = "approach") -> Approach:
        self._n += 1
        a = Approach(id=f"{self.scope}:a{self._n}", name=name, session_id=session_id,
                     first=ordinal, kind=kind, tokens=tokens(name), sources={source})
        a.add_evidence(Evidence(session_id, ordinal, "proposed"))
        self.approaches.append(a)
        return a

    def find(self, name: str, *, threshold: float = MATCH,
             pool: Iterable[Approach] | None = None) -> Approach | None:
        toks = tokens(name)
        best, score = None, 0.0
        for a in pool if pool is not None else self.approaches:
            s = max([similarity(toks, a.tokens)] + [similarity(toks, tokens(x))
                                                     for x in a.aliases])
            if s > score:
                best, score = a, s
        return best if score >= threshold else None

    def mentioned(self, text: str, *, loose: bool = False) -> list[Approach]:
        """Approaches a text names: most of an approach's tokens appear in it.

        ``loose`` (commands): one *distinctive* token is enough, a token no other
        approach has (``deepep``, ``a2a``)."""
        if not self.approaches:
            return []
        toks = tokens(text)
        if loose:
            toks = toks - self.common
        out = []
        if getattr(self, "_df_n", -1) != len(self.approaches):
            self._df = Counter(t for x in self.approaches for t in x.tokens)
            self._df_n = len(self.approaches)
        df = self._df
        if getattr(self, "_ix_n", -1) != len(self.approaches):
            # token -> the approaches holding it (approaches are only ever appended, and
            # their tokens never change): one sharing no token with the text is never
            # named (it needs at least one token in common)
            ix: dict[str, list[int]] = {}
            for i, x in enumerate(self.approaches):
                for t in x.tokens:
                    ix.setdefault(t, []).append(i)
            self._ix, self._ix_n = ix, len(self.approaches)
        ix = self._ix
        hit = sorted({i for t in toks for i in ix.get(t, ())})
        for i in hit:
            a = self.approaches[i]
            if a.kind == "goal" or not a.tokens:
                continue
            common = a.tokens & toks
            need = min(len(a.tokens), 2)
            distinctive = any(df[t] == 1 and len(t) >= 3 and not t[0].isdigit()
                              for t in common)
            if len(common) >= need and (len(common) / len(a.tokens) >= 0.5 or distinctive):
                out.append(a)
            elif loose and distinctive:
                out.append(a)
        return out

    def active(self, ordinal: int) -> list[Approach]:
        """Approaches being worked on at ``ordinal``, the most recently started last."""
        act = [a for a in self.approaches
               if a.kind != "goal" and a.active and a.first <= ordinal
               and (a.ended is None or a.ended >= ordinal)]
        return sorted(act, key=lambda a: (a.kind == "approach", a.todo_status == "in_progress",
                                          a.first))

    # -- the pass -----------------------------------------------------------
    def run(self, calls: list[CallRow], prose: list[ProseRow],
            messages: Iterable[MessageRow] = ()) -> None:
        """The first pass over a scope: learns which command tokens are too common to
        identify an approach, then feeds every row."""
        cmd_df: Counter[str] = Counter()
        for c in calls:
            cmd_df.update(tokens(c.remote_command or c.command or ""))
        floor = max(3, len(calls) // 200)
        self.common = frozenset(t for t, n in cmd_df.items() if n > floor)
        self.feed(calls, prose, messages)

    def feed(self, calls: list[CallRow], prose: list[ProseRow],
             messages: Iterable[MessageRow] = ()) -> None:
        """Walk rows in transcript order (the scope session first, then its subagents).

        Feeding the rows of messages appended since the last pass continues the
        story where it stopped: that is how a grown session updates its graph."""
        self._found = None
        messages = list(messages)
        grown = ({c.session_id for c in calls} | {p.session_id for p in prose}
                 | {m.session_id for m in messages})
        if grown and self.questions:
            # "the transcript ends here" is no longer true of a session that went on
            self.questions = [q for q in self.questions if not (
                q.session_id in grown and q.id.endswith(_AT_THE_END))]
            self._answered_upto = 0
        # within a message: the todo list first (it names what the prose talks about),
        # then the prose, then the calls it announced
        stream: list[tuple[tuple[bool, str, int, int, int], CallRow | ProseRow | MessageRow]] = []
        for c in calls:
            rank = 0 if c.todos is not None else 2
            stream.append(((c.session_id != self.scope, c.session_id, c.ordinal, rank, c.seq),
                           c))
        for p in prose:
            stream.append(((p.session_id != self.scope, p.session_id, p.ordinal, 1, p.seq), p))
        for m in messages:
            stream.append(((m.session_id != self.scope, m.session_id, m.ordinal, 3, 0), m))
        stream.sort(key=lambda x: x[0])
        for _, row in stream:
            if isinstance(row, MessageRow):
                self._shape(row)
            elif isinstance(row, ProseRow):
                if row.classification == "prompt":
                    self._user(row)
                elif row.classification == "hypothesis":
                    self._hypotheses(row)
                elif row.classification == "admit":
                    self._admit(row)
                elif row.classification == "explains":
                    # a reply that explains why, for the explanation a later probe or
                    # the user's evidence disproves (kb.graph.disproved)
                    self.said.append(Said(row.session_id, row.ordinal, "assistant",
                                          row.text[:DISPROVED_HEAD], "explains"))
                elif row.classification == "revises":
                    # a block that may turn a belief of its own round, or read a value
                    # again (kb.graph.revised)
                    self.said.append(Said(row.session_id, row.ordinal, "assistant",
                                          row.text, "revises"))
                elif row.classification == "quotes":
                    # a block that quotes quantities: only those sentences are kept
                    said = "\n".join(dict.fromkeys(s for _, s in quoted(row.text)))
                    if said:
                        self.said.append(Said(row.session_id, row.ordinal, "assistant",
                                              said, "quotes"))
                elif row.classification in ("redirect", "answered"):
                    # a reply that takes a user's change of course in, and the reply a
                    # user message that drops something answers (logparse.redirects)
                    self.said.append(Said(row.session_id, row.ordinal, "assistant",
                                          row.text[:6000], row.classification))
                elif row.classification == "judge":
                    # loaded only for what it says of the run before it, or that it cannot
                    self._judge(row)
                    self._claim(row)
                else:
                    self._prose(row)
            elif row.todos is not None:
                self._todos(row)
            else:
                self._call(row)

    def _todos(self, row: CallRow) -> None:
        assert row.todos is not None
        taken: set[str] = set()
        seen_now: set[str] = set()
        for pos, (content, status) in enumerate(row.todos):
            tt = split_todo(content)
            pool = [a for a in self.approaches if a.id not in taken and "todo" in a.sources]
            a = self.find(tt.name, pool=pool)
            if a is None:
                same_pos = [x for x in pool if x.last_position == pos
                            and similarity(tokens(tt.name), x.tokens) >= 0.34]
                a = same_pos[0] if same_pos else None
            if a is None:
                a = self.find(tt.name, pool=[x for x in self.approaches
                                             if "todo" not in x.sources])
                if a is not None:
                    a.sources.add("todo")
                    a.kind = item_kind(content) if a.kind != "approach" else a.kind
            if a is None:
                a = self._new(tt.name, row.session_id, row.ordinal, "todo",
                              kind=item_kind(content))
            if a.ended is not None and RETEST.search(content) and status != "cancelled":
                a.revisit = f"a re-test is planned at message {row.ordinal}: {short(content, 120)}"
                continue
            taken.add(a.id)
            seen_now.add(a.id)
            a.alias(tt.name)
            a.last_position = pos
            a.todo_status = status
            if status == "in_progress":
                a.active = True
            elif status in ("completed", "cancelled"):
                a.active = False
            note = tt.note or ""
            dead = bool(note) and bool(dead_end_phrase(note) or _DEAD_MARK.search(note))
            blocked = bool(note) and bool(_BLOCKED.search(note))
            if status == "cancelled" or dead or blocked:
                self._end(a, row.session_id, row.ordinal, note or content, source="todo",
                          via="todo:cancelled" if status == "cancelled" else
                          "todo:dead-note" if dead else "todo:blocked-note")
                a.blocked_hint = a.blocked_hint or blocked
            elif (status == "completed" or _DONE_MARK.search(note)) and a.ended is not None \
                    and a.end_notes and max(p for p, _ in a.end_notes) < 3:
                # the agent completed the item: what ended while it was in progress (a
                # sentence giving something up) was another attempt, not this item
                self._spin_off(a, row.session_id, row.ordinal)
                a.status = "confirmed"
                a.active = False
                a.add_evidence(Evidence(row.session_id, row.ordinal, "confirmed",
                                        short(content, 160)))
            elif (status == "completed" or _DONE_MARK.search(note)) and a.ended is None:
                a.status = "confirmed"
                a.active = False
                a.add_evidence(Evidence(row.session_id, row.ordinal, "confirmed",
                                        short(content, 160)))
            elif status == "in_progress":
                a.active = True
        self._plan_dropped(row, seen_now)

    def _plan_dropped(self, row: CallRow, seen_now: set[str]) -> None:
        """Items of the plan the agent took out before they were done, with no request of
        the user's between the two lists (Codex ``update_plan`` writes the whole plan each
        time): the step it planned was given up, a change of design.  A list written for
        a new request replaces the old one; nothing was given up then.  Codex only: an
        opencode or Claude Code todo list is rewritten in other words as the work goes
        (an item renamed is no item dropped; the tuning labels say so)."""
        plans = self.open_plan_items
        before = plans.get(row.session_id)
        req = self.last_request if self.last_request and \
            self.last_request[0] == row.session_id else None
        if before is not None and row.agent == "codex" and (req is None or req[1] < before[0]):
            for a in self.approaches:
                if a.id in before[1] and a.id not in seen_now and a.ended is None \
                        and a.todo_status in ("pending", "in_progress"):
                    self._end(a, row.session_id, row.ordinal,
                              f"dropped from the plan: {short(a.name, 160)}", source="todo",
                              via="todo:plan-dropped")
        plans[row.session_id] = (row.ordinal, {
            a.id for a in self.approaches if a.id in seen_now
            and a.todo_status in ("pending", "in_progress") and a.ended is None})

    def _spin_off(self, a: Approach, session_id: str, ordinal: int) -> None:
        """Move what ended ``a`` (its non-todo ending and the evidence after its proposal)
        to an approach of its own, named by the sentence that gave it up."""
        text = a.end_text or ""
        end = a.ended if a.ended is not None else ordinal
        # the attempt began with the last check that failed before the sentence gave it up
        failed = [st for st in self.steps if st.session_id == a.session_id and st.failed
                  and a.first < st.ordinal <= end and end - st.ordinal <= self.DIAGNOSIS]
        start = failed[-1].ordinal if failed else end
        b = self._new(short(_first_clause(text), 80) or f"attempt during {a.name}",
                      a.session_id, start, "prose")
        if failed:
            b.add_evidence(Evidence(a.session_id, start, "tested", failed[-1].signature))
        moved = [e for e in a.evidence if e.ordinal > a.first and e.role != "confirmed"]
        for e in moved:
            b.add_evidence(e)
        a.evidence = [e for e in a.evidence if e not in moved]
        b.ended, b.end_text, b.end_notes = a.ended, a.end_text, list(a.end_notes)
        b.via, a.via = getattr(a, "via", None), None
        b.active = False
        a.ended, a.end_text, a.end_notes = None, None, []

    def _end(self, a: Approach, session_id: str, ordinal: int, text: str,
             source: str, via: str) -> None:
        priority = {"todo": 3, "prose": 2}.get(source, 1)
        if ablated(via):
            return  # its family is switched off (kb.graph.ablate: benches only)
        if a.ended is not None:
            if abs(a.ended - ordinal) <= 3:  # the same ending, told again (todo + prose)
                a.end_notes.append((priority, text))
            return
        a.via = via
        a.ended = ordinal
        a.end_text = text
        a.end_notes.append((priority, text))
        a.active = False
        a.add_evidence(Evidence(session_id, ordinal, "ended", short(text, 200)))

    def _prose(self, row: ProseRow) -> None:
        cls = row.classification
        text = row.text
        self._judge(row)
        self._claim(row)
        if cls in ("plan", "pivot", "decision", "observation", "conclusion") \
                and row.prose_role != "conclusion" or cls == "plan":
            for what in announced(text):
                a = self.find(what)
                if a is None and _worth_an_approach(what):
                    a = self._new(_cap(what), row.session_id, row.ordinal, "prose")
                if a is not None and a.ended is None:
                    a.active = True
                    a.add_evidence(Evidence(row.session_id, row.ordinal, "proposed"))
        phrase = dead_end_phrase(text) if cls in ("dead-end", "decision", "pivot") else None
        if phrase or cls == "pivot":
            turn = phrase or pivot_phrase(text) or ""
            self.said.append(Said(row.session_id, row.ordinal, "assistant",
                                  lead_up(text, turn) if turn else short(text, 240),
                                  "dead-end" if phrase else "pivot"))
        if phrase:
            sentence = sentence_with(text, phrase)
            head = before_forward(clause_with(text, phrase))
            named = [a for a in self.mentioned(head) if a.kind != "goal"
                     and a.status != "confirmed" and a.first <= row.ordinal
                     and not (a.first == row.ordinal and a.todo_status in ("pending",
                                                                          "in_progress"))]
            targets = [a for a in named if a.ended is None]
            if not targets and not named:
                targets = self._latest_failure(row.ordinal)
            for a in targets:
                self._end(a, row.session_id, row.ordinal, sentence, source="prose",
                          via="prose:dead-end")
            # a later verdict on approaches that already ended explains why they did
            late = [a for a in named if a.ended is not None
                    and 0 < row.ordinal - a.ended <= self.LATE_EXPLANATION]
            for a in late:
                a.end_notes.append((2, sentence))
            if len(late) + len(targets) >= 2 and _TOGETHER.search(sentence):
                self.together.append([a.id for a in late + targets])
        if cls == "pivot" or (cls in ("dead-end", "decision") and pivot_phrase(text)):
            self.pivots.append(Pivot(row.session_id, row.ordinal, short(text, 300), [], []))
        if cls == "decision" or decision_phrase(text):
            self.decisions.append(Decision(row.session_id, row.ordinal, short(text, 300)))
        if cls == "conclusion" and _POSITIVE.search(text):
            for a in self.mentioned(text):
                if a.ended is None and a.first <= row.ordinal:
                    a.add_evidence(Evidence(row.session_id, row.ordinal, "confirmed",
                                            short(text, 200)))

    def _hypotheses(self, row: ProseRow) -> None:
        """The guesses at a cause a reply makes, and the cause it says it found, for the
        episode of guesses a finding refutes (:func:`kb.graph.episodes.guess_episodes`)."""
        for text, kind in _guesses(row.text):
            self.said.append(Said(row.session_id, row.ordinal, "assistant", text, kind))

    def _admit(self, row: ProseRow) -> None:
        """A reply that opens by admitting the agent was wrong, for the episode of the
        work the user corrected (:func:`kb.graph.episodes.admitted_episodes`)."""
        phrase = admission_phrase(row.text)
        if phrase is None:
            return
        start = row.text.find(phrase)
        self.said.append(Said(row.session_id, row.ordinal, "assistant",
                              short(row.text[max(0, start):], 300), "admit"))

    def _claim(self, row: ProseRow) -> None:
        """A claim of inability, for the episode that it ends a turn and is then refuted
        by the agent doing it (:func:`kb.graph.episodes.claim_episodes`)."""
        m = first_match(CANNOT_CUES, row.text, CANNOT_NOT_AFTER)
        if m is not None:
            # what it says it cannot do, not what the sentence said before ("I can use
            # webfetch, but I can't download files")
            _, end = sentence_bounds(row.text, m.end())
            claim = short(row.text[m.start():end].strip(), 240)
            self.said.append(Said(row.session_id, row.ordinal, "assistant", claim, "cannot"))

    def _judge(self, row: ProseRow) -> None:
        """A reply whose first sentences read the run it answers as not having worked
        makes that run a failure of its check (it exited cleanly, it did not work).  The
        run may be a message or two further back when only reads and searches came
        between (the agent looked at what the run left, then judged it: uicomponents-
        wordpress #66-#69, "No output suggests the pipe isn't working correctly."); a
        finding that only says it sees an issue is then about what was read, not about
        the run."""
        just_before = False
        for i in range(len(self.steps) - 1, max(-1, len(self.steps) - 8), -1):
            s = self.steps[i]
            if s.session_id != row.session_id:
                return
            if s.ordinal < row.ordinal - 1:
                if just_before or row.ordinal - s.ordinal > 1 + JUDGE_BACK or not s.check \
                        or s.failed:
                    return
                far = True
            elif s.ordinal == row.ordinal - 1:
                just_before = True
                if not s.check:
                    continue
                if s.failed:
                    return
                far = False
            else:
                continue
            head = re.split(r"(?<=[.!?])\s+", row.text.strip(), maxsplit=2)[:2]
            for sentence in head:
                if _judged_failed(sentence[:300]) and not _RESTATES.search(sentence) \
                        and not (far and _SEES_ISSUE.search(sentence)):
                    self.steps[i] = s._replace(failed=True, judged=short(sentence, 240))
                    return
            return

    def _latest_failure(self, ordinal: int, window: int = 12) -> list[Approach]:
        """The active approach whose experiment failed most recently before ``ordinal``.

        A dead-end sentence that names no approach is about the attempt that just
        failed, if one did; otherwise it is a general remark and ends nothing."""
        best: tuple[int, int] | None = None
        chosen: list[Approach] = []
        for a in self.active(ordinal):
            recent = sorted((e for e in a.experiments + a.weak
                             if ordinal - window <= e.ordinal <= ordinal),
                            key=lambda e: (e.ordinal, e.seq))
            if recent and _failed(recent[-1]):
                key = (recent[-1].ordinal, recent[-1].seq)
                if best is None or key > best:
                    best, chosen = key, [a]
        return chosen

    def _user(self, row: ProseRow) -> None:
        mark = turn_mark(row.text)
        if mark is not None:
            # the agent's record that the user stopped the turn (see stopped_episodes)
            self.said.append(Said(row.session_id, row.ordinal, "record", mark.prefix,
                                  "stopped"))
        if row.text.startswith(INTERRUPT_MARK):
            self._interrupted(row)
        else:
            asked = request_text(row.text)
            if asked:
                self.last_request = (row.session_id, row.ordinal, asked)
        if mark is not None and mark.agents == ("codex",):
            return  # an injected record, no words of the user's
        # the user's words only: what the agent or its harness put beside them (the IDE's
        # blocks, a reminder, a command's caveat and output, instructions) reports and
        # drops nothing, and no user-words rule reads it (logparse.request)
        words = row.text if row.text.startswith(INTERRUPT_MARK) else request_text(row.text)
        # a part that is nothing but injected text keeps its place as a turn of the user's
        # (its record), and reports nothing
        self.said.append(Said(row.session_id, row.ordinal, "user",
                              (words or row.text)[:1500],
                              refutation_phrase(words) or correction_phrase(words)
                              or still_broken_phrase(words),
                              _quoted_error(words)))

    def _interrupted(self, row: ProseRow) -> None:
        """The user stopped the turn right after a tool answered (Claude Code's
        ``[Request interrupted by user]``, no reply between): the agent never read that
        answer, so the check's question stays open."""
        c = self.last_call
        if (c is None or c.session_id != row.session_id or c.ordinal != row.ordinal - 1
                or c.status != "completed" or c.category == "todo"
                or c.tool in ("todowrite", "todoread", "question")
                or any(q.session_id == c.session_id and q.ordinal == c.ordinal
                       for q in self.questions[-4:])):
            return
        cmd = c.remote_command or c.command or c.title or c.tool
        act = self.active(c.ordinal)
        self.questions.append(Question(
            id=f"{c.session_id}:{c.ordinal}:{c.seq}:interrupt", session_id=c.session_id,
            ordinal=c.ordinal, question=question_of(cmd, c.host),
            reason="the user interrupted the turn before the agent used this result",
            host=c.host, command=cmd, approach_id=act[-1].id if act else None))

    def _unfinished(self, row: MessageRow) -> None:
        """The transcript ends while the agent still worked (on a tool call, no final
        reply): the user's last request never got its answer."""
        req = self.last_request
        if req is None or req[0] != row.session_id or any(
                q.session_id == req[0] and q.ordinal == req[1] for q in self.questions[-8:]):
            return
        sid, ordinal, asked = req
        self.questions.append(Question(
            id=f"{sid}:{ordinal}:unfinished", session_id=sid, ordinal=ordinal,
            question=f"what «{short(asked, 70)}» asked for",
            reason="the transcript ends while the agent was still working on it (a tool "
                   "call, no final reply)", host=None, command=""))

    def _shape(self, row: MessageRow) -> None:
        """Questions a reply left open by its shape: cut at the output limit, stopped
        without a word or a call, or still being written when the transcript ends."""
        if row.rewound_from is not None:
            # the user's structural undo: the branch since that message was taken back
            self.rewinds.append((row.session_id, row.rewound_from, row.ordinal))
            if row.role == REWIND_ROLE:
                return
        if row.compacted:
            # the summary that replaces the context is no reply that stopped short
            self.said.append(Said(row.session_id, row.ordinal, "assistant", "", "compaction"))
            return
        if row.attachment and row.role == "user":
            self.attachments.append((row.session_id, row.ordinal, row.attachment))
        if row.role == "user" and row.last and (row.said or row.attachment):
            # the transcript ends on a request no reply answered (what the harness wrote
            # last, a local command's output, a background task's note, is none)
            self.questions.append(Question(
                id=f"{row.session_id}:{row.ordinal}:request", session_id=row.session_id,
                ordinal=row.ordinal, question="what did this request lead to?",
                reason="the transcript ends before any reply to it", host=None,
                command=""))
            return
        if row.role != "assistant":
            return
        if row.last and row.acted and not row.said:
            self._unfinished(row)
        # what the reply ended with, by the turn rules every agent's reader feeds the
        # same way (logparse.structural.TURN_RULES)
        sigs = message_signals(MessageFacts(row.role, row.finish, row.error))
        if "aborted_turn" in sigs:
            self.said.append(Said(row.session_id, row.ordinal, "assistant", row.error or "",
                                  "aborted"))
        elif "api_error" in sigs:
            # the provider answered with an error instead of a reply (a quota, an
            # overload, an unknown model): the agent's own record of it
            self.said.append(Said(row.session_id, row.ordinal, "assistant", row.error or "",
                                  "api-error"))
            self._cut_change(row)
        if "truncated" in sigs:
            reason = "the reply was cut at the output-token limit"
        elif row.last and not row.completed and row.finish is None:
            reason = "the transcript ends while this reply was still being written"
        elif not row.said and not row.acted and row.error is None and row.finish is not None:
            # (a message without a finish reason is no reply that stopped: a Codex call
            # keeps only its record, its events sit at its output's ordinal)
            reason = "the reply stopped without an answer or a tool call"
            self.said.append(Said(row.session_id, row.ordinal, "assistant", "", "silent"))
        else:
            return
        if any(q.session_id == row.session_id and q.ordinal == row.ordinal
               for q in self.questions[-4:]):
            return
        act = self.active(row.ordinal)
        self.questions.append(Question(
            id=f"{row.session_id}:{row.ordinal}:reply", session_id=row.session_id,
            ordinal=row.ordinal, question="what was this reply going to answer?",
            reason=reason, host=None, command="", approach_id=act[-1].id if act else None))

    def _cut_change(self, row: MessageRow) -> None:
        """A provider error that cut the work: the last change since the user spoke, when
        no check ran after it, was never checked."""
        users = [x.ordinal for x in self.said if x.session_id == row.session_id
                 and x.role == "user" and x.ordinal < row.ordinal]
        since = users[-1] if users else 0
        recent = [s for s in self.steps if s.session_id == row.session_id
                  and since < s.ordinal < row.ordinal]
        changes = [s for s in recent if s.change and not s.check]
        if users and not recent and row.ordinal - since <= 2:
            # the provider error was the only reply: the request was never answered
            asked = next(x.text for x in reversed(self.said) if x.session_id == row.session_id
                         and x.role == "user" and x.ordinal == since)
            if not any(q.session_id == row.session_id and q.ordinal == since
                       for q in self.questions[-4:]):
                self.questions.append(Question(
                    id=f"{row.session_id}:{since}:unanswered", session_id=row.session_id,
                    ordinal=since, question=f"what «{short(asked, 70)}» asked for",
                    reason=f"a provider error was the only reply "
                           f"({short(row.error or '', 80)})", host=None, command=""))
            return
        if not changes or any(s.check for s in recent if s.ordinal > changes[-1].ordinal):
            return
        c = changes[-1]
        self.questions.append(Question(
            id=f"{row.session_id}:{c.ordinal}:cut", session_id=row.session_id,
            ordinal=c.ordinal, question=f"does the change to {c.target or 'the code'} work?",
            reason=f"a provider error ended the work before it was checked "
                   f"({short(row.error or '', 80)})", host=None, command=""))

    def _step(self, row: CallRow) -> None:
        cmd = row.remote_command or row.command or ""
        tool = row.tool
        if tool == "write_stdin" and _POLLED.match(cmd):
            # Codex polling a command it started: the run is that command's
            tool, cmd = "bash", _POLLED.sub("", cmd)
        rejected = "rejected_by_user" in row.signals or (
            row.status == "error" and "rejected permission" in (row.error or ""))
        if rejected:
            self.steps.append(Step(row.session_id, row.ordinal, check_key(tool, cmd),
                                   False, False, False, None, True, command=cmd[:300],
                                   tool=tool, user_said=user_reason(row.error or "") or "",
                                   escalated="escalation_requested" in row.signals))
            return
        if "interrupted" in row.signals:
            # the user stopped the run: it answered nothing, and the user said no to it
            self.steps.append(Step(row.session_id, row.ordinal, check_key(tool, cmd),
                                   False, True, True,
                                   short(row.error, 80) if row.error else "stopped by the user",
                                   command=cmd[:300], tool=tool, interrupted=True,
                                   escalated="escalation_requested" in row.signals))
            return
        if row.output_tail is not None and row.category == "search" and row.command and (
                _FOUND_NOTHING.match(row.output_tail)
                # grep, rg and their kin exit 1 when nothing matched: a shell's search
                # (Codex's, Claude Code's Bash) says it by that and no output
                or (row.exit_code == 1 and tool in _SHELLS
                    and not row.output_tail.strip())) and (
                    row.tool == "grep" or check_key(row.tool, cmd).split(" ", 1)[0] in (
                        "grep", "rg", "ag", "ack", "egrep")):
            # the pattern, not the paths searched nor the flags
            pattern = " ".join(w for w in row.command.split()
                               if not w.startswith("-") and not any(c in w for c in "/\\:*"))
            self.unfound.append((row.session_id, row.ordinal, pattern))
            if tool in _SHELLS:
                self.absent.append((row.session_id, row.ordinal, pattern[:200]))
        if row.tool == "spawn_agent" and row.delegate and \
                review_phrase(row.title or row.command or ""):
            # Codex: the review's findings come back in the wait on the spawned agent
            self.reviews[row.delegate] = short(row.title or row.command or "", 200)
        review = review_phrase(row.title or row.command or "") \
            if row.tool in DELEGATION_TOOLS else None
        if row.status == "completed" and (review or (
                row.tool in ("wait", "wait_agent") and row.delegate in self.reviews)):
            # a sub-agent reviewed the work: what it found may send earlier lines back
            # (kb.graph.episodes.reviewed_episodes)
            what = self.reviews.get(row.delegate or "") if not review else \
                (row.title or row.command or "")
            self.said.append(Said(row.session_id, row.ordinal, "assistant",
                                  short(what or "", 200), "reviewed"))
        if row.tool in ASK_TOOLS and row.output_tail:
            # the agent stopped to ask the user: the question asked and the answer
            self.said.append(Said(row.session_id, row.ordinal, "assistant",
                                  short(row.output_tail, 400), "asked"))
        if row.command and row.status == "completed" and (
                row.category == "search" or (row.tool not in _SHELLS
                                             and _LOOKUP_TOOL.search(row.tool))):
            self.lookups.append((row.session_id, row.ordinal, row.command[:200]))
            if row.absent or (row.output_tail is not None
                              and _FOUND_NOTHING.match(row.output_tail)):
                self.absent.append((row.session_id, row.ordinal, row.command[:200]))
        if row.category == "search" and tool in _SHELLS and cmd:
            self.probes.append(Probe(
                row.session_id, row.ordinal, cmd[:300],
                row.status == "error" or row.exit_code not in (None, 0),
                _ANSI.sub("", row.failure or "")[:160]))
        if row.tool in DELEGATION_TOOLS or "subagent_failed" in row.signals:
            self._delegation(row, cmd)
            return
        if row.category in ("search", "todo") or row.tool in _NOT_CHECKS:
            if row.signatures and row.status == "completed" and row.category == "search":
                self.seen.append((row.session_id, row.ordinal, row.signatures))
            return
        key = check_key(tool, cmd)
        if row.category == "file-edit" and tool == row.tool:
            ok = row.status == "completed" and not row.signatures
            if ok or rejected:
                # a shell command that edits (``mkdir -p a/b``, ``sed -i … f``): its last word
                path = cmd if row.tool in ("edit", "write", "multiedit", "patch") or \
                    " " not in cmd.strip() else _edited_path(cmd)
                where = path.replace("\\", "/").rstrip("/").split("/")[-2:]
                self.steps.append(Step(row.session_id, row.ordinal, key, ok, False, False,
                                       None, rejected, target="/".join(where),
                                       wrote=row.edit[0], took=row.edit[1]))
            return
        no_output = "no_output" in row.signals
        answered_error = "error_body" in row.signals
        # a clean exit that printed the program's usage: its arguments were refused
        refused = row.usage is not None and row.status == "completed"
        # a clean exit whose output says a tool or library it needs failed (a probe's
        # "openpyxl: NOT available", `zsh:1: command not found` behind `| head`)
        said_failed = "output_error" in row.signals and bool(row.failure)
        failed = bool(row.signatures) or row.status in ("error", "interrupted") or (
            row.exit_code not in (None, 0) and key.split(" ", 1)[0] not in PROBES) or \
            no_output or answered_error or refused or said_failed
        signature = row.signatures[0] if row.signatures else (
            _lost_output(key, printing_segment(cmd)) if no_output else
            f"the server answered with an error: {short(row.failure or '', 140)}"
            if answered_error and row.failure else None)
        # a run that changes the state the next check sees (an install, a code generator,
        # a restart, a cache cleared) is a change between two runs of that check too
        stateful = not failed and (row.category == "install" or _changes_state(
            [key.split()] if row.tool not in _SHELLS else segment_words(cmd), cmd))
        sibling = next((s for s in reversed(self.steps[-8:])
                        if s.session_id == row.session_id and s.ordinal == row.ordinal
                        and s.check and s.failed and (s.signature or s.failure)), None) \
            if row.error and not signature else None
        # a call cancelled because the call beside it failed never ran: that call's error
        # is its cause (logparse.errorline.CANCELLED_BY_SIBLING)
        signature = signature or (cancelled_by(row.error, sibling.key,
                                               sibling.signature or sibling.failure)
                                  if sibling is not None else None)
        self.steps.append(Step(row.session_id, row.ordinal, key, stateful, True, failed,
                               signature or (
                                   short(row.error, 120) if row.error else (
                                       "the tool call was still running"
                                       if row.status == "interrupted" else None)), rejected,
                               signatures=row.signatures,
                               command=cmd[:300],
                               offline=row.offline or "sandbox_denied" in row.signals,
                               escalated="escalation_requested" in row.signals,
                               target=key if stateful else "", tool=tool,
                               failure=_ANSI.sub("", row.failure or (
                                   f"it printed its usage: {row.usage}" if refused else ""))[:160]
                               if failed else "", mixed=row.mixed or ""))

    def _delegation(self, row: CallRow, cmd: str) -> None:
        """A call that handed work to a sub-agent is a step: a check whose outcome is the
        sub-agent's own (its call's status, the error its session ended on, no answer at
        all: :func:`logparse.structural.subagent_failed`), never words of its report."""
        failed = "subagent_failed" in row.signals
        unanswered = failed and row.status == "interrupted"
        self.steps.append(Step(
            row.session_id, row.ordinal, f"{AGENT_KEY}{row.delegate}" if row.delegate
            else check_key("task", cmd or row.title or row.tool),
            False, True, failed,
            "the tool call was still running: the sub-agent never reported back"
            if unanswered else row.failure or None if failed else None,
            command=(cmd or row.title or "")[:300], tool="task",
            failure=(row.failure or "")[:160] if failed else "",
            child=row.child_session_id or ""))

    def _call(self, row: CallRow) -> None:
        self.last_call = row
        if row.poll:  # the run it polls carries its answer: no step, no question
            for value, unit, label in row.measurements:
                self.measurements.append((row.session_id, row.ordinal, value, unit, label))
            return
        self._step(row)
        for value, unit, label in row.measurements:
            self.measurements.append((row.session_id, row.ordinal, value, unit, label))
        if row.tool == "task":
            self._research(row)
        else:
            self._experiment(row)
        self._question(row)

    def _experiment(self, row: CallRow) -> None:
        if row.category in ("search", "todo", "research", "file-edit", "kill"):
            text_only = True
        else:
            text_only = False
        cmd = row.remote_command or row.command or ""
        strong = [a for a in self.mentioned(cmd, loose=True) if a.kind != "goal"
                  and a.first <= row.ordinal and (a.ended is None or a.ended >= row.ordinal)
                  and (a.active or len(self.mentioned(cmd)) > 0)]
        for a in strong:
            a.experiments.append(row)
            a.add_evidence(Evidence(row.session_id, row.ordinal,
                                    "tested" if (_failed(row) or row.measurements)
                                    else "checked", _outcome(row)))
        if not strong and not text_only and row.category in _EXPERIMENT_CATEGORIES:
            for a in self.active(row.ordinal)[-1:]:
                a.weak.append(row)
                # only the last few can still decide the approach (see DECISIVE)
                if len(a.weak) > 64:
                    a.weak = [w for w in a.weak if w.ordinal >= row.ordinal - 12]

    def _research(self, row: CallRow) -> None:
        what = row.title or row.command or ""
        targets = [a for a in self.mentioned(what) if a.ended is None]
        if not targets:
            act = self.active(row.ordinal)
            targets = act[-1:]
        for a in targets:
            if row.child_session_id:
                a.research.append(row.child_session_id)
            a.sources.add("subagent")
            a.add_evidence(Evidence(row.session_id, row.ordinal, "research",
                                    short(what, 120)))

    def _question(self, row: CallRow) -> None:
        # a transport failure leaves a question open only when the transport is the
        # wrapper (ssh); "Connection refused" from a curl or nc probe is its answer
        reason = transport_failure(list(row.signatures)) if row.hops else None
        if reason is None and row.offline and row.signatures and any(
                _NETWORK.search(s) for s in (*row.signatures, row.output_tail or "")):
            # the sandbox cut the network: the server was never asked
            reason = "the sandbox has no network access"
        if reason is None:
            if "rejected_by_user" in row.signals or (
                    row.status == "error" and "rejected permission" in (row.error or "")):
                reason = "the user rejected the tool's permission"
            elif "interrupted" in row.signals:
                reason = "the user stopped the run"
            elif "no_output" in row.signals:
                reason = "the run printed nothing: its output was lost"
            elif "still_running" in row.signals:
                reason = "the command still ran when its output came back" + (
                    " (the output was cut)" if "truncated" in row.signals else "")
            elif "truncated" in row.signals and "timed_out" not in row.signals:
                # (a run the timeout cut says so first: its answer never came at all)
                reason = "the tool cut the output: the agent saw only part of the answer"
                if row.saved:
                    # a later read of the file the whole output went to answers it
                    self.saved_outputs[(row.session_id, row.saved)] = \
                        f"{row.session_id}:{row.ordinal}:{row.seq}:0"
            elif row.status == "aborted":
                reason = "the tool call was aborted"
            elif row.status == "interrupted" and row.tool in DELEGATION_TOOLS:
                reason = "the sub-agent never reported back before the transcript ends"
            elif row.status == "interrupted":
                reason = "the tool call was still running when the transcript ends"
            elif "waiting_for_input" in row.signals:
                reason = "the run sat at a prompt no one answered"
            elif row.exit_code == 124 or "timed_out" in row.signals or any(
                    _TIMEOUT.search(s) for s in row.signatures):
                reason = "the check timed out"
        if reason is None:
            # a later run of the same check may answer an open question
            self._answer(row)
            return
        nested = [h for h in row.hops if h.get("nested")]
        answered_outer = any(transport_failure([s]) is None for s in row.signatures)
        if nested and (answered_outer or (row.output_tail or "").strip().count("\n") >= 1):
            asks = [(h.get("remote_command") or "", h.get("host")) for h in nested]
        else:
            # (a call with no command, such as an MCP tool's: what it asked is its tool)
            asks = [(row.remote_command or row.command or row.tool, row.host)]
        act = self.active(row.ordinal)
        for i, (cmd, host) in enumerate(asks):
            self.questions.append(Question(
                id=f"{row.session_id}:{row.ordinal}:{row.seq}:{i}", session_id=row.session_id,
                ordinal=row.ordinal, question=question_of(cmd, host), reason=reason,
                host=host, command=cmd, approach_id=act[-1].id if act else None))

    def _answer(self, row: CallRow) -> None:
        """A later run of the same check (same normalised command, same host) that
        completed answers the question an earlier run left open."""
        if row.status != "completed" or row.category in ("todo",):
            return
        cmd = row.remote_command or row.command or ""
        saved = self.saved_outputs
        if saved:
            seen = cmd.replace("\\", "/")
            for (sid, path), qid in list(saved.items()):
                if sid == row.session_id and path in seen:
                    for q in self.questions:
                        if q.id == qid and q.answered_at is None:
                            q.answered_at = row.ordinal
                    del saved[(sid, path)]
        tool = row.tool
        if tool == "write_stdin" and _POLLED.match(cmd):
            tool, cmd = "bash", _POLLED.sub("", cmd)  # a poll answers the run it polls
        key = None
        asks = None
        pending = [q for q in self.questions[self._answered_upto:] if q.answered_at is None]
        while self._answered_upto < len(self.questions) and \
                self.questions[self._answered_upto].answered_at is not None:
            self._answered_upto += 1  # questions before this index are all answered
        for q in pending:
            if q.session_id == row.session_id \
                    and q.ordinal < row.ordinal and q.host == row.host and q.command:
                if key is None:
                    key = check_key(tool, cmd)
                    asks = question_of(cmd, row.host)  # the same for every question
                if asks == q.question or (
                        check_key(tool, q.command) == key
                        and _jaccard(tokens(cmd), tokens(q.command)) >= 0.8):
                    q.answered_at = row.ordinal
        last = self.steps[-1] if self.steps else None
        if last is not None and last.check and last.session_id == row.session_id \
                and last.ordinal == row.ordinal:
            # a change a provider error cut before it was checked is checked by the next
            # run that checks anything (the user said "continue" after the error)
            for q in pending:
                if q.answered_at is None and q.session_id == row.session_id \
                        and q.ordinal < row.ordinal and q.id.endswith(":cut"):
                    q.answered_at = row.ordinal

    # -- after the pass ----------------------------------------------------------
    EXPLAIN = 2
    """Messages before and after an approach's end whose prose may say why it ended."""

    def found(self) -> list[Found]:
        """The episode rules' dead ends for the rows fed so far, found once:
        :meth:`explanation_spans` and :meth:`finish` both read them."""
        if self._found is None:
            self._found = episodes(self.steps, self.said, self.unfound, self.seen,
                                   self.absent, self.probes,
                                   made_by("switched", switched_episodes(self.steps))
                                   + made_by("escalated", escalated_episodes(self.steps))
                                   + made_by("dropped_option",
                                         dropped_option_episodes(self.steps, self.said))
                                   + made_by("merged_stderr", merged_stderr_episodes(self.steps))
                                   + made_by("delegated", delegated_episodes(self.steps)),
                                   made_by("taken_back",
                                       taken_back_episodes(self.steps, self.said))
                                   + made_by("disproved",
                                         disproved_episodes(self.steps, self.said))
                                   + made_by("misread", misread_episodes(self.steps, self.said))
                                   + made_by("revised",
                                         revised_episodes(self.steps, self.said,
                                                          self.lookups))
                                   + made_by("rewound", rewound_episodes(
                                       self.steps, self.rewinds)))
            self._found = told_once(self._found, self.steps)
        assert self._found is not None
        return self._found

    def explanation_spans(self) -> list[tuple[str, int, int]]:
        """``(session, first, last)`` ordinals whose prose :meth:`finish` wants."""
        spans = [(a.session_id, a.ended - self.EXPLAIN, a.ended + self.EXPLAIN)
                 for a in self.approaches if a.ended is not None]
        for f in self.found():
            spans.append((f.session_id, f.first, f.ended + max(self.DIAGNOSIS, LATER)))
        spans += [(sid, o + 1, o + 1) for sid, o, _ in self.attachments]
        return spans

    DIAGNOSIS = 5
    """Messages after an episode ended in which the agent's diagnosis is looked for."""

    def finish(self, annotations: list[Annotation], verdicts: list[Verdict],
               sessions: list[str],
               explanations: dict[tuple[str, int], list[str]] | None = None) -> Extraction:
        """Settle statuses and causes, link pivots, apply annotations and replay verdicts.

        ``explanations`` maps ``(session, ordinal)`` to the assistant prose of that
        message, for the spans of :meth:`explanation_spans`.  This changes the
        extractor: finish a copy to keep feeding the original."""
        explanations = explanations or {}
        for a in self.approaches:
            if a.ended is not None:
                a.explanation = _explain(a, explanations)
        for a in self.approaches:
            self._settle(a)
        self._episodes(explanations)
        self._unread(explanations)
        self._same_causes()
        self._pivots()
        self._decisions()
        self._unnarrate()
        self._apply(annotations)
        self._risks()
        self._revisit(verdicts)
        causes: dict[str, Cause] = {}
        for a in self.approaches:
            if a.cause is not None and a.status in ("dead_end", "blocked", "superseded"):
                causes.setdefault(a.cause.key, a.cause)
        return Extraction(scope=self.scope, sessions=sessions, approaches=self.approaches,
                          questions=self.questions, pivots=self.pivots,
                          decisions=self.decisions, measurements=self.measurements,
                          causes=causes, links=self.links)

    LATE_EXPLANATION = 40
    """Messages after an approach ended in which a verdict naming it still explains it."""

    DECISIVE = 8
    """Ordinals before an approach ended (or was confirmed) in which an unnamed
    experiment run while it was active counts as the one that decided it."""

    def _settle(self, a: Approach) -> None:
        until = a.ended
        if until is None and a.status == "confirmed":
            until = max((e.ordinal for e in a.evidence if e.role == "confirmed"), default=None)
        if until is not None:
            for e in a.weak:
                if until - self.DECISIVE <= e.ordinal <= until and (_failed(e) or e.measurements):
                    a.experiments.append(e)
                    a.add_evidence(Evidence(e.session_id, e.ordinal, "tested", _outcome(e)))
            a.experiments.sort(key=lambda e: (e.ordinal, e.seq))
        if a.ended is None:
            if a.status != "confirmed":
                a.status = "open"
            return
        failing = [e for e in a.experiments if e.signatures or e.status in _FAILING]
        signature = None
        for e in reversed(failing):
            if e.ordinal <= a.ended:
                signature = e.signatures[0] if e.signatures else None
                break
        notes = list(a.end_notes or [(1, a.end_text or "")])
        notes += [(1, t) for t in a.explanation]
        decided = [d for d in self.decisions if a.ended is not None
                   and abs(d.ordinal - a.ended) <= 1 and d.session_id == a.session_id]
        notes += [(0, d.text) for d in decided]
        a.cause, best = _best_cause(notes, signature)
        if a.cause.kind == "stated" and similarity(tokens(a.cause.label), a.tokens) >= 0.6:
            # "Try task_always_eager" cancelled: the note restates the approach, it gives
            # no reason; the failure seen while it was tried does
            seen = [s for s in self.steps if s.session_id == a.session_id and s.failed
                    and s.signature and a.first <= s.ordinal <= a.ended]
            if seen and seen[-1].signature is not None:
                a.cause = _cause("", seen[-1].signature)
                best = f"{best} ({seen[-1].signature})"
        a.cause_text = best
        texts = [best] + [t for _, t in sorted(notes, key=lambda n: -n[0]) if t != best]
        a.end_text = " · ".join(dict.fromkeys(short(t, 240) for t in texts if t))[:900]
        for ev in a.evidence:
            if ev.role == "ended" and ev.ordinal == a.ended:
                ev.note = short(best, 200)
        if a.cause.kind == "missing" or a.blocked_hint:
            a.status = "blocked"
        elif (_SUPERSEDED.search(" ".join(t for _, t in a.end_notes)) or decided) \
                and not failing:
            a.status = "superseded"
        else:
            a.status = "dead_end"

    def _unread(self, explanations: dict[tuple[str, int], list[str]]) -> None:
        """An attachment the reply says it cannot read leaves its question open."""
        for sid, o, what in self.attachments:
            said = " ".join(explanations.get((sid, o + 1), []))
            if _CANNOT_READ.search(said) and not any(
                    q.session_id == sid and q.ordinal == o for q in self.questions):
                self.questions.append(Question(
                    id=f"{sid}:{o}:attachment", session_id=sid, ordinal=o,
                    question=f"what does the attachment show ({short(what, 60)})?",
                    reason="the reply says it cannot read the attachment", host=None,
                    command=""))

    def _episodes(self, explanations: dict[tuple[str, int], list[str]]) -> None:
        """Dead ends read from episodes around checks and from what the user reports
        (:mod:`kb.graph.episodes`); one an approach already tells is not told twice."""
        ended = [a for a in self.approaches
                 if a.status in ("dead_end", "blocked", "superseded")]
        made: dict[int, Approach] = {}
        users: dict[str, list[int]] = {}
        for x in self.said:
            if x.role in ("user", "record"):
                users.setdefault(x.session_id, []).append(x.ordinal)
        steps: dict[str, list[int]] = {}
        for st in self.steps:
            steps.setdefault(st.session_id, []).append(st.ordinal)
        for sid, o, _ in self.lookups:
            # a read or a search is looking again too (the agent reads the file the
            # user complains about, then says why)
            steps.setdefault(sid, []).append(o)
        for f in self.found():
            mine = f.ordinals()
            if any(a.session_id == f.session_id
                   and len(mine & {e.ordinal for e in a.evidence}) * 2 >= len(mine)
                   for a in ended):
                continue
            if f.how in ("damage", "guesses"):
                # the reply that saw the damage often says why at once
                window = range(f.ended, f.ended + 1 + self.DIAGNOSIS)
            elif f.how == "taken-back":
                # the message of the first edit that acted on the review (or took the lines
                # back) says which finding, or why
                redone = min(o for o, role, _ in f.evidence if role == "ended")
                window = range(redone - 1, redone + 1)
            elif f.how == "misread":
                # the user's restatement is the cause: what the agent said after it is
                # about the work it then did, not why it misread the request
                window = range(0)
            elif f.how == "reworked" and f.said_at is not None:
                # what the agent understood once the user sent the work back
                window = range(f.said_at + 1, f.ended + 1 + self.DIAGNOSIS)
            elif f.how == "revised":
                # the reason the revision gives is its cause (kb.graph.revised)
                window = range(0)
            elif f.how == "disproved":
                # what disproved it is its cause: the statement that turned it round, the
                # new cause after the user's evidence (kb.graph.disproved)
                window = range(0)
            elif f.how in ("retracted", "judged"):
                # the change's own message says what it assumed
                window = range(f.first, f.ended + 3)
            elif f.how in ("failed-check", "abandoned-check", "rejected", "interrupted",
                           "failed-attempt", "switched",
                           "replaced", "unfound", "subagent-failed"):
                # the prose of the first failure's own message was written before its
                # call ran: it plans, it cannot diagnose; what the agent understood
                # after the last failure may come a few messages later
                window = range(f.first + 1, f.ended + 1 + self.DIAGNOSIS)
            else:
                window = range(f.ended + 1, f.ended + 1 + self.DIAGNOSIS)
            subject = (tokens(f.name) | tokens(f.signature or "") | frozenset().union(
                *(tokens(n) for _, _, n in f.evidence if n))) - _EPISODE_WORDS
            tiers: list[int] = []
            said_at: list[int] = []
            diagnosis = _diagnosis(explanations, f.session_id, window, subject,
                                   f.ordinals() | {f.ended}, tiers, said_at)
            reviewed = f.how == "taken-back" and f.said_at is not None
            if reviewed and diagnosis and _PLANS.match(diagnosis):
                diagnosis = None  # "Now Q1's twin-result-block issue.": a heading, no reason
                tiers.clear()
            finding = review_finding(
                explanations, f.session_id, f.said_at,
                [o for o, role, _ in f.evidence if role == "ended"]) \
                if f.said_at is not None and reviewed and not diagnosis else None
            if finding:
                # the first edit's message gave no reason (a heading): the finding each
                # edit acts on, as the agent names it, is what the review found wrong
                # (kb.graph.rootcause.REVIEW_READINGS)
                diagnosis = f.stated = finding
            if f.how == "taken-back":
                # nothing failed and nobody spoke: the opening of the message that takes
                # the lines back says why ("Build succeeded with only deprecation
                # warnings."), before any sentence deeper in it
                opening = _opening(explanations, f.session_id, window)
                if opening and diagnosis and diagnosis not in opening:
                    diagnosis = f"{opening} · {diagnosis}"
                else:
                    diagnosis = opening or diagnosis
            # what disproved it is its cause; a compaction that lost the task is the cause
            settled = f.how in ("disproved", "misread", "revised") \
                or f.cause_text.startswith(LOST_TASK) or bool(finding)
            later = None if settled else later_root(
                explanations, f.session_id, f.ended, subject, users.get(f.session_id, ()),
                steps.get(f.session_id, ()))
            revised = None if settled or not said_at or said_at[0] <= f.ended \
                else later_root(explanations, f.session_id, said_at[0], subject,
                                users.get(f.session_id, ()), steps.get(f.session_id, ()),
                                said=True)
            if revised is not None:
                # the diagnosis was already the agent's reading after the end; a root it
                # states once it looked again after that revises it, whatever the words
                later = revised
            elif later is not None and later.tier <= (tiers[0] if tiers else 0):
                later = None
            if later is not None and later.text != diagnosis:
                # the root the agent stated once it looked again wins over what it said
                # at the failure; the first error stays in the cause's evidence
                f.stated = later.text
                diagnosis = later.text
            elif later is None and f.how == "refuted" and not f.stated:
                # the user's message speaks of another target (other files): the root
                # the agent stated about its own change before it is the cause
                # (kb.graph.causechoice.OTHER_TARGET)
                own = own_root(explanations, f.session_id, f.first, f.ended,
                               _changed_files(f), f"{f.cause_text} {f.why or ''}")
                if own is not None:
                    f.stated = diagnosis = own.text
            if f.how == "guesses":
                # the agent guessed again after the finding that ended the guesses: that
                # finding was one more guess; the finding the turn ends on is the cause
                # (kb.graph.causechoice.CONCLUDED)
                concluded = concluded_finding(
                    [(x.ordinal, x.signal or "", x.text) for x in self.said
                     if x.session_id == f.session_id and x.role == "assistant"
                     and x.signal in ("hypothesis", "found")],
                    f.ended, users.get(f.session_id, ()), subject)
                if concluded is not None:
                    f.stated = diagnosis = concluded
            if diagnosis:
                # what the parenthesis adds is never a narration lead-in ("(I see the
                # issue. In modal.php, we have: 1. …)")
                told = unnarrated(f.why) if f.why else ""
                f.why = f"{diagnosis} ({told})" if told and f.how != "failed-check" \
                    and told not in diagnosis else diagnosis
            made[id(f)] = self._from_episode(f, self._open_about(f))
            first = made.get(id(f.root)) if f.root is not None else None
            if first is not None:
                made[id(f)].cause = first.cause  # one symptom, one cause node

    def _open_about(self, f: Found) -> Approach | None:
        """The open approach an episode ends: one proposed or tried in its messages (the
        agent said "let me try the thread pool", then the run that was not worth it)."""
        mine = f.ordinals()
        for a in self.approaches:
            if a.status == "open" and a.kind != "goal" and a.session_id == f.session_id \
                    and a.ended is None and f.first - 1 <= a.first <= f.first \
                    and mine & {e.ordinal for e in a.evidence}:
                return a
        return None

    def _from_episode(self, f: Found, into: Approach | None = None) -> Approach:
        if into is not None:
            a = into
            a.aliases.append(f.name)
            a.sources.add("episode")
            for o, role, note in f.evidence:
                a.add_evidence(Evidence(f.session_id, o, role, note))
        else:
            a = self._new(f.name, f.session_id, f.first, "episode")
            a.evidence = [Evidence(f.session_id, o, role, note)
                          for o, role, note in f.evidence]
        a.ended = f.ended
        a.active = False
        a.via = f"{f.rule or 'episode'}:{f.how}"
        # never a narration heading ("I see the issue!"): what it announces, else the
        # agent's diagnosis, else the error
        said = unnarrated(f.cause_text) if f.cause_text else ""
        if f.cause_text and not said:
            said = unnarrated(f.why or "") or f.signature or f.cause_text
        if said and said != f.signature:
            # a sentence of a reply, not the error: without its Markdown ("- ❌ **Code
            # Export section** is missing")
            said = plain(said) or said
        found = a.cause = _cause(said, f.signature)
        if f.stated and found.kind in ("stated", "error"):
            # a root the agent found later names the cause; the node stays the symptom's
            a.cause = Cause(key=found.key, label=short(f.stated, 200), kind=found.kind)
            root = cause_of(f.stated)
            if found.kind == "error" and root.kind == "stated":
                # the agent's words are the cause, not the error it read them from: the
                # cause is a stated one, named by those words (the error stays evidence)
                a.cause = Cause(key=root.key, label=short(f.stated, 200), kind="stated")
        a.cause_text = f.why or said
        a.end_text = " · ".join(t for t in dict.fromkeys([f.cause_text, f.why or ""]) if t)
        a.status = "blocked" if found.kind == "missing" else "dead_end"
        a.notes.append(f"read from an episode: {f.how}")
        return a

    def _unnarrate(self) -> None:
        """No cause opens with a narration lead-in ("Ah, the issue is …", "I see the
        issue - `X` doesn't exist …"): what it announces is the cause
        (:data:`kb.graph.rootcause.NARRATION`).  Approaches that share a cause keep
        sharing one."""
        done: dict[int, Cause] = {}
        for a in self.approaches:
            c = a.cause
            if c is None:
                continue
            if id(c) not in done:
                said = unnarrated(c.label)
                if said and said != c.label:
                    said = said[:1].upper() + said[1:]  # "the issue is …" opens it now
                    done[id(c)] = Cause(key=c.key, label=said, kind=c.kind)
                else:
                    done[id(c)] = c
            a.cause = done[id(c)]

    def _same_causes(self) -> None:
        """Join causes the transcript says are one ("same cause as PgBouncer"), and stated
        causes that share their distinctive words ("session advisory locks")."""
        ended = [a for a in self.approaches if a.cause is not None and a.ended is not None]
        for a in ended:
            m = _SAME_CAUSE.search(a.end_text or "")
            if m:
                ref = self.find(m.group("ref"), threshold=0.5,
                                pool=[b for b in ended if b is not a])
                if ref is not None and ref.cause is not None:
                    a.cause = ref.cause
        by_id = {a.id: a for a in ended}
        for group in self.together:
            members = [by_id[i] for i in group if i in by_id]
            if len(members) >= 2:
                first = members[0]
                assert first.cause is not None
                for b in members[1:]:
                    b.cause = first.cause
        # episodes share a node through their signature (the cause key), not through words
        loose = [a for a in ended if a.cause is not None and a.cause.kind in ("stated", "error")
                 and "episode" not in a.sources]
        for i, a in enumerate(loose):
            for b in loose[:i]:
                assert a.cause is not None and b.cause is not None
                if a.cause.key == b.cause.key:
                    continue
                if _cause_phrases(a) & _cause_phrases(b):
                    a.cause = b.cause

    def _pivots(self) -> None:
        prev = 0
        for p in self.pivots:
            p.sources = [a.id for a in self.approaches
                         if a.ended is not None and prev < a.ended <= p.ordinal
                         and a.status in ("dead_end", "blocked", "superseded")
                         and a.session_id == p.session_id]
            later = [a for a in self.approaches
                     if a.kind == "approach" and a.session_id == p.session_id
                     and p.ordinal <= a.first <= p.ordinal + 2]
            p.targets = [a.id for a in later]
            if p.sources and p.targets:
                prev = p.ordinal
        self.pivots = [p for p in self.pivots if p.sources and p.targets]
        for p in self.pivots:
            for a in self.approaches:
                if a.id in p.sources and a.status == "dead_end" and not a.experiments \
                        and "episode" not in a.sources:  # an episode failed, it was not
                    a.status = "superseded"          # merely replaced

    def _decisions(self) -> None:
        for d in self.decisions:
            d.approach_ids = [a.id for a in self.mentioned(d.text)]

    def _apply(self, annotations: list[Annotation]) -> None:
        for ann in annotations:
            if ann.kind == "link":
                a = self._resolve(ann.value or "", ann.session_id)
                b = self._resolve(ann.target or "", ann.session_id)
                if a and b:
                    self.links.append((a.id, b.id, None))
                continue
            a = self._at(ann)
            if ann.kind == "hypothesis":
                name = ann.value or f"hypothesis at {ann.ordinal}"
                a = self.find(name) or self._new(name, ann.session_id, ann.ordinal or 0,
                                                 "annotation")
                a.sources.add("annotation")
                a.annotated = True
                continue
            if a is None:
                a = self._new(ann.value or f"step {ann.ordinal}", ann.session_id,
                              ann.ordinal or 0, "annotation")
            a.annotated = True
            a.sources.add("annotation")
            if ann.kind == "dead_end":
                a.via = "annotation"
                a.ended = ann.ordinal
                a.end_text = ann.value or "marked a dead end"
                found = cause_of(a.end_text)  # the root groups it; the words stay the user's
                a.cause = Cause(key=found.key, label=a.end_text, kind=found.kind)
                a.status = "blocked" if a.cause.kind == "missing" else "dead_end"
                a.add_evidence(Evidence(ann.session_id, ann.ordinal or 0, "annotated",
                                        a.end_text))
            elif ann.kind == "confirmed":
                a.status, a.ended, a.cause = "confirmed", None, None
                a.add_evidence(Evidence(ann.session_id, ann.ordinal or 0, "annotated",
                                        ann.value or "marked confirmed"))
            elif ann.kind == "note":
                a.notes.append(f"{ann.ordinal}: {ann.value}")
            elif ann.kind == "revisit":
                a.revisit = ann.value or "marked for revisit"

    def _resolve(self, ref: str, session_id: str) -> Approach | None:
        if ref.isdigit():
            return self._at(Annotation(0, session_id, int(ref), "link"))
        return self.find(ref, threshold=0.5)

    def _at(self, ann: Annotation) -> Approach | None:
        """The approach a message belongs to: one it tested/ended, else the one active."""
        if ann.ordinal is None:
            return None
        for a in self.approaches:
            if any(e.ordinal == ann.ordinal and e.session_id == ann.session_id
                   for e in a.evidence):
                return a
        act = [a for a in self.approaches if a.kind != "goal"
               and a.session_id == ann.session_id and a.first <= ann.ordinal
               and (a.ended is None or a.ended >= ann.ordinal)]
        return act[-1] if act else None

    def _risks(self) -> None:
        df = Counter(t for a in self.approaches for t in a.tokens)
        n = max(1, len(self.approaches))
        generic = {t for t, c in df.items() if c / n > 0.34 and c > 2}
        dead = [a for a in self.approaches if a.status in ("dead_end", "blocked")
                and a.cause is not None and a.cause.kind in ("unsupported", "incompatible",
                                                             "missing")]
        for b in self.approaches:
            if b.kind != "approach":
                continue
            for a in dead:
                if a is b or a.ended is None or b.first <= a.first:
                    continue
                shared = (a.tokens & b.tokens) - generic
                if shared:
                    assert a.cause is not None
                    b.risks.append(f"{a.name} ended here because of {a.cause.label}; "
                                   f"{b.name} also depends on {', '.join(sorted(shared))}")

    def _revisit(self, verdicts: list[Verdict]) -> None:
        latest = {(v.session_id, v.ordinal): v for v in verdicts}
        for a in self.approaches:
            if a.status not in ("dead_end", "blocked") or a.revisit:
                continue
            for e in a.experiments:
                v = latest.get((e.session_id, e.ordinal))
                if v and v.verdict == "now-passes":
                    a.revisit = (f"replay of message {e.ordinal}: {v.verdict}"
                                 + (f" ({v.note})" if v.note else ""))
                    break
        for q in self.questions:
            v = latest.get((q.session_id, q.ordinal))
            if v and v.verdict == "now-answers" and q.answered_at is None:
                q.answered_at = -1  # answered by a replay


_MARKER = re.compile(r"^\W*(?:dead[\s-]*end|abandon(?:ed|ing)?|cancel+ed|blocked|ruled out|"
                     r"no[\s-]?go|won't work|doesn't work|❌)\W*", re.I)


_SHELLS = frozenset({"bash", "shell", "powershell", "exec", "terminal"})
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\[[0-9;]{1,12}m")
_POLLED = re.compile(r"^session \d+:\s*")
"""Codex ``write_stdin`` polls name the command they poll (``session 24629: cargo …``)."""


def _changes_state(commands: list[list[str]], cmd: str) -> bool:
    """Whether a run changes what the next check sees: one of its commands (their first
    words) installs, generates, restarts or clears (``npm install``, ``next typegen``,
    ``airflow dags reserialize``, ``rm -rf .cache``, ``find . -name __pycache__ -exec
    rm``), not git (``git add`` stages, it changes nothing)."""
    for words in commands:
        if not words or words[0] in ("git", "gh", "hg", "svn"):
            continue
        if words[0] in _REMOVERS or (words[0] == "find" and _FIND_REMOVES.search(cmd)):
            return True
        if any(w in _STATEFUL for w in words[1:3]):
            return True
    return False


def _edited_path(cmd: str) -> str:
    """The file a shell command edits: what it redirects to or hands ``tee``, else the
    last word of its first part that looks like a path (``sed -i … src/main.rs``,
    ``mkdir -p assets/pieces``)."""
    first = re.split(r"\s*(?:&&|\|\||;)\s*|\n", cmd.strip(), maxsplit=1)[0]
    m = re.search(r"(?:>>?|\btee(?:\s+-a)?)\s*([^\s<>|&;'\"]+)", first)
    if m and m.group(1) != "/dev/null":
        return m.group(1)
    words = [w.strip("'\"") for w in first.split() if not w.startswith("-")
             and "<" not in w and ">" not in w and ("/" in w or "." in w[1:])]
    return words[-1] if words else cmd.split()[-1]


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _diagnosis(explanations: dict[tuple[str, int], list[str]], session_id: str,
               window: Iterable[int], subject: frozenset[str] = frozenset(),
               anchor: Iterable[int] = (), tier_out: list[int] | None = None,
               at_out: list[int] | None = None) -> str | None:
    """The agent's sentence in some messages that says why something failed.

    A sentence that says it names the root ("the issue is that …", "because …") ranks
    above one that states one ("it has no …", "instead of …"), which ranks above one that
    only argues; among those, one about the episode's ``subject`` (its check, error and
    files) and one close to an ``anchor`` (the episode's runs and its end) win; else the
    first.  ``tier_out`` receives the chosen sentence's tier (3 names the root, 2
    states one, 1 argues), ``at_out`` the ordinal of its message."""
    anchors = sorted(anchor)
    best: tuple[float, int] | None = None
    chosen = None
    chosen_tier = 0
    chosen_at = 0
    rank = 0
    for o in window:
        for text in explanations.get((session_id, o), []):
            for sentence, tier in _diagnoses(text):
                about = min(len(tokens(sentence) & subject), 3)
                score = tier * 2 + about - (0.5 * min(abs(o - a) for a in anchors)
                                            if anchors else 0)
                rank -= 1
                if best is None or (score, rank) > best:
                    best, chosen = (score, rank), short(sentence, 240)
                    chosen_tier, chosen_at = tier, o
    if tier_out is not None and chosen is not None:
        tier_out.append(chosen_tier)
    if at_out is not None and chosen is not None:
        at_out.append(chosen_at)
    return chosen


_DIAGNOSES: Memo[tuple[tuple[str, int], ...]] = memo("diagnosis sentences")


OPENING = 2
"""Sentences of a message read as its opening."""


def _opening(explanations: dict[tuple[str, int], list[str]], session_id: str,
             window: Iterable[int]) -> str | None:
    """The first sentences of the last message in ``window`` that has prose."""
    for o in sorted(window, reverse=True):
        for text in explanations.get((session_id, o), []):
            text = text.strip()
            if not text:
                continue
            end = 0
            for _ in range(OPENING):
                _, end = sentence_bounds(text, end)
                end += 1
            return short(text[:end], 240)
    return None


def _diagnoses(text: str) -> tuple[tuple[str, int], ...]:
    """The sentences of a reply that may say why something failed, each with its tier
    (3: names the root, 2: states one, 1: argues), in order; memoised (a reply is read
    for every episode whose window holds it)."""
    return _DIAGNOSES.get(text_key(text), lambda: _diagnosis_sentences(text))


def _diagnosis_sentences(text: str) -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = []
    paras = [p for p in text.split("\n") if p.strip()]
    for j, para in enumerate(paras):
        # Markdown and narration lead-ins never start a cause: "1. **Section titles
        # not centered**: …" says "Section titles not centered: …", "Actually, this
        # won't work because …" says "this won't work because …"
        sentences = [unnarrated(plain(s.strip(" -*•#")))
                     for s in re.split(r"(?<=[.!?])\s+", para)]
        if sentences[-1].endswith(":") and j + 1 < len(paras):
            # "I didn't use it because:" and the list that says why
            sentences[-1] += " " + plain(_LIST_MARK.sub("", paras[j + 1]))
        heads = [announces(s.strip(" -*•#")) for s in re.split(r"(?<=[.!?])\s+", para)]
        for i, sentence in enumerate(sentences):
            if len(sentence) < 16 or _RESTATES.search(sentence):
                continue
            if len(sentence) < 60 and i + 1 < len(sentences) and \
                    not _PLANS.match(sentences[i + 1]) and _tier(sentence):
                # "The issue is likely the newline format. The content might use
                # CRLF …": a short verdict that the next sentence spells out (a short
                # sentence that says nothing of a cause, "OK, I can see the content is
                # there.", leads nothing in)
                sentence = f"{sentence} {sentences[i + 1]}"
            tier = _tier(sentence)
            if i and heads[i - 1] and not (_DOING.match(sentence) or _PLANS.match(sentence)):
                # "Found the issue! The demo has custom CSS that's overriding Bootstrap's
                # nav styling:": the heading says the next sentence names the root (the
                # code it points at stays out)
                tier = 3
                sentence = _without_fence(sentence)
            if not tier:
                continue
            if _DOING.match(sentence) or _HEDGED.search(sentence) or GUESS.search(sentence):
                # "I'm regenerating the types instead of relying on the cache": the
                # next step, told with its reason; "maybe it runs old code": a
                # guess.  A sentence that explains wins; one that only argues is
                # no diagnosis then
                tier -= 1
                if not tier:
                    continue
            out.append((sentence, tier))
    return tuple(out)


def _tier(sentence: str) -> int:
    """3: the sentence names the root; 2: it states one; 1: it argues; 0: none."""
    return 3 if _STRONG_ROOT.search(sentence) else \
        2 if _ROOT.search(sentence) else 1 if _DIAGNOSIS.search(sentence) else 0


_EPISODE_WORDS = frozenset("changed change until works broke did not fix answer reply "
                           "passed again".split())
"""Words of an episode's own name and notes that say nothing about its subject."""


def _without_fence(sentence: str) -> str:
    """A sentence without the code fence opener (```` ```css ````) it took in from the
    next paragraph after its colon."""
    t = sentence.rstrip()
    i = t.rfind("```")
    if i >= 0 and all(c.isalnum() or c in "+-_" for c in t[i + 3:]):
        return t[:i].rstrip()
    return sentence


_LIST_MARK = re.compile(r"^\s*(?:[-*•#]+|\d+[.)])\s*")
_PLANS = re.compile(r"(?:let me|let's|i'?ll|i will|i need to|now|next|first)\b", re.I)
"""A sentence that plans the next step rather than explaining."""
_DOING = re.compile(r"(?:let me|let[’']s|i[’']?ll|i will|i[’']m|i am|we[’']ll|we[’']re|we are)\s",
                    re.I)
"""A sentence that tells what the agent does next."""
_HEDGED = re.compile(r"^(?:maybe|perhaps|possibly)\b|\b(?:might|could) be\b|\bas if\b", re.I)
"""A guess ("Maybe Airflow is running old code"): below a sentence that explains."""


def _changed_files(f: Found) -> frozenset[str]:
    """The files an episode's own steps touched: its name without the user's words
    quoted in it («…»), and its evidence but what ended it."""
    named = re.sub(r"«[^»]*»", "", f.name)
    notes = " ".join(n for _, role, n in f.evidence if n and role != "ended")
    return files_named(f"{named} {notes}")


def _cause(text: str, signature: str | None) -> Cause:
    """The cause a text and the failing run's signature state; one the rules cannot name
    a kind for is labelled by the signature (a bare ``Timed out`` saying what cut the
    run), else by the text."""
    found = cause_of(text, signature)
    if found.kind not in ("stated", "error"):
        return found
    if found.kind == "error" and signature and says_more(signature, text) == text:
        # the signature only names the error's type; the run's message line, behind it,
        # says what went wrong (logparse.errorline.says_more): the label, same key
        return Cause(key=found.key, label=text, kind="error")
    if signature and len(text) > len(signature) and short(signature, 60)[:-1] in text:
        # the episode says what explains the error it quotes ("the sandbox has no
        # network access (TypeError: fetch failed)"): that is the cause, not the error,
        # and a stated one, named by those words
        own = cause_of(text)
        if own.kind == "stated":
            return Cause(key=own.key, label=text, kind="stated")
        return Cause(key=found.key, label=text, kind=found.kind)
    label = text if signature is None else \
        "Timed out: the command ran into its timeout" if signature == "Timed out" else \
        readable(found.label) if found.kind == "error" else signature
    # an error reads without the script it quotes or the file it names
    # (logparse.errorline.TIDY); the key stays the signature's
    return Cause(key=found.key, label=label, kind=found.kind)


def _quoted_error(text: str) -> str | None:
    """An error pasted into a message (the signature rules load only when a graph is
    derived, not when a read command imports this module)."""
    from logparse.signals import quoted_error

    return quoted_error(text)


def _first_clause(text: str) -> str:
    """The sentence's first clause (up to a comma, semicolon or colon)."""
    return re.split(r"[,;:.]\s", " ".join(text.split()), maxsplit=1)[0]


def _best_cause(notes: list[tuple[int, str]], signature: str | None) -> tuple[Cause, str]:
    """The most specific cause among the texts that ended an approach, and that text.

    Texts are tried by priority (a todo note before a concluding sentence); the
    first that names a known kind of cause wins, else the error signature, else
    what the highest-priority text states."""
    ordered = sorted(notes, key=lambda n: -n[0])
    for _, text in ordered:
        c = cause_of(_MARKER.sub("", text))
        if c.key == "missing:prerequisite" and signature:
            c = cause_of(_MARKER.sub("", text), signature)  # the signature names what
        if c.kind != "stated":
            return c, text
    for _, text in ordered:  # a named platform or version is the cause ("glibc 2.31")
        ent = version_entity(text)
        if ent:
            return Cause(key=f"platform:{squash(ent)}", label=ent, kind="platform"), text
    top = ordered[0][1] if ordered else ""
    if signature:
        c = cause_of("", signature)
        if c.kind != "stated":
            return c, top
    return cause_of(_MARKER.sub("", top), signature), top


def _explain(a: Approach, explanations: dict[tuple[str, int], list[str]]) -> list[str]:
    """Sentences near an approach's end that give a reason: they name it or argue."""
    assert a.ended is not None
    out: list[str] = []
    # the message that ended it first, then the one before it, then the rest
    ended = a.ended
    order = sorted(range(ended - Extractor.EXPLAIN, ended + Extractor.EXPLAIN + 1),
                   key=lambda o: (o != ended, o != ended - 1, abs(o - ended)))
    for o in order:
        for text in explanations.get((a.session_id, o), []):
            for sentence in split_sentences(text):
                sentence = sentence.strip(" -*•")
                if len(sentence) < 12:
                    continue
                names_it = len(tokens(sentence) & a.tokens) >= min(2, len(a.tokens))
                if names_it or (o >= a.ended - 1 and _CAUSAL.search(sentence)):
                    out.append(short(sentence, 240))
    return list(dict.fromkeys(out))[:4]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") else word


def _cause_phrases(a: Approach) -> frozenset[tuple[str, str]]:
    """Two-word phrases of a cause that name a thing ("advisory lock"): not the
    approach's own name, not generic words."""
    assert a.cause is not None
    own = {_stem(t) for t in a.tokens}
    text = f"{a.cause.label} {a.cause_text or ''}".lower()
    words = [_stem(w) for w in re.findall(r"[a-z][a-z0-9_]+", text)]
    keep = [w if (w not in own and len(w) > 3 and w not in _GENERIC_CAUSE_WORDS
                  and w not in STOPWORDS) else "" for w in words]
    return frozenset((x, y) for x, y in zip(keep, keep[1:]) if x and y)


_GENERIC_CAUSE_WORDS = frozenset("""dead end abandoned cancelled blocked dropped because
error failed fails with same cause again still when only this that them into from after
before than then here there should would could need needs work works working""".split())


def _lost_output(key: str, segment: str | None) -> str:
    """The signature of a run that always prints and printed nothing: what ran, through
    what (``docker run app``: ``npm install`` inside it)."""
    seg = segment or key
    through = "" if set(seg.split()) & set(key.split()) else f"`{short(key, 30)}`: "
    return f"{through}`{short(seg, 50)}` printed nothing (its output was lost)"


def _failed(row: CallRow) -> bool:
    return bool(row.signatures) or row.status in _FAILING or row.exit_code not in (None, 0)


def _outcome(row: CallRow) -> str | None:
    if row.signatures:
        return " | ".join(row.signatures)
    meas = "; ".join(f"{lab} {v:g} {u}".strip() for v, u, lab in row.measurements[:2])
    return meas or None


def _worth_an_approach(what: str) -> bool:
    """A prose announcement names an approach, not a routine step (``the log``)."""
    toks = tokens(what)
    if not toks:
        return False
    technical = re.search(r"--[\w-]+|\w+_\w+|[A-Z]{2,}|\w*\d\w*|[a-z]+[A-Z]\w*|"
                          r"\b(?:backend|kernel|algorithm|algo|mode|flag|option|fusion|"
                          r"parallel\w*|cache|quantiz\w*|compil\w*|driver|linker|runtime|pool\w*)\b",
                          what)
    return bool(technical)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def extract(scope: str, sessions: list[str], calls: list[CallRow], prose: list[ProseRow],
            annotations: Iterable[Annotation] = (), verdicts: Iterable[Verdict] = (),
            messages: Iterable[MessageRow] = ()) -> Extraction:
    """The story of one scope (a top-level session and its subagents)."""
    ex = Extractor(scope)
    ex.run(calls, prose, messages)
    explanations: dict[tuple[str, int], list[str]] = {}
    for p in prose:
        if p.classification != "prompt":
            explanations.setdefault((p.session_id, p.ordinal), []).append(p.text)
    return ex.finish(list(annotations), list(verdicts), sessions, explanations)
