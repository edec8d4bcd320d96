"""Rule-based classification of assistant prose (plan / observation / conclusion / pivot /
dead-end / decision).

Each class has one precompiled regex (an alternation of named phrase groups).  A text is
classified as a whole: the classes are tried in precedence order

    dead-end > pivot > decision > conclusion > plan > observation

and the first class with a *valid* match wins.  A match is not valid when

* it is negated or hypothetical: a negator (``not``, ``n't``, ``no``, ``never``,
  ``without``, ``if``, ``whether``...) sits shortly before it in the same clause
  ("this is **not** a dead end", "we're **not** abandoning", "check **whether** this
  rules it out");
* it sits in a question ("Is this a dead end?");
* a phrase-specific check fails (``instead`` needs a directive in its sentence, ``so the``
  needs to start a clause, ...).

The rows are English, with rows for the other languages of the pool (Spanish, Portuguese,
Chinese): the dead-end verdicts (``es_noworks``...) and the turns, choices and findings of
:data:`LANG_ROWS` (``es_decide``, ``pt_means``, ``zh_cause``...), each with a real line or
one marked ``(no real line yet)``.  Before those, the negators of their language count as
well (``não``, ``sin``, ``si``; ``不``/``没`` just before a Chinese phrase).

An explicit heading at the very start ("Decision:", "Dead end:", "Conclusion:", "New plan:",
"Plan:") is the strongest signal and overrides the precedence ("Decision: upgrade to CUDA 13.
... tuning around it is a dead end" is a decision).  Questions, and lead-ins to the next tool
call ending in ":" ("Same benchmark:"), fall back to ``plan``; anything else without a signal
is an ``observation``.  Fenced code blocks and inline code are ignored.  The ``*_phrase``
helpers return the matched phrase for the knowledge graph.

Speed: every phrase group is a small regex gated by keywords; one prefix-factored regex finds
which keywords a text contains, so a typical one-line text part runs only a few group regexes
(tens of microseconds).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from logparse.iteration import instruction_spans, opening_approval
from logparse.kinds import ProseClass
from logparse.memo import Memo, memo, text_key

__all__ = [
    "LANG_ROWS",
    "LangRow",
    "classify_prose",
    "conclusion_phrase",
    "dead_end_phrase",
    "decision_phrase",
    "pivot_phrase",
    "plan_phrase",
    "prose_phrase",
    "prose_rule",
    "refutation_phrase",
]

_MAX_CHARS = 60_000

# --------------------------------------------------------------------------- phrase tables

_DEAD_END = {
    "deadend": r"\bdead[- ]?ends?\b",
    "ruledout": r"\b(?:rules|ruled|ruling)\s+(?:(?:that|this|it|them|those|these|both|all)\s+)?out\b",
    "abandon": r"\babandon(?:s|ed|ing)?\b",
    "wontwork": r"\b(?:won'?t|will\s+not|can'?t|cannot|isn'?t\s+going\s+to|is\s+not\s+going\s+to"
                r"|never\s+going\s+to|would\s+not|wouldn'?t)\s+work\b",
    "doesntwork": r"\b(?:doesn'?t|does\s+not|don'?t|do\s+not)\s+work\s+(?:on|with|for|here|either"
                  r"|at\s+all|in|under)\b",
    "didntwork": r"\b(?:didn'?t|did\s+not)\s+work\b",
    "nohelp": r"\b(?:doesn'?t|does\s+not|didn'?t|did\s+not)\s+help\b|\bmakes?\s+no\s+difference\b"
              r"|\bmade\s+no\s+difference\b|\bno\s+(?:improvement|speedup|gain|benefit)\b",
    "notviable": r"\b(?:not|isn'?t|aren'?t|no\s+longer)\s+(?:a\s+)?(?:viable|feasible|workable"
                 r"|an\s+option|usable)\b|\b(?:non-?viable|unviable|infeasible|unworkable)\b",
    "crossoff": r"\bcross(?:es|ed|ing)?\s+(?:\S+\s+){0,4}?off\b",
    "giveup": r"\b(?:give|gives|giving|gave)\s+up\b",
    "nogo": r"\bno[- ]go\b",
    "cross": r"❌|✗|✘|🚫",
    "nonstarter": r"\bnon[- ]?starter\b",
    "samewall": r"\b(?:hits?|hitting|ran\s+into|runs\s+into|running\s+into)\s+the\s+same\s+(?:wall"
                r"|problem|issue|error|limitation|bug|blocker)\b|\bhit\s+a\s+(?:brick\s+)?wall\b"
                r"|\bsame\s+wall\b",
    "cantuse": r"\b(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not)\s+be\s+used\b|\bunusable\b",
    "scrap": r"\bscrap(?:s|ped|ping)?\s+(?:that|this|it|the)\b",
    "notworth": r"\bnot\s+worth\s+(?:it|pursuing|the\s+effort|the\s+trouble)\b",
    "misc": r"\blost\s+cause\b|\bback\s+to\s+square\s+one\b|\bno\s+dice\b|\bdead\s+in\s+the\s+water\b"
            r"|\bout\s+of\s+options\b|\bgoing\s+nowhere\b|\bleads?\s+nowhere\b|\bled\s+nowhere\b"
            r"|\bwrite\s+(?:it|this|that)\s+off\b|\bforget\s+(?:about\s+)?(?:it|that|this|the)\b"
            r"|\b(?:is|was)\s+a\s+bust\b|\b(?:path|route|door|avenue)\s+is\s+closed\b",
    "incompat": r"\bincompatible\s+with\b|\bnot\s+compatible\s+with\b",
    "failsagain": r"\b(?:still|also)\s+(?:fails|failed|crashes|crashed|breaks|broke|OOMs|hangs"
                  r"|segfaults|segfaulted|errors|errored|times\s+out|timed\s+out|deadlocks)\b"
                  r"|\b(?:I'?m|we'?re)\s+calling\s+it\b"
                  r"|\b(?:fails|failed|crashes|crashed|OOMs|hangs)\s+(?:again|too|as\s+well)\b",
    "unsupported": r"\b(?:isn'?t|is\s+not|aren'?t|are\s+not|not)\s+supported\s+(?:on|by|for|with"
                   r"|in)\b|\bunsupported\s+on\b",
    "dropapproach": r"\bdrop(?:s|ping|ped)?\s+(?:this|that|the)\s+(?:approach|idea|path|route"
                    r"|option|plan)\b",
    "hopeless": r"\bhopeless\b|\b(?:not|never)\s+going\s+to\s+happen\b|\bwon'?t\s+happen\b"
                r"|\b(?:can'?t|cannot|won'?t|couldn'?t)\s+(?:be\s+)?fix(?:ed)?\b"
                r"|\bnot\s+something\s+(?:a|an|the|we|I|you)\s+[\w-]+\s+can\s+fix\b"
                r"|\bnothing\s+(?:we|I|you)\s+can\s+do\b|\bblocked\s+(?:as\s+well|too|again)\b"
                r"|\b(?:that|this)\s+was\s+the\s+last\s+(?:of|option|idea|candidate)\b"
                r"|\bnon-?option\b|\b(?:doesn'?t|does\s+not|don'?t|do\s+not)\s+support\b"
                r"|\b(?:is|are)\s+out(?=\s*(?:[.;!]|$))|\ba\s+bust\b"
                r"|\b(?:doesn'?t|didn'?t|does\s+not|did\s+not)\s+buy\s+(?:us|you|me)\s+anything\b"
                r"|\bwithin\s+(?:the\s+)?noise\b",
    "gone": r"\b(?:option|path|approach|idea|route|avenue|plan|lead)\s+is\s+(?:gone|dead|out|closed)\b"
            r"|\boff\s+the\s+table\b|\bout\s+of\s+the\s+question\b|\bno\s+way\s+(?:to|around)\b"
            r"|\bno\s+workaround\b|\b(?:went|goes|go)\s+nowhere\b|\bno\s+luck\b|\bno\s+joy\b"
            r"|\bto\s+no\s+avail\b|\b(?:futile|fruitless|pointless)\b|\bwaste\s+of\s+time\b"
            r"|\b(?:won'?t|doesn'?t|didn'?t|does\s+not|did\s+not)\s+(?:fly|pan\s+out)\b",
    "nonehelped": r"\bnone\s+of\s+(?:them|these|those|the\s+\w+(?:\s+\w+)?)\s+(?:beat|beats|helped"
                  r"|helps|worked|works|improved|fixed|made\s+a\s+difference|moved\s+the\s+needle"
                  r"|mattered|changed\s+anything)\b|\bnothing\s+(?:helped|worked|helps|works)\b"
                  r"|\bno\s+(?:measurable|noticeable|meaningful|real)\s+(?:gain|improvement|difference"
                  r"|speedup|benefit|effect)\b",
    "stuck": r"\b(?:we'?re|I'?m|we\s+are|I\s+am)\s+stuck\b|\b(?:is|are|remains?|stays?)\s+blocked"
             r"\s+(?:until|on|by)\b|\bhard\s+blocker\b|\bshow-?stopper\b|\bdeal-?breaker\b",
    "broken": r"\b(?:fundamentally|completely|totally|hopelessly)\s+broken\b"
              r"|\bmark(?:s|ed|ing)?\s+(?:\S+\s+){0,4}?as\s+(?:failed|dead|abandoned|a\s+failure"
              r"|blocked)\b|\b(?:can'?t|couldn'?t|could\s+not|unable\s+to)\s+get\s+(?:\S+\s+){0,6}?"
              r"(?:to\s+\w+|working)\b|\b(?:keeps|kept)\s+failing\b",
    # the same verdicts in the other languages of the pool: it does not work, it is not
    # viable, a dead end, given up, set aside (the rows above are English only)
    "es_noworks": r"\bno\s+(?:funcion(?:a|ó|aron|an)|sirve|sirvi[oó]|anduvo|es\s+(?:viable"
                  r"|factible))\b|\bcallej[oó]n\s+sin\s+salida\b|\bme\s+rindo\b"
                  r"|\b(?:lo\s+|la\s+)?descart(?:amos|ado|ada|ados|adas|é)\b|\babandon(?:amos|é)\b",
    "pt_noworks": r"\bn[aã]o\s+(?:funciona|funcionou|funcionam|serve|serviu|[eé]\s+vi[aá]vel)\b"
                  r"|\bbeco\s+sem\s+sa[ií]da\b|\bdesist(?:o|imos|i)\b|\bdescartad[oa]s?\b"
                  r"|\bdescartamos\b|\babandonamos\b",
    "zh_noworks": r"行不通|不可行|死胡同|放弃(?:了|这个|该|此)|不起作用|没有?效果|无法(?:使用|工作|运行)",
}

_PIVOT = {
    "instead": r"\binstead\b(?!\s+of\s+(?:the\s+|a\s+|an\s+)?[\d~≈])",
    "change": r"\b(?:change|changes|changing|changed|rethink|rethinking)\s+(?:the\s+|our\s+|my\s+"
              r"|this\s+|of\s+)?(?:\w+\s+)?(?:pattern|approach|strategy|tack|course|direction"
              r"|plan|architecture)\b",
    "different": r"\b(?:different|alternative|another)\s+(?:\w+\s+)?(?:approach|strategy|direction"
                 r"|route|tack|angle|path|plan|option|pattern)\b|\bfundamentally\s+different\b"
                 r"|\bnew\s+(?:approach|strategy|direction)\b",
    "pivot": r"\bpivot(?:s|ed|ing)?\b",
    "switch": r"\bswitch(?:es|ed|ing)?\s+(?:over\s+|back\s+)?to\b"
              r"|\bswitch(?:es|ed|ing)?\s+(?:the\s+|our\s+|my\s+)?[\w-]+(?:\s+[\w-]+)?\s+to\b"
              r"|\bswitch(?:es|ed|ing)?\s+from\s+[^.?!\n]{1,60}?\s+to\b",
    "stoptrying": r"\bstop(?:ping)?\s+trying\s+to\b",
    "ratherthan": r"\brather\s+than\b[^.?!\n]{0,100}?\b(?:let'?s|let\s+me|I'?ll|we'?ll|I\s+will"
                  r"|we\s+will|we\s+should|I\s+should)\b"
                  r"|\b(?:let'?s|I'?ll|we'?ll|we\s+should)\b[^.?!\n]{0,100}?\brather\s+than\b"
                  r"|\brather\s+than\b[^.?!\n]{0,100}?\b(?:I'?m|we'?re)\s+going\s+to\b",
    "ratherfirst": r"\brather\s+than\b[^.?!\n]{1,100}?,",
    "fallback": r"\bfall(?:s|ing)?\s+back\s+to\b|\bfell\s+back\s+to\b|\bfallback\s+(?:is|plan)\b",
    "route": r"\b(?:take|taking|go|going|try|trying)\s+(?:a|another|the\s+other)\s+(?:different\s+)?"
             r"(?:route|path|tack|direction)\b",
    "shift": r"\bshift(?:s|ed|ing)?\s+(?:the\s+|our\s+|my\s+)?focus\b|\bplan\s+b\b"
             r"|\bthe\s+alternative\s+is\b|\bchange\s+tack\b|\bnew\s+plan\b"
             r"|\bchange\s+of\s+plans?\b|\b(?:flip|turn)\s+(?:it|this|things|that)\s+around\b"
             r"|\b(?:better|smarter|simpler|cleaner|easier|cheaper|bigger|real)\s+(?:route|path|approach"
             r"|way|option|idea|bet|lever|win)\s+(?:is|would\s+be|here\s+is)\b",
    "else": r"\b(?:try|trying|do|doing)\s+something\s+(?:else|different)\b"
            r"|\bfrom\s+(?:the\s+other|another|a\s+different)\s+(?:side|angle|end|direction)\b"
            r"|\b(?:go|goes|going|went|revert|reverts|reverting|reverted|roll|rolling)\s+back\s+to\b"
            r"|\bmov(?:e|es|ing|ed)\s+away\s+from\b|\bswap(?:s|ped|ping)?\s+out\b",
    "replace": r"\breplac(?:e|es|ed|ing)\s+[^.?!\n]{1,60}?\s+with\b",
    # the same turns in Spanish (a row of LANG_ROWS below): a change of approach, another
    # way to do it (the Portuguese and Chinese rows went: no line of the data says them)
    "es_pivot": r"\bcambi(?:o|amos|ar[eé]?|emos)\s+de\s+(?:enfoque|estrategia|plan|rumbo|m[eé]todo)\b"
                r"|\b(?:otr[oa]|una?)\s+(?:herramienta|enfoque|estrategia|v[ií]a|camino|forma|manera"
                r"|opci[oó]n)\s+(?:alternativ[oa]|distint[oa]|diferente)\b",
}

_DECISION = {
    "decision": r"\b(?:final\s+)?decision\b\s*(?:\*\*)?\s*(?::|is\b|made\b)|\bdecided\b"
                r"|\bmade\s+the\s+(?:call|decision)\b",
    "gowith": r"\b(?:(?:we|I)'?ll\s+|we\s+will\s+|I\s+will\s+|let'?s\s+|let\s+me\s+|I'?m\s+"
              r"|we'?re\s+)?(?:go|going)\s+with\b",
    "commit": r"\b(?:(?:I|we)'?ll|I\s+will|we\s+will|let'?s|I'?m\s+going\s+to|we'?re\s+going\s+to)"
              r"\s+commit\s+to\b|\bcommitting\s+to\b",
    "upgrade": r"\b(?:let'?s|(?:we|I)'?ll|we\s+will|I\s+will|I'?m\s+going\s+to|we'?re\s+going\s+to"
               r"|we\s+should|time\s+to)\s+(?:now\s+)?(?:upgrade|migrate|adopt|standardi[sz]e|stick"
               r"|settle|lock\s+in|pin|ship|roll\s+out|go\s+ahead|move\s+forward|proceed)\b",
    "planis": r"\bthe\s+plan\s+is\s+to\b(?!\s+(?:check|look|investigate|verify|test|see|find"
              r"|confirm|profile|measure|try)\b)",
    "settle": r"\bsettl(?:e|es|ed|ing)\s+on\b|\bopt(?:s|ed|ing)?\s+for\b|\bstick(?:ing)?\s+with\b"
              r"|\bstandardi[sz](?:e|ed|ing)\s+on\b",
    "choice": r"\b(?:final|our|my)\s+(?:choice|call|pick)\s+is\b|\b(?:we|I)\s+(?:chose"
              r"|have\s+chosen|'ve\s+chosen|picked)\b|\bthe\s+way\s+forward\s+is\b"
              r"|\bgoing\s+forward\s*,|\bfrom\s+now\s+on\b|\bthe\s+choice\s+is\b"
              r"|\bclear\s+(?:choice|winner)\b|\bthe\s+winner\s+is\b"
              r"|\bfinal\s+(?:answer|call|choice|config|configuration|setup)\b"
              r"|\block(?:s|ed|ing)?\s+in\b|\brecommendation\s*(?:\*\*)?\s*:|\bI\s+recommend\b"
              r"|\b(?:we'?ll|we\s+will)\s+(?:use|keep|run|deploy|go\s+for)\b|\bgo\s+for\s+it\b"
              r"|\b(?:we'?re|we\s+are|I'?m|I\s+am)\s+(?:shipping|adopting|standardi[sz]ing|picking"
              r"|choosing|selecting|opting|moving\s+forward\s+with|committing)\b"
              r"|\bmake\s+[^.?!\n]{1,40}?\s+the\s+default\b|\b(?:we|I)\s+keep\s+(?:the|our|using)\b"
              r"|\bthe\s+(?:right|best|correct|sensible|obvious|only\s+sane)\s+(?:move|call|choice"
              r"|option|path|thing\s+to\s+do)\s+(?:is|here\s+is)\b"
              r"|\bhere'?s\s+what\s+(?:we'?ll|I'?ll|we'?re\s+going\s+to|I'?m\s+going\s+to)\s+do\b",
    # the same choices in the other languages of the pool (rows of LANG_ROWS below)
    "es_decide": r"\b(?:decid[íi]|decidimos|he\s+decidido|hemos\s+decidido)\b"
                 r"|\bla\s+decisi[oó]n\s+(?:es|fue|final)\b|\b(?:me|nos)\s+(?:quedo|quedamos)\s+con\b"
                 r"|\bvamos\s+a\s+(?:usar|quedarnos\s+con|ir\s+con)\b|\bte\s+recomiendo\b"
                 r"|\bmi\s+recomendaci[oó]n\s+es\b|\bopt(?:[eé]|amos)\s+por\b",
    "zh_decide": r"决定|我们改用|改用|就用|我(?:更|还是)?(?:推荐|建议)|最终(?:选择|方案|采用)|选定"
                 r"|(?:会|将|我们)采用",
}

_CONCLUSION = {
    "confirms": r"\b(?:this|that|which|it)\s+confirms\b|\bconfirm(?:s|ed)\s+that\b|\bconfirmed\b",
    "so": r"\bso\s+(?:the|it|it'?s|this|that'?s|that\s+is|these|those|its|there'?s|we\s+know"
          r"|we\s+can\s+(?:say|conclude)|[\w-]+\s+(?:is|are|was|were|isn'?t|aren'?t|has|had"
          r"|doesn'?t|can'?t|only|really|must))\b",
    "therefore": r"\b(?:therefore|thus|hence|consequently|ergo)\b",
    "means": r"\b(?:which|this|that|it)\s+means\b|\bmeaning\s+(?:that\s+)?(?:the|it|we)\b"
             r"|\bin\s+other\s+words\b",
    "explains": r"\b(?:this|that|which|it)\s+(?:would\s+|might\s+|could\s+|also\s+)?explain(?:s)?\b|\bexplains\s+(?:why|the)\b|\bthat'?s\s+why\b"
                r"|\bthis\s+is\s+why\b|\bmakes\s+sense\b",
    "rootcause": r"\broot[- ]cause\b|\bthe\s+culprit\b|\bculprit\s+is\b|\bturns\s+out\b"
                 r"|\bturned\s+out\b",
    "shows": r"\b(?:this|that|which|it)\s+(?:shows|proves|indicates|suggests|demonstrates|implies)\b",
    "bottleneck": r"\bthe\s+bottleneck\s+(?:is|was)\b|\b(?:is|was)\s+the\s+bottleneck\b",
    "improves": r"\b(?:improv|increas|reduc|drop|cut|rais|boost|lower|speed|bring|brought|went|goes"
                r"|jump|climb)\w*\s+[^.?!\n]{0,60}?\bfrom\s+~?[\d.,]+\s*\S*\s+to\s+~?[\d.,]+",
    "pct": r"\b\d+(?:\.\d+)?\s*%\s+(?:faster|slower|better|worse|higher|lower|improvement|speedup"
           r"|regression|reduction|increase|decrease|gain|more\s+throughput|less\s+latency)\b"
           r"|\b\d+(?:\.\d+)?\s*[x×]\s+(?:faster|slower|speedup|better|worse|improvement|higher"
           r"|lower)\b",
    "summary": r"\b(?:conclusion|verdict|takeaway|bottom\s+line|summary|tl;dr)\s*(?:\*\*)?\s*:"
               r"|\bin\s+summary\b|\bto\s+summari[sz]e\b|\bkey\s+(?:insight|finding|takeaway)\b",
    "must": r"\bmust\s+(?!(?:not|check|verify|look|test|try|make|run|fix|add|install|restart"
            r"|rebuild|ensure|first|also|now|still)\b)[a-z]+",
    "reason": r"\bthe\s+(?:real\s+|actual\s+)?(?:reason|problem|issue|cause)\s+(?:is|was)\b"
              r"|\bthe\s+fix\s+is\b|\b(?:is|are|was|were)\s+(?:\w+\s+)?(?:caused|explained|driven)"
              r"\s+by\b|\b(?:is|are|was|were)\s+(?:\w+\s+)?due\s+to\b|\bexplained\s+by\b",
    "adds": r"\b(?:numbers|math|arithmetic|it|this|that|everything|data)\s+(?:lines?\s+up|adds?\s+up"
            r"|checks?\s+out)\b|\bconsistent\s+with\b|\baccount(?:s|ed)?\s+for\b"
            r"|\bnet\s+(?:negative|positive|loss|win|gain)\b|\b(?:this|that|which|it)\s+tells\s+us\b"
            r"|\bwe\s+now\s+know\b|\bit'?s\s+(?:now\s+)?clear\s+(?:that|now)\b|\bclearly,"
            r"|\bin\s+short\b|\boverall,|\bthe\s+answer\s+is\b|\bwhich\s+is\s+why\b"
            r"|\b(?:evidently|apparently)\b"
            r"|\bthere'?s\s+(?:our|the|your)\s+(?:answer|culprit|problem|cause|bottleneck|explanation)\b"
            r"|\bthere\s+it\s+is\b",
}
_CONCLUSION.update({
    # the same findings in the other languages of the pool (rows of LANG_ROWS below)
    "es_cause": r"\b(?:la|el)\s+(?:verdadera\s+|real\s+)?(?:causa|raz[oó]n|motivo|problema)"
                r"\s+(?:real\s+|de\s+fondo\s+)?(?:es|era|fue)\b|\bresulta\s+que\b"
                r"|\blo\s+que\s+pasa\s+es\b",
    "es_means": r"\b(?:esto|eso)\s+(?:significa|confirma|explica|demuestra|indica)\b"
                r"|\bpor\s+eso\b|\ben\s+conclusi[oó]n\b|\bconclusi[oó]n\s*:",
    "pt_means": r"\b(?:isso|isto)\s+(?:significa|confirma|explica|mostra|indica)\b|\bou\s+seja\b"
                r"|\bportanto\b|\bpor\s+isso\b|\bem\s+conclus[aã]o\b|\bconclus[aã]o\s*:",
    "zh_cause": r"原因(?:是|在于)|问题(?:在于|出在)|根本原因|根因|这(?:说明|意味着|表明|证明)|因此"
                r"|结论",
})



@dataclass(frozen=True)
class LangRow:
    """A row of the decision, pivot and conclusion tables written for a language other than
    English, with its example: a real line of the data (file:line, or #ordinal of an
    opencode export) or one written, marked ``(no real line yet)``.
    ``tests/logparse/test_prose.py`` walks them all."""

    cls: ProseClass
    rule: str
    """The name of the row in the class's table (``_PIVOT``, ``_DECISION``, ``_CONCLUSION``)."""
    example: str
    source: str


