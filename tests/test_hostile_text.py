"""Hostile corpus text: what a line of a JSONL file can hold that costs the loader more than reading it."""

from __future__ import annotations

import re

import pytest
from whoosh.searching import Searcher

from corpus import sanitize
from corpus.jsonl import load_jsonl
from corpus.sanitize import PIECE, _plain, plain_text
from index.build import build
from search.service import SearchService
from tests.conftest import write_jsonl


@pytest.mark.parametrize(
    ("reference", "read_as"),
    [
        ("&#" + "9" * 5_000 + ";", "\ufffd"),  # past U+10FFFF, as html.unescape reads any such number
        ("&#" + "0" * 5_000 + "65;", "A"),  # leading zeros are no part of its value
        ("&#000000128512;", "\U0001f600"),
        ("&#" + "1" * 5_000, "&#" + "1" * 5_000),  # without its ";" it is no reference: text, kept as written
    ],
)
def test_a_character_reference_of_thousands_of_digits_is_read_as_html_reads_it(tmp_path, reference, read_as):
    # It stopped the whole load with a traceback (int() refuses more than 4,300 digits), naming no line.
    doc = {"id": "r", "title": f"ref {reference[:900]}", "summary": f"ref {reference} end", "topics": ["t"]}
    (record,) = load_jsonl(write_jsonl(tmp_path / "r.jsonl", [doc]))
    assert record.body == f"ref {read_as} end" and record.title == plain_text(f"ref {reference[:900]}")
    assert plain_text(reference) == _plain(reference)


HOSTILE_TEXTS = [  # (what a title or summary holds, what is stored)
    ("<x" * 100_000, "<x" * 100_000),  # html5lib appended each "<" and "x" to all the text before: 1 MB, 80 s
    ("<b>" + "&amp;" * 40_000 + "</b>", "&" * 40_000),  # the same, inside an element
    ("<b " + " ".join(f"a{i}=1" for i in range(15_000)) + ">bold</b>", "bold"),  # each name compared with all before: 5 s
    ("<p>" + "<a href='x'>link</a> &amp; " * 10_000, "link & " * 10_000),
    ("&#" + "1" * 100_000 + ";", "\ufffd"),  # bleach read each digit off the front of a list of the rest: 0.9 s
    ("<table><svg>" + "&lt;" * 40_000, "<" * 40_000),  # bleach's parser sees no element: any tag is as good
    ("<b x'y=1 <i>" + "&amp;" * 40_000 + "</b>", "&" * 40_000),  # a quote and a "<" in attribute names
    ("text <b title=\"" + "&amp;" * 40_000, "text "),  # a value to the end: html5lib reads it all as the value
    ("<b " + " ".join(f"a{i}=1" for i in range(15_000)), "<b " + " ".join(f"a{i}=1" for i in range(15_000))),  # bleach: text
    ("<b " + "&" * 100_000, "<b " + "&" * 100_000),  # one name to the end, each "&" added to it on its own
    ("<b a=" + "&amp;" * 40_000, "<b a=" + "&" * 40_000),  # one value to the end, unquoted
]


@pytest.mark.parametrize(("hostile", "stored"), HOSTILE_TEXTS,
                         ids=["tag-starts", "in-an-element", "attributes", "links", "digits", "table", "quoted", "unended", "unended-attributes", "unended-name",
                              "unended-value"])
def test_hostile_text_reaches_bleach_in_pieces_of_bounded_length(monkeypatch, hostile, stored):
    # Loading such a line took minutes; the work is bounded, not timed: bleach (html5lib) reads no more
    # than a piece of some PIECE characters at a time, tags without their attributes, references short.
    read: list[str] = []
    clean, match_entity = sanitize.clean, sanitize.match_entity
    monkeypatch.setattr(sanitize, "clean", lambda markup: read.append(markup) or clean(markup))
    monkeypatch.setattr(sanitize, "match_entity", lambda text: read.append(text[:40]) or match_entity(text))
    assert plain_text(hostile) == stored
    assert max(map(len, read), default=0) <= 2 * PIECE
    assert not any(re.match("&#[xX]?[0-9a-fA-F]{9}", text) for text in read)


def _distinct_words(count: int) -> list[str]:
    """*count* distinct words of letters only, none an English word the corpus holds (``qzaaaa``, ``qzaaab`` …)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["qz" + "".join(letters[i // 26**k % 26] for k in (3, 2, 1, 0)) for i in range(count)]


def test_more_like_this_weighs_the_words_of_a_long_text_s_opening_only(tmp_path, monkeypatch):
    # Without vectors, a summary of 133,000 distinct words had each of them looked up to weigh it: its
    # page (/events/<id>, which shows the related events) took 8 s.  The work is counted, not timed.
    monkeypatch.setenv("TOPICHUB_SEMANTIC", "0")
    filler = " ".join(_distinct_words(70_000))  # about 500,000 characters
    docs = [{"id": "long", "title": "Lattice cooling notes", "summary": "Cryogenic lattice cooling. " * 50 + filler, "topics": ["t"]},
            {"id": "near", "title": "Cryogenic lattice", "summary": "Cooling a lattice cryogenically.", "topics": ["t"]},
            {"id": "far", "title": "Grid power", "summary": "The grid carries power to the campus.", "topics": ["t"]}]
    build([write_jsonl(tmp_path / "d.jsonl", docs)], root=tmp_path / "ix")
    weighed: list[str] = []
    key_terms = Searcher.key_terms_from_text
    monkeypatch.setattr(Searcher, "key_terms_from_text", lambda self, field, text, **kw: weighed.append(text) or key_terms(self, field, text, **kw))
    service = SearchService(tmp_path / "ix")
    assert [doc["id"] for doc in service.more_like_this("long")] == ["near"]
    assert len(weighed) == 1 and len(weighed[0]) < len(filler) / 4 and weighed[0].startswith("Lattice cooling notes Cryogenic")
    assert weighed[0].split()[-1] in filler.split()  # cut between words
    weighed.clear()
    service.more_like_this("near")
    assert weighed == ["Cryogenic lattice Cooling a lattice cryogenically."]  # a text of usual length is weighed whole
