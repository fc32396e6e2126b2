"""The topic page and guide loaders, on the real seed files and on broken copies of them."""

from __future__ import annotations

import hashlib

import pytest

from corpus.errors import CorpusError
from corpus.seeds import load_guide, load_topic_page
from tests.conftest import GUIDE, SEED_CHECKSUMS, TOPIC_PAGE


def test_seed_files_are_byte_for_byte_copies():
    recorded = dict(reversed(line.split()) for line in SEED_CHECKSUMS.read_text(encoding="utf-8").splitlines())
    for ours, seed in ((TOPIC_PAGE, "000_535f0b7ef9c550b3.txt"), (GUIDE, "002_1ae06f94fb223ee5.txt")):
        assert hashlib.sha256(ours.read_bytes()).hexdigest() == recorded[seed]


def test_topic_header():
    topic, events = load_topic_page(TOPIC_PAGE)
    assert topic.slug == "training-infrastructure"
    assert topic.name == "Training Infrastructure"
    assert topic.event_count == 282
    assert topic.description.startswith("Compute, chips, training runs")
    assert topic.description.endswith("the hardware/systems side of pre-training.")


def test_all_fifty_events_with_exact_text():
    _, events = load_topic_page(TOPIC_PAGE)
    assert len(events) == 50
    assert [e.position for e in events] == list(range(1, 51))
    assert len({e.id for e in events}) == 50
    titles = [e.title for e in events]
    assert titles[0] == "Anthropic and Amazon Expand Collaboration for Up to 5 Gigawatts of New Compute"
    assert titles[-1] == "Anthropic raises $65B in Series H funding at $965B post-money valuation"
    assert "Meta Announces Four MTIA AI Chip Generations in Two Years: MTIA 300–500 Roadmap" in titles
    assert "Anthropic-SpaceX AI's 300MW/$5B/yr Colossus I Deal; ARR Growth 8000% Annualized" in titles
    assert "Accelerate 1.0.0 Released" in titles
    assert "Scaling Kubernetes to 7,500 Nodes" in titles
    assert events[0].summary.startswith("Anthropic has signed a major expanded agreement with Amazon")
    assert all(e.topic == "training-infrastructure" and e.summary for e in events)


def test_event_ids_are_stable_slugs_of_titles():
    _, events = load_topic_page(TOPIC_PAGE)
    ids = {e.title: e.id for e in events}
    assert ids["Expanding Stargate to Michigan"] == "expanding-stargate-to-michigan"
    assert ids["Accelerate 1.0.0 Released"] == "accelerate-1-0-0-released"
    assert load_topic_page(TOPIC_PAGE)[1][0].id == events[0].id


def test_all_seven_guide_sections():
    sections = load_guide(GUIDE, "training-infrastructure")
    assert [s.heading for s in sections] == [
        "What this area covers",
        "Why it matters",
        "How it evolved",
        "The physical buildout",
        "Geopolitical and security dimensions",
        "Efficiency research as a countervailing force",
        "Where it is heading",
    ]
    assert [s.order for s in sections] == list(range(1, 8))
    efficiency = sections[5]
    assert efficiency.anchor == "efficiency-research-as-a-countervailing-force"
    bullets = [b for b in efficiency.blocks if b.startswith("- ")]
    assert len(bullets) == 5
    assert bullets[1].startswith("- Sparse attention: DeepSeek's V3.2-Exp introduced")
    assert "Jalapeño" in sections[2].body
    assert sections[2].url == "/guides/training-infrastructure#how-it-evolved"


