"""A worker out of open files (or memory) is not serving a damaged index: nothing is refused, no older
snapshot stands in, the request gets 503 "try again" (Retry-After), the log names the limit to raise,
/healthz says degraded naming the resource, and once the limit is relieved the same snapshot answers.

The limit is simulated: every file opened (Whoosh's segment and column files, the snapshot's JSON
files, a probe's folder) fails with EMFILE, as under `ulimit -n 32` with gevent's connections."""

from __future__ import annotations

import errno
import logging
import os
import pathlib
import shutil
from contextlib import contextmanager

import pytest
from click.testing import CliRunner

from index import store
from tests.conftest import REPO, write_jsonl
from web import create_app
from web.cli import main

NEW = {"id": "numbat-cluster", "title": "Numbat cluster opens", "summary": "A numbat-named GPU cluster.",
       "topics": ["training-infrastructure"]}


def topichub(*args: object) -> None:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> pathlib.Path:
    """Two snapshots: the seed corpus, then an update adding NEW (the published one)."""
    tmp = tmp_path_factory.mktemp("shortage")
    corpus = shutil.copytree(REPO / "corpus" / "data", tmp / "corpus")
    root = tmp / "index"
    topichub("build", corpus, "--index-dir", root, "--procs", 1)
    topichub("update", write_jsonl(tmp / "new.jsonl", [NEW]), "--index-dir", root)
    return root


@contextmanager
def out_of_files(monkeypatch, under: pathlib.Path):
    """Within it, every file under *under* fails to open with EMFILE, as at the worker's limit."""
    def emfile(path: object) -> OSError:
        return OSError(errno.EMFILE, os.strerror(errno.EMFILE), str(path))

    def blocked(path: object) -> bool:
        return str(path).startswith(str(under))

    real_open, real_os_open, real_read_text = open, os.open, pathlib.Path.read_text

    def whoosh_open(path, *args, **kwargs):  # whoosh.filedb.filestore calls the builtin open
        if blocked(path):
            raise emfile(path)
        return real_open(path, *args, **kwargs)

    def os_open(path, *args, **kwargs):
        if blocked(path):
            raise emfile(path)
        return real_os_open(path, *args, **kwargs)

    def read_text(self, *args, **kwargs):
        if blocked(self):
            raise emfile(self)
        return real_read_text(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr("whoosh.filedb.filestore.open", whoosh_open, raising=False)
        patch.setattr(os, "open", os_open)
        patch.setattr(pathlib.Path, "read_text", read_text)
        yield


def assert_short(response) -> None:
    body = response.get_json()
    assert response.status_code == 503, body
    assert body["error"]["code"] == "out_of_resources", body
    assert "out of open files" in body["error"]["message"] and "try again" in body["error"]["message"]
    assert "damaged" not in body["error"]["message"] and "rebuilt" not in body["error"]["message"]
    assert response.headers["Retry-After"] and response.headers["Cache-Control"] == "no-store"


def assert_degraded(client) -> dict:
    response = client.get("/healthz")
    body = response.get_json()
    assert response.status_code == 503 and body["status"] == "degraded", body
    assert "refused" not in body and "out of open files" in body["reason"] and "EMFILE" in body["reason"], body
    assert "ulimit -n" in body["reason"] and body["error"]["code"] == "out_of_resources"
    return body


def test_out_of_files_while_it_answers_is_no_damage_and_the_same_snapshot_answers_after(index, monkeypatch, caplog):
    # A QA pass (ulimit -n 32): 503 "the search index is missing or damaged … comes back … as soon as the
    # index is rebuilt", logged "snapshot … refused while it answered: … has no readable files.json:
    # [Errno 24]", the last good older snapshot served from then on, and /healthz 200 ok meanwhile.
    current = store.current_id(index)
    app = create_app({"INDEX_DIR": str(index), "TESTING": True})
    client = app.test_client()
    assert client.get("/healthz").status_code == 200  # open, its searcher too; no column file read yet
    with out_of_files(monkeypatch, index), caplog.at_level(logging.WARNING):
        for _ in range(2):
            assert_short(client.get("/api/search?q=data"))
            assert_short(client.get("/api/search?q=numbat&sort=newest"))
        body = assert_degraded(client)
        assert body["snapshot"] == current  # what it has open, still
        assert_degraded(client)  # the same answer each time: not ok between two failed searches
    said = caplog.text
    assert "refused" not in said and "EMFILE" in said and "ulimit -n" in said and "LimitNOFILE" in said, said
    service = app.extensions["search"]
    assert service.refusal() is None and service.refused is None
    # Relieved: the next request is answered, from the same snapshot (not an older one standing in).
    answer = client.get("/api/search?q=numbat").get_json()
    assert answer["snapshot"] == current and answer["total"] == 1
    monkeypatch.setattr("search.service.SHORTAGE_HOLD_S", 0.0)  # its time out of rotation passed
    assert client.get("/healthz").get_json()["status"] == "ok"


def test_out_of_files_opening_the_snapshot_is_no_damage_and_it_opens_once_relieved(index, monkeypatch, caplog):
    # A QA pass (ulimit -n 24): /healthz degraded "snapshot … cannot be opened: [Errno 24]", the snapshot
    # refused and, with nothing older opening either, refused until its folder changed.
    current = store.current_id(index)
    app = create_app({"INDEX_DIR": str(index), "TESTING": True})
    client = app.test_client()
    with out_of_files(monkeypatch, index), caplog.at_level(logging.WARNING):
        assert_short(client.get("/api/search?q=numbat"))
        assert_short(client.get("/api/search?q=data"))
        assert_degraded(client)
        assert client.get("/?q=data").status_code == 503  # a page too, explained
    assert "refused" not in caplog.text and "ulimit -n" in caplog.text, caplog.text
    assert app.extensions["search"].refused is None
    answer = client.get("/api/search?q=numbat").get_json()
    assert answer["snapshot"] == current and answer["total"] == 1


def test_a_publish_met_out_of_files_leaves_the_open_snapshot_answering_and_is_opened_once_relieved(index, tmp_path, monkeypatch):
    root = tmp_path / "index"
    shutil.copytree(index, root, symlinks=True)
    first = store.current_id(root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    assert client.get("/api/search?q=numbat").get_json()["snapshot"] == first
    topichub("update", write_jsonl(tmp_path / "more.jsonl", [{**NEW, "id": "quokka", "title": "Quokka"}]), "--index-dir", root)
    new = store.current_id(root)
    with out_of_files(monkeypatch, store.snapshots_dir(root) / new):
        answer = client.get("/api/search?q=numbat")
        assert answer.status_code == 200 and answer.get_json()["snapshot"] == first  # meanwhile
        assert_degraded(client)
    assert client.get("/api/search?q=quokka").get_json()["snapshot"] == new
