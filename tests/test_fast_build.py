"""The fast segment writer (index/segment.py) writes the index Whoosh's own writer would, for a reader.

The same records (the seed corpus, 2,000 Debian packages and edge cases) are built three ways:
with Whoosh's ``IndexWriter`` (the reference), with the fast writer in one segment, and with the
fast writer in two processes and several segments.  A reader must see the same terms, postings,
lengths, stored fields, columns and search results in each.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from whoosh import index as whoosh_index

import index.build as build_module
from corpus.sources import DEFAULT_DIR, load_corpus
from index import store, vectors
from index.analysis import TOKEN_PATTERN, TermAnalyzer, text_analyzer
from index.build import build_corpus
from index.schema import make_schema
from index.update import apply_changes, read_changes
from search.params import SearchParams
from search.service import SearchService
from tests.conftest import debian_lines, write_jsonl

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

DEBIAN_SAMPLE = 2_000
LONG_BODY = " ".join(f"widget{i % 7} Trainium2 gauge {i} the everywhere" for i in range(400))
EDGE_CASES = [
    {"id": "edge-empty", "title": "Nothing here", "summary": "", "topics": ["games"]},
    {"id": "edge-accents", "title": "Jalapeño crème brûlée", "summary": "Ça coûte 7,500 € à Zürich; naïve façade.", "topics": ["games"]},
    {"id": "edge-mixed", "title": "Trainium2 and 5GW on V3.2", "summary": "U.S. and U.K. teams; the company's 1.0.0 release; AWS's Trainium2.", "topics": ["games"]},
    {"id": "edge-possessive", "title": "Debian's packages", "summary": "It’s the maintainer’s choice: users' files, O'Reilly's book.", "topics": ["games"]},
    {"id": "edge-long", "title": "A very long description", "summary": LONG_BODY, "topics": ["games"]},
    {"id": "edge-g++-12.x86_64_lib2", "title": "A name of many parts", "summary": "Its parts are words of its name only.", "topics": ["games"]},
    {"id": "edge-digits", "title": "7,500 units x86_64 arm64 utf16be", "summary": "a2ps abc2ps Template2Code EXT2FS 3.14159 42", "topics": ["games"]},
]
QUERIES = [
    "game", "python library", "strategy game", "Trainium2", "trainium", "7,500", "U.S.", "jalapeno",
    "crème", "debian's", "\"real-time strategy\"", "widget3 gauge", "everywhere", "library -python",
    "utf16be", "data center", "kernel module", "font", "the", "x86_64",
]


def _debian_sample(path: Path) -> Path:
    docs = [json.loads(line) for line in debian_lines(DEBIAN_SAMPLE)]
    # One term in every document, and a title shared by many.
    for doc in docs:
        doc["summary"] = doc["summary"] + " everywhere"
    return write_jsonl(path, docs + EDGE_CASES)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fast-corpus")
    return load_corpus([DEFAULT_DIR, _debian_sample(folder / "sample.jsonl")])


def _whoosh_write_index(work: Path, records, seen, now, matrix, *, procs: int, progress, language: str) -> None:
    """The reference: every document through Whoosh's own SegmentWriter, one segment, then embedded."""
    ix = whoosh_index.create_in(str(work), make_schema(language))
    writer = ix.writer(limitmb=256, compound=False)
    for order, record in enumerate(records, start=1):
        writer.add_document(**build_module.indexed(record, order, seen.get(record.id), now))
    writer.commit()
    if matrix is not None:
        matrix[:] = vectors.embed_records(records)


@pytest.fixture(scope="module")
def roots(corpus, tmp_path_factory):
    """Build the corpus three ways; return {way: index root}."""
    base = tmp_path_factory.mktemp("fast-roots")
    with pytest.MonkeyPatch.context() as clock:
        clock.setattr(build_module, "now_utc", lambda: "2025-03-15T08:00:00Z")  # the three builds see one first_seen
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(build_module, "_write_index", _whoosh_write_index)
            build_corpus(corpus, base / "whoosh")
        build_corpus(corpus, base / "fast")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(build_module, "MIN_PART_DOCS", 100)
            patch.setattr(build_module, "SEGMENT_DOCS", 700)
            build_corpus(corpus, base / "parallel", procs=2)
    return {way: base / way for way in ("whoosh", "fast", "parallel")}


def _open(root: Path):
    return whoosh_index.open_dir(str(store.current_path(root)))


