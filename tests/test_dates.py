"""Dates: ISO 8601 read into one canonical form, and worded for readers ("3 days ago")."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from werkzeug.datastructures import MultiDict

from corpus.errors import CorpusError
from corpus.jsonl import load_jsonl
from index.dates import as_date_time, month_label, month_of, parse_iso, timestamp
from search.params import InvalidParameter, parse_params
from web.dates import exact, relative

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", ["yesterday", "2024", "2024-05", "2024-W18", "2024-13-01", "2024-02-30",
                                  "12:00", "2024-05-01T", "05/01/2024", ""])
def test_what_is_not_an_iso_date_is_refused(text):
    with pytest.raises(ValueError, match="ISO 8601|valid"):
        parse_iso(text)


# The one set a record's published and the since and until parameters read (index/dates.py DATE_PATTERN).
READ = [
    ("20240301", "2024-03-01"),  # ISO 8601's basic form, which published always took
    ("20240301T093000Z", "2024-03-01T09:30:00Z"),  # as iCalendar writes it
    ("20240301T0930+0130", "2024-03-01T08:00:00Z"),
    ("2024-06-01T01:00:00+02", "2024-05-31T23:00:00Z"),  # an offset of hours alone, as PostgreSQL writes it
    ("2024-06-01T01", "2024-06-01T01:00:00Z"),  # a time to the hour
    ("2024-06-01T01:00:00,5Z", "2024-06-01T01:00:00Z"),  # ISO 8601's decimal comma
]
REFUSED = ["2024-06-01T01:00:00+00:00:30", "2024-06-01T01:00:00-0100:30",  # an offset with seconds
           "2024-03-01T093000", "20240301T09:30",  # half basic, half extended
           "2024-03-01T09:30:00.1234567890Z"]  # more than 9 digits of a second


@pytest.mark.parametrize(("text", "read"), READ)
def test_a_record_and_a_date_bound_read_one_set_of_forms(text, read):
    # published took 20240301, +02, T01 and a comma that since and until refused (a QA pass).
    assert parse_iso(text) == read
    assert parse_params(MultiDict({"until": text})).until == read


@pytest.mark.parametrize("text", REFUSED)
def test_a_form_outside_the_set_is_refused_by_a_record_and_a_date_bound(text):
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_iso(text)
    with pytest.raises(InvalidParameter):
        parse_params(MultiDict({"since": text}))


def test_a_records_offset_with_seconds_is_refused_at_its_file_and_line(tmp_path):
    # fromisoformat read 2024-06-01T01:00:00+00:00:30, no ISO 8601 form, as 00:59:30Z (a QA pass).
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "2024-06-01T01:00:00+00:00:30"}\n',
                    encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 1 and str(path) in str(info.value) and "offset with seconds" in str(info.value)


def test_a_date_counts_from_its_midnight_utc_and_a_date_time_is_exact():
    assert timestamp("1970-01-02") == 86_400
    assert timestamp(parse_iso("1970-01-01T01:00:00+01:00")) == 0
    assert as_date_time("2024-05-01") == "2024-05-01T00:00:00Z"
    assert month_of("2024-05-31T23:30:00Z") == "2024-05" and month_label("2024-05") == "May 2024"


def test_a_date_time_may_be_written_in_lower_case_as_rfc_3339_allows():
    # since=…t12:00:00z was read, a record's "published" of the same was refused (a QA pass).
    assert parse_iso("2024-05-15t12:00:00z") == parse_iso("2024-05-15T12:00:00Z") == "2024-05-15T12:00:00Z"
    assert parse_iso("2024-05-15t14:00:00+02:00") == "2024-05-15T12:00:00Z"


def test_years_before_1000_keep_four_digits():
    assert parse_iso("0800-02-29T00:55-23:09") == "0800-03-01T00:04:00Z"
    assert month_of("0800-03-01T00:04:00Z") == "0800-03"


@pytest.mark.parametrize(
    ("iso", "said"),
    [
        ("2026-12-01T11:59:30Z", "just now"),
        ("2026-12-01T11:15:00Z", "45 minutes ago"),
        ("2026-12-01T09:00:00Z", "3 hours ago"),
        ("2026-11-28T12:00:00Z", "3 days ago"),
        ("2026-12-01", "today"),
        ("2026-11-30", "yesterday"),
        ("2026-11-28", "3 days ago"),
        ("2026-11-17", "2 weeks ago"),
        ("2026-09-01", "3 months ago"),
        ("2024-05-01", "2 years ago"),
        ("2026-12-04", "in 3 days"),
        ("2026-12-01T14:00:00Z", "in 2 hours"),
        # Months and years by the calendar: 364 days back was "12 months ago", and a date not yet
        # 4 (or 2,026) years back was said to be (365-day years; a QA pass).
        ("2025-12-02", "11 months ago"),
        ("2025-12-01", "1 year ago"),
        ("2022-12-02", "3 years ago"),
        ("0001-01-01", "2025 years ago"),
        ("2026-11-02", "4 weeks ago"),
        ("2026-11-01", "1 month ago"),
        ("2026-09-30T12:30:00Z", "2 months ago"),
        ("2027-12-01", "in 1 year"),
        ("2027-11-30T12:00:00Z", "in 11 months"),
        # A day or more away, a date-time in calendar days, as a date: "1 day ago" stood beside a date of
        # the same day said "yesterday", "in 1 day" beside one "in 2 days" (a QA pass).
        ("2026-11-30T10:00:00Z", "yesterday"),
        ("2026-12-03T11:00:00Z", "in 2 days"),
        ("2026-11-29T23:00:00Z", "2 days ago"),
        ("2026-11-30T13:00:00Z", "23 hours ago"),
    ],
)
def test_relative_wording(iso, said):
    assert relative(iso, NOW) == said


def test_a_date_is_never_given_a_time_of_day():
    assert exact("2024-05-01") == "1 May 2024"
    assert exact("2024-05-01T09:30:00Z") == "1 May 2024, 09:30 UTC"
    assert exact("2024-05-01T09:30:05Z") == "1 May 2024, 09:30:05 UTC"  # a second apart: not the same words


def test_a_year_before_1000_is_written_with_four_digits():
    # strftime's %Y wrote "1 January 1" and the month facet "January 1", read as a day (a QA pass).
    assert exact("0001-01-01") == "1 January 0001"
    assert exact("0999-06-01T10:00:00Z") == "1 June 0999, 10:00 UTC"
    assert month_label("0001-01") == "January 0001" and month_label("2024-05") == "May 2024"
