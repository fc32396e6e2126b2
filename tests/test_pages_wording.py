"""What a visual QA pass found on the pages, as the markup tells it: highlights of a phrase,
the wording of a spelling correction, the facets' "Show all", the topics' separators and the 400 page."""

from __future__ import annotations

import re
from html import unescape

from hypothesis import given, settings
from hypothesis import strategies as st

from index.analysis import TermAnalyzer
from search.highlight import highlight_snippet, highlight_title
from tests.conftest import one_mark_a_word

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines breaks a line


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def marks(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r"<mark>(.*?)</mark>", html, re.S)]


# -- 2. a phrase is one highlight ------------------------------------------------------------------


def test_a_phrase_is_highlighted_as_one_mark_on_the_page_titles_too(client):
    # '"data center" texas' showed "[data] [center]", two boxes with a gap, in snippets and titles
    # ("[Data] [Center] Campuses").
    shown = page(client, "/?q=%22data+center%22+texas")
    hits = shown.split('<ol class="hits"', 1)[1]
    titles = re.findall(r"<h2 dir=\"auto\"><a [^>]*>(.*?)</a></h2>", hits)
    assert any("Data Center" in marks(title) for title in titles), titles
    assert "data center" in {m.lower() for m in marks(hits)}
    assert not re.search(r"</mark>[ \t]*<mark>", shown)


def test_marks_that_only_blanks_part_are_one_and_nothing_else_changes():
    text = "OpenAI and SoftBank Partner for Multi-Gigawatt AI Data Center Campuses in Texas"
    tokens = TermAnalyzer().tokens(text)
    shown = highlight_title(text, {"data", "center", "campus", "texa"}, tokens)
    assert shown == "OpenAI and SoftBank Partner for Multi-Gigawatt AI <mark>Data Center Campuses</mark> in <mark>Texas</mark>"
    # The same words are marked: split at its blanks, the mark is the three marks of before.
    assert one_mark_a_word(shown).count("<mark>") == 4
    # A line break, a comma or a word between two marks keeps them two; a tab or a run of spaces does not.
    text = "Data\ncenter, data  center\tTexas and data"
    shown = highlight_title(text, {"data", "center", "texa"}, TermAnalyzer().tokens(text))
    assert shown == "<mark>Data</mark>\n<mark>center</mark>, <mark>data  center\tTexas</mark> and <mark>data</mark>"
    # In a snippet's passages as in a title.
    text = "Filler words go on and on here. " * 12 + "A new data center in Texas opens. " + "More filler words follow. " * 12
    snippet = highlight_snippet(text, {"data", "center", "texa"}, TermAnalyzer().tokens(text))
    assert "<mark>data center</mark> in <mark>Texas</mark>" in snippet


_WORDS = ["data", "center", "Texas", "<b>", "&", "GPU", "and", "x", "北京", "Trainium2"]
_BLANKS = [" ", "  ", "\t", "\u3000", "\u00a0", "\n", " \u2028", ", ", "-", ""]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(_BLANKS), st.sampled_from(_WORDS)), min_size=1, max_size=30),
       st.sets(st.sampled_from(["data", "center", "texa", "gpu", "and", "北京", "trainium"]), max_size=4))
def test_a_title_marks_its_matched_words_and_the_blanks_of_one_line_between_them(pieces, terms):
    # Exactly: the characters of every matched token, and those of a run of blanks (no line break)
    # between two of them; each mark is as long as it can be, so none ends where another starts.
    text = "".join(sep + word for sep, word in pieces).strip()
    tokens = TermAnalyzer().tokens(text)
    shown = highlight_title(text, terms, tokens)
    marked, at, inside = set(), 0, False
    for piece in re.split(r"(</?mark>)", shown):
        if piece in ("<mark>", "</mark>"):
            inside = piece == "<mark>"
            continue
        plain = unescape(piece)
        if inside:
            marked.update(range(at, at + len(plain)))
        at += len(plain)
    assert at == len(text)  # the text whole, escaped, with nothing but marks added
    spans = sorted((start, end) for term, _, start, end in tokens if term in terms)
    expected = {i for start, end in spans for i in range(start, end)}
    for (_, end), (start, _) in zip(spans, spans[1:]):
        if start > end and text[end:start].isspace() and not any(c in LINE_BREAKS for c in text[end:start]):
            expected.update(range(end, start))
    assert marked == expected, shown
    assert not re.search(rf"</mark>[^\S{LINE_BREAKS}]*<mark>", shown)


# -- 3. a correction's wording ----------------------------------------------------------------------


