"""Enrichment: the related topics and organisations a reader would give each record, and no others."""

from __future__ import annotations

import json

import pytest

from corpus.enrich import enrich_records, load_gazetteer, load_taxonomy
from corpus.errors import CorpusError
from corpus.records import EVENT
from corpus.sources import DEFAULT_DIR, load_corpus
from tests.conftest import write_jsonl

HOME = "training-infrastructure"

# What a careful reader gives each event, decided by reading its title and summary (not copied from
# the output).  Together they cover every related topic.
RELATED_TOPICS = {
    "anthropic-and-amazon-expand-collaboration-for-up-to-5-gigawatts-of-new-compute":
        {"compute-deals", "chips-accelerators", "data-centers-power", "funding"},  # 5 GW, Trainium, $5B stake
    "rrfp-a-readiness-driven-runtime-for-pipeline-parallel-training-under-runtime": {"distributed-training"},
    "the-technology-behind-bloom-training": {"distributed-training", "open-source-tools"},  # Megatron-DeepSpeed
    "aws-and-openai-announce-38b-multi-year-strategic-partnership": {"compute-deals"},
    "openai-and-broadcom-announce-strategic-collaboration-to-deploy-10-gw-of-openai":
        {"compute-deals", "chips-accelerators", "data-centers-power", "networking"},  # accelerators + Ethernet
    "amd-and-openai-announce-strategic-partnership-to-deploy-6-gigawatts-of-amd-gpus":
        {"compute-deals", "chips-accelerators", "data-centers-power"},
    "openai-oracle-and-softbank-expand-stargate-with-five-new-ai-datacenter-sites": {"data-centers-power"},
    "scaling-kubernetes-to-7-500-nodes": {"distributed-training"},
    "decoupled-diloco-a-new-frontier-for-resilient-distributed-ai-training":
        {"distributed-training", "networking"},  # low-communication training
    "openai-introduces-mrc-multipath-reliable-connection-networking-protocol-for-ai": {"networking"},
    "meta-announces-four-mtia-ai-chip-generations-in-two-years-mtia-300-500-roadmap": {"chips-accelerators"},
    "samsung-and-sk-join-openai-s-stargate-initiative-to-advance-global-ai":
        {"chips-accelerators", "data-centers-power"},  # memory chips, Korean data centers
    "microsoft-invests-1-billion-in-openai-becomes-exclusive-cloud-provider": {"compute-deals", "funding"},
    "global-batch-load-balancing-for-moe-llm-training-from-qwen": {"efficiency-research"},
    "accelerate-1-0-0-released": {"distributed-training", "open-source-tools"},
    "from-deepspeed-to-fsdp-and-back-again-with-hugging-face-accelerate":
        {"distributed-training", "open-source-tools"},
    "galore-advancing-large-model-training-on-consumer-grade-hardware": {"efficiency-research", "open-source-tools"},
    "accelerate-large-model-training-using-pytorch-fully-sharded-data-parallel":
        {"distributed-training", "open-source-tools"},
    "introducing-triton-open-source-gpu-programming-for-neural-networks": {"open-source-tools"},
    "how-ai-training-scales-gradient-noise-scale-predicts-batch-parallelizability": {"efficiency-research"},
    "chunkft-memory-efficient-full-fine-tuning-via-byte-streamed-chunk-optimization": {"efficiency-research"},
    "complete-mue-optimal-hyperparameter-transfer-and-scaling-for-moe-models": {"efficiency-research"},
    "training-infrastructure--efficiency-research-as-a-countervailing-force": {"efficiency-research"},
}

# Every organisation each event names, under any of its names; products (Claude, Llama, Trainium)
# and publications are not organisations.
ORGANISATIONS = {
    "anthropic-and-amazon-expand-collaboration-for-up-to-5-gigawatts-of-new-compute": {"anthropic", "amazon"},
    "anthropic-expands-partnership-with-google-and-broadcom-for-multi-gigawatt-tpu":
        {"anthropic", "google", "broadcom", "amazon", "nvidia"},  # "AWS Trainium", "NVIDIA GPUs"
    "anthropic-announces-spacex-colossus-compute-deal-and-higher-claude-usage-limits":
        {"anthropic", "spacex", "nvidia", "amazon", "google", "broadcom", "microsoft", "fluidstack"},
    "aws-and-openai-announce-38b-multi-year-strategic-partnership": {"amazon", "openai", "microsoft"},
    "amd-and-openai-announce-strategic-partnership-to-deploy-6-gigawatts-of-amd-gpus": {"amd", "openai", "nvidia"},
    "openai-oracle-and-softbank-expand-stargate-with-five-new-ai-datacenter-sites": {"openai", "oracle", "softbank"},
    "decoupled-diloco-a-new-frontier-for-resilient-distributed-ai-training": {"google-deepmind"},
    "openai-introduces-mrc-multipath-reliable-connection-networking-protocol-for-ai":
        {"openai", "open-compute-project"},
    "piper-programmable-distributed-training-system-decoupling-parallelism-strategy": {"deepseek"},
    "meta-announces-four-mtia-ai-chip-generations-in-two-years-mtia-300-500-roadmap": {"meta", "broadcom"},
    "anthropic-spacex-ai-s-300mw-5b-yr-colossus-i-deal-arr-growth-8000-annualized": {"anthropic", "spacex", "xai"},
    "openai-and-softbank-group-partner-with-sb-energy-for-multi-gigawatt-ai-data":
        {"openai", "softbank", "sb-energy"},
    "samsung-and-sk-join-openai-s-stargate-initiative-to-advance-global-ai": {"samsung", "sk-group", "openai"},
    "global-batch-load-balancing-for-moe-llm-training-from-qwen": {"alibaba"},
    "chunkft-memory-efficient-full-fine-tuning-via-byte-streamed-chunk-optimization": set(),
    "anthropic-raises-65b-in-series-h-funding-at-965b-post-money-valuation": {
        "anthropic", "altimeter-capital", "dragoneer", "greenoaks", "sequoia-capital", "amazon", "google",
        "broadcom", "spacex", "micron", "samsung", "sk-hynix",
    },
}


