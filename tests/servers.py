"""Start the real service under gunicorn on 127.0.0.1 and a free port, for end-to-end tests."""

from __future__ import annotations

from collections.abc import Iterator
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
