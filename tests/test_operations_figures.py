"""docs/operations.md quotes `make bench`'s figures from bench/results/latest.md: the quotes follow the file."""

from __future__ import annotations

import re

from tests.conftest import REPO


def _worker_rss(corpus: str) -> int:
    """Return one worker's RSS after the load, in MB, as bench/results/latest.md gives it for *corpus*."""
    results = (REPO / "bench" / "results" / "latest.md").read_text(encoding="utf-8")
    found = re.search(rf"^\| {re.escape(corpus)}[^|]* \| one worker's memory after load, RSS MB \| (\d+) \|", results, re.M)
    assert found, corpus
    return int(found[1])


def test_the_memory_per_worker_quoted_is_the_committed_bench_result():
    # The guide said 107 and 292 MB, from a run three sessions old, where the file said 122 and 310 (a QA pass).
    guide = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    quoted = [int(mb) for mb in re.findall(r"(\d+) MB after `make bench`'s load", guide)]
    assert quoted == [_worker_rss("seed"), _worker_rss("debian-64k")], quoted
    assert f"`make bench` now measures {_worker_rss('debian-64k')} MB per worker" in guide
