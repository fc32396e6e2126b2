"""Dates as readers see them: "3 days ago", with the exact date beside it for a <time> element.

The service stores canonical ISO 8601 strings (index/dates.py); this module only words them.  A
date without a time of day is worded in whole days, so a package published "2024-05-01" is never
said to be "7 hours ago".
"""

from __future__ import annotations

import calendar
from datetime import datetime, timezone
from functools import lru_cache

from index.dates import is_date_only, to_datetime

def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def relative(iso: str, now: datetime | None = None) -> str:
    """Return *iso* (a canonical date or UTC date-time) relative to *now*: "3 days ago", "in 2 hours"."""
    now = now or datetime.now(timezone.utc)
    moment = to_datetime(iso)
    seconds = int((now - moment).total_seconds())
    if is_date_only(iso) or abs(seconds) >= 86_400:
        # A day or more away, a date-time is worded in calendar days, as a date is: "2026-12-05T10:00Z"
        # was "1 day ago" beside a "2026-12-05" said "yesterday", "2026-12-08T15:00Z" "in 1 day" beside
        # a "2026-12-08" "in 2 days" (a QA pass).
        days = (now.date() - moment.date()).days
        if days == 0:
            return "today"
        if days in (1, -1):
            return "yesterday" if days == 1 else "tomorrow"
        return _ago(abs(days), days < 0, moment, datetime.combine(now.date(), moment.time(), timezone.utc))
    span = abs(seconds)
    if span < 60:
        return "just now"
    if span < 3600:
        return _said(span // 60, "minute", seconds < 0)
    return _said(span // 3600, "hour", seconds < 0)


def _ago(days: int, future: bool, moment: datetime, now: datetime) -> str:
    """Word a span of *days* whole days (≥ 1) between *moment* and *now* in the largest unit it holds
    whole: months and years by the calendar (a year of 365 days said "12 months ago" of a date 364
    days back, and "4 years ago" of one not yet 4 years back; a QA pass), weeks below a month."""
    months = _whole_months(*((now, moment) if future else (moment, now)))
    if months >= 12:
        return _said(months // 12, "year", future)
    if months:
        return _said(months, "month", future)
    return _said(days // 7, "week", future) if days >= 7 else _said(days, "day", future)


def _whole_months(earlier: datetime, later: datetime) -> int:
    """Return how many whole calendar months *later* is after *earlier* (a month from 31 January is
    the end of February)."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    if months <= 0:
        return 0
    # The day and time *earlier* had, in the month *months* later (its last day when that month is shorter).
    year, month = divmod(earlier.month - 1 + months, 12)
    last = calendar.monthrange(earlier.year + year, month + 1)[1]
    return months - 1 if later < earlier.replace(year=earlier.year + year, month=month + 1, day=min(earlier.day, last)) else months


def _said(amount: int, unit: str, future: bool) -> str:
    text = _count(amount, unit)
    return f"in {text}" if future else f"{text} ago"


@lru_cache(maxsize=4096)  # a result page writes one for each hit's date (4 µs each, strftime's month names)
def exact(iso: str) -> str:
    """Return *iso* written out for people: "1 May 2024", "1 May 2024, 09:30 UTC", or with its
    seconds when it has some ("09:30:05 UTC": two filters a second apart read the same)."""
    moment = to_datetime(iso)
    day = f"{moment.day} {moment:%B} {moment.year:04d}"  # strftime's %Y: "1 January 1" (a QA pass)
    clock = f"{moment:%H:%M:%S}" if moment.second else f"{moment:%H:%M}"
    return day if is_date_only(iso) else f"{day}, {clock} UTC"
