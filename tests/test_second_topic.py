"""A second hub topic beside the seed one, as docs/topics.md tells an editor to add it: its own folder
(tests/data/second-topic: a topic page and its guide) built with corpus/data.  A QA pass found its
events given no organisation: the gazetteer was read for the seed topic only, so `entity=nvidia` left
out the second topic's NVIDIA event and its topic page's organisation facet was all but empty."""

from __future__ import annotations

import re

import pytest

from corpus.sources import DEFAULT_DIR, load_corpus
from index.build import build
from tests.conftest import DATA, write_jsonl
from web import create_app

SECOND = DATA / "second-topic"
TOPIC = "inference-infrastructure"
DYNAMO = "nvidia-launches-dynamo-an-open-source-inference-framework-for-disaggregated"  # slugs stop at a length
MAIA = "microsoft-deploys-maia-200-accelerators-for-copilot-inference"
GROQ = "groq-raises-750-million-to-expand-lpu-inference-cloud"
# A generic JSONL import in the same build: a topic no topic page defines keeps its lines as written.
PACKAGE = {"id": "nvidia-driver", "title": "nvidia-driver", "summary": "NVIDIA binary driver, with a Meta package.",
           "topics": ["packages"]}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("second")
    packages = write_jsonl(tmp / "packages.jsonl", [PACKAGE])
    build([DEFAULT_DIR, SECOND, packages], root=tmp / "index", semantic=False)
    return create_app({"INDEX_DIR": str(tmp / "index"), "TESTING": True}).test_client()


def _ids(body):
    return [hit["id"] for hit in body["hits"]]


def test_an_organisation_filter_lists_the_second_topics_events(client):
    body = client.get("/api/search?q=&entity=nvidia&per_page=50").get_json()
    assert DYNAMO in _ids(body)
    assert TOPIC in next(hit for hit in body["hits"] if hit["id"] == DYNAMO)["topics"]
    # The seed topic's NVIDIA events stay.
    assert any("training-infrastructure" in hit["topics"] for hit in body["hits"])


def test_the_second_topics_organisation_facet_counts_what_its_pages_name(client):
    body = client.get(f"/api/search?q=&topic={TOPIC}").get_json()
    facet = {f["value"]: (f["label"], f["count"]) for f in body["facets"]["entity"]}
    # Dynamo names NVIDIA, Maia Microsoft, the guide Google and Amazon; Groq is no organisation of the gazetteer.
    assert facet == {"nvidia": ("NVIDIA", 1), "microsoft": ("Microsoft", 1), "google": ("Google", 1),
                     "amazon": ("Amazon", 1)}
    assert client.get(f"/api/documents/{GROQ}").get_json()["document"]["entities"] == []
    assert client.get(f"/api/documents/{MAIA}").get_json()["document"]["entities"] == ["microsoft"]


def test_the_second_topics_page_offers_its_organisations(client):
    page = client.get(f"/?topic={TOPIC}").get_data(as_text=True)
    assert "entity=nvidia" in page and "entity=microsoft" in page


def test_a_generic_jsonl_topic_in_the_same_build_is_not_read_for_organisations(client):
    assert client.get("/api/documents/nvidia-driver").get_json()["document"]["entities"] == []
    body = client.get("/api/search?q=&topic=packages").get_json()
    assert body["facets"]["entity"] == []


def test_the_hubs_own_synonyms_search_the_second_topic_too(client):
    # chip/silicon/processor is the hub's wording (applies_to the seed topic): a snapshot holding the
    # seed topic keeps it, for every topic in it.
    body = client.get(f"/api/search?q=silicon&topic={TOPIC}").get_json()
    assert GROQ in _ids(body)  # "LPU chips"


def test_a_topic_page_alone_gets_organisations_too(tmp_path):
    # Built without the seed topic, the second topic is still a hub topic: its topic page says so.
    corpus = load_corpus([SECOND])
    dynamo = next(record for record in corpus.records if record.id == DYNAMO)
    assert dynamo.entities == ("nvidia",) and "nvidia" in corpus.organisations


def test_the_editors_guide_example_builds_with_the_seed_topic(tmp_path):
    # docs/topics.md's tiny topic page and guide, as an editor copies them: they build beside the seed
    # topic, and the guide's sections are the topic's.
    doc = (DATA.parent.parent / "docs" / "topics.md").read_text(encoding="utf-8")
    page, guide = re.findall(r"```text\n(.*?)```", doc, re.S)[:2]
    folder = tmp_path / "topics"
    folder.mkdir()
    (folder / "robotics.topic.txt").write_text(page, encoding="utf-8")
    (folder / "robotics.guide.txt").write_text(guide, encoding="utf-8")
    corpus = load_corpus([DEFAULT_DIR, folder])
    mine = [record for record in corpus.records if record.topic == "robotics"]
    assert [record.kind for record in mine] == ["event", "event", "guide", "guide"]
    assert mine[0].entities == ("nvidia",) and mine[1].entities == ("google",)
    assert "training-infrastructure" in corpus.topics and "docs/topics.md" in (DATA.parent.parent / "README.md").read_text()


def test_an_update_of_the_second_topic_keeps_its_organisations(tmp_path):
    # An update reads no topic page: the second topic's lines got no organisation from their text, so
    # replacing its NVIDIA Dynamo event took it out of entity=nvidia (a QA pass).
    from index.update import update

    build([DEFAULT_DIR, SECOND], root=tmp_path / "index", semantic=False)
    client = create_app({"INDEX_DIR": str(tmp_path / "index"), "TESTING": True}).test_client()
    before = client.get(f"/api/search?q=&entity=nvidia&topic={TOPIC}").get_json()["total"]
    changed = {"id": DYNAMO, "title": "NVIDIA Launches Dynamo 1.0", "summary": "NVIDIA released Dynamo 1.0, its serving framework.",
               "topics": [TOPIC]}
    update(write_jsonl(tmp_path / "changes.jsonl", [changed]), tmp_path / "index")
    after = client.get(f"/api/search?q=&entity=nvidia&topic={TOPIC}").get_json()
    assert before >= 1 and after["total"] == before and DYNAMO in _ids(after)
    assert client.get(f"/api/documents/{DYNAMO}").get_json()["document"]["entities"] == ["nvidia"]
