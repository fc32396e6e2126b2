"""The JSONL loader: the large Debian corpus, and bad lines reported by number."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest
from click.testing import CliRunner

from corpus.errors import CorpusError
from corpus.jsonl import FACET_VALUES_MAX_PER_RECORD, ID_MAX_LENGTH, SUMMARY_MAX_LENGTH, TITLE_MAX_LENGTH, load_jsonl
from corpus.records import Event, GuideSection
from index import store
from index.update import read_changes
from tests.conftest import DEBIAN, DEBIAN_SAMPLE_SIZE, write_jsonl
from web.cli import main

OK_LINE = '{"id": "ok", "title": "T", "summary": "S", "topics": ["x"]}'


def test_debian_corpus_loads_gzipped():
    records = list(load_jsonl(DEBIAN))
    assert len(records) == DEBIAN_SAMPLE_SIZE and len({r.id for r in records}) == DEBIAN_SAMPLE_SIZE
    first = records[0]
    assert first.id == "deb-0ad" and first.topic == "games" and first.title.startswith("Real-time strategy")


def test_optional_fields_and_kinds(tmp_path):
    path = write_jsonl(
        tmp_path / "docs.jsonl",
        [
            {"id": "a", "title": "T", "summary": "S", "topics": ["x", "y"], "entities": ["OpenAI"],
             "url": "https://example.org/a", "published": "2026-01-01"},
            {"id": "b", "title": "Heading", "summary": "Para one\nPara two", "topics": ["x"], "kind": "guide"},
            {"id": "c", "title": "Dated heading", "summary": "P", "topics": ["x"], "kind": "guide",
             "url": "https://example.org/c", "published": "2025-03-04"},
        ],
    )
    a, b, c = load_jsonl(path)
    assert isinstance(a, Event) and a.topics == ("x", "y") and a.entities == ("OpenAI",)
    assert a.url == "https://example.org/a" and a.published == "2026-01-01" and a.position == 1
    assert isinstance(b, GuideSection) and b.blocks == ("Para one", "Para two") and b.topic == "x"
    # A guide's date and source were dropped: it was dated to the build and sorted as the newest.
    assert isinstance(c, GuideSection) and c.published == "2025-03-04" and c.source_url == "https://example.org/c"


def test_gzip_is_accepted(tmp_path):
    path = tmp_path / "docs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write('{"id": "a", "title": "T", "summary": "S", "topics": ["x"]}\n')
    assert [r.id for r in load_jsonl(path)] == ["a"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "invalid JSON"),
        ('["a list"]', "expected a JSON object"),
        ('{"title": "T", "summary": "S", "topics": ["x"]}', "'id' must be a non-empty string"),
        ('{"id": "a", "title": "", "summary": "S", "topics": ["x"]}', "'title' must be a non-empty string"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": []}', "'topics' must name at least one topic"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": "x"}', "'topics' must be a list"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "kind": "tweet"}', "'kind' must be"),
        # Said as the line wrote it: "not True" was Python's word for JSON's true (QA pass Y).
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "kind": true}', "'kind' must be 'event' or 'guide', not true"),
        ('{"id": "a", "title": "T", "summary": 3, "topics": ["x"]}', "'summary' must be a string"),
        # An export's field names in another case, and an unquoted number: "'id' must be a non-empty string"
        # (the warning naming "ID" never came, the id being read first; a QA pass).
        ('{"ID": "a", "Title": "A", "summary": "s", "topics": ["t"]}', "'ID' is no field: did you mean 'id'?"),
        ('{"id": "a", "title": "A", "Summary": "s", "topics": ["t"]}', "'Summary' is no field: did you mean 'summary'?"),
        ('{"id": "a", "title": "A", "summary": "s", "TOPICS": ["t"]}', "'TOPICS' is no field: did you mean 'topics'?"),
        ('{"id": 5, "title": "A", "summary": "s", "topics": ["t"]}', """'id' must be a non-empty string, not the number 5: quote it ("5")"""),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": 2024}', "not the number 2024: quote it"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "last Tuesday"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "2024-02-30"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "01/05/2024"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "2024-W01-1"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "2024-05-01T25:00"}', "'published' must be an ISO 8601"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": 20240501}', "'published' must be a string"),
        ("[" * 100_000 + "]" * 100_000, "invalid JSON: nested too deeply"),
        # What Python's reader takes and JSON does not: the last of two ids was indexed without a word,
        # NaN and Infinity kept as numbers (a QA pass).
        ('{"id": "a", "id": "b", "title": "T", "summary": "S", "topics": ["x"]}', "the key 'id' is given twice in one object"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "x": {"k": 1, "k": 2}}', "the key 'k' is given twice"),
        ('{"id": "a", "title": "T", "summary": "NaN", "topics": ["x"], "score": NaN}', "invalid JSON at column 71: NaN is not a JSON number"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "n": [-Infinity]}', "at column 66: -Infinity is not a JSON number"),
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "n": ' + "7" * 5000 + "}", "a number of 5,000 digits at column 65"),
        # A BOM is skipped only at the start of the file; further down it is named, not Python's "decode using utf-8-sig".
        ("\ufeff" + OK_LINE, "a byte-order mark (U+FEFF) starts the line: only the file's first line may begin with one"),
        # Records separated by lone carriage returns read as one line: "Extra data at column 61" named no cause.
        (OK_LINE + "\r" + OK_LINE + "\r", "records are separated by carriage returns alone (old Mac line ends)"),
        # Python's message ends "starting at": it was "starting at at column 38".
        ('{"id": "a", "title": "T", "summary": "S', "invalid JSON: Unterminated string starting at column 38"),
        # A real date-time that its offset takes off the calendar is not called a bad format.
        ('{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": "0001-01-01T00:00:00+01:00"}',
         "is before year 1 or after year 9999 once its offset is applied"),
        ('{"id": "a\\u0000b", "title": "T", "summary": "S", "topics": ["x"]}', "'id' holds the control character '\\x00'"),
        ('{"id": "a\\tb", "title": "T", "summary": "S", "topics": ["x"]}', "'id' holds the control character '\\t'"),
        ('{"id": "a\\u0085b", "title": "T", "summary": "S", "topics": ["x"]}', "'id' holds the control character"),
        ('{"id": "..", "title": "T", "summary": "S", "topics": ["x"]}', "'id' '..' cannot be part of a URL"),
        # Zero-width spaces made a document at /events/%E2%80%8B, where a lone no-break space was refused (a QA pass).
        ('{"id": "\\u200b", "title": "T", "summary": "S", "topics": ["x"]}', "'id' '\\u200b' holds only invisible characters"),
        ('{"id": "\\u2060\\ufeff\\u00a0", "title": "T", "summary": "S", "topics": ["x"]}', "holds only invisible characters"),
        ('{"id": ".", "title": "T", "summary": "S", "topics": ["x"]}', "'id' '.' cannot be part of a URL"),
        (json.dumps({"id": "a" * 100_000, "title": "T", "summary": "S", "topics": ["x"]}), "'id' is 100,000 characters long; the limit is 512"),
        (json.dumps({"id": "a" * (ID_MAX_LENGTH + 1), "title": "T", "summary": "S", "topics": ["x"]}), "the limit is 512"),
        (json.dumps({"id": "a", "title": "T" * 1_000_000, "summary": "S", "topics": ["x"]}), "'title' is 1,000,000 characters long; the limit is 1,000"),
        # Counted as shown: markup is stripped first, so a short title in a long tag is fine (below).
        (json.dumps({"id": "a", "title": "<b>" + "T" * (TITLE_MAX_LENGTH + 1) + "</b>", "summary": "", "topics": ["x"]}), "the limit is 1,000"),
        # A document is served whole: 14 MB took 30 s to build and 16-22 s to serve.
        (json.dumps({"id": "a", "title": "T", "summary": "S" * (SUMMARY_MAX_LENGTH + 1), "topics": ["x"]}),
         f"'summary' is {SUMMARY_MAX_LENGTH + 1:,} characters long; the limit is {SUMMARY_MAX_LENGTH:,}"),
        # Refused before its markup is stripped: 5 MB of "&amp;" was still being sanitised after 13 minutes.
        (json.dumps({"id": "a", "title": "T", "summary": "&amp;" * 1_000_000, "topics": ["x"]}),
         "'summary' is 5,000,000 characters long with its markup; the limit is 4,000,000"),
        # A topic or organisation the API's filter (64 characters) could not ask for.
        (json.dumps({"id": "a", "title": "T", "summary": "S", "topics": ["t" * 65]}), "'topics' value 'tttttttttttttttttttt'… is 65 characters long; the limit is 64"),
        (json.dumps({"id": "a", "title": "T", "summary": "S", "topics": ["x"], "entities": ["e" * 80]}), "'entities' value"),
        # Each value is a facet's and a chip on the record's hits: 50,000 of them made a 32 MB page.
        (json.dumps({"id": "a", "title": "T", "summary": "S", "topics": [f"t{n}" for n in range(FACET_VALUES_MAX_PER_RECORD + 1)]}),
         "'topics' lists 101 values; the limit is 100 a record"),
        (json.dumps({"id": "a", "title": "T", "summary": "S", "topics": ["x"], "entities": [f"e{n}" for n in range(50_000)]}),
         "'entities' lists 50,000 values; the limit is 100 a record"),
    ],
)
def test_bad_line_stops_the_load_with_its_number(tmp_path, line, message):
    path = tmp_path / "docs.jsonl"
    path.write_text(OK_LINE + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 3
    assert message in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("2024-05-01", "2024-05-01"),
        ("20240501", "2024-05-01"),
        (" 2024-05-01 ", "2024-05-01"),
        ("2024-05-01T09:30:00Z", "2024-05-01T09:30:00Z"),
        ("2024-05-01T09:30", "2024-05-01T09:30:00Z"),
        ("2024-05-01T23:30:00-02:00", "2024-05-02T01:30:00Z"),
        ("2024-05-01T09:30:00.250+00:00", "2024-05-01T09:30:00Z"),
    ],
)
def test_published_dates_are_read_as_iso_8601(tmp_path, given, stored):
    path = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "published": given}])
    (record,) = load_jsonl(path)
    assert record.published == stored


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("id", "s\ud800", "'id'"),
        ("title", "T\udfff", "'title'"),
        ("summary", "\udc80 S", "'summary'"),
        ("topics", ["x", "y\ud800"], "'topics'[1]"),
        ("entities", ["E\udbff"], "'entities'[0]"),
        ("url", "https://example.org/\ud800", "'url'"),
        ("published", "2024-05-01\ud800", "'published'"),
        ("kind", "guide\ud800", "'kind'"),
    ],
)
def test_a_lone_surrogate_is_refused_in_any_field(tmp_path, field, value, named):
    # json.dumps writes the lone surrogate as a \\uXXXX escape, as an exporting program would.
    doc = {"id": "a", "title": "T", "summary": "S", "topics": ["x"], field: value}
    path = tmp_path / "docs.jsonl"
    path.write_text(OK_LINE + "\n" + json.dumps(doc) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 2 and str(path) in str(info.value)
    assert info.value.message.startswith(f"{named} holds a lone surrogate")
    str(info.value).encode("utf-8")  # the message itself can be printed


def test_surrogate_pairs_and_long_printable_ids_are_kept(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [
        {"id": "\U0001F600", "title": "Grin \U0001F600", "summary": "S", "topics": ["x"]},
        {"id": "é" * ID_MAX_LENGTH, "title": "T", "summary": "S", "topics": ["x"]},
    ])
    assert "\\ud83d" in path.read_text(encoding="utf-8")  # written as an escaped pair
    first, second = load_jsonl(path)
    assert first.id == "\U0001F600" and first.title == "Grin \U0001F600" and second.id == "é" * ID_MAX_LENGTH


def test_a_delete_line_with_a_lone_surrogate_is_refused(tmp_path):
    path = tmp_path / "changes.jsonl"
    path.write_text(OK_LINE + '\n{"id": "ok\\udc00", "delete": true}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"changes\.jsonl:2: 'id' holds a lone surrogate"):
        read_changes(path)


def _bad_byte_lines() -> bytes:
    """Return 300 lines whose 300th holds the byte 0xff as its 26th byte."""
    lines = [f'{{"id": "d{n}", "title": "T", "summary": "S", "topics": ["x"]}}'.encode() for n in range(1, 301)]
    lines[299] = lines[299].replace(b'"title": "T"', b'"title": "\xff"')
    assert lines[299].index(b"\xff") == 25
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("name", ["docs.jsonl", "docs.jsonl.gz"])
def test_invalid_utf8_names_its_line_and_byte(tmp_path, name):
    path = tmp_path / name
    data = _bad_byte_lines()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 300 and "invalid UTF-8 at byte 26 of the line" in info.value.message


def test_a_truncated_gzip_names_the_line_after_the_last_complete_one(tmp_path):
    lines = "".join(f'{{"id": "d{n}", "title": "T", "summary": "Summary {n}", "topics": ["x"]}}\n' for n in range(1, 5001))
    packed = gzip.compress(lines.encode())
    cut = packed[: len(packed) // 2]
    complete = zlib.decompressobj(wbits=31).decompress(cut).count(b"\n")  # every line the cut file still holds whole
    assert 100 < complete < 5000
    path = tmp_path / "docs.jsonl.gz"
    path.write_bytes(cut)
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == complete + 1
    assert info.value.message == f"the compressed file ends early, after line {complete}"


def test_corrupt_gzip_data_names_the_last_line_read(tmp_path):
    # A second gzip member whose deflate block has the reserved type 3: zlib fails after line 2.
    header = bytes.fromhex("1f8b0800000000000003")
    path = tmp_path / "docs.jsonl.gz"
    path.write_bytes(gzip.compress(f"{OK_LINE}\n{OK_LINE}\n".encode()) + header + b"\x07" + bytes(20))
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 3 and info.value.message.startswith("cannot be read after line 2: Error -3")


@pytest.mark.parametrize("name", ["bom.jsonl", "bom.jsonl.gz"])
def test_a_byte_order_mark_at_the_start_is_skipped(tmp_path, name):
    path = tmp_path / name
    data = "\ufeff" + OK_LINE + "\r\n" + OK_LINE.replace('"ok"', '"two"') + "\r\n"
    path.write_bytes(gzip.compress(data.encode()) if name.endswith(".gz") else data.encode())
    assert [r.id for r in load_jsonl(path)] == ["ok", "two"]


def test_lines_longer_than_a_read_block_and_a_last_line_without_newline(tmp_path):
    summary = "word " * 40_000  # 200 kB: a line that spans several blocks
    path = tmp_path / "docs.jsonl"
    docs = [{"id": f"d{n}", "title": "T", "summary": summary, "topics": ["x"]} for n in range(3)]
    path.write_text("\n".join(json.dumps(d) for d in docs), encoding="utf-8")
    records = list(load_jsonl(path))
    assert [r.id for r in records] == ["d0", "d1", "d2"] and all(r.summary == summary.strip() for r in records)


@pytest.mark.parametrize("limit", [100_000, 2_000])  # past several read blocks; inside one
def test_a_line_longer_than_any_record_is_refused_as_it_is_read(tmp_path, monkeypatch, limit):
    # One of 300 MB was read and parsed whole (1.25 GB, 4.6 s) before its title was found too long.
    import corpus.jsonl

    monkeypatch.setattr(corpus.jsonl, "LINE_MAX_BYTES", limit)
    fits = json.dumps({"id": "fits", "title": "T", "summary": "s" * (limit - 60), "topics": ["x"]})
    assert len(fits) <= limit
    path = tmp_path / "docs.jsonl"
    path.write_text(f"{OK_LINE}\n{fits}\n{'y' * (limit + 1)}\n{OK_LINE}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=rf"docs\.jsonl:3: the line is longer than") as error:
        list(load_jsonl(path))
    assert "more than any record can be" in str(error.value)


def test_the_line_limit_holds_the_largest_record(tmp_path):
    # A summary at its limit as written, every character escaped (\uXXXX), with a title at its own.
    from corpus.jsonl import ID_MAX_LENGTH, LINE_MAX_BYTES, RAW_SUMMARY_MAX_LENGTH

    assert 6 * (RAW_SUMMARY_MAX_LENGTH + TITLE_MAX_LENGTH + ID_MAX_LENGTH) + 10_000 < LINE_MAX_BYTES


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    root = tmp_path_factory.mktemp("small")
    good = root / "good.jsonl"
    good.write_text(OK_LINE + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["build", str(good), "--index-dir", str(root / "index"), "--no-semantic"])
    assert result.exit_code == 0, result.output
    return root / "index"


@pytest.mark.parametrize("command", ["build", "update"])
@pytest.mark.parametrize(
    ("second_line", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "invalid JSON: nested too deeply"),
        (b'{"id": "s\\ud800", "title": "T", "summary": "S", "topics": ["x"]}', "'id' holds a lone surrogate"),
        (b'{"id": "s", "title": "T\xff", "summary": "S", "topics": ["x"]}', "invalid UTF-8 at byte 24 of the line"),
        (b'{"id": "s\\u0000", "title": "T", "summary": "S", "topics": ["x"]}', "'id' holds the control character"),
        # The QA pass's record: accepted, it made the home page 32 MB and its facets' JSON 7 MB.
        (json.dumps({"id": "manytopics", "title": "Many topics", "summary": "x", "topics": [f"t{n}" for n in range(50_000)],
                     "entities": [f"e{n}" for n in range(50_000)]}).encode(), "'topics' lists 50,000 values; the limit is 100 a record"),
        # Python's words: "Exceeds the limit (4300 digits) for integer string conversion …; use sys.set_int_max_str_digits()"
        (b'{"id": "s", "n": ' + b"9" * 10_000 + b', "title": "T", "summary": "S", "topics": ["x"]}',
         "a number of 10,000 digits at column 18: at most 4,300 can be read (quote it to keep it as text)"),
    ],
)
def test_the_cli_stops_at_the_bad_line_and_keeps_the_index(small_index, tmp_path, command, second_line, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(OK_LINE.encode() + b"\n" + second_line + b"\n")
    published = store.current_id(small_index)
    options = ["--no-semantic"] if command == "build" else []
    result = CliRunner().invoke(main, [command, str(path), "--index-dir", str(small_index), *options])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.startswith(f"Error: {path}:2: ") and message in result.stderr and result.stderr.count("\n") == 1
    assert store.current_id(small_index) == published


def test_a_title_at_the_limit_is_kept_whole(tmp_path):
    title = "T" * TITLE_MAX_LENGTH
    path = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": f"<i>{title}</i>", "summary": "", "topics": ["x"]}])
    [record] = list(load_jsonl(path))
    assert record.title == title


def test_a_title_is_one_line_whatever_spaces_it_holds(tmp_path):
    # "Stargate\nMichigan\tsite" was kept so: a JSON title, a feed entry's title and the CLI's list
    # broke their lines inside it (a page's HTML folded it; nothing else did).
    lines = [
        {"id": "a", "title": "Stargate\nMichigan\tsite  opens\r\n", "summary": "Line one.\nLine two.", "topics": ["x"]},
        {"id": "b", "title": "How\u2028it\u2029evolved \u00a0 now", "summary": "Text.", "topics": ["x"], "kind": "guide"},
    ]
    event, section = load_jsonl(write_jsonl(tmp_path / "docs.jsonl", lines))
    assert event.title == "Stargate Michigan site opens"
    assert event.summary == "Line one.\nLine two."  # a summary's lines are its own
    assert section.heading == "How it evolved now" and section.anchor == "how-it-evolved-now"
    [changed] = read_changes(write_jsonl(tmp_path / "changes.jsonl", lines[:1])).upserts.values()
    assert changed.title == "Stargate Michigan site opens"


def _loaded_with_warnings(path):
    """Return the records of the JSONL file *path* and the warnings its load logged."""
    import logging

    said: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("corpus.jsonl")
    logger.addHandler(handler)
    try:
        return list(load_jsonl(path)), said
    finally:
        logger.removeHandler(handler)


def test_an_unknown_field_is_ignored_and_said_once_per_file_and_name(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [
        {"id": "a", "title": "Alpha", "summary": "", "topics": ["x"], "entites": ["openai"]},
        {"id": "b", "title": "Beta", "summary": "", "topics": ["x"], "entites": ["nvidia"], "publised": "2024"},
        {"id": "c", "title": "Gamma", "summary": "", "topics": ["x"], "entities": ["openai"]},
    ])
    records, said = _loaded_with_warnings(path)
    assert [r.id for r in records] == ["a", "b", "c"]  # the records still load
    assert said == [f"{path}:1: unknown field 'entites' ignored (a record's fields: entities, id, kind, published, summary, title, topics, url)",
                    f"{path}:2: unknown field 'publised' ignored (a record's fields: entities, id, kind, published, summary, title, topics, url)"]


def test_an_optional_field_in_another_case_is_said_to_be_what_it_was_meant_for(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "Alpha", "summary": "", "topics": ["x"], "URL": "https://a.example"}])
    records, said = _loaded_with_warnings(path)
    assert records[0].url is None and said == [
        f"{path}:1: unknown field 'URL' ignored: did you mean 'url'? (a record's fields: entities, id, kind, published, summary, title, topics, url)"]


def test_a_url_that_is_no_web_link_is_dropped_and_said_once_per_file_and_scheme(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [
        {"id": "a", "title": "Alpha", "summary": "", "topics": ["x"], "url": "javascript:alert(1)"},
        {"id": "b", "title": "Beta", "summary": "", "topics": ["x"], "url": "JavaScript:alert(2)"},
        {"id": "c", "title": "Gamma", "summary": "", "topics": ["x"], "url": "https://example.org/c"},
    ])
    records, said = _loaded_with_warnings(path)
    assert [r.url for r in records] == [None, None, "https://example.org/c"]  # dropped: it was, silently
    assert said == [f"{path}:1: 'url' with the scheme 'javascript' dropped (only http, https and relative links are kept)"]


def test_a_url_is_kept_as_a_client_can_link_it(tmp_path):
    # The JSON API gave a url as written (QA pass AA): a line break, control characters, a right-to-left
    # override that made "evil.example" read as "good.example.com"; and "//evil.example/x" or
    # "/\\evil.example/x", which browsers read as another host, passed as relative links.
    path = write_jsonl(tmp_path / "docs.jsonl", [
        {"id": "a", "title": "A", "summary": "", "topics": ["x"], "url": "https://evil.example/#\u202e/moc.elpmaxe.doog//:sptth"},
        {"id": "b", "title": "B", "summary": "", "topics": ["x"], "url": "https://example.org/a b\r\nc"},
        {"id": "c", "title": "C", "summary": "", "topics": ["x"], "url": "//evil.example/x"},
        {"id": "d", "title": "D", "summary": "", "topics": ["x"], "url": "/\\evil.example/x"},
        {"id": "e", "title": "E", "summary": "", "topics": ["x"], "url": "/events/a-local-page"},
    ])
    records, said = _loaded_with_warnings(path)
    assert [r.url for r in records] == ["https://evil.example/#%E2%80%AE/moc.elpmaxe.doog//:sptth",
                                        "https://example.org/a%20b%0D%0Ac", None, None, "/events/a-local-page"]
    assert said == [f"{path}:3: 'url' with no scheme but another host (//…) dropped (only http, https and relative links are kept)"]


def test_a_compressed_file_is_read_whatever_its_name(tmp_path):
    import gzip

    line = json.dumps({"id": "a", "title": "Alpha", "summary": "", "topics": ["x"]}) + "\n"
    misnamed = tmp_path / "export.jsonl"  # gzip's bytes under a plain name
    misnamed.write_bytes(gzip.compress(line.encode("utf-8")))
    assert [r.id for r in load_jsonl(misnamed)] == ["a"]


def test_a_delete_flag_that_is_not_a_boolean_is_named(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "A", "summary": "", "topics": ["x"], "delete": "true"}])
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 1 and "'delete' must be true or false" in str(info.value)


def test_a_delete_line_in_a_corpus_says_it_belongs_to_an_update(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "delete": True}])
    with pytest.raises(CorpusError) as info:
        list(load_jsonl(path))
    assert info.value.line == 1 and "belongs in a change file" in str(info.value)


def test_a_record_may_list_as_many_topics_and_organisations_as_the_limit(tmp_path):
    topics, entities = [f"t{n}" for n in range(FACET_VALUES_MAX_PER_RECORD)], [f"e{n}" for n in range(FACET_VALUES_MAX_PER_RECORD)]
    (record,) = load_jsonl(write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "T", "summary": "S", "topics": topics,
                                                                   "entities": entities}]))
    assert record.topics == tuple(topics) and record.entities == tuple(entities)
    # A value repeated is one value: 101 times "games" was refused as 101 values (a review).
    (again,) = load_jsonl(write_jsonl(tmp_path / "again.jsonl", [{"id": "b", "title": "T", "summary": "S",
                                                                  "topics": ["games"] * (FACET_VALUES_MAX_PER_RECORD + 1)}]))
    assert again.topics == ("games",)
    # So is a value written with invisible characters, which are dropped when it is read (a review).
    (hidden,) = load_jsonl(write_jsonl(tmp_path / "hidden.jsonl", [{"id": "c", "title": "T", "summary": "S",
                                                                    "topics": ["games" + "\u200b" * n for n in range(FACET_VALUES_MAX_PER_RECORD + 1)]}]))
    assert hidden.topics == ("games",)


def test_a_topic_and_an_organisation_as_long_as_a_filter_may_ask_load_and_can_be_asked_for(tmp_path):
    from search.params import MAX_FILTER_CHARS

    path = tmp_path / "docs.jsonl"
    line = {"id": "a", "title": "T", "summary": "S", "topics": ["t" * MAX_FILTER_CHARS], "entities": ["e" * MAX_FILTER_CHARS]}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (record,) = list(load_jsonl(path))
    assert record.topics == ("t" * MAX_FILTER_CHARS,) and record.entities == ("e" * MAX_FILTER_CHARS,)


def test_topics_and_organisations_are_stored_composed_without_invisible_characters(tmp_path):
    # As a request's filter is read: "cafe\u0301" from a decomposed source was a topic no filter could name.
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "a", "title": "A", "summary": "", "topics": ["cafe\u0301", "ro\u200bbots"],
                                                "entities": ["Acme\u00a0  Corp"]}])
    record = next(load_jsonl(path))
    assert record.topics == ("caf\u00e9", "robots") and record.entities == ("Acme Corp",)
    with pytest.raises(CorpusError, match="non-empty strings"):
        list(load_jsonl(write_jsonl(tmp_path / "d.jsonl", [{"id": "a", "title": "A", "summary": "", "topics": ["\u200b"]}])))


def test_a_guide_record_keeps_its_date_and_source_in_the_index(tmp_path):
    from index.build import build
    from web import create_app

    path = write_jsonl(tmp_path / "g.jsonl", [
        {"id": "old-guide", "kind": "guide", "title": "Wombat care", "summary": "Feed the wombat.", "topics": ["t"],
         "published": "2020-05-01", "url": "https://example.org/wombat"},
        {"id": "new-event", "title": "Wombat news", "summary": "A wombat was seen.", "topics": ["t"], "published": "2026-01-01"},
    ])
    build([path], root=tmp_path / "ix", semantic=False)
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    newest = client.get("/api/search?q=wombat&sort=newest").get_json()["hits"]
    assert [h["id"] for h in newest] == ["new-event", "old-guide"] and newest[1]["published"].startswith("2020-05-01")
    assert client.get("/api/search?q=wombat&until=2021-01-01").get_json()["total"] == 1
    assert client.get("/api/documents/old-guide").get_json()["document"]["source_url"] == "https://example.org/wombat"


def test_markup_in_topics_and_organisations_is_made_plain_text_as_titles_are(tmp_path):
    # "AT&amp;T" was a facet of its own, "<b>Acme</b>" a label with its tags; a value of nothing but
    # markup is no value.
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "a", "title": "A", "summary": "", "topics": ["<b>robots</b>"],
                                                "entities": ["AT&amp;T", "Acme\u202e Corp"]}])
    record = next(load_jsonl(path))
    assert record.topics == ("robots",) and record.entities == ("AT&T", "Acme Corp")
    with pytest.raises(CorpusError, match="once markup is removed") as info:
        list(load_jsonl(write_jsonl(tmp_path / "d.jsonl", [{"id": "a", "title": "A", "summary": "", "topics": ["<script></script>"]}])))
    assert info.value.line == 1


def test_an_id_with_a_bidirectional_override_is_refused_with_its_line(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [{"id": "ok", "title": "A", "summary": "", "topics": ["t"]},
                                              {"id": "evil\u202etxt.exe", "title": "B", "summary": "", "topics": ["t"]}])
    with pytest.raises(CorpusError, match="control character") as info:
        list(load_jsonl(path))
    assert info.value.line == 2


def test_null_optional_fields_are_left_out(tmp_path):
    # "entities": null and "kind": null were refused ('not None', QA pass Y), while a null url or
    # published was read as left out: every optional field now reads null so.
    path = tmp_path / "nulls.jsonl"
    path.write_text(json.dumps({"id": "a", "title": "T", "summary": "S", "topics": ["x"], "kind": None,
                                "entities": None, "url": None, "published": None}) + "\n", encoding="utf-8")
    (record,) = load_jsonl(path)
    assert (record.kind, record.entities, record.published) == ("event", (), None)


@pytest.mark.parametrize(("encoding", "said"), [
    ("utf-16-le", "the file is in UTF-16, not UTF-8 (it starts with UTF-16's byte-order mark, FF FE): save it as UTF-8"),
    ("utf-16-be", "the file is in UTF-16, not UTF-8 (it starts with UTF-16's byte-order mark, FE FF): save it as UTF-8"),
    ("utf-32-le", "the file is in UTF-32, not UTF-8 (it starts with UTF-32's byte-order mark, FF FE 00 00): save it as UTF-8"),
])
def test_a_file_in_utf_16_is_said_to_be_so(tmp_path, encoding, said):
    # A file saved as "Unicode" (UTF-16, with its byte-order mark) was "invalid UTF-8 at byte 1 of the line (invalid start byte)".
    path = tmp_path / "docs.jsonl"
    path.write_bytes(("\ufeff" + OK_LINE + "\n").encode(encoding))
    result = CliRunner().invoke(main, ["build", str(path), "--no-semantic", "--index-dir", str(tmp_path / "ix")])
    assert result.exit_code == 1 and result.output == f"Error: {path}:1: {said}\n"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_file_in_utf_16_without_its_byte_order_mark_is_said_to_look_so(tmp_path, encoding):
    # QA: every other byte NUL, it said "invalid JSON: Expecting property name … at column 2".
    path = tmp_path / "docs.jsonl"
    path.write_bytes((OK_LINE + "\n" + OK_LINE + "\n").encode(encoding))
    result = CliRunner().invoke(main, ["build", str(path), "--no-semantic", "--index-dir", str(tmp_path / "ix")])
    assert result.exit_code == 1 and result.output.startswith(f"Error: {path}:1: "), result.output
    assert "looks like UTF-16 (without a byte-order mark), not UTF-8: save it as UTF-8" in result.output
