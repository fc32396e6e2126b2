"""Slow and idle clients against the service: hundreds of connections that send half a request and
then nothing, while one reader makes normal searches (issue 14).

A slot whose connection the server cuts opens a new one at once, as an attacker would, so the
server faces the full number of half-open connections for the whole run.  Every connection and
every search has a timeout, and the run ends by itself after its searches or its deadline.

``python -m bench.slow_clients`` starts the service under gunicorn on a free port and prints the
figures; ``--worker-class sync`` measures the synchronous workers it used to run on.
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import statistics
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

# A request line and one header, without the blank line that would end the headers.
HALF_REQUEST = b"GET /api/search?q=stargate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
QUERIES = ("stargate", "trainium", "compute", "gpu cluster", "power", "openai", "nvidia", "funding")


@dataclass(frozen=True, slots=True)
class SlowClientRun:
    searches: int
    answered: int  # searches answered 200 within their timeout
    latencies_ms: tuple[float, ...]  # of the answered searches
    slow_connections: int  # half-open connections held at once
    opened: int  # half-open connections opened in all (each cut one is replaced)
    cut_after_s: tuple[float, ...]  # for each connection the server closed: how long it held it
    seconds: float

    def percentile(self, p: float) -> float | None:
        """Return the *p*-th percentile of the answered searches' latency (ms), or None."""
        if not self.latencies_ms:
            return None
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]

    def summary(self) -> dict[str, object]:
        """Return the figures worth printing."""
        cut = sorted(self.cut_after_s)
        return {
            "slow_connections": self.slow_connections,
            "searches": self.searches,
            "answered": self.answered,
            "p50_ms": self.percentile(50),
            "p99_ms": self.percentile(99),
            "max_ms": max(self.latencies_ms, default=None),
            "slow_connections_opened": self.opened,
            "slow_connections_cut": len(cut),
            "cut_after_s_median": round(statistics.median(cut), 2) if cut else None,
            "seconds": round(self.seconds, 1),
        }


class _Holders:
    """Keep *count* half-open connections to *address*, replacing each one the server closes."""

    def __init__(self, address: tuple[str, int], count: int) -> None:
        self.address = address
        self.count = count
        self.opened = 0
        self.cut_after: list[float] = []
        self.ready = threading.Event()  # all slots hold a connection
        self._stop = threading.Event()
        self._selector = selectors.DefaultSelector()
        self._thread = threading.Thread(target=self._run, name="slow-clients", daemon=True)

    def _open(self) -> None:
        sock = socket.create_connection(self.address, timeout=5)
        sock.sendall(HALF_REQUEST)
        sock.setblocking(False)
        self._selector.register(sock, selectors.EVENT_READ, time.monotonic())
        self.opened += 1

    def _run(self) -> None:
        try:
            for _ in range(self.count):
                self._open()
            self.ready.set()
            while not self._stop.is_set():
                for key, _ in self._selector.select(timeout=0.1):
                    sock: socket.socket = key.fileobj  # type: ignore[assignment]
                    try:
                        data = sock.recv(4096)
                    except OSError:
                        data = b""
                    if data:
                        continue  # an error answer: the close follows
                    self.cut_after.append(time.monotonic() - key.data)
                    self._selector.unregister(sock)
                    sock.close()
                    self._open()
        finally:
            for key in list(self._selector.get_map().values()):
                key.fileobj.close()  # type: ignore[union-attr]
            self._selector.close()
            self.ready.set()

    def __enter__(self) -> _Holders:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def search_once(base: str, query: str, timeout: float) -> float | None:
    """Return how long a search took (ms), or None when it failed or was not answered in time."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(f"{base}/api/search?q={quote(query)}", timeout=timeout) as response:
            response.read()
            ok = response.status == 200
    except OSError:  # refused, reset, timed out, or an error status
        return None
    return (time.perf_counter() - started) * 1000 if ok else None


def run(base: str, slow: int = 300, searches: int = 200, min_seconds: float = 0.0,
        timeout: float = 5.0, deadline_s: float = 120.0) -> SlowClientRun:
    """Hold *slow* half-open connections to *base* while making *searches* searches, one at a time.

    The searches go on past *searches* until *min_seconds* passed (to see the server cut the first
    connections), never past *deadline_s*.
    """
    parts = urlsplit(base)
    started = time.monotonic()
    latencies: list[float] = []
    made = 0
    with _Holders((parts.hostname or "127.0.0.1", parts.port or 80), slow) as holders:
        holders.ready.wait(timeout=60)
        began = time.monotonic()
        while made < searches or time.monotonic() - began < min_seconds:
            if time.monotonic() - started > deadline_s:
                break
            took = search_once(base, QUERIES[made % len(QUERIES)], timeout)
            made += 1
            if took is not None:
                latencies.append(took)
    return SlowClientRun(
        searches=made,
        answered=len(latencies),
        latencies_ms=tuple(round(t, 2) for t in latencies),
        slow_connections=slow,
        opened=holders.opened,
        cut_after_s=tuple(holders.cut_after),
        seconds=time.monotonic() - started,
    )


def main(argv: list[str] | None = None) -> int:
    from bench.servers import SERVICE_APP, gunicorn
    from index.build import build

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=300, help="half-open connections held at once (default 300)")
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--min-seconds", type=float, default=8.0, help="search at least this long (default 8)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-class", help="override the configured gunicorn worker class (e.g. sync)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="slow-clients-") as tmp:
        work = Path(tmp)
        build(root=work / "index")
        extra = ("--worker-class", args.worker_class) if args.worker_class else ()
        with gunicorn(SERVICE_APP, {"TOPICHUB_INDEX_DIR": str(work / "index")}, args.workers,
                      work / "gunicorn.log", extra_args=extra) as server:
            result = run(server.base, args.slow, args.searches, args.min_seconds)
    print(json.dumps({"worker_class": args.worker_class or "configured", "workers": args.workers,
                      **result.summary()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
