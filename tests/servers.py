"""Start the real service under gunicorn on 127.0.0.1 and a free port, for end-to-end tests."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from bench.servers import SERVICE_APP
from bench.servers import gunicorn as serve


@contextmanager
def gunicorn(index_dir: Path, log_dir: Path, workers: int = 2, threads: int = 1) -> Iterator[str]:
    """Run the service on *index_dir* until the block ends; yield its base URL."""
    env = {"TOPICHUB_INDEX_DIR": str(index_dir)}
    with serve(SERVICE_APP, env, workers, log_dir / "gunicorn.log", threads=threads) as server:
        yield server.base


def get(url: str, headers: Mapping[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """Return the status, headers and body of a GET of *url*, error answers included."""
    request = urllib.request.Request(url, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers), exc.read()
