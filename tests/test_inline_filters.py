"""Filters typed in the query: "topic:funding stargate" is the search of stargate in Funding.

The box had no way to filter but the facets' links, and "topic:funding stargate" searched the words
"topic" and "funding" in silence, where other engines read their operators so (a QA pass)."""

from __future__ import annotations

import re

import pytest
from markupsafe import escape

from search.params import SearchParams


def _api(client, **params) -> dict:
    response = client.get("/api/search", query_string=params)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _ids(body: dict) -> list[str]:
    return [hit["id"] for hit in body["hits"]]


@pytest.mark.parametrize(("typed", "as_parameters"), [
    ("topic:funding stargate", {"q": "stargate", "topic": "funding"}),
    ("stargate topic:Funding", {"q": "stargate", "topic": "funding"}),  # in any case, anywhere
    ("kind:GUIDE stargate", {"q": "stargate", "kind": "guide"}),
    ('entity:"Oracle" stargate', {"q": "stargate", "entity": "oracle"}),
    ("entity:openai", {"entity": "openai"}),  # a filter alone lists what it keeps, newest first
    ("since:2025-06-01 stargate", {"q": "stargate", "since": "2025-06-01"}),
    ("stargate until:2025-06-30 since:2025-01-01", {"q": "stargate", "since": "2025-01-01", "until": "2025-06-30"}),
])
def test_a_filter_typed_in_the_query_is_the_filter(client, typed, as_parameters):
    typed_body, given = _api(client, q=typed), _api(client, **as_parameters)
    assert _ids(typed_body) == _ids(given) and typed_body["total"] == given["total"]
    # The answer says what was searched: the words left, the filters applied.
    assert typed_body["query"] == given["query"] and typed_body["filters"] == given["filters"]
    assert (typed_body["since"], typed_body["until"]) == (given["since"], given["until"])
    if not given["since"]:  # (the seed's pages are dated when first seen: a bound may keep them all)
        assert typed_body["total"] < _api(client, q=as_parameters.get("q", ""))["total"]  # it narrowed something
    # One search, one answer: the same ETag as the parameters'.
    etag = client.get("/api/search", query_string=as_parameters).headers["ETag"]
    assert client.get("/api/search", query_string={"q": typed}).headers["ETag"] == etag


def test_a_typed_filter_joins_the_address_s_filters(client):
    both = _api(client, q="topic:funding stargate", topic="compute-deals")
    assert both["filters"]["topic"] == ["compute-deals", "funding"]
    assert _ids(both) == _ids(_api(client, q="stargate", topic=["funding", "compute-deals"]))


@pytest.mark.parametrize("typed", [
    "topic:nowhere stargate",  # no such topic
    "kind:video stargate",  # no such kind
    "since:2025-13-01 stargate",  # no such date
    "month:2025-3 stargate",  # no month as the filter writes it
    "-topic:funding stargate",  # excluded
    '"topic:funding stargate"',  # quoted
    "stargate since:2025-06-30 until:2025-01-01",  # the bounds in the wrong order
])
def test_what_the_index_cannot_filter_by_stays_words(client, typed):
    body = _api(client, q=typed)
    assert body["query"] == typed and not any(body["filters"].values()) and body["since"] is None and body["until"] is None


def test_a_date_bound_the_address_gives_is_not_replaced_by_one_typed(client):
    body = _api(client, q="stargate since:2025-06-01", since="2024-01-01")
    assert body["since"] == "2024-01-01" and "since:2025-06-01" in body["query"]


def test_the_page_goes_to_the_address_of_its_filters_and_shows_them_chosen(client):
    response = client.get("/?q=topic:funding+stargate")
    assert response.status_code == 302 and response.headers["Location"] == "/?q=stargate&topic=funding"
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'name="q" type="search" dir="auto" value="stargate"' in page
    assert "Remove filter </span>Topic: <bdi>Funding" in page
    # The feed of it too, not for good: another snapshot may have no such topic.
    feed = client.get("/feeds/search.atom?q=topic:funding+stargate")
    assert feed.status_code == 302 and feed.headers["Location"].endswith("/feeds/search.atom?q=stargate&topic=funding")
    # A value it cannot filter by is searched as words, where it was typed.
    assert client.get("/?q=topic:nowhere+stargate").status_code == 200