@pytest.fixture(scope="module")
def by_id(seed_corpus):
    return {r.id: r for r in seed_corpus.records}


@pytest.mark.parametrize("doc_id", sorted(RELATED_TOPICS))
def test_related_topics_are_what_a_reader_would_give(by_id, doc_id):
    assert set(by_id[doc_id].topics) == RELATED_TOPICS[doc_id]


def test_the_pinned_events_cover_every_related_topic():
    slugs = {rule.topic.slug for rule in load_taxonomy().related}
    assert len(slugs) == 8
    assert set().union(*RELATED_TOPICS.values()) == slugs


@pytest.mark.parametrize("doc_id", sorted(ORGANISATIONS))
def test_organisations_are_exactly_the_ones_named(by_id, doc_id):
    assert set(by_id[doc_id].entities) == ORGANISATIONS[doc_id]


def test_every_event_gets_a_related_topic_and_the_topics_carry_their_labels(seed_corpus):
    events = [r for r in seed_corpus.records if r.kind == EVENT]
    assert len(events) == 50
    assert [e.id for e in events if not e.topics] == []
    taxonomy = load_taxonomy()
    for rule in taxonomy.related:
        topic = seed_corpus.topics[rule.topic.slug]
        assert topic.name == rule.topic.name and topic.description
        assert topic.event_count == sum(rule.topic.slug in e.topics for e in events)
    # The topic page's own header wins over the taxonomy's copy of the home topic.
    assert seed_corpus.topics[HOME].event_count == 282


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Parses metadata and meta tags; a Metadata API", ()),
        ("AMD64 and amd64 builds, the AMDGPU driver, XAMD and AMDs", ()),
        ("Amazonian rivers, an oracle of Delphi, googled it, SKU lists, Samsungs", ()),
        ("the Mistral workflow service, hugging face emoji, aws-cli, openai-compatible", ()),
        ("OpenAIs and Anthropics and NVIDIAs", ()),
        ("Meta Announces MTIA; Meta's chips", ("meta",)),
        ("NVIDIA's and AMD's GPUs", ("nvidia", "amd")),
        ("Google Cloud TPUs on AWS via Amazon Web Services", ("google", "amazon")),
        ("SK hynix, then SK Group, then SK", ("sk-hynix", "sk-group")),
        ("SoftBank Group and SB Energy", ("softbank", "sb-energy")),
        ("Anthropic-SpaceX AI's deal with xAI/SpaceX", ("anthropic", "spacex", "xai")),
        ("Hugging Face and Mistral AI, by Qwen Research at DeepMind", ("hugging-face", "mistral-ai", "alibaba", "google-deepmind")),
        ("Microsoft Azure researchers; Azure compute", ("microsoft",)),
    ],
)
def test_gazetteer_matches_whole_names_in_their_case(text, expected):
    assert load_gazetteer().find(text) == expected


@pytest.mark.parametrize(
    ("text", "topic", "expected"),
    [
        ("a 5GW campus and a 300MW site", "data-centers-power", True),
        ("GWT widgets for a MWC demo", "data-centers-power", False),
        ("Data-Center buildout", "data-centers-power", True),
        ("ZeRO stage 3", "distributed-training", True),
        ("zero-shot prompting", "distributed-training", False),
        ("pipeline-parallel and tensor parallelism", "distributed-training", True),
        ("TPUs and Trainium2 chips", "chips-accelerators", True),
        ("chipsets for potato chipping", "chips-accelerators", False),
        ("the TRL library", "open-source-tools", True),
        ("control the TRLs of the expansion which accelerates", "open-source-tools", False),
        ("not without additional infrastructure investment", "funding", False),
        ("Microsoft Invests $1 Billion", "funding", True),
        ("neural networks", "networking", False),
    ],
)
def test_taxonomy_rules_match_whole_words(text, topic, expected):
    assert (topic in load_taxonomy().topics_for(text)) is expected


