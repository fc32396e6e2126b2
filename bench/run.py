"""The speed benchmark (issue 7): the service against SQLite FTS5 and a Flask + FTS5 reference service.

One run, on the same documents and the same seeded queries:

1. builds the service's index and an FTS5 database for each corpus, each in a fresh process
   (documents a second, size on disk, peak memory);
2. times the service's own search path, ``SearchService.search`` (top 10, highlighted snippets,
   exact total and facet counts), and FTS5 doing the same work (``bench.fts5``), each query once;
3. loads ``/api/search`` under gunicorn with wrk, for the service and for the reference service
   with the same worker count, with repeated (a few hot queries), unique (a pool of 20,000 drawn
   like the timed ones, rotated) and distinct queries (never asked twice, none from the other mixes,
   so no result cache can answer) reported apart, and the load average at each run's start and end;
4. reads one service worker's memory after that load on the 64k corpus (RSS, and PSS and USS,
   which count the pages workers share, such as the memory-mapped vectors, once);
5. measures what the semantic signal costs at 64k, on against off (``bench.semantic_cost``, issue 17);
6. writes ``bench/results/latest.md`` and ``latest.json`` with the machine and the command line.

Run it with ``make bench`` (``make bench BENCH_ARGS=--large`` adds a 256k-document corpus).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import fts5, semantic_cost
from bench.queries import api_paths, distinct_queries, make_queries, repeated_mix
from bench.rss_probe import memory_mb
from bench.servers import REFERENCE_APP, SERVICE_APP, cpu_times, gunicorn

from corpus.sources import DEFAULT_DIR, load_corpus
from search.params import SearchParams
from search.service import SearchService

REPO = Path(__file__).resolve().parent.parent
DEBIAN = REPO.parent / "shared" / "corpora" / "debian-packages.jsonl.gz"
RESULTS = REPO / "bench" / "results"
LUA = Path(__file__).resolve().parent / "wrk_paths.lua"
WRK = "/usr/bin/wrk"
WARMUP_QUERIES = 30
# A round whose busiest worker did this share of the workers' CPU was answered by it alone (2 workers: 0.5 is even).
PINNED_SHARE = 0.85
UNIQUE_POOL = 20000
DISTINCT_POOL = 40000  # more than a run sends: a distinct query is never asked twice

# Issue 7's targets.
TARGET_LATENCY_RATIO = 3.0
TARGET_BUILD_DOCS_PER_SECOND = 10_000
TARGET_HTTP_RPS = 1000
TARGET_HTTP_P99_MS = 20.0
TARGET_HTTP_VS_REFERENCE = 0.7
TARGET_WORKER_MB = 300
# Issue 16's targets, on queries never asked before.
TARGET_DISTINCT_VS_REFERENCE = 1.0
TARGET_DISTINCT_SEED_P99_MS = 15.0
# Issue 17's targets for the semantic signal at 64k, on against off.
TARGET_SEMANTIC_P50_RATIO = 1.15
TARGET_SEMANTIC_WORKER_GROWTH_MB = 40


@dataclass(frozen=True, slots=True)
class CorpusSpec:
    name: str
    sources: tuple[Path, ...]
    http: bool


def machine() -> dict[str, object]:
    """Return the facts about this machine that numbers depend on."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal:"))
    except (OSError, StopIteration, ValueError):
        mem_kb = 0
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gb": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "sqlite": __import__("sqlite3").sqlite_version,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def percentiles(values: list[float]) -> dict[str, float]:
    """Return p50, p95, p99 and the mean of *values* (milliseconds)."""
    ordered = sorted(values)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else ordered * 99
    return {
        "p50": round(cuts[49], 3),
        "p95": round(cuts[94], 3),
        "p99": round(cuts[98], 3),
        "mean": round(statistics.fmean(ordered), 3),
    }


def _large_copy(work: Path, copies: int = 4) -> Path:
    """Write *copies* copies of the 64k corpus (ids made distinct) and return the file."""
    target = work / f"debian-x{copies}.jsonl.gz"
    with gzip.open(DEBIAN, "rt", encoding="utf-8") as src:
        lines = [json.loads(line) for line in src if line.strip()]
    with gzip.open(target, "wt", encoding="utf-8", compresslevel=1) as out:
        for copy in range(copies):
            for obj in lines:
                out.write(json.dumps({**obj, "id": f"{obj['id']}-{copy}"}) + "\n")
    return target