def _reader_view(root: Path) -> dict[str, object]:
    """Everything a reader can ask of an index, keyed by global document number."""
    ix = _open(root)
    try:
        with ix.reader() as reader:
            schema = ix.schema
            postings = {}
            for fieldname, text in reader.all_terms():
                matcher = reader.postings(fieldname, text)
                fmt = schema[fieldname].format
                rows = []
                while matcher.is_active():
                    value = matcher.value()
                    positions = tuple(fmt.decode_positions(value)) if fmt.supports("positions") else None
                    rows.append((matcher.id(), matcher.weight(), positions))
                    matcher.next()
                postings[fieldname, text] = (reader.doc_frequency(fieldname, text), reader.frequency(fieldname, text), tuple(rows))
            lengths = {
                field: (
                    reader.field_length(field),
                    reader.min_field_length(field),
                    reader.max_field_length(field),
                    tuple(reader.doc_field_length(d, field) for d in range(reader.doc_count_all())),
                )
                for field in ("title", "body")
            }
            return {
                "doc_count": reader.doc_count(),
                "postings": postings,
                "lengths": lengths,
                "stored": [reader.stored_fields(d) for d in range(reader.doc_count_all())],
                "order": list(reader.column_reader("order")),
            }
    finally:
        ix.close()


@pytest.fixture(scope="module")
def views(roots):
    return {way: _reader_view(root) for way, root in roots.items()}


@pytest.mark.parametrize("way", ["fast", "parallel"])
def test_a_reader_sees_the_same_index(views, way, corpus):
    reference, built = views["whoosh"], views[way]
    assert built["doc_count"] == reference["doc_count"] == len({r.id for r in corpus.records})
    assert built["postings"].keys() == reference["postings"].keys()
    different = [term for term, found in built["postings"].items() if found != reference["postings"][term]]
    assert different == []
    assert built["lengths"] == reference["lengths"]
    assert built["stored"] == reference["stored"]
    assert built["order"] == reference["order"]


def test_the_parallel_build_wrote_several_segments_in_listing_order(roots, views):
    ix = _open(roots["parallel"])
    try:
        segments = ix._segments()
    finally:
        ix.close()
    assert len(segments) >= 4
    assert views["parallel"]["order"] == list(range(1, views["parallel"]["doc_count"] + 1))


@pytest.mark.parametrize("way", ["fast", "parallel"])
def test_the_vectors_are_those_of_one_embedding_in_document_order(roots, way):
    """Indexing processes embed their own ranges: the rows still follow the document numbers, unchanged."""
    reference, built = store.current_path(roots["whoosh"]), store.current_path(roots[way])
    ids = json.loads((built / vectors.IDS_FILE).read_text(encoding="utf-8"))
    assert ids == vectors._docnum_ids(built) == json.loads((reference / vectors.IDS_FILE).read_text(encoding="utf-8"))
    assert np.array_equal(np.load(built / vectors.VECTORS_FILE), np.load(reference / vectors.VECTORS_FILE))
    assert np.array_equal(np.load(built / vectors.SIGNS_FILE), np.load(reference / vectors.SIGNS_FILE))
    assert store.read_meta(built)["semantic"] == store.read_meta(reference)["semantic"]


def test_one_segment_has_the_same_blocks_and_term_statistics(roots):
    """Term infos and per-block statistics (used to skip blocks) match Whoosh's, term by term."""
    readers = {}
    ixes = {way: _open(roots[way]) for way in ("whoosh", "fast")}
    try:
        for way, ix in ixes.items():
            readers[way] = ix.reader()
        reference, fast = readers["whoosh"], readers["fast"]
        long_terms = 0
        for fieldname, text in reference.all_terms():
            ref_info, info = reference.term_info(fieldname, text), fast.term_info(fieldname, text)
            stats = ("weight", "doc_frequency", "min_length", "max_length", "max_weight", "min_id", "max_id")
            assert [getattr(info, s)() for s in stats] == [getattr(ref_info, s)() for s in stats], (fieldname, text)
            ref_blocks, blocks = _blocks(reference.postings(fieldname, text)), _blocks(fast.postings(fieldname, text))
            assert blocks == ref_blocks, (fieldname, text)
            long_terms += len(blocks) > 1
        assert long_terms > 10  # terms with more than one block of postings were compared
    finally:
        for reader in readers.values():
            reader.close()
        for ix in ixes.values():
            ix.close()


def _blocks(matcher) -> list[tuple]:
    blocks = []
    while matcher.is_active():
        blocks.append((matcher.block_min_id(), matcher.block_max_id(), matcher.block_max_weight(),
                       matcher.block_min_length(), matcher.block_max_length()))
        matcher.skip_to(matcher.block_max_id() + 1)
    return blocks


