"""Document vectors: made by build and update from the packaged model, stored in the snapshot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from corpus.sources import load_corpus
from index import store, vectors
from index.build import build
from index.update import update
from search import semantic
from search.service import SearchService
from tests.conftest import write_jsonl

SAMPLE = Path(__file__).resolve().parent / "data" / "semantic-sample.jsonl"


@pytest.fixture()
def root(tmp_path) -> Path:
    build([SAMPLE], root=tmp_path / "index")
    return tmp_path / "index"


def stored_vectors(root: Path) -> tuple[dict[str, object], np.ndarray, list[str | None]]:
    path = store.current_path(root)
    meta = store.read_meta(path)
    matrix = np.load(path / vectors.VECTORS_FILE)
    ids = json.loads((path / vectors.IDS_FILE).read_text(encoding="utf-8"))
    return meta, matrix, ids


def assert_rows_match_documents(root: Path) -> None:
    """Every live document's row is the embedding of its stored title and body; holes are zero."""
    _, matrix, ids = stored_vectors(root)
    snap = SearchService(root).snapshot()
    assert len(ids) == len(matrix) == snap.searcher().reader().doc_count_all()
    lengths = np.load(store.current_path(root) / vectors.LENGTHS_FILE)
    assert np.array_equal(lengths, np.sqrt((matrix.astype(np.int64) ** 2).sum(axis=1)).astype(np.float32))
    for docnum, doc_id in enumerate(ids):
        if docnum not in snap.all_docs:
            assert doc_id is None and not matrix[docnum].any()
            continue
        fields = snap.stored(docnum)
        assert doc_id == fields["id"]
        expected = vectors.encoder().embed([f"{fields['title']}\n{fields['body']}"])[0]
        assert np.array_equal(matrix[docnum], vectors.quantise(expected[None])[0])
        # What a search uses: the stored row's cosines, within int8's rounding of the exact vector's.
        assert vectors.cosines(matrix[docnum : docnum + 1], expected)[0] > 0.9999


def test_build_stores_int8_rows_per_document_with_the_model_recorded(root):
    meta, matrix, ids = stored_vectors(root)
    assert matrix.dtype == np.int8 and matrix.shape == (7, vectors.DIM)
    assert meta["semantic"]["model"] == "wordllama/l2_supercat" and meta["semantic"]["version"] == "0.4.0.post1"
    assert meta["semantic"]["dtype"] == "int8"
    assert (np.abs(matrix.astype(np.int16)).max(axis=1) == 127).all()  # every row uses int8's whole range
    assert_rows_match_documents(root)
    # The vectors are checksummed with the Whoosh files: a damaged copy is refused at open.
    recorded = json.loads((store.current_path(root) / store.MANIFEST_FILE).read_text())
    assert {vectors.VECTORS_FILE, vectors.SIGNS_FILE, vectors.LENGTHS_FILE, vectors.IDS_FILE} <= set(recorded)


def test_the_vectors_file_holds_its_disk_space_before_any_row_is_written(tmp_path):
    # Sparse, a row written where a full disk had no room killed the build with SIGBUS, no message.
    vectors.new_matrix(tmp_path, 4096)
    size = (tmp_path / vectors.VECTORS_FILE).stat()
    assert size.st_blocks * 512 >= size.st_size


def test_the_seed_build_matches_its_documents(index_dir):
    assert_rows_match_documents(index_dir)


def test_update_keeps_vectors_in_step_with_edits_additions_and_deletions(root, tmp_path):
    changes = write_jsonl(tmp_path / "changes.jsonl", [
        {"id": "sourdough", "title": "Marathon training plan", "summary": "Run long and slow on Sundays.", "topics": ["sport"]},
        {"id": "volcano", "title": "Volcano erupts", "summary": "Lava and ash close the airport.", "topics": ["science"]},
        {"id": "goalkeeper", "delete": True},
    ])
    update(changes, root)
    meta, matrix, ids = stored_vectors(root)
    assert "goalkeeper" not in ids and {"sourdough", "volcano"} <= set(ids)
    assert meta["semantic"]["vectors"] == 7 and meta["semantic"]["rows"] == len(ids)
    assert_rows_match_documents(root)