def build(engine: str, target: Path, sources: tuple[Path, ...], procs: int) -> dict[str, object]:
    """Build one index in a fresh process; return its figures."""
    args = [sys.executable, "-m", "bench.build_worker", engine, str(target), *map(str, sources), "--procs", str(procs)]
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{engine} build failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def time_service(index_root: Path, queries: list[str], warmup: list[str]) -> tuple[list[float], list[int], list[int]]:
    """Return per-query milliseconds, totals and hit counts of SearchService.search."""
    service = SearchService(index_root)
    for q in warmup:
        service.search(SearchParams(q=q))
    times, totals, hits = [], [], []
    for q in queries:
        started = time.perf_counter()
        result = service.search(SearchParams(q=q))
        result.to_json()
        times.append((time.perf_counter() - started) * 1000)
        totals.append(result.total)
        hits.append(len(result.hits))
    return times, totals, hits


def time_fts5(db: Path, queries: list[str], warmup: list[str]) -> tuple[list[float], list[int], list[int]]:
    """Return per-query milliseconds, totals and hit counts of FTS5 doing the same work."""
    conn = fts5.connect(db)
    try:
        for q in warmup:
            fts5.search(conn, q)
        times, totals, hits = [], [], []
        for q in queries:
            started = time.perf_counter()
            result = fts5.search(conn, q)
            fts5.dumps(result)
            times.append((time.perf_counter() - started) * 1000)
            totals.append(int(result["total"]))
            hits.append(len(result["hits"]))
        return times, totals, hits
    finally:
        conn.close()


def count_differences(queries: list[str], ours: list[int], theirs: list[int]) -> dict[str, object]:
    """Return how many queries' match counts differ between the two sides, with examples."""
    differ = [(q, a, b) for q, a, b in zip(queries, ours, theirs) if a != b]
    differ.sort(key=lambda item: -abs(item[1] - item[2]))
    return {
        "queries": len(queries),
        "differ": len(differ),
        "within_5_percent": sum(1 for _, a, b in differ if abs(a - b) <= 0.05 * max(a, b)),
        "examples": [{"q": q, "service": a, "fts5": b} for q, a, b in differ[:8]],
    }


def wrk(base: str, paths: list[str], work: Path, label: str, duration: int, threads: int, connections: int,
        max_requests: int | None = None) -> dict[str, object]:
    """Run wrk against *base* rotating through *paths*; return requests/s and latency (ms).

    With *max_requests*, each wrk thread stops after that many responses.
    """
    path_file = work / f"paths-{label}.txt"
    path_file.write_text("\n".join(paths) + "\n", encoding="utf-8")
    env = {**os.environ, "BENCH_PATHS": str(path_file), "BENCH_THREADS": str(threads)}
    if max_requests:
        env["BENCH_MAX_REQUESTS"] = str(max_requests)
    load_before = os.getloadavg()[0]
    done = subprocess.run(
        [WRK, f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--timeout", "10s", "-s", str(LUA), base],
        env=env, capture_output=True, text=True, check=True,
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("{"))
    raw = json.loads(line)
    seconds = raw["duration_us"] / 1e6
    lat = raw["latency_us"]
    return {
        "requests": raw["requests"],
        "rps": round(raw["requests"] / seconds, 1),
        "p50_ms": round(lat["p50"] / 1000, 2),
        "p90_ms": round(lat["p90"] / 1000, 2),
        "p99_ms": round(lat["p99"] / 1000, 2),
        "mean_ms": round(lat["mean"] / 1000, 2),
        "errors": raw["errors"],
        "distinct_paths": len(set(paths)),
        # Requests beyond the list went round it again (for the distinct mix: asked a second time).
        "wrapped_requests": max(0, raw["requests"] - len(paths)),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],  # 1-minute, at start and end
    }


