"""The semantic signal: query vectors, nearest documents and cosines, offline, with its switch."""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import socket
from pathlib import Path

import numpy as np
import pytest

from index import vectors
from index.build import build
from search import semantic
from search.params import SearchParams
from search.service import SearchService

SAMPLE = Path(__file__).resolve().parent / "data" / "semantic-sample.jsonl"


class NetworkBlocked(OSError):
    """A connection to an address other than loopback was attempted."""


@pytest.fixture()
def no_network(monkeypatch):
    """Refuse, in this process, every socket connection that does not go to a loopback address."""
    attempts: list[object] = []

    def guarded(real):
        def connect(self, address):
            host = address[0] if isinstance(address, tuple) else None
            if self.family in (socket.AF_INET, socket.AF_INET6) and not ipaddress.ip_address(host.split("%")[0]).is_loopback:
                attempts.append(address)
                raise NetworkBlocked(f"network access to {address} refused by the test")
            return real(self, address)
        return connect

    monkeypatch.setattr(socket.socket, "connect", guarded(socket.socket.connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(socket.socket.connect_ex))
    # A name lookup would reach a resolver: none is needed to build or serve.
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: _loopback_only(host, attempts))
    return attempts


_REAL_GETADDRINFO = socket.getaddrinfo


def _loopback_only(host, attempts):
    if host in ("localhost", "127.0.0.1", "::1", None):
        return _REAL_GETADDRINFO(host, 0)
    attempts.append(host)
    raise NetworkBlocked(f"name lookup of {host} refused by the test")


@pytest.fixture(scope="module")
def sample_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("semantic")
    build([SAMPLE], root=root)
    return root


def test_building_and_searching_touch_no_network(no_network, tmp_path):
    with pytest.raises(NetworkBlocked):  # the guard works
        socket.create_connection(("192.0.2.1", 80), timeout=1)
    no_network.clear()
    vectors.encoder.cache_clear()  # load the model again, inside the guard
    build([SAMPLE], root=tmp_path / "index")
    service = SearchService(tmp_path / "index")
    assert service.search(SearchParams(q="sourdough")).hits
    docs = semantic.vectors(service.snapshot())
    assert semantic.nearest(docs, semantic.query_vector("stars and planets"), 1)
    assert no_network == []


def test_the_encoder_gives_wordllamas_own_vectors_loaded_offline(no_network):
    """WordLlama.load from the package folder (where the wheel keeps its tokenizer) gives the same vectors."""
    root_logger = (logging.root.level, list(logging.root.handlers))
    import wordllama  # its __init__ calls logging.basicConfig(level=INFO): undone below
    from wordllama import WordLlama

    logging.root.setLevel(root_logger[0])
    logging.root.handlers[:] = root_logger[1]

    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    texts = ["cheap ways to train big models", "Power for server farms: 10 GW of new data centers", "x"]
    ours = vectors.encoder().embed(texts)
    theirs = model.embed(texts, norm=True)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    assert no_network == []


@pytest.mark.parametrize(("query", "expected"), [
    ("looking at stars and planets", "telescope"),  # shares no word with the document
    ("bread recipe", "sourdough"),
    ("soccer match", "goalkeeper"),
    ("money and loans", "interest-rates"),
])
def test_nearest_finds_a_document_by_meaning(sample_root, query, expected):
    snap = SearchService(sample_root).snapshot()
    (docnum, cosine), *_ = semantic.nearest(semantic.vectors(snap), semantic.query_vector(query), 3)
    assert snap.stored(docnum)["id"] == expected and 0 < cosine <= 1


def test_nearest_is_the_exact_cosine_order_and_respects_among(sample_root):
    snap = SearchService(sample_root).snapshot()
    docs = semantic.vectors(snap)
    query = semantic.query_vector("a garden in summer")
    exact = vectors.cosines(docs.matrix, query)
    live = sorted(np.flatnonzero(docs.live), key=lambda d: (-exact[d], d))
    found = semantic.nearest(docs, query, 10)
    assert [d for d, _ in found] == live  # all of them (k above the count), best first
    assert [c for _, c in found] == pytest.approx([float(exact[d]) for d in live], abs=1e-5)
    among = {live[-1], live[-2], 10_000}  # a number past the last document is ignored
    assert [d for d, _ in semantic.nearest(docs, query, 5, among=among)] == [live[-2], live[-1]]


def test_a_small_snapshot_scores_its_kept_float_rows_as_it_would_its_int8_rows(sample_root):
    """The float32 copy of a small snapshot's rows changes no neighbour and no cosine, to the last bit."""
    docs = semantic.vectors(SearchService(sample_root).snapshot())
    assert docs.small is not None and np.array_equal(docs.small.docnums, np.flatnonzero(docs.live))
    without = dataclasses.replace(docs, small=None)
    for query in ("a garden in summer", "bread recipe", "doctors and patients", "x"):
        vector = semantic.query_vector(query)
        found = semantic.nearest(docs, vector, 100)
        assert found == semantic.nearest(without, vector, 100)
        exact = vectors.cosines(docs.matrix, vector)  # the plain formula, zero rows included
        assert [cosine for _, cosine in found] == [float(exact[docnum]) for docnum, _ in found]


