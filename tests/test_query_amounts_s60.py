"""Amounts and comparisons as a reader types them (a QA pass): a unit spelled out, thousands written
with a "k", and "compared to" between two names."""

from __future__ import annotations

import pytest

from search.params import SearchParams


@pytest.mark.parametrize(("typed", "short"), [("3 gigawatts", "3 GW"), ("3 gigawatt", "3 GW"), ("7 gigawatts", "7 GW"),
                                              ("2 gigawatts", "2 GW"), ("3 megawatts", "3 MW")])
def test_an_amount_with_its_unit_spelled_out_that_no_page_holds_is_found_nowhere_as_its_short_form_is(service, typed, short):
    # "3 gigawatts" gave 21 results said to hold all of it, the guide card of "Q3 2026" first; "2
    # gigawatts" put the page on 10 GW first by its "two".  No page holds the amount, as with "3 GW".
    result = service.search(SearchParams(q=typed, per_page=10))
    assert service.search(SearchParams(q=short, per_page=10)).total == 0
    assert result.total == 0 and result.answer is None and not result.hits
    assert [way.params.q for way in result.ways_out] == [typed.replace(" ", " OR ")]


def test_an_amount_with_its_unit_spelled_out_that_pages_hold_still_finds_them_first(service):
    result = service.search(SearchParams(q="10 gigawatts", per_page=10))
    assert result.match == "all" and {"10 Gigawatts" in result.hits[0].title, "10 GW" in result.hits[1].title} == {True}
