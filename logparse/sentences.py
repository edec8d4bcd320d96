"""One sentence splitter for every rule that reads prose a sentence at a time (the
choices and questions of :mod:`logparse.decide_choice`, the revisions of
:mod:`logparse.revision`, the claims of :mod:`kb.graph.disproved`): pure, so both
``logparse`` and ``kb`` import it.

A sentence ends at:

* ``.``, ``!`` or ``?`` followed by whitespace (``v1.2`` or ``package.json`` do not end
  one);
* ``.``, ``!`` or ``?`` followed at once by ``¿`` or ``¡``, which open a Spanish sentence
  (``Listo.¿Seguimos?``);
* a full-width ``。``, ``！``, ``？`` or a half-width ``｡``, with or without whitespace
  after it (Chinese and Japanese write none), after the closing quote or bracket that
  follows it (``“好了。”然后`` ends after ``”``);
* a line break.

:data:`SPLIT_CASES` are the cases the splitter is held to (one test walks them).
"""

from __future__ import annotations

import re
from typing import Final

_CLOSE: Final = "”’」』）】》"
"""Full-width closing quotes and brackets that end a sentence with the mark before them."""

SENTENCE_BREAK: Final = re.compile(
    r"(?<=[.!?])\s+"
    r"|(?<=[.!?])(?=[¿¡])"
    rf"|(?<=[。！？｡])(?![{_CLOSE}])\s*"
    rf"|(?<=[。！？｡][{_CLOSE}])\s*"
    r"|\n+")
"""Where one sentence ends and the next begins (the match is the space between them,
possibly empty)."""


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order, as they stand (not stripped; an empty one may
    close the list after a final full-width mark)."""
    return SENTENCE_BREAK.split(text)


def claim_sentences(text: str, head: int) -> list[str]:
    """The sentences of ``text[:head]`` that can state a claim: bullets and emphasis
    stripped, those under 12 characters dropped (a claim and a revision read alike)."""
    out = []
    for s in split_sentences(text[:head]):
        s = s.strip(" -*•#>\t")
        if len(s) >= 12:
            out.append(s)
    return out


SPLIT_CASES: Final[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
    ("ascii", "The build failed. I'll pin the version! Does it pass? Yes.",
     ("The build failed.", "I'll pin the version!", "Does it pass?", "Yes.")),
    ("ascii-no-break-inside-a-word", "Pin v1.2.3 in package.json!then run it?again",
     ("Pin v1.2.3 in package.json!then run it?again",)),
    ("lines", "First line\nsecond line\n\nthird.", ("First line", "second line", "third.")),
    ("cjk-no-space", "构建失败了，因为依赖的版本冲突。我改用旧版本的依赖再试一次！这样可以吗？好。",
     ("构建失败了，因为依赖的版本冲突。", "我改用旧版本的依赖再试一次！", "这样可以吗？", "好。",
      "")),
    ("cjk-with-space", "原因是两个依赖的版本冲突了。 我会把它降级到上一个版本。",
     ("原因是两个依赖的版本冲突了。", "我会把它降级到上一个版本。", "")),
    ("cjk-closing-quote", "他说“好了。”然后继续。",
     ("他说“好了。”", "然后继续。", "")),
    ("japanese-half-width", "ビルドが失敗しました｡再試行します",
     ("ビルドが失敗しました｡", "再試行します")),
    ("mixed", "The test passed. 但是部署失败了。Why?",
     ("The test passed.", "但是部署失败了。", "Why?")),
    ("spanish", "¿Funciona ahora? ¡Sí! Listo.¿Seguimos con el despliegue?",
     ("¿Funciona ahora?", "¡Sí!", "Listo.", "¿Seguimos con el despliegue?")),
    ("spanish-opening-mark-inside", "Dijo ¿por qué? y siguió.",
     ("Dijo ¿por qué?", "y siguió.")),
)
"""``(name, text, sentences)``: what :func:`split_sentences` must give for each text."""
