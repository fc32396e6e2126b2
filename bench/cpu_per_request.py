"""CPU time the gunicorn workers spend per /api/search request, for two checkouts of the service.

Requests per second mean little on a machine other work shares; the CPU time the workers use per
request moves much less with it.  Each checkout is served by 2 workers on the same seed index and
loaded by wrk with ``make bench``'s repeated and unique mixes, in alternating rounds:

    .venv/bin/python -m bench.cpu_per_request BEFORE_CHECKOUT AFTER_CHECKOUT [--rounds 2]

e.g. a ``git clone`` of the repository at an older commit as BEFORE and this checkout as AFTER.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.queries import api_paths, make_queries, repeated_mix
from bench.run import wrk
from bench.servers import cpu_times, free_port
from corpus.sources import load_corpus
from index.build import build

def cpu_seconds(pids: list[int]) -> float:
    """Return the user and system CPU time the processes *pids* have used."""
    return sum(sum(cpu_times(pid)) for pid in pids)


def serve(checkout: Path, index: Path, log, extra: tuple[str, ...]) -> tuple[subprocess.Popen, str]:
    """Start *checkout*'s service under gunicorn with 2 workers; return the process and its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "python:web.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
         "--workers", "2", *extra, "web:create_app()"],
        cwd=checkout, env={**os.environ, "TOPICHUB_INDEX_DIR": str(index)}, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=5) as response:
                response.read()
            return proc, base
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{checkout} did not start") from None
            time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=5, help="seconds per wrk run (default 5)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cpu-per-request-") as tmp:
        work = Path(tmp)
        build(root=work / "index")
        queries = make_queries(load_corpus().records, 20000, 8)
        mixes = {"repeated": api_paths(repeated_mix(queries, 5000, 9)), "unique": api_paths(queries)}
        results: dict[tuple[str, str], list[int]] = {}
        for _ in range(args.rounds):
            for side, checkout in (("before", args.before), ("after", args.after)):
                with (work / "gunicorn.log").open("ab") as log:
                    proc, base = serve(checkout.resolve(), work / "index", log, ())
                    try:
                        # Warm up for longer than a worker takes to boot, so both workers take connections.
                        wrk(base, api_paths(queries[-30:]), work, "warm", 3, 1, 4)
                        workers = [int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
                        for mix, paths in mixes.items():
                            used = cpu_seconds(workers)
                            out = wrk(base, paths, work, mix, args.seconds, 1, 4)
                            per_request = (cpu_seconds(workers) - used) / max(1, int(out["requests"])) * 1e6
                            results.setdefault((side, mix), []).append(round(per_request))
                    finally:
                        proc.terminate()
                        proc.wait(timeout=20)
    for (side, mix), values in results.items():
        print(f"{side:7} {mix:9} worker CPU per request, µs, by round: {values}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
