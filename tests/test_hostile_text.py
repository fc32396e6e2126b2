"""Hostile corpus text: what a line of a JSONL file can hold that costs the loader more than reading it."""

from __future__ import annotations

import pytest

from corpus.jsonl import load_jsonl
from corpus.sanitize import _plain, plain_text
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
