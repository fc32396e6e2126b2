"""A topic that has its own topic page, renamed, keeps its old addresses (an editor's QA pass).

The taxonomy's ``formerly`` served only the home topic and its related topics, and a topic page's
slug cannot be one of those: an editor renaming a second topic (tests/data/second-topic's
inference-infrastructure, as inference-serving) had no way to keep its addresses, and after a plain
rename /guides/OLD was a 404, /?topic=OLD and /api/search?topic=OLD found nothing and the feed of OLD
was quiet (200, no entry).  The taxonomy's "renamed" lists a topic page's former slugs.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from corpus.enrich import TAXONOMY_FILE, load_taxonomy
from corpus.errors import CorpusError
from corpus.sources import DEFAULT_DIR, load_corpus
from index.build import build_corpus
from tests.conftest import DATA, REPO, TOPICHUB, write_jsonl
from tests.test_pages_renamed import renamed_sources, renamed_taxonomy
from web import create_app

OLD, NEW = "inference-infrastructure", "inference-serving"
SECOND = DATA / "second-topic"  # the topic under its old slug
DYNAMO = "nvidia-launches-dynamo-an-open-source-inference-framework-for-disaggregated"


def taxonomy_file(path: Path, renamed: object = ({"slug": NEW, "formerly": [OLD]},), **extra: object) -> Path:
    """Write the seed taxonomy to *path* with *renamed* as its "renamed" (and *extra* keys)."""
    data = json.loads(TAXONOMY_FILE.read_text(encoding="utf-8"))
    data["renamed"] = list(renamed) if isinstance(renamed, tuple) else renamed
    data.update(extra)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def renamed_topic(folder: Path) -> Path:
    """Write the second topic's page and guide to *folder* under its new slug, as an editor renames it:
    the files' names and the page's line 2."""
    folder.mkdir(parents=True)
    page = (SECOND / f"{OLD}.topic.txt").read_text(encoding="utf-8")
    assert f"\n{OLD}·" in page
    (folder / f"{NEW}.topic.txt").write_text(page.replace(f"\n{OLD}·", f"\n{NEW}·", 1), encoding="utf-8")
    (folder / f"{NEW}.guide.txt").write_bytes((SECOND / f"{OLD}.guide.txt").read_bytes())
    return folder


def build_renamed(tmp: Path) -> Path:
    """Build corpus/data, the renamed second topic and a JSONL line still writing the old slug into
    an index under *tmp*, with a taxonomy listing the old slug; return the index folder."""
    taxonomy = load_taxonomy(taxonomy_file(tmp / "taxonomy.json"))
    late = write_jsonl(tmp / "late.jsonl", [{"id": "wombat-serving-engine", "title": "Wombat serving engine",
                                             "summary": "A wombat lab ships a serving engine.", "topics": [OLD]}])
    corpus = load_corpus([DEFAULT_DIR, renamed_topic(tmp / "topics"), late], taxonomy=taxonomy)
    build_corpus(corpus, tmp / "ix", semantic=False)
    return tmp / "ix"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    ix = build_renamed(tmp_path_factory.mktemp("topic-rename"))
    return create_app({"INDEX_DIR": str(ix), "TESTING": True}).test_client()


def test_the_renamed_topics_old_guide_address_leads_to_its_new_one_for_good(client):
    old = client.get(f"/guides/{OLD}")  # was a 404
    assert old.status_code == 301 and old.headers["Location"] == f"/guides/{NEW}"
    new = client.get(old.headers["Location"])
    assert new.status_code == 200 and "The serving stack" in new.get_data(as_text=True)


def test_the_renamed_topics_old_filter_on_the_search_page_leads_to_the_new_slug(client):
    old = client.get(f"/?q=inference&topic={OLD}")  # was 200, no result
    assert old.status_code == 301
    assert parse_qs(urlsplit(old.headers["Location"]).query) == {"q": ["inference"], "topic": [NEW]}
    total = client.get(f"/api/search?q=inference&topic={NEW}").get_json()["total"]
    assert total > 0 and f"{total} results" in client.get(old.headers["Location"]).get_data(as_text=True)


def test_the_renamed_topics_old_feed_leads_to_the_new_one_for_good(client):
    old = client.get(f"/feeds/search.atom?topic={OLD}")  # was 200 with no entry
    assert old.status_code == 301 and parse_qs(urlsplit(old.headers["Location"]).query) == {"topic": [NEW]}
    feed = client.get(old.headers["Location"])
    assert feed.status_code == 200 and f"/events/{DYNAMO}" in feed.get_data(as_text=True)


def test_the_api_reads_the_old_slug_as_the_renamed_topic_and_lists_it(client):
    old = client.get(f"/api/search?q=&topic={OLD}").get_json()
    new = client.get(f"/api/search?q=&topic={NEW}").get_json()
    assert old["total"] == new["total"] > 0 and [h["id"] for h in old["hits"]] == [h["id"] for h in new["hits"]]
    assert old["filters"]["topic"] == [NEW]
    listed = {t["slug"]: t for t in client.get("/api/topics").get_json()["topics"]}
    assert listed[NEW]["formerly"] == [OLD] and OLD not in listed
    assert listed[NEW]["label"] == "Inference Infrastructure"  # the page's name, not the taxonomy's
    assert listed["training-infrastructure"]["formerly"] == []


def test_the_renamed_topics_event_and_guide_section_pages_answer(client):
    event = client.get(f"/events/{DYNAMO}")
    assert event.status_code == 200 and f'href="/?topic={NEW}"' in event.get_data(as_text=True)
    section = client.get(f"/events/{NEW}--what-this-area-covers")
    assert section.status_code == 302 and section.headers["Location"] == f"/guides/{NEW}#what-this-area-covers"
    doc = client.get(f"/api/documents/{NEW}--the-serving-stack").get_json()["document"]
    assert doc["topics"] == [NEW] and doc["url"] == f"/guides/{NEW}#the-serving-stack"


def test_a_guide_sections_old_address_leads_to_its_new_one_for_good(client):
    # A section's id is made of its topic's slug: /events/OLD--anchor and /api/documents/OLD--anchor were
    # 404s after the rename, where the topic's own old addresses lead on (the rename helper's report).
    page = client.get(f"/events/{OLD}--what-this-area-covers")
    assert page.status_code == 301 and page.headers["Location"] == f"/events/{NEW}--what-this-area-covers"
    api = client.get(f"/api/documents/{OLD}--the-serving-stack")
    assert api.status_code == 301 and api.headers["Location"] == f"/api/documents/{NEW}--the-serving-stack"
    assert client.get(api.headers["Location"]).get_json()["document"]["id"] == f"{NEW}--the-serving-stack"
    # An anchor the guide does not have is still a 404, as is a slug no topic had.
    assert client.get(f"/events/{OLD}--no-such-section").status_code == 404
    assert client.get("/api/documents/no-such-topic--the-serving-stack").status_code == 404


def test_a_source_still_writing_the_old_slug_is_the_renamed_topic(client):
    doc = client.get("/api/documents/wombat-serving-engine").get_json()["document"]
    assert doc["topics"] == [NEW]


def test_a_topic_page_still_declaring_the_old_slug_is_a_build_error_naming_the_page(tmp_path):
    taxonomy = load_taxonomy(taxonomy_file(tmp_path / "taxonomy.json"))
    page = SECOND / f"{OLD}.topic.txt"  # the old folder left in the build beside the renamed one
    with pytest.raises(CorpusError, match=f"topic '{OLD}' is a former slug of '{NEW}'") as error:
        load_corpus([DEFAULT_DIR, renamed_topic(tmp_path / "topics"), SECOND], taxonomy=taxonomy)
    assert (error.value.path, error.value.line) == (str(page), 2)
    assert str(tmp_path / "taxonomy.json") in error.value.message


@pytest.mark.parametrize(("renamed", "message"), [
    ({"slug": NEW}, "'renamed' must be a list"),
    ([NEW], r"renamed topic 1 must be a JSON object"),
    ([{"slug": "Inference Serving", "formerly": [OLD]}], "slug 'Inference Serving' must be lowercase words"),
    ([{"slug": NEW, "formerly": []}], r"renamed topic 1 \('inference-serving'\): 'formerly' must be a non-empty list of slugs"),
    ([{"slug": NEW, "formerly": OLD}], "'formerly' must be a non-empty list of slugs"),
    ([{"slug": NEW, "formerly": ["Inference Infrastructure"]}], "'formerly' must be a non-empty list of slugs"),
    ([{"slug": NEW, "formerly": ["funding"]}], f"topic '{NEW}': former slug 'funding' is a topic's slug now"),
    ([{"slug": NEW, "formerly": [NEW]}], f"former slug '{NEW}' is a topic's slug now"),
    ([{"slug": NEW, "formerly": [OLD]}, {"slug": "robotics", "formerly": [OLD]}],
     f"former slug '{OLD}' is claimed by '{NEW}' and 'robotics'"),
    ([{"slug": NEW, "formerly": [OLD]}, {"slug": NEW, "formerly": ["inference"]}],
     f"renamed topic 2 \\('{NEW}'\\): slug '{NEW}' is listed twice"),
])
def test_a_bad_renamed_entry_is_a_build_error_naming_the_taxonomy(tmp_path, renamed, message):
    bad = taxonomy_file(tmp_path / "taxonomy.json", renamed)
    with pytest.raises(CorpusError, match=message) as error:
        load_taxonomy(bad)
    assert error.value.path == str(bad)


@pytest.mark.parametrize(("slug", "what"), [("training-infrastructure", "the home topic"),
                                            ("compute-deals", "a related topic")])
def test_renaming_a_taxonomy_topic_there_is_an_error_telling_to_use_its_own_formerly(tmp_path, slug, what):
    bad = taxonomy_file(tmp_path / "taxonomy.json", [{"slug": slug, "formerly": ["old-slug"]}])
    with pytest.raises(CorpusError) as error:
        load_taxonomy(bad)
    assert error.value.path == str(bad)
    assert error.value.message == (f"renamed topic 1 ('{slug}'): '{slug}' is {what} of the taxonomy, not a topic page's: "
                                   "list its former slugs in its own 'formerly', not in 'renamed'")


def test_a_renamed_topic_no_topic_page_of_the_build_declares_is_warned_of_not_refused(tmp_path, caplog):
    # A typo in "renamed" would leave the old addresses dead without a word; but one taxonomy serves
    # every build, and a build of the seed topic alone has no page of the renamed topic.
    path = taxonomy_file(tmp_path / "taxonomy.json", [{"slug": "inference-serve", "formerly": [OLD]}])
    with caplog.at_level(logging.WARNING, logger="corpus.sources"):
        corpus = load_corpus([DEFAULT_DIR, renamed_topic(tmp_path / "topics")], taxonomy=load_taxonomy(path))
    assert [r.getMessage() for r in caplog.records if "renamed topic" in r.getMessage()] == [
        f"{path}: renamed topic 'inference-serve' is no topic page's slug in this build (did you mean "
        f"'{NEW}'?): its former slugs ('{OLD}') lead nowhere here; the build's topic pages: '{NEW}', "
        "'training-infrastructure'"]
    assert corpus.topics[NEW].formerly == ()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="corpus.sources"):
        load_corpus([DEFAULT_DIR, renamed_topic(tmp_path / "again")], taxonomy=load_taxonomy(taxonomy_file(path)))
    assert not [r for r in caplog.records if "renamed topic" in r.getMessage()]


def test_a_misspelt_taxonomy_key_is_told_of(tmp_path, caplog):
    # "renamd" did nothing, and said nothing: the editor's old addresses dead and no one knew why.
    path = taxonomy_file(tmp_path / "taxonomy.json", (), renamd=[{"slug": NEW, "formerly": [OLD]}])
    with caplog.at_level(logging.WARNING, logger="corpus.enrich"):
        load_taxonomy(path)
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: key 'renamd' is not one the taxonomy reads (about, home, related, renamed), and is ignored"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="corpus.enrich"):
        assert load_taxonomy().renamed == {}  # the seed taxonomy: every key read, no topic page renamed
    assert not caplog.records


def test_the_editors_guide_rename_example_keeps_the_old_slug(tmp_path):
    # docs/topics.md's "Renaming a topic", done as it says to its tiny robotics topic: the files renamed,
    # line 2's slug, and its "renamed" entry in the taxonomy.
    doc = (REPO / "docs" / "topics.md").read_text(encoding="utf-8")
    page, guide = re.findall(r"```text\n(.*?)```", doc, re.S)[:2]
    section = doc[doc.index("## Renaming a topic"):]
    entry = json.loads("{" + re.search(r"```json\n(.*?)```", section, re.S)[1] + "}")
    folder = tmp_path / "topics"
    folder.mkdir()
    (folder / "robot-learning.topic.txt").write_text(page.replace("\nrobotics·", "\nrobot-learning·", 1), encoding="utf-8")
    (folder / "robot-learning.guide.txt").write_text(guide, encoding="utf-8")
    path = taxonomy_file(tmp_path / "taxonomy.json", entry["renamed"])
    corpus = load_corpus([DEFAULT_DIR, folder], taxonomy=load_taxonomy(path))
    assert corpus.topics["robot-learning"].formerly == ("robotics",)


def update(ix: Path, change: Path) -> str:
    """Run `topichub update` of *change* on the index *ix*, as an editor does; return what it wrote to stderr."""
    result = subprocess.run([TOPICHUB, "update", "--index-dir", str(ix), str(change)], capture_output=True, text=True,
                            timeout=300, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_an_update_line_writing_the_old_slug_files_it_under_the_renamed_topic(tmp_path):
    # The update read the index's topics without their former slugs: the line made 'inference-infrastructure'
    # a topic of its own again (with a warning that it was no topic of the index), out of /?topic=inference-serving.
    ix = build_renamed(tmp_path)
    change = write_jsonl(tmp_path / "up.jsonl", [{"id": "nvidia-dynamo-2", "title": "NVIDIA Ships Dynamo 2",
                                                  "summary": "NVIDIA shipped Dynamo 2, splitting prefill and decode.",
                                                  "topics": [OLD]}])
    told = update(ix, change)
    assert "no topic of the index" not in told
    client = create_app({"INDEX_DIR": str(ix), "TESTING": True}).test_client()
    doc = client.get("/api/documents/nvidia-dynamo-2").get_json()["document"]
    assert doc["topics"] == [NEW] and doc["entities"] == ["nvidia"]  # the hub topic's organisations, as built
    assert "nvidia-dynamo-2" in [h["id"] for h in client.get(f"/api/search?q=dynamo&topic={NEW}").get_json()["hits"]]
    old = client.get(f"/guides/{OLD}")  # no document holds the old slug: it still leads to the new one
    assert old.status_code == 301 and old.headers["Location"] == f"/guides/{NEW}"


def test_an_update_line_writing_a_related_topics_old_slug_files_it_under_the_renamed_topic(tmp_path):
    # The same for a related topic renamed with its own "formerly", on a line not of the home topic.
    taxonomy = load_taxonomy(renamed_taxonomy(tmp_path / "taxonomy.json"))
    build_corpus(load_corpus([renamed_sources(tmp_path / "sources")], taxonomy=taxonomy), tmp_path / "ix", semantic=False)
    change = write_jsonl(tmp_path / "up.jsonl", [{"id": "quokka-compute-pact", "title": "Quokka compute pact",
                                                  "summary": "A quokka lab signs a pact.", "topics": ["compute-deals"]}])
    assert "no topic of the index" not in update(tmp_path / "ix", change)
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    assert client.get("/api/documents/quokka-compute-pact").get_json()["document"]["topics"] == ["compute-agreements"]