def test_the_service_reads_them_for_every_caller(service):
    # The command line (topichub search) and any caller of the service alike.
    typed = service.search(SearchParams(q="topic:funding stargate"))
    given = service.search(SearchParams(q="stargate", topic=("funding",)))
    assert [hit.id for hit in typed.hits] == [hit.id for hit in given.hits] and typed.total == given.total


def test_completions_read_a_filter_typed_before_the_last_word(client):
    # They offered nothing once one was typed: "topic:funding st" was completed as one word "funding st".
    def offered(q: str) -> list[dict]:
        response = client.get("/api/suggest", query_string={"q": q})
        assert response.status_code == 200
        return response.get_json()["suggestions"]

    words = [s["text"] for s in offered("topic:funding st") if s["kind"] == "term"]
    assert words and all(text.startswith("topic:funding ") for text in words)
    # Only the words the filter's pages hold, as the box of Funding's page offers them.
    filtered = client.get("/api/suggest", query_string={"q": "st", "topic": "funding"}).get_json()["suggestions"]
    assert [text.removeprefix("topic:funding ") for text in words] == [s["text"] for s in filtered if s["kind"] == "term"]
    assert [s["text"] for s in offered("stargate kind:guide m") if s["kind"] == "term"] == \
        ["stargate kind:guide " + s["text"].removeprefix("stargate ")
         for s in client.get("/api/suggest", query_string={"q": "stargate m", "kind": "guide"}).get_json()["suggestions"] if s["kind"] == "term"]
    assert offered("topic:nowhere st") == []  # no such topic: the words as typed, which no page holds


@pytest.mark.parametrize(("typed", "said"), [
    ("topic:nowhere stargate", "no topic is called <q><bdi>nowhere</bdi></q>"),
    ("kind:video stargate", "no type is called <q><bdi>video</bdi></q> (the types are event and guide)"),
    ("month:2025-3 stargate", "(a month is written 2025-03)"),
    ("since:2025-13-01 stargate", "not a date this search reads"),
    ("stargate since:2025-06-30 until:2025-01-01", "would end before they begin"),
    ("entity:<b>x</b> stargate", "no organisation is called <q><bdi>&lt;b&gt;x&lt;/b&gt;</bdi></q>"),
])
def test_the_page_says_which_typed_filter_it_could_not_read(client, typed, said):
    response = client.get("/", query_string={"q": typed})
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and said in page and "so its words were searched" in page


def test_the_tips_page_shows_every_typed_filter_and_each_example_is_read_as_one(client):
    from search.params import MAX_FILTER_VALUES
    from web.pages import TYPED_FILTERS

    response = client.get("/help")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and "<h1>Search tips</h1>" in page
    assert f"{MAX_FILTER_VALUES} values at most (more are searched as words)" in page  # as the page's note says
    assert '<a href="/help">Search tips</a>' in client.get("/?q=stargate").get_data(as_text=True)  # from every page's footer
    for examples, _meaning in TYPED_FILTERS:
        for example in examples:
            assert f"<code>{escape(example)}</code>" in page
            body = _api(client, q=example)
            assert body["query"] == "" and (any(body["filters"].values()) or body["since"] or body["until"]), example


def test_a_filter_being_typed_is_offered_its_values(client):
    # "stargate topic:fu" offered nothing: the box could not tell a reader which topics there are.
    def offered(q: str) -> list[str]:
        return [s["text"] for s in client.get("/api/suggest", query_string={"q": q}).get_json()["suggestions"]]

    topics = {t["slug"] for t in client.get("/api/topics").get_json()["topics"]}
    assert offered("stargate topic:fu") == ["stargate topic:funding"]
    every = offered("topic:")
    assert every and {text.removeprefix("topic:") for text in every} <= topics  # most documents first, 8 at most
    assert offered("Topic:TRAIN") == ["topic:training-infrastructure"]  # in any case
    assert offered('topic:"Funding &') == ["topic:funding"]  # by its label, a quote opened
    assert offered("kind:g") == ["kind:guide"] and offered("topic:zzz") == []
    for text in every + offered("entity:op"):  # each is read as its filter
        assert _api(client, q=text)["query"] == "" and any(_api(client, q=text)["filters"].values()), text


