"""The cyclic garbage collector's passes during whole requests, with and without young passes on a schedule.

    .venv/bin/python -m bench.gc_passes INDEX_DIR [--young-every 25] [--mixes repeated unique distinct]

sends ``make bench``'s seed mixes in its order (a repeated mix of 20,000 requests, then 7,000 unique
and 7,000 never-repeated queries; ``bench.queries``) through the app's WSGI callable in one process,
with the collector set as web/gunicorn_conf.py sets a worker's (no automatic full passes) and, with
``--young-every N``, ``gc.collect(1)`` after every N-th answer as its ``post_request`` does (0: the
allocator's thresholds alone).  For each mix it prints the CPU time per request (``time.process_time``:
a loaded machine moves it less than wall time) and, per generation, the collector's passes: how many,
the longest and their total (from ``gc.callbacks``).
"""

from __future__ import annotations

import argparse
import gc
import time
from collections import defaultdict
from collections.abc import Sequence

from bench.request_profile import _get, app_as_a_worker


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--young-every", type=int, default=0, help="gc.collect(1) after every N answers (0: never)")
    parser.add_argument("--mixes", nargs="+", choices=("repeated", "unique", "distinct"),
                        default=["repeated", "unique", "distinct"])
    args = parser.parse_args(argv)
    with app_as_a_worker(args.index_dir) as app:
        from bench.queries import api_paths, distinct_queries, make_queries, repeated_mix
        from corpus.sources import load_corpus

        records = list(load_corpus().records)
        queries = make_queries(records, 20_000, 8)
        mixes = {
            "repeated": api_paths(repeated_mix(queries, 5_000, 9)) * 4,
            "unique": api_paths(queries)[:7_000],
            "distinct": api_paths(distinct_queries(records, 7_000, 10, exclude=queries)),
        }
        gen0, gen1, _ = gc.get_threshold()
        gc.set_threshold(gen0, gen1, 1_000_000)  # as post_fork does
        passes: list[tuple[int, float]] = []
        began = [0.0]

        def watch(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                began[0] = time.process_time()
            else:
                passes.append((info["generation"], time.process_time() - began[0]))

        gc.callbacks.append(watch)
        for mix in args.mixes:
            passes.clear()
            cpu: list[float] = []
            for n, path in enumerate(mixes[mix], 1):
                started = time.process_time()
                _get(app, path)
                cpu.append((time.process_time() - started) * 1e3)
                if args.young_every and n % args.young_every == 0:
                    gc.collect(1)
            cpu.sort()
            count = len(cpu)
            by_generation: dict[int, list[float]] = defaultdict(list)
            for generation, seconds in passes:
                by_generation[generation].append(seconds * 1e3)
            collector = "; ".join(f"gen {g}: {len(ms)} passes, longest {max(ms):.2f} ms, total {sum(ms):.1f} ms"
                                  for g, ms in sorted(by_generation.items()))
            print(f"{mix}: {count} requests, CPU ms a request mean {sum(cpu) / count:.3f} p50 {cpu[count // 2]:.3f} "
                  f"p99 {cpu[int(count * 0.99)]:.3f} p99.9 {cpu[int(count * 0.999)]:.3f} max {cpu[-1]:.2f}; {collector}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
