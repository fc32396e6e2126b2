"""The JSONL loader: the large Debian corpus, and bad lines reported by number."""

from __future__ import annotations

import gzip

import pytest

from corpus.errors import CorpusError
from corpus.jsonl import load_jsonl
from corpus.records import Event, GuideSection
from tests.conftest import DEBIAN, DEBIAN_SAMPLE_SIZE, write_jsonl


def test_debian_corpus_loads_gzipped():
    records = list(load_jsonl(DEBIAN))
    assert len(records) == DEBIAN_SAMPLE_SIZE and len({r.id for r in records}) == DEBIAN_SAMPLE_SIZE
    first = records[0]
    assert first.id == "deb-0ad" and first.topic == "games" and first.title.startswith("Real-time strategy")


def test_optional_fields_and_kinds(tmp_path):
    path = write_jsonl(
        tmp_path / "docs.jsonl",
        [
            {"id": "a", "title": "T", "summary": "S", "topics": ["x", "y"], "entities": ["OpenAI"],
             "url": "https://example.org/a", "published": "2026-01-01"},
            {"id": "b", "title": "Heading", "summary": "Para one\nPara two", "topics": ["x"], "kind": "guide"},
        ],
    )
    a, b = load_jsonl(path)
    assert isinstance(a, Event) and a.topics == ("x", "y") and a.entities == ("OpenAI",)
    assert a.url == "https://example.org/a" and a.published == "2026-01-01" and a.position == 1
    assert isinstance(b, GuideSection) and b.blocks == ("Para one", "Para two") and b.topic == "x"


def test_gzip_is_accepted(tmp_path):
    path = tmp_path / "docs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write('{"id": "a", "title": "T", "summary": "S", "topics": ["x"]}\n')
    assert [r.id for r in load_jsonl(path)] == ["a"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "invalid JSON"),
        ('["a list"]', "expected a JSON object"),
        ('{"title": "T", "summary": "S", "topics": ["x"]}', "'id' must be a non-empty string"),
        ('{"id": "a", "title": "", "summary": "S", "topics": ["x"]}', "'title' must be a non-empty string"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": []}', "'topics' must name at least one topic"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": "x"}', "'topics' must be a list"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "kind": "tweet"}', "'kind' must be"),
        ('{"id": "a", "title": "T", "summary": 3, "topics": ["x"]}', "'summary' must be a string"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "last Tuesday"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "2024-02-30"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "01/05/2024"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "2024-W01-1"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "2024-05-01T25:00"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": 20240501}', "'published' must be a string"),
    ],
)
def test_bad_line_stops_the_load_with_its_number(tmp_path, line, message):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": "ok", "title": "T", "summary": "S", "topics": ["x"]}\n\n' + line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 3
    assert message in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("2024-05-01", "2024-05-01"),
        ("20240501", "2024-05-01"),
        (" 2024-05-01 ", "2024-05-01"),
        ("2024-05-01T09:30:00Z", "2024-05-01T09:30:00Z"),
        ("2024-05-01T09:30", "2024-05-01T09:30:00Z"),
        ("2024-05-01T23:30:00-02:00", "2024-05-02T01:30:00Z"),
        ("2024-05-01T09:30:00.250+00:00", "2024-05-01T09:30:00Z"),
    ],
)
def test_published_dates_are_read_as_iso_8601(tmp_path, given, stored):
    path = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": given}])
    (record,) = load_jsonl(path)
    assert record.published == stored
