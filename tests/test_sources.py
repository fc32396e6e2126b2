"""Loading a corpus: a topic written by a known topic's label is that topic."""

from __future__ import annotations

import os

import pytest

from corpus.enrich import load_taxonomy
from corpus.sources import DEFAULT_DIR, load_corpus
from index.build import build
from tests.conftest import write_jsonl
from web import create_app

HOME = load_taxonomy().home
RELATED = load_taxonomy().related[0].topic
TEXT = {"title": "OpenAI signs a compute deal with Microsoft for a new data center",
        "summary": "The agreement covers a gigawatt campus and Nvidia GPUs."}


def record(doc_id: str, *topics: str) -> dict:
    return {"id": doc_id, **TEXT, "topics": list(topics)}


@pytest.mark.parametrize("written", [HOME.name, f"  {HOME.name.upper()} ", HOME.name.lower().replace(" ", "  ")])
def test_the_home_topic_written_by_its_label_is_the_home_topic_and_is_enriched(tmp_path, written):
    path = write_jsonl(tmp_path / "docs.jsonl", [record("by-slug", HOME.slug), record("by-label", written)])
    by_slug, by_label = load_corpus([path]).records
    assert by_slug.topic == HOME.slug and len(by_slug.topics) > 1 and by_slug.entities  # what enrichment gives
    assert (by_label.topic, by_label.topics, by_label.entities) == (by_slug.topic, by_slug.topics, by_slug.entities)


def test_a_related_topic_and_a_declared_topic_written_by_their_labels_are_those_topics(tmp_path):
    (tmp_path / "robots.topic.txt").write_text(
        "Humanoid Robots\nrobots·1 event·last 2h agoRobots that walk.\nRelated entities\nRelated topics (0)\n"
        "Guides (0)\nRecent events (1)\nA robot walks\nIt walked.\n",
        encoding="utf-8",
    )
    write_jsonl(tmp_path / "docs.jsonl", [record("a", HOME.slug, RELATED.name.upper()), record("b", "humanoid robots")])
    corpus = load_corpus([tmp_path])
    records = {r.id: r for r in corpus.records}
    assert RELATED.slug in records["a"].topics and RELATED.name.upper() not in records["a"].topics
    assert (records["b"].topic, records["b"].topics) == ("robots", ("robots",))
    assert set(corpus.topics) >= {"robots", HOME.slug, RELATED.slug}
    assert all(r.topic in corpus.topics for r in corpus.records)


def test_a_topic_written_by_its_label_is_one_facet_value_and_its_filter_finds_it(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [record("by-slug", HOME.slug), record("by-label", HOME.name)])
    build([path], root=tmp_path / "ix", semantic=False)
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    facet = client.get("/api/search", query_string={"q": ""}).get_json()["facets"]["topic"]
    home = [(f["value"], f["count"]) for f in facet if f["label"] == HOME.name]
    assert home == [(HOME.slug, 2)]
    found = client.get("/api/search", query_string={"q": "", "topic": HOME.slug}).get_json()
    assert sorted(h["id"] for h in found["hits"]) == ["by-label", "by-slug"]


def test_a_source_replaced_while_a_build_reads_it_is_refused_and_the_next_build_takes_the_new_one(tmp_path, monkeypatch):
    # The export replaced by its next version (written beside, then renamed over) while a build read
    # it: the index held the old documents under the new file's fingerprint, so /healthz said
    # sources_changed false and serve never rebuilt, the new documents missing for good.
    from click.testing import CliRunner

    import corpus.sources
    from corpus.sources import fingerprint
    from index import store
    from web.cli import main

    source = write_jsonl(tmp_path / "docs.jsonl", [record("first-version", HOME.slug)])
    root = tmp_path / "index"
    build([source], root=root)
    served = store.current_id(root)
    read = corpus.sources.load_jsonl

    def read_then_replaced(path):
        records = read(path)
        write_jsonl(tmp_path / "next.jsonl", [record("second-version", HOME.slug)]).replace(source)
        return records

    monkeypatch.setattr(corpus.sources, "load_jsonl", read_then_replaced)
    result = CliRunner().invoke(main, ["build", str(source), "--index-dir", str(root)])
    assert result.exit_code == 1, result.output
    assert f"Error: {source}: changed while it was being read" in result.output and "Traceback" not in result.output
    assert store.current_id(root) == served
    monkeypatch.undo()
    result = CliRunner().invoke(main, ["build", str(source), "--index-dir", str(root)])  # the same command again
    assert result.exit_code == 0, result.output
    meta = store.read_meta(store.current_path(root))
    assert meta["fingerprint"] == fingerprint([source]) and meta["doc_count"] == 1
    assert create_app({"INDEX_DIR": str(root)}).test_client().get("/api/documents/second-version").status_code == 200