def test_a_deleted_document_is_a_hole_that_no_search_by_meaning_returns(root, tmp_path, monkeypatch):
    update(write_jsonl(tmp_path / "changes.jsonl", [{"id": "goalkeeper", "delete": True}]), root)
    snap = SearchService(root).snapshot()
    docs = snap.vectors
    _, matrix, ids = stored_vectors(root)
    holes = [n for n, doc_id in enumerate(ids) if doc_id is None]
    assert holes and docs.holes.tolist() == holes and not docs.live[holes].any() and docs.live.sum() == len(ids) - len(holes)
    found = [docnum for docnum, _ in semantic.nearest(docs, semantic.query_vector("soccer match goalkeeper"), len(ids))]
    assert sorted(found) == sorted(set(range(len(ids))) - set(holes))
    # Through the coarse passes too (they run past EXACT_UP_TO rows): the nearest two, never a hole.
    monkeypatch.setattr(semantic, "EXACT_UP_TO", 0)
    monkeypatch.setattr(semantic, "COARSE_MIN", 2)
    monkeypatch.setattr(semantic, "HAMMING_WIDEN", 2)
    coarse = [docnum for docnum, _ in semantic.nearest(docs, semantic.query_vector("soccer match goalkeeper"), 2)]
    assert len(coarse) == 2 and not set(coarse) & set(holes)


@pytest.mark.parametrize(("key", "old"), [("version", "0.0.1"), ("dtype", "float16")])
def test_update_reembeds_vectors_of_another_model_or_format(root, tmp_path, key, old):
    path = store.current_path(root)
    meta = store.read_meta(path)
    meta["semantic"][key] = old  # as if built with an older wordllama, or before vectors were int8
    store.write_meta(path, meta)
    # Its manifest made again: the edit above would fail the checksums (an update refuses a snapshot
    # without one, as rollback does: one built so is whole).
    store.write_meta(path, store._manifest(path), store.MANIFEST_FILE)
    assert SearchService(root).snapshot().vectors is None  # not used for searching
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "goalkeeper", "delete": True}]), root)
    meta, _, _ = stored_vectors(root)
    assert vectors.same_model(meta["semantic"])
    assert_rows_match_documents(root)


def test_a_snapshot_without_stored_lengths_measures_its_rows_at_open(root, tmp_path):
    """A snapshot written before the rows' lengths were stored opens as one with them."""
    path = store.current_path(root)
    meta = store.read_meta(path)
    older = tmp_path / "older"
    shutil.copytree(path, older)
    (older / vectors.LENGTHS_FILE).unlink()
    stored, measured = vectors.open_vectors(path, meta), vectors.open_vectors(older, meta)
    assert np.array_equal(measured.lengths, stored.lengths) and np.array_equal(measured.live, stored.live)


@pytest.mark.parametrize("seed", range(3))
def test_measured_lengths_are_exact(seed):
    rows = np.random.default_rng(seed).integers(-127, 128, size=(2500, vectors.DIM), dtype=np.int8)  # blocks and a rest
    rows[0], rows[1], rows[2] = 127, -127, 0  # the largest sum of squares a row can have, and a zero row
    assert np.array_equal(vectors.measure(rows), np.sqrt((rows.astype(np.int64) ** 2).sum(axis=1)).astype(np.float32))


@pytest.mark.parametrize("count", [1, 31, 33, 1000, 3001])
def test_int8_rows_give_the_cosines_of_their_float32_values_to_the_last_bit(count):
    """einsum converting int8 rows as it goes sums as it does over a float32 copy (the small snapshot's)."""
    rng = np.random.default_rng(count)
    rows = vectors.quantise(rng.standard_normal((count, vectors.DIM)).astype(np.float32))
    lengths = vectors.measure(rows)
    for _ in range(5):
        query = rng.standard_normal(vectors.DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        from_int8 = vectors.live_cosines(rows, lengths, query)
        assert from_int8.dtype == np.float32
        assert np.array_equal(from_int8, vectors.live_cosines(rows.astype(np.float32), lengths, query))
        assert np.array_equal(from_int8, vectors.cosines(rows, query))


def test_build_without_vectors_by_flag_or_switch(tmp_path, monkeypatch):
    corpus = load_corpus([SAMPLE])
    from index.build import build_corpus

    build_corpus(corpus, tmp_path / "off", semantic=False)
    monkeypatch.setenv(vectors.SWITCH, "0")
    build_corpus(corpus, tmp_path / "env")
    for root in (tmp_path / "off", tmp_path / "env"):
        path = store.current_path(root)
        assert store.read_meta(path)["semantic"] is None
        assert not (path / vectors.VECTORS_FILE).exists()
    # An update of a snapshot without vectors leaves it without, and still works.
    monkeypatch.delenv(vectors.SWITCH)
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "goalkeeper", "delete": True}]), tmp_path / "off")
    assert store.read_meta(store.current_path(tmp_path / "off"))["semantic"] is None


