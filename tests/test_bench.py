"""The speed benchmark's own correctness: both sides do the same work, and its helpers tell the truth."""

from __future__ import annotations

import json
import random
import re

import pytest

from bench import fts5
from bench import run as bench_run
from bench.queries import distinct_queries, make_queries, repeated_mix
from bench.reference_app import create_app as create_reference_app
from bench.run import count_differences, markdown, percentiles, semantic_markdown
from corpus.sources import load_corpus
from index.build import build
from search.params import SearchParams
from search.service import SearchService
from tests.conftest import write_jsonl

# Words on which Whoosh's Porter2 and FTS5's Porter stemmers agree, so counts must match exactly.
WORDS = "cluster power grid cooling rack switch fiber storage network chip memory board".split()


def _doc(i: int, title: str, summary: str, topics: list[str], entities: list[str] | None = None) -> dict:
    return {"id": f"d{i}", "title": title, "summary": summary, "topics": topics, "entities": entities or []}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A corpus of plain words, indexed by the service and by FTS5."""
    rng = random.Random(3)
    docs = [
        _doc(i, " ".join(rng.sample(WORDS, 2)), " ".join(rng.choices(WORDS, k=12)),
             rng.sample(["alpha", "beta", "gamma"], rng.randint(1, 2)), rng.sample(["acme", "zenith"], rng.randint(0, 1)))
        for i in range(60)
    ]
    # Loading strips real tags (<b>); what only looks like one (<x-evil>) stays, as text both sides must escape.
    docs.append(_doc(60, "Rack <x-evil>alert(1)</x-evil> notes", "A rack & a <b>switch</b> at the edge.", ["alpha"]))
    base = tmp_path_factory.mktemp("tiny")
    source = write_jsonl(base / "tiny.jsonl", docs)
    build([source], base / "index", semantic=False)  # the reference counts words only
    db = base / "tiny.fts5"
    fts5.create(db, load_corpus([source]).records)
    conn = fts5.connect(db)
    yield SearchService(base / "index"), conn, db
    conn.close()


QUERIES = ["cluster", "power grid", "cooling rack switch", '"power grid"', "fiber memory", "the rack", "zebra", "rack zebra"]


@pytest.mark.parametrize("text", QUERIES)
def test_both_sides_count_the_same_matches(tiny, text):
    service, conn, _ = tiny
    ours = service.search(SearchParams(q=text)).to_json()
    theirs = fts5.search(conn, text)
    assert theirs["total"] == ours["total"]
    assert theirs["match"] == ours["match"]
    for facet in ("topic", "entity", "kind"):
        assert {v["value"]: v["count"] for v in theirs["facets"][facet]} == {
            v["value"]: v["count"] for v in ours["facets"][facet]
        }


@pytest.mark.parametrize("text", QUERIES)
def test_both_sides_return_the_same_top_ten(tiny, text):
    service, conn, _ = tiny
    ours = service.search(SearchParams(q=text)).to_json()
    theirs = fts5.search(conn, text)
    assert len(theirs["hits"]) == len(ours["hits"]) == min(10, ours["total"])
    assert set(theirs["hits"][0].keys()) <= set(ours["hits"][0].keys()) if ours["hits"] else True
    for hit in theirs["hits"]:
        assert "<mark>" in hit["title_html"] + hit["snippet_html"]


def test_fts5_ranks_documents_with_every_word_first(tiny):
    _, conn, _ = tiny
    result = fts5.search(conn, "cluster zebra rack")
    all_words = set(
        r[0] for r in conn.execute("SELECT d.id FROM fts JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ?",
                                   (fts5.translate("cluster rack").all_words,))
    )
    # "zebra" is in no document: nothing has every word, so every hit is a partial match.
    assert result["match"] == "partial"
    result = fts5.search(conn, "cluster rack")
    ids = [h["id"] for h in result["hits"]]
    flags = [i in all_words for i in ids]
    assert flags == sorted(flags, reverse=True)


def test_fts5_snippets_escape_the_source_text(tiny):
    _, conn, _ = tiny
    hit = next(h for h in fts5.search(conn, "notes")["hits"] if h["id"] == "d60")
    assert "<x-evil>" not in hit["title_html"] and "&lt;x-evil&gt;" in hit["title_html"]
    assert "<b>" not in hit["snippet_html"]
    assert re.sub(r"</?mark>", "", hit["title_html"]).count("<") == 0


@pytest.mark.parametrize("text", ['a"b', '"', "NOT", "AND OR", "x:y", "(", "it's", "*", "-", "the of"])
def test_odd_text_never_breaks_the_fts5_query(tiny, text):
    _, conn, _ = tiny
    result = fts5.search(conn, text)
    words = re.findall(r"\w+", text)
    # Odd punctuation is not syntax: the total is the one the plain words give (none: nothing).
    assert result["total"] == (fts5.search(conn, " ".join(words))["total"] if words else 0)


def test_translate_drops_function_words_unless_nothing_else():
    assert fts5.translate("the cluster").any_words == '"cluster"'
    assert fts5.translate("the").any_words == '"the"'
    assert fts5.translate("US grid").all_words == '"US" AND "grid"'
    assert fts5.translate('"power grid" rack').rest == '("power grid" OR "rack") NOT ("power grid" AND "rack")'


def test_reference_service_answers_with_the_api_fields(tiny, client):
    _, _, db = tiny
    reference = create_reference_app({"FTS5_DB": str(db)}).test_client()
    with reference.get("/api/search?q=rack") as theirs, client.get("/api/search?q=rack") as ours:
        assert theirs.status_code == 200
        missing = set(theirs.json) - set(ours.json)
        assert not missing
        assert set(theirs.json["hits"][0]) <= set(ours.json["hits"][0])
    with reference.get("/api/search?q=" + "x" * 300) as bad:
        assert bad.status_code == 400 and bad.json["error"]["param"] == "q"


def test_queries_are_the_same_for_a_seed_and_found_in_the_corpus(seed_corpus, service):
    first = make_queries(seed_corpus.records, 60, seed=5)
    assert first == make_queries(seed_corpus.records, 60, seed=5)
    assert first != make_queries(seed_corpus.records, 60, seed=6)
    assert len(set(first)) == len(first) == 60
    assert all(1 <= len(q.strip('"').split()) <= 3 for q in first)
    for q in first[:20]:
        assert service.search(SearchParams(q=q)).total >= 1, q


def test_distinct_mix_never_asks_a_query_twice_nor_one_of_the_other_mixes(seed_corpus, service):
    others = make_queries(seed_corpus.records, 300, seed=5)
    distinct = distinct_queries(seed_corpus.records, 30_000, seed=3, exclude=others)
    assert len(distinct) == len(set(distinct)) == 30_000  # enough for a 10 s run at 3,000 requests/s
    assert not set(distinct) & set(others)
    assert distinct == distinct_queries(seed_corpus.records, 30_000, seed=3, exclude=others)
    for q in distinct[:20]:
        assert service.search(SearchParams(q=q)).total >= 1, q


def test_the_report_says_when_the_distinct_mix_asked_a_query_twice():
    def side(rps, wrapped):
        return {"rps": rps, "p50_ms": 1.0, "p99_ms": 9.0, "errors": {}, "wrapped_requests": wrapped,
                "load_average": [1.5, 2.0]}
    build_figures = {"docs_per_second": 1.0, "size_bytes": 1, "peak_rss_mb": 1.0, "peak_rss_children_mb": 0.0}
    ms = {"p50": 1.0, "p95": 1.0, "p99": 1.0, "mean": 1.0}
    results = {
        "command": "python -m bench.run", "settings": {"procs": 2, "workers": 2, "wrk_threads": 1, "wrk_connections": 4, "duration": 10},
        "machine": {"nproc": 2, "cpu": "x", "memory_gb": 1, "python": "3.11", "sqlite": "3", "load_average_at_start": [1.0]},
        "corpora": {"seed": {"docs": 57, "build": {"service": build_figures, "fts5": build_figures},
                             "search": {"queries": 1, "service_ms": ms, "fts5_ms": ms,
                                        "match_counts": {"differ": 0, "queries": 1, "within_5_percent": 0, "examples": []}},
                             "http": {"workers": 2, "service": {"repeated": side(9, 0), "unique": side(9, 0), "distinct": side(800, 12), "worker_rss_mb": 50},
                                      "reference": {"repeated": side(9, 0), "unique": side(9, 0), "distinct": side(1000, 0), "worker_rss_mb": 40}}}},
    }
    table = markdown(results)
    row = next(line for line in table.splitlines() if "HTTP distinct, requests/s" in line)
    assert "800" in row and "1,000" in row and "**missed**" in row and "12 queries asked twice" in row
    assert "| seed | HTTP distinct, load average (1 min) at start → end | 1.50 → 2.00 |" in table
    assert "p99 ≤ 15: met" in next(line for line in table.splitlines() if "HTTP distinct, p50 / p99" in line)


def test_the_semantic_cost_table_puts_off_and_on_side_by_side_against_issue_17s_targets():
    build = {"off": {"docs_per_second": 7000.0, "cpu_seconds": 8.0, "size_bytes": 90e6},
             "on": {"docs_per_second": 5000.0, "cpu_seconds": 12.0, "size_bytes": 127e6}}
    search = {"off": {"p50": 10.0, "p95": 60.0, "cpu_p50": 10.0, "cpu_p95": 60.0},
              "on": {"p50": 11.0, "p95": 70.0, "cpu_p50": 12.0, "cpu_p95": 70.0}}
    worker = {"off": {"rss": 180.0, "pss": 160.0, "uss": 150.0, "anon": 170.0, "file": 10.0},
              "on": {"rss": 250.0, "pss": 190.0, "uss": 160.0, "anon": 180.0, "file": 70.0}}
    cost = {"queries": 300, "rounds": 3, "build": build, "search_ms": search,
            "memory": {side: {"worker": worker[side], "requests": 300} for side in ("off", "on")},
            "load_average_at_start": [1.0, 1.0, 1.0], "load_average_at_end": [2.0, 2.0, 2.0]}
    rows = {line.split(" | ")[0].lstrip("| "): line for line in semantic_markdown(cost) if line.startswith("| ")}
    assert "| 7,000 | 5,000 | 0.71 | ≥ 10,000: **missed** |" in rows["build, documents/s"]
    assert "| 10.00 | 11.00 | 1.1 | ≤ 1.15×: met |" in rows["unique query p50, ms"]
    assert "| 10.00 | 12.00 | 1.2 | ≤ 1.15×: **missed** |" in rows["unique query CPU p50, ms"]
    assert "+70; ≤ +40: **missed**" in rows["the one worker after the same 300 unique requests, RSS MB"]
    assert "+30; ≤ +40: met" in rows["the one worker after the same 300 unique requests, PSS MB"]
    assert "requests answered differ" not in "".join(rows)


def test_repeated_mix_is_dominated_by_a_few_queries():
    mix = repeated_mix([f"q{i}" for i in range(100)], 2000, seed=1, popular=50)
    counts = sorted((mix.count(q) for q in set(mix)), reverse=True)
    assert set(mix) <= {f"q{i}" for i in range(50)}
    assert sum(counts[:5]) > len(mix) / 3


def test_count_differences_reports_the_queries_that_differ_largest_first():
    report = count_differences(["a", "b", "c", "d"], [10, 5, 100, 7], [10, 6, 50, 7])
    assert report["differ"] == 2 and report["queries"] == 4
    assert [e["q"] for e in report["examples"]] == ["c", "b"]


def test_percentiles_of_a_known_distribution():
    cuts = percentiles([float(i) for i in range(1, 101)])
    assert cuts["p50"] == pytest.approx(50.5)
    assert cuts["p99"] == pytest.approx(99.01)
    assert cuts["mean"] == pytest.approx(50.5)


def test_multi_segment_build_answers_like_a_single_segment_one(tmp_path):
    rng = random.Random(11)
    docs = [_doc(i, " ".join(rng.sample(WORDS, 3)), " ".join(rng.choices(WORDS, k=20)), [rng.choice(["x", "y"])])
            for i in range(400)]
    source = write_jsonl(tmp_path / "docs.jsonl", docs)
    one = build([source], tmp_path / "one", procs=1)
    two = build([source], tmp_path / "two", procs=2)
    assert one.doc_count == two.doc_count == 400
    single, multi = SearchService(tmp_path / "one"), SearchService(tmp_path / "two")
    for text in ("cluster", "power grid", "rack fiber chip", ""):
        a, b = single.search(SearchParams(q=text)).to_json(), multi.search(SearchParams(q=text)).to_json()
        assert (a["total"], a["facets"]) == (b["total"], b["facets"])
        # Equal scores may tie in another order across segments; the scores themselves must agree.
        assert [h["score"] for h in a["hits"]] == [h["score"] for h in b["hits"]]
    # Sub-processes number documents in another order; the listing order travels with each document.
    orders = []
    for service in (single, multi):
        searcher = service.snapshot().searcher()
        orders.append({f["id"]: f["order"] for f in searcher.all_stored_fields()})
    assert orders[0] == orders[1]
    assert json.loads((tmp_path / "two" / "current" / "snapshot.json").read_text())["doc_count"] == 400


def test_http_rounds_are_reported_as_their_median_with_each_round_and_unique_queries_against_issue_16():
    def run(rps, p99):
        mix = {"rps": rps, "p50_ms": 1.0, "p90_ms": 2.0, "p99_ms": p99, "mean_ms": 1.0, "requests": 10,
               "errors": {"read": 1}, "wrapped_requests": 0, "load_average": [1.0, 1.2], "worker_cpu_ms": 2000 / rps}
        return {"unique": mix, "worker_rss_mb": 50.0, "worker_memory_mb": {"rss": 50.0, "pss": 40.0, "uss": 30.0}}

    combined = bench_run._combined([run(900.0, 12.0), run(1100.0, 30.0)])
    unique = combined["unique"]
    assert unique["rps"] == 1000.0 and unique["p99_ms"] == 21.0  # the median of two: their mean
    assert unique["rounds_rps"] == [900.0, 1100.0] and unique["requests"] == 20 and unique["errors"] == {"read": 2}
    reference = bench_run._combined([run(1200.0, 5.0), run(1000.0, 5.0)])
    build_figures = {"docs_per_second": 1.0, "size_bytes": 1, "peak_rss_mb": 1.0, "peak_rss_children_mb": 0.0}
    ms = {"p50": 1.0, "p95": 1.0, "p99": 1.0, "mean": 1.0}
    results = {
        "command": "python -m bench.run", "settings": {"procs": 2, "workers": 2, "wrk_threads": 1, "wrk_connections": 4,
                                                       "duration": 10, "rounds": 2},
        "machine": {"nproc": 2, "cpu": "x", "memory_gb": 1, "python": "3.11", "sqlite": "3", "load_average_at_start": [1.0]},
        "corpora": {"seed": {"docs": 57, "build": {"service": build_figures, "fts5": build_figures},
                             "search": {"queries": 1, "service_ms": ms, "fts5_ms": ms,
                                        "match_counts": {"differ": 0, "queries": 1, "within_5_percent": 0, "examples": []}},
                             "http": {"workers": 2, "service": combined, "reference": reference}}},
    }
    table = markdown(results)
    assert "the median of 2 rounds" in table
    row = next(line for line in table.splitlines() if "HTTP unique, requests/s" in line)
    assert "1,000 (900, 1,100)" in row and "1,100 (1,200, 1,000)" in row and "≥ 1× reference: **missed**" in row
    latency = next(line for line in table.splitlines() if "HTTP unique, p50 / p99" in line)
    assert "21.0 (12.0, 30.0)" in latency and "p99 ≤ 15: **missed**" in latency
    # What each request cost the workers, beside the rate the machine's load moves.
    cpu = next(line for line in table.splitlines() if "HTTP unique, the workers' CPU a request" in line)
    assert "2.020 (2.222, 1.818)" in cpu and "1.833 (1.667, 2.000)" in cpu and "| 1.1 |" in cpu


def test_a_round_one_worker_answered_alone_is_marked_and_left_out_of_the_median():
    def run(rps, share):
        mix = {"rps": rps, "p50_ms": 1.0, "p90_ms": 2.0, "p99_ms": 5.0, "mean_ms": 1.0, "requests": 10,
               "errors": {}, "wrapped_requests": 0, "load_average": [1.0, 1.2], "busiest_worker_share": share}
        return {"unique": mix, "worker_rss_mb": 50.0, "worker_memory_mb": {"rss": 50.0}}

    # The reference's run of make bench on 2026-12-02: one round at half speed, one worker at work.
    combined = bench_run._combined([run(1566.0, 0.55), run(819.0, 0.99), run(1847.0, 0.52)])["unique"]
    assert combined["rps"] == (1566.0 + 1847.0) / 2 and combined["pinned_rounds"] == [1]
    assert bench_run._rounds(combined, "rps", ",.0f") == "1,706 (1,566, 819*, 1,847)"
    # Every round pinned: the median of all of them, each marked.
    every = bench_run._combined([run(800.0, 0.98), run(820.0, 0.97), run(790.0, 1.0)])["unique"]
    assert every["rps"] == 800.0 and every["pinned_rounds"] == [0, 1, 2]


@pytest.mark.parametrize("module", ["publish_stall", "rss_probe", "run_together", "semantic_cost", "suggest_eval", "tune"])
def test_a_benchmark_run_without_its_arguments_prints_its_usage(module):
    # "python -m bench.publish_stall" alone printed an IndexError's traceback (a QA pass).
    import subprocess
    import sys
    from pathlib import Path

    run = subprocess.run([sys.executable, "-m", f"bench.{module}"], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parent.parent)
    assert run.returncode == 2 and run.stderr.startswith(f"usage: python -m bench.{module} ") and "Traceback" not in run.stderr
