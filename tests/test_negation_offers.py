"""A negation typed in words ("openai w/o microsoft") offers the exclusion, however it is written, on
the seed hub (`/api/search`'s did_you_mean and the page's "Did you mean"; a regression pass)."""

import pytest


def _search(client, q: str, **args: str) -> dict:
    response = client.get("/api/search", query_string={"q": q, **args})
    assert response.status_code == 200
    return response.get_json()


@pytest.mark.parametrize(
    ("typed", "offered"),
    [
        ("openai w/o microsoft", "openai -microsoft"),
        ("openai W/O microsoft", "openai -microsoft"),  # in capitals: offered nothing
        ("openai W/o microsoft", "openai -microsoft"),
        ("openai (w/o microsoft)", "openai -microsoft"),  # an aside in parentheses: offered nothing
        ("openai (without microsoft)", "openai -microsoft"),
        ("stargate (not michigan)", "stargate -michigan"),
        ("openai (w/o microsoft) deals", "openai -microsoft deals"),
        ("openai, w/o microsoft", "openai, -microsoft"),  # after a comma: offered nothing
        ("openai, without microsoft", "openai, -microsoft"),
        # A list after the negation, to the end, is left out whole: "and" made it no offer, a comma "-uae, uk"
        ("stargate except uae and uk", "stargate -uae -uk"),
        ("stargate except uae, uk", "stargate -uae -uk"),
        ("stargate except the uae and the uk", "stargate -uae -uk"),
        ("stargate excluding uae & uk", "stargate -uae -uk"),
        ("stargate except uae, uk and norway", "stargate -uae -uk -norway"),
        ("openai (w/o microsoft and amazon)", "openai -microsoft -amazon"),
        ("openai without microsoft or amazon", "openai -microsoft -amazon"),  # "or" lists after any negation
    ],
)
def test_a_negation_is_offered_as_an_exclusion_however_it_is_written(client, typed, offered):
    result = _search(client, typed)
    assert result["did_you_mean"] is not None and result["did_you_mean"]["text"] == offered
    assert 0 < _search(client, offered)["total"] < result["total"]


@pytest.mark.parametrize("typed", ["openai W/O microsoft", "openai (w/o microsoft)", "openai, w/o microsoft"])
def test_w_slash_o_in_any_form_is_searched_as_the_lower_case_one(client, typed):
    plain, asked = _search(client, "openai w/o microsoft", per_page="50"), _search(client, typed, per_page="50")
    assert [h["id"] for h in asked["hits"]] == [h["id"] for h in plain["hits"]]
    assert not any({"w", "o", "W", "O"} & set(h["missing"]) for h in asked["hits"])


@pytest.mark.parametrize("typed", ["openai (w/o microsoft deals)", "(openai w/o microsoft)", "a/w/o microsoft",
                                   "openai w/o microsoft and amazon deals",  # a list is read to the end only
                                   # after "without" or "not", "and" may join what is wanted (it offered "-training")
                                   "openai without microsoft and training", "stargate not michigan and texas"])
def test_parentheses_holding_more_than_the_negation_are_a_group(client, typed):
    # What the parentheses group is not the negation alone: nothing is offered in their place.
    assert _search(client, typed)["did_you_mean"] is None


def test_a_listed_exclusion_offered_under_verbatim_keeps_the_switch(client):
    page = client.get("/", query_string={"q": "stargate except uae and uk", "verbatim": "1"}).get_data(as_text=True)
    assert 'href="/?q=stargate+-uae+-uk&amp;verbatim=1"' in page
