"""Zero-downtime reindex: gunicorn keeps answering, consistently, while build and update publish."""

from __future__ import annotations

import pytest
import json
import shutil
import threading
import urllib.error
import urllib.request
from collections import defaultdict

from corpus.sources import DEFAULT_DIR
from index import store
from index.build import build
from tests.conftest import topichub, write_jsonl
from tests.servers import gunicorn

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

BUILT = {"id": "zebrafish-cluster", "title": "Zebrafish cluster", "summary": "A zebrafish-named cluster.",
         "topics": ["training-infrastructure"]}
UPDATED = {"id": "okapi-cluster", "title": "Okapi cluster", "summary": "An okapi-named cluster.",
           "topics": ["training-infrastructure"]}
URLS = ["/api/search?per_page=5", "/api/search?q=zebrafish", "/api/search?q=okapi", "/api/search?q=stargate"]


def fetch(url: str) -> tuple[int, dict | None]:
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, None
    except (OSError, ValueError):
        return 0, None


def test_requests_never_fail_while_build_and_update_publish(tmp_path):
    corpus = shutil.copytree(DEFAULT_DIR, tmp_path / "corpus")
    root = tmp_path / "index"
    build([corpus], root=root)
    first = store.current_id(root)
    answers: list[tuple[str, int, dict | None]] = []
    stop = threading.Event()

    with gunicorn(root, tmp_path, workers=2) as base:

        def client(offset: int) -> None:
            i = offset
            while not stop.is_set():
                url = URLS[i % len(URLS)]
                answers.append((url, *fetch(base + url)))
                i += 1

        threads = [threading.Thread(target=client, args=(n,)) for n in range(3)]
        for thread in threads:
            thread.start()
        try:
            # A full rebuild with one more document, then an update that adds another.
            write_jsonl(corpus / "extra.jsonl", [BUILT])
            topichub("build", str(corpus), "--index-dir", str(root), "--wait", "60")
            rebuilt = store.current_id(root)
            changes = write_jsonl(tmp_path / "changes.jsonl", [UPDATED])
            topichub("update", str(changes), "--index-dir", str(root), "--wait", "60")
            updated = store.current_id(root)
            during = len(answers)
            while len(answers) < during + 20:  # some answers from the last snapshot
                stop.wait(0.05)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        final = {url: fetch(base + url)[1] for url in URLS}  # the same workers, not restarted

    failures = [(url, status) for url, status, body in answers if status != 200 or body is None]
    print(f"{len(answers)} requests during the reindex, {len(failures)} failed")
    assert failures == []

    # Every answer is consistent with the snapshot that gave it.
    documents = {first: 57, rebuilt: 58, updated: 59}
    has = {first: set(), rebuilt: {"zebrafish"}, updated: {"zebrafish", "okapi"}}
    seen: dict[str, int] = defaultdict(int)
    for url, _, body in answers:
        snapshot = body["snapshot"]
        assert snapshot in documents, snapshot
        seen[snapshot] += 1
        if "q=" not in url:
            assert body["total"] == documents[snapshot]
            assert sum(f["count"] for f in body["facets"]["kind"]) == body["total"]
        for word in ("zebrafish", "okapi"):
            if f"q={word}" in url:
                expected = 1 if word in has[snapshot] else 0
                assert body["total"] == expected and len(body["hits"]) == expected, (word, snapshot)
        if "q=stargate" in url:
            assert body["total"] == len(body["hits"]) + max(0, body["total"] - body["per_page"])
    print("answers per snapshot:", dict(seen))
    assert seen[first] > 0 and seen[updated] > 0

    # The new documents are visible without a restart.
    assert final["/api/search?per_page=5"]["total"] == 59
    assert [h["id"] for h in final["/api/search?q=zebrafish"]["hits"]] == ["zebrafish-cluster"]
    assert [h["id"] for h in final["/api/search?q=okapi"]["hits"]] == ["okapi-cluster"]
