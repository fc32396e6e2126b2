"""What a publish costs the requests being answered: the 64k index under gunicorn, searched while it changes.

    .venv/bin/python -m bench.publish_stall INDEX_DIR WORK_DIR [CHANGES.jsonl]

serves INDEX_DIR (a Debian index of more than one snapshot's worth: a rollback is run) with the
service's config (2 gevent workers), warms it for 3 s, then runs wrk (1 thread, 4 connections) for
14 s of unseen queries while ``topichub update CHANGES`` runs at 3 s and ``topichub rollback`` at
8 s; prints wrk's requests/s, p50 / p90 / p99 and errors, and the slowest request inside the app
(its access lines' ``duration_ms``).  docs/operations.md, "Changing the index while it serves".
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench import positional
from bench.queries import api_paths, make_queries
from bench.run import wrk
from bench.servers import REPO, SERVICE_APP, gunicorn
from corpus.sources import load_corpus

DEBIAN = REPO.parent / "shared" / "corpora" / "debian-packages.jsonl.gz"
TOPICHUB = str(Path(sys.executable).parent / "topichub")
CHANGE = {"id": "deb-zzz-publish-stall", "title": "Publish stall probe", "summary": "A probe.", "topics": ["misc"]}


def main(argv: list[str] | None = None) -> int:
    args = positional(sys.argv[1:] if argv is None else argv, "bench.publish_stall INDEX_DIR WORK_DIR [CHANGES.jsonl]", 2)
    root, work = Path(args[0]), Path(args[1])
    work.mkdir(parents=True, exist_ok=True)
    changes = Path(args[2]) if len(args) > 2 else work / "change.jsonl"
    if len(args) <= 2:
        changes.write_text(json.dumps(CHANGE) + "\n", encoding="utf-8")
    paths = api_paths(make_queries(list(load_corpus([DEBIAN]).records), 6000, 11))

    def change() -> None:
        time.sleep(3)
        subprocess.run([TOPICHUB, "update", str(changes), "--index-dir", str(root)], check=True, capture_output=True)
        time.sleep(5)
        subprocess.run([TOPICHUB, "rollback", "--index-dir", str(root)], check=True, capture_output=True)

    log = work / "gunicorn.log"
    with gunicorn(SERVICE_APP, {"TOPICHUB_INDEX_DIR": str(root.resolve())}, 2, log) as server:
        wrk(server.base, paths[-300:], work, "warm", 3, 1, 4)
        changing = threading.Thread(target=change)
        changing.start()
        run = wrk(server.base, paths[:5000], work, "run", 14, 1, 4)
        changing.join()
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()
             if line.startswith("{") and '"duration_ms"' in line]
    inside = sorted(float(line["duration_ms"]) for line in lines[-int(run["requests"]):])
    print(f"{run['rps']:,.0f} requests/s, p50 / p90 / p99 {run['p50_ms']} / {run['p90_ms']} / {run['p99_ms']} ms, "
          f"errors {run['errors']}; slowest inside the app {inside[-1]} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