_NO_REAL = "(no real line yet)"
_CONV = "pool conversacion-act1-pln__session.jsonl"
_PFM = "shared pfm-categorization__opencode-session.json"
_MATU = "pool matugen-theme-sync__opencode-session.json"
LANG_ROWS: tuple[LangRow, ...] = (
    LangRow(ProseClass.PIVOT, "es_pivot",
            "Voy a usar una herramienta alternativa para extraer su contenido.",
            f"{_CONV}:16 (assistant, after the .xlsx/.docx read failed)"),
    LangRow(ProseClass.DECISION, "es_decide",
            "Te recomiendo lo segundo: reescribilo con tu voz.",
            f"{_CONV}:147 (assistant)"),
    LangRow(ProseClass.DECISION, "zh_decide",
            "我更推荐保留“脚本 + systemd 用户服务”，不建议把核心逻辑放进 KWin 脚本。",
            f"{_MATU} #5 (assistant)"),
    LangRow(ProseClass.DECISION, "zh_decide",
            "备份会采用可直接映射回 `$HOME` 的目录结构，包含 5 个脚本、全部 matugen 源模板与配置。",
            f"{_MATU} #19 (assistant)"),
    LangRow(ProseClass.CONCLUSION, "es_cause",
            "El archivo muy probablemente **es UTF-8**, no latin-1. Lo que pasa es:",
            f"{_CONV}:250 (assistant)"),
    LangRow(ProseClass.CONCLUSION, "es_means",
            "Esto significa que en tu dataset con latin-1, palabras como `polí\\xadtico` "
            "probablemente tengan como lema `polí\\xadtico`.",
            f"{_CONV}:412 (assistant)"),
    LangRow(ProseClass.CONCLUSION, "pt_means",
            "Contém `CanonicalCardTransactionEvent`, ou seja, um contrato pensado para um "
            "Merchant Resolution Service.",
            f"{_PFM} #14 (assistant)"),
    LangRow(ProseClass.CONCLUSION, "zh_cause",
            "**评估结论**\n\n可以做到，技术可行性较高。",
            f"{_MATU} #3 (assistant)"),
)
"""The es/pt/zh rows of the pivot, decision and conclusion tables and their examples."""

