"""Ranking with arrays (search/dense.py) gives the pages ranking with dicts gives, to the last bit."""

from __future__ import annotations

import random

import pytest

from bench.queries import distinct_queries, make_queries
from index.build import build
from search import dense, ranking
from search.params import SearchParams
from search.service import SearchService
from tests.conftest import write_jsonl

ODD = ('"data center" -nvidia', "gpu*", "kuberentes", "gpu gpu gpu tpu", "(gpu OR tpu) AND -google", "a OR b",
       '"mixture of experts" training', "trainium2 deal", "stargate NOT michigan", "title:stargate power",
       "how much did microsoft invest in openai", "data centers in texas and new york with nvidia chips",
       "memory-efficient fine-tuning", "full-stack ownership", "multi-gpu training",
       "stargate europe", "middle east data centers", "data centers in asia")  # a region's places: many small parts


def _page(service: SearchService, params: SearchParams, dense_from: int, monkeypatch) -> dict:
    monkeypatch.setattr(ranking, "DENSE_FROM", dense_from)
    page = service.search(params).to_json()
    page.pop("took_ms")
    return page


def _compare(service: SearchService, queries: list[str], monkeypatch) -> int:
    """Search each query both ways and assert the pages are equal; return how many the arrays ranked."""
    service._results.size = 0  # every search computed
    ranked = []
    real = dense.rank_dense

    def counted(*args, **kwargs):
        ranked.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ranking, "rank_dense", counted)
    for i, q in enumerate(queries):
        params = SearchParams(q=q, explain=i % 7 == 0, per_page=10 + i % 3 * 20)
        with_dicts = _page(service, params, 10**9, monkeypatch)
        with_arrays = _page(service, params, 0, monkeypatch)
        assert with_arrays == with_dicts, q
    return len(ranked)


def test_seed_pages_are_the_same_ranked_with_arrays(index_dir, seed_corpus, monkeypatch):
    service = SearchService(index_dir)
    queries = [*ODD, *make_queries(seed_corpus.records, 150, 21), *distinct_queries(seed_corpus.records, 150, 22)]
    assert _compare(service, queries, monkeypatch) > 0.9 * len(queries)  # the arrays really ranked them


@pytest.fixture(scope="module")
def wide_index(tmp_path_factory):
    """3,000 documents of a small vocabulary: common words match thousands, as at 64k."""
    rng = random.Random(7)
    words = ("cluster power grid cooling rack switch fiber storage network chip memory board gpu tpu "
             "training inference model data center texas michigan energy nuclear solar wind").split()
    rare = [f"name{i}" for i in range(300)]
    docs = [
        {"id": f"d{i}", "title": " ".join(rng.sample(words, 3)),
         "summary": " ".join(rng.choices(words, k=rng.randint(5, 60)) + rng.sample(rare, 2)),
         "topics": rng.sample(["alpha", "beta", "gamma"], rng.randint(1, 2))}
        for i in range(3000)
    ]
    root = tmp_path_factory.mktemp("wide")
    build([write_jsonl(root / "wide.jsonl", docs)], root=root / "index")
    return root / "index", words, rare


def test_wide_pages_are_the_same_ranked_with_arrays(wide_index, monkeypatch):
    index, words, rare = wide_index
    rng = random.Random(8)
    queries = [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(60)]
    queries += [f"{rng.choice(words)} {rng.choice(rare)}" for _ in range(30)]
    queries += ['"power grid" cooling', "gpu OR tpu", "energy -solar", "gpu* texas", "nuclear nuclear wind",
                "power-grid cooling", "data-center texas chip", "gpu-memory board-switch"]
    # Parts matching few documents are summed where they match (dense.Sparse), alone, with each other and
    # with the arrays of common words: the same floats.
    queries += [f"{' OR '.join(rng.sample(rare, 6))} cooling" for _ in range(4)]
    queries += [f"({rng.choice(rare)} OR {rng.choice(rare)} OR power) {rng.choice(words)}" for _ in range(4)]
    service = SearchService(index)
    assert _compare(service, queries, monkeypatch) > 0.9 * len(queries)
    # and at the default threshold the common words' queries take the arrays
    monkeypatch.setattr(ranking, "DENSE_FROM", dense.DENSE_FROM)
    assert service.search(SearchParams(q="power cooling")).total >= dense.DENSE_FROM


def test_a_pasted_paragraph_of_many_words_is_ranked_with_arrays_as_with_dicts(wide_index, monkeypatch):
    """A query of more than 20 concepts sized the coverage table by its largest combination of them
    (2^32 entries for 32: "Unable to allocate 32.0 GiB", a 500 at 64k; 3.7 GB for 29)."""
    index, words, rare = wide_index
    service = SearchService(index)
    # 32 concepts kept (the most the service keeps), the typed order deciding which bit each is.
    pasted = [" ".join(rare[:9] + words), " ".join(words + rare[:9]), " ".join(rare[10:19] + words[::-1])]
    # and of 32 hyphenated words, each with its parts apart: 63 sets of documents earn coverage
    pasted.append(" ".join(f"{a}-{b}" for a, b in zip(words + rare[:8], rare[20:52])))
    assert _compare(service, pasted, monkeypatch) == len(pasted)
    monkeypatch.setattr(ranking, "DENSE_FROM", dense.DENSE_FROM)
    result = service.search(SearchParams(q=pasted[0]))
    assert result.total >= dense.DENSE_FROM and not result.timed_out and result.hits