def test_a_source_whose_name_is_not_utf8_builds_and_is_watched(tmp_path):
    # A name written by another system's encoding (Latin-1 "é"): the build's fingerprint encoded it
    # as UTF-8 and stopped with a UnicodeEncodeError traceback, nothing built.
    from click.testing import CliRunner

    from index import store
    from web.cli import main

    source = tmp_path / os.fsdecode(b"caf\xe9.jsonl")
    write_jsonl(source, [record("in-latin-1", HOME.slug)])
    root = tmp_path / "index"
    result = CliRunner().invoke(main, ["build", str(source), "--index-dir", str(root)])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    assert store.current_id(root) is not None
    health = create_app({"INDEX_DIR": str(root)}).test_client().get("/healthz").get_json()
    assert health["sources_changed"] is False


TWO_TOPICS = os.path.join(os.path.dirname(__file__), "data", "two-topics")
SHARED = "red-team-benchmark-for-inference-accelerators-released"


def test_an_event_two_topic_pages_list_is_one_document_found_in_both_topics(tmp_path):
    # The same event (title, so id) on two topics' pages: the later page's replaced the earlier's,
    # so AI Safety Research's filter, facet count and feed lacked an event its page lists.
    build([TWO_TOPICS], root=tmp_path / "ix", semantic=False)
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    for topic in ("ai-safety-research", "inference-hardware"):
        found = client.get("/api/search", query_string={"q": "", "topic": topic, "per_page": 50}).get_json()
        assert SHARED in [h["id"] for h in found["hits"]], topic
    found = client.get("/api/search", query_string={"q": "consortium"}).get_json()
    assert [h["id"] for h in found["hits"]] == [SHARED] and found["total"] == 1
    counts = {f["value"]: f["count"] for f in found["facets"]["topic"]}
    assert counts.get("ai-safety-research") == counts.get("inference-hardware") == 1
    document = client.get(f"/api/documents/{SHARED}").get_json()["document"]
    assert set(document["topics"]) == {"ai-safety-research", "inference-hardware"}


def test_a_home_topic_event_another_topic_page_lists_too_keeps_its_related_topics_and_organisations(tmp_path):
    # Listed again by a page read after the home topic's ("zz-later" sorts after it), the event was
    # that page's event only: no related topics, no organisations, as if the home topic lacked it.
    home_page = DEFAULT_DIR / f"{HOME.slug}.topic.txt"
    alone = load_corpus([home_page]).records[0]
    lines = home_page.read_text(encoding="utf-8").splitlines()
    (tmp_path / "zz-later.topic.txt").write_text(
        "Later Topic\nzz-later·1 event·last 2h agoA topic read after the home one.\nRelated entities\n"
        f"Related topics (0)\nGuides (0)\nRecent events (1)\n{lines[6]}\n{lines[7]}\n", encoding="utf-8")
    both = {r.id: r for r in load_corpus([home_page, tmp_path]).records}[alone.id]
    assert alone.topics and alone.entities  # what enrichment gives the home topic's event
    assert set(both.topics) | {both.topic} == {*alone.topics, alone.topic, "zz-later"}
    assert both.entities == alone.entities


