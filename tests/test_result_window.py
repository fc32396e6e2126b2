"""More results than a search serves (the first MAX_RESULT_WINDOW): the pages offered, in JSON, on the
page and in the CLI, are the ones the service answers, they reach every result up to the window's
last, and the total still counts everything."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner

from index.build import build
from search.params import MAX_RESULT_WINDOW
from tests.conftest import write_jsonl
from web import create_app
from web.cli import main

DOCS = MAX_RESULT_WINDOW + 234  # one word in every document: more results than the pages can reach


@pytest.fixture(scope="module")
def window_index(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("window")
    docs = [{"id": f"quokka-{n}", "title": f"Quokka sighting number {n}", "summary": "A quokka was seen on the island.",
             "topics": ["wildlife", "rare"] if n % 10 == 0 else ["wildlife"]} for n in range(DOCS)]
    build([write_jsonl(tmp / "quokkas.jsonl", docs)], root=tmp / "index", semantic=False)
    return tmp / "index"


@pytest.fixture(scope="module")
def client(window_index):
    return create_app({"INDEX_DIR": str(window_index), "TESTING": True}).test_client()


@pytest.mark.parametrize("per_page", [10, 3, 7, 48, 50])
def test_a_client_paging_up_to_pages_is_never_refused(client, per_page):
    first = client.get(f"/api/search?q=quokka&per_page={per_page}").get_json()
    assert first["total"] == DOCS  # the full count, as before
    assert first["pages"] == -(-MAX_RESULT_WINDOW // per_page)
    last = client.get(f"/api/search?q=quokka&per_page={per_page}&page={first['pages']}")
    # The last page holds what is left of the window: result 1,000 is reached whatever the page size.
    assert last.status_code == 200 and len(last.get_json()["hits"]) == MAX_RESULT_WINDOW - (first["pages"] - 1) * per_page
    assert last.get_json()["pages"] == first["pages"]
    assert client.get(f"/api/search?q=quokka&per_page={per_page}&page={first['pages'] + 1}").status_code == 400


def test_a_few_results_still_have_all_their_pages(client):
    body = client.get("/api/search?q=quokka&topic=rare&per_page=50").get_json()
    rare = len(range(0, DOCS, 10))  # every tenth sighting is tagged rare
    assert body["total"] == rare and body["pages"] == -(-rare // 50)
    assert "paged through" not in summary(client.get("/?q=quokka&topic=rare&per_page=50").get_data(as_text=True))


def summary(page: str) -> str:
    text = re.search(r'<p class="summary" id="summary"[^>]*>(.*?)</p>', page, re.S).group(1)
    return " ".join(unescape(re.sub(r"<[^>]+>", "", text)).split())


def pager_pages(page: str) -> list[int]:
    pager = page.split('class="pager"', 1)[1].split("</nav>", 1)[0]
    return [int(parse_qs(urlsplit(unescape(href)).query).get("page", ["1"])[0])
            for href in re.findall(r'<a [^>]*href="([^"]*)"', pager)]


def test_the_page_says_only_the_first_results_can_be_paged_through(client):
    page = client.get("/?q=quokka").get_data(as_text=True)
    said = summary(page)
    assert said.startswith(f"{DOCS:,} results for quokka in ")
    assert said.endswith(f"· page 1 of 100 · only the first 1,000 of {DOCS:,} results can be paged through")


@pytest.mark.parametrize("url", ["/?q=quokka", "/?q=quokka&page=98", "/?q=quokka&page=100", "/?q=quokka&per_page=7&page=140"])
def test_no_pager_link_leads_past_the_last_page_that_answers(client, url):
    page = client.get(url).get_data(as_text=True)
    linked = pager_pages(page)
    assert linked and (max(linked) - 1) * (7 if "per_page=7" in url else 10) < MAX_RESULT_WINDOW
    for href in re.findall(r'<a [^>]*href="(/\?[^"]*page=[^"]*)"', page):
        assert client.get(unescape(href)).status_code == 200, href


def test_the_last_page_that_answers_says_why_the_pages_stop(client):
    last = client.get("/?q=quokka&page=100").get_data(as_text=True)
    assert 'rel="next"' not in last
    note = re.search(r'<p class="note window-end">(.*?)</p>', last, re.S)
    assert note and f"only the first 1,000 of {DOCS:,} results can be paged through" in note.group(1)
    assert "window-end" not in client.get("/?q=quokka&page=99").get_data(as_text=True)


def test_a_page_past_the_window_marks_no_page_current_and_leads_back_to_the_last(client):
    page = client.get("/?q=quokka&page=101").get_data(as_text=True)
    pager = page.split('class="pager"', 1)[1].split("</nav>", 1)[0]
    assert 'aria-current="page"' not in pager and 'rel="next"' not in pager
    previous = re.search(r'<a rel="prev" href="([^"]*)"', pager)
    assert previous and parse_qs(urlsplit(unescape(previous.group(1))).query)["page"] == ["100"]
    # Said once, above the pager, not again under it.
    assert "There is no page 101" in page and "window-end" not in page


def test_the_cli_says_so_too(window_index):
    result = CliRunner().invoke(main, ["search", "quokka", "--index-dir", str(window_index)])
    assert result.exit_code == 0, result.output
    assert f"{DOCS:,} results in " in result.output and "(page 1 of 100)" in result.output
    assert f"Only the first 1,000 of {DOCS:,} results can be paged through (--page 100 is the last)" in result.output