# words ending in -ing that are not gerunds
_NOT_GERUNDS = (
    r"(?:ring|string|thing|nothing|something|anything|everything|king|spring|during|ceiling"
    r"|morning|evening|padding|ping|bring)"
)
_PLAN_VERBS = (
    r"check|look|see|try|test|verify|run|find|examine|inspect|investigate|measure|benchmark|profile"
    r"|start|dig|grep|read|figure|confirm|compare|get|make|add|write|fix|update|install|rebuild"
    r"|restart|rerun|re-run|launch|kill|debug|trace|capture|search|query|print|dump|review"
    r"|validate|reproduce|set|create|build|deploy|clean|wait|double-check|sanity-check|isolate"
    r"|bisect|patch|enable|disable|increase|decrease|bump|lower|raise|grab|pull|collect|gather"
    r"|fetch|record|instrument|sample|tail|watch|replay|open|do|take"
)
_PLAN = {
    "letme": r"\blet\s+me\b|\blet'?s\b|\bI'?d\s+like\s+to\b|\b(?:gonna|wanna)\b",
    "ill": r"\bI'?ll\b|\bI\s+will\b|\bwe'?ll\s+(?:need|have)\s+to\b|\bI'?m\s+going\s+to\b"
           r"|\bgoing\s+to\s+(?:" + _PLAN_VERBS + r")\b",
    "next": r"(?:^|\n)[^\S\n]*(?:next(?:\s+up)?|first|then|now|finally|step\s+\d+)\s*[,:]|\bnext\s+up\b|\bnext\s+(?:step|I|we)\b"
            r"|\bnext,|\bfirst,|\bfirst\s+(?:I|let'?s|we)\b|\bthen\s+(?:I'?ll|we'?ll|let'?s)\b",
    "need": r"\b(?:need|needs|want|have)\s+to\s+(?:" + _PLAN_VERBS + r"|make\s+sure|understand"
            r"|know|determine)\b|\bwe\s+should\s+(?:" + _PLAN_VERBS + r"|make\s+sure)\b"
            r"|\bto\s+(?:verify|confirm|check|see\s+(?:if|whether))\b",
    "todo": r"\b(?:todo|next\s+steps?|plan)\s*+(?:\*\*\s*+)?:",
    "imperative": r"(?:^|(?<=[.!?\n]))[^\S\n]*(?:(?:before|after|first|then|now|next|finally)\b"
                  r"[^,.\n]{0,60},\s*)?(?:" + _PLAN_VERBS + r"|snapshot|save|stop|kill|start|revert"
                  r"|remove|back\s+up|clear|wipe|reset|retry)\s+(?:the|a|an|it|this|that|these|those"
                  r"|all|every|each|with|again|on|in|from|our|my|its|out|up|code|`)\b"
                  r"|\bnext\s*[.!]?\s*$|\bnext\s*[.!](?=\s)",
    # a sentence that opens with a gerund announces an action: "Checking the flag:",
    # "Reverting and restarting plain EAGLE-3:" (see _valid_gerund)
    "gerund": r"(?:^|(?<=[.!?\n])|\b(?:now|next|then|first|so)\s)[^\S\n]*(?!" + _NOT_GERUNDS
              + r"\b)(?:double-|re-)?[a-z]{2,}ing\b",
}


