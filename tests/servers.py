"""Start the real service under gunicorn on 127.0.0.1 and a free port, for end-to-end tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import REPO, free_port


@contextmanager
def gunicorn(index_dir: Path, log_dir: Path, workers: int = 2, threads: int = 1) -> Iterator[str]:
    """Run the service on *index_dir* until the block ends; yield its base URL."""
    port = free_port()
    env = dict(os.environ, TOPICHUB_INDEX_DIR=str(index_dir))
    log_path = log_dir / f"gunicorn-{port}.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "--config", "python:web.gunicorn_conf",
                "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
                "web:create_app()",
            ],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                        response.read()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"gunicorn did not start: {log_path.read_text()[-2000:]}") from None
                    time.sleep(0.2)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
