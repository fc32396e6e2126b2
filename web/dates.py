"""Dates as readers see them: "3 days ago", with the exact date beside it for a <time> element.

The service stores canonical ISO 8601 strings (index/dates.py); this module only words them.  A
date without a time of day is worded in whole days, so a package published "2024-05-01" is never
said to be "7 hours ago".
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache

from index.dates import is_date_only, to_datetime

_UNITS = ((365, "year"), (30, "month"), (7, "week"))


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def relative(iso: str, now: datetime | None = None) -> str:
    """Return *iso* (a canonical date or UTC date-time) relative to *now*: "3 days ago", "in 2 hours"."""
    now = now or datetime.now(timezone.utc)
    moment = to_datetime(iso)
    if is_date_only(iso):
        days = (now.date() - moment.date()).days
        if days == 0:
            return "today"
        if days in (1, -1):
            return "yesterday" if days == 1 else "tomorrow"
        return _ago(abs(days), days < 0, "day")
    seconds = int((now - moment).total_seconds())
    span = abs(seconds)
    if span < 60:
        return "just now"
    if span < 3600:
        return _ago(span // 60, seconds < 0, "minute", plain=True)
    if span < 86_400:
        return _ago(span // 3600, seconds < 0, "hour", plain=True)
    return _ago(span // 86_400, seconds < 0, "day")


def _ago(amount: int, future: bool, unit: str, plain: bool = False) -> str:
    if not plain:
        for size, name in _UNITS:
            if amount >= size:
                amount, unit = amount // size, name
                break
    text = _count(amount, unit)
    return f"in {text}" if future else f"{text} ago"


@lru_cache(maxsize=4096)  # a result page writes one for each hit's date (4 µs each, strftime's month names)
def exact(iso: str) -> str:
    """Return *iso* written out for people: "1 May 2024", "1 May 2024, 09:30 UTC", or with its
    seconds when it has some ("09:30:05 UTC": two filters a second apart read the same)."""
    moment = to_datetime(iso)
    day = f"{moment.day} {moment:%B %Y}"
    clock = f"{moment:%H:%M:%S}" if moment.second else f"{moment:%H:%M}"
    return day if is_date_only(iso) else f"{day}, {clock} UTC"
