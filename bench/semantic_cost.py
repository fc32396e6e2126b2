"""What the semantic signal costs at 64k documents, on against off (issue 17).

``compare`` is the part of ``make bench`` that answers the issue's question (``python -m bench.run
--only semantic-64k`` runs it alone): the Debian corpus built twice, with vectors and with
``TOPICHUB_SEMANTIC=0``, then for each

- the build: documents/s and CPU seconds; the snapshot's size on disk;
- unique queries in-process (``SearchService.search``, the result cache off): p50 and p95, wall and
  CPU, in alternating rounds (off, on, on, off, ...), each round a fresh service; the median round;
- the memory of a gunicorn worker that answered the same unique HTTP requests (wrk): RSS, PSS, USS,
  and its anonymous and file-backed parts.

``python -m bench.semantic_cost INDEX_DIR`` on an index built with vectors prints where the
per-query time goes (the query's vector, the nearest documents, exact cosines) and how many of the
exact 100 nearest the coarse passes keep (all of them, and those above the meaning term's floor).
``--interleaved`` instead times each query on a service with the signal off and one with it on, one
right after the other, in alternating order, for a few rounds: the load of a shared machine then
falls on both sides alike, and the median of the per-query differences says what the signal costs.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bench import positional
from bench.queries import api_paths, make_queries
from bench.rss_probe import DEBIAN, memory_mb
from bench.servers import SERVICE_APP, gunicorn
from corpus.jsonl import load_jsonl
from index import vectors
from search import ranking, semantic
from search.params import SearchParams
from search.service import SearchService

SIDES = ("off", "on")
ROUNDS = 3  # alternating; the median round is reported (the machine is shared)
WARMUP = 30
# Both servers answer the same unique requests before their memory is read (caches grow with them).
MEMORY_REQUESTS = 300  # per wrk thread
MEMORY_SECONDS = 25  # enough for them at 64k on a busy machine; wrk says how many were answered


@contextmanager
def switched(side: str) -> Iterator[None]:
    """Run the block with the semantic signal *side* ("on" or "off")."""
    before = os.environ.get(vectors.SWITCH)
    os.environ[vectors.SWITCH] = "1" if side == "on" else "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(vectors.SWITCH, None)
        else:
            os.environ[vectors.SWITCH] = before


def _build(side: str, target: Path, procs: int) -> dict[str, object]:
    """Build the Debian corpus into *target* with the signal *side*, in a fresh process; return its figures."""
    from bench.run import build  # bench.run calls compare: imported here, not at the top

    with switched(side):
        return build("service", target, (DEBIAN,), procs)


def _percentile(values: list[float], cut: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * cut))]


def time_queries(index: Path, side: str, queries: list[str], warmup: list[str]) -> dict[str, float]:
    """Return p50 and p95 (wall and CPU ms) of *queries*, each once, on a fresh service with the signal *side*."""
    with switched(side):
        service = SearchService(index)
        service._results.size = 0  # every query computed, none answered from the result cache
        for q in warmup:
            service.search(SearchParams(q=q))
        wall, cpu = [], []
        for q in queries:
            started, started_cpu = time.perf_counter(), time.thread_time()
            service.search(SearchParams(q=q)).to_json()
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
    return {"p50": statistics.median(wall), "p95": _percentile(wall, 0.95),
            "cpu_p50": statistics.median(cpu), "cpu_p95": _percentile(cpu, 0.95)}


def worker_memory(index: Path, side: str, paths: list[str], work: Path, args) -> dict[str, object]:
    """Serve *index* with the signal *side* under gunicorn, load it with *paths*; return its worker's memory.

    One worker, so that it answers every request: with two, one gevent worker often takes all of
    wrk's connections and the other never builds its per-snapshot caches, which made the figures
    depend on who got what.  Pages of mapped files (the vectors, the model's table) count in its
    RSS in full; more workers would share them (PSS divides them among the workers).
    """
    from bench.run import wrk

    env = {"TOPICHUB_INDEX_DIR": str(index), vectors.SWITCH: "1" if side == "on" else "0"}
    with gunicorn(SERVICE_APP, env, 1, work / f"gunicorn-semantic-{side}.log") as server:
        load = wrk(server.base, paths, work, f"semantic-{side}", max(args.duration, MEMORY_SECONDS), args.wrk_threads,
                   args.wrk_connections, max_requests=MEMORY_REQUESTS)
        (worker,) = [memory_mb(pid) for pid in server.worker_pids()]
    return {"worker": worker, "requests": load["requests"], "rps": load["rps"], "load_average": load["load_average"]}


def compare(work: Path, args) -> dict[str, object]:
    """Return the cost of the signal at 64k: builds, sizes, in-process latency and worker memory, off and on."""
    records = list(load_jsonl(DEBIAN))
    queries = make_queries(records, args.queries, args.seed)
    timed = set(queries)
    warmup = [q for q in make_queries(records, 3 * WARMUP, args.seed + 100) if q not in timed][:WARMUP]
    paths = api_paths(make_queries(records, 20000, args.seed + 1))
    del records
    indexes = {side: work / f"semantic-{side}-index" for side in SIDES}
    out: dict[str, object] = {"queries": len(queries), "rounds": ROUNDS, "load_average_at_start": list(os.getloadavg())}
    print("[bench] semantic-64k: building with vectors and without", file=sys.stderr, flush=True)
    out["build"] = {side: _build(side, indexes[side], args.procs) for side in SIDES}
    print(f"[bench] semantic-64k: {ROUNDS} alternating rounds of {len(queries)} queries", file=sys.stderr, flush=True)
    rounds: dict[str, list[dict[str, float]]] = {side: [] for side in SIDES}
    for n in range(ROUNDS):
        for side in SIDES if n % 2 == 0 else SIDES[::-1]:
            rounds[side].append(time_queries(indexes[side], side, queries, warmup))
    out["search_ms"] = {side: {cut: round(statistics.median(r[cut] for r in rounds[side]), 2) for cut in rounds[side][0]}
                        for side in SIDES}
    out["search_rounds"] = rounds
    if not args.skip_http:
        print("[bench] semantic-64k: worker memory under gunicorn", file=sys.stderr, flush=True)
        out["memory"] = {side: worker_memory(indexes[side], side, paths, work, args) for side in SIDES}
    out["load_average_at_end"] = list(os.getloadavg())
    return out


# -- where the time goes (python -m bench.semantic_cost INDEX_DIR) ------------------------------


def _timed(func: Callable[..., object], *args: object) -> tuple[object, float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    result = func(*args)
    return result, time.perf_counter() - wall, time.thread_time() - cpu


def main(index_dir: str) -> None:
    """Print the per-query cost of each semantic step, and what the coarse passes keep, on *index_dir*."""
    records = list(load_jsonl(DEBIAN))
    queries = make_queries(records, 300, 7)
    del records
    base = memory_mb()
    with switched("on"):
        service = SearchService(index_dir)
        service.search(SearchParams(q="python library"))
        docs = semantic.vectors(service.snapshot())
    if docs is None:
        raise SystemExit(f"{index_dir} has no vectors of the installed model")
    loaded = memory_mb()
    pool = ranking.SEMANTIC_POOL
    rows = np.sort(np.random.default_rng(7).choice(np.flatnonzero(docs.live), semantic.COARSE_MIN, replace=False))  # as nearest: live ones
    costs = {"query_vector": [0.0, 0.0], f"nearest k={pool}": [0.0, 0.0], f"cosines of {len(rows):,} rows": [0.0, 0.0]}
    kept = []
    kept_above = [0, 0]
    for q in queries:
        with switched("on"):
            vector, wall, cpu = _timed(semantic.query_vector, q)
        costs["query_vector"][0] += wall
        costs["query_vector"][1] += cpu
        if vector is None:
            continue
        found, wall, cpu = _timed(semantic.nearest, docs, vector, pool)
        costs[f"nearest k={pool}"][0] += wall
        costs[f"nearest k={pool}"][1] += cpu
        _, wall, cpu = _timed(semantic._cosines, docs, vector, rows)
        costs[f"cosines of {len(rows):,} rows"][0] += wall
        costs[f"cosines of {len(rows):,} rows"][1] += cpu
        live = np.flatnonzero(docs.live)
        cosines = semantic._cosines(docs, vector, live)
        best = np.argsort(-cosines, kind="stable")[:pool]
        found_docs = {d for d, _ in found}
        kept.append(len(set(live[best].tolist()) & found_docs))
        above = set(live[best[cosines[best] > ranking.SEMANTIC_FLOOR]].tolist())  # those that earn the meaning term
        kept_above[0] += len(above & found_docs)
        kept_above[1] += len(above)
    print(f"{len(docs.live):,} rows, {int(docs.live.sum()):,} with a vector; {len(queries)} queries")
    for name, (wall, cpu) in costs.items():
        print(f"  {name:<28} {wall / len(queries) * 1000:7.2f} ms wall, {cpu / len(queries) * 1000:7.2f} ms CPU a query")
    print(f"  the coarse passes keep {np.mean(kept):.1f} of the exact {pool} nearest on average (min {min(kept)}); "
          f"of those above the floor ({ranking.SEMANTIC_FLOOR}), {kept_above[0]:,} of {kept_above[1]:,}")
    print(f"memory, MB: {base} before; {loaded} after a search with vectors and model; {memory_mb()} after the queries")


def interleaved(index_dir: str, rounds: int = 3) -> None:
    """Print the CPU p50 of 300 unique queries with the signal off and on, each query timed on both in turn."""
    records = list(load_jsonl(DEBIAN))
    queries = make_queries(records, 300, 7)
    warmup = [q for q in make_queries(records, 3 * WARMUP, 107) if q not in set(queries)][:WARMUP]
    del records
    cpu: dict[str, list[list[float]]] = {side: [[] for _ in queries] for side in SIDES}
    for n in range(rounds):
        services = {}
        for side in SIDES:
            with switched(side):
                services[side] = SearchService(index_dir)
                services[side]._results.size = 0  # every query computed, none answered from the result cache
                for q in warmup:
                    services[side].search(SearchParams(q=q))
        for i, q in enumerate(queries):
            for side in SIDES if (i + n) % 2 == 0 else SIDES[::-1]:
                with switched(side):
                    started = time.thread_time()
                    services[side].search(SearchParams(q=q)).to_json()
                    cpu[side][i].append((time.thread_time() - started) * 1000)
    each = {side: [statistics.median(times) for times in cpu[side]] for side in SIDES}
    p50 = {side: statistics.median(each[side]) for side in SIDES}
    extra = statistics.median(on - off for on, off in zip(each["on"], each["off"]))
    print(f"{len(queries)} queries, {rounds} rounds, CPU ms: p50 off {p50['off']:.2f}, on {p50['on']:.2f} "
          f"({p50['on'] / p50['off']:.3f}x); the median query costs {extra:+.2f} ms more with the signal on; "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    index_dir = positional(sys.argv[1:], "bench.semantic_cost DIR [--interleaved]")[0]
    if "--interleaved" in sys.argv[2:]:
        interleaved(index_dir)
    else:
        main(index_dir)
