"""One sentence splitter (:mod:`logparse.sentences`) for every rule that reads prose a
sentence at a time: the table of cases is walked once for the splitter and once for each
rule's own reading of sentences, so no rule splits full-width or Spanish prose apart."""

from __future__ import annotations

import pytest

from kb.graph import disproved
from logparse import decide_choice, revision
from logparse.sentences import SPLIT_CASES, split_sentences

IDS = [c[0] for c in SPLIT_CASES]


@pytest.mark.parametrize(("name", "text", "want"), SPLIT_CASES, ids=IDS)
def test_the_splitter_gives_each_case_its_sentences(
        name: str, text: str, want: tuple[str, ...]) -> None:
    assert tuple(split_sentences(text)) == want


def test_the_cases_cover_ascii_full_width_and_spanish() -> None:
    texts = "".join(c[1] for c in SPLIT_CASES)
    assert all(ch in texts for ch in ".!?。！？｡”¿¡\n")


def _kept(want: tuple[str, ...], strip: str) -> list[str]:
    return [s for s in (w.strip(strip) for w in want) if len(s) >= 12]


@pytest.mark.parametrize(("name", "text", "want"), SPLIT_CASES, ids=IDS)
def test_revision_and_disproved_read_the_same_sentences(
        name: str, text: str, want: tuple[str, ...]) -> None:
    kept = _kept(want, " -*•#>\t")
    assert revision.sentences(text) == kept
    assert disproved.sentences(text) == kept


@pytest.mark.parametrize(("name", "text", "want"), SPLIT_CASES, ids=IDS)
def test_a_choice_is_read_in_the_sentence_the_splitter_gives(
        name: str, text: str, want: tuple[str, ...]) -> None:
    at = 0
    for sentence in want:
        if not sentence.strip():
            continue
        at = text.index(sentence, at)
        got = decide_choice._sentence_at(text, at, at + 1)
        assert got == sentence.strip(), (name, sentence)
        at += len(sentence)


@pytest.mark.parametrize(("proposal", "asked"), [
    ("I fixed the build.\n\nShould I commit it? Push too?", "Should I commit it? Push too?"),
    ("构建已经修好了。要我提交吗？顺便推送？", "要我提交吗？ 顺便推送？"),
    ("Listo el arreglo.¿Lo subo al repositorio?", "¿Lo subo al repositorio?"),
])
def test_the_question_a_proposal_ends_on_is_found_by_the_same_splitter(
        proposal: str, asked: str) -> None:
    assert decide_choice._asks(proposal) == asked


def test_no_rule_keeps_a_splitter_of_its_own() -> None:
    """Every sentence-and-line splitter of ``kb`` and ``logparse`` is this one: no module
    compiles its own ``(?<=[.!?…])\\s+|…`` (what three copies of it did differently).
    The hand-off's own sentence spans (abbreviations, list numbers) are another rule."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    own = [str(p.relative_to(root)) for d in ("kb", "logparse") for p in (root / d).rglob("*.py")
           if p.name != "sentences.py" and any(
               s in p.read_text(encoding="utf-8")
               for s in ("(?<=[.!?])\\s+|", "(?<=[.!?。"))]
    assert own == []