# Keywords gating each phrase group: a group's regex runs only when one of its keys occurs
# in the lower-cased text (``in`` is far cheaper than an alternation scan).  Every match of a
# group's regex contains one of its keys; tests/logparse/test_prose.py checks gated == ungated.
_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "dead_end": {
        "deadend": ('dead',),
        "ruledout": ('rule', 'ruling'),
        "abandon": ('abandon',),
        "wontwork": ('work',),
        "doesntwork": ('work',),
        "didntwork": ('work',),
        "nohelp": ('help', 'difference', 'improvement', 'speedup', 'gain', 'benefit'),
        "notviable": ('viable', 'feasible', 'workable', 'option', 'usable'),
        "crossoff": ('cross',),
        "giveup": ('give', 'gave', 'giving'),
        "nogo": ('go',),
        "cross": ('❌', '✗', '✘', '🚫'),
        "nonstarter": ('starter',),
        "samewall": ('same', 'wall'),
        "cantuse": ('used', 'unusable'),
        "scrap": ('scrap',),
        "notworth": ('worth',),
        "misc": (
            'cause', 'square', 'dice', 'dead', 'options', 'nowhere', 'off', 'forget', 'bust',
            'closed',
        ),
        "incompat": ('compatible',),
        "failsagain": ('still', 'also', 'again', 'too', 'well', 'calling'),
        "unsupported": ('supported',),
        "dropapproach": ('drop',),
        "hopeless": (
            'hopeless', 'happen', 'fix', 'nothing', 'blocked', 'last', 'option', 'support',
            'out', 'bust', 'buy', 'noise',
        ),
        "gone": (
            'gone', 'dead', 'out', 'closed', 'table', 'question', 'way', 'workaround', 'nowhere',
            'luck', 'joy', 'avail', 'futile', 'fruitless', 'pointless', 'waste', 'fly', 'pan',
        ),
        "nonehelped": ('none', 'nothing', 'measurable', 'noticeable', 'meaningful', 'real'),
        "stuck": ('stuck', 'blocked', 'blocker', 'stopper', 'breaker'),
        "broken": ('broken', 'mark', 'get', 'failing'),
        "es_noworks": ('funcion', 'sirv', 'anduvo', 'viable', 'factible', 'callej', 'rindo',
                       'descart', 'abandon'),
        "pt_noworks": ('funciona', 'serv', 'vi', 'beco', 'desist', 'descart', 'abandon'),
        "zh_noworks": ('行不通', '不可行', '死胡同', '放弃', '不起作用', '效果', '无法'),
    },
    "pivot": {
        "instead": ('instead',),
        "change": ('chang', 'rethink'),
        "different": ('different', 'alternative', 'another', 'new'),
        "pivot": ('pivot',),
        "switch": ('switch',),
        "stoptrying": ('trying',),
        "ratherthan": ('rather',),
        "ratherfirst": ('rather',),
        "fallback": ('fall', 'fell'),
        "route": ('route', 'path', 'tack', 'direction'),
        "shift": (
            'shift', 'plan', 'alternative', 'tack', 'around', 'route', 'path', 'approach', 'way',
            'option', 'idea', 'bet', 'lever', 'win',
        ),
        "else": ('something', 'side', 'angle', 'end', 'direction', 'back', 'away', 'swap'),
        "replace": ('replac',),
        "es_pivot": ('cambi', 'alternativ', 'distint', 'diferente'),
    },
    "decision": {
        "decision": ('decision', 'decided', 'made'),
        "gowith": ('with',),
        "commit": ('commit',),
        "upgrade": (
            'upgrade', 'migrate', 'adopt', 'standardi', 'stick', 'settle', 'lock', 'pin', 'ship',
            'roll', 'ahead', 'forward', 'proceed',
        ),
        "planis": ('plan',),
        "settle": ('settl', 'opt', 'stick', 'standardi'),
        "choice": (
            'choice', 'call', 'pick', 'chose', 'forward', 'now', 'winner', 'final', 'lock',
            'recommend', 'use', 'keep', 'run', 'deploy', 'go', 'shipping', 'adopting',
            'standardi', 'choosing', 'selecting', 'opting', 'moving', 'committing', 'default',
            'move', 'option', 'path', 'thing', 'here',
        ),
        "es_decide": ('decid', 'decisi', 'qued', 'vamos', 'recomiend', 'recomendaci', 'opt'),
        "zh_decide": ('决定', '改用', '就用', '推荐', '建议', '最终', '选定', '采用'),
    },
    "conclusion": {
        "confirms": ('confirm',),
        "so": ('so',),
        "therefore": ('therefore', 'thus', 'hence', 'consequently', 'ergo'),
        "means": ('means', 'meaning', 'words'),
        "explains": ('explain', 'why', 'sense'),
        "rootcause": ('root', 'culprit', 'turn'),
        "shows": ('shows', 'proves', 'indicates', 'suggests', 'demonstrates', 'implies'),
        "bottleneck": ('bottleneck',),
        "improves": ('from',),
        "pct": ('%', 'x', '×'),
        "summary": (
            'conclusion', 'verdict', 'takeaway', 'bottom', 'summary', 'tl;dr', 'summari', 'key',
        ),
        "must": ('must',),
        "reason": ('reason', 'problem', 'issue', 'cause', 'fix', 'explained', 'driven', 'due'),
        "adds": (
            'up', 'out', 'consistent', 'account', 'net', 'tells', 'know', 'clear', 'short',
            'overall', 'answer', 'why', 'evidently', 'apparently', 'there',
        ),
        "es_cause": ('causa', 'raz', 'motivo', 'problema', 'resulta', 'pasa'),
        "es_means": ('esto', 'eso', 'conclusi'),
        "pt_means": ('isso', 'isto', 'seja', 'portanto', 'conclus'),
        "zh_cause": ('原因', '问题', '根因', '这', '因此', '结论'),
    },
    "plan": {
        "letme": ('let', 'like', 'gonna', 'wanna'),
        "ill": ('ll', 'will', 'going'),
        "next": ('next', 'first', 'then', 'now', 'finally', 'step'),
        "need": ('need', 'want', 'have', 'should', 'to'),
        "todo": ('todo', 'step', 'plan'),
        "imperative": tuple(_PLAN_VERBS.split("|")) + (
            "snapshot", "save", "stop", "kill", "start", "revert", "remove", "back", "clear",
            "wipe", "reset", "retry", "next",
        ),
        "gerund": ('ing',),
    },
}