def test_enrichment_adds_and_never_removes(tmp_path):
    path = write_jsonl(
        tmp_path / "more.jsonl",
        [
            {"id": "a", "title": "NVIDIA opens a 2 gigawatt campus", "summary": "With OpenAI.",
             "topics": [HOME, "my-own-topic"], "entities": ["Some Lab", "OpenAI", "nvidia"]},
            {"id": "b", "title": "Meta package for NVIDIA drivers", "summary": "Data center tools, TPUs, OpenAI.",
             "topics": ["games"]},
            {"id": "c", "title": "Nothing to see", "summary": "", "topics": ["games"], "entities": ["AWS", "Valve"]},
        ],
    )
    corpus = load_corpus([DEFAULT_DIR, path])
    a, b, c = corpus.records[-3:]
    assert a.topics == (HOME, "my-own-topic", "data-centers-power")
    assert a.entities == ("Some Lab", "openai", "nvidia")  # a known name is spelled by its slug, once
    # Outside the hub's topics nothing is read from the text: "Meta package" is no organisation there.
    assert (b.topics, b.entities) == (("games",), ())
    # Nor is an entity it gives read by the hub's aliases: "AWS" stays as written, as "SK" (Slovakia in
    # a farming corpus) does, which was "SK Group" (a QA pass); a known name in any case is its slug.
    assert c.entities == ("AWS", "Valve")
    assert {"openai", "nvidia"} <= corpus.organisations.keys()


def test_a_topic_or_organisation_written_several_ways_is_written_one_way(tmp_path):
    # Facets list one value per organisation: three spellings were three entries, each counting one.
    lines = [
        {"id": "a1", "title": "Acme opens a lab", "summary": "", "topics": ["robots"], "entities": ["Acme Corp"]},
        {"id": "a2", "title": "Acme hires", "summary": "", "topics": ["Robots"], "entities": ["ACME  CORP", "Acme Corp"]},
        {"id": "a3", "title": "Acme ships", "summary": "", "topics": ["ROBOTS", "robots"], "entities": ["Acme Corp"]},
        {"id": "a4", "title": "Beta merges", "summary": "", "topics": ["robots"], "entities": ["beta", "Beta", "OPENAI", "google  deepmind"]},
        {"id": "a5", "title": "Beta grows", "summary": "", "topics": [HOME], "entities": ["Beta"]},
    ]
    corpus = load_corpus([write_jsonl(tmp_path / "acme.jsonl", lines)])
    by_id = {r.id: r for r in corpus.records}
    # The way most written ("Beta" twice to once), and a known organisation's slug in any case.
    assert {r.entities for r in corpus.records} == {("Acme Corp",), ("Beta", "openai", "google-deepmind"), ("Beta",)}
    assert "google-deepmind" in corpus.organisations  # its name in another case: the slug, and its label
    assert [(r.topic, r.topics[:1]) for r in corpus.records[:4]] == [("robots", ("robots",))] * 4
    assert by_id["a3"].topics == ("robots",)  # two ways of one topic: kept once
    assert by_id["a5"].topic == HOME


def test_records_enriched_one_by_one_match_a_full_load(seed_corpus):
    # What an index update uses: the same topics and organisations as a build would give.
    bare = [type(r)(**{k: getattr(r, k) for k in ("id", "topic", "title", "summary", "position")})
            for r in seed_corpus.records[:5]]
    assert enrich_records(bare).records == seed_corpus.records[:5]


def test_a_corpus_without_the_home_topic_gets_no_taxonomy(tmp_path):
    path = write_jsonl(tmp_path / "debian.jsonl", [{"id": "deb-x", "title": "Data center tools", "summary": "", "topics": ["admin"]}])
    corpus = load_corpus([path])
    assert corpus.topics == {} and corpus.records[0].topics == ("admin",) and corpus.organisations == {}


def _taxonomy_with(tmp_path, change):
    data = json.loads((DEFAULT_DIR / "taxonomy.json").read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "taxonomy.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["related"].append(dict(d["related"][0])), "is used twice"),
        (lambda d: d["related"][0].update(words=["$5B"]), "begin and end with a letter or digit"),
        (lambda d: d["related"][0].update(slug="Compute Deals"), "lowercase words joined by hyphens"),
        (lambda d: d["related"][0].update(words=[], exact=[]), "has no rules"),
        (lambda d: d["home"].pop("label"), "'label' must be a non-empty string"),
    ],
)
def test_bad_taxonomy_data_is_reported_with_its_file(tmp_path, change, message):
    path = _taxonomy_with(tmp_path, change)
    with pytest.raises(CorpusError, match=message) as info:
        load_taxonomy(path)
    assert str(path) in str(info.value)


def test_a_name_given_to_two_organisations_is_reported(tmp_path):
    data = json.loads((DEFAULT_DIR / "organisations.json").read_text(encoding="utf-8"))
    data["organisations"].append({"slug": "amazon-2", "name": "Amazon2", "aliases": ["AWS"]})
    path = tmp_path / "organisations.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CorpusError, match="'AWS' already names 'amazon'"):
        load_gazetteer(path)
