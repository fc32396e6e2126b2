"""Shared fixtures: the seed corpus, an index built from it once, and the app on that index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.servers import free_port  # noqa: F401  (re-exported for the tests)

from corpus.sources import DEFAULT_DIR, load_corpus
from index.build import build
from search.service import SearchService
from web import create_app

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DEBIAN = SHARED / "corpora" / "debian-packages.jsonl.gz"
TOPIC_PAGE = DEFAULT_DIR / "training-infrastructure.topic.txt"
GUIDE = DEFAULT_DIR / "training-infrastructure.guide.txt"


@pytest.fixture(scope="session")
def seed_corpus():
    return load_corpus()


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("index")
    build(root=root)
    return root


@pytest.fixture(scope="session")
def service(index_dir) -> SearchService:
    return SearchService(index_dir)


@pytest.fixture()
def app(index_dir):
    return create_app({"INDEX_DIR": str(index_dir), "TESTING": True})


@pytest.fixture()
def client(app):
    return app.test_client()


def write_jsonl(path: Path, docs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return path


