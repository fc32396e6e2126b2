"""Slow and idle clients under the real gunicorn: they cost a connection each, never a worker."""

from __future__ import annotations

import json
import socket
import threading
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
    # Each search answered within its timeout (5 s, the server's header timeout): none waited for a
    # worker held by a slow client.  How fast they were is bench.slow_clients's figure, not a check.
    assert run.searches >= SEARCHES and run.answered == run.searches, figures
    # Every connection that sent half a request was cut, and none before the head had its time.
    assert len(run.cut_after_s) >= SLOW_CONNECTIONS, figures
    assert min(run.cut_after_s) > gunicorn_conf.keepalive / 2, figures


def test_new_connections_do_not_pile_up_open_files(index_dir, tmp_path: Path):
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


PIPELINED = 300


def test_a_client_that_keeps_its_connection_busy_does_not_starve_another(index_dir, tmp_path):
    # One worker; one client sends 300 searches at once on one connection (HTTP/1.1 pipelining), so
    # the worker always has its next request at hand.  A second client asks once meanwhile.
    log = tmp_path / "gunicorn.log"
    with serve(SERVICE_APP, {"TOPICHUB_INDEX_DIR": str(index_dir)}, 1, log) as server:
        address = ("127.0.0.1", int(server.base.rsplit(":", 1)[1]))
        busy = socket.create_connection(address, timeout=30)
        drained = threading.Thread(target=lambda: _read_until_closed(busy))
        try:
            busy.sendall(b"".join(_request(f"/api/search?q=gpu+{i}&per_page=50", f"busy-{i}", close=i == PIPELINED - 1)
                                  for i in range(PIPELINED)))
            busy.recv(1)  # the first answer has begun: the worker is going through the rest
            drained.start()
            with socket.create_connection(address, timeout=30) as other:
                other.sendall(_request("/api/search?q=stargate", "other", close=True))
                assert _read_until_closed(other).startswith(b"HTTP/1.1 200")
        finally:
            drained.join(timeout=60)
            busy.close()
    order = [json.loads(line)["request_id"] for line in log.read_text().splitlines()
             if line.startswith("{") and '"request_id"' in line]
    answered_before = order.index("other")
    assert order.count("other") == 1 and len(order) == PIPELINED + 1 + 1  # + the start-up /healthz
    # The other reader waited for a few of the busy client's searches (3 here), not for the ~50 that
    # gunicorn had read in one go and that a worker yielding with gevent.sleep(0) went through first
    # (web/gunicorn_conf.py, PASS_TURN_SECONDS); the margin is for a test process slow to send.
    assert answered_before < 20, f"the second client was answered after {answered_before} requests"


def _request(path: str, request_id: str, close: bool = False) -> bytes:
    connection = "Connection: close\r\n" if close else ""
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: {request_id}\r\n{connection}\r\n".encode()


def _read_until_closed(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
