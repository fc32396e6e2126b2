"""Cut tests/data/debian-dated.jsonl from the Debian corpus and give its packages dates.

Run once from the repository root (``python -m bench.make_debian_dated``), with the shared corpora
beside the clone as for the benchmarks; the tests read only the committed output.  Every 200th package is kept.  Dates are spread over 2024-01 to 2025-06 in a
fixed pattern, in the forms a corpus writes them: most as dates, every fourth as a UTC date-time,
every tenth with an offset; every ninth package has no date (it is dated by first_seen).
"""

from __future__ import annotations

import gzip
import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO.parent / "shared" / "corpora" / "debian-packages.jsonl.gz"
OUT = REPO / "tests" / "data" / "debian-dated.jsonl"
EVERY = 200
START = date(2024, 1, 1)
SPAN_DAYS = 547  # to 2025-06-30


def published(i: int) -> str | None:
    if i % 9 == 8:
        return None
    day = START + timedelta(days=(i * 37) % SPAN_DAYS)
    if i % 10 == 3:
        return datetime(day.year, day.month, day.day, 18, 45, tzinfo=timezone(timedelta(hours=-5))).isoformat()
    if i % 4 == 1:
        return f"{day.isoformat()}T{(i * 7) % 24:02d}:{(i * 13) % 60:02d}:00Z"
    return day.isoformat()


def main() -> None:
    with gzip.open(SOURCE, "rt", encoding="utf-8") as src, OUT.open("w", encoding="utf-8") as out:
        for i, line in enumerate(line for n, line in enumerate(src) if n % EVERY == 0):
            doc = json.loads(line)
            when = published(i)
            if when is not None:
                doc["published"] = when
            out.write(json.dumps(doc, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
