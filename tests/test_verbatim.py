"""Searching the words as typed (`verbatim=1`, the page's "Search instead for"), on the seed hub: no
correction of any kind is searched, while what writes the same words otherwise still is (a QA pass)."""

import pytest


def _search(client, q: str, verbatim: bool = False) -> dict:
    response = client.get("/api/search", query_string={"q": q, **({"verbatim": "1"} if verbatim else {})})
    assert response.status_code == 200
    return response.get_json()


@pytest.mark.parametrize(
    ("typed", "joined", "lacked"),
    [
        ("fluid stack", "fluidstack", "fluid"),  # two words the index holds as one: Fluidstack
        ("deep speed", "DeepSpeed", "speed"),
        ("hug ging face", "hugging face", "ging"),  # "hug" is the stem of "hugging": found as a stem is
        ("fluid-stack", "fluidstack", "fluid-stack"),  # hyphenated, no page holding "fluid"
    ],
)
def test_words_the_index_holds_as_one_are_searched_apart_as_typed(client, typed, joined, lacked):
    # Verbatim, "fluid stack" still searched Fluidstack and said so in "suggestion": the same 4 hits.
    corrected = _search(client, typed)
    assert corrected["suggestion"]["text"] == joined and not any(hit["missing"] for hit in corrected["hits"])
    as_typed = _search(client, typed, verbatim=True)
    assert as_typed["suggestion"] is None
    assert as_typed["hits"] and all(lacked in hit["missing"] for hit in as_typed["hits"])


def test_a_joined_word_taken_apart_is_not_corrected_in_its_stead(client):
    # Alone, "netes" is one letter from "note": Kubernetes, found as typed, is no page on notes.
    assert _search(client, "kuber netes")["suggestion"]["text"] == "kubernetes"
    as_typed = _search(client, "kuber netes", verbatim=True)
    assert as_typed["total"] == 0 and as_typed["suggestion"] is None


def test_a_word_cut_short_is_not_completed_as_typed(client):
    assert _search(client, "megatr")["suggestion"]["text"] == "megatron"
    as_typed = _search(client, "megatr", verbatim=True)
    assert as_typed["total"] == 0 and as_typed["suggestion"] is None


@pytest.mark.parametrize("typed", ["multigpu", "gpus", "united kingdom stargate", "network-manager", "stargate uk", "data centres"])
def test_the_same_words_written_otherwise_are_searched_as_typed(client, typed):
    # Not corrections (no search says "Showing results for" them): a word written apart ("multigpu" is
    # the pages' "multi-GPU"), an acronym's plural, a synonym ("united kingdom": UK), a stem, a spelling.
    corrected, as_typed = _search(client, typed), _search(client, typed, verbatim=True)
    assert corrected["suggestion"] is None and as_typed["suggestion"] is None
    assert as_typed["total"] == corrected["total"] > 0
    assert [hit["id"] for hit in as_typed["hits"]] == [hit["id"] for hit in corrected["hits"]]


@pytest.mark.parametrize(
    "typed",
    ["pyhton", "megatrn", "micorn", "tritn", "rainer", "kuberentes", "trainng", "hugingface", "megatr",
     "fluid stack", "deep speed", "hug ging face", "kuber netes", "pyhton stargate", "stargte uk", "fine turning"],
)
def test_as_typed_the_correction_offered_is_the_one_searched_otherwise(client, typed):
    # "pyhton" as typed offered nothing (python is in one page: too few for a word two edits off),
    # "tritn" offered "train" and "rainer" "rather" (a letter changed, offered in a short word) where
    # the search not verbatim says Triton and Rainier: the reader could not switch back.
    corrected = _search(client, typed)["suggestion"]["text"]
    as_typed = _search(client, typed, verbatim=True)
    assert as_typed["suggestion"] is None and as_typed["did_you_mean"]["text"] == corrected
    if not as_typed["total"]:
        first = as_typed["ways_out"][0]
        assert (first["kind"], first["query"]) == ("suggestion", corrected)


@pytest.mark.parametrize("typed", ["starget", "mixtral of experts", "fsdb"])
def test_as_typed_an_offer_without_a_correction_is_the_same(client, typed):
    # No search corrects these: each offers the same spelling verbatim or not.
    corrected, as_typed = _search(client, typed), _search(client, typed, verbatim=True)
    assert corrected["suggestion"] is None and corrected["did_you_mean"] is not None
    assert as_typed["did_you_mean"] == corrected["did_you_mean"] and as_typed["total"] == corrected["total"]


@pytest.mark.parametrize(
    ("typed", "offer"),
    [
        ("stargte", '<li><a href="/?q=stargate">Did you mean <q><bdi>stargate</bdi></q></a>: 15 results</li>'),
        ("pyhton", '<li><a href="/?q=python">Did you mean <q><bdi>python</bdi></q></a>: 1 result</li>'),
        ("fluid stack", 'Did you mean <a dir="auto" href="/?q=fluidstack"><mark>fluidstack</mark></a>?'),  # found: not a way out
    ],
)
def test_the_page_as_typed_links_its_offer_to_the_corrected_search(client, typed, offer):
    # The offer's link kept verbatim=1: the corrected words searched as typed, not the corrected search.
    page = client.get("/", query_string={"q": typed, "verbatim": "1"}).get_data(as_text=True)
    assert offer in page


@pytest.mark.parametrize(
    ("typed", "link"),
    [
        ("openai without microsoft", "/?q=openai+-microsoft&amp;topic=training-infrastructure&amp;sort=newest&amp;verbatim=1"),
        ("stargate not michigan", "/?q=stargate+-michigan&amp;topic=training-infrastructure&amp;sort=newest&amp;verbatim=1"),
        ("openai (w/o microsoft)", "/?q=openai+-microsoft&amp;topic=training-infrastructure&amp;sort=newest&amp;verbatim=1"),
    ],
)
def test_the_page_as_typed_keeps_the_switch_on_an_exclusion_offered(client, typed, link):
    # An exclusion offered for a negation in words corrects nothing: its link dropped verbatim=1 (the
    # filters and the order kept), so following it searched corrections the reader had switched off.
    args = {"q": typed, "verbatim": "1", "topic": "training-infrastructure", "sort": "newest"}
    page = client.get("/", query_string=args).get_data(as_text=True)
    assert f'Did you mean <a dir="auto" href="{link}">' in page
    # Not searched as typed, the page links it as it is.
    plain = client.get("/", query_string={**args, "verbatim": "0"}).get_data(as_text=True)
    assert f'Did you mean <a dir="auto" href="{link.replace("&amp;verbatim=1", "")}">' in plain
