"""Dates of records: ISO 8601 dates and date-times, read once and written back in one form.

The index owns the date formats: the corpus reads records' dates with them, the schema stores them as
timestamps and months, and the service reads its date parameters with them.  This module imports
nothing of the project, so the corpus can use it without depending on the rest of the index.

A JSONL line's ``published`` is a date (``2024-05-01``) or a date-time (``2024-05-01T09:30:00Z``,
with any offset).  It is kept as given in meaning but written canonically: a date stays a date
(nobody knows its hour, so none is invented), a date-time is written in UTC with a ``Z``.  A
date-time without an offset is taken to be UTC, as the rest of the service's times are.  Sorting and
range filters need one number per document: ``timestamp`` gives seconds since the epoch, a date
counting from its midnight UTC.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone

# A calendar date alone: YYYY-MM-DD or YYYYMMDD (fromisoformat would also take week dates).
_DATE_ONLY = re.compile(r"[0-9]{4}-?[0-9]{2}-?[0-9]{2}")
# What a date is written as, exactly: a record's published and the since and until parameters read the
# one set, and the OpenAPI spec states it (search/params.py).  fromisoformat took more in published
# than since took (a QA pass): an hour-only offset (+02, as PostgreSQL writes it), now read in both;
# an offset with seconds (+00:00:30, no ISO 8601 form: 01:00:00+00:00:30 was 00:59:30Z), a time half
# basic and half extended (T09:3000), a fraction of more than 9 digits, now refused in both.  ISO 8601's
# basic form (20240301, 20240301T093000Z, as iCalendar writes it) and its comma for the decimal point
# (T09:30:00,5) are ISO 8601 and published took them: since and until take them too.  An ISO 8601
# calendar date, real on the calendar (leap days in leap years only), optionally a time (to the hour,
# minute or second, with up to 9 digits of a second's fraction) and an offset (none means UTC); RFC 3339
# allows a lower-case "t" and "z" and a space for the "T", and strftime's %z writes +0200.
_YEAR = "(?:[1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"
_MONTH_DAY = ("(?:(?:0[13578]|1[02]){sep}(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11){sep}(?:0[1-9]|[12][0-9]|30)"
              "|02{sep}(?:0[1-9]|1[0-9]|2[0-8]))")
_LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_OFFSET = "(?:[Zz]|[+-](?:[01][0-9]|2[0-3])(?::?[0-5][0-9])?)"
_HOUR, _SIXTY = "(?:[01][0-9]|2[0-3])", "[0-5][0-9]"


def _written(sep: str) -> str:
    """Return the pattern of a date and optional time, extended (*sep* "-" and ":") or basic (none)."""
    colon = ":" if sep else ""
    day = f"(?:{_YEAR}{sep}{_MONTH_DAY.format(sep=sep)}|{_LEAP_YEAR}{sep}02{sep}29)"
    clock = f"{_HOUR}(?:{colon}{_SIXTY}(?:{colon}{_SIXTY}(?:[.,][0-9]{{1,9}})?)?)?"
    return f"{day}(?:[Tt ]{clock}{_OFFSET}?)?"


DATE_PATTERN = f"^(?:{_written('-')}|{_written('')})$"
_DATE_TIME = re.compile(DATE_PATTERN[1:-1])
_MONTH = re.compile(r"(?!0000)([0-9]{4})-(0[1-9]|1[0-2])")  # the calendar starts in year 1, as since= does


def parse_iso(text: str) -> str:
    """Return *text*, an ISO 8601 date or date-time, in canonical form; raise ValueError if it is not one."""
    value = text.strip().upper()  # RFC 3339 allows "t" and "z" (as since and until read them; a QA pass)
    # fromisoformat also takes a lone year-and-week or a time without a date: insist on a full date.
    if not re.match(r"[0-9]{4}-?[0-9]{2}-?[0-9]{2}(?:$|[T ])", value):
        raise ValueError(f"{text!r} is not an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SSZ)")
    if re.search(r"[+-][0-9]{2}:?[0-9]{2}:[0-9]", value[10:]):
        raise ValueError(f"{text!r} has an offset with seconds, which ISO 8601 does not write: give hours and minutes (+01:00)")
    if not _DATE_TIME.fullmatch(value):
        raise ValueError(f"{text!r} is not a valid ISO 8601 date (2024-05-01, 20240501) or date-time "
                         "(2024-05-01T09:30:00Z, 20240501T093000Z; an offset as Z, +02, +0200 or +02:00)")
    try:
        if _DATE_ONLY.fullmatch(value):
            return date.fromisoformat(value).isoformat()
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{text!r} is not a valid ISO 8601 date or date-time") from None
    try:
        return format_utc(moment)
    except (ValueError, OverflowError):  # an offset that moves year 1 or 9999 off the calendar
        raise ValueError(f"{text!r} is before year 1 or after year 9999 once its offset is applied (UTC)") from None


def format_utc(moment: datetime) -> str:
    """Return *moment* as an ISO 8601 date-time in UTC with a ``Z`` (naive means UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    # isoformat, not strftime: glibc's %Y does not pad years before 1000 to four digits.
    return moment.astimezone(timezone.utc).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def to_datetime(iso: str) -> datetime:
    """Return the aware UTC datetime of a canonical date (its midnight) or date-time."""
    if len(iso) == 10:
        return datetime.combine(date.fromisoformat(iso), datetime.min.time(), timezone.utc)
    moment = datetime.fromisoformat(iso)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def as_date_time(iso: str) -> str:
    """Return a canonical date or date-time as an RFC 3339 date-time (a date at its midnight UTC)."""
    return format_utc(to_datetime(iso))


def timestamp(iso: str) -> int:
    """Return seconds since the epoch of a canonical date (its midnight UTC) or date-time."""
    return int(to_datetime(iso).timestamp())


def is_date_only(iso: str) -> bool:
    """Return whether *iso* is a calendar date without a time of day."""
    return len(iso) == 10


def month_of(iso: str) -> str:
    """Return the ``YYYY-MM`` month of a canonical date or date-time (in UTC)."""
    moment = to_datetime(iso)
    return f"{moment.year:04d}-{moment.month:02d}"


def is_month(text: str) -> bool:
    """Return whether *text* is a month written ``YYYY-MM``."""
    return _MONTH.fullmatch(text) is not None


def month_label(month: str) -> str:
    """Return ``2024-05`` as ``May 2024`` (anything else as it is)."""
    if not is_month(month):
        return month
    # Not strftime's %Y, which wrote "January 1" for 0001-01, read as a day of the month (a QA pass).
    return f"{date(int(month[:4]), int(month[5:]), 1):%B} {month[:4]}"


def now_utc() -> str:
    """Return the current time as a canonical UTC date-time."""
    return format_utc(datetime.now(timezone.utc))