# --------------------------------------------------------------------------- validity checks

_NEG_RE = re.compile(
    r"\b(?:not|no|never|without|if|whether|unless|nor|hardly|barely|cannot)\b|n't\b|\bnot\s+yet\b",
    re.I,
)
_NEG_ESPT_RE = re.compile(
    r"\b(?:não|nunca|jamais|jamás|nem|ni|sin|sem|si|se\s+(?:eu|voc[eê]|a\s+gente))\b", re.I)
"""Negators and conditionals of Spanish and Portuguese ("no" is in :data:`_NEG_RE`);
read only before the es/pt rows, so English stays as it was."""
_NEG_ZH_RE = re.compile(r"不|没|未|并非|无需|是否|如果")
_CLAUSE_BREAK_RE = re.compile(r"[.;:!?,\n—–(]|\bbut\b|\band\b|\bso\b", re.I)
_DIRECTIVE_RE = re.compile(
    r"\b(?:let'?s|let\s+me|I'?ll|we'?ll|I\s+will|we\s+will|should|could|can|try|trying|use|using"
    r"|switch|going\s+to|need\s+to|want\s+to|plan|better\s+to|would|might|must)\b",
    re.I,
)
_SENT_START_RE = re.compile(r"(?:^|[.!?:;—–]\s*|\n\s*|[-*•]\s+)$")
_INSTEAD_OF_ING_RE = re.compile(r"(?<!\s)\s+of\s+(?!" + _NOT_GERUNDS + r"\b)\w{2,}ing\b", re.I)