@pytest.mark.parametrize("home_first", [True, False], ids=["home-page-first", "home-page-last"])
def test_a_home_topic_event_another_page_lists_with_another_summary_keeps_its_own_whatever_the_order(tmp_path, caplog, home_first):
    # QA: a second topic's page listing a seed event with its own summary ("with another summary; this
    # one is kept", no line, no "warning:") took the later page's summary, and with it the related
    # topics and organisations that summary gives (compute-deals, amazon, nvidia lost) when the seed
    # folder came first on the command line, and not when it came last.
    home_page = DEFAULT_DIR / f"{HOME.slug}.topic.txt"
    alone = load_corpus([home_page]).records[0]
    lines = home_page.read_text(encoding="utf-8").splitlines()
    other = tmp_path / "inference.topic.txt"
    other.write_text("Inference\ninference·1 event·last 2h agoServing models.\nRelated entities\nRelated topics (0)\n"
                     f"Guides (0)\nRecent events (1)\n{lines[6]}\nA summary that names no organisation.\n", encoding="utf-8")
    caplog.clear()
    records = load_corpus([home_page, other] if home_first else [other, home_page]).records
    shared = [r for r in records if r.id == alone.id]
    assert len(shared) == 1
    both = shared[0]
    assert (both.topic, both.summary, both.position, both.entities) == (alone.topic, alone.summary, alone.position, alone.entities)
    assert set(both.topics) == {*alone.topics, "inference"} and alone.entities and alone.topics
    warned = [r.getMessage() for r in caplog.records if "another summary" in r.getMessage()]
    assert len(warned) == 1 and warned[0].startswith(f"{other}:8: event {alone.title!r} ")
    assert f"{home_page}:8" in warned[0] and "this one is not used" in warned[0]


def test_a_source_folder_is_read_with_its_subfolders_in_name_order_hidden_ones_aside(tmp_path, monkeypatch):
    # QA: `build c/outer` with its files in c/outer/sub2/ said "holds no topic page, guide or JSONL
    # file", and files in subfolders were skipped without a word when files sat beside them.
    from click.testing import CliRunner

    from corpus.errors import UnreadableSource
    from corpus.sources import discover
    from web.cli import main

    outer = tmp_path / "outer"
    for name in ("b.jsonl", "a/x.jsonl", "a/y/z.jsonl", "c.jsonl", ".git/h.jsonl", "z/k.guide.txt", "a/notes.txt"):
        (outer / name).parent.mkdir(parents=True, exist_ok=True)
        (outer / name).touch()
    (outer / "a" / "loop").symlink_to(outer)  # a link back up: read once, not forever
    assert discover([outer]) == tuple(outer / name for name in (
        "z/k.guide.txt", "a/x.jsonl", "a/y/z.jsonl", "b.jsonl", "c.jsonl"))  # guides before JSONL, as before

    only_below = tmp_path / "only-below"
    (only_below / "sub2").mkdir(parents=True)
    write_jsonl(only_below / "sub2" / "docs.jsonl", [record("below", HOME.slug)])
    result = CliRunner().invoke(main, ["build", str(only_below), "--no-semantic", "--index-dir", str(tmp_path / "ix")])
    assert result.exit_code == 0 and "built 1 document " in result.output, result.output

    listed = type(outer).iterdir
    monkeypatch.setattr(type(outer), "iterdir", lambda self: (_ for _ in ()).throw(PermissionError(13, "Permission denied"))
                        if self.name == "y" else listed(self))
    with pytest.raises(UnreadableSource, match="y: cannot be read: Permission denied"):
        discover([outer])


def test_a_folder_reads_every_source_whatever_the_case_of_its_suffix_and_names_the_files_it_skips(tmp_path, caplog):
    # QA: a folder of a.jsonl, B.JSONL, c.ndjson, d.json and a link to nothing, broken.jsonl, built
    # "1 document", exit 0, and no word of the other four.
    from click.testing import CliRunner

    from web.cli import main

    folder = tmp_path / "mixdir"
    folder.mkdir()
    for name in ("a.jsonl", "B.JSONL", "c.ndjson", "d.json", "notes.txt"):
        write_jsonl(folder / name, [record(name, HOME.slug)])
    (folder / ".DS_Store").touch()
    (folder / "broken.jsonl").symlink_to(tmp_path / "gone.jsonl")
    build = ["build", "--no-semantic", "--index-dir", str(tmp_path / "ix")]

    refused = CliRunner().invoke(main, [*build, str(folder)])
    assert refused.exit_code == 1 and "broken.jsonl: is a link to" in refused.output and "does not exist" in refused.output
    (folder / "broken.jsonl").unlink()

    caplog.clear()
    built = CliRunner().invoke(main, [*build, str(folder)])
    assert built.exit_code == 0 and "built 3 documents" in built.output, built.output
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "2 files are not read" in warned and str(folder / "d.json") in warned and str(folder / "notes.txt") in warned
    assert "*.jsonl.gz" in warned and "named .jsonl" in warned and ".DS_Store" not in warned

    named = CliRunner().invoke(main, [*build, str(folder / "d.json")])
    assert named.exit_code == 1 and "d.json: is not a topic page, guide or JSONL file" in named.output
    assert "*.topic.txt" in named.output and "*.jsonl.gz" in named.output
    assert "*.guide.txt" in CliRunner().invoke(main, ["build", "--help"]).output


