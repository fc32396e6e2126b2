"""GET /api/suggest: completions from titles, organisations, topics and frequent words, best first."""

from __future__ import annotations

import threading
from urllib.parse import parse_qsl, urlsplit

import pytest

from index.build import build
from index.update import update
from search.params import DATE_BOUNDS, FILTERS, SearchParams
from search.suggest import fold
from tests.conftest import write_jsonl
from tests.waiting import wait_until
from web import create_app


def suggest(client, q: str) -> list[dict[str, str]]:
    response = client.get("/api/suggest", query_string={"q": q})
    assert response.status_code == 200
    body = response.get_json()
    assert body["query"] == " ".join(q.split()) + (" " if q.strip() and q[-1].isspace() else "")
    return body["suggestions"]


def terms(client, q: str) -> list[str]:
    return [s["text"] for s in suggest(client, q) if s["kind"] == "term"]


def suggest_texts(client, q: str) -> list[str]:
    return [s["text"] for s in suggest(client, q)]


def _client_of(tmp_path, docs: list[dict[str, object]]):
    """Return a test client of an index built from *docs* alone."""
    build([write_jsonl(tmp_path / "d.jsonl", docs)], tmp_path / "index")
    return create_app({"INDEX_DIR": str(tmp_path / "index"), "TESTING": True}).test_client()


def starts_a_word(prefix: str, text: str) -> bool:
    return (" " + fold(text)).find(" " + fold(prefix)) >= 0


def holds_word(word: str, text: str) -> bool:
    return f" {word} " in f" {fold(text)} "


def hold_reads_beside(monkeypatch) -> threading.Event:
    """Hold each read of completions in a thread of its own (beside the requests; not one in this
    thread, a request's) until the event returned is set."""
    from search import suggest

    release = threading.Event()
    real = suggest._Candidates.__init__
    requests = threading.get_ident()

    def held(self, snap, **kwargs):
        if threading.get_ident() != requests:
            release.wait(60)
        real(self, snap, **kwargs)

    monkeypatch.setattr(suggest._Candidates, "__init__", held)
    return release


def test_titles_and_words_complete_a_prefix(client):
    found = suggest(client, "starg")
    kinds = {s["kind"] for s in found}
    assert {"title", "term"} <= kinds
    assert all(starts_a_word("starg", s["text"]) for s in found)
    term = next(s for s in found if s["kind"] == "term")
    assert fold(term["text"]) == "stargate" and term["url"] is None  # a word is searched: it leads nowhere else
    # A title leads to its document, which exists.
    for title in (s for s in found if s["kind"] == "title"):
        page = client.get(title["url"])
        assert page.status_code == 200
        assert title["text"] in page.get_data(as_text=True).replace("&#39;", "'").replace("&#x27;", "'")


def test_completions_that_start_with_the_prefix_come_first(client):
    found = suggest(client, "stargate")
    starts = [fold(s["text"]).startswith("stargate") for s in found]
    assert True in starts and False in starts
    assert starts == sorted(starts, reverse=True)


@pytest.mark.parametrize("q", ["com", "train", "ai", "goo", "micro", "nv", "star"])
def test_completions_come_in_the_order_the_docs_state(client, q):
    """Those starting with the typed text first; then topics, organisations, words, titles: "com" puts
    the title "Complete-muE…" before the organisation "Open Compute Project", which only a later word
    of starts."""
    found = suggest(client, q)
    order = {"topic": 0, "organisation": 1, "term": 2, "title": 3}
    places = [(0 if any(fold(s["text"]).startswith(w) for w in (q, "-" + q)) else 1, order[s["kind"]]) for s in found]
    assert len({kind for _, kind in places}) > 1, found
    assert places == sorted(places), found


@pytest.mark.parametrize("facet, kind", [("topic", "topic"), ("entity", "organisation")])
def test_facet_values_are_suggested_and_lead_to_the_filtered_list(client, facet, kind):
    facets = client.get("/api/search?q=").get_json()["facets"][facet]
    value = next(v for v in facets if len(v["label"]) >= 4 and v["count"])
    found = suggest(client, value["label"][:4].lower())
    match = [s for s in found if s["kind"] == kind and s["text"] == value["label"]]
    assert match, found
    listed = client.get("/api/search" + match[0]["url"][1:]).get_json()
    assert listed["filters"][facet] == [value["value"]]
    assert listed["total"] == value["count"]


def test_the_last_word_is_completed_after_the_ones_before_it(client):
    found = suggest(client, "stargate mich")
    assert any(s["kind"] == "term" and fold(s["text"]) == "stargate michigan" for s in found)


def test_the_last_word_prefers_words_found_with_the_ones_before_it(client):
    # "michigan" is rarer than "model" or "major", but the hub writes it beside "stargate".
    assert "stargate michigan" in [fold(text) for text in terms(client, "stargate m")]
    # A word always holds itself: it is not offered again.
    assert "stargate stargate" not in [fold(text) for text in terms(client, "stargate st")]


@pytest.mark.parametrize(("q", "first"), [("stargate m", "stargate Michigan"), ("data center t", "data center Texas"),
                                           ("stargate in te", "stargate in Texas"), ("expanding stargate to m", "expanding stargate to Michigan")])
def test_the_word_the_pages_write_after_the_ones_before_comes_first(client, q, first):
    # "stargate m" offered "stargate major" first: a page holds both ("the Stargate project, a major…"),
    # where the hub writes "Stargate Michigan" and "Expanding Stargate to Michigan"; "data center t"
    # offered "term" before "Texas" ("data centers in Texas").
    assert terms(client, q)[0] == first


def test_a_word_written_after_the_one_before_beats_one_merely_shared_or_frequent(tmp_path):
    # "power" is on every page and on more pages with "solar" than "panel" is; but the pages write
    # "solar panel", and "solar" before "power" only across a clause's end ("went solar. Power…").
    docs = [{"id": "a", "title": "Solar panel farm opens", "summary": "Power lines reach the farm. We went solar. Power bills fell.",
             "topics": ["energy"]},
            {"id": "b", "title": "Rooftop power kit", "summary": "A solar panel kit with a power inverter.", "topics": ["energy"]},
            {"id": "c", "title": "Grid power prices", "summary": "Power for homes going solar, power for all.", "topics": ["energy"]},
            {"id": "d", "title": "Wind farm", "summary": "Power from wind.", "topics": ["energy"]}]
    client = _client_of(tmp_path, docs)
    assert [fold(text) for text in terms(client, "solar p")[:2]] == ["solar panel", "solar power"]
    assert fold(terms(client, "grid p")[0]) == "grid power"  # as the title writes it


