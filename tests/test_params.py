"""Request parameters: what a search may ask for, and the one parameter named when it asks too much."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from search.params import (
    MAX_FILTER_CHARS,
    MAX_FILTER_LIST_CHARS,
    MAX_FILTER_VALUES,
    MAX_PREFIXES,
    MAX_QUERY_CHARS,
    MAX_QUERY_WORDS,
    InvalidParameter,
    SearchParams,
    parse_params,
    to_query_string,
)


def parse(*pairs: tuple[str, str]) -> SearchParams:
    return parse_params(MultiDict(pairs))


def rejected(*pairs: tuple[str, str]) -> InvalidParameter:
    with pytest.raises(InvalidParameter) as info:
        parse(*pairs)
    return info.value


def test_defaults():
    params = parse()
    assert params == SearchParams()
    assert params.effective_sort == "newest"
    assert parse(("q", "gpu")).effective_sort == "relevance"


def test_query_whitespace_is_collapsed_before_the_limits():
    assert parse(("q", "  fine\t\ttune \n gpus  ")).q == "fine tune gpus"
    spaced = " ".join(["word"] * MAX_QUERY_WORDS) + " " * 500
    assert parse(("q", spaced)).q.count("word") == MAX_QUERY_WORDS


@pytest.mark.parametrize(
    "q",
    ["x" * (MAX_QUERY_CHARS + 1), "w " * (MAX_QUERY_CHARS // 2 + 1), "a\x00b"],
)
def test_query_limits(q):
    assert rejected(("q", q)).param == "q"


def test_query_at_the_limits_is_accepted():
    assert len(parse(("q", "x" * MAX_QUERY_CHARS)).q) == MAX_QUERY_CHARS
    # A pasted paragraph of many words is searched (by its most informative ones), not refused.
    assert len(parse(("q", " ".join(["w"] * (MAX_QUERY_CHARS // 2)))).q.split()) == MAX_QUERY_CHARS // 2


def test_the_limits_count_the_characters_sent_not_those_composing_makes():
    # U+0958 (a Devanagari letter with its nukta) is two characters composed (NFC): 2,049 of them were
    # refused as more than 4,096, 33 in a topic as more than 64, though the client sent no more than
    # the spec's maxLength (a QA pass).
    letter = "\u0958"
    assert len(parse(("q", letter * MAX_QUERY_CHARS)).q) == 2 * MAX_QUERY_CHARS  # searched composed
    assert rejected(("q", letter * (MAX_QUERY_CHARS + 1))).message.endswith("once whitespace is collapsed")
    for name in ("topic", "entity"):
        (value,) = getattr(parse((name, letter * MAX_FILTER_CHARS)), name)
        assert len(value) == 2 * MAX_FILTER_CHARS
        assert rejected((name, letter * (MAX_FILTER_CHARS + 1))).param == name


def test_a_query_of_many_prefixes_is_refused_before_it_is_looked_up():
    # Each prefix is looked up in the whole vocabulary before the time budget applies: 520 OR'd
    # two-letter prefixes kept a worker 3.5 s at 64k, and 30 s with explain=1.
    prefixes = [f"{a}{b}*" for a in "abcdefgh" for b in "abcdefgh"]
    many = rejected(("q", " OR ".join(prefixes[: MAX_PREFIXES + 1])))
    assert many.param == "q" and str(MAX_PREFIXES) in str(many) and "*" in str(many)
    assert rejected(("q", "python " + " ".join(f"-{p}" for p in prefixes))).param == "q"
    assert parse(("q", " OR ".join(prefixes[:MAX_PREFIXES]))).q.count("*") == MAX_PREFIXES
    # A mark NFC cannot merge into its letter ("t\u0331") hid the prefix from the count.
    assert rejected(("q", " OR ".join(p.replace("*", "\u0331*") for p in prefixes[: MAX_PREFIXES + 1]))).param == "q"
    # A star that ends no word is no prefix: "5 * 3", "* rating", a footnote mark alone.
    assert parse(("q", " ".join(["5 * 3"] * 20))).q


@pytest.mark.parametrize("raw", ["+1", "1_0", "١", "²", "1.0", "1e2", "-1", "0x10", "1 0", "１"])
@pytest.mark.parametrize("name", ["page", "per_page"])
def test_numbers_are_plain_ascii_digits(name, raw):
    error = rejected((name, raw))
    assert error.param == name and "digits 0-9" in error.message


@pytest.mark.parametrize("name", ["page", "per_page"])
def test_huge_numbers_are_out_of_range_not_a_crash(name):
    # int() raises a plain ValueError past 4,300 digits; the answer must still name the parameter.
    for raw in ("9" * 5000, "1" + "0" * 30):
        error = rejected((name, raw))
        assert error.param == name and "between" in error.message


def test_leading_zeros_are_the_same_number():
    assert parse(("page", "0" * 5000 + "2")).page == 2
    assert parse(("per_page", "007")).per_page == 7


@pytest.mark.parametrize(("per_page", "ok"), [("0", False), ("1", True), ("50", True), ("51", False)])
def test_per_page_range(per_page, ok):
    if ok:
        assert parse(("per_page", per_page)).per_page == int(per_page)
    else:
        assert rejected(("per_page", per_page)).param == "per_page"


def test_result_window():
    assert parse(("page", "20"), ("per_page", "50")).page == 20  # 1,000 results deep: allowed
    error = rejected(("page", "21"), ("per_page", "50"))
    assert error.param == "page" and "1000" in error.message and "no search has a page past 20" in error.message
    # A page that starts inside the window is served, cut at its end: results 961-1,000 of 48 a page.
    last = parse(("page", "21"), ("per_page", "48"))
    assert (last.page, last.end) == (21, 1000)
    assert "no search has a page past 21" in rejected(("page", "22"), ("per_page", "48")).message
    assert rejected(("page", "101")).param == "page"  # default per_page 10
    assert rejected(("page", "0")).param == "page"


@pytest.mark.parametrize("name", ["topic", "entity"])
def test_filter_limits(name):
    values = [(name, f"v{i}") for i in range(MAX_FILTER_VALUES)]
    assert len(getattr(parse(*values), name)) == MAX_FILTER_VALUES
    assert rejected(*values, (name, "one-more")).param == name
    assert getattr(parse((name, "x" * MAX_FILTER_CHARS)), name) == ("x" * MAX_FILTER_CHARS,)
    assert rejected((name, "x" * (MAX_FILTER_CHARS + 1))).param == name
    assert rejected((name, "a\x00")).param == name


def test_kinds_are_a_closed_list_read_in_any_case():
    assert parse(("kind", "Event"), ("kind", " guide "), ("kind", "EVENT")).kind == ("event", "guide")
    assert rejected(*[("kind", "event")] * (MAX_FILTER_VALUES + 1)).param == "kind"
    for bad in ("tweet", "x" * (MAX_FILTER_CHARS + 1), "event\x00"):
        assert rejected(("kind", "event"), ("kind", bad)).param == "kind"


def test_filter_values_are_trimmed_and_deduplicated():
    assert parse(("topic", " a "), ("topic", "a"), ("topic", ""), ("topic", "b")).topic == ("a", "b")


def test_lone_surrogates_are_refused():
    # A query string decoded with surrogateescape would carry them; JSON and UTF-8 pages cannot.
    assert rejected(("q", "a\udca0b")).param == "q"
    assert rejected(("entity", "\ud800")).param == "entity"


@pytest.mark.parametrize(("name", "raw"), [("sort", "random"), ("sort", "relevant"), ("explain", "maybe")])
def test_closed_choices(name, raw):
    assert rejected((name, raw)).param == name


def test_query_string_round_trip():
    params = parse(("q", "a & b"), ("topic", "t1"), ("topic", "t 2"), ("page", "3"), ("per_page", "20"), ("sort", "listing"))
    again = parse(*to_query_string(params))
    assert again == params


def test_messages_say_what_is_accepted():
    assert "true/false" in rejected(("explain", "maybe")).message
    # A real date-time whose offset takes it off the calendar in UTC is not called a bad format.
    off = rejected(("until", "0001-01-01T00:00:00+14:00"))
    assert off.param == "until" and "year 1" in off.message and "ISO 8601" not in off.message


def test_values_are_read_without_surrounding_whitespace_and_closed_lists_in_any_case():
    # The OpenAPI spec says values are stripped of surrounding whitespace; page, per_page, sort,
    # explain and the dates answered 400 to " 2" and " newest".  A sort, like a kind, is read in any case.
    spaced = parse(("page", " 2"), ("per_page", " 5 "), ("sort", " NEWEST"), ("explain", " true "),
                   ("since", " 2025-01-01 "), ("kind", " Event "))
    plain = parse(("page", "2"), ("per_page", "5"), ("sort", "newest"), ("explain", "1"), ("since", "2025-01-01"),
                  ("kind", "event"))
    assert spaced == plain
    assert parse(("per_page", "  ")) == SearchParams()  # blank: absent
    assert rejected(("sort", "newer")).param == "sort"
    assert rejected(("page", "2 3")).param == "page"


@pytest.mark.parametrize("raw", ["9999-12-31T23:59:59.9Z", "9999-12-31T23:59:59.000001Z", "9999-12-31T23:59:59.5+00:00"])
def test_a_since_whose_next_second_is_past_year_9999_is_named_not_a_crash(raw):
    # A fraction moves 'since' to the next whole second: past the calendar's last one it is a 400.
    assert rejected(("since", raw)).param == "since"
    assert parse(("until", raw)).until == "9999-12-31T23:59:59Z"  # 'until' keeps its second


def test_an_offsets_plus_sent_unencoded_in_a_url_is_read_as_the_plus(client):
    # The README writes since=2026-03-01T09:00+02:00; typed so in a URL the "+" arrives as a space,
    # and the answer was a 400 "must be an ISO 8601 date" (a QA pass).
    assert parse(("since", "2026-03-01T09:00 02:00")) == parse(("since", "2026-03-01T09:00+02:00"))
    assert parse(("until", "2026-03-01T09:00:30.5 14:00")).until == parse(("until", "2026-03-01T09:00:30.5+14:00")).until
    typed = client.get("/api/search?q=stargate&since=2020-03-01T09:00+02:00")
    encoded = client.get("/api/search?q=stargate&since=2020-03-01T09:00%2B02:00")
    assert typed.status_code == encoded.status_code == 200
    assert typed.get_json()["total"] == encoded.get_json()["total"] > 0
    # A space is no minus, nor a second offset.
    assert rejected(("since", "2026-03-01T09:00 -02:00")).param == "since"
    assert rejected(("since", "2026-03-01T09:00+01:00 02:00")).param == "since"
    # With a space for the T, an unencoded + is still the offset's.
    assert parse(("since", "2026-03-01 09:00 02:00")) == parse(("since", "2026-03-01T09:00+02:00"))


@pytest.mark.parametrize("sent", ["2026-03-01 09:30:00", "2026-03-01 11:30:00+02:00", "2026-03-01T11:30:00+0200",
                                  "2026-03-01 05:30-0400", "2026-03-01t09:30:00.000z"])
def test_a_date_time_as_sql_python_and_strftime_write_it_is_read(sent):
    # RFC 3339 lets a space stand for the T (SQL and Python's str() write it so) and strftime's %z
    # writes +0200: both were a 400 "'since' must be an ISO 8601 date" (QA pass X).
    assert parse(("since", sent)).since == "2026-03-01T09:30:00Z"
    assert parse(("until", sent)).until == "2026-03-01T09:30:00Z"


@pytest.mark.parametrize(
    ("sent", "read"),
    [
        ("2026-03-01t07:00:00z", "2026-03-01T07:00:00Z"),  # RFC 3339 lets "t" and "z" be lower case
        ("2026-03-01T07:00:00.123456789Z", "2026-03-01T07:00:01Z"),  # Go's RFC3339Nano: nine digits
        ("2026-03-01T07:00:00.000000001Z", "2026-03-01T07:00:01Z"),  # a fraction below a microsecond
        ("2026-03-01T07:00:00.000000000Z", "2026-03-01T07:00:00Z"),  # none
        ("2026-03-01t09:00:00.5+02:00", "2026-03-01T07:00:01Z"),
    ],
)
def test_a_date_time_as_rfc_3339_and_its_clients_write_it_is_read(sent, read):
    # Both were a 400 "'since' must be an ISO 8601 date … or date-time" (QA pass W).
    assert parse(("since", sent)).since == read
    assert parse(("until", sent)).until == read.replace(":01Z", ":00Z")  # until keeps its second
    assert rejected(("since", "2026-03-01T07:00:00.1234567890Z")).param == "since"  # ten digits: no


@pytest.mark.parametrize(
    ("since", "until", "later", "earlier"),
    [
        ("2026-12-04T09:02:24.5Z", "2026-12-04T09:02:24.6Z", "2026-12-04T09:02:25Z", "2026-12-04T09:02:24Z"),
        ("2026-12-04T09:02:24.5Z", "2026-12-04T09:02:24.5Z", "2026-12-04T09:02:25Z", "2026-12-04T09:02:24Z"),
        ("2026-12-04T23:59:59.5Z", "2026-12-04", "2026-12-05T00:00:00Z", "2026-12-04T23:59:59Z"),  # its whole day
    ],
)
def test_a_window_holding_no_whole_second_is_refused_saying_what_would_hold_one(since, until, later, earlier):
    # It was a 200 echoing since …25Z (the next whole second) and until …24Z (the fraction dropped):
    # the page's feed and API links, and the feed's redirect, were each a 400 "'until' is before 'since'"
    # (a QA pass).  The bounds are named as sent, and what to give instead.
    error = rejected(("since", since), ("until", until))
    assert error.param == "until" and "no whole second" in error.message
    assert f"({since})" in error.message and f"({until})" in error.message
    assert f"'until' {later} or later" in error.message and f"'since' {earlier} or earlier" in error.message
    # What it says to give is a window of one whole second, answered.
    assert parse(("since", since), ("until", later)).date_range[0] == parse(("since", since), ("until", later)).date_range[1]
    assert parse(("since", earlier), ("until", until)).since == earlier


def test_until_before_since_names_the_values_as_read_in_utc_and_as_sent():
    # "'until' (…T12:00Z) is before 'since' (…T10:00-05:00)" hid why: 10:00-05:00 is 15:00 in UTC (a QA pass).
    error = rejected(("since", "2024-05-28T10:00-05:00"), ("until", "2024-05-28T12:00Z"))
    assert error.param == "until"
    assert error.message == ("'until' (2024-05-28T12:00:00Z) is before 'since' (2024-05-28T15:00:00Z, sent as "
                             "2024-05-28T10:00-05:00)")
    assert rejected(("since", "2024-06-02"), ("until", "2024-06-01")).message == "'until' (2024-06-01) is before 'since' (2024-06-02)"


@pytest.mark.parametrize(("sent", "said"), [("2025-02-29", "February 2025 has 28 days"), ("2024-04-31", "April 2024 has 30 days"),
                                            ("2024-02-30T10:00Z", "February 2024 has 29 days")])
@pytest.mark.parametrize("name", ["since", "until"])
def test_a_day_past_its_months_end_is_said_to_be_one(name, sent, said):
    # It got "must be an ISO 8601 date (2024-05-01) …", as if written wrong (a QA pass).
    error = rejected((name, sent))
    assert error.param == name and said in error.message and "ISO 8601" not in error.message


def test_a_bound_off_the_calendar_in_utc_is_told_its_own_reason():
    # until=9999-12-31T23:59:59-01:00 was told how since rounds a fraction of a second (a QA pass).
    until = rejected(("until", "9999-12-31T23:59:59-01:00")).message
    assert "after year 9999" in until and "offset" in until and "fraction" not in until and "since" not in until
    since = rejected(("since", "9999-12-31T23:59:59.5Z")).message
    assert "after year 9999" in since and "next whole second" in since and "offset" not in since
    assert "before year 1" in rejected(("since", "0001-01-01T00:00+01:00")).message


@pytest.mark.parametrize(
    ("pairs", "q", "page", "per_page"),
    [
        ((("q", ""), ("q", "stargate")), "stargate", 1, 10),  # an empty value counts as absent
        ((("q", "stargate"), ("q", "stargate ")), "stargate", 1, 10),  # blanks around it do not count
        ((("page", "2"), ("page", "02")), "", 2, 10),  # nor a whole number's leading zeros
        ((("per_page", "10"), ("per_page", "")), "", 1, 10),
        ((("q", "cafe\u0301"), ("q", "caf\u00e9")), "caf\u00e9", 1, 10),  # one text in two Unicode forms (QA pass X)
        ((("q", "open\u200bai"), ("q", "openai")), "openai", 1, 10),  # an invisible mark dropped, as the search drops it
    ],
)
def test_a_parameter_repeated_with_the_same_meaning_is_read_once(pairs, q, page, per_page):
    # Each was a 400 "'q' was given 2 different values" (QA pass U), though the docs say an empty
    # parameter counts as absent.
    params = parse(*pairs)
    assert (params.q.strip(), params.page, params.per_page) == (q, page, per_page)


@pytest.mark.parametrize("pairs", [(("explain", "1"), ("explain", "true")), (("explain", "off"), ("explain", "0")),
                                   (("explain", "YES"), ("explain", "on"))])
def test_an_explain_given_twice_in_two_words_for_one_is_read_once(pairs):
    # "explain=1&explain=true" was a 400 "given 2 different values" (a QA pass).
    assert parse(*pairs).explain == (pairs[0][1].lower() in ("1", "true", "yes", "on"))


@pytest.mark.parametrize("pairs", [(("q", "a"), ("q", "b")), (("page", "1"), ("page", "2")), (("sort", "newest"), ("sort", "listing")),
                                   (("explain", "1"), ("explain", "0"))])
def test_a_parameter_repeated_with_another_meaning_is_refused(pairs):
    with pytest.raises(InvalidParameter) as caught:
        parse(*pairs)
    assert caught.value.param == pairs[0][0] and "different values" in str(caught.value)


@pytest.mark.parametrize("name", ["since", "until"])
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("2024-05-28t10:00z", "2024-05-28T10:00Z"),  # RFC 3339's lower case
        ("2024-05-28T10:00Z", "2024-05-28T10:00:00Z"),  # seconds left out
        ("2024-05-28T12:00+02:00", "2024-05-28T10:00:00Z"),  # another offset
        ("2024-05-28T12:00 02:00", "2024-05-28 10:00:00.000"),  # a "+" sent unencoded; a space for the T; no fraction
        ("2024-05-28T10:00:00.50Z", "2024-05-28T10:00:00.5Z"),
    ],
)
def test_a_date_bound_spelled_two_ways_for_one_moment_is_read_once(name, first, second):
    # Each was a 400 "'since' was given 2 different values; give it once" (a QA pass), as page=2&page=02 is not.
    assert getattr(parse((name, first), (name, second)), name) == getattr(parse((name, second)), name)


@pytest.mark.parametrize("name", ["since", "until"])
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("2024-05-28T10:00Z", "2024-05-28T10:00:01Z"),
        ("2024-05-28T10:00:00.5Z", "2024-05-28T10:00:00.6Z"),  # one echo, but not the same moment
        ("2024-05-28", "2024-05-28T00:00Z"),  # a day is not its midnight (as until, its whole day)
        ("2024-05-28", "20240529"),  # (one that cannot be read is named as such)
    ],
)
def test_a_date_bound_given_two_moments_is_still_refused(name, first, second):
    error = rejected((name, first), (name, second))
    assert error.param == name and "2 different values" in error.message


@pytest.mark.parametrize("until", ["2024-02-07", "20240207", " 20240207 "])
def test_a_date_only_until_in_any_accepted_form_takes_in_its_whole_day(until):
    # "until=20240207" (ISO 8601's basic form) was its midnight: a 400 "'until' (2024-02-07) is before
    # 'since' (2024-02-07T07:13:00Z)" where "until=2024-02-07" was answered (a QA pass).
    params = parse(("since", "2024-02-07T07:13:00Z"), ("until", until))
    assert params.until == "2024-02-07"
    assert params.date_range == parse(("since", "2024-02-07T07:13:00Z"), ("until", "2024-02-07")).date_range
    the_day_before = until.replace("07", "06")
    assert rejected(("since", "2024-02-07T07:13:00Z"), ("until", the_day_before)).param == "until"


@pytest.mark.parametrize("name", ["topic", "entity"])
def test_a_list_of_short_values_with_commas_is_not_refused_for_its_length(name):
    # "topic=data-centers-power,chips-accelerators,distributed-training,funding" was a 400 "each 'topic'
    # value may be at most 64 characters", while each given alone was answered (a QA pass).
    listed = "data-centers-power,chips-accelerators,distributed-training,funding"
    assert getattr(parse((name, listed)), name) == (listed,)  # read as its values by the snapshot
    longest = " , ".join(["x" * MAX_FILTER_CHARS] * MAX_FILTER_VALUES)
    assert len(longest) == MAX_FILTER_LIST_CHARS and getattr(parse((name, longest)), name) == (longest,)
    # Each value of the list is held to the limit of one, and the whole to that of the longest list.
    assert rejected((name, "short," + "x" * (MAX_FILTER_CHARS + 1))).param == name
    assert rejected((name, longest + "x")).param == name
    assert rejected((name, ",".join(["x"] * (MAX_FILTER_LIST_CHARS // 2 + 2)))).param == name


@pytest.mark.parametrize(("name", "good", "bad"), [("page", "2", "+2"), ("per_page", "20", "2O"), ("sort", "newest", "oldest"),
                                                   ("explain", "1", "maybe"), ("since", "2024-02-01", "2024-02-30"),
                                                   ("until", "2024-02-01", "01/02/2024")])
@pytest.mark.parametrize("bad_first", [False, True])
def test_a_parameter_repeated_with_a_value_that_cannot_be_read_names_that_value(name, good, bad, bad_first):
    # "page=2&page=%2B2" said "'page' was given 2 different values", as if '+2' were a page number (a QA pass).
    error = rejected(*([(name, bad), (name, good)] if bad_first else [(name, good), (name, bad)]))
    assert error.param == name and f"'{bad}' cannot be read" in error.message and "different values" not in error.message


def test_a_list_with_commas_names_no_more_values_than_a_filter_takes():
    # Eleven organisations listed with commas were answered (0 results) where eleven given apart are a
    # 400 (a regression pass).
    from werkzeug.datastructures import MultiDict

    eleven = ",".join(f"org{i}" for i in range(11))
    for args in (MultiDict([("entity", eleven)]), MultiDict([("entity", "org0,org1"), *[("entity", f"o{i}") for i in range(9)]])):
        with pytest.raises(InvalidParameter) as refused:
            parse_params(args)
        assert refused.value.param == "entity" and "at most 10 values" in refused.value.message
    assert parse_params(MultiDict([("entity", ",".join(f"org{i}" for i in range(10)))])).entity


@pytest.mark.parametrize(("name", "listed", "read"), [("kind", "Event , guide", ("event", "guide")),
                                                      ("month", "2024-05,2024-06", ("2024-05", "2024-06"))])
def test_a_kind_or_a_month_listed_with_commas_is_read_as_its_values_as_a_topic_list_is(name, listed, read):
    # "kind=event,guide" was a 400 "each 'kind' value must be one of: event, guide", "month=2024-05,2024-06"
    # one "must be a month written YYYY-MM", where "topic=a,b" was read as a and b (an API pass).
    assert getattr(parse((name, listed)), name) == read == getattr(parse(*[(name, each) for each in read]), name)
    assert getattr(parse((name, listed + ", ,")), name) == read  # a blank one dropped, as a blank value is
    one = read[0]
    # The limits of values given apart: ten at most, listed or repeated, each still read and checked.
    assert len(getattr(parse((name, ",".join([one] * MAX_FILTER_VALUES))), name)) == 1
    too_many = rejected((name, ",".join([one] * (MAX_FILTER_VALUES + 1))))
    assert too_many.param == name and f"at most {MAX_FILTER_VALUES} values" in too_many.message
    assert rejected((name, one + ",nothing")).param == name
    assert rejected((name, one + "," + "x" * (MAX_FILTER_CHARS + 1))).param == name
    assert rejected((name, one + ",\x00")).param == name
