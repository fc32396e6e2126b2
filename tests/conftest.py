"""Shared fixtures: the seed corpus, an index built from it once, and the app on that index."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.servers import free_port  # noqa: F401  (re-exported for the tests)

from corpus.sources import DEFAULT_DIR, load_corpus
from index import store
from index.build import build
from search.service import SearchService
from web import create_app

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
# Every 128th of the 63,956 packages of the benchmarks' Debian corpus (500 lines, all sections): tests
# run from a bare clone, so they read only what the repository holds.
DEBIAN = DATA / "debian-sample.jsonl.gz"
DEBIAN_SAMPLE_SIZE = 500
# sha256sum of the owner's seed files, which corpus/data holds byte for byte.
SEED_CHECKSUMS = DATA / "seeds.sha256"
# A few hundred Debian packages with published dates in several forms (cut by bench/make_debian_dated.py).
DATED = REPO / "tests" / "data" / "debian-dated.jsonl"
DATED_FIRST_SEEN = "2025-03-15T08:00:00Z"  # when the dated index "first saw" its packages
TOPICHUB = str(Path(sys.executable).parent / "topichub")  # the installed command, as an operator runs it
TOPIC_PAGE = DEFAULT_DIR / "training-infrastructure.topic.txt"
GUIDE = DEFAULT_DIR / "training-infrastructure.guide.txt"



@pytest.fixture(autouse=True)
def switches_in_one_second(monkeypatch):
    """Let the tests switch snapshots as fast as they like: a switch in the second of the one before
    waits for the next second (``index.store.SWITCH_SECONDS_APART``, for Last-Modified), which cost
    the suite some three minutes of sleep.  tests/test_feeds.py turns it back on where it checks it;
    tests that run the CLI in a process of its own wait as an operator's does."""
    monkeypatch.setattr(store, "SWITCH_SECONDS_APART", False)


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


@pytest.fixture(scope="session")
def dated_index(tmp_path_factory) -> Path:
    """Return an index of the dated Debian sample, built as if on DATED_FIRST_SEEN."""
    root = tmp_path_factory.mktemp("dated-index")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("index.build.now_utc", lambda: DATED_FIRST_SEEN)
        build([DATED], root=root)
    return root


@pytest.fixture()
def app(index_dir):
    return create_app({"INDEX_DIR": str(index_dir), "TESTING": True})


@pytest.fixture()
def client(app):
    return app.test_client()


def write_jsonl(path: Path, docs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return path




def one_mark_a_word(html: str) -> str:
    """Return highlighted *html* with a mark for each word, as the highlighter made them before it joined
    marks that only blanks part ("<mark>data center</mark>" is "<mark>data</mark> <mark>center</mark>"):
    for the tests that look at which words are marked, which the joining does not change."""
    return re.sub(r"<mark>[^<]*</mark>", lambda mark: re.sub(r"(\s+)", r"</mark>\1<mark>", mark[0]), html)


def topichub(*args: object) -> str:
    """Run the installed topichub command in a process of its own; return its output, failing on an error."""
    result = subprocess.run([TOPICHUB, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return result.stdout


# For a command run with `python -c SCRIPT`: after(real, when) wraps step *real* so that the script's
# act() (a SIGKILL, a SIGTERM) follows it when when(*args) holds: a moment inside a command, reached exactly.
AFTER_STEP = """
def after(real, when=lambda *args: True):
    def step(*args, **kwargs):
        result = real(*args, **kwargs)
        if when(*args):
            act()
        return result
    return step
"""


def leftovers(root: Path) -> list[str]:
    """Return what unfinished builds and publishes left in index folder *root*: temporary folders and links."""
    return sorted(p.name for p in [*store.snapshots_dir(root).glob(".tmp-*"), *root.glob(".current-*")])


def debian_lines(count: int) -> list[str]:
    """Return *count* JSONL lines of Debian packages: the sample's, then copies of it under new ids."""
    with gzip.open(DEBIAN, "rt", encoding="utf-8") as source:
        sample = [json.loads(line) for line in source]
    lines = []
    for n in range(count):
        copy, doc = divmod(n, len(sample))
        record = sample[doc] if not copy else {**sample[doc], "id": f"{sample[doc]['id']}-copy{copy}"}
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return lines
