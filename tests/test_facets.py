"""Facets: exact disjunctive counts for topic, organisation and type, checked against a brute-force count."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.enrich import load_taxonomy
import search.facets
from search.facets import _count, _counts, _ids, selected_docs
from search.params import MAX_PER_PAGE, SearchParams

FACETS = ("topic", "entity", "kind")
QUERIES = ("", "stargate", "compute", "nvidia gpus", '"data center"', "training -openai", "gigawatt OR tpu",
           "qwxyzzy", "the")


def _values(record) -> dict[str, set[str]]:
    """Return the facet values a reader sees on *record*, straight from the corpus."""
    return {"topic": {record.topic, *record.topics}, "entity": set(record.entities), "kind": {record.kind}}


def _passes(values: dict[str, set[str]], selection: dict[str, tuple[str, ...]], skip: str | None = None) -> bool:
    return all(not chosen or values[name] & set(chosen) for name, chosen in selection.items() if name != skip)


def _matching_ids(service, q: str) -> set[str]:
    """Return the ids the query matches with no filter, page by page."""
    ids: set[str] = set()
    page = 1
    while True:
        result = service.search(SearchParams(q=q, page=page, per_page=MAX_PER_PAGE))
        ids |= {hit.id for hit in result.hits} | ({result.answer.id} if result.answer else set())
        if page >= result.pages:
            return ids
        page += 1


@pytest.fixture(scope="module")
def universe(seed_corpus):
    values = {name: set() for name in FACETS}
    for record in seed_corpus.records:
        for name, found in _values(record).items():
            values[name] |= found
    return {name: sorted(found | {"no-such-value"}) for name, found in values.items()}


@pytest.fixture(scope="module")
def matching(service):
    return {q: _matching_ids(service, q) for q in QUERIES}


def _selection(universe):
    return st.fixed_dictionaries(
        {name: st.lists(st.sampled_from(universe[name]), max_size=3, unique=True).map(tuple) for name in FACETS}
    )


def test_the_seed_corpus_has_something_to_filter(universe):
    assert len(universe["topic"]) == 1 + 1 + 8 and len(universe["entity"]) > 20


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_totals_and_every_count_equal_a_brute_force_count(data, service, seed_corpus, universe, matching):
    q = data.draw(st.sampled_from(QUERIES), label="q")
    selection = data.draw(_selection(universe), label="selection")
    params = SearchParams(q=q, **selection)
    result = service.search(params)
    matched = [r for r in seed_corpus.records if r.id in matching[q]]

    expected = {r.id for r in matched if _passes(_values(r), selection)}
    assert result.total == len(expected)
    shown = {hit.id for hit in result.hits} | ({result.answer.id} if result.answer else set())
    assert shown <= expected and len(shown) == min(params.per_page, len(expected))

    for name in FACETS:
        # Disjunctive: a facet is counted over the results of every *other* facet's selection.
        base = [r for r in matched if _passes(_values(r), selection, skip=name)]
        counts = Counter(v for r in base for v in _values(r)[name])
        want = {v: (n, v in selection[name]) for v, n in counts.items()}
        want.update({v: (counts.get(v, 0), True) for v in selection[name]})
        got = {fv.value: (fv.count, fv.selected) for fv in result.facets[name]}
        assert got == want, name
        order = [(-fv.count, fv.label.lower()) for fv in result.facets[name]]
        assert order == sorted(order)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_each_count_is_the_total_clicking_it_gives(data, service, universe):
    q = data.draw(st.sampled_from(QUERIES), label="q")
    selection = data.draw(_selection(universe), label="selection")
    params = SearchParams(q=q, per_page=1, **selection)
    result = service.search(params)
    for name in FACETS:
        for fv in result.facets[name]:
            # The first tick in a facet; with values of it already ticked, ticking only this one.
            clicked = params.with_(**{name: (fv.value,)})
            assert service.search(clicked).total == fv.count, (name, fv.value)
            if not selection[name]:
                continue
            # Ticking one more value (OR) never loses a result and adds at most its count.
            added = service.search(params.with_(**{name: tuple(dict.fromkeys((*selection[name], fv.value)))}))
            assert result.total <= added.total <= result.total + fv.count


def test_hand_count_of_chips_or_data_centers_naming_openai(client):
    # Read by hand: the OpenAI events about chips or data centers (the Stargate sites, the 10 GW
    # NVIDIA and Broadcom deals, AMD's 6 GW, Samsung and SK), and the three guide sections that
    # name OpenAI while covering the buildout.
    expected = {
        "building-the-compute-infrastructure-for-the-intelligence-age",
        "openai-and-broadcom-announce-strategic-collaboration-to-deploy-10-gw-of-openai",
        "amd-and-openai-announce-strategic-partnership-to-deploy-6-gigawatts-of-amd-gpus",
        "openai-oracle-and-softbank-expand-stargate-with-five-new-ai-datacenter-sites",
        "openai-and-nvidia-announce-strategic-partnership-to-deploy-10-gigawatts-of-ai",
        "openai-launches-stargate-infrastructure-partner-outreach",
        "announcing-the-stargate-project",
        "openai-breaks-ground-on-1gw-stargate-data-center-in-michigan",
        "openai-and-softbank-group-partner-with-sb-energy-for-multi-gigawatt-ai-data",
        "expanding-stargate-to-michigan",
        "samsung-and-sk-join-openai-s-stargate-initiative-to-advance-global-ai",
        "openai-and-oracle-expand-stargate-with-4-5-gw-u-s-data-center-partnership",
        "introducing-stargate-uk",
        "introducing-stargate-norway-openai-s-first-european-ai-data-center-initiative",
        "introducing-stargate-uae",
        "training-infrastructure--how-it-evolved",
        "training-infrastructure--the-physical-buildout",
        "training-infrastructure--where-it-is-heading",
    }
    url = "/api/search?q=&topic=chips-accelerators&topic=data-centers-power&entity=openai&per_page=50"
    body = client.get(url).get_json()
    assert body["total"] == len(expected) and {h["id"] for h in body["hits"]} == expected
    assert body["filters"] == {"topic": ["chips-accelerators", "data-centers-power"], "entity": ["openai"], "kind": [], "month": []}
    for name in FACETS:
        for fv in body["facets"][name]:
            others = {k: v for k, v in body["filters"].items() if k != name}
            clicked = client.get("/api/search", query_string={"q": "", name: fv["value"], **others}).get_json()
            assert clicked["total"] == fv["count"], (name, fv["value"])


def test_repeated_filters_combine_or_within_and_across(client, service):
    body = client.get(
        "/api/search?q=compute&topic=funding&topic=networking&entity=nvidia&entity=broadcom&kind=event&kind=guide"
    ).get_json()
    params = SearchParams(q="compute", topic=("funding", "networking"), entity=("nvidia", "broadcom"),
                          kind=("event", "guide"))
    assert body["total"] == service.search(params).total > 0
    for name, chosen in (("topic", {"funding", "networking"}), ("entity", {"nvidia", "broadcom"}),
                         ("kind", {"event", "guide"})):
        assert {f["value"] for f in body["facets"][name] if f["selected"]} == chosen
        assert all(set(f) == {"value", "label", "count", "selected"} for f in body["facets"][name])


def test_unknown_values_give_an_empty_result_not_an_error(client):
    response = client.get("/api/search?q=&topic=no-such-topic&entity=Nobody&kind=event")
    assert response.status_code == 200
    body = response.get_json()
    assert body["total"] == 0 and body["hits"] == []
    for name, value in (("topic", "no-such-topic"), ("entity", "Nobody")):
        assert [f for f in body["facets"][name] if f["selected"]] == [
            {"value": value, "label": value, "count": 0, "selected": True}
        ]


def test_a_kind_is_event_or_guide_in_any_case_and_anything_else_is_a_400_naming_it(client):
    # Topics and organisations are whatever a corpus holds; kinds are a closed list, so "tweet" (or
    # "events") is a mistake to be told about, not a filter that quietly matches nothing.
    for bad in ("tweet", "events", "kind=guide"):
        response = client.get("/api/search", query_string={"q": "stargate", "kind": ["event", bad]})
        assert response.status_code == 400
        assert response.get_json()["error"]["param"] == "kind"
        assert "event, guide" in response.get_json()["error"]["message"]
        page = client.get("/", query_string={"q": "stargate", "kind": bad})
        assert page.status_code == 400 and b"event, guide" in page.data
    typed = client.get("/api/search?q=stargate&kind=Guide&kind=GUIDE").get_json()
    assert typed["filters"]["kind"] == ["guide"]
    assert typed["total"] > 0 and {hit["kind"] for hit in typed["hits"]} == {"guide"}


@pytest.mark.parametrize(
    ("query", "param"),
    [("&".join(["entity=e"] * 11), "entity"), ("kind=" + "k" * 65, "kind"), ("entity=" + "e" * 65, "entity")],
)
def test_too_many_or_too_long_values_are_a_400_naming_the_filter(client, query, param):
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 400 and response.get_json()["error"]["param"] == param


def test_topic_and_type_facets_show_labels(client):
    body = client.get("/api/search?q=").get_json()
    labels = {f["value"]: f["label"] for f in body["facets"]["topic"]}
    taxonomy = load_taxonomy()
    assert labels == {taxonomy.home.slug: "Training Infrastructure"} | {
        rule.topic.slug: rule.topic.name for rule in taxonomy.related
    }
    assert {(f["value"], f["label"], f["count"]) for f in body["facets"]["kind"]} == {
        ("event", "Event", 50), ("guide", "Guide section", 7)
    }


def test_entity_facet_shows_organisation_names(client):
    labels = {f["value"]: f["label"] for f in client.get("/api/search?q=").get_json()["facets"]["entity"]}
    assert (labels["openai"], labels["hugging-face"], labels["sk-hynix"]) == ("OpenAI", "Hugging Face", "SK hynix")


def test_facet_counts_agree_whichever_way_they_are_counted(service):
    snap = service.snapshot()
    for field in ("topics", "entities", "kind"):
        for size in (1, 5, len(snap.all_docs) // 2, len(snap.all_docs)):
            base = set(sorted(snap.all_docs)[:size])
            brute = {value: len(base & docs) for value, docs in snap.facet_docs[field].items()}
            counted = _counts(snap, field, base)
            assert {v: c for v, c in counted.items() if c} == {v: c for v, c in brute.items() if c}


def test_facets_kept_for_a_match_set_are_the_ones_counted_afresh(service):
    from search.facets import count_facets

    snap = service.snapshot()
    params = SearchParams(q="stargate")
    matched = set(sorted(snap.all_docs)[:12])
    fresh = _count(snap, params, matched, selected_docs(snap, params))
    first = count_facets(snap, params, matched, selected_docs(snap, params))
    first["topic"] = ()  # a caller changing its copy changes nothing kept
    again = count_facets(snap, params, frozenset(matched), selected_docs(snap, params))
    assert again == fresh and again["topic"]
    picked = SearchParams(q="stargate", kind=("guide",))  # a selection: counted afresh, never kept
    assert count_facets(snap, picked, matched, selected_docs(snap, picked)) == _count(
        snap, picked, matched, selected_docs(snap, picked)
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_counting_with_arrays_gives_the_set_paths_counts_in_its_order(data, service):
    # Order too: it breaks ties between equal counts of equal labels.  Seed topics and organisations
    # are multi-valued (the CSR arrays), kind single-valued; small sets take the Counter's order.
    snap = service.snapshot()
    base = data.draw(st.sets(st.sampled_from(sorted(snap.all_docs))), label="base")
    for field in ("topics", "entities", "kind", "month"):
        plain = _counts(snap, field, base)
        assert list(_counts(snap, field, base, _ids(base)).items()) == list(plain.items()), field


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_facets_counted_with_arrays_are_the_ones_counted_from_sets(data, service, universe, monkeypatch):
    snap = service.snapshot()
    matched = data.draw(st.sets(st.sampled_from(sorted(snap.all_docs)), min_size=1), label="matched")
    params = SearchParams(q="x", **data.draw(_selection(universe), label="selection"))
    selected = selected_docs(snap, params)
    with monkeypatch.context() as patch:
        patch.setattr(search.facets, "COUNT_WITH_ARRAYS_MIN", len(snap.all_docs) + 1)  # never
        from_sets = _count(snap, params, matched, selected)
    with monkeypatch.context() as patch:
        patch.setattr(search.facets, "COUNT_WITH_ARRAYS_MIN", 0)  # always
        assert _count(snap, params, matched, selected) == from_sets


def test_a_filter_value_in_another_case_filters_by_that_value(client):
    # entity=OpenAI is what a reader types for the organisation the index knows as openai.
    exact = client.get("/api/search?entity=openai&kind=event").get_json()
    typed = client.get("/api/search?entity=OpenAI&kind=Event").get_json()
    assert typed["total"] == exact["total"] > 0 and typed["filters"] == exact["filters"]
    assert [h["id"] for h in typed["hits"]] == [h["id"] for h in exact["hits"]]
    page = client.get("/?q=stargate&entity=OpenAI")
    assert page.status_code == 302 and page.headers["Location"] == "/?q=stargate&entity=openai"
    assert client.get("/api/search?entity=nosuch").get_json()["total"] == 0  # unknown in any case: nothing


@pytest.mark.parametrize(("sent", "meant"), [({"topic": "compute-deal"}, ("topic", "compute-deals", "Compute deals")),
                                            ({"topic": "Compute deal"}, ("topic", "compute-deals", "Compute deals")),
                                            ({"entity": "nvdia"}, ("entity", "nvidia", "NVIDIA"))])
def test_a_filter_value_no_page_has_is_offered_the_value_spelt_like_it(client, sent, meant):
    # "topic=compute-deal" found nothing and offered only "Without topic compute-deal"; the page said
    # "No topic is called compute-deal" (an editor's QA pass: a topic renamed, its old slug not kept).
    facet, value, label = meant
    body = client.get("/api/search", query_string={"q": "", **sent}).get_json()
    assert body["total"] == 0
    way = body["ways_out"][0]
    assert (way["kind"], way["facet"], way["value"], way["label"]) == ("close_value", facet, value, label)
    assert way["filters"][facet] == [value]
    assert way["count"] == client.get("/api/search", query_string={facet: value}).get_json()["total"] > 0
    page = client.get("/", query_string={"q": "", **sent}).get_data(as_text=True)
    assert f"{facet.title() if facet == 'topic' else 'Organisation'} <q><bdi>{label}</bdi></q> instead</a>: {way['count']} results" in page


def test_a_filter_value_like_none_is_offered_nothing_in_its_place(client):
    body = client.get("/api/search", query_string={"q": "gpu", "topic": "nope"}).get_json()
    assert body["total"] == 0 and [way["kind"] for way in body["ways_out"]] == ["without"]