def http(spec: CorpusSpec, index_root: Path, db: Path, records, args, work: Path) -> dict[str, object]:
    """Load both services with the repeated and the unique mix; return the figures."""
    queries = make_queries(records, UNIQUE_POOL, args.seed + 1)
    mixes = {
        "repeated": api_paths(repeated_mix(queries, 5000, args.seed + 2)),
        "unique": api_paths(queries),
        "distinct": api_paths(distinct_queries(records, args.distinct, args.seed + 3, exclude=queries)),
    }
    targets = {
        "service": (SERVICE_APP, {"TOPICHUB_INDEX_DIR": str(index_root)}),
        "reference": (REFERENCE_APP, {"BENCH_FTS5_DB": str(db)}),
    }
    out: dict[str, object] = {"workers": args.workers, "rounds": args.rounds,
                              "wrk": {"threads": args.wrk_threads, "connections": args.wrk_connections,
                                      "duration_s": args.duration}}
    rounds: dict[str, list[dict[str, object]]] = {side: [] for side in targets}
    # Rounds alternate which side goes first (service, reference; reference, service; ...): a drift
    # of the machine over the run (another process, the page cache, the CPU's clock) then weighs on
    # both sides alike.  Each round starts fresh servers, so its unique and distinct queries are new
    # to them.
    for number in range(args.rounds):
        order = list(targets) if number % 2 == 0 else list(reversed(targets))
        for side in order:
            app, env = targets[side]
            rounds[side].append(_load(server_args(app, env, args, work / f"gunicorn-{spec.name}-{side}.log"),
                                      mixes, queries, work, f"{spec.name}-{side}-{number}", args))
    for side, runs in rounds.items():
        out[side] = _combined(runs)
    return out


def server_args(app: str, env: dict[str, str], args: argparse.Namespace, log: Path) -> dict[str, object]:
    extra = ("--worker-class", args.worker_class) if args.worker_class else ()
    return {"app": app, "env": env, "workers": args.workers, "log_path": log, "extra_args": extra}


def _load(server: dict[str, object], mixes: dict[str, list[str]], queries: list[str], work: Path, label: str,
          args: argparse.Namespace) -> dict[str, object]:
    """Serve one side, warm it, run every mix through wrk; return the figures and a worker's memory after."""
    with gunicorn(**server) as running:
        warm = api_paths(queries[-WARMUP_QUERIES:])
        wrk(running.base, warm, work, f"{label}-warm", 2, args.wrk_threads, args.wrk_connections)
        figures: dict[str, object] = {}
        pids = running.worker_pids()
        for mix, paths in mixes.items():
            before = [sum(cpu_times(pid)) for pid in pids]
            figures[mix] = wrk(running.base, paths, work, f"{label}-{mix}", args.duration,
                               args.wrk_threads, args.wrk_connections)
            used = [sum(cpu_times(pid)) - start for pid, start in zip(pids, before)]
            # wrk's connections are at times all taken by one worker (docs/performance.md): say so.
            figures[mix]["busiest_worker_share"] = round(max(used) / sum(used), 2) if sum(used) > 0 else None
            # The workers' user + system CPU a request: what the app costs, whatever else the machine
            # ran meanwhile (wrk shares its cores), where requests/s move with the machine's load.
            figures[mix]["worker_cpu_ms"] = round(sum(used) / max(1, int(figures[mix]["requests"])) * 1e3, 3)
        worker = max((memory_mb(pid) for pid in running.worker_pids()), key=lambda m: m["rss"])
        figures["worker_rss_mb"] = worker["rss"]
        figures["worker_memory_mb"] = worker  # RSS, PSS, USS, anonymous and file-backed
    return figures


def _combined(runs: list[dict[str, object]]) -> dict[str, object]:
    """Return one side's figures over its rounds: the median of each rate and latency, every round's
    requests/s and p99 kept (``rounds_rps``, ``rounds_p99_ms``), the load average from the first
    round's start to the last round's end, and the memory of the last round's worker."""
    if len(runs) == 1:
        return runs[0]
    out: dict[str, object] = {"worker_rss_mb": runs[-1]["worker_rss_mb"], "worker_memory_mb": runs[-1]["worker_memory_mb"]}
    for mix in runs[0]:
        if mix.startswith("worker_"):
            continue
        each = [run[mix] for run in runs]
        merged = dict(each[-1])
        # A round one worker answered alone (its connections all went to it) measures the accept
        # queue's luck, not the app: the medians leave it out when any round was spread over them.
        spread = [e for e in each if not _pinned(e)] or each
        for key in ("rps", "p50_ms", "p90_ms", "p99_ms", "mean_ms"):
            merged[key] = round(statistics.median(e[key] for e in spread), 2)
        if all("worker_cpu_ms" in e for e in each):  # results written before it was measured lack it
            merged["worker_cpu_ms"] = round(statistics.median(e["worker_cpu_ms"] for e in spread), 3)
            merged["rounds_worker_cpu_ms"] = [e["worker_cpu_ms"] for e in each]
        merged["pinned_rounds"] = [i for i, e in enumerate(each) if _pinned(e)]
        merged["requests"] = sum(e["requests"] for e in each)
        merged["wrapped_requests"] = max(e["wrapped_requests"] for e in each)
        merged["errors"] = {k: sum(e["errors"].get(k, 0) for e in each) for k in each[0]["errors"]}
        merged["load_average"] = [each[0]["load_average"][0], each[-1]["load_average"][1]]
        merged["rounds_rps"] = [e["rps"] for e in each]
        merged["rounds_p99_ms"] = [e["p99_ms"] for e in each]
        out[mix] = merged
    return out