def summary(html: str) -> str:
    found = re.search(r'<p class="summary"[^>]*>(.*?)</p>', html, re.S)
    assert found
    text = found[1].replace("<q>", "“").replace("</q>", "”")  # as a browser shows a <q>
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", text))).strip()


def correction(html: str) -> list[str]:
    return [re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", p))).strip()
            for p in re.findall(r'<p class="did-you-mean">(.*?)</p>', html, re.S)]


def test_a_corrected_query_names_what_was_searched_and_shows_its_results(client):
    # "15 results for “stargte”" and "Including results for stargate.", though every result is one for
    # "stargate" (no page holds "stargte").
    api = client.get("/api/search?q=stargte").get_json()
    shown = page(client, "/?q=stargte")
    assert summary(shown).startswith(f"{api['total']} results for “stargate” in ")
    assert correction(shown) == ["Showing results for stargate. Search instead for stargte."]
    assert '<p class="did-you-mean">Showing results for <a dir="auto" href="/?q=stargate"><mark>stargate</mark></a>.' in shown
    assert "Including results for" not in shown
    # The box keeps what was typed; the summary names the correction of the words corrected alone.
    assert 'value="stargte"' in shown
    shown = page(client, "/?q=oracel+stargate")
    assert "results for “oracle stargate”" in summary(shown)
    assert correction(shown) == ["Showing results for oracle stargate. Search instead for oracel stargate."]
    # The JSON API is as it was: the query as typed, the correction beside it.
    assert api["query"] == "stargte" and api["suggestion"] == {"text": "stargate", "html": "<mark>stargate</mark>"}


def test_an_offered_correction_still_asks_and_the_summary_names_the_words_typed(client):
    # Offered, not searched: the results are for the words typed, and "Did you mean" asks.
    shown = page(client, "/?q=stargate+not+michigan")
    assert summary(shown).split(" in ")[0].endswith("results for “stargate not michigan”")
    assert correction(shown) == ["Did you mean stargate -michigan?"]
    # Nothing found: the summary names the words typed (no correction was searched).
    shown = page(client, "/?q=starget")
    assert summary(shown).startswith("No results for “starget”")


# -- 4. the facets' "Show all" ----------------------------------------------------------------------


def facet(html: str, name: str) -> str:
    return re.split(r'class="facet"|class="facet dates"', html.split(f'id="facet-{name}"', 1)[1], maxsplit=1)[0]


def test_a_facet_hides_no_single_value_and_its_show_all_says_show_fewer_when_open(client):
    # "Show all 6" took a line to show one value more, and said "Show all 6" still once open.
    api = client.get("/api/search?q=stargte").get_json()
    assert len(api["facets"]["topic"]) == 6 and len(api["facets"]["entity"]) > 6
    shown = page(client, "/?q=stargte")
    topics = facet(shown, "topic")
    assert "<details" not in topics and topics.count('type="checkbox"') == 6
    entities = facet(shown, "entity")
    summary = re.search(r"<summary>(.*?)</summary>", entities, re.S)[1]
    count = len(api["facets"]["entity"])
    assert summary == (f'<span class="more-closed">Show all {count}</span><span class="more-open">Show fewer</span>'
                       '<span class="visually-hidden"> organisation values</span>')
    assert entities.split("<details", 1)[0].count('type="checkbox"') == 5


# -- 7. the 400 page's words ------------------------------------------------------------------------


def refused(client, url: str) -> tuple[str, list[tuple[str, str]]]:
    response = client.get(url)
    assert response.status_code == 400, url
    html = response.get_data(as_text=True)
    message = unescape(re.search(r'<p class="error-message">(.*?)</p>', html, re.S)[1])
    return message, [(unescape(href), unescape(text)) for href, text in re.findall(r'<p><a href="([^"]*)">(.*?)</a></p>', html)]


def test_the_400_page_says_what_was_wrong_in_plain_words_and_leads_back(client):
    # "'page' must be a whole number written with the digits 0-9", no full stop, and "Back to your
    # search without page": the API's words, naming a parameter.
    message, links = refused(client, "/?q=stargate&topic=compute-deals&page=abc")
    assert message == "The page number must be a whole number, such as 2."
    assert links == [("/?q=stargate&topic=compute-deals", "Back to your search")]
    # The JSON API's message is as it was.
    error = client.get("/api/search?q=stargate&page=abc").get_json()["error"]
    assert error["message"] == "'page' must be a whole number written with the digits 0-9" and error["param"] == "page"
    # The search words themselves: the way back lists everything with the filters kept.
    message, links = refused(client, "/?q=a%00b&topic=compute-deals")
    assert message == "The search words hold a character that cannot be searched (NUL)."
    assert links == [("/?topic=compute-deals", "List everything with your filters, newest first")]


