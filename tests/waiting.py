"""The tests' one way to wait for something another process or thread does.

A test waits for a state it can see (a file open in another process, a server answering, a count
reached), never for a fixed time.  Where no notification exists (another process's open files, a
port that starts answering), the state is looked at every few milliseconds; the time limit only
guards against a hang, and a failure says what never happened.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

POLL_SECONDS = 0.01


def wait_until(condition: Callable[[], object], what: str, seconds: float = 60.0,
               alive: subprocess.Popen | None = None) -> float:
    """Wait until *condition()* is true; return how long that took.

    Fails naming *what* after *seconds*, or as soon as the process *alive* (when given) has ended.
    """
    started = time.monotonic()
    while not condition():
        if alive is not None and alive.poll() is not None:
            raise AssertionError(f"the process ended (exit {alive.returncode}) before {what}")
        assert time.monotonic() - started < seconds, f"timed out waiting for {what}"
        time.sleep(POLL_SECONDS)
    return time.monotonic() - started