def test_after_words_pages_hold_together_every_word_offered_is_one_such_a_page_holds(client, service):
    # "Conseil d" offered "Conseil data", "Conseil deal" and "Conseil designs": each a search no result
    # held all the words of ("partial", a QA pass); here "stargate Hugging", and after "meta" (one page
    # writes it: too rare to be offered) "meta across".  Each word offered now finds a page with them all.
    # After a word too short to be offered ("sk h" offered "sk Hugging"), the same (QA pass T); after
    # a word no page holds ("mobile m" offered "mobile model"), no word.
    offered = [(typed, text) for typed in ("stargate m", "stargate h", "colossus w", "michigan h", "meta a", "sk h")
               for text in terms(client, typed) if " " in text]
    assert len(offered) >= 4  # "stargate Michigan" among them
    for typed, text in offered:
        assert service.search(SearchParams(q=text)).match == "all", (typed, text)
    # ("MobileMoE", one page's word, is the two read as one, as the search reads them: it finds that page.)
    assert "mobile model" not in terms(client, "mobile m")
    assert all(service.search(SearchParams(q=text)).match == "all" for text in terms(client, "mobile m"))


def test_two_words_typed_apart_are_completed_as_the_word_they_start_together(client):
    # The search reads "open ai" as OpenAI; the completions offered "open aimed" alone.
    assert terms(client, "open ai")[0] == "OpenAI"
    assert terms(client, "fluid st")[0] == "Fluidstack"
    # Written apart by more pages, "data center" stays first.
    found = [fold(t) for t in terms(client, "data cen")]
    assert found.index("data center") < found.index("datacenter")
    # A function word is a word of its own: "stargate in te" is "in Texas", not "integration".
    assert "stargate in texas" in [fold(t) for t in terms(client, "stargate in te")]
    assert not [t for t in terms(client, "stargate in te") if "integration" in fold(t)]


@pytest.mark.parametrize("q, word", [
    ("memory-eff", "memory-efficient"),
    ("fine-t", "fine-tuning"),
    ("fine-", "fine-tuning"),
    ("full memory-eff", "full memory-efficient"),
])
def test_a_hyphenated_word_keeps_its_start_and_is_completed_as_the_hub_writes_it(client, q, word):
    found = terms(client, q)
    assert found and found[0] == word
    assert all(text.startswith(q) for text in found)


def test_a_word_is_glued_after_a_hyphen_only_where_a_page_holds_it_with_the_words_before(tmp_path):
    # At 64k "gcc-1" offered "gcc-100dpi" and "gcc-1024x768": names no page writes nor means.
    docs = [{"id": "gcc", "title": "GNU C compiler", "summary": "The gcc compiler collection.", "topics": ["devel"]},
            *({"id": f"fonts{i}", "title": f"100dpi fonts {i}", "summary": "X fonts 100dpi, also for 1024x768 screens.",
               "topics": ["x11"]} for i in range(3))]
    client = _client_of(tmp_path, docs)
    assert not [t for t in terms(client, "gcc-1") if t.startswith("gcc-")]
    assert not [t for t in terms(client, "compiler-1") if t.startswith("compiler-")]
    assert "fonts-100dpi" in terms(client, "fonts-1")  # the font pages write both, side by side


def test_a_word_glued_after_a_hyphen_is_one_a_page_writes_so(client, service):
    assert "stargate-Michigan" in terms(client, "stargate-mich")  # "the Stargate Michigan site"
    assert "ai-training" in terms(client, "ai-t")
    # The search reads a hyphenated word as its words side by side.  "ai-t" offered "ai-targeting" and
    # "ai-time", "state-of-the-a" "state-of-the-announcement", "data-c" "data-compute" (a QA pass):
    # searches no page matched whole.  "openai-bro" offered "openai-Broadcom": the pages say "OpenAI
    # and Broadcom".
    offered = [text for typed in ("stargate-mich", "ai-t", "data-c", "state-of-the-a", "multi-g", "co-de", "openai-bro")
               for text in terms(client, typed)]
    assert len(offered) >= 4
    for text in offered:
        assert service.search(SearchParams(q=text)).match == "all", text
    assert not [text for text in terms(client, "openai-bro") if "broadcom" in text.lower()]  # "openai-broke": "OpenAI broke ground"