@pytest.mark.parametrize("way", ["fast", "parallel"])
def test_searches_give_the_same_results(roots, way):
    reference, built = SearchService(roots["whoosh"]), SearchService(roots[way])
    for q in QUERIES:
        for page in (1, 2):
            expected, found = reference.search(SearchParams(q=q, page=page)), built.search(SearchParams(q=q, page=page))
            assert found.total == expected.total, q
            assert [(h.id, round(h.score, 9)) for h in found.hits] == [(h.id, round(h.score, 9)) for h in expected.hits], q
            assert found.to_json()["facets"] == expected.to_json()["facets"], q
    assert built.more_like_this("edge-mixed") == reference.more_like_this("edge-mixed")


def test_an_update_on_a_fast_built_index_works(roots, tmp_path):
    changes = write_jsonl(tmp_path / "changes.jsonl", [
        {"id": "edge-new", "title": "Brand new Trainium2 gadget", "summary": "Fresh words: zyzzyva.", "topics": ["games"]},
        {"id": "edge-empty", "delete": True},
    ])
    before = SearchService(roots["whoosh"]).search(SearchParams(q="trainium2")).total
    built = store.current_path(roots["parallel"])
    old_rows = dict(zip(json.loads((built / vectors.IDS_FILE).read_text(encoding="utf-8")), np.load(built / vectors.VECTORS_FILE)))
    report = apply_changes(read_changes(changes), roots["parallel"])
    updated = store.current_path(roots["parallel"])
    ids = json.loads((updated / vectors.IDS_FILE).read_text(encoding="utf-8"))
    rows = dict(zip(ids, np.load(updated / vectors.VECTORS_FILE)))
    # Whoosh renumbered the documents: every row still belongs to its id, the new one embedded.
    assert ids == vectors._docnum_ids(updated) and "edge-empty" not in rows
    assert all(np.array_equal(row, old_rows[doc_id]) for doc_id, row in rows.items() if doc_id not in (None, "edge-new"))
    new_row = vectors.quantise(vectors.encoder().embed(["Brand new Trainium2 gadget\nFresh words: zyzzyva."]))[0]
    assert np.array_equal(rows["edge-new"], new_row)
    service = SearchService(roots["parallel"])
    assert [h.id for h in service.search(SearchParams(q="zyzzyva")).hits] == ["edge-new"]
    assert service.search(SearchParams(q="trainium2")).total == before + 1
    assert "edge-empty" not in [h.id for h in service.search(SearchParams(q="nothing here")).hits]
    assert (report.added, report.deleted) == (1, 1)


ODD_TEXTS = [
    "",
    "   ",
    "- * -- / &",
    "tab\tseparated\nlines\u00a0and\u2003wide spaces",
    "zero\u200bwidth x86_64 a_b __init__ e\u0301t\u00e9 \u00b2 \u2460 Ⅻ 3D IPv6 libstdc++-v3",
    "it's O’Reilly’s users' U.S.-sited (U.K.) e.g. i.e. 1,000,000.5 7,50 v1.2.3-rc1",
    "Trainium2 Trainium2 trainium2, TRAINIUM2. 5GW 5gw",
    "C++ C#. c++17 g++-11 F#'s Notepad++ biosig4c++ C++11/C++17 a+b 1+1 page.html#sec #tag a#1 Ωc++ é#",  # (a QA pass)
    "μP µs ΜP β-VAE λόγος ΣΊΣΥΦΟΣ ϕ ϵ-greedy μp2 Δt π-calculus",  # Greek: also indexed by the letters' names
    # Chinese characters and hiragana are a word each, also in a chunk with no punctuation to split it at
    # (the one-token shortcut took "北京建设新的数据中心" whole); katakana and Hangul words stay whole.
    "北京建设新的数据中心", "一家公司在北京建设了新的数据中心。", "東京でGPUクラスタを構築 々 〆", "서울 데이터 센터 Straße",
    "臺灣的資料中心擴建機房豈", "台湾的数据中心",  # traditional characters are their simplified forms
    # A katakana run's final "ー" is no word from four characters (コンピューター is コンピュータ), not inside a run,
    # nor in a shorter one (データ, カー), nor after hiragana or a Chinese character.
    "スーパーコンピューターの メモリー、サーバーラック データ カー ーーーー すごーい 漢字ー ｺﾝﾋﾟｭｰﾀｰ センター。",
]