def test_the_coarse_pass_keeps_the_best_documents(sample_root, monkeypatch):
    snap = SearchService(sample_root).snapshot()
    docs = semantic.vectors(snap)
    monkeypatch.setattr(semantic, "COARSE_MIN", 2)
    monkeypatch.setattr(semantic, "EXACT_PER_RESULT", 1)
    monkeypatch.setattr(semantic, "EXACT_UP_TO", 0)
    monkeypatch.setattr(semantic, "HAMMING_WIDEN", 2)
    for query in ("looking at stars and planets", "bread recipe", "doctors and patients"):
        vector = semantic.query_vector(query)
        best = int(np.argmax(vectors.cosines(docs.matrix, vector)))
        assert semantic.nearest(docs, vector, 1)[0][0] == best


def test_the_switch_turns_the_signal_off(sample_root, monkeypatch):
    monkeypatch.setenv("TOPICHUB_SEMANTIC", "0")
    snap = SearchService(sample_root).snapshot()
    assert semantic.query_vector("bread") is None and semantic.vectors(snap) is None
    monkeypatch.setenv("TOPICHUB_SEMANTIC", "1")
    assert semantic.query_vector("bread") is not None and semantic.vectors(snap) is not None


def test_a_query_without_words_has_no_vector(sample_root):
    assert semantic.query_vector("   ") is None


@pytest.mark.parametrize("seed", range(5))
def test_the_coarse_distances_count_what_differs(seed):
    """The popcount passes equal the plain count of differing signs, and the sum of |query| weights there."""
    rng = np.random.default_rng(seed)
    rows = vectors.quantise(rng.standard_normal((40_000, vectors.DIM)).astype(np.float32))
    query = rng.standard_normal(vectors.DIM).astype(np.float32)
    query /= np.linalg.norm(query)
    signs = np.ascontiguousarray(vectors.sign_bits(rows).T)  # word-major, as a snapshot stores them
    differ = (rows > 0) != (query > 0)
    assert np.array_equal(semantic._hamming(signs, vectors.sign_bits(query)), differ.sum(axis=1))
    weight = np.rint(np.abs(query) / np.abs(query).max() * (2**semantic._WEIGHT_BITS - 1))
    some = np.sort(rng.choice(len(rows), 3000, replace=False))
    expected = (differ[some] * weight).sum(axis=1)
    assert np.array_equal(semantic._weighted_distance(signs[:, some], query, vectors.sign_bits(query)), expected)


def _generated(seed: int, rows: int = 20_000, topics: int = 400) -> tuple[vectors.DocVectors, np.ndarray]:
    """Return int8 document vectors that mix two of *topics* each (a few zero rows among them) and 30 unit queries."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((topics, vectors.DIM)).astype(np.float32)
    first, second = rng.integers(topics, size=(2, rows))
    mix = rng.random((rows, 1)).astype(np.float32)
    noise = rng.standard_normal((rows, vectors.DIM)).astype(np.float32)
    data = mix * centres[first] + (1 - mix) * centres[second] + 1.3 * noise
    matrix = vectors.quantise(data / np.linalg.norm(data, axis=1, keepdims=True))
    matrix[rng.choice(rows, 50, replace=False)] = 0  # holes: deleted documents, texts without words
    docs = vectors.DocVectors.of(matrix, np.ascontiguousarray(vectors.sign_bits(matrix).T))
    queries = centres[:30] + 0.5 * centres[30:60] + rng.standard_normal((30, vectors.DIM)).astype(np.float32)
    return docs, queries / np.linalg.norm(queries, axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(3))
def test_the_coarse_passes_keep_most_of_the_exact_nearest(seed):
    """Past EXACT_UP_TO rows nearest is approximate: it keeps at least 92 of the exact 100 on average."""
    docs, queries = _generated(seed)
    live = np.flatnonzero(docs.live)
    kept = []
    for query in queries:
        exact = vectors.cosines(docs.matrix[live], query)
        best = set(live[np.argsort(-exact, kind="stable")[:100]].tolist())
        found = semantic.nearest(docs, query, 100)
        assert len(found) == 100 and all(docs.live[d] for d, _ in found)
        assert [c for _, c in found] == sorted((c for _, c in found), reverse=True)
        kept.append(len(best & {d for d, _ in found}))
    assert np.mean(kept) >= 92


@pytest.mark.parametrize("seed", range(5))
def test_the_hamming_cut_keeps_every_row_as_near_as_the_countth(seed):
    rng = np.random.default_rng(seed)
    distance = rng.binomial(256, rng.uniform(0.3, 0.5), size=rng.integers(5_000, 70_000)).astype(np.uint16)
    count = int(rng.integers(1, 4_000))
    cut = np.sort(distance)[count - 1]
    assert np.array_equal(semantic._within(distance, count), np.flatnonzero(distance <= cut))
