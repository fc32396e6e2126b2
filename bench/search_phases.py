"""Time the parts of an unseen seed search in-process: CPU per search and wall time per part.

    .venv/bin/python -m bench.search_phases INDEX_DIR [--mix unique|distinct] [--count 3000] [--corpus seed|debian] [--clock wall|cpu]

runs ``SearchService.search`` and ``SearchResult.to_json`` for *count* queries of the seed corpus
(``bench.queries``, none repeated) after 1,000 untimed ones, with the result cache off, and prints
the CPU time per search (``time.process_time``, the figure to read on a shared machine) and, per
part of the search (understanding, `_near`, ranking, highlighting, facets, JSON...), its wall time
per search from wrappers around the service's functions (parts nest: ``_hits`` holds
``_highlighted``, ``_understand`` holds ``build_query`` and ``_near``).  Run it from each checkout to
compare two versions; it works on any version that has these functions (or run this file from
the other checkout: ``cd OTHER && PYTHONPATH=. .venv/bin/python /path/to/bench/search_phases.py``).
``--clock cpu`` times the parts by the thread's CPU time (``time.thread_time``) instead of the wall
clock: on a shared machine the wall time of a part takes in whatever else ran meanwhile.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Sequence

from bench.queries import KINDS

SERVICE_METHODS = ("_understand", "_order", "_hits", "_answer", "_ways_out", "_highlighted")
# "suggestion" before session 30, "suggested_fixes" since: a name a version lacks is not timed.
MODULE_FUNCTIONS = ("_near", "count_facets", "build_query", "keep_informative", "expand", "suggestion", "suggested_fixes", "rank")


def _timed(
    function: Callable[..., object], label: str, spent: Counter[str], clock: Callable[[], float] = time.perf_counter
) -> Callable[..., object]:
    """Return *function* adding its time by *clock* under *label* to *spent* on each call."""

    def timed(*args: object, **kwargs: object) -> object:
        started = clock()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += clock() - started

    return timed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--mix", choices=("unique", "distinct"), default="unique")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time the parts by the wall clock or by the thread's CPU time")
    parser.add_argument("--kind", choices=("all", *KINDS), default="all",
                        help="only the quoted phrases, or only the plain queries of one, two or three words")
    parser.add_argument("--corpus", choices=("seed", "debian"), default="seed",
                        help="draw the queries from the seed corpus or from the Debian one (for an index built from it)")
    args = parser.parse_args(argv)
    from bench.queries import corpus_records, distinct_queries, make_queries, query_kind
    from search import semantic
    from search import service as module
    from search.params import SearchParams
    from search.results import SearchResult

    semantic.query_vector("warm up")
    service = module.SearchService(args.index_dir)
    service._results.size = 0  # every search computed
    records = corpus_records(args.corpus)
    share = 1 if args.kind == "all" else 12  # a kind is a sixth to a third of a mix
    pool = (distinct_queries if args.mix == "distinct" else make_queries)(records, 1000 + args.count * share, 11)
    timed = [q for q in pool if args.kind == "all" or query_kind(q) == args.kind][: args.count]
    if len(timed) < args.count:
        parser.error(f"only {len(timed)} queries of kind {args.kind}: ask for fewer (--count)")
    chosen = set(timed)
    warm_up = [q for q in pool if q not in chosen][:1000]
    for q in warm_up:
        service.search(SearchParams(q=q)).to_json()
    spent: Counter[str] = Counter()
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    for name in SERVICE_METHODS:
        setattr(module.SearchService, name, _timed(getattr(module.SearchService, name), name, spent, clock))
    for name in MODULE_FUNCTIONS:
        if hasattr(module, name):
            setattr(module, name, _timed(getattr(module, name), name, spent, clock))
    module._Found.of = classmethod(_timed(module._Found.of.__func__, "_Found.of", spent, clock))  # type: ignore[method-assign]
    SearchResult.to_json = _timed(SearchResult.to_json, "to_json", spent, clock)  # type: ignore[method-assign]
    cpu = time.process_time()
    for q in timed:
        service.search(SearchParams(q=q)).to_json()
    cpu = time.process_time() - cpu
    print(f"{args.count} searches ({args.mix}, {args.kind}): CPU {cpu / args.count * 1e3:.3f} ms a search")
    for label, seconds in spent.most_common():
        print(f"  {label:18s} {seconds / args.count * 1e3:.3f} ms ({args.clock})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
