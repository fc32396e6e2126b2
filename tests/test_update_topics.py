"""An update naming a topic the index does not have: a typo of one it has, or a topic added on purpose."""

from __future__ import annotations

from click.testing import CliRunner

from corpus.sources import DEFAULT_DIR
from index.build import build
from tests.conftest import DATA, write_jsonl
from web import create_app
from web.cli import main

TOPIC = "inference-infrastructure"  # tests/data/second-topic's
LINE = {"title": "Typo Topic Event", "summary": "NVIDIA shipped something."}


def test_an_update_naming_a_topic_the_index_lacks_is_applied_and_warned_of_at_its_line(tmp_path, caplog):
    # QA: "topics": ["inference-acelerators"] (a typo) printed "1 added", exit 0, and made a topic of
    # its own, its one event out of the topic meant, without a word.
    build([DEFAULT_DIR, DATA / "second-topic"], root=tmp_path / "ix", semantic=False)
    changes = write_jsonl(tmp_path / "changes.jsonl", [
        {"id": "fine", **LINE, "topics": [TOPIC]},
        {"id": "typo", **LINE, "topics": ["inference-infrastucture"]},
        {"id": "meant", **LINE, "topics": ["robotics"]},
        {"id": "meant-too", **LINE, "topics": ["robotics", "Compute deals"]},
    ])
    caplog.clear()
    result = CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(tmp_path / "ix")])
    assert result.exit_code == 0 and "4 added" in result.output, result.output
    warned = [r.getMessage() for r in caplog.records if "no topic of the index" in r.getMessage()]
    assert warned == [
        f"{changes}:2: topic 'inference-infrastucture' is no topic of the index: the update adds it, a topic "
        f"of its own (did you mean '{TOPIC}'?)",
        f"{changes}:3: topic 'robotics' is no topic of the index: the update adds it, a topic of its own, "
        "with 1 more line writing it",
    ]
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    assert client.get("/api/documents/typo").get_json()["document"]["topics"] == ["inference-infrastucture"]