def _pinned(figures: dict[str, object]) -> bool:
    """Return whether one worker did nearly all of a round's work (PINNED_SHARE of the workers' CPU)."""
    share = figures.get("busiest_worker_share")
    return isinstance(share, (int, float)) and share >= PINNED_SHARE


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None


def run(args: argparse.Namespace) -> dict[str, object]:
    """Run every part of the benchmark; return the results."""
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="topichub-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    specs = [CorpusSpec("seed", (DEFAULT_DIR,), True)]
    if DEBIAN.exists():
        specs.append(CorpusSpec("debian-64k", (DEBIAN,), True))
        if args.large:
            specs.append(CorpusSpec("debian-256k", (_large_copy(work),), False))
    else:  # a bare clone: the large corpus lives beside the repository, in ../shared
        print(f"[bench] {DEBIAN} is not there: only the seed corpus is measured", file=sys.stderr, flush=True)
    if args.only:
        specs = [spec for spec in specs if spec.name in args.only]
    results: dict[str, object] = {
        "command": " ".join(shlex.quote(a) for a in [Path(sys.executable).name, "-m", "bench.run", *sys.argv[1:]]),
        "machine": machine(),
        "settings": {k: v for k, v in vars(args).items() if k not in ("workdir", "out")},
        "corpora": {},
    }
    try:
        for spec in specs:
            print(f"[bench] {spec.name}: building", file=sys.stderr, flush=True)
            index_root, db = work / f"{spec.name}-index", work / f"{spec.name}.fts5"
            builds = {
                "service": build("service", index_root, spec.sources, args.procs),
                "fts5": build("fts5", db, spec.sources, 1),
            }
            records = load_corpus(spec.sources).records
            queries = make_queries(records, args.queries, args.seed)
            timed = set(queries)
            warmup = [q for q in make_queries(records, 3 * WARMUP_QUERIES, args.seed + 100) if q not in timed]
            warmup = warmup[:WARMUP_QUERIES]
            print(f"[bench] {spec.name}: timing {len(queries)} queries", file=sys.stderr, flush=True)
            s_times, s_totals, s_hits = time_service(index_root, queries, warmup)
            f_times, f_totals, f_hits = time_fts5(db, queries, warmup)
            corpus_out: dict[str, object] = {
                "docs": builds["service"]["docs"],
                "build": builds,
                "search": {
                    "queries": len(queries),
                    "phrases": sum(q.startswith('"') for q in queries),
                    "service_ms": percentiles(s_times),
                    "fts5_ms": percentiles(f_times),
                    "match_counts": count_differences(queries, s_totals, f_totals),
                    "hits_returned": {"service": sum(s_hits), "fts5": sum(f_hits)},
                },
            }
            if spec.http and not args.skip_http:
                print(f"[bench] {spec.name}: HTTP load", file=sys.stderr, flush=True)
                corpus_out["http"] = http(spec, index_root, db, records, args, work)
            results["corpora"][spec.name] = corpus_out
        if DEBIAN.exists() and (not args.only or "semantic-64k" in args.only):
            results["semantic"] = semantic_cost.compare(work, args)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return results