def test_a_katakana_word_s_final_long_vowel_mark_is_no_word_and_moves_no_character():
    # "コンピューター" said "Missing: ター" on the pages writing "コンピュータ" (a QA pass of non-English corpora).
    chain, fast = text_analyzer(), TermAnalyzer()
    for analyse in (lambda text: [t.text for t in chain(text, mode="index")], lambda text: [t for _, t in sorted((p, t) for t, ps in fast(text).items() for p in ps)]):
        assert analyse("コンピューター") == analyse("コンピュータ") == list("コンピュータ")
        assert analyse("データセンターを") == list("データセンタを") and analyse("データ") == list("データ")
    # The characters keep their offsets: a highlight marks what the page writes.
    assert [(term, start) for term, _, start, _ in fast.tokens("サーバーの")] == [("サ", 0), ("ー", 1), ("バ", 2), ("の", 4)]


def test_the_fast_analysis_equals_the_whoosh_chain_on_every_token(corpus):
    import re

    chain, fast = text_analyzer(), TermAnalyzer()
    token = re.compile(TOKEN_PATTERN)
    seen: set[str] = set()
    texts = [text for record in corpus.records for text in (record.title, record.body)] + ODD_TEXTS
    for text in texts:
        for raw in token.findall(text):
            if raw not in seen:
                seen.add(raw)
                expected = tuple(t.text for t in chain(raw, positions=True, mode="index"))
                assert fast.token_terms(raw) == expected, raw
    assert len(seen) > 5_000  # distinct raw tokens: the 500-package sample and the seeds give some 7,500
    # A small cache is cleared again and again while the texts are analysed: the terms stay the same.
    for analyzer in (fast, TermAnalyzer(limit=50)):
        for text in texts:
            expected = defaultdict(list)
            for t in chain(text, positions=True, mode="index"):
                expected[t.text].append(t.pos)
            assert analyzer(text) == dict(expected), text
            assert _terms_from_codes(analyzer, text) == dict(expected), text


# Words of other languages, as written and as readers type them (a corpus's language: tests/test_language.py).
FOREIGN_TEXTS = [
    "Les données des entreprises françaises; l'électricité à Zürich coûte cher. Réseaux, réseau.",
    "Die Rechenzentren der Universitäten verbrauchen größere Mengen Wasser; Häuser und Grafikkarten.",
    "España atrae inversiones en centros de datos; la inversión en energías renovables del país.",
    "Şirketler yatırımlar yapıyor; veri merkezleri İstanbul'da büyüyor. Adatközpontok beruházások.",
]


@pytest.mark.parametrize("language", ["fr", "de", "es", "tr", "hu", "it"])
def test_the_fast_analysis_of_a_corpus_in_another_language_equals_its_chain(corpus, language):
    import re

    chain, fast = text_analyzer(language), TermAnalyzer(language=language)
    token = re.compile(TOKEN_PATTERN)
    texts = [text for record in corpus.records[:300] for text in (record.title, record.body)] + ODD_TEXTS + FOREIGN_TEXTS
    stemmed_apart = 0
    for text in texts:
        for raw in dict.fromkeys(token.findall(text)):
            expected = tuple(t.text for t in chain(raw, positions=True, mode="index"))
            assert fast.token_terms(raw) == expected, raw
            stemmed_apart += expected != tuple(t.text for t in text_analyzer()(raw, positions=True, mode="index"))
        expected_positions = defaultdict(list)
        for t in chain(text, positions=True, mode="index"):
            expected_positions[t.text].append(t.pos)
        assert _terms_from_codes(fast, text) == dict(expected_positions), text
    assert stemmed_apart > 10  # the language's stemmer ran, not English's


def _terms_from_codes(analyzer: TermAnalyzer, text: str) -> dict[str, list[int]]:
    """Decode TermAnalyzer.codes (what the segment writer keeps) into {term: positions}."""
    out = defaultdict(list)
    pos = -1
    for code in analyzer.codes(text):
        pos += code & 1  # an odd code starts a new position; a token's parts share it
        out[analyzer.terms[code >> 1]].append(pos)
    return dict(out)


def test_fast_tokens_are_the_chain_tokens_with_their_characters(corpus):
    """Each term with its position and the characters it came from, as a highlighter reads them."""
    chain, fast = text_analyzer(), TermAnalyzer(limit=50_000)
    texts = [text for record in corpus.records for text in (record.title, record.body)] + ODD_TEXTS
    for text in texts:
        expected = [
            (t.text, t.pos, t.startchar, t.endchar)
            for t in chain(text, positions=True, chars=True, mode="index", removestops=False)
        ]
        assert fast.tokens(text) == expected, text
    tokens = fast.tokens("AWS's Trainium2 chips")
    assert [t for t in tokens if t[0] == "trainium"] == [("trainium", 1, 6, 15)]  # a part keeps its token's chars
