"""Run a WSGI app under gunicorn on 127.0.0.1 and a free port: the benchmark's load target, and the
real server the end-to-end tests talk to."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVICE_APP = "web:create_app()"
REFERENCE_APP = "bench.reference_app:create_app()"


@dataclass(frozen=True, slots=True)
class Server:
    base: str
    pid: int

    def worker_pids(self) -> list[int]:
        """Return the pids of the gunicorn master's worker processes."""
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        return [int(pid) for pid in children]


def handles_its_own_signals(pid: int) -> bool:
    """Return whether gunicorn worker *pid* has set its own signal handlers (it catches SIGABRT).

    Until then it has its master's, inherited at fork: a SIGTERM or SIGINT sent in that window is
    taken for the master's and lost, and the master waits graceful_timeout (10 s) to kill it.
    """
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGABRT - 1) & 1)
    return False


def workers_booted(pid: int, workers: int) -> bool:
    """Return whether gunicorn master *pid* has all *workers* running, each with its own signal handlers."""
    try:
        children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        return len(children) == workers and all(handles_its_own_signals(c) for c in children)
    except (OSError, ValueError):  # a worker that ended as it was read
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_times(pid: int) -> tuple[float, float]:
    """Return the user and system CPU seconds process *pid* has used (utime, stime in /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def rss_mb(pid: int) -> float:
    """Return a process's resident memory in MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise ValueError(f"no VmRSS for process {pid}")


@contextmanager
def gunicorn(app: str, env: dict[str, str], workers: int, log_path: Path, threads: int = 1,
             extra_args: tuple[str, ...] = ()) -> Iterator[Server]:
    """Serve *app* with the service's gunicorn config (and *extra_args*) until the block ends; output goes to *log_path*."""
    port = free_port()
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "--config", "python:web.gunicorn_conf",
                "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads), *extra_args, app,
            ],
            cwd=REPO, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(base + "/healthz", timeout=5) as response:
                        response.read()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"gunicorn ({app}) did not start; see {log_path}") from None
                    time.sleep(0.2)
            # One worker answering is not all of them booted; stopped before, the server takes 10 s to stop.
            while not workers_booted(proc.pid, workers):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn ({app}) did not start its workers; see {log_path}")
                time.sleep(0.01)
            yield Server(base, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