def test_the_bundled_corpus_builds_without_a_word_of_its_rule_files(caplog):
    from corpus.sources import discover

    discover([DEFAULT_DIR])
    assert not [r for r in caplog.records if "not read" in r.getMessage()]


@pytest.mark.parametrize("names", [("x.topic.md", "x-guide.txt"), ()], ids=["misnamed", "empty"])
def test_a_folder_named_that_gives_no_source_is_refused_and_nothing_is_published(tmp_path, names):
    # QA: a second topic's folder of x.topic.md and x-guide.txt (or an empty one) was warned of, then
    # the build published "built 1 document", exit 0: the whole topic gone from the live service.
    from click.testing import CliRunner

    from index import store
    from web.cli import main

    good = tmp_path / "good"
    good.mkdir()
    write_jsonl(good / "docs.jsonl", [record("kept", HOME.slug)])
    bad = tmp_path / "bad"
    (bad / ".git").mkdir(parents=True)
    write_jsonl(bad / ".git" / "hidden.jsonl", [record("hidden", HOME.slug)])
    for name in names:
        (bad / name).write_text("Title\n", encoding="utf-8")
    build = ["build", "--no-semantic", "--index-dir", str(tmp_path / "ix")]
    assert CliRunner().invoke(main, [*build, str(good)]).exit_code == 0
    live = store.current_id(tmp_path / "ix")

    refused = CliRunner().invoke(main, [*build, str(good), str(bad)])
    assert refused.exit_code == 1, refused.output
    assert f"{bad}: gives the build no topic page, guide or JSONL file" in refused.output
    assert all(str(bad / name) in refused.output for name in names) and "Nothing was built" in refused.output
    assert "built" not in refused.output.replace("Nothing was built", "")
    assert store.current_id(tmp_path / "ix") == live  # the live index untouched

    # A folder whose sources a folder named before it gave is no such folder.
    again = CliRunner().invoke(main, [*build, str(tmp_path), str(good)])
    assert again.exit_code == 0 and "built 1 document" in again.output, again.output


def test_a_title_twice_on_one_topic_page_is_two_events_and_warned_of_at_its_line(tmp_path, caplog):
    # QA: the same title twice on one page was accepted without a word, the second at '<slug>-2'
    # (an address nobody chose), where a JSONL file repeating an id warns.
    page = tmp_path / "robotics.topic.txt"
    page.write_text("Robotics\nrobotics·3 events·last 2h agoRobots.\nRelated entities\nRelated topics (0)\nGuides (0)\n"
                    "Recent events (3)\nArm Ships\nThe first arm shipped.\nHand Ships\nA hand shipped.\n"
                    "ARM SHIPS\nA second arm shipped.\n", encoding="utf-8")
    records = load_corpus([page]).records
    assert [r.id for r in records] == ["arm-ships", "hand-ships", "arm-ships-2"]
    warned = [r.getMessage() for r in caplog.records if "arm-ships-2" in r.getMessage()]
    assert len(warned) == 1 and warned[0].startswith(f"{page}:11: event 'ARM SHIPS' ")
    assert "title of line 7" in warned[0] and "'arm-ships'" in warned[0]


def test_a_title_another_page_writes_in_another_case_is_warned_of_at_its_line(tmp_path, caplog):
    # As the other warnings of a build: "warning:", the file and the line (it named the file alone).
    home_page = DEFAULT_DIR / f"{HOME.slug}.topic.txt"
    title = home_page.read_text(encoding="utf-8").splitlines()[6]
    other = tmp_path / "inference.topic.txt"
    other.write_text("Inference\ninference·1 event·last 2h agoServing models.\nRelated entities\nRelated topics (0)\n"
                     f"Guides (0)\nRecent events (1)\n{title.upper()}\nAnother headline.\n", encoding="utf-8")
    caplog.clear()
    load_corpus([home_page, other])
    warned = [r.getMessage() for r in caplog.records if "differ in case only" in r.getMessage()]
    assert len(warned) == 1 and warned[0].startswith(f"{other}:7: event {title.upper()!r} and {title!r} ")
