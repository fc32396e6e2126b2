"""The Makefile's clean-up: `make clean` removes what `make install` and the tests make, and keeps
the index an operator served (`instance/index`, maybe built from their own corpus), which it deleted."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def make(folder: Path, target: str) -> None:
    subprocess.run(["make", "-s", "-f", str(REPO / "Makefile"), target], cwd=folder, check=True, timeout=60,
                   capture_output=True)


def test_make_clean_keeps_the_index_and_clean_index_removes_it(tmp_path):
    made = [".venv/bin/python", ".venv-lock/x", ".pytest_cache/v", "node_modules/axe-core/axe.min.js",
            "topichub_search.egg-info/PKG-INFO", "web/__pycache__/cli.cpython-311.pyc"]
    kept = ["instance/index/current", "instance/index/snapshots/20261207T000000-000000-1/snapshot.json",
            "corpus/data/seed.topic.txt", "web/cli.py"]
    for name in made + kept:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")

    make(tmp_path, "clean")
    assert [name for name in kept if not (tmp_path / name).is_file()] == []  # the index went with `instance`
    assert [name for name in made if (tmp_path / name).exists()] == []
    assert not (tmp_path / ".venv").exists() and not (tmp_path / "web" / "__pycache__").exists()

    make(tmp_path, "clean-index")
    assert not (tmp_path / "instance" / "index").exists()
    assert (tmp_path / "corpus/data/seed.topic.txt").is_file() and (tmp_path / "web/cli.py").is_file()