def test_every_400_page_message_is_a_sentence_without_parameter_names(client):
    urls = {
        "/?q=x&page=0": "The page number must be from 1 to 1,000.",
        "/?q=x&per_page=99": "A page can show from 1 to 50 results.",
        "/?q=x&per_page=x": "The number of results on a page must be a whole number, such as 20.",
        "/?q=x&sort=up": "The order must be one of: relevance, newest, listing.",
        "/?q=x&explain=maybe": "The ranking details are shown with 1 and hidden with 0.",
        "/?q=x&kind=tweet": "A type must be one of: event, guide.",
        "/?q=x&month=2026-13": "A month must be written as its year and month, such as 2024-05.",
        "/?q=x&since=yesterday": "The From date must be a date, such as 2024-05-01, or a date and time, such as 2024-05-01T09:30:00Z.",
        "/?q=x&until=2025-02-29": "The Until date, 2025-02-29, is no day: February 2025 has 28 days.",
        "/?q=x&since=2026-05-01&until=2026-01-01": "The Until date (2026-01-01) is before the From date (2026-05-01).",
        "/?q=x&page=1&page=2": "The address gives the page number more than once, with different values.",
        "/?q=x&topic=" + "t" * 80: "A topic can be at most 64 characters long.",
        "/?q=x&" + "&".join(f"entity=e{i}" for i in range(12)): "At most 10 organisations can be chosen at once.",
        "/?q=" + "+".join(f"{c}x*" for c in "abcdefghijklmnopq"): "A search can hold at most 16 words typed with a *.",
        "/?q=" + "x" * 5000: "A search can be at most 4,096 characters long.",
        "/?q=%FF": "The search words in the address are not text that can be read (not UTF-8): the address may have been cut short.",
        "/?q=x&junk=%FF": "Part of the address, 'junk', is not text that can be read (not UTF-8): the address may have been cut short.",
    }
    for url, said in urls.items():
        message, _ = refused(client, url)
        assert message == said, url
    # A message of no shape known names the parameters as the page does, as a sentence.
    message, _ = refused(client, "/?q=x&until=9999-12-31T23:59:59-01:00")
    assert message == "The Until date (9999-12-31T23:59:59-01:00) is after year 9999 in UTC once its offset is applied."


def test_the_summary_closes_a_quote_left_open_as_the_search_does(client):
    # '"stargate mi' read 'No results for "stargate mi in 123 ms' (a page QA pass: the suggestion
    # offered it so as a reader typed); the search closes the phrase where the query ends.
    assert summary(page(client, '/?q="stargate+michigan')).startswith('2 results for "stargate michigan" in ')
    # A quote with nothing after it is as typed: 'stargate"' read 'stargate""' (the regression pass).
    assert summary(page(client, '/?q=stargate"')).startswith('15 results for stargate" in ')


def test_the_summary_holds_a_minus_to_the_word_it_excludes(client):
    # On a phone the line broke between "-" and "nvdia" (a page QA pass): a word joiner holds them.
    shown = summary(page(client, "/?q=stargate+-nvdia+%E2%80%93britain"))
    assert "stargate -\u2060nvdia –\u2060britain" in shown
    # Copied from the page and searched again, the joiner is dropped: the same search.
    again = client.get("/api/search", query_string={"q": "stargate -\u2060nvdia"}).get_json()
    assert again["query"] == "stargate -nvdia"


def test_an_address_holding_a_control_character_is_said_in_a_reader_s_words(client):
    # /events/a%00b and /guides/a%00b said the API's "The address holds a control character (U+0000,
    # character 2), which no id holds.": a code point and a count where the other messages say what went
    # wrong in plain words.  The character is not shown, nor its code; the JSON keeps the API's message.
    said = "The address holds a control character, which no page's address holds: it may have been mistyped or copied wrongly."
    for url in ("/events/a%00b", "/guides/a%00b", "/events/a%1Bb", "/guides/%7F", "/events/a%C2%85b"):
        message, links = refused(client, url)
        assert message == said, url
        assert links == [("/", "Back to search")]
        html = client.get(url).get_data(as_text=True)
        assert "U+" not in html and not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", html), url
    error = client.get("/api/documents/a%00b").get_json()["error"]
    assert error == {"code": "invalid_parameter", "param": "id",
                     "message": "'id' holds a control character (U+0000, character 2), which no id holds"}
