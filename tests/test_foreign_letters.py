"""Letters readers of other languages type for the ones a text writes (a QA pass of non-English corpora).

Russian "е" for "ё", Arabic a bare alef for one with a hamza, Western digits for Arabic-Indic ones, and a
part of a katakana compound: each found nothing by its words, only by meaning if at all.
"""

from __future__ import annotations

import pytest

from index.build import build
from tests.conftest import write_jsonl
from web import create_app

DOCS = [
    {"id": "yolki", "title": "Ёлки и зима", "summary": "Новогодние ёлки в Москве.", "topics": ["ru"]},
    {"id": "abu-dhabi", "title": "مركز بيانات في أبوظبي", "summary": "افتتاح مركز جديد في أبوظبي للذكاء الاصطناعي.", "topics": ["ar"]},
    {"id": "year", "title": "تقرير عام ٢٠١٧", "summary": "نمو الطاقة في عام ٢٠١٧.", "topics": ["ar"]},
    {"id": "city", "title": "مدينة المستقبل", "summary": "مشروع مدينة ذكية.", "topics": ["ar"]},
    {"id": "dc", "title": "KDDIがAIデータセンターを開設", "summary": "大阪に新しいデータセンター。", "topics": ["ja"]},
    {"id": "other", "title": "Quokka census", "summary": "Counting quokkas on Rottnest Island.", "topics": ["en"]},
]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("foreign")
    build([write_jsonl(root / "docs.jsonl", DOCS)], root=root / "index")
    return create_app({"INDEX_DIR": str(root / "index"), "TESTING": True}).test_client()


@pytest.mark.parametrize(("typed", "found"), [
    ("елки", "yolki"), ("Ёлки", "yolki"),          # as typed without the dots, and as written
    ("ابوظبي", "abu-dhabi"), ("أبوظبي", "abu-dhabi"),  # a bare alef, and the hamza
    ("2017", "year"), ("٢٠١٧", "year"),              # Western digits, and Arabic-Indic
    ("مدينه", "city"),                                # heh typed for teh marbuta
    ("センター", "dc"), ("データ", "dc"), ("データセンター", "dc"),  # a part of a katakana compound, and the whole
])
def test_a_word_typed_as_readers_type_it_is_found_by_its_words(client, typed, found):
    body = client.get("/api/search", query_string={"q": typed}).get_json()
    assert body["hits"] and body["hits"][0]["id"] == found, body["hits"]
    assert body["hits"][0]["matched_by"] == "words" and body["match"] == "all"
    assert "<mark>" in body["hits"][0]["title_html"] + body["hits"][0]["snippet_html"]


def test_a_katakana_word_is_not_found_inside_another_katakana_word_it_is_not_part_of(client):
    # Characters as words make a query's run the phrase of its characters: "ター" is in "センター", but
    # "ターセン" is nowhere.
    assert client.get("/api/search", query_string={"q": "ターセン"}).get_json()["match"] != "all"