def test_a_text_without_words_has_a_zero_vector():
    assert not vectors.encoder().embed(["", "  \n "]).any()


def test_a_query_reads_its_rows_from_the_file_and_gets_the_vector_a_document_of_its_text_gets():
    """Bit for bit embed's definition (the mapped table, word by word), which the worker never pages in;
    asked again, from the word vectors it kept."""
    encoder = vectors.encoder()
    texts = ["who makes their own accelerators", "ZeRO-3 offload ZeRO-3 (DeepSpeed)", "日本語 😀 naïve", "a a a a", "x",
             "their own accelerators who makes", "▁ ▁x y▁"]
    expected = _embed_word_by_word(texts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encoder, "table", None)  # a worker's query encoding never pages the table in
        patch.setattr(encoder, "_word_vectors", {})
        first = [encoder.embed_one(text) for text in texts]
        again = [encoder.embed_one(text) for text in reversed(texts)][::-1]
    for row, vector, kept in zip(expected, first, again):
        assert np.array_equal(row, vector) and np.array_equal(row, kept)


def test_one_text_embeds_as_in_a_batch():
    texts = ["  Who makes\ntheir own   accelerators? ", "ZeRO-3 offload (DeepSpeed)", "日本語のテキスト", ""]
    batch = vectors.encoder().embed(texts)
    for text, row in zip(texts, batch):
        assert np.array_equal(vectors.encoder().embed_one(text), row)


def test_the_words_a_query_encoder_keeps_are_bounded():
    encoder = vectors.encoder()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(vectors, "QUERY_WORDS_KEPT", 8)
        patch.setattr(encoder, "_word_vectors", {})
        for n in range(40):
            vector = encoder.embed_one(f"word{n} other{n}")
            assert len(encoder._word_vectors) <= 8
            assert np.array_equal(vector, encoder.embed([f"word{n} other{n}"])[0])
        # A text with a kept word and new ones, arriving when the kept words are forgotten, is whole.
        for n in range(40):
            text = f"shared word{n} shared"
            assert np.array_equal(encoder.embed_one(text), encoder.embed([text])[0])
            assert len(encoder._word_vectors) <= 8


def _embed_word_by_word(texts: list[str]) -> np.ndarray:
    """The definition Encoder.embed computes in bulk: each word tokenised alone, float32 sums in order."""
    encoder = vectors.encoder()
    out = np.zeros((len(texts), vectors.DIM), dtype=np.float32)
    for row, text in zip(out, texts):
        for word in text.split():
            word_vector = np.zeros(vectors.DIM, dtype=np.float32)
            for piece in encoder.tokenizer.encode(word, add_special_tokens=False).ids:
                word_vector += encoder.table[piece]
            row += word_vector
    norms = np.linalg.norm(out, axis=1, keepdims=True)  # scaled as embed scales its sums
    return np.divide(out, norms, out=out, where=norms > 0)


WORDS = st.sampled_from(["the", "GPUs", "data-center", "x86_64", "libstdc++", "naïve", "日本語", "▁", "a▁b", "▁▁x", "\u00a0", "😀"])
TEXTS = st.lists(st.lists(WORDS | st.text(max_size=8), max_size=12).map(" ".join), max_size=12)


@settings(max_examples=60, deadline=None)
@given(texts=TEXTS)
@example(texts=["▁ ▁x y▁ ▁▁ x▁▁y", "a▁ b", ""] * 3)
def test_bulk_embedding_equals_embedding_word_by_word(texts):
    # Small batches and runs, so that words and texts cross their bounds.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(vectors, "_BATCH_DOCS", 5)
        patch.setattr(vectors, "_JOINED_WORDS", 3)
        bulk = vectors.encoder().embed(texts)
    assert np.array_equal(bulk, _embed_word_by_word(texts))


