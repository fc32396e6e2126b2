"""Guide sections' anchors: every section of a topic's guide has its own, from a guide file or JSONL,
at build and at update (two sections at one anchor shared a URL and a feed entry's id)."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from corpus.records import PAGE_ID_PATTERN, PAGE_IDS
from corpus.sources import load_corpus
from index.build import build
from index.update import update
from tests.conftest import write_jsonl as _write_jsonl
from web import create_app

TOPIC = "ai-act"
WEB = Path(__file__).resolve().parent.parent / "web"
# The seed guide's anchors: search results, feeds and readers' bookmarks link to them.
SEED_ANCHORS = ["what-this-area-covers", "why-it-matters", "how-it-evolved", "the-physical-buildout",
                "geopolitical-and-security-dimensions", "efficiency-research-as-a-countervailing-force",
                "where-it-is-heading"]


class _Ids(HTMLParser):
    """Every id attribute of a page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.ids += [value for name, value in attrs if name == "id"]


def page_ids(html: str) -> list[str]:
    parser = _Ids()
    parser.feed(html)
    return parser.ids


def write_jsonl(path, docs):
    path.parent.mkdir(parents=True, exist_ok=True)
    return _write_jsonl(path, docs)


def guide(topic: str, sections: list[tuple[str, str]]) -> list[dict]:
    """JSONL guide records of *topic*: (id, heading) pairs."""
    return [{"id": doc_id, "kind": "guide", "title": heading, "summary": f"Text of {doc_id}.", "topics": [topic]}
            for doc_id, heading in sections]


def app_client(root):
    return create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()


def page_anchors(root, topic: str = TOPIC) -> list[str]:
    """The ids of the sections on the guide page, in order, as a browser jumps to them."""
    response = app_client(root).get(f"/guides/{topic}")
    assert response.status_code == 200
    return re.findall(r'<section id="([^"]+)"', response.get_data(as_text=True))


def section_urls(root, ids) -> dict[str, str]:
    app = app_client(root)
    return {doc_id: app.get(f"/api/documents/{doc_id}").get_json()["document"]["url"] for doc_id in ids}


def feed_entry_ids(root, query: str) -> list[str]:
    feed = app_client(root).get("/feeds/search.atom", query_string={"q": query}).get_data(as_text=True)
    return re.findall(r"<entry>.*?<id>(.*?)</id>", feed, re.S)


def test_sections_whose_headings_share_a_slug_get_their_own_anchors_at_build(tmp_path):
    sections = [("straight", "Calendrier de l'AI Act"), ("curly", "Calendrier de l’AI Act"),
                ("outline", "概要"), ("outline-again", "概要")]
    source = write_jsonl(tmp_path / "src" / "act.jsonl", guide(TOPIC, sections))
    build([source], root=tmp_path / "ix", semantic=False)
    anchors = page_anchors(tmp_path / "ix")
    assert anchors == ["calendrier-de-l-ai-act", "calendrier-de-l-ai-act-2", "概要", "概要-2"]
    urls = section_urls(tmp_path / "ix", [doc_id for doc_id, _ in sections])
    assert sorted(urls.values()) == sorted(f"/guides/{TOPIC}#{anchor}" for anchor in anchors)
    entries = feed_entry_ids(tmp_path / "ix", "calendrier")
    assert len(entries) == 2 and len(set(entries)) == 2

    # Stable: a rebuild with a third such section after them leaves the first two where they were.
    sections.append(("update", "Calendrier de l’AI Act"))
    write_jsonl(tmp_path / "src" / "act.jsonl", guide(TOPIC, sections))
    build([source], root=tmp_path / "ix", semantic=False)
    assert page_anchors(tmp_path / "ix") == [*anchors, "calendrier-de-l-ai-act-3"]