def test_words_after_a_rare_word_are_found_in_an_updated_index(tmp_path):
    # An update deletes by marking: the completions counted the documents they read, so after a deleted
    # document each was one off the index's numbers, by which a word too rare to be offered is looked up.
    root = tmp_path / "index"
    docs = [{"id": "a", "title": "Quokka habitat", "summary": "Island life.", "topics": ["zoo"]},
            {"id": "b", "title": "Wombat burrows", "summary": "Long tunnels underground.", "topics": ["zoo"]},
            {"id": "c", "title": "Koala diet", "summary": "Eucalyptus leaves.", "topics": ["zoo"]},
            {"id": "e", "title": "Mole life", "summary": "Tunnels again.", "topics": ["zoo"]}]
    build([write_jsonl(tmp_path / "d.jsonl", docs)], root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    assert "wombat tunnels" in [fold(t) for t in terms(client, "wombat tu")]
    update(write_jsonl(tmp_path / "del.jsonl", [{"id": "a", "delete": True}]), root)
    assert "wombat tunnels" in [fold(t) for t in terms(client, "wombat tu")]


@pytest.mark.parametrize("q", ["-star", '"star', '-"star', "stargate -mich", "-memory-eff", "–star", "—star"])
def test_a_search_operator_before_the_word_is_kept(client, q):
    # An en or em dash excludes as "-" does: "–st" offered no "–Stargate" (a QA pass).
    found = terms(client, q)
    assert found
    assert all(text.lower().startswith(q) for text in found)


@pytest.mark.parametrize("q", ["-star", "stargate -uk", "-stargate uk", "stargate -", "stargate (-", "stargate NOT mi", "NOT stargate mi",
                               "–st", "—st"])
def test_an_exclusion_is_not_completed_into_a_link_to_what_it_excludes(client, q):
    # "–st" and "—st" offered the Stargate pages' titles: "Go to" the pages being excluded (a QA pass).
    assert all(s["kind"] == "term" and s["url"] is None for s in suggest(client, q))


@pytest.mark.parametrize("q", ["STARG", "  starg", "Stárg"])
def test_case_spaces_and_accents_do_not_matter(client, q):
    assert suggest(client, q) == suggest(client, "starg")


def test_a_word_after_or_need_not_share_a_page_with_the_word_it_joins(client):
    # "post-training OR tp" offered nothing, no page holding TPU with "post-training", and "post-training
    # OR" offered "post-training original", the OR being typed completed as a word (a QA pass).
    assert "post-training OR TPU" in terms(client, "post-training OR tp")
    assert terms(client, "post-training OR") == []
    assert "stargate NOT Michigan" in terms(client, "stargate NOT mi")  # a word after NOT is still completed


def test_earlier_words_narrow_the_completions_as_the_search_matches_them(client):
    # "building data centers in te" offered nothing, no page writing "building" with Texas, where the
    # search's first hit for "building data centers in texas" holds every word, stemmed (a QA pass).
    assert "building data centers in Texas" in terms(client, "building data centers in te")


@pytest.mark.parametrize("q", ["the ", "open ", "data ", "stargate  ", "nvidia\t"])
def test_a_space_after_the_last_word_makes_it_whole(client, q):
    """A reader who typed "open " has finished the word: "OpenAI" and "theoretical" are not what it starts."""
    found = suggest(client, q)
    assert found
    assert all(holds_word(fold(q), s["text"]) for s in found), found


@pytest.mark.parametrize(("q", "longer"), [("the", "theoretical"), ("open", "OpenAI"), ("data", "datacenter")])
def test_a_word_typed_whole_is_not_completed_to_a_longer_one(client, q, longer):
    assert longer in [s["text"] for s in suggest(client, q)]
    assert longer not in [s["text"] for s in suggest(client, q + " ")]


def test_a_word_typed_whole_is_offered_as_the_pages_write_it(client):
    assert [s["text"] for s in suggest(client, "stargate ") if s["kind"] == "term"] == ["Stargate"]
    assert terms(client, "-stargate ") == ["-Stargate"]
    assert suggest(client, "starg ") == []  # no page writes "starg"


@pytest.mark.parametrize("q", ["", "   ", "!!!", "zzqqxxv"])
def test_nothing_to_complete_gives_an_empty_list(client, q):
    assert suggest(client, q) == []


@pytest.mark.parametrize("q", ["x" * 257, "star\x00gate"])
def test_bad_prefixes_get_a_400_naming_q(client, q):
    response = client.get("/api/suggest", query_string={"q": q})
    assert response.status_code == 400
    assert response.get_json()["error"]["param"] == "q"


def test_suggestions_follow_a_new_snapshot(tmp_path):
    root = tmp_path / "index"
    doc = {"id": "a", "title": "Quokka cluster goes live", "summary": "A quokka story.", "topics": ["zoo"]}
    build([write_jsonl(tmp_path / "one.jsonl", [doc])], root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    assert [s["text"] for s in suggest(client, "quok") if s["kind"] == "title"] == ["Quokka cluster goes live"]

    doc = {**doc, "title": "Quetzal cluster goes live", "summary": "A quetzal story."}
    build([write_jsonl(tmp_path / "two.jsonl", [doc])], root)
    assert suggest(client, "quok") == []
    assert [s["text"] for s in suggest(client, "quet") if s["kind"] == "title"] == ["Quetzal cluster goes live"]


@pytest.mark.parametrize("mark", ["\u00ad", "\u200b", "\u2060", "\ufeff"])
def test_invisible_marks_are_dropped_from_what_is_typed_as_from_a_search(client, mark):
    # "star<soft hyphen>gat" offered nothing; a BOM before "stargat" lost "Stargate" (a QA pass).
    plain = client.get("/api/suggest", query_string={"q": "stargat"}).get_json()
    marked = client.get("/api/suggest", query_string={"q": f"{mark}star{mark}gat"}).get_json()
    assert marked == plain and plain["suggestions"]


def test_a_large_snapshot_is_read_beside_the_requests_and_the_one_before_answers_meanwhile(index_dir, tmp_path, monkeypatch):
    """At 64k reading the completions took 12 CPU seconds inside the first /api/suggest, and every
    request of the worker waited (a health check 9.6 s after a publish).  Now a large snapshot is
    read in a thread of its own: the first ask gets no completion, at once, rather than waiting; after
    a publish the snapshot before answers until the new one is read."""
    from search import suggest
    from search.service import SearchService

    monkeypatch.setattr(suggest, "READ_INLINE_WORDS", 0)  # the seed corpus, read as a large one
    other = tmp_path / "other"
    build(root=other)
    first, second = SearchService(index_dir).snapshot(), SearchService(other).snapshot()
    assert first.id != second.id
    serving = [first]
    suggester = suggest.Suggester(lambda: serving[0])

    assert suggester.suggest("star") == []  # nothing read yet, and no waiting for it
    wait_until(lambda: suggester.suggest("star"), "the completions to be read")
    assert any(s.text == "Stargate" for s in suggester.suggest("star"))
    release = hold_reads_beside(monkeypatch)
    serving[0] = second  # a publish
    before = suggester.suggest("star")
    assert any(s.text == "Stargate" for s in before)  # the first snapshot's, while the second is read
    assert suggester._cached[0] == first.id
    # A rollback while it is read: the read, overtaken, is dropped (it served the rolled-back snapshot's
    # completions for seconds), and one read runs at a time (publishes in a row started one each).
    serving[0] = first
    assert suggester.suggest("star") and suggester._reading == second.id
    release.set()
    wait_until(lambda: suggester._reading is None, "the overtaken read to end")
    assert suggester._cached[0] == first.id
    serving[0] = second  # published again: read now, and served once read
    suggester.suggest("star")
    wait_until(lambda: suggester._cached[0] == second.id, "the published snapshot's completions to be read")
    assert any(s.text == "Stargate" for s in suggester.suggest("star"))


def test_completions_are_not_kept_by_browsers_while_a_snapshot_is_read(index_dir, monkeypatch):
    """The empty answer of a large snapshot's first read was 'public, max-age=60': browsers and
    proxies kept "no suggestions" for a minute after every start or publish."""
    from search import suggest

    monkeypatch.setattr(suggest, "READ_INLINE_WORDS", 0)
    release = hold_reads_beside(monkeypatch)  # the read is held until both endpoints have answered during it
    client = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    first = client.get("/api/suggest?q=star")
    assert first.get_json()["suggestions"] == [] and first.headers["Cache-Control"] == "no-store"
    opensearch = client.get("/api/suggest/opensearch?q=star")
    assert opensearch.get_json()[1] == [] and opensearch.headers["Cache-Control"] == "no-store"
    release.set()
    wait_until(lambda: client.get("/api/suggest?q=star").get_json()["suggestions"], "the completions to be read")
    answer = client.get("/api/suggest?q=star")
    assert answer.get_json()["suggestions"] and answer.headers["Cache-Control"] == "public, max-age=60"
    assert client.get("/api/suggest/opensearch?q=star").headers["Cache-Control"] == "public, max-age=60"


def test_a_few_documents_with_much_text_are_read_beside_the_requests(tmp_path, monkeypatch):
    """The choice was by documents: 1,950 documents of 5,000 characters were read inside the first
    /api/suggest after each publish (6-9 s, the worker's health check waiting as long), of 40 KB past
    gunicorn's 30 s timeout on every keystroke (a QA pass).  Now a snapshot with much text is read in
    a thread of its own, however few its documents: the first ask is answered at once, without
    completions and not to be kept, and the health check answers while the read goes on."""
    from search import suggest

    root = tmp_path / "index"
    words = " ".join(f"wombat{i}" for i in range(12_000))  # 24,000 words in all: far past READ_INLINE_WORDS
    docs = [{"id": f"long-{n}", "title": f"Wombat survey {n}", "summary": words, "topics": ["zoo"]} for n in range(2)]
    build([write_jsonl(tmp_path / "long.jsonl", docs)], root)
    release = hold_reads_beside(monkeypatch)  # a read inside a request is not held: it answers with completions
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    first = client.get("/api/suggest?q=womb")
    assert first.get_json()["suggestions"] == [] and first.headers["Cache-Control"] == "no-store"
    assert client.get("/healthz").status_code == 200
    release.set()
    wait_until(lambda: suggest_texts(client, "womb"), "the completions to be read")
    assert "Wombat survey 1" in suggest_texts(client, "womb")


def test_a_deleted_documents_title_is_not_offered_while_the_new_snapshot_is_read(tmp_path, monkeypatch):
    """While a snapshot is read beside the requests, the one read before answers: after an update
    deleted a document from the 64k index, its title was still offered, a link to a 404, for ~40 s
    (a QA pass; a takedown).  The titles of documents the snapshot served no longer holds are left out."""
    monkeypatch.setattr("search.suggest.READ_INLINE_WORDS", 0)  # read beside the requests, as a large snapshot
    root = tmp_path / "index"
    docs = [{"id": "quokka-habitat", "title": "Quokka habitat survey", "summary": "Island life.", "topics": ["zoo"]},
            {"id": "quokka-leak", "title": "Quokka leak notice", "summary": "Taken down.", "topics": ["zoo"]},
            {"id": "wombat", "title": "Wombat burrows", "summary": "Tunnels.", "topics": ["zoo"]},
            {"id": "wombat-hole", "title": "Holes", "summary": "A wombat dug. Wombat tunnels and diggers.", "topics": ["zoo"]}]
    build([write_jsonl(tmp_path / "d.jsonl", docs)], root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    wait_until(lambda: suggest_texts(client, "quok"), "the completions to be read")
    assert {"Quokka habitat survey", "Quokka leak notice"} <= set(suggest_texts(client, "quok"))
    release = hold_reads_beside(monkeypatch)
    update(write_jsonl(tmp_path / "del.jsonl", [{"id": "quokka-leak", "delete": True}]), root)
    assert client.get("/events/quokka-leak").status_code == 404
    for typed in ("quok", "quokka l", "leak", "Quokka leak notice"):
        titles = [s for s in suggest(client, typed) if s["kind"] == "title"]
        assert "Quokka leak notice" not in [s["text"] for s in titles], typed
        assert all(client.get(s["url"]).status_code == 200 for s in titles), typed
    assert "Quokka habitat survey" in suggest_texts(client, "quok")  # the snapshot before answers meanwhile
    # A word completed inside a quote is still checked to make a phrase, in the snapshot served: it was
    # not while the one before answered, its snapshot gone ('"wombat d' offered '"wombat diggers', a review).
    assert [s["text"] for s in suggest(client, '"wombat d') if s["kind"] == "term"] == ['"wombat dug']
    release.set()
    wait_until(lambda: client.get("/api/suggest?q=quok").headers["Cache-Control"] != "no-store", "the new snapshot to be read")
    assert "Quokka leak notice" not in suggest_texts(client, "quok")


def test_a_name_typed_whole_offers_the_document_it_names_first(tmp_path):
    # "gimp" offered GIMP's plugins, data files and help, never GIMP: titles are matched on their
    # words, and GNU Image Manipulation Program's holds no "gimp" (a QA pass; the search names it).
    docs = [{"id": "pkg-gimp", "title": "GNU Image Manipulation Program", "summary": "An image editor.", "topics": ["g"]},
            *({"id": f"pkg-gimp-{part}", "title": f"GIMP {part}", "summary": f"The {part} of GIMP.", "topics": ["g"]}
              for part in ("data", "help", "plugins")),
            {"id": "pkg-lua5.4", "title": "Simple, extensible, embeddable programming language", "summary": "Lua.",
             "topics": ["d"]}]
    client = _client_of(tmp_path, docs)
    for typed, name in (("gimp", "pkg-gimp"), ("GIMP", "pkg-gimp"), ("lua 5.4", "pkg-lua5.4")):
        first = suggest(client, typed)[0]
        assert (first["kind"], first["url"]) == ("title", f"/events/{name}"), typed
    assert all(s["url"] != "/events/pkg-gimp" for s in suggest(client, "gim"))  # a name is typed whole


@pytest.mark.parametrize("q", ["stargate mi", "michigan starg", "stargate in michigan "])
def test_titles_holding_the_words_typed_apart_are_offered(client, q):
    """"stargate mi" offered no title: "Expanding Stargate to Michigan" holds the words, not side by side."""
    titles = [s for s in suggest(client, q) if s["kind"] == "title"]
    assert "Expanding Stargate to Michigan" in [s["text"] for s in titles]
    for s in titles:
        words = f" {fold(s['text'])} "
        assert " stargate" in words and " michigan" in words, s



@pytest.mark.parametrize(("q", "wanted"), [("how much did anth", "how much did Anthropic"), ("how many gpus does colo", "how many gpus does Colossus"),
                                           ("nvidia vs anth", "nvidia vs Anthropic")])
def test_question_and_comparison_words_do_not_narrow_the_completions(client, q, wanted):
    # "how much did anth" offered nothing: no page holds "much" with Anthropic, a word the search drops
    # (as it drops "vs" between two things compared; a QA pass).
    assert wanted in terms(client, q)


@pytest.mark.parametrize("q", ["how m", "how muc", "m", "ma"])
def test_a_question_word_the_search_drops_is_not_offered(client, q):
    # "how m" offered "how many", "how muc" "how much": words the search drops, then saying "how" is
    # missing (a QA pass).
    assert not [text for text in terms(client, q) if fold(text).split()[-1] in ("many", "much")]


def test_titles_holding_the_typed_word_whole_come_before_longer_words(client):
    # "$50" put "Scaling Kubernetes to 7,500 Nodes" and "MTIA 300/500" first (shorter titles; a QA pass).
    titles = [s["text"] for s in suggest(client, "$50") if s["kind"] == "title"]
    assert titles[0] == "Anthropic Commits $50 Billion to U.S. AI Computing Infrastructure with Fluidstack"


@pytest.mark.parametrize(("q", "word"), [("iran", "Iranian"), ("shann", "Shannon")])
def test_in_a_small_corpus_a_word_one_page_holds_is_offered(client, q, word):
    # The guide's "Iranian" and "Shannon" could not be typed to: a word had to be on two pages (a QA pass).
    assert word in terms(client, q)
    assert client.get("/api/search", query_string={"q": word}).get_json()["total"] == 1


@pytest.mark.parametrize(("q", "meant"), [("brodc", "Broadcom"), ("hugginf", "Hugging"), ("stargate mihcigan", "stargate Michigan")])
def test_a_word_one_letter_off_that_nothing_completes_is_completed_as_meant(client, q, meant):
    # "brodc" and "hugginf" offered nothing, where the search corrects them (a QA pass).
    assert terms(client, q)[0] == meant
    assert suggest(client, "zzqqxxv") == []  # nothing near


@pytest.mark.parametrize("q", ["memory band", "gimp", "café", "multig", "huggingf", "finet", "stargate fine"])
def test_a_word_is_respelt_only_into_one_keeping_the_letters_typed_and_held_with_the_earlier_words(client, q):
    # "memory band" offered "memory bend" and "memory land", no page holding either with "memory";
    # "gimp" offered "improve", "café" "safety", "multig" "multiple", "finet" "fine" (a QA pass);
    # a word the pages write is no misspelling: "stargate fine" offered "stargate five" and "stargate nine".
    assert terms(client, q) == []


def test_a_misspelling_one_page_holds_does_not_keep_its_correction_back(tmp_path, monkeypatch):
    # At 64k "pyhton" offered only the title "Documentation pyhton peewee simple ORM", never Python: a
    # word was tried one letter off only when nothing at all completed the text (a QA pass).
    import search.suggest

    monkeypatch.setattr(search.suggest, "ONE_DOCUMENT_WORDS_UP_TO", 0)  # as at 64k: a word one page holds is not offered
    docs = [{"id": "typo", "title": "Documentation pyhton peewee simple ORM", "summary": "An ORM.", "topics": ["db"]}]
    docs += [{"id": f"p{i}", "title": f"Python library {i}", "summary": "Python code.", "topics": ["db"]} for i in range(3)]
    build([write_jsonl(tmp_path / "docs.jsonl", docs)], tmp_path / "index")
    fresh = create_app({"INDEX_DIR": str(tmp_path / "index"), "TESTING": True}).test_client()
    assert suggest_texts(fresh, "pyhton") == ["Python", "Documentation pyhton peewee simple ORM"]


@pytest.mark.parametrize("q", ["stargate -o", "stargate -m", "anthropic -a", "openai -s"])
def test_an_excluded_word_offered_leaves_some_of_what_the_earlier_words_find(client, q):
    # "stargate -o" offered "stargate -OpenAI": every Stargate page names OpenAI, so it found nothing.
    offered = terms(client, q)
    assert offered, q
    for text in offered:
        assert client.get("/api/search", query_string={"q": text}).get_json()["total"] > 0, text


def test_a_word_that_completes_is_not_respelt(client):
    assert all(fold(text).startswith("starg") for text in terms(client, "starg"))



@pytest.mark.parametrize(("q", "word"), [("multi-gpu ", "multi-GPU"), ("fine-tuning ", "fine-tuning")])
def test_a_hyphenated_word_typed_whole_is_offered_as_the_pages_write_it(client, q, word):
    # "multi-gpu " offered no word, where "nvidia " offers NVIDIA (the regression QA pass).
    assert terms(client, q) == [word]


def test_the_space_after_a_prefix_of_the_greatest_length_is_no_character_too_many(client):
    assert client.get("/api/suggest", query_string={"q": "x" * 256 + " "}).status_code == 200
    assert client.get("/api/suggest", query_string={"q": "x" * 257}).status_code == 400


@pytest.mark.parametrize(("q", "one"), [("open ai ", "OpenAI"), ("fluid stack ", "Fluidstack")])
def test_two_words_typed_whole_that_the_pages_write_as_one_offer_that_word(client, q, one):
    # "lib ssl " no longer offered libssl once a trailing space made the last word whole (the second
    # regression QA pass); "data center " still offers the words as typed first.
    assert one in terms(client, q)
    assert terms(client, "data center ")[0] == "data center"


def test_a_read_of_a_snapshot_replaced_meanwhile_is_dropped_quietly_and_one_of_the_published_is_an_error(tmp_path, monkeypatch, caplog):
    """Under load, with updates then ``prune --keep 0``, a snapshot deleted while read logged an error
    with a traceback (TypeError in whoosh's stored_fields), where the read is only dropped: now one
    line at info level.  A read of the snapshot still published that fails stays an error."""
    import logging

    from search import suggest
    from search.service import SearchService

    monkeypatch.setattr(suggest, "READ_INLINE_WORDS", 0)
    root = tmp_path / "index"
    build(root=root)
    old = SearchService(root).snapshot()
    build(root=root)  # published anew: *old* is no longer the one served
    new = SearchService(root).snapshot()
    assert new.id != old.id

    def broken(self, snap, **kwargs):
        raise TypeError("'NoneType' object is not subscriptable")  # as whoosh, reading a deleted segment

    monkeypatch.setattr(suggest._Candidates, "__init__", broken)
    caplog.set_level(logging.INFO, logger="search.suggest")
    suggest.Suggester(lambda: old)._read(old)
    dropped = [r for r in caplog.records if r.name == "search.suggest"]
    assert [(r.levelno, r.exc_info) for r in dropped] == [(logging.INFO, None)] and old.id in dropped[0].getMessage()
    caplog.clear()
    suggest.Suggester(lambda: new)._read(new)
    failed = [r for r in caplog.records if r.name == "search.suggest"]
    assert [r.levelno for r in failed] == [logging.ERROR] and failed[0].exc_info


def test_under_gevent_a_large_snapshot_read_beside_the_requests_offers_completions(index_dir):
    """Under gevent workers (``topichub serve``'s default) the 64k completions were never offered: the
    read, in a thread of its own, ended by giving memory back through ``ctypes.util.find_library``,
    which runs ldconfig, a subprocess gevent cannot start outside its hub's thread ("child watchers
    are only available on the default loop"); the read was logged as failed and began again on the
    next request, for ever (a QA pass: 1,156 of 1,156 suggest answers empty)."""
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import sys, time\n"
        "from gevent import monkey; monkey.patch_all()\n"
        "from search import suggest\n"
        "from search.service import SearchService\n"
        "suggest.READ_INLINE_WORDS = 0  # the seed corpus, read as a large one: in a thread\n"
        "suggester = suggest.Suggester(SearchService(sys.argv[1]).snapshot)\n"
        "deadline = time.monotonic() + 30\n"
        "while time.monotonic() < deadline and not suggester.suggest('star'):\n"
        "    time.sleep(0.05)\n"
        "print([s.text for s in suggester.suggest('star')])\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(index_dir)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    assert "Stargate" in done.stdout, done.stdout + done.stderr
    assert "could not be read" not in done.stderr


@pytest.mark.parametrize("q", ['"stargate mi', '"gpu cl', '"data cen', '"nvidia h', '"training in', 'nvidia "memory-efficient fi',
                               '"samsung and s', '"data centers in t'])
def test_a_word_completed_inside_a_quote_makes_a_phrase_some_page_writes(client, q):
    # A word is offered after the earlier words where pages write it a word or two from them: inside
    # a quote that made phrases no page writes ('"stargate Microsoft', '"gpu cloud': a QA pass); after
    # a function word too ('"samsung and SpaceX', '"samsung and Sequoia': a QA pass).
    for text in terms(client, q):
        result = client.get("/api/search", query_string={"q": text, "per_page": 50}).get_json()
        assert result["answer"] or any(h["matched_by"] == "words" and not h["missing"] for h in result["hits"]), text
    assert terms(client, '"stargate mi') == ['"stargate Michigan']
    assert terms(client, "“stargate mi") == ["“stargate Michigan"]  # a curly quote, as a phone types it (a review)
    assert {"stargate Michigan", "stargate Microsoft"} <= set(terms(client, "stargate mi"))  # words, not a phrase


def test_a_keystroke_inside_a_quote_checks_a_few_phrases_at_most(index_dir, monkeypatch):
    # Each check is a phrase search: at 64k '"this package provides the command line t' made some 300,
    # 2.4 s with the worker held (a review). Past PHRASE_CHECKS a request offers no more words.
    import search.suggest

    made = []
    real = search.suggest.build_query
    monkeypatch.setattr(search.suggest, "build_query", lambda *a, **k: made.append(a[0]) or real(*a, **k))
    monkeypatch.setattr(search.suggest, "PHRASE_CHECKS", 2)
    fresh = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()  # nothing remembered yet
    assert terms(fresh, '"training in') == []  # inference, investment, …: no page writes one after "training"
    assert 0 < len(made) <= 2
    made.clear()
    terms(fresh, '"training in')
    assert made == []  # remembered: the next keystroke checks its phrases again for nothing


def test_a_phrase_checked_once_is_offered_again_past_a_request_s_checks(index_dir, monkeypatch):
    # Past a request's checks a phrase already found was dropped too: the answer hung on what the
    # process happened to have checked before ("package c" gave one word, then three: a review).
    import search.suggest

    fresh = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    first = terms(fresh, '"data cen')
    assert first
    monkeypatch.setattr(search.suggest, "PHRASE_CHECKS", 0)  # no search now: what was found is remembered
    assert terms(fresh, '"data cen') == first


def test_a_read_overtaken_by_a_publish_answers_when_nothing_else_is_read(index_dir, tmp_path, monkeypatch):
    """A worker started while updates came every few seconds offered nothing at all (1,077 of 1,077
    answers at 64k, a QA pass): each read was dropped when a publish overtook it, before it ended."""
    from search import suggest
    from search.service import SearchService

    monkeypatch.setattr(suggest, "READ_INLINE_WORDS", 0)
    other = tmp_path / "other"
    build(root=other)
    first, second = SearchService(index_dir).snapshot(), SearchService(other).snapshot()
    serving = [first]
    suggester = suggest.Suggester(lambda: serving[0])
    release = hold_reads_beside(monkeypatch)
    assert suggester.suggest("star") == [] and suggester._reading == first.id
    serving[0] = second  # a publish while the first read goes on
    assert suggester.suggest("star") == [] and suggester._reading == first.id  # one read at a time
    release.set()
    wait_until(lambda: suggester._reading is None, "the overtaken read to end")
    assert any(s.text == "Stargate" for s in suggester.suggest("star"))  # the first's, until the second's is read
    wait_until(lambda: suggester._cached[0] == second.id, "the published snapshot's completions to be read")


def _retitled_while_read(tmp_path, monkeypatch, documents: int, retitled: int):
    """Return a suggester that has read *documents* titled "Quokka marker N first", and a read held
    beside the requests (the event that releases it) after an update retitled the first *retitled*."""
    from search import suggest
    from search.service import SearchService

    monkeypatch.setattr(suggest, "READ_INLINE_WORDS", 0)
    root = tmp_path / "index"
    docs = [{"id": f"q{i}", "title": f"Quokka marker {i} first", "summary": "A quokka.", "topics": ["zoo"]} for i in range(documents)]
    build([write_jsonl(tmp_path / "one.jsonl", docs)], root)
    service = SearchService(root)
    suggester = suggest.Suggester(service.snapshot)
    wait_until(lambda: suggester.suggest("quokka m"), "the completions to be read")
    update(write_jsonl(tmp_path / "two.jsonl", [{**doc, "title": doc["title"].replace("first", "second")} for doc in docs[:retitled]]), root)
    release = hold_reads_beside(monkeypatch)
    wait_until(lambda: service.snapshot().title_of("q0") == "Quokka marker 0 second", "the update to be served")
    return suggester, release


def test_a_retitled_document_is_offered_by_its_title_now_while_a_snapshot_is_read(tmp_path, monkeypatch):
    """Right after an update, half the answers offered a retitled document's old title, read from the
    snapshot before while the new one was read (a QA pass under updates)."""
    suggester, release = _retitled_while_read(tmp_path, monkeypatch, 3, 1)
    offered = [s.text for s in suggester.suggest("quokka m") if s.kind == "title"]
    assert "Quokka marker 0 first" not in offered and "Quokka marker 1 first" in offered
    release.set()


def test_a_keystroke_looks_up_a_bounded_number_of_titles_while_a_snapshot_is_read(tmp_path, monkeypatch):
    """Where an update retitled most documents, every candidate title of the snapshot read before was
    looked up in the one served, 23,932 for "a" at 64k, 2.8 s a keystroke (a review)."""
    from search import suggest
    from search.snapshot import Snapshot

    suggester, release = _retitled_while_read(tmp_path, monkeypatch, 300, 300)
    looked: list[str] = []
    title_of = Snapshot.title_of
    monkeypatch.setattr(Snapshot, "title_of", lambda self, doc_id: looked.append(doc_id) or title_of(self, doc_id))
    assert [s for s in suggester.suggest("quokka m") if s.kind == "title"] == []  # every old title left out
    assert 0 < len(looked) <= suggest.TITLE_CHECKS
    release.set()


# Under a page's filters ------------------------------------------------------------------------------


def suggest_under(client, q: str, filters: list[tuple[str, str]]) -> list[dict[str, str]]:
    response = client.get("/api/suggest", query_string=[("q", q), *filters])
    assert response.status_code == 200, response.get_json()
    return response.get_json()["suggestions"]


def facets(client, filters: list[tuple[str, str]] = ()) -> dict[str, list[dict]]:
    return client.get("/api/search", query_string=[*filters, ("per_page", 1)]).get_json()["facets"]


def hits_under(client, filters: list[tuple[str, str]]) -> list[dict]:
    """Return every page *filters* list, as hits."""
    found, page = [], 1
    while True:
        answer = client.get("/api/search", query_string=[*filters, ("per_page", 50), ("page", page)]).get_json()
        found += answer["hits"]
        if page >= answer["pages"]:
            return found
        page += 1


def pages_under(client, filters: list[tuple[str, str]]) -> set[str]:
    """Return the address of every page *filters* list."""
    return {hit["url"] for hit in hits_under(client, filters)}


def largest_topic(client) -> str:
    """Return the topic with the most pages that is not on every page."""
    total = client.get("/api/search?per_page=1").get_json()["total"]
    return next(v["value"] for v in facets(client)["topic"] if v["count"] < total)


def finds_something(client, filters: list[tuple[str, str]], suggestion: dict[str, str]) -> bool:
    """Return whether choosing *suggestion* in the box of a page under *filters* leads to something
    under them, as the page's script chooses it: a word searched with the filters kept (the form's
    hidden fields), a topic or organisation added to them, a title to its page."""
    if suggestion["kind"] == "title":
        return suggestion["url"] in pages_under(client, filters)
    if suggestion["kind"] == "term":
        chosen = [*filters, ("q", suggestion["text"])]
    else:
        chosen = [*filters, *(pair for pair in parse_qsl(suggestion["url"].partition("?")[2]) if pair not in filters)]
    return client.get("/api/search", query_string=[*chosen, ("per_page", 1)]).get_json()["total"] > 0


def narrow_filters(client) -> list[list[tuple[str, str]]]:
    """Return filters of the seed corpus that leave few pages: the topic and the organisation with the
    fewest, the guides, and the largest topic that is not every page with an organisation on few of its pages."""
    everything = facets(client)
    fewest = {name: min(everything[name], key=lambda v: (v["count"], v["value"]))["value"] for name in ("topic", "entity")}
    topic = largest_topic(client)
    entity = min((v for v in facets(client, [("topic", topic)])["entity"] if v["count"]), key=lambda v: (v["count"], v["value"]))["value"]
    return [[("topic", fewest["topic"])], [("entity", fewest["entity"])], [("kind", "guide")], [("topic", topic), ("entity", entity)]]


PREFIXES = [*"abcdefghijklmnoprstuw", "stargate m", "data c", "open ", "-st", '"stargate mi', "fine-t"]


def test_under_filters_every_suggestion_finds_something_under_them(client):
    # On the data centers topic's page "ana" offered "analysis" (no page of the topic says it), "d" the
    # organisation DeepSeek (none of its pages names it) and "acc" the Accelerate posts, pages outside it.
    for filters in narrow_filters(client):
        offered = 0
        for q in PREFIXES:
            for suggestion in suggest_under(client, q, filters):
                offered += 1
                assert finds_something(client, filters, suggestion), (filters, q, suggestion)
        assert offered, filters  # something is still offered under each


def test_a_filter_offered_under_filters_leads_to_both_for_a_program_as_for_the_page(client):
    # "NVIDIA" offered on a topic's page led, in the JSON, to every page naming NVIDIA, the topic dropped
    # (the page's script adds the kept filters; a program following the url did not: a QA pass).
    topic = largest_topic(client)
    offered = [s for q in PREFIXES for s in suggest_under(client, q, [("topic", topic)]) if s["kind"] == "organisation"]
    assert offered
    for suggestion in offered:
        chosen = parse_qsl(suggestion["url"].partition("?")[2])
        assert ("topic", topic) in chosen and any(name == "entity" for name, _ in chosen), suggestion
        assert client.get("/api/search", query_string=[*chosen, ("per_page", 1)]).get_json()["total"] > 0
    # A filter sent in another case is written as the index writes it, in the JSON as in OpenSearch's
    # addresses ("?entity=NVIDIA&entity=nvidia": a QA pass).
    for answer in (client.get("/api/suggest?q=nvi&entity=NVIDIA").get_json()["suggestions"],
                   [{"kind": "organisation", "url": url} for url in client.get("/api/suggest/opensearch?q=nvi&entity=NVIDIA").get_json()[3]
                    if "/events/" not in url]):
        assert all(parse_qsl(s["url"].partition("?")[2]) == [("entity", "nvidia")] for s in answer if s["kind"] == "organisation"), answer
    # Unfiltered, a suggestion leads to its own filter alone, as before.
    assert all(parse_qsl(s["url"].partition("?")[2])[0][0] == "entity"
               for s in suggest_under(client, "nvid", []) if s["kind"] == "organisation")


def test_an_organisation_and_a_page_outside_the_filters_are_not_offered_even_typed_whole(client):
    topic = largest_topic(client)
    named = {v["value"] for v in facets(client, [("topic", topic)])["entity"] if v["count"]}
    organisation = next(v["label"] for v in facets(client)["entity"] if v["value"] not in named)
    inside = pages_under(client, [("topic", topic)])
    title = next(hit["title"] for hit in hits_under(client, []) if hit["url"] not in inside)
    for typed, kind in ((organisation, "organisation"), (title, "title")):
        assert any(s["kind"] == kind and s["text"] == typed for s in suggest_under(client, typed, [])), typed
        assert not any(s["text"] == typed for s in suggest_under(client, typed, [("topic", topic)])), (typed, topic)


def test_dates_that_allow_no_page_leave_nothing_to_suggest(client):
    for q in ("st", "stargate m", "open "):
        assert suggest_under(client, q, [])
        assert suggest_under(client, q, [("until", "2000-01-01")]) == []


@pytest.mark.parametrize("query", ["kind=bogus", "month=2024-13", "month=2024-05&month=May", "since=yesterday", "until=2025-02-30",
                                   "since=2025-01-02&until=2025-01-01", "topic=a%00b", "entity=" + "x" * 200,
                                   "&".join(["topic=t%d" % i for i in range(11)]), "topic[]=%00"])
def test_a_bad_filter_is_a_400_naming_it_as_the_search_says(client, query):
    searched = client.get("/api/search?q=st&" + query)
    assert searched.status_code == 400
    for path in ("/api/suggest", "/api/suggest/opensearch"):
        answer = client.get(f"{path}?q=st&" + query)
        assert answer.status_code == 400, (path, query)
        assert answer.get_json()["error"] == searched.get_json()["error"], (path, query)


def test_filters_are_read_as_the_search_reads_them(client):
    topic = min(facets(client)["topic"], key=lambda v: v["count"])["value"]
    canonical = suggest_under(client, "d", [("topic", topic)])
    assert canonical != suggest_under(client, "d", [])
    for written in ([("topic", topic.upper())], [("topic[]", topic)], [("topic[0]", topic)], [("topic", f" {topic} "), ("topic", topic)],
                    [("topic", topic), ("sort", "newest"), ("per_page", "50"), ("page", "3")]):  # the page's other settings change nothing
        assert suggest_under(client, "d", written) == canonical, written


def test_an_answer_under_one_filter_never_answers_another(index_dir):
    # What a filter allows is kept per snapshot read, and so is each phrase checked under it: each answer
    # is the one an app asked only under its filters gives.
    client = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    filters = [[], *narrow_filters(client)]
    for q in ("d", "st", '"amd gp', '"stargate mi', "stargate m", "-st"):
        answers = [suggest_under(client, q, chosen) for chosen in (*filters, *reversed(filters))]
        for chosen, answer, again in zip(filters, answers, reversed(answers)):
            fresh = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
            assert answer == again == suggest_under(fresh, q, chosen), (q, chosen)
    assert len({repr(suggest_under(client, "d", chosen)) for chosen in filters}) == len(filters)


def test_a_word_completed_in_a_quote_under_filters_makes_a_phrase_a_page_under_them_writes(client):
    # '"amd gp' offered '"amd GPUs' on the funding topic's page, where pages hold both words, none the phrase.
    for filters in [[], *narrow_filters(client), [("topic", "funding")]]:
        for q in ('"amd gp', '"stargate mi', '"data cen', '"announce st'):
            for text in [s["text"] for s in suggest_under(client, q, filters) if s["kind"] == "term"]:
                found = client.get("/api/search", query_string=[("q", text), ("per_page", 50), *filters]).get_json()
                assert found["answer"] or any(h["matched_by"] == "words" and not h["missing"] for h in found["hits"]), (filters, text)


def test_the_opensearch_completions_under_filters_lead_to_pages_keeping_them(client):
    topic = largest_topic(client)
    for q in ("d", "st", "b"):
        query, texts, kinds, addresses = client.get("/api/suggest/opensearch", query_string={"q": q, "topic": topic}).get_json()
        assert texts == [s["text"] for s in suggest_under(client, q, [("topic", topic)])]
        for kind, address in zip(kinds, addresses):
            if kind != "Go to":
                assert ("topic", topic) in parse_qsl(urlsplit(address).query), address
        unfiltered = client.get("/api/suggest/opensearch", query_string={"q": q}).get_json()
        assert all("topic=" + topic not in address or kind == "Topic" for kind, address in zip(unfiltered[2], unfiltered[3]))


def test_the_contract_gives_search_as_you_type_the_search_s_filters(client):
    document = client.get("/api/openapi.json").get_json()

    def declared(path: str) -> dict[str, dict]:
        return {p["name"]: p["schema"] for p in document["paths"][path]["get"]["parameters"] if p["in"] == "query"}

    searched, names = declared("/api/search"), (*FILTERS, *DATE_BOUNDS)
    for path in ("/api/suggest", "/api/suggest/opensearch"):
        assert {name: declared(path).get(name) for name in names} == {name: searched[name] for name in names}, path


def test_under_filters_nothing_they_leave_out_is_offered_while_a_snapshot_is_read(tmp_path, monkeypatch):
    # What the filters allow is read in the snapshot the completions come from; once the service has
    # let it go, nothing tells, and nothing is offered under them until the one served is read.
    suggester, release = _retitled_while_read(tmp_path, monkeypatch, 3, 1)
    zoo, elsewhere = SearchParams(topic=("zoo",)), SearchParams(topic=("elsewhere",))
    assert suggester.suggest("quokka m")  # the snapshot read before answers
    assert suggester.suggest("quokka m", filters=elsewhere) == []
    release.set()
    wait_until(lambda: suggester.suggest("quokka m", filters=zoo), "the completions under the filter once the snapshot is read")
    titles = {s.text for s in suggester.suggest("quokka m", filters=zoo) if s.kind == "title"}
    assert "Quokka marker 0 second" in titles and "Quokka marker 0 first" not in titles
    assert suggester.suggest("quokka m", filters=elsewhere) == []


def _completed(client, prefix: str) -> list[str]:
    response = client.get("/api/suggest", query_string={"q": prefix})
    assert response.status_code == 200
    return [item["text"] for item in response.get_json()["suggestions"]]


def test_a_word_typed_with_plus_plus_sharp_or_an_opening_dot_completes_to_what_writes_it(tmp_path, client):
    # fold() made "c++" and "c#" "c", ".net" "net": "c++" offered the topics cli-mono and comm and
    # "Cinnamon" before "C++ tweeners" at 64k, and on the seed hub, which holds no C++, "Compute deals"
    # (a regression pass).  The search reads "c++" and "c#" as words of their own, ".net" as "net".
    docs = [{"id": "tweeners", "title": "C++ tweeners", "summary": "Tweening for games.", "topics": ["devel"]},
            {"id": "uuid", "title": "C++ UUID library", "summary": "Makes UUIDs.", "topics": ["devel"]},
            {"id": "cinnamon", "title": "Cinnamon", "summary": "A desktop.", "topics": ["desktop"]},
            {"id": "clib", "title": "C library of containers", "summary": "Lists and maps in C.", "topics": ["devel"]},
            {"id": "leveldb", "title": "C# binding for LevelDB", "summary": "From Mono.", "topics": ["cli-mono"]},
            {"id": "deob", "title": ".NET deobfuscator", "summary": "Unpacks assemblies.", "topics": ["cli-mono"]},
            {"id": "netbsd", "title": "NetBSD make", "summary": "The make of NetBSD.", "topics": ["devel"]},
            {"id": "node", "title": "Node.js HTTP client", "summary": "For Node.js.", "topics": ["javascript"]}]
    small = _client_of(tmp_path, docs)
    for typed in ("c++", "c+", "c++ "):
        assert _completed(small, typed) == ["C++ tweeners", "C++ UUID library"], typed
    assert _completed(small, "c#") == ["C# binding for LevelDB"]
    assert _completed(small, ".ne") == _completed(small, ".net") == [".NET deobfuscator"]
    assert _completed(small, "node.js") == ["Node.js HTTP client"]
    assert "Cinnamon" in _completed(small, "c") and "NetBSD make" in _completed(small, "ne")  # the word alone, as before
    # Where no entry writes it, no entry without it: the seed hub holds no C++, no C#.
    assert _completed(client, "c++") == _completed(client, "c#") == []


def test_a_word_completed_after_a_word_typed_with_plus_plus_or_sharp_is_held_with_it(tmp_path, client):
    # fold() made "c++" and "c#" "c", a word too short to narrow anything: on the seed hub, which holds
    # no C++, "c++ lib" offered "c++ library" (a QA pass).  Now what the pages writing "C++" hold, as the
    # search reads "c++": its own word, not the "c" the index also makes of it.
    docs = [{"id": "tweeners", "title": "C++ tweeners", "summary": "Tweening for games.", "topics": ["devel"]},
            {"id": "clib", "title": "C library of containers", "summary": "Lists and maps in C.", "topics": ["devel"]},
            {"id": "leveldb", "title": "C# binding for LevelDB", "summary": "From Mono.", "topics": ["cli-mono"]}]
    small = _client_of(tmp_path, docs)
    assert terms(small, "c++ ga") == ["c++ games"]
    assert terms(small, "c++ con") == terms(small, "c++ lis") == []  # the C page's words
    assert terms(small, "c# mo") == ["c# Mono"] and terms(small, "c# ma") == []
    assert "c containers" in terms(small, "c con")  # "c" alone narrows nothing, as before
    # A title holding it apart from the word typed after it, where the word narrows what is read.
    assert "C# binding for LevelDB" in suggest_texts(small, "c# lev")
    # Where no page writes it, nothing after it, as after a word no page holds ("zzzq lib").
    assert suggest_texts(client, "zzzq lib") == []
    for typed in ("c++ lib", "c# lib", "(c++ lib", "the c++ st"):
        assert suggest_texts(client, typed) == [], typed


def test_a_word_s_plus_plus_half_typed_offers_the_document_the_whole_word_names(tmp_path):
    # On the Debian corpus "g++" offered the package g++, "GNU C++ compiler", and "g+" nothing (a QA pass).
    docs = [{"id": "g++", "title": "GNU C++ compiler", "summary": "The GNU C++ compiler.", "topics": ["devel"]},
            {"id": "g", "title": "Generic tool", "summary": "Does things.", "topics": ["utils"]},
            {"id": "gtk", "title": "GTK+ widgets", "summary": "A toolkit.", "topics": ["libs"]}]
    small = _client_of(tmp_path, docs)
    assert suggest_texts(small, "g++")[:1] == suggest_texts(small, "g+")[:1] == ["GNU C++ compiler"]
    assert suggest_texts(small, "gtk+") == ["GTK+ widgets"]  # a word written with one "+" as before