def _sentence(text: str, start: int, end: int) -> str:
    s = max(text.rfind(".", 0, start), text.rfind("!", 0, start), text.rfind("?", 0, start),
            text.rfind("\n", 0, start)) + 1
    e = len(text)
    for ch in ".!?\n":
        k = text.find(ch, end)
        if k != -1 and k < e:
            e = k
    return text[s:e]


def _valid_instead(text: str, m: re.Match[str]) -> bool:
    before = text[max(0, m.start() - 4):m.start()]
    if _SENT_START_RE.search(before) or m.start() == 0:
        return True
    if _INSTEAD_OF_ING_RE.match(text, m.end()):
        return True
    return _DIRECTIVE_RE.search(_sentence(text, m.start(), m.end())) is not None


def _valid_so(text: str, m: re.Match[str]) -> bool:
    k = m.start() - 1
    while k >= 0 and text[k] in " \t*":
        k -= 1
    return k < 0 or text[k] in ".,;:!?\n—–("


_FINITE_RE = re.compile(
    r"\b(?:takes|took|is|was|are|were|isn't|wasn't|aren't|shows|showed|gives|gave|fails|failed"
    r"|works|worked|doesn't|didn't|won't|can't|makes|made|costs|cost|needs|requires|required"
    r"|seems|looks|helps|helped|hangs|crashes|returns|returned|produces|produced|has|have|had"
    r"|does|did|can|will|would|should|could|means|goes|went|uses|used|runs|ran|adds|added"
    r"|becomes|became|leaves|left|stays|stayed|grows|grew|drops|dropped|matters|mattered)\b",
    re.I,
)


_CLAUSE_WORD_RE = re.compile(r"\b(?:what|whether|if|where|which|why|how|who|that|to)\b", re.I)


def _valid_gerund(text: str, m: re.Match[str]) -> bool:
    """A sentence-initial gerund announces an action ("Checking the log next", "Checking what
    torch has in that table") unless it is the subject of a finite verb ("Rebuilding the
    kernel takes 40 minutes")."""
    end = len(text)
    for ch in ".!?\n":
        k = text.find(ch, m.end())
        if k != -1 and k < end:
            end = k
    rest = text[m.end():end]
    f = _FINITE_RE.search(rest)
    return f is None or _CLAUSE_WORD_RE.search(rest, 0, f.start()) is not None


def _valid_replace(text: str, m: re.Match[str]) -> bool:
    before = text[max(0, m.start() - 4):m.start()]
    if _SENT_START_RE.search(before) or m.start() == 0:
        return True
    return _DIRECTIVE_RE.search(_sentence(text, m.start(), m.end())) is not None


def _valid_sentence_start(text: str, m: re.Match[str]) -> bool:
    before = text[max(0, m.start() - 4):m.start()]
    return m.start() == 0 or _SENT_START_RE.search(before) is not None


_VALIDATORS: dict[str, Callable[[str, re.Match[str]], bool]] = {
    "ratherfirst": _valid_sentence_start,
    "instead": _valid_instead,
    "replace": _valid_replace,
    "gerund": _valid_gerund,
    "so": _valid_so,
}


def _negated(text: str, start: int, lang: str = "") -> bool:
    lo = max(0, start - 40)
    window = text[lo:start]
    if lang == "zh":  # a negator just before, no word boundaries: 不建议, 没有决定
        return _NEG_ZH_RE.search(window[-4:]) is not None
    cuts = list(_CLAUSE_BREAK_RE.finditer(window))
    if cuts:
        window = window[cuts[-1].end():]
    if lang and _NEG_ESPT_RE.search(window) is not None:
        return True
    return _NEG_RE.search(window) is not None


_OLD_LANG_ROWS = frozenset({"es_noworks", "pt_noworks", "zh_noworks"})
"""Rows read with the English negators only (as they were written)."""


def _in_question(text: str, end: int) -> bool:
    for k in range(end, min(len(text), end + 400)):
        ch = text[k]
        if ch in "?？":
            return True
        if ch in ".!\n。！":
            return False
    return False