def test_a_guide_file_holds_two_headings_with_one_slug_and_a_jsonl_section_of_its_topic_a_third(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    # Refused before ("repeats an earlier one"), though the headings differ; "Phase 2" keeps its own slug.
    (src / f"{TOPIC}.guide.txt").write_text(
        "Calendrier de l'AI Act\nFirst text.\n"
        "Calendrier de l’AI Act\nSecond text.\n"
        "Phase\nThird text.\n"
        "Phase\nFourth text.\n"
        "Phase 2\nFifth text.\n",
        encoding="utf-8",
    )
    write_jsonl(src / "more.jsonl", guide(TOPIC, [("jsonl-calendrier", "Calendrier de l'AI Act")]))
    build([src], root=tmp_path / "ix", semantic=False)
    assert page_anchors(tmp_path / "ix") == [
        "calendrier-de-l-ai-act", "calendrier-de-l-ai-act-2", "phase", "phase-3", "phase-2", "calendrier-de-l-ai-act-3",
    ]
    # A guide file's section id is its topic and anchor: the same for every build of that file.
    urls = section_urls(tmp_path / "ix", [f"{TOPIC}--calendrier-de-l-ai-act-2", f"{TOPIC}--phase-3", "jsonl-calendrier"])
    assert urls == {f"{TOPIC}--calendrier-de-l-ai-act-2": f"/guides/{TOPIC}#calendrier-de-l-ai-act-2",
                    f"{TOPIC}--phase-3": f"/guides/{TOPIC}#phase-3",
                    "jsonl-calendrier": f"/guides/{TOPIC}#calendrier-de-l-ai-act-3"}


def test_accented_headings_keep_their_letters_in_anchors(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / f"{TOPIC}.guide.txt").write_text(
        "Données personnelles & RGPD\nText.\nÜberblick\nText.\n", encoding="utf-8"
    )
    write_jsonl(src / "more.jsonl", guide(TOPIC, [("robot", "Qu'est-ce qu'un robot humanoïde ?")]))
    build([src], root=tmp_path / "ix", semantic=False)
    assert page_anchors(tmp_path / "ix") == ["donnees-personnelles-rgpd", "uberblick", "qu-est-ce-qu-un-robot-humanoide"]
    assert section_urls(tmp_path / "ix", [f"{TOPIC}--donnees-personnelles-rgpd"])  # the id follows the anchor


def test_an_update_gives_a_new_section_its_own_anchor_and_an_edited_one_keeps_its_own(tmp_path):
    src = tmp_path / "src"
    first = guide(TOPIC, [("straight", "Calendrier de l'AI Act"), ("data", "Données personnelles")])
    write_jsonl(src / "act.jsonl", first)
    root = tmp_path / "ix"
    build([src], root=root, semantic=False)
    added = guide(TOPIC, [("curly", "Calendrier de l’AI Act"), ("outline", "概要"), ("outline-again", "概要"),
                          ("elsewhere", "Calendrier de l'AI Act")])
    added[-1]["topics"] = ["other-topic"]  # another guide: its own anchors
    update(write_jsonl(tmp_path / "c1.jsonl", added), root)
    after_update = page_anchors(root)
    assert after_update == ["calendrier-de-l-ai-act", "donnees-personnelles", "calendrier-de-l-ai-act-2", "概要", "概要-2"]
    assert page_anchors(root, "other-topic") == ["calendrier-de-l-ai-act"]
    assert len(set(feed_entry_ids(root, "calendrier"))) == 3

    # Edited, each section keeps its anchor: the first its plain one, the later one its suffix.
    edits = [dict(record, summary="Edited text.") for record in (first[0], added[0], added[2])]
    update(write_jsonl(tmp_path / "c2.jsonl", edits), root)
    assert page_anchors(root) == after_update

    # A build of the same documents in the same order gives each the anchor the update gave it.
    write_jsonl(src / "act.jsonl", first + added)
    build([src], root=root, semantic=False)
    assert page_anchors(root) == after_update


def test_an_update_whose_heading_moves_onto_a_taken_slug_gets_a_suffix(tmp_path):
    root = tmp_path / "ix"
    build([write_jsonl(tmp_path / "src" / "act.jsonl", guide(TOPIC, [("a", "Scope"), ("b", "Timeline")]))],
          root=root, semantic=False)
    update(write_jsonl(tmp_path / "c.jsonl", guide(TOPIC, [("b", "Scope")])), root)
    assert page_anchors(root) == ["scope", "scope-2"]


def test_a_deleted_sections_anchor_is_free_again(tmp_path):
    root = tmp_path / "ix"
    build([write_jsonl(tmp_path / "src" / "act.jsonl", guide(TOPIC, [("a", "Calendrier de l'AI Act"), ("b", "Scope")]))],
          root=root, semantic=False)
    changes = [{"id": "a", "delete": True}, *guide(TOPIC, [("c", "Calendrier de l’AI Act")])]
    update(write_jsonl(tmp_path / "c.jsonl", changes), root)
    assert page_anchors(root) == ["scope", "calendrier-de-l-ai-act"]


def test_sections_titled_as_the_page_s_own_elements_do_not_take_their_ids(tmp_path):
    # "Main" was <section id="main"> beside <main id="main">: "Skip to content" and a hit linking
    # /guides/…#main went to the top; "Q" took the search box's id, "TOC heading" the sections' list's.
    sections = [("main", "Main"), ("q", "Q"), ("toc", "TOC heading"), ("list", "Sections"),
                ("list-heading", "Sections heading"), ("summary", "Summary")]
    write_jsonl(tmp_path / "src" / "act.jsonl", guide(TOPIC, sections))
    build([tmp_path / "src"], root=tmp_path / "ix", semantic=False)
    client = app_client(tmp_path / "ix")
    ids = page_ids(client.get(f"/guides/{TOPIC}").get_data(as_text=True))
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert {"main", "q", "toc-heading"} <= set(ids)  # the page's own, where its links and labels point
    anchors = page_anchors(tmp_path / "ix")
    assert anchors == ["main-2", "q-2", "toc-heading-2", "sections", "sections-heading-2", "summary-2"]
    hits = client.get("/api/search", query_string={"q": "main", "kind": "guide"}).get_json()["hits"]
    assert [hit["url"] for hit in hits if hit["id"] == "main"] == [f"/guides/{TOPIC}#main-2"]
    assert "main-2" in ids


def test_the_seed_guide_keeps_its_anchors():
    sections = [record for record in load_corpus().records if record.kind == "guide"]
    assert [section.anchor for section in sections] == SEED_ANCHORS


def test_every_id_the_pages_give_their_own_elements_is_kept_from_anchors():
    templates = "".join(path.read_text(encoding="utf-8") for path in (WEB / "templates").glob("*.html"))
    fixed = set(re.findall(r'\bid="([^"{]+)"', templates))
    script = (WEB / "static" / "app.js").read_text(encoding="utf-8")
    assert fixed and set(re.findall(r'\.id = "([^"]+)";', script))
    assert fixed | set(re.findall(r'\.id = "([^"]+)";', script)) <= PAGE_IDS
    # The ids made from a value: the completions' ("q-option-" + i), the facets' (search page).
    numbered = re.findall(r'\.id = "([^"]+)" \+', script)
    assert numbered == ["q-option-"] and all(PAGE_ID_PATTERN.fullmatch(f"{prefix}{n}") for prefix in numbered for n in (0, 12))
    facets = {f"facet-{name}{end}" for name in ("topic", "entity", "kind", "month") for end in ("", "-heading")}
    assert facets <= PAGE_IDS
    made = set(re.findall(r'\bid="([^"]*\{\{[^"]*)"', templates))
    assert made == {"{{ anchor }}", "{{ anchor }}-heading", "facet-{{ name }}", "facet-{{ name }}-heading"}


def test_a_guide_section_keeps_its_feed_entry_id_when_headings_change(tmp_path):
    # An entry's id was the section's address at its anchor: editing a heading changed it, and removing
    # a section passed its anchor, and so its id, to another (a QA pass: readers see such entries anew).
    import feedparser

    def entries(sections: list[tuple[str, str]]) -> dict[str, tuple[str, str]]:
        write_jsonl(tmp_path / "src" / "act.jsonl", guide(TOPIC, sections))
        build([tmp_path / "src"], root=tmp_path / "ix", semantic=False)
        client = app_client(tmp_path / "ix")
        parsed = feedparser.parse(client.get(f"/feeds/search.atom?topic={TOPIC}").get_data())
        found = {}
        for entry in parsed.entries:  # each entry's id leads to the entry's page (its place in the guide)
            moved = client.get("/" + entry.id.split("/", 3)[3])
            assert moved.status_code == 302 and moved.headers["Location"].endswith(entry.link.split("/", 3)[3])
            found[entry.link.rpartition("#")[2]] = entry.id
        return found

    first = entries([("g-intro", "Introduction"), ("g-risk", "Introduction")])
    edited = entries([("g-intro", "Getting started"), ("g-risk", "Introduction")])
    removed = entries([("g-risk", "Introduction")])
    assert set(first) == {"introduction", "introduction-2"} and set(edited) == {"getting-started", "introduction"}
    assert edited["getting-started"] == first["introduction"]  # g-intro, its heading edited
    assert edited["introduction"] == first["introduction-2"] == removed["introduction"]  # g-risk


def test_a_topic_without_a_guide_points_its_guide_address_to_its_events(tmp_path):
    # AI Safety Research has a topic page and no guide: /guides/ai-safety-research said only "No guide
    # for the topic 'ai-safety-research'" and led back to an empty search (QA pass AF).
    build([Path(__file__).parent / "data" / "two-topics"], root=tmp_path / "ix", semantic=False)
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    page = client.get("/guides/ai-safety-research")
    text = page.get_data(as_text=True)
    assert page.status_code == 404 and "AI Safety Research has no guide" in text
    link = re.search(r'<a href="([^"]+)">Events on AI Safety Research</a>', text)
    assert link, text
    events = client.get("/api/search", query_string={"topic": "ai-safety-research"}).get_json()
    assert events["total"] > 0 and client.get(link[1].replace("/?", "/api/search?")).get_json()["total"] == events["total"]
    unknown = client.get("/guides/no-such-topic").get_data(as_text=True)
    assert "Events on" not in unknown  # a topic the hub does not follow gets no such way on


def test_a_guide_files_name_is_a_topic_only_when_a_jsonl_topic_could_be(tmp_path):
    # "..guide.txt" linked its guide as /guides/.. (read by browsers as /), a comma split the topic in
    # two, and control and bidi characters reached the guide's title and ids (a QA pass).
    import pytest

    from corpus.errors import CorpusError

    text = "Overview heading\nThis guide paragraph talks about gizmo things at length.\n"
    for name in ("..", "a,b", "x\x1b]0;PWNED\x07", "\u202eabc", "t" * 65):
        folder = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        (folder / f"{name}.guide.txt").write_text(text, encoding="utf-8")
        with pytest.raises(CorpusError, match="rename the file") as refused:
            load_corpus([folder])
        assert str(refused.value).isprintable(), name  # the name told with its escapes, not run by a terminal
    ok = tmp_path / "ok"
    ok.mkdir()
    (ok / "gizmo-things.guide.txt").write_text(text, encoding="utf-8")
    assert {record.topic for record in load_corpus([ok]).records} == {"gizmo-things"}
