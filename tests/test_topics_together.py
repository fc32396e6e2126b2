"""Two topic pages in one build (a QA pass that added a second topic beside the seed): events whose
titles share an id, a topic page named like a related topic, a guide named like no topic, and a page
whose titles and summaries have slipped out of step."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus.enrich import load_taxonomy
from corpus.errors import CorpusError
from corpus.seeds import load_topic_page
from corpus.sources import DEFAULT_DIR, load_corpus
from index import store
from web import create_app
from web.cli import main

HOME = load_taxonomy().home
SEED_PAGE = DEFAULT_DIR / f"{HOME.slug}.topic.txt"
SEED_DOCUMENTS = 57  # 50 events and 7 guide sections
GIGAWATTS = "OpenAI and NVIDIA Announce Strategic Partnership to Deploy 10 Gigawatts of AI Datacenters"
AWS = "AWS and OpenAI Announce $38B Multi-Year Strategic Partnership"
HEAD = "Recent events ({n})"


def topic_page(slug: str, events: list[tuple[str, str]], name: str = "Inference Infrastructure") -> str:
    lines = [name, f"{slug}·{len(events)} events·last 1h agoServing models in production.", "Related entities",
             "Related topics (0)", "Guides (0)", HEAD.format(n=len(events))]
    for title, summary in events:
        lines += [title, summary]
    return "\n".join(lines) + "\n"


def seed_summary(title: str) -> str:
    lines = SEED_PAGE.read_text(encoding="utf-8").splitlines()
    return lines[lines.index(title) + 1]


def corpus_with(tmp_path: Path, name: str, text: str) -> Path:
    folder = shutil.copytree(DEFAULT_DIR, tmp_path / "corpus")
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def build_cli(folder: Path, index: Path):
    return CliRunner().invoke(main, ["build", str(folder), "--no-semantic", "--index-dir", str(index)])


# 1. Events merge across topic pages only when their titles are the same.

SECOND = [
    # Shares its first 80 characters' slug with the seed's GIGAWATTS, so it had the seed event's id.
    ("OpenAI and NVIDIA Announce Strategic Partnership to Deploy 10 Gigawatts of AI Inference Capacity for ChatGPT",
     "A separate agreement from the training deal: NVIDIA will supply Rubin CPX inference systems for ChatGPT."),
    # Differs from the seed's "Accelerate 1.0.0 Released" in punctuation and case: another event.
    ("Accelerate 1.0.0 released!",
     "Not the Hugging Face library: Accelerate is also the name of a new inference router from Together AI."),
    # Differs from it in case only: another title, so another document (told in a warning).
    ("Accelerate 1.0.0 released", "The router's maintainers cut the same release under a second headline."),
    # The same title as the seed's: one event, listed in both topics.
    (AWS, seed_summary(AWS)),
]


def test_events_whose_titles_share_an_id_are_two_documents_and_the_same_title_is_one(tmp_path, caplog):
    folder = corpus_with(tmp_path, "inference-infrastructure.topic.txt", topic_page("inference-infrastructure", SECOND))
    with caplog.at_level(logging.WARNING):
        result = build_cli(folder, tmp_path / "ix")
    assert result.exit_code == 0, result.output
    assert f"built {SEED_DOCUMENTS + 3} documents" in result.output, result.output  # was 79 of 81 in the QA pass
    assert "with another summary" not in caplog.text  # nothing silently replaced
    assert "differ in case only" in caplog.text and "Accelerate 1.0.0 Released" in caplog.text
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    titles = {}
    for title, summary in [*SECOND, (GIGAWATTS, seed_summary(GIGAWATTS)), ("Accelerate 1.0.0 Released", None)]:
        hits = client.get("/api/search", query_string={"q": f'"{title}"', "per_page": 50}).get_json()["hits"]
        found = [h for h in hits if h["title"] == title]
        assert len(found) == 1, (title, [h["title"] for h in hits])
        titles[title] = found[0]["id"]
        document = client.get(f"/api/documents/{found[0]['id']}").get_json()["document"]
        assert summary is None or document["body"] == summary
    assert len(set(titles.values())) == len(titles)  # each its own document
    # The seed's events keep the ids they have alone (their URLs), whichever page is read first.
    alone = {event.title: event.id for event in load_topic_page(SEED_PAGE)[1]}
    assert titles[GIGAWATTS] == alone[GIGAWATTS] and titles["Accelerate 1.0.0 Released"] == alone["Accelerate 1.0.0 Released"]
    assert titles[SECOND[0][0]] == alone[GIGAWATTS] + "-2"
    # The same title is one document in both topics.
    document = client.get(f"/api/documents/{titles[AWS]}").get_json()["document"]
    assert {HOME.slug, "inference-infrastructure"} <= set(document["topics"])
    ids = {record.id: record for record in load_corpus([folder]).records}
    assert all(ids[event_id].title == title for title, event_id in alone.items())


def test_a_title_written_with_other_spaces_or_composition_is_the_same_title(tmp_path):
    same = [(AWS.replace(" ", "  ").replace("$38B", "$38B\t"), seed_summary(AWS)),
            ("Cafe\u0301 Compute Opens", "A second page lists it decomposed.")]
    first = [("Café Compute Opens", "A first page lists it composed.")]
    (tmp_path / "aa.topic.txt").write_text(topic_page("aa", first, "Aa"), encoding="utf-8")
    (tmp_path / "bb.topic.txt").write_text(topic_page("bb", same, "Bb"), encoding="utf-8")
    corpus = load_corpus([SEED_PAGE, tmp_path])
    assert len(corpus.records) == 50 + 1
    merged = {record.title: record for record in corpus.records}
    assert {merged[AWS].topic, *merged[AWS].topics} >= {HOME.slug, "bb"}
    assert {merged["Café Compute Opens"].topic, *merged["Café Compute Opens"].topics} == {"aa", "bb"}


def test_a_title_whose_slug_is_a_suffixed_id_keeps_it_and_every_event_has_its_own(tmp_path):
    # "Phase 2"'s slug is the id the second "Phase" was given: both had phase-2, one replacing the other.
    events = [("Phase", "The first."), ("Phase", "The second."), ("Phase 2", "The third."), ("Phase", "The fourth.")]
    page = tmp_path / "phases.topic.txt"
    page.write_text(topic_page("phases", events, "Phases"), encoding="utf-8")
    _, loaded = load_topic_page(page)
    assert [e.id for e in loaded] == ["phase", "phase-3", "phase-2", "phase-4"]
    later = tmp_path / "zz.topic.txt"  # a later page's "Phase 2" and "Phase 3" are other events
    later.write_text(topic_page("zz", [("Phase 3", "Another."), ("Phase 2", "The third.")], "Zz"), encoding="utf-8")
    corpus = load_corpus([page, later])
    assert sorted(r.id for r in corpus.records) == ["phase", "phase-2", "phase-3", "phase-3-2", "phase-4"]
    result = build_cli(tmp_path, tmp_path / "ix")
    assert result.exit_code == 0 and "built 5 documents" in result.output, result.output


# 2. A topic page named like one of the taxonomy's related topics.

def test_a_topic_page_with_a_related_topics_slug_is_refused_naming_its_line_2(tmp_path):
    related = load_taxonomy().related[2].topic.slug  # chips-accelerators
    folder = corpus_with(tmp_path, f"{related}.topic.txt", topic_page(related, SECOND[:1]))
    index = tmp_path / "ix"
    assert build_cli(DEFAULT_DIR, index).exit_code == 0
    served = store.current_id(index)
    result = build_cli(folder, index)
    page = folder / f"{related}.topic.txt"
    assert result.exit_code == 1, result.output
    assert (f"{page}:2: topic '{related}' is a related topic of the home topic '{HOME.slug}' in "
            f"{DEFAULT_DIR / 'taxonomy.json'}") in result.output, result.output
    assert store.current_id(index) == served  # the live index untouched
    with pytest.raises(CorpusError) as refused:
        load_corpus([folder])
    assert (refused.value.path, refused.value.line) == (str(page), 2)


# 3. A guide named like no topic page.

GUIDE = "Why it matters\nServing is where the money is spent.\n"


def test_a_guide_named_like_no_topic_page_is_refused_naming_the_topics_it_could_mean(tmp_path):
    (tmp_path / "inference-infrastructure.topic.txt").write_text(topic_page("inference-infrastructure", SECOND[:2]),
                                                                encoding="utf-8")
    (tmp_path / "inference.guide.txt").write_text(GUIDE, encoding="utf-8")
    index = tmp_path / "ix"
    result = build_cli(tmp_path, index)
    assert result.exit_code == 1, result.output
    assert (f"{tmp_path / 'inference.guide.txt'}: the file's name gives its guide the topic 'inference', which no "
            "topic page in this build has; did you mean 'inference-infrastructure' (rename the file "
            "inference-infrastructure.guide.txt)?") in " ".join(result.output.split()), result.output
    assert store.current_id(index) is None
    with pytest.raises(CorpusError, match="topic pages: 'inference-infrastructure', 'training-infrastructure'"):
        load_corpus([SEED_PAGE, tmp_path])


def test_a_guide_of_a_jsonl_or_taxonomy_topic_or_without_topic_pages_still_builds(tmp_path):
    from tests.conftest import write_jsonl

    (tmp_path / "inference-infrastructure.topic.txt").write_text(topic_page("inference-infrastructure", SECOND[:2]),
                                                                encoding="utf-8")
    (tmp_path / "robotics.guide.txt").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "chips-accelerators.guide.txt").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "Inference Infrastructure.guide.txt").write_text(GUIDE, encoding="utf-8")  # by its topic's label
    write_jsonl(tmp_path / "more.jsonl", [{"id": "arm", "title": "An arm", "summary": "It moves.", "topics": ["robotics"]}])
    records = load_corpus([tmp_path]).records
    assert {record.topic for record in records} == {"robotics", "chips-accelerators", "inference-infrastructure"}
    assert sorted(r.topic for r in records if r.kind == "guide") == ["chips-accelerators", "inference-infrastructure", "robotics"]
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "inference.guide.txt").write_text(GUIDE, encoding="utf-8")
    assert {record.topic for record in load_corpus([alone]).records} == {"inference"}


# 4. Titles and summaries out of step.

INFERENCE = [
    ("Groq Raises $750 Million to Expand LPU Inference Cloud",
     "Groq closed a $750 million round to build more data centers for its LPU chips. GroqCloud now serves two million developers."),
    ("Cerebras Opens Six New Inference Datacenters in North America and Europe",
     "Cerebras announced six new inference datacenters built around its wafer-scale chips."),
    ("NVIDIA Launches Dynamo, an Open-Source Inference Framework for Disaggregated Serving",
     "NVIDIA released Dynamo, an open-source inference-serving framework. Dynamo routes requests by KV-cache locality."),
    ("vLLM 1.0 Released with PagedAttention v2 and Prefix Caching by Default",
     "The vLLM project shipped version 1.0, making automatic prefix caching the default."),
    ("KV Cache Offloading to CPU Memory and SSD with LMCache",
     "The LMCache project shows that offloading the KV cache lets a server keep more conversations warm."),
    ("Etched Ships Sohu, a Transformer-Only ASIC for Inference",
     "Etched began shipping Sohu, an ASIC that hard-wires the transformer architecture."),
]


def slipped(tmp_path: Path, lines: list[str], declared: int) -> Path:
    page = tmp_path / "inference-infrastructure.topic.txt"
    text = topic_page("inference-infrastructure", INFERENCE).splitlines()
    text[5] = HEAD.format(n=declared)
    page.write_text("\n".join(text[:6] + lines) + "\n", encoding="utf-8")
    return page


def body() -> list[str]:
    return [line for pair in INFERENCE for line in pair]  # line n of the page is body()[n - 7]


def test_a_summary_line_missing_mid_page_is_told_at_the_title_it_left_without_one(tmp_path):
    lines = body()
    del lines[1]  # Groq's summary (line 8): "Cerebras …" (line 8 now) is read as Groq's summary
    page = slipped(tmp_path, lines, 6)
    with pytest.raises(CorpusError) as refused:
        load_topic_page(page)
    assert refused.value.line == 8, refused.value  # was 17, the last line
    assert str(refused.value) == (
        f"{page}:8: 'Cerebras Opens Six New Inference Datacenters in North America and Europe' is read as the summary "
        "of the event 'Groq Raises $750 Million to Expand LPU Inference Cloud' (line 7) but reads as a title, and the "
        "summaries after it as titles: is the summary line of 'Groq Raises $750 Million to Expand LPU Inference Cloud' "
        "missing?")


def test_two_slips_that_cancel_out_are_refused_too(tmp_path):
    lines = body()
    del lines[8]  # LMCache's title (line 15)
    del lines[1]  # Groq's summary (line 8): an even count of lines again, every pair between them swapped
    page = slipped(tmp_path, lines, 5)
    with pytest.raises(CorpusError) as refused:
        load_topic_page(page)  # built: two events each with another's title as its summary, or summary as its title
    assert refused.value.line == 8, refused.value


def test_a_summary_split_over_two_lines_is_told_where_the_split_is(tmp_path):
    lines = body()
    first, second = lines[5].split(" Dynamo routes")
    lines[5:6] = first, "Dynamo routes" + second  # NVIDIA's summary (line 12) on lines 12 and 13
    page = slipped(tmp_path, lines, 6)
    with pytest.raises(CorpusError) as refused:
        load_topic_page(page)
    assert refused.value.line == 13, refused.value  # the summary's second line, read as a title; was 19, the last
    assert str(refused.value).startswith(
        f"{page}:13: 'Dynamo routes requests by KV-cache locality.' is read as an event's title but reads as a summary")


def test_titles_ending_in_punctuation_and_short_summaries_are_not_taken_for_a_slip(tmp_path):
    events = [("Accelerate 1.0.0 released!", "Stable at last."), ("Is this the end of scaling?", "Maybe not"),
              ("Two titles. Both here.", "Short"), ("Another plain title", "A summary.")]
    page = tmp_path / "fine.topic.txt"
    page.write_text(topic_page("fine", events, "Fine"), encoding="utf-8")
    assert [e.title for e in load_topic_page(page)[1]] == [title for title, _ in events]