@pytest.mark.parametrize(("typed", "said"), [
    ("stargate NOT topic:funding", "a filter is not left out (it keeps"),
    ("-topic:funding stargate", "a filter is not left out (it keeps"),
    ("stargate ANDNOT topic:funding", "a filter is not left out (it keeps"),  # it was Funding's stargate pages
    ("stargate ANDNOT entity:openai", "a filter is not left out (it keeps"),
    ('stargate ANDNOT entity:"OpenAI"', "a filter is not left out (it keeps"),
    ("topic:funding OR stargate", "a filter is not left out, joined by OR or put in parentheses"),
    ("stargate OR topic:funding", "a filter is not left out, joined by OR or put in parentheses"),
    ("stargate (topic:funding)", "a filter is not left out, joined by OR or put in parentheses"),
    ("+topic:funding stargate", "a filter is not left out, joined by OR or put in parentheses"),
])
def test_a_filter_beside_or_or_after_not_stays_words_and_the_page_says_why(client, typed, said):
    # "stargate NOT topic:funding" filtered by Funding, the opposite of what was asked; "topic:funding OR
    # stargate" required both (a QA pass).
    body = _api(client, q=typed)
    assert body["query"] == typed and not any(body["filters"].values())
    page = client.get("/", query_string={"q": typed})
    assert page.status_code == 200 and said in page.get_data(as_text=True)


def _notes(page: str) -> list[str]:
    return [" ".join(re.sub(r"<[^>]+>", "", note).split()) for note in re.findall(r'<p class="note[^"]*">(.*?)</p>', page, re.S)]


@pytest.mark.parametrize("typed", ["-topic:funding stargate", "stargate NOT topic:funding"])
def test_a_filter_typed_excluded_is_noted_once(client, index_dir, typed):
    # The page noted "-topic:funding stargate" twice: a filter is not left out, and "No page has
    # topic:funding, so excluding it left nothing out", wrong of the topic (Funding has pages; a QA pass).
    assert _api(client, q=typed)["excluded_in_vain"] == ["topic:funding"]  # (the words: the API's, as before)
    notes = [note for note in _notes(client.get("/", query_string={"q": typed}).get_data(as_text=True)) if "funding" in note]
    assert notes == ["topic:funding: a filter is not left out (it keeps only what it names; see Search tips), "
                     "so its words were searched: no page has them, so excluding them left nothing out."]
    # Another word excluded in vain keeps its note, and its respelling.
    page = client.get("/", query_string={"q": f"{typed} -nvdia"}).get_data(as_text=True)
    assert [note for note in _notes(page) if note.startswith("No page has")] == \
        [f"No page has nvdia, so excluding it left nothing out. Did you mean {typed} -NVIDIA?"]
    # The command line says the same, once.
    said = _said(index_dir, typed)
    assert "topic:funding: a filter is not left out, so its words were searched: no document has them" in said
    assert "No document has topic:funding" not in said


@pytest.mark.parametrize("typed", ["-topic:compute-deals stargate", "-month:2025-03 stargate", "NOT topic:compute-deals stargate"])
def test_a_filter_typed_excluded_with_a_hyphen_is_excluded_whole(client, typed):
    # The minus took only the filter's name: "-topic:compute-deals stargate" excluded "topic" and
    # searched "compute-deals" as a word every page should hold (37 pages, "Missing: stargate" on the
    # first), "-month:2025-03 stargate" 14 pages missing "2025-03" (the filters helper's note).
    body, plain = _api(client, q=typed), _api(client, q="stargate")
    assert _ids(body) == _ids(plain) and body["total"] == plain["total"] and body["match"] == "all"
    assert body["excluded_in_vain"] == [typed.split()[-2] if typed.startswith("NOT") else typed.split()[0][1:]]


@pytest.mark.parametrize("value", ["topic:funding", "entity:openai", 'entity:"OpenAI"', "topic:compute-deals", 'entity:"Mistral AI"'])
def test_a_filter_after_andnot_is_excluded_as_after_not(client, value):
    # 'stargate ANDNOT entity:"Mistral AI"' was applied as the filter, "stargate ANDNOT" left: on an
    # index where one page names Mistral AI, that page alone was listed (a helper's note).
    andnot, after_not = _api(client, q=f"stargate ANDNOT {value}"), _api(client, q=f"stargate NOT {value}")
    assert andnot["query"] == f"stargate ANDNOT {value}" and not any(andnot["filters"].values())
    assert _ids(andnot) == _ids(after_not) and andnot["total"] == after_not["total"] > 0
    assert andnot["excluded_in_vain"] == after_not["excluded_in_vain"]


