"""Loaders for the hub's plain-text dumps: a topic page and a topic guide.

A topic page is: the topic's name; a meta line ``slug·N events·last Xh ago`` run straight into the
one-line description; four headers (``Related entities``, ``Related topics (N)``, ``Guides (N)``,
``Recent events (N)``); then each event as a title line followed by a summary line, most recent
first.  A guide is a run of section headings (short lines with no final punctuation), each followed
by paragraphs; bullet lines start with ``- ``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from pathlib import Path

from corpus.errors import CorpusError
from corpus.jsonl import not_utf8
from corpus.records import Event, GuideSection, Topic, normal_text, slugify, unique_anchors, unique_ids
from corpus.sanitize import plain_text

log = logging.getLogger(__name__)

_META = re.compile(
    r"^(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)·(?P<count>[\d,]+) events?·last \d+\s*[a-z]+ ago(?P<desc>.*)$"
)
_HEADERS = (
    re.compile(r"^Related entities$"),
    re.compile(r"^Related topics \(\d+\)$"),
    re.compile(r"^Guides \(\d+\)$"),
    re.compile(r"^Recent events \((?P<n>\d+)\)$"),
)
_HEADING_MAX = 80


def event_line(position: int) -> int:
    """Return the line of a topic page that holds the title of its *position*-th event (1: line 7)."""
    return len(_HEADERS) + 1 + 2 * position


def _lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CorpusError(path, line, not_utf8(raw, exc, True, "of the file")) from exc
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as read_text's universal newlines read them
    # Line by line, so that errors still name the line of the file.  A line ends at "\n" only (reading
    # the text turned "\r\n" and "\r" into "\n"), as in a JSONL file: str.splitlines also ends one at
    # a form feed, U+2028, NEL and the other Unicode breaks, which made a section of a guide's words
    # after a form feed in a paragraph, and named lines in errors that the file does not have.  Inside
    # a line they are what plain_text makes of them, as in a JSONL summary (a form feed a space).
    return [plain_text(line) for line in text.split("\n")]


def load_topic_page(path: str | Path) -> tuple[Topic, list[Event]]:
    """Return the topic and its events, in listing order, from a topic page dump."""
    path = Path(path)
    lines = _lines(path)
    if not lines or not lines[0].strip():
        raise CorpusError(path, 1, "missing topic name on the first line")
    name = lines[0].strip()
    meta = _META.match(lines[1].strip()) if len(lines) > 1 else None
    if meta is None:
        raise CorpusError(path, 2, "expected the meta line 'slug·N events·last Xh ago' followed by the description")
    description = meta["desc"].strip()
    if not description:
        raise CorpusError(path, 2, "the topic has no description after the meta line")
    topic = Topic(
        slug=meta["slug"],
        name=name,
        description=description,
        event_count=int(meta["count"].replace(",", "")),
    )
    declared = 0
    for offset, header in enumerate(_HEADERS):
        lineno = 3 + offset
        found = header.match(lines[lineno - 1].strip()) if len(lines) >= lineno else None
        if found is None:
            raise CorpusError(path, lineno, f"expected the header matching {header.pattern!r}")
        if "n" in header.groupindex:
            declared = int(found["n"])

    pairs: list[tuple[str, str]] = []
    body = lines[len(_HEADERS) + 2 :]
    while body and not body[-1].strip():  # blank lines at the end, as an editor leaves them: no event
        body.pop()
    first = len(_HEADERS) + 3
    for index in range(0, len(body), 2):
        lineno = first + index
        title = normal_text(body[index])  # one line, as a JSONL title
        if not title:
            raise CorpusError(path, lineno, "empty event title")
        _check_in_step(path, body, index, first)
        if index + 1 >= len(body):
            raise CorpusError(path, lineno, f"event title {title!r} has no summary line after it")
        summary = body[index + 1].strip()
        if not summary:
            raise CorpusError(path, lineno + 1, f"event {title!r} has an empty summary")
        pairs.append((title, summary))
    ids = unique_ids([slugify(title) for title, _ in pairs])
    events = [
        Event(id=event_id, topic=topic.slug, title=title, summary=summary, position=number)
        for number, (event_id, (title, summary)) in enumerate(zip(ids, pairs), start=1)
    ]
    if len(events) != declared:
        raise CorpusError(path, 6, f"the header declares {declared} events but {len(events)} follow it")
    return topic, events


# A summary is sentences: it ends with a full stop (a closing quote or bracket may follow).  A title
# ends without one ("Accelerate 1.0.0 Released", "… 10 Gigawatts of AI Datacenters"), or with "!" or
# "?".  Only used to tell where a page's titles and summaries slipped out of step (_check_in_step).
_ENDS_A_SENTENCE = re.compile(r"\.[\"'”’)\]]*$")
_ENDS_PUNCTUATED = re.compile(r"[.!?…:;,][\"'”’)\]]*$")


def _swapped(body: list[str], index: int) -> bool:
    """Tell whether the title and summary lines at *index* of a page's *body* read the other way
    round: the "title" ends with a full stop, the "summary" with no punctuation at all."""
    if index + 1 >= len(body):
        return False
    title, summary = body[index].strip(), body[index + 1].strip()
    return bool(_ENDS_A_SENTENCE.search(title)) and bool(summary) and not _ENDS_PUNCTUATED.search(summary)


def _check_in_step(path: Path, body: list[str], index: int, first: int) -> None:
    """Refuse a page whose titles and summaries are out of step from *index* of its *body* on (line
    *first* is ``body[0]``), naming the line where the pairing went wrong.

    A summary line deleted mid-page made the next title its summary and every later summary a title:
    it was told at the end of the page ("event title '<a summary>' has no summary line after it"), and
    a second slip (a title deleted further on) made the count even again, so the page built with every
    event between them holding another's title or summary.  Two pairs in a row that read the other
    way round (``_swapped``) are taken for a slip, not one: a real title may end with a full stop
    ("… Inc.") beside a summary without one, but hardly twice running."""
    if not (_swapped(body, index) and _swapped(body, index + 2)):
        return
    lineno = first + index
    before = body[index - 1].strip() if index else ""
    if before and not _ENDS_PUNCTUATED.search(before):  # the line read as the last summary is a title
        previous = normal_text(body[index - 2])
        raise CorpusError(path, lineno - 1, f"{normal_text(before)!r} is read as the summary of the event {previous!r} "
                                            f"(line {lineno - 2}) but reads as a title, and the summaries after it as "
                                            f"titles: is the summary line of {previous!r} missing?")
    raise CorpusError(path, lineno, f"{normal_text(body[index])!r} is read as an event's title but reads as a summary "
                                    "(it ends with a full stop), and the titles after it as summaries: is a title line "
                                    f"missing above line {lineno}, or a summary split over two lines?")


def _is_heading(line: str) -> bool:
    return len(line) <= _HEADING_MAX and not line.startswith("- ") and line[-1] not in ".:;!?,)\"'"


def _tell_heading_read_as_text(path: Path, heading: tuple[int, str], lineno: int, line: str) -> None:
    """Warn that the heading-like *line* (at *lineno*), right under the *heading* (its line and text),
    is read as that section's first paragraph: two headings in a row mean one of them is a paragraph
    without its final punctuation ("See the glossary below" after a paragraph made a section, and the
    next section's heading its text: its anchor gone without a word, an editor's QA pass).  A section's
    first paragraph ends with punctuation in a guide written by the rule, so the sign costs no
    false alarm there (none in the guides the repository holds)."""
    at, text = heading
    log.warning("%s:%d: %r reads as a section heading, but comes right under the heading %r (line %d), so it "
                "is read as that section's first paragraph and makes no section: a line of at most %d characters not "
                "ending with . : ; ! ? , ) or a quote is a heading, so one of the two is a paragraph missing its final "
                "punctuation: end it with a period", path, lineno, normal_text(line), text, at, _HEADING_MAX)


def load_guide(path: str | Path, topic: str) -> list[GuideSection]:
    """Return the sections of a guide, in order, for the topic slug *topic*."""
    path = Path(path)
    lines = _lines(path)
    sections: list[GuideSection] = []
    heading: tuple[int, str] | None = None
    blocks: list[str] = []

    def close(end_line: int) -> None:
        if heading is None:
            return
        lineno, text = heading
        if not blocks:
            raise CorpusError(path, lineno, f"section heading {text!r} has no text under it")
        anchor = slugify(text)  # made unique in the guide once every heading is read
        sections.append(
            GuideSection(
                id="",
                topic=topic,
                heading=text,
                anchor=anchor,
                blocks=tuple(blocks),
                order=len(sections) + 1,
            )
        )

    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if _is_heading(line) and (heading is None or blocks):
            close(lineno)
            heading, blocks = (lineno, normal_text(line)), []
        elif heading is None:
            raise CorpusError(path, lineno, "expected a section heading before the first paragraph")
        else:
            if not blocks and _is_heading(line):
                _tell_heading_read_as_text(path, heading, lineno, line)
            blocks.append(line)
    if heading is None:
        raise CorpusError(path, 1, "the guide has no section heading")
    close(len(lines))
    # Two headings with one slug ("Calendrier de l'AI Act", "Calendrier de l’AI Act") are two sections:
    # the later one's anchor, and so its id, gets a suffix ("-2"), the first keeping the plain one.
    anchors = unique_anchors(sections)
    return [replace(s, id=f"{topic}--{anchor}", anchor=anchor) for s, anchor in zip(sections, anchors)]
