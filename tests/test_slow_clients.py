"""Slow and idle clients under the real gunicorn: they cost a connection each, never a worker."""

from __future__ import annotations

import urllib.request
from pathlib import Path

from bench import slow_clients
from bench.servers import SERVICE_APP
from bench.servers import gunicorn as serve
from tests.attack_support import open_files
from tests.servers import gunicorn
from web import gunicorn_conf

SLOW_CONNECTIONS = 300
SEARCHES = 200


def test_half_sent_requests_neither_delay_searches_nor_stay_open(index_dir, tmp_path):
    with gunicorn(index_dir, tmp_path, workers=2) as base:
        # Search past the header timeout, so the server must cut the first 300 while searches go on.
        run = slow_clients.run(base, SLOW_CONNECTIONS, SEARCHES, min_seconds=gunicorn_conf.keepalive + 2,
                               deadline_s=60)
    figures = run.summary()
    assert run.searches >= SEARCHES and run.answered == run.searches, figures
    assert run.percentile(99) < 500, figures
    # Every connection that sent half a request was cut, and none before the head had its time.
    assert len(run.cut_after_s) >= SLOW_CONNECTIONS, figures
    assert min(run.cut_after_s) > gunicorn_conf.keepalive / 2, figures


def test_new_connections_do_not_pile_upopen_files(index_dir, tmp_path: Path):
    env = {"TOPICHUB_INDEX_DIR": str(index_dir)}
    with serve(SERVICE_APP, env, 1, tmp_path / "gunicorn.log") as server:
        (worker,) = server.worker_pids()

        def search(count: int) -> None:
            for i in range(count):  # a new connection each (urllib does not keep it alive)
                with urllib.request.urlopen(f"{server.base}/api/search?q=gpu+{i}", timeout=10) as response:
                    assert response.status == 200

        search(20)
        warm = open_files(worker)
        search(200)
        assert open_files(worker) <= warm + 5