def test_no_piece_carries_a_word_mark_after_its_start():
    """What tokenising many words joined by spaces relies on: a piece never spans two words."""
    inside = [piece for piece in vectors.encoder().tokenizer.get_vocab() if vectors.WORD_MARK in piece[1:] and piece.strip(vectors.WORD_MARK)]
    assert inside == []


def test_a_word_that_is_one_piece_of_the_vocabulary_is_tokenised_as_that_piece():
    """What embed_one's look-up in place of the tokenizer relies on, for every such piece of the model."""
    tokenizer = vectors.encoder().tokenizer
    mark = vectors.WORD_MARK
    whole = {piece[1:]: n for piece, n in tokenizer.get_vocab().items()
             if piece.startswith(mark) and piece[1:] and mark not in piece[1:] and len(piece[1:].split()) == 1}
    assert len(whole) > 10_000  # most of the vocabulary's words
    assert [e.ids for e in tokenizer.encode_batch(list(whole), add_special_tokens=False)] == [[n] for n in whole.values()]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1e-6, 0.05, 1.0, 300.0]))
def test_quantised_rows_keep_their_direction(seed, scale):
    rows = np.random.default_rng(seed).standard_normal((20, vectors.DIM)).astype(np.float32) * scale
    rows[3] = 0.0  # a hole stays a hole
    stored = vectors.quantise(rows)
    assert stored.dtype == np.int8 and not stored[3].any()
    unit = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-30)
    cosines = np.array([vectors.cosines(stored[n : n + 1], unit[n])[0] for n in range(len(rows))])
    assert np.all(np.delete(cosines, 3) > 0.9999) and cosines[3] == 0.0
    # Signs survive, but for components that round to zero.
    assert np.array_equal(stored > 0, (rows > 0) & (stored != 0))


def test_cli_builds_without_vectors_and_serve_rebuilds_an_index_of_another_model(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from web.cli import main

    root = tmp_path / "index"
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "--index-dir", str(root), "--no-semantic"])
    assert result.exit_code == 0, result.output
    assert store.read_meta(store.current_path(root))["semantic"] is None
    monkeypatch.setenv("TOPICHUB_INDEX_DIR", str(root))  # serve sets it for gunicorn: restore it after
    monkeypatch.setattr("os.execv", lambda path, args: None)
    serve = ["serve", "--index-dir", str(root), "--port", "8123"]
    old = store.current_id(root)
    assert CliRunner().invoke(main, serve).exit_code == 0 and store.current_id(root) == old  # built without on purpose
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "--index-dir", str(root)])
    assert result.exit_code == 0 and vectors.same_model(store.read_meta(store.current_path(root))["semantic"])
    old = store.current_id(root)
    upgraded = {**vectors.model_info(), "version": "9.9"}  # as after an upgrade of wordllama
    monkeypatch.setattr(vectors, "model_info", lambda: upgraded)
    result = CliRunner().invoke(main, serve)
    assert result.exit_code == 0 and "no vectors of the installed model" in result.output
    assert store.current_id(root) != old


class _EmptiedByAnotherThread(dict):
    """A shared map another thread empties as soon as one is stored or checked (threaded workers share
    a worker's caches): every store keeps only itself, a membership check empties the map after it."""

    def __setitem__(self, key, value):
        self.clear()
        super().__setitem__(key, value)

    def __contains__(self, key):
        found = super().__contains__(key)
        self.clear()
        return found


def test_a_query_vector_is_whole_when_another_thread_empties_the_kept_words():
    # Under gthread workers the kept word vectors are shared: emptied between storing a text's words
    # and reading them back, embed_one raised KeyError (a 500; a QA pass read the code).
    encoder = vectors.encoder()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encoder, "_word_vectors", _EmptiedByAnotherThread())
        for text in ("stargate data centers", "gpu cluster", "gpu gpu cluster"):
            assert np.array_equal(encoder.embed_one(text), encoder.embed([text])[0]), text
