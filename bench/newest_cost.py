"""What ordering documents of one date by relevance costs ``sort=newest`` (docs/relevance.md).

    .venv/bin/python -m bench.newest_cost INDEX_DIR [QUERY ...] [--repeat 5]

prints, for each query (default: ``data``, ``library``, ``python module``, for the 64k Debian index),
the wall time of a search in process with the result cache off: by relevance, newest first as the
service does it (a date's documents in relevance order), and newest first by date and listing order
alone (the service's tie-break switched off), each the mean of *repeat* searches after one untimed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("queries", nargs="*", default=["data", "library", "python module"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import search.service as module
    from search.params import SearchParams

    service = module.SearchService(args.index_dir)
    service._results.size = 0  # every search computed
    ties = module._ties_by_relevance

    def timed(params: SearchParams) -> float:
        service.search(params)
        started = time.perf_counter()
        for _ in range(args.repeat):
            service.search(params)
        return (time.perf_counter() - started) / args.repeat * 1e3

    for query in args.queries:
        relevance = timed(SearchParams(q=query))
        newest = timed(SearchParams(q=query, sort="newest"))
        module._ties_by_relevance = lambda snap, parsed, found, newest, end, cosines, deadline: newest  # type: ignore[assignment]
        dates_only = timed(SearchParams(q=query, sort="newest"))
        module._ties_by_relevance = ties
        print(f"{query!r}: relevance {relevance:.1f} ms, newest {newest:.1f} ms, newest by dates alone {dates_only:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