def _broken(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _page_lines():
    return TOPIC_PAGE.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(
    ("mutate", "line", "words"),
    [
        (lambda ls: ls[:1] + ls[2:], 2, "meta line"),  # no meta line
        (lambda ls: ls[:2] + ls[3:], 3, "header"),  # a header missing
        (lambda ls: ls[:-1], 105, "no summary"),  # last title without summary
        (lambda ls: ls[:8] + [""] + ls[9:], 9, "empty event title"),
        (lambda ls: ls[:7] + [" "] + ls[8:], 8, "empty summary"),
        (lambda ls: [""] + ls[1:], 1, "topic name"),
    ],
)
def test_malformed_topic_page_names_file_and_line(tmp_path, mutate, line, words):
    path = _broken(tmp_path, "bad.topic.txt", mutate(_page_lines()))
    with pytest.raises(CorpusError) as info:
        load_topic_page(path)
    assert info.value.line == line
    assert words in info.value.message
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_blank_lines_after_the_last_event_are_no_event(tmp_path):
    # An editor's trailing blank lines were refused as "empty event title" (QA pass Y); guides and
    # JSONL files skip blank lines already.
    path = _broken(tmp_path, "padded.topic.txt", _page_lines() + ["", "  ", ""])
    topic, events = load_topic_page(path)
    assert len(events) == 50
    # A blank line between events is still an empty title, named by its line.
    with pytest.raises(CorpusError, match="empty event title"):
        load_topic_page(_broken(tmp_path, "gap.topic.txt", _page_lines()[:8] + [""] + _page_lines()[8:]))


def test_declared_event_count_must_match(tmp_path):
    lines = _page_lines()
    path = _broken(tmp_path, "bad.topic.txt", lines[:-2])
    with pytest.raises(CorpusError, match=r"declares 50 events but 49"):
        load_topic_page(path)


def test_malformed_guide(tmp_path):
    no_heading = _broken(tmp_path, "a.guide.txt", ["This guide starts with a paragraph."])
    with pytest.raises(CorpusError, match=r"a.guide.txt:1: expected a section heading"):
        load_guide(no_heading, "t")
    empty_section = _broken(tmp_path, "b.guide.txt", ["Heading one", "Heading two", "Text."])
    # Two short lines in a row: the second is read as the first section's text, so the guide loads.
    assert [s.heading for s in load_guide(empty_section, "t")] == ["Heading one"]
    dangling = _broken(tmp_path, "c.guide.txt", ["Heading one", "Text.", "Heading two"])
    with pytest.raises(CorpusError, match=r"c.guide.txt:3: section heading 'Heading two' has no text"):
        load_guide(dangling, "t")


def test_invalid_utf8_is_reported_with_its_line(tmp_path):
    path = tmp_path / "x.topic.txt"
    path.write_bytes(b"Name\nslug\xff\n")
    with pytest.raises(CorpusError, match=r"x.topic.txt:2: invalid UTF-8 at byte 10 of the file \(invalid start byte\)"):
        load_topic_page(path)


def _russian_page(path, events):
    lines = ["Инфраструктура обучения", f"infra-ru·{len(events)} events·last 2h agoВычисления и дата-центры.",
             "Related entities", "Related topics (0)", "Guides (0)", f"Recent events ({len(events)})"]
    path.write_text("\n".join(lines + [line for event in events for line in event]) + "\n", encoding="utf-8")
    return path


def test_an_event_titled_without_latin_letters_keeps_its_page_when_the_topic_page_gains_one(tmp_path):
    # Every such title was slugged "item": the events were item, item-2 … in listing order, so an event
    # added at the top took /events/item, and the first_seen (and feed entry id) of the one before it.
    from index.build import build
    from search.params import SearchParams
    from search.service import SearchService

    moscow = ("Москва строит центр обработки данных", "Новый центр в Москве.")
    sber = ("Сбербанк запускает суперкомпьютер", "Суперкомпьютер для обучения моделей.")
    yandex = ("Яндекс открывает дата-центр", "Новый дата-центр в Финляндии.")
    page = tmp_path / "src" / "infra-ru.topic.txt"
    page.parent.mkdir()
    build([_russian_page(page, [moscow, sber])], root=tmp_path / "ix", semantic=False)
    before = {h.title: h for h in SearchService(tmp_path / "ix").search(SearchParams(per_page=50)).hits}
    build([_russian_page(page, [yandex, moscow, sber])], root=tmp_path / "ix", semantic=False)
    after = {h.title: h for h in SearchService(tmp_path / "ix").search(SearchParams(per_page=50)).hits}
    for title, _ in (moscow, sber):
        assert (after[title].url, after[title].first_seen) == (before[title].url, before[title].first_seen)
    assert after[yandex[0]].url not in {h.url for h in before.values()}
    assert all(h.revised is None for h in after.values())  # nothing changed what an event says: none "updated"


# The characters other than "\n" that str.splitlines ends a line at ("\r" aside, which is a line end).
UNICODE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def test_a_line_ends_at_a_newline_only(tmp_path):
    # A form feed in a guide's paragraph made "New page" a section of its own, U+2028 "Short fragment"
    # one with its own anchor: the loaders split lines as str.splitlines does, at every Unicode break.
    guide = tmp_path / "t.guide.txt"
    guide.write_text(
        "Overview\nThe first part of the text.\x0cNew page\n"
        "More text.\u2028Short fragment\u2028Then the rest.\n"
        "Every other break\n" + "".join(f"Word{n}.{c}" for n, c in enumerate(UNICODE_BREAKS)) + "End.\n",
        encoding="utf-8",
    )
    sections = load_guide(guide, "t")
    assert [(s.heading, s.anchor) for s in sections] == [("Overview", "overview"), ("Every other break", "every-other-break")]
    # Inside a line they are what plain_text makes of them, as in a JSONL summary: controls are spaces.
    assert sections[0].blocks == ("The first part of the text. New page", "More text.\u2028Short fragment\u2028Then the rest.")
    assert sections[1].blocks == ("Word0. Word1. Word2. Word3. Word4. Word5. Word6.\u2028Word7.\u2029End.",)


def test_a_topic_page_s_error_names_its_line_whatever_breaks_its_lines_hold(tmp_path):
    # "my-topic.topic.txt:11: event title 'two.' …" was said of a file of 10 lines, a U+2028 in a summary
    # counted as a line end.
    head = ["My topic", "my-topic·3 events·last 2h agoA topic.", "Related entities", "Related topics (0)",
            "Guides (0)", "Recent events (3)"]
    events = ["One", "The first.\u2028two.", "Two", "The second.\x0cStill the second.", "Three", "The third."]
    broken = _broken(tmp_path, "broken.topic.txt", head + events[:3] + [" "] + events[4:])
    with pytest.raises(CorpusError) as info:
        load_topic_page(broken)
    assert str(info.value) == f"{broken}:10: event 'Two' has an empty summary"  # was ":11: empty event title"
    topic, loaded = load_topic_page(_broken(tmp_path, "my-topic.topic.txt", head + events))
    assert [(e.title, e.summary) for e in loaded] == [
        ("One", "The first.\u2028two."), ("Two", "The second. Still the second."), ("Three", "The third.")
    ]


def test_a_title_or_heading_is_one_line_whatever_spaces_it_holds(tmp_path):
    head = ["My topic", "my-topic·1 events·last 2h agoA topic.", "Related entities", "Related topics (0)",
            "Guides (0)", "Recent events (1)"]
    _, [event] = load_topic_page(_broken(tmp_path, "my-topic.topic.txt", head + ["Stargate\tMichigan\u2028opens", "Text."]))
    assert event.title == "Stargate Michigan opens"
    guide = tmp_path / "t.guide.txt"
    guide.write_text("Where it\tis  heading\nText under it.\n", encoding="utf-8")
    [section] = load_guide(guide, "t")
    assert section.heading == "Where it is heading"


def test_a_topic_page_in_utf_16_is_said_to_be_so_and_a_bad_byte_by_its_place(tmp_path):
    # QA: a topic page saved as UTF-16 (with its byte-order mark) said only ":1: is not valid UTF-8".
    page = tmp_path / "t.topic.txt"
    page.write_bytes(TOPIC_PAGE.read_text(encoding="utf-8").encode("utf-16"))
    with pytest.raises(CorpusError, match=r"t.topic.txt:1: the file is in UTF-16, not UTF-8 \(it starts with UTF-16's "
                                          r"byte-order mark, FF FE\): save it as UTF-8"):
        load_topic_page(page)
    raw = TOPIC_PAGE.read_bytes()
    at = raw.index(b"Recent events")
    page.write_bytes(raw[:at] + b"\xff" + raw[at + 1:])
    with pytest.raises(CorpusError, match=rf"t.topic.txt:6: invalid UTF-8 at byte {at + 1} of the file \(invalid start byte\)"):
        load_topic_page(page)
