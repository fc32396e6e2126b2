"""Count the instructions of unseen seed searches, a figure another job on the machine does not move.

    valgrind --tool=callgrind --callgrind-out-file=OUT.%p --zero-before=os_getppid --dump-before=os_getpgrp \\
        .venv/bin/python -m bench.search_instructions INDEX_DIR [--warm 1000] [--count 500]

runs ``SearchService.search`` and ``SearchResult.to_json`` (the result cache off) for *warm* queries of
``make bench``'s unique mix, then for *count* more, between two system calls that callgrind is told to
count between (``os.getppid`` zeroes the counts, ``os.getpgrp`` writes them): the ``summary`` line of
``OUT.<pid>.1``, divided by *count*, is the instructions of one search.  Two runs of the same code give
the same figure within some tens of instructions a search (with ``PYTHONHASHSEED=0`` and one thread
for BLAS: ``OPENBLAS_NUM_THREADS=1``), where CPU times move by a tenth with the machine's load.  Run it
from each checkout, on an index each built, to compare two versions (docs/performance.md).

``--requests`` counts whole /api/search requests instead, each through the app's WSGI callable as
``bench.request_profile`` sends it (request id, metrics, access line, Flask, the parameters, the
search, JSON, the ETag, the security headers; the result cache on, as a worker's is), *warm* of its
unique queries first: the ``summary`` divided by *count* is then one request's instructions.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--warm", type=int, default=1000)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--requests", action="store_true", help="count whole /api/search requests, not searches")
    args = parser.parse_args(argv)
    if args.requests:
        return _requests(args.index_dir, args.warm, args.count)
    from bench.queries import corpus_records, make_queries
    from search import semantic
    from search import service as module
    from search.params import SearchParams

    semantic.query_vector("warm up")
    service = module.SearchService(args.index_dir)
    service._results.size = 0  # every search computed
    pool = make_queries(corpus_records("seed"), args.warm + args.count, 11)
    for q in pool[: args.warm]:
        service.search(SearchParams(q=q)).to_json()
    os.getppid()  # callgrind starts counting here (--zero-before=os_getppid)
    for q in pool[args.warm :]:
        service.search(SearchParams(q=q)).to_json()
    os.getpgrp()  # ... and writes its counts here (--dump-before=os_getpgrp)
    print(f"{args.count} searches counted")
    return 0


def _requests(index_dir: str, warm: int, count: int) -> int:
    from bench.queries import api_paths
    from bench.request_profile import _get, _queries, app_as_a_worker

    with app_as_a_worker(index_dir) as app:
        paths = api_paths(_queries("unique", warm + count))
        for path in paths[count:]:
            _get(app, path)
        os.getppid()  # callgrind starts counting here (--zero-before=os_getppid)
        for path in paths[:count]:
            _get(app, path)
        os.getpgrp()  # ... and writes its counts here (--dump-before=os_getpgrp)
    print(f"{count} requests counted")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
