"""CPU time one gunicorn worker spends per unseen seed search, the service against the reference.

    .venv/bin/python -m bench.worker_cpu SEED_INDEX_DIR [--side service|reference|both] [--rounds 2]

serves each side under gunicorn as ``make bench`` does (the service's config, gevent) but with one
worker, warms it for 2 s, then sends 5 s of the unique mix over one connection (wrk, 1 thread) and
reads the worker's user and system CPU from /proc before and after.  Unlike requests/s this counts
everything the worker does for a request (gunicorn's parsing and writing, gevent, the app, the
access line, the system calls), and a busy machine moves it less; set beside
``bench.request_profile`` (the app alone, in-process) it shows what serving adds to each side.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import fts5
from bench.queries import api_paths, make_queries
from bench.run import wrk
from bench.servers import REFERENCE_APP, SERVICE_APP, cpu_times, gunicorn
from corpus.sources import load_corpus

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--side", choices=("service", "reference", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    records = list(load_corpus().records)
    queries = make_queries(records, 9000, 21)
    sides = ("service", "reference") if args.side == "both" else (args.side,)
    with tempfile.TemporaryDirectory(prefix="worker-cpu-") as tmp:
        work = Path(tmp)
        db = work / "docs.fts"
        fts5.create(db, records)
        apps = {"service": (SERVICE_APP, {"TOPICHUB_INDEX_DIR": str(Path(args.index_dir).resolve())}),
                "reference": (REFERENCE_APP, {"BENCH_FTS5_DB": str(db)})}
        for _ in range(args.rounds):
            for side in sides:
                app, env = apps[side]
                with gunicorn(app, env, 1, work / f"{side}.log") as server:
                    (pid,) = server.worker_pids()
                    wrk(server.base, api_paths(queries[-1500:]), work, "warm", 2, 1, 1)
                    user, system = cpu_times(pid)
                    run = wrk(server.base, api_paths(queries[:7000]), work, "timed", 5, 1, 1)
                    user_after, system_after = cpu_times(pid)
                count = int(run["requests"])
                print(f"{side}: {count:,} requests, {run['rps']:,.0f}/s, worker CPU a request: user "
                      f"{(user_after - user) / count * 1e3:.3f} + system {(system_after - system) / count * 1e3:.3f} ms",
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