def _verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def markdown(results: dict[str, object]) -> str:
    """Return the results as a Markdown table, ratios and targets included."""
    m = results["machine"]
    lines = [
        "# Speed benchmark: the service against SQLite FTS5",
        "",
        f"Command: `{results['command']}`  ",
        f"Machine: {m['nproc']} CPUs ({m['cpu']}), {m['memory_gb']} GB, Python {m['python']}, "
        f"SQLite {m['sqlite']}, load average at start {m['load_average_at_start']}"
        f"{', at end ' + str(m['load_average_at_end']) if 'load_average_at_end' in m else ''}  ",
        f"Build processes: {results['settings']['procs']}; "
        f"gunicorn workers: {results['settings']['workers']}; wrk: {results['settings']['wrk_threads']} thread(s), "
        f"{results['settings']['wrk_connections']} connections, {results['settings']['duration']} s a run"
        + (f"; HTTP figures: the median of {results['settings']['rounds']} rounds (each in brackets), "
           "the side going first alternating; a round marked * was answered by one worker alone (it did "
           f"≥ {PINNED_SHARE:.0%} of the workers' CPU: wrk's connections all went to it) and is left out of "
           "the median when another round was not" if results["settings"].get("rounds", 1) > 1 else ""),
        "",
        "| corpus | figure | service | FTS5 / reference | ratio | target |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, c in results["corpora"].items():
        b = c["build"]
        s, f = b["service"], b["fts5"]
        is_target = name == "debian-64k"
        lines.append(f"| {name} ({c['docs']:,} docs) | build, documents/s | {s['docs_per_second']:,.0f} | "
                     f"{f['docs_per_second']:,.0f} | {ratio(s['docs_per_second'], f['docs_per_second'])} | "
                     + (f"≥ {TARGET_BUILD_DOCS_PER_SECOND:,}: {_verdict(s['docs_per_second'] >= TARGET_BUILD_DOCS_PER_SECOND)}" if is_target else "") + " |")
        lines.append(f"| {name} | index size, MB | {s['size_bytes'] / 1e6:.1f} | {f['size_bytes'] / 1e6:.1f} | "
                     f"{ratio(s['size_bytes'], f['size_bytes'])} | |")
        s_peak = s["peak_rss_mb"] + s["peak_rss_children_mb"]
        lines.append(f"| {name} | build peak memory, MB (process + indexing subprocesses) | "
                     f"{s['peak_rss_mb']:.0f} + {s['peak_rss_children_mb']:.0f} | {f['peak_rss_mb']:.0f} | "
                     f"{ratio(s_peak, f['peak_rss_mb'])} | |")
        q = c["search"]
        for cut in ("p50", "p95", "p99", "mean"):
            sv, fv = q["service_ms"][cut], q["fts5_ms"][cut]
            target = ""
            if is_target and cut in ("p50", "p95"):
                target = f"≤ {TARGET_LATENCY_RATIO:g}×: {_verdict(sv <= TARGET_LATENCY_RATIO * fv)}"
            lines.append(f"| {name} | search {cut}, ms ({q['queries']} queries) | {sv:.2f} | {fv:.2f} | "
                         f"{ratio(sv, fv)} | {target} |")
        mc = q["match_counts"]
        lines.append(f"| {name} | queries whose match counts differ | {mc['differ']} of {mc['queries']} "
                     f"({mc['within_5_percent']} within 5%) | | | |")
        h = c.get("http")
        if h:
            for mix in ("repeated", "unique", "distinct"):
                if mix not in h["service"]:
                    continue  # results written before the distinct mix existed
                sv, rv = h["service"][mix], h["reference"][mix]
                rps_target = p99_target = ""
                if mix == "repeated" and name == "seed":  # issue 7's
                    rps_ok = sv["rps"] >= TARGET_HTTP_RPS and sv["rps"] >= TARGET_HTTP_VS_REFERENCE * rv["rps"]
                    rps_target = (f"≥ {TARGET_HTTP_RPS:,} and ≥ {TARGET_HTTP_VS_REFERENCE}× reference: "
                                  f"{_verdict(rps_ok)}")
                    p99_target = f"p99 < {TARGET_HTTP_P99_MS:g}: {_verdict(sv['p99_ms'] < TARGET_HTTP_P99_MS)}"
                elif mix != "repeated":  # issue 16's: queries never asked before
                    rps_ok = sv["rps"] >= TARGET_DISTINCT_VS_REFERENCE * rv["rps"]
                    rps_target = f"≥ {TARGET_DISTINCT_VS_REFERENCE:g}× reference: {_verdict(rps_ok)}"
                    if mix == "distinct" and (sv["wrapped_requests"] or rv["wrapped_requests"]):
                        rps_target += f"; **{sv['wrapped_requests'] + rv['wrapped_requests']} queries asked twice**"
                    if name == "seed":
                        p99_target = f"p99 ≤ {TARGET_DISTINCT_SEED_P99_MS:g}: {_verdict(sv['p99_ms'] <= TARGET_DISTINCT_SEED_P99_MS)}"
                lines.append(f"| {name} | HTTP {mix}, requests/s ({h['workers']} workers) | {_rounds(sv, 'rps', ',.0f')} | "
                             f"{_rounds(rv, 'rps', ',.0f')} | {ratio(sv['rps'], rv['rps'])} | {rps_target} |")
                lines.append(f"| {name} | HTTP {mix}, p50 / p99 ms | {sv['p50_ms']:.1f} / {_rounds(sv, 'p99_ms', '.1f')} | "
                             f"{rv['p50_ms']:.1f} / {_rounds(rv, 'p99_ms', '.1f')} | {ratio(sv['p99_ms'], rv['p99_ms'])} | "
                             f"{p99_target} |")
                if "worker_cpu_ms" in sv and "worker_cpu_ms" in rv:
                    lines.append(f"| {name} | HTTP {mix}, the workers' CPU a request, ms | {_rounds(sv, 'worker_cpu_ms', '.3f')} | "
                                 f"{_rounds(rv, 'worker_cpu_ms', '.3f')} | {ratio(sv['worker_cpu_ms'], rv['worker_cpu_ms'])} | |")
                if "load_average" in sv:
                    lines.append(f"| {name} | HTTP {mix}, load average (1 min) at start → end | "
                                 f"{sv['load_average'][0]:.2f} → {sv['load_average'][1]:.2f} | "
                                 f"{rv['load_average'][0]:.2f} → {rv['load_average'][1]:.2f} | | |")
                errors = sum(sv["errors"].values()) + sum(rv["errors"].values())
                if errors:
                    lines.append(f"| {name} | HTTP {mix} errors | {sv['errors']} | {rv['errors']} | | |")
            sw, rw = h["service"]["worker_rss_mb"], h["reference"]["worker_rss_mb"]
            lines.append(f"| {name} | one worker's memory after load, RSS MB | {sw:.0f} | {rw:.0f} | {ratio(sw, rw)} | "
                         + (f"< {TARGET_WORKER_MB}: {_verdict(sw < TARGET_WORKER_MB)}" if is_target else "") + " |")
            if "worker_memory_mb" in h["service"]:  # results written before PSS and USS were read
                sm, rm = h["service"]["worker_memory_mb"], h["reference"]["worker_memory_mb"]
                lines.append(f"| {name} | the same worker, PSS / USS MB (shared pages counted once) | "
                             f"{sm['pss']:.0f} / {sm['uss']:.0f} | {rm['pss']:.0f} / {rm['uss']:.0f} | "
                             f"{ratio(sm['pss'], rm['pss'])} | |")
    if "semantic" in results:
        lines += semantic_markdown(results["semantic"])
    lines += ["", "Match counts differ where the analysers do (see bench/fts5.py). Largest differences:", ""]
    for name, c in results["corpora"].items():
        for ex in c["search"]["match_counts"]["examples"][:5]:
            lines.append(f"- {name}: `{ex['q']}`: service {ex['service']:,}, FTS5 {ex['fts5']:,}")
    return "\n".join(lines) + "\n"


def _rounds(figures: dict[str, object], key: str, spec: str) -> str:
    """Return a figure, and when it is the median of several rounds, each round's in brackets (a
    round one worker answered alone marked *, and left out of the median when another was not)."""
    text = format(figures[key], spec)
    each = figures.get(f"rounds_{key}")
    pinned = set(figures.get("pinned_rounds", ()))
    return f"{text} ({', '.join(format(v, spec) + ('*' if i in pinned else '') for i, v in enumerate(each))})" if each else text


def semantic_markdown(cost: dict[str, object]) -> list[str]:
    """Return the table of what the semantic signal costs at 64k, off and on side by side."""
    b, q = cost["build"], cost["search_ms"]
    lines = [
        "",
        f"## The semantic signal at 64k (issue 17): off and on, {cost['queries']} unique queries in-process, "
        f"median of {cost['rounds']} alternating rounds",
        "",
        "| figure | off | on | on / off | target |",
        "|---|---:|---:|---:|---|",
        f"| build, documents/s | {b['off']['docs_per_second']:,.0f} | {b['on']['docs_per_second']:,.0f} | "
        f"{ratio(b['on']['docs_per_second'], b['off']['docs_per_second'])} | "
        f"≥ {TARGET_BUILD_DOCS_PER_SECOND:,}: {_verdict(b['on']['docs_per_second'] >= TARGET_BUILD_DOCS_PER_SECOND)} |",
        f"| build, CPU s | {b['off']['cpu_seconds']:.1f} | {b['on']['cpu_seconds']:.1f} | "
        f"{ratio(b['on']['cpu_seconds'], b['off']['cpu_seconds'])} | |",
        f"| snapshot size, MB | {b['off']['size_bytes'] / 1e6:.1f} | {b['on']['size_bytes'] / 1e6:.1f} | "
        f"{ratio(b['on']['size_bytes'], b['off']['size_bytes'])} | |",
    ]
    for cut, label in (("p50", "p50"), ("p95", "p95"), ("cpu_p50", "CPU p50"), ("cpu_p95", "CPU p95")):
        target = ""
        if cut in ("p50", "cpu_p50"):
            target = f"≤ {TARGET_SEMANTIC_P50_RATIO:g}×: {_verdict(q['on'][cut] <= TARGET_SEMANTIC_P50_RATIO * q['off'][cut])}"
        lines.append(f"| unique query {label}, ms | {q['off'][cut]:.2f} | {q['on'][cut]:.2f} | "
                     f"{ratio(q['on'][cut], q['off'][cut])} | {target} |")
    memory = cost.get("memory")
    if memory:
        off, on = memory["off"]["worker"], memory["on"]["worker"]
        for key, label in (("rss", "RSS"), ("pss", "PSS"), ("uss", "USS"), ("anon", "anonymous"), ("file", "file-backed")):
            target = ""
            if key in ("rss", "pss"):
                grown = on[key] - off[key]
                target = f"+{grown:.0f}; ≤ +{TARGET_SEMANTIC_WORKER_GROWTH_MB}: {_verdict(grown <= TARGET_SEMANTIC_WORKER_GROWTH_MB)}"
            lines.append(f"| the one worker after the same {memory['on']['requests']:,} unique requests, {label} MB | {off[key]:.0f} | {on[key]:.0f} | "
                         f"{ratio(on[key], off[key])} | {target} |")
        if memory["off"]["requests"] != memory["on"]["requests"]:
            lines.append(f"| **requests answered differ** (wrk, unique mix) | {memory['off']['requests']:,} | "
                         f"{memory['on']['requests']:,} | | |")
    lines.append(f"| load average (1, 5, 15 min) at start → end | {', '.join(f'{x:.2f}' for x in cost['load_average_at_start'])} → "
                 f"{', '.join(f'{x:.2f}' for x in cost['load_average_at_end'])} | | | |")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write bench/results/latest.{md,json}."""
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also a 256k-document corpus (4 copies of 64k)")
    parser.add_argument("--queries", type=int, default=300, help="queries timed per corpus (default 300)")
    parser.add_argument("--seed", type=int, default=7, help="seed for drawing queries (default 7)")
    parser.add_argument("--procs", type=int, default=2, help="indexing processes for the service (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers for both services (default 2)")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--distinct", type=int, default=DISTINCT_POOL,
                        help=f"queries in the never-repeated mix (default {DISTINCT_POOL:,})")
    # Three, so that one round where wrk's four connections all went to one worker (it happens to
    # either side: half the throughput, docs/performance.md) does not decide the median.
    parser.add_argument("--rounds", type=int, default=3,
                        help="HTTP rounds per corpus, alternating which side goes first; medians reported (default 3)")
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--wrk-connections", type=int, default=4)
    parser.add_argument("--only", action="append", choices=("seed", "debian-64k", "debian-256k", "semantic-64k"),
                        help="run only this corpus, or the semantic signal's cost at 64k (repeatable)")
    parser.add_argument("--skip-http", action="store_true", help="skip the HTTP load")
    parser.add_argument("--worker-class", help="gunicorn worker class for both services (default: web/gunicorn_conf.py's)")
    parser.add_argument("--workdir", help="keep indexes and logs here instead of a temporary folder")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for latest.md and latest.json")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = run(args)
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latest.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    table = markdown(results)
    (args.out / "latest.md").write_text(table, encoding="utf-8")
    print(table)
    print(f"[bench] done in {results['seconds']} s; wrote {args.out / 'latest.md'} and latest.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
