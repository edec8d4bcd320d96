"""Words inside unspaced Chinese and Japanese text are found, by the index (real tantivy)
and by the scan alike.

Chinese: ``fixtures/realworld_trim/matugen_zh.json``, the pool's
``matugen-theme-sync__opencode-session.json`` cut to its messages 1, 3, 4 and 6 (text parts
only, texts cut to 400 characters): ``亮色模式`` stands inside
``…让它也能够自动生成亮色模式的colorscheme…``.  Japanese: a session written here.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import orjson
import pytest

from kb.ingest import ingest
from kb.search import search
from kb.search.index import SCHEMA_VERSION, SearchIndex, index_dir, unit_document
from kb.search.query import bigrams, cjk_terms, glued_text, parse, text_parts
from kb.search.scan import scan, unit_documents, units
from kb.store import KbStore

ZH = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim" / "matugen_zh.json"
JA_PROMPT = "データベースへの接続に失敗しました。設定ファイルを確認してください"
JA_OUTPUT = "エラー：接続がタイムアウトしました (psql: timeout expired)"


def _japanese(dst: Path) -> Path:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(5), directory="/home/dev/ja", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="接続の確認", start_ms=1_790_000_000_000)
    s.user(JA_PROMPT)
    s.step("psqlで接続を確認します", [bash("psql -h localhost -c 'select 1'", JA_OUTPUT + "\n")])
    s.step("Host key verification failed とは関係ありません。")
    return write_jsonl(s.tree(), dst)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("cjk")
    path = tmp / "kb.duckdb"
    with KbStore(path) as store:
        ingest(store, [ZH, _japanese(tmp / "ja")])
    return path


def keys(hits: list[dict]) -> set[tuple]:
    return {(h["session_id"], h["ordinal"], h["seq"], h["field"]) for h in hits}


def scanned(db: Path, query: str) -> set[tuple]:
    with KbStore(db, read_only=True) as store:
        return keys(scan(store, parse(query), limit=1000))


@pytest.mark.parametrize("query,inside", [
    ("亮色模式", "自动生成亮色模式的colorscheme"),   # inside a run of 30 Han characters
    ("脚本", "matugen脚本"),
    ("systemd服务", "脚本+systemd服务的实现方式"),      # Latin glued to Han
    ("亮", "亮色"),                                    # one character
    ("接続", JA_PROMPT),                               # kanji between kana
    ("タイムアウト", JA_OUTPUT),                       # katakana inside a run
    ("接続 psql", JA_OUTPUT),                          # a Latin word beside it
    ("データベース 失敗", JA_PROMPT),
])
def test_a_word_inside_a_run_is_found(db: Path, query: str, inside: str) -> None:
    found = search(db, query, limit=1000)
    assert found.engine == "index"
    assert found.hits, query
    assert any(inside in (h["text"] or "") for h in found.hits)
    # the scan (no index, --regex's engine) answers the same
    assert keys(found.hits) == scanned(db, query)
    # and the words are highlighted
    hit = next(h for h in found.hits if inside in (h["text"] or ""))
    marked = [hit["snippet"][a:b] for a, b in hit["highlights"]]
    assert any(m.lower() in query.lower() for m in marked), (marked, query)


@pytest.mark.parametrize("query,inside", [
    ("matugen", "的matugen脚本"),          # a Latin word written against Han on both sides
    ("systemd", "+systemd服务"),
    ("colorscheme", "亮色模式的colorscheme"),
    ("matu*", "的matugen脚本"),            # a prefix
    ("psql", "psqlで接続"),                # against kana
])
def test_a_latin_word_written_against_cjk_is_found(db: Path, query: str, inside: str
                                                   ) -> None:
    """The tokenizer keeps ``我的matugen脚本`` one word; the ``glued`` field has it apart."""
    found = search(db, query, limit=1000)
    assert found.engine == "index"
    assert any(inside in (h["text"] or "") for h in found.hits), query
    assert keys(found.hits) == scanned(db, query)
    hit = next(h for h in found.hits if inside in (h["text"] or ""))
    marked = {hit["snippet"][a:b].lower() for a, b in hit["highlights"]}
    assert query.rstrip("*") in "".join(marked), marked


def test_glued_text() -> None:
    assert glued_text("我的matugen脚本 ok") == " 我  的 matugen 脚  本  ok"
    assert glued_text("连接数据库失败") is None  # nothing glued: the pairs answer
    assert glued_text("plain text") is None and glued_text("数据库 ok") is None


@pytest.mark.parametrize("query", ["亮色暗色", "接続失敗", "timeout 確認", "atugen", "matugenx",
                                   "gen"])
def test_what_is_not_there_is_not_found(db: Path, query: str) -> None:
    # pairs that each occur, but not in a row; a Latin word and a CJK word that no one
    # unit has both of
    assert not search(db, query, limit=1000).hits
    assert not scanned(db, query)


def test_latin_words_are_answered_as_before(db: Path) -> None:
    for query in ("Host key verification failed", "psql", "select 1", "localhost"):
        found = search(db, query, limit=1000)
        assert found.hits and keys(found.hits) == scanned(db, query)
    assert text_parts(parse("Host key verification")) == [parse("Host key verification")]


def test_pairs() -> None:
    assert bigrams("数据库") == ["数据", "据库"] and bigrams("库") == ["库"]
    assert cjk_terms("plain ASCII text") is None
    assert cjk_terms("连接数据库失败, MySQL数据库 ok") == [
        "连接 接数 数据 据库 库失 失败", "my ys sq ql l数 数据 据库"]


def test_documents_written_in_sql_carry_the_same_pairs(db: Path) -> None:
    with KbStore(db, read_only=True) as store:
        for sid in [r["session_id"] for r in store.sessions()]:
            docs = unit_documents(store, sid)
            assert docs is not None
            got = [orjson.loads(d) for d in docs]
            assert got == [unit_document(r) for r in units(store, sid)]
            assert any("cjk" in d for d in got)
            assert any("glued" in d for d in got)


def test_an_index_of_the_old_layout_is_rebuilt(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "kb.duckdb"
    shutil.copyfile(db, copy)
    idx = SearchIndex.for_db(copy)
    with KbStore(copy, read_only=True) as store:
        idx.sync(store)
    assert SCHEMA_VERSION >= 3
    # an index written before the pairs were indexed says version 2
    idx.meta["version"] = 2
    idx._write_meta()
    from kb.search import index as ix

    ix._OPEN.clear()
    found = search(copy, "亮色模式")
    assert found.engine == "index" and found.hits
    assert orjson.loads((index_dir(copy) / ix.META).read_bytes())["version"] == SCHEMA_VERSION
    # one written before the glued words were indexed (version 3) never found them
    assert SCHEMA_VERSION >= 4
    idx = SearchIndex.for_db(copy)
    idx.meta["version"] = 3
    idx._write_meta()
    ix._OPEN.clear()
    found = search(copy, "matugen")
    assert found.engine == "index" and found.hits
    assert orjson.loads((index_dir(copy) / ix.META).read_bytes())["version"] == SCHEMA_VERSION


def test_pairs_cost_linear_time_beside_a_long_word() -> None:
    """A text with one CJK character and a long word without any (a base64 blob, a hash
    run together) is cut into words once: the word pattern tried at every position of
    the long word and failing at its end cost 40,000 characters 13 s."""
    from tests.timing import best_cpu

    def cpu(n: int) -> float:
        text = "数据库 " + "a" * n
        best, got = best_cpu(lambda: cjk_terms(text))
        assert got == ["数据 据库"]
        return best

    small, large = cpu(5_000), cpu(20_000)
    assert large < 9 * max(small, 0.002), (small, large)