def test_a_filter_joined_by_andnot_to_what_follows_keeps_it_excluded(client):
    # "topic:funding ANDNOT stargate" left "ANDNOT stargate", an ANDNOT joining nothing, dropped: it
    # listed Funding's Stargate pages, the opposite of what was asked (a helper's note).
    andnot, after_not = _api(client, q="topic:funding ANDNOT stargate"), _api(client, q="topic:funding NOT stargate")
    assert andnot["filters"]["topic"] == ["funding"] and _ids(andnot) == _ids(after_not)
    assert andnot["total"] == after_not["total"] > 0
    assert not set(_ids(andnot)) & set(_ids(_api(client, q="stargate")))
    # An operator left alone by the filter joins nothing: the filter's list ("No results for ANDNOT").
    alone, listed = _api(client, q="topic:funding ANDNOT"), _api(client, q="topic:funding")
    assert (alone["query"], alone["total"]) == ("", listed["total"]) and listed["total"] > 0
    # An ANDNOT the reader typed first joins nothing, as before a word: Funding's Stargate pages.
    opening, plain = _api(client, q="ANDNOT topic:funding stargate"), _api(client, q="topic:funding stargate")
    assert _ids(opening) == _ids(plain) and opening["total"] == plain["total"] > 0


@pytest.mark.parametrize("typed", ['-entity:"Mistral AI" stargate', 'NOT entity:"Mistral AI" stargate', 'stargate ANDNOT entity:"Mistral AI"'])
def test_a_filter_typed_excluded_with_a_quoted_value_is_excluded_whole(client, typed):
    # The minus took "entity" alone, and "Mistral AI" was then a phrase to find: the opposite of what
    # was asked (pages naming Mistral AI ranked first).
    body, plain = _api(client, q=typed), _api(client, q="stargate")
    assert _ids(body) == _ids(plain) and body["total"] == plain["total"] and body["match"] == "all"


@pytest.mark.parametrize("typed", ['-entity:"Mistral AI"', 'NOT entity:"Mistral AI"', '-topic:"compute-deals"'])
def test_a_query_that_only_excludes_a_filter_with_a_quoted_value_lists_everything_else(client, typed):
    # As "-entity:mistral-ai" does: '-entity:"Mistral AI"' alone found nothing (its phrase was taken for
    # words asked for), and 'NOT entity:"Mistral AI"' listed first the pages nearest Mistral AI in meaning.
    body, unquoted = _api(client, q=typed), _api(client, q="-entity:mistral-ai")
    assert body["total"] == unquoted["total"] > 0 and _ids(body) == _ids(unquoted)


def test_a_filter_typed_excluded_names_the_words_of_it_excluded_in_vain(client):
    # What is excluded is the phrase "entity Mistral AI", which no page has: the note says so of the
    # filter as typed, once, as of "-entity:mistral-ai" (it said "no page has entity", the phrase's first
    # word, and showed the value without its quotes: a QA pass).
    typed = '-entity:"Mistral AI" stargate'
    assert _api(client, q=typed)["excluded_in_vain"] == ['entity:"Mistral AI"']
    notes = _notes(client.get("/", query_string={"q": typed}).get_data(as_text=True))
    assert [note for note in notes if "entity" in note] == [
        'entity:"Mistral AI": a filter is not left out (it keeps only what it names; see Search tips), so its words were searched: '
        "no page has them, so excluding them left nothing out."]
    # A word typed outside the filter as well keeps its own note.
    assert "No page has entity, so excluding it left nothing out." in _notes(client.get("/", query_string={"q": f"-entity {typed}"}).get_data(as_text=True))


