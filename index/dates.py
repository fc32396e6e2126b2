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
_MONTH = re.compile(r"(?!0000)([0-9]{4})-(0[1-9]|1[0-2])")  # the calendar starts in year 1, as since= does


def parse_iso(text: str) -> str:
    """Return *text*, an ISO 8601 date or date-time, in canonical form; raise ValueError if it is not one."""
    value = text.strip().upper()  # RFC 3339 allows "t" and "z" (as since and until read them; a QA pass)
    # fromisoformat also takes a lone year-and-week or a time without a date: insist on a full date.
    if not re.match(r"[0-9]{4}-?[0-9]{2}-?[0-9]{2}(?:$|[T ])", value):
        raise ValueError(f"{text!r} is not an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM:SSZ)")
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