class _Rules:
    """The phrase groups of one class, each a small regex gated by its keywords."""

    def __init__(self, cls: ProseClass, table: dict[str, str], keys: dict[str, tuple[str, ...]],
                 *, strict: bool) -> None:
        self.cls = cls
        self.strict = strict  # negation / question checks apply
        flags = re.IGNORECASE | re.MULTILINE
        self.groups = [(name, frozenset(keys[name]), re.compile(rx, flags))
                       for name, rx in table.items()]

    def _valid(self, text: str, name: str, m: re.Match[str]) -> bool:
        if name in _VALIDATORS and not _VALIDATORS[name](text, m):
            return False
        lang = name[:2] if name[2:3] == "_" and name not in _OLD_LANG_ROWS else ""
        return not (self.strict and (_negated(text, m.start(), lang)
                                     or _in_question(text, m.end())))

    def find(self, text: str, present: frozenset[str] | None = None) -> re.Match[str] | None:
        """The earliest valid match of any group; ``present`` (the keywords that occur in the
        text) enables the keyword gates."""
        found = self.find_named(text, present)
        return found[1] if found else None

    def find_named(self, text: str, present: frozenset[str] | None = None
                   ) -> tuple[str, re.Match[str]] | None:
        """:meth:`find`, with the name of the group that matched."""
        best: tuple[str, re.Match[str]] | None = None
        for name, keys, rx in self.groups:
            if present is not None and present.isdisjoint(keys):
                continue
            for m in rx.finditer(text):
                if best is not None and m.start() >= best[1].start():
                    break
                if self._valid(text, name, m):
                    if best is None or m.start() < best[1].start():
                        best = (name, m)
                    break
        return best


_RULES = (
    _Rules(ProseClass.DEAD_END, _DEAD_END, _KEYS["dead_end"], strict=True),
    _Rules(ProseClass.PIVOT, _PIVOT, _KEYS["pivot"], strict=True),
    _Rules(ProseClass.DECISION, _DECISION, _KEYS["decision"], strict=True),
    _Rules(ProseClass.CONCLUSION, _CONCLUSION, _KEYS["conclusion"], strict=True),
    _Rules(ProseClass.PLAN, _PLAN, _KEYS["plan"], strict=False),
)
_BY_CLASS = {r.cls: r for r in _RULES}

_LEAD_CLASS = {
    "decision": ProseClass.DECISION, "decided": ProseClass.DECISION,
    "settled": ProseClass.DECISION, "agreed": ProseClass.DECISION,
    "decision made": ProseClass.DECISION,
    "final decision": ProseClass.DECISION,
    "dead end": ProseClass.DEAD_END,
    "conclusion": ProseClass.CONCLUSION, "verdict": ProseClass.CONCLUSION,
    "root cause": ProseClass.CONCLUSION, "takeaway": ProseClass.CONCLUSION,
    "bottom line": ProseClass.CONCLUSION, "tl;dr": ProseClass.CONCLUSION,
    "pivot": ProseClass.PIVOT, "new plan": ProseClass.PIVOT, "plan b": ProseClass.PIVOT,
    "change of plan": ProseClass.PIVOT, "change of plans": ProseClass.PIVOT,
    "plan": ProseClass.PLAN, "next step": ProseClass.PLAN, "next steps": ProseClass.PLAN,
    "next": ProseClass.PLAN, "todo": ProseClass.PLAN,
}
_LEAD_LABEL_RE = re.compile(
    r"^[\s#>*_]*(" + "|".join(re.escape(k).replace(r"\ ", r"[ -]") for k in
                               sorted(_LEAD_CLASS, key=len, reverse=True))
    + r")[ \t]*(?:\*\*|__)?[ \t]*:",
    re.IGNORECASE,
)
_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE_CODE_RE = re.compile(r"`[^`\n]{0,300}`")
_QUESTION_RE = re.compile(r"\?(?:\s|$|\*)")


_Trie = dict[str, "_Trie"]


def _trie_regex(words: list[str]) -> str:
    """An alternation of ``words`` factored by common prefixes (so ``re`` tests one branch per
    character instead of one per word), longest match first."""
    trie: _Trie = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: _Trie) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


_ALL_KEYS = sorted({k for table in _KEYS.values() for keys in table.values() for k in keys})
# every position: the longest keyword starting there; its prefixes are present as well
_KEY_RE = re.compile("(?=(" + _trie_regex(_ALL_KEYS) + "))")
_KEY_PREFIXES = {k: frozenset(p for p in _ALL_KEYS if k.startswith(p)) for k in _ALL_KEYS}


_PRESENT: Memo[frozenset[str] | None] = memo("prose keywords")


def _present(text: str) -> frozenset[str] | None:
    """The keywords occurring in ``text`` (case-insensitively); None (no gating) in the rare
    case where lower-casing changes the length of the text.  Memoised: a reply is read
    for its class when derived, then for up to three classes' phrases by the graph (in
    ``ingest --wait``, 3,112 reads of 1,805 texts on the shared set + pool)."""
    return _PRESENT.get(text_key(text), lambda: _keywords(text))


def _keywords(text: str) -> frozenset[str] | None:
    low = text.lower()
    if len(low) != len(text):
        return None
    found: set[str] = set()
    for k in set(_KEY_RE.findall(low)):
        found |= _KEY_PREFIXES[k]
    return frozenset(found)


def _prepare(text: str) -> str:
    if not isinstance(text, str):
        return ""
    if len(text) > _MAX_CHARS:
        text = text[:_MAX_CHARS]
    if "`" in text:
        if "```" in text:
            text = _FENCE_RE.sub(" ", text)
        text = _INLINE_CODE_RE.sub("code", text)
    if "’" in text or "‘" in text:
        text = text.replace("’", "'").replace("‘", "'")
    return text


def classify_prose(text: str) -> ProseClass:
    """The class of an assistant text part, decided for the whole text."""
    return _classify(text, gated=True)


def _classify(text: str, *, gated: bool) -> ProseClass:
    t = _prepare(text)
    if not t.strip():
        return ProseClass.OBSERVATION
    lead = _LEAD_LABEL_RE.match(t)
    if lead is not None:  # an explicit "Decision:" / "Dead end:" heading is the strongest signal
        return _LEAD_CLASS[lead.group(1).lower().replace("-", " ")]
    present = _present(t) if gated else None
    for rules in _RULES:
        if rules.find(t, present) is not None:
            return rules.cls
    if _QUESTION_RE.search(t) or t.rstrip().endswith(":"):
        # a question, or a lead-in to the next tool call ("Same benchmark:")
        return ProseClass.PLAN
    return ProseClass.OBSERVATION


_PHRASES: Memo[str | None] = memo("prose phrase")


def prose_phrase(text: str, cls: ProseClass) -> str | None:
    """The (valid, non-negated) phrase of ``text`` that signals ``cls``, else None
    (memoised: the graph asks it of every signalling reply, up to three classes each)."""
    rules = _BY_CLASS.get(cls)
    if rules is None:
        return None
    if not isinstance(text, str):
        return _phrase(rules, text)
    return _PHRASES.get((cls.value, text_key(text)), lambda: _phrase(rules, text))