def test_too_many_typed_values_are_noted_as_too_many(client, index_dir):
    # Thirteen typed organisations, which the index has, were noted "no organisation is called …", and
    # an eleventh entity: beside ten "no organisation is called softbank" (a QA pass).
    from search.params import MAX_FILTER_VALUES

    known = [value["value"] for value in _api(client, q="")["facets"]["entity"]][: MAX_FILTER_VALUES + 1]
    listed = f"entity:{','.join(known)}"
    body = _api(client, q=f"{listed} stargate")  # the API: its words were searched (query), no filter applied
    assert body["query"] == f"{listed} stargate" and not any(body["filters"].values())
    notes = _notes(client.get("/", query_string={"q": f"{listed} stargate"}).get_data(as_text=True))
    assert f"{listed}: more values than a filter takes ({MAX_FILTER_VALUES} at most), so its words were searched." in notes
    assert not any("is called" in note for note in notes)
    assert f"{listed}: more values than a filter takes ({MAX_FILTER_VALUES} at most), so its words were searched." in _said(index_dir, listed)
    # Typed apart: the ten first are read, and the page of them says why the eleventh is not.
    apart = " ".join(f"entity:{value}" for value in known)
    page = client.get("/", query_string={"q": apart}, follow_redirects=True).get_data(as_text=True)
    said = f"entity:{known[-1]}: more values than a filter takes ({MAX_FILTER_VALUES} at most, with the {MAX_FILTER_VALUES} chosen already)"
    assert any(note.startswith(said) for note in _notes(page)) and said in _said(index_dir, apart)
    # A month's list too (a parameter refuses it: the typed one was "no month is called …").
    months = "month:" + ",".join(f"2025-{month:02}" for month in range(1, 12))
    assert any(note.startswith(f"{months}: more values than a filter takes") for note in _notes(client.get("/", query_string={"q": months}).get_data(as_text=True)))
    # Fewer: not too many, whatever else it is.
    assert "more values" not in client.get("/", query_string={"q": "topic:nowhere stargate"}).get_data(as_text=True)


def _said(index_dir, q: str) -> str:
    from click.testing import CliRunner

    from web.cli import main

    result = CliRunner().invoke(main, ["search", "--index-dir", str(index_dir), "--", q])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("typed", "query", "filters"), [
    # Bounds in the wrong order stay words; the topic beside them is still read (every filter fell back).
    ("since:2025-06-30 until:2025-01-01 topic:funding stargate", "since:2025-06-30 until:2025-01-01 stargate", {"topic": ["funding"]}),
    # Lists as the parameters read them.
    ("topic:funding,nowhere stargate", "stargate", {"topic": ["funding", "nowhere"]}),
    ("kind:event,guide stargate", "stargate", {"kind": ["event", "guide"]}),
    # A name the gazetteer gives an organisation, as entity=aws reads it (the page offers Amazon).
    ("entity:aws", "", {"entity": ["aws"]}),
    # As phones and sentences write them.
    ("stargate topic:funding?", "stargate", {"topic": ["funding"]}),
    ("entity:\u201cOracle\u201d stargate", "stargate", {"entity": ["oracle"]}),
    ("topic\uff1afunding stargate", "stargate", {"topic": ["funding"]}),
])
def test_typed_filters_are_read_as_their_parameters_read_them(client, typed, query, filters):
    body = _api(client, q=typed)
    assert body["query"] == query and {k: v for k, v in body["filters"].items() if v} == {k: sorted(v) for k, v in filters.items()}


def test_no_more_typed_values_are_read_than_a_parameter_takes(client):
    # Twelve typed organisations were a 200 where the parameters' are a 400, and the page went to an
    # address that was one (a QA pass): the values past the limit stay words.
    from search.params import MAX_FILTER_VALUES

    known = [value["value"] for value in _api(client, q="")["facets"]["entity"]][: MAX_FILTER_VALUES + 1]
    assert len(known) == MAX_FILTER_VALUES + 1
    body = _api(client, q=" ".join(f"entity:{value}" for value in known))
    assert len(body["filters"]["entity"]) == MAX_FILTER_VALUES and body["query"] == f"entity:{known[-1]}"
    assert client.get("/", query_string={"q": " ".join(f"entity:{value}" for value in known)}, follow_redirects=True).status_code == 200


def test_the_command_line_says_which_typed_filters_it_read(index_dir):
    # `topichub search "entity:aws"` only showed "missing: entity" on each hit (a QA pass).
    from click.testing import CliRunner

    from web.cli import main

    def said(q: str) -> str:
        result = CliRunner().invoke(main, ["search", q, "--index-dir", str(index_dir)])
        assert result.exit_code == 0, result.output
        return result.output

    assert said("topic:funding stargate").startswith("Filtered as typed: topic:funding\n")
    assert "topic:nowhere: a filter this index cannot filter by, so its words were searched." in said("topic:nowhere stargate")
    assert "topic:funding: a filter is not left out, joined by OR" in said("stargate OR topic:funding")
    assert "typed" not in said("stargate").splitlines()[0]
