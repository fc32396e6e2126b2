"""Many topics: more topic pages, guides and JSONL files in one corpus, each home topic in the facet."""

from __future__ import annotations

import shutil

import pytest

from corpus.sources import DEFAULT_DIR
from index.build import build
from tests.conftest import write_jsonl
from web import create_app

ROBOTICS_PAGE = """Robotics
robotics·3 events·last 2h agoRobot arms, humanoids and the learning systems that drive them.
Related entities
Related topics (0)
Guides (1)
Recent events (3)
Humanoid robot learns to fold laundry
A humanoid platform learned laundry folding from teleoperated demonstrations, using a diffusion policy.
Warehouse arms reach a million picks
A fleet of warehouse robot arms passed one million autonomous picks with a grasping model trained in simulation.
Open dataset of robot trajectories released
Researchers released an open dataset of manipulation trajectories collected across twenty robot embodiments.
"""

ROBOTICS_GUIDE = """What robotics covers
Robotics joins perception, planning and control: grippers, humanoids and the policies that move them.
Why simulation matters
Policies are trained in simulation first, then transferred to real arms with domain randomisation.
"""


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("many")
    corpus = shutil.copytree(DEFAULT_DIR, tmp / "corpus")
    (corpus / "robotics.topic.txt").write_text(ROBOTICS_PAGE, encoding="utf-8")
    (corpus / "robotics.guide.txt").write_text(ROBOTICS_GUIDE, encoding="utf-8")
    write_jsonl(corpus / "biology.jsonl", [
        {"id": "protein-folding-model", "title": "Protein folding model update", "summary": "Better folding.",
         "topics": ["biology"], "kind": "event"},
    ])
    build([corpus], root=tmp / "index")
    return create_app({"INDEX_DIR": str(tmp / "index"), "TESTING": True}).test_client()


def test_the_topic_facet_lists_each_home_topic(client):
    body = client.get("/api/search").get_json()
    facet = {f["value"]: f for f in body["facets"]["topic"]}
    assert {"training-infrastructure", "robotics", "biology"} <= facet.keys()
    assert facet["robotics"]["count"] == 5 and facet["robotics"]["label"] == "Robotics"  # 3 events, 2 sections
    assert facet["biology"]["count"] == 1
    assert body["total"] == 57 + 5 + 1


def test_a_topic_filter_keeps_to_that_topic(client):
    body = client.get("/api/search?q=robot+arms&topic=robotics").get_json()
    assert body["total"] >= 2 and all("robotics" in hit["topics"] for hit in body["hits"])
    assert client.get("/api/search?q=humanoid&topic=training-infrastructure").get_json()["total"] == 0


def test_topics_endpoint_and_guide_page_for_the_second_topic(client):
    topics = {t["slug"]: t for t in client.get("/api/topics").get_json()["topics"]}
    robotics = topics["robotics"]
    assert robotics["name"] == "Robotics" and robotics["count"] == 5
    assert robotics["description"].startswith("Robot arms") and robotics["guide_url"] == "/guides/robotics"
    assert topics["biology"]["guide_url"] is None
    page = client.get("/guides/robotics")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "What robotics covers" in html and "Why simulation matters" in html
    assert "Training infrastructure encompasses" not in html


def test_each_topic_says_how_many_events_it_has(client, tmp_path):
    # /api/topics said event_count 0 for the home topic of a hub built from JSONL alone (no topic page
    # states its count) and left it out for every topic only documents name (a QA pass).
    topics = {t["slug"]: t for t in client.get("/api/topics").get_json()["topics"]}
    assert topics["robotics"]["event_count"] == 3  # as its topic page states it
    assert topics["biology"]["event_count"] == 1  # no page: the events held
    write_jsonl(tmp_path / "only.jsonl", [
        {"id": f"e{i}", "title": f"Cluster news {i}", "summary": "GPUs.", "topics": ["training-infrastructure"]} for i in range(4)
    ] + [{"id": "g1", "title": "Basics", "summary": "What it is.", "topics": ["training-infrastructure"], "kind": "guide"}])
    build([tmp_path / "only.jsonl"], root=tmp_path / "index")
    alone = create_app({"INDEX_DIR": str(tmp_path / "index"), "TESTING": True}).test_client()
    home = next(t for t in alone.get("/api/topics").get_json()["topics"] if t["slug"] == "training-infrastructure")
    assert home["count"] == 5 and home["event_count"] == 4