def _phrase(rules: _Rules, text: str) -> str | None:
    t = _prepare(text)
    m = rules.find(t, _present(t))
    return m.group().strip() if m else None


def prose_rule(text: str, cls: ProseClass) -> str | None:
    """The name of the phrase group (a row of the class's table, e.g. ``"es_decide"``) whose
    valid phrase signals ``cls`` in ``text``, else None (for benches and the tests)."""
    rules = _BY_CLASS.get(cls)
    if rules is None:
        return None
    t = _prepare(text)
    found = rules.find_named(t, _present(t))
    return found[0] if found else None


def dead_end_phrase(text: str) -> str | None:
    """The phrase that marks ``text`` as a dead end ("rules that out", "❌"...), else None."""
    return prose_phrase(text, ProseClass.DEAD_END)


def pivot_phrase(text: str) -> str | None:
    """The phrase that marks ``text`` as a pivot ("instead", "switch to"...), else None."""
    return prose_phrase(text, ProseClass.PIVOT)


def decision_phrase(text: str) -> str | None:
    """The phrase that marks ``text`` as a decision ("Decision:", "we'll go with"...), else None."""
    return prose_phrase(text, ProseClass.DECISION)


def conclusion_phrase(text: str) -> str | None:
    """The phrase that marks ``text`` as a conclusion ("this confirms", "which means"...)."""
    return prose_phrase(text, ProseClass.CONCLUSION)


def plan_phrase(text: str) -> str | None:
    """The phrase that marks ``text`` as a plan ("Let me", "Next,"...), else None."""
    return prose_phrase(text, ProseClass.PLAN)


# --------------------------------------------------------------------------- user reports
# What a user says when the work of the last turn does not do what it should: a result that
# does not happen ("the buttons don't work", "is not showing"), a result that is wrong ("looks
# bad", "nothing", "still"), or a correction of what was asked ("I meant", "no, ...").
_REFUTE_RE = re.compile(
    r"(?:\bnot|n't|\b(?:do|does|did|is|are|was|were|wo|ca|could|would|has|have)nt|\bnever"
    r"|\bno\s+longer|\bcannot)\s+(?:\w+\s+){0,3}?(?:work\w*|show\w*|visible|load\w*"
    r"|render\w*|appear\w*|display\w*|exist\w*|chang\w*|fix\w*|cent(?:er|re)\w*|click\w*"
    r"|respond\w*|right|correct|good|updat\w*|happen\w*|run\w*|start\w*|compil\w*|build\w*"
    r"|pass\w*|reach\w*|push\w*|sav\w*)\b"
    r"|\bstill\s+(?:\w+\s+){0,3}?(?:not|n't|no|broken|wrong|bad|fail\w*|error\w*|same|there|shows?"
    r"|looks?|getting|happening|empty|blank|missing|dead)\b"
    r"|\b(?:wrong|broken|badly|weird|incorrect|ugly|messed\s+up|garbled|dead|blank|missing"
    r"|no\s*where|nothing|empty)\b"
    r"|\blook(?:s|ing)?\s+(?:\w+\s+)?(?:bad|off|wrong|weird|broken)\b|\btoo\s+(?:colou?rful|big|small"
    r"|dark|bright|wide|narrow|much)\b"
    r"|\bsame\s+(?:error|problem|issue|result|thing|behaviou?r)\b|\bsame\s+as\s+before\b"
    r"|\b(?:I|we)\s+(?:said|meant|asked|wanted|told\s+you)\b|\bnot\s+what\s+I\b"
    r"|\b(?:that'?s?|this\s+is|is)\s+what\s+(?:I|we)\s+(?:want|need|mean|asked)\w*\b"
    r"|\bwhy\s+(?:(?:you|u)\s+)?(?:didn'?t|did\s+not|don'?t|do\s+not)\b"
    r"|^\W*(?:no|nope|wrong)\b[,.!:]?"
    r"|\bdo(?:es)?\s+not\s+exist\b|\bdo\s*n[o']t\s+use\b",
    re.I,
)
_REPORTED_ERROR_RE = re.compile(
    r"(?:Fatal|Parse)\s+error|\bUncaught\b|\bTraceback\b|\b[A-Z]\w*(?:Error|Exception)\b"
    r"|\berror\b|\bfail(?:s|ed|ing)?\b|\bcrash\w*|\bnot\s+(?:defined|found)\b|\bundefined\b",
    re.I,
)
_THANKS_RE = re.compile(r"\b(?:thanks|thank\s+you|works?\s+(?:now|great|fine)|perfect|great)\b"
                        r"|\bis\s+working\b", re.I)


_PROSE_LINE = re.compile(r"(?<![\s\w'])\s*(?:\d+[.)]\s+)?[A-Za-z][a-z']*(?: [a-z']+){2,}")
"""A line that reads as the user's words (three words or more, not code or a log)."""
_PASTE_RE = re.compile(r":[ \t]*\n[ \t]*\n")
"""A colon and a blank line: what follows was pasted (a list the user writes after
"these are the problems:" follows at once)."""


def refutation_phrase(text: str) -> str | None:
    """The phrase of a user message that reports the agent's last result as broken or not
    what was asked ("still doesn't work", "Fatal error: ...", "I meant ..."), else None.

    A question without a reported error ("is it working?") reports nothing; praise without
    a "but" ("works now, thanks") neither."""
    t = _prepare(text)[:4000]
    # what the user pasted after "Eg:" or "here is the output:" is not what the user
    # says: a complaint is looked for before it, an error anywhere
    paste = _PASTE_RE.search(t, 40)
    own = t
    if paste:
        # the words before the paste, and those after its last blank line when they
        # are prose again ("…:\n\n<pasted>\n\nit still doesn't work")
        rest = t[paste.end():]
        tail = rest.rsplit("\n\n", 1)[1] if "\n\n" in rest else ""
        own = t[:paste.start()] + "\n" + (tail if _PROSE_LINE.match(tail) else "")
    err = _REPORTED_ERROR_RE.search(t)
    # a negative instruction ("But don't display if there is no chance") asks for
    # something to be built; it reports nothing (logparse.iteration)
    told = instruction_spans(own)
    m = next((x for x in _REFUTE_RE.finditer(own)
              if not any(a <= x.start() < b for a, b in told)), None)
    if err is None and m is None:
        return None
    if err is None and t.rstrip().endswith("?") and not (
            m is not None and m.group().lower().startswith("why")):
        return None  # a question reports nothing, but "why didn't you …?" does
    thanks = _THANKS_RE.search(t)
    if thanks is not None and not re.search(r"\bbut\b", t[thanks.end():], re.I):
        return None
    if opening_approval(t) is not None:
        return None  # "Perfecto, empecemos arreglando el bug …": accepted, then news
    hit = err if err is not None and (m is None or err.start() < m.start()) else m
    assert hit is not None
    return hit.group().strip()

