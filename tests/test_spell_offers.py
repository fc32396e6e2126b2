"""Spelling offers as a reader of the seed hub sees them (`/api/search`): a close word when nothing is
found, and a correction that finds no more only offered (a QA pass)."""

import pytest


def _search(client, q: str) -> dict:
    response = client.get("/api/search", query_string={"q": q})
    assert response.status_code == 200
    return response.get_json()


@pytest.mark.parametrize(
    ("typed", "offered"),
    [
        ("fsdb", "FSDP"),  # four letters, one changed: FSDP is in 2 pages
        ("FSDB", "FSDP"),
        ("parallism", "parallelism"),  # two letters left out of the word, three edits from its stem "parallel"
    ],
)
def test_a_query_that_finds_nothing_offers_a_close_word_the_pages_hold(client, typed, offered):
    # "fsdb" and "parallism" found nothing and offered neither a did-you-mean nor a way out.
    body = _search(client, typed)
    assert body["total"] == 0 and body["suggestion"] is None  # offered, not searched
    assert body["did_you_mean"] is not None and body["did_you_mean"]["text"] == offered
    found = _search(client, offered)["total"]
    assert found > 0
    first = body["ways_out"][0]
    assert (first["kind"], first["query"], first["count"]) == ("suggestion", offered, found)


@pytest.mark.parametrize("typed", ["dota", "maia", "asic", "export", "lease", "banana", "intel",
                                   "shower", "flower", "founders", "poster"])  # no doer of "show", "flowing", ...
def test_a_query_that_finds_nothing_offers_no_other_word(client, typed):
    # A letter changed in a four-letter word that reads as a word is another word ("dota" is no
    # "data", "maia" no "MTIA"), and an English word is meant ("export" is no "expert").
    body = _search(client, typed)
    assert body["total"] == 0 and body["did_you_mean"] is None and body["suggestion"] is None


def test_a_correction_that_finds_no_more_than_the_query_as_typed_is_only_offered(client):
    # "mixtral of experts" said "Including results for mistral of experts" and listed pages each
    # "Missing: mistral": no page names Mistral and experts both, so the correction found no more of
    # the query than the words as typed did, and added a page on Mistral AI's data center.
    body = _search(client, "mixtral of experts")
    assert body["suggestion"] is None
    assert body["hits"] and all(hit["missing"] == ["mixtral"] for hit in body["hits"])
    assert body["did_you_mean"] is not None and body["did_you_mean"]["text"] == "mistral of experts"
    # Alone, the correction finds what the word as typed does not: it is searched, and said.
    alone = _search(client, "mixtral")
    assert alone["total"] > 0 and alone["suggestion"] is not None and alone["suggestion"]["text"] == "mistral"
    # A letter changed whose correction finds a page with more of the query is searched ("stargare uae").
    both = _search(client, "stargare uae")
    assert both["suggestion"] is not None and both["suggestion"]["text"] == "stargate uae" and not both["hits"][0]["missing"]


def test_a_corrected_search_can_be_searched_as_typed(client):
    # The page said "Showing results for stargate" with no way to search "stargte" itself, which a
    # reader asking for a name the pages lack needs (Google's "Search instead for").
    page = client.get("/", query_string={"q": "stargte"}).get_data(as_text=True)
    assert 'Search instead for <a class="verbatim" dir="auto" href="/?q=stargte&amp;verbatim=1">stargte</a>' in page
    corrected = client.get("/api/search", query_string={"q": "stargte"}).get_json()
    as_typed = client.get("/api/search", query_string={"q": "stargte", "verbatim": "1"}).get_json()
    assert corrected["total"] > 0 and corrected["suggestion"]["text"] == "stargate"
    assert as_typed["total"] == 0 and as_typed["suggestion"] is None and as_typed["did_you_mean"]["text"] == "stargate"
    # A word some pages hold beside the corrected one: the typed words are searched, the fix offered.
    typed = client.get("/api/search", query_string={"q": "fine turning", "verbatim": "true"}).get_json()
    assert typed["suggestion"] is None and typed["did_you_mean"]["text"] == "fine tuning"
    assert typed["hits"] and all("turning" in hit["missing"] for hit in typed["hits"])


def test_verbatim_is_a_switch_named_when_wrong(client):
    response = client.get("/api/search", query_string={"q": "stargte", "verbatim": "maybe"})
    assert response.status_code == 400 and response.get_json()["error"]["param"] == "verbatim"
    page = client.get("/", query_string={"q": "stargte", "verbatim": "maybe"})
    assert page.status_code == 400 and "search the words as typed" in page.get_data(as_text=True)


def test_a_search_as_typed_stays_so_in_its_filter_form_and_its_feed(client):
    # Ticking a topic on "/?q=stargte uk&verbatim=1" searched the correction again (the form did not
    # carry verbatim), and the page's feed link carried it to a feed that ignored it (a regression QA pass).
    page = client.get("/", query_string={"q": "stargte uk", "verbatim": "1"}).get_data(as_text=True)
    assert '<input type="hidden" name="verbatim" value="1">' in page
    assert 'href="/feeds/search.atom?q=stargte+uk&amp;verbatim=1"' in page
    followed = client.get("/feeds/search.atom", query_string={"q": "stargte", "verbatim": "1"})
    corrected = client.get("/feeds/search.atom", query_string={"q": "stargte"})
    assert followed.status_code == corrected.status_code == 200
    assert followed.data.count(b"<entry>") == 0 < corrected.data.count(b"<entry>")
    assert client.get("/feeds/search.atom", query_string={"q": "stargte", "verbatim": "2"}).status_code == 400
