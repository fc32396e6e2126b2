"""The `topichub` command line: clear help, one-line errors with non-zero exit codes, no tracebacks."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import termios
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus.sources import DEFAULT_DIR

from index import store
from search.params import SearchParams
from search.service import SearchService
from tests.attack_support import open_paths
from tests.conftest import DATA, REPO, TOPICHUB, free_port, write_jsonl
from tests.waiting import wait_until
from web.cli import main

NEW = {"id": "quokka-cluster", "title": "Quokka cluster goes live", "summary": "A marsupial GPU cluster.",
       "topics": ["training-infrastructure"]}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOPICHUB, *args], capture_output=True, text=True, timeout=120, cwd=REPO)


@pytest.fixture()
def built(tmp_path) -> Path:
    result = CliRunner().invoke(main, ["build", "--index-dir", str(tmp_path / "index")])
    assert result.exit_code == 0, result.output
    return tmp_path / "index"


@pytest.mark.parametrize("command", ["build", "update", "serve", "search", "stats", "snapshots", "publish", "prune", "rollback"])
def test_every_command_has_help(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0 and "Usage: main " + command in result.output and "--index-dir" in result.output
    assert command in CliRunner().invoke(main, ["--help"]).output
    # Within 80 columns: a paragraph click keeps as written (\b) is not wrapped, and update's ran to
    # 104 (a new operator's pass).
    assert max(len(line) for line in result.output.splitlines()) <= 80, result.output


def test_version_names_the_release_and_the_index_schema():
    from importlib.metadata import version

    from index.schema import SCHEMA_VERSION

    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"topichub {version('topichub-search')} (index schema {SCHEMA_VERSION})\n"


def test_build_reports_throughput(built):
    result = CliRunner().invoke(main, ["build", "--index-dir", str(built)])
    assert result.exit_code == 0
    assert "built 57 documents in" in result.output and "documents/s" in result.output
    assert f"published snapshot {store.current_id(built)}" in result.output


def test_every_warning_of_a_build_or_update_reads_warning_and_errors_keep_their_form(tmp_path):
    # A JSONL file's repeated id, unknown field and dropped url printed as bare "FILE:LINE: …" lines,
    # among others that said "warning:" (a title twice on a topic page, records without a date): a
    # QA pass, building the Debian corpus.  Each says "warning:" now, once, and an error "Error:".
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "robotics.topic.txt").write_text(
        "Robotics\nrobotics·2 events·last 2h agoRobots.\nRelated entities\nRelated topics (0)\nGuides (0)\n"
        "Recent events (2)\nArm Ships\nThe first arm shipped.\nARM SHIPS\nA second arm shipped.\n", encoding="utf-8")
    docs = write_jsonl(folder / "docs.jsonl", [
        {"id": "a", "title": "Alpha", "summary": "First.", "topics": ["robotics"], "published": "2024-01-01"},
        {"id": "a", "title": "Alpha", "summary": "Again.", "topics": ["robotics"], "published": "2024-01-01", "colour": "red"},
        {"id": "b", "title": "Beta", "summary": "Second.", "topics": ["robotics"], "url": "javascript:alert(1)"},
    ])
    built = run("build", folder, "--no-semantic", "--index-dir", tmp_path / "ix")
    assert built.returncode == 0, built.stderr
    lines = built.stderr.splitlines()
    for said in (f"{docs}:2: id 'a' repeats line 1; the later line replaces it",
                 f"{docs}:2: unknown field 'colour' ignored",
                 f"{docs}:3: 'url' with the scheme 'javascript' dropped",
                 f"{folder / 'robotics.topic.txt'}:9: event 'ARM SHIPS' differs in case only from the title of line 7",
                 "3 records have no date: each is dated to this build"):
        assert [line for line in lines if said in line] == [line for line in lines if line.startswith(f"warning: {said}")], said
        assert any(said in line for line in lines), (said, built.stderr)
    assert all(line.startswith("warning: ") and not line.startswith("warning: warning:") for line in lines), built.stderr

    changes = write_jsonl(tmp_path / "changes.jsonl", [
        {"id": "c", "title": "Gamma", "summary": "Third.", "topics": ["robotic"], "published": "2024-01-02", "URL": "https://example.org/c"}])
    updated = run("update", changes, "--index-dir", tmp_path / "ix")
    assert updated.returncode == 0, updated.stderr
    assert updated.stderr.splitlines() == [
        f"warning: {changes}:1: unknown field 'URL' ignored: did you mean 'url'? (a record's fields: entities, id, kind, "
        "published, summary, title, topics, url)",
        f"warning: {changes}:1: topic 'robotic' is no topic of the index: the update adds it, a topic of its own "
        "(did you mean 'robotics'?)"]

    write_jsonl(docs, [{"id": "a", "title": "Alpha", "summary": "First.", "topics": ["robotics"], "kind": "news"}])
    refused = run("build", folder, "--no-semantic", "--index-dir", tmp_path / "ix")
    assert refused.returncode == 1 and refused.stderr.splitlines()[-1].startswith(f"Error: {docs}:1: "), refused.stderr


def test_build_shows_a_progress_bar_on_a_terminal_and_none_in_a_log(tmp_path):
    docs = [{"id": f"d{i}", "title": f"Document {i}", "summary": "words", "topics": ["t"]} for i in range(1200)]
    corpus = write_jsonl(tmp_path / "many.jsonl", docs)
    primary, secondary = pty.openpty()  # stderr a terminal, as an operator's shell has it
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns wide
    try:
        shown = subprocess.run([TOPICHUB, "build", str(corpus), "--index-dir", str(tmp_path / "index")],
                               stdout=subprocess.PIPE, stderr=secondary, text=True, timeout=120, cwd=REPO)
        os.close(secondary)
        on_terminal = _read_all(primary)
    finally:
        os.close(primary)
    assert shown.returncode == 0, on_terminal
    assert "1200/1200" in on_terminal and "doc/s" in on_terminal  # tqdm's bar
    assert "built 1,200 documents" in shown.stdout
    # Into a log (a file, a pipe, journald): no bar, whose carriage returns made one long line of it.
    logged = run("build", str(corpus), "--index-dir", str(tmp_path / "index"))
    assert logged.returncode == 0, logged.stderr
    assert "\r" not in logged.stderr and "doc/s" not in logged.stderr
    assert "built 1,200 documents" in logged.stdout


def _read_all(fd: int) -> str:
    """Return what was written to a pseudo-terminal whose other end is closed."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the writer's end is closed and all is read
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_update_upserts_and_deletes(built, tmp_path):
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW, {"id": "expanding-stargate-to-michigan", "delete": True}])
    result = CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(built)])
    assert result.exit_code == 0, result.output
    assert "1 added, 0 replaced, 1 deleted" in result.output and "57 documents" in result.output
    found = CliRunner().invoke(main, ["search", "quokka", "--json", "--index-dir", str(built)])
    assert [hit["id"] for hit in json.loads(found.output)["hits"]] == ["quokka-cluster"]
    gone = CliRunner().invoke(main, ["search", "michigan", "stargate", "--json", "--index-dir", str(built)])
    assert "expanding-stargate-to-michigan" not in {h["id"] for h in json.loads(gone.output)["hits"]}


UNDONE = ("this build from the sources undid them: make the same changes in the sources, or build with the "
          "change files among them (their upserts); `topichub rollback` serves the updated snapshot again meanwhile")


def test_a_build_that_undoes_updates_says_which_and_one_that_undoes_none_says_nothing(built, tmp_path):
    # A build from the sources replaced what `topichub update` had changed without a word (docs/topics.md
    # said so, but an editor who forgot an update lost it): it says so now, and still builds.
    build = ["build", "--index-dir", str(built)]
    assert "changed by `topichub update`" not in CliRunner().invoke(main, build).stderr  # build, build: nothing undone
    edit = {"id": "expanding-stargate-to-michigan", "title": "Stargate Michigan", "summary": "Edited.",
            "topics": ["training-infrastructure"]}
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW, edit, {"id": "introducing-stargate-uk", "delete": True}])
    assert CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(built)]).exit_code == 0
    again = write_jsonl(tmp_path / "again.jsonl", [edit])  # a second update, its id named once
    assert CliRunner().invoke(main, ["update", str(again), "--index-dir", str(built)]).exit_code == 0

    result = CliRunner().invoke(main, build)
    assert result.exit_code == 0 and "published snapshot" in result.output, result.output
    assert result.stderr.splitlines()[0] == (
        "warning: the index held 3 documents changed by `topichub update` since its build (ids 'quokka-cluster', "
        f"'expanding-stargate-to-michigan', 'introducing-stargate-uk'); {UNDONE}")
    found = CliRunner().invoke(main, ["search", "quokka", "--json", "--index-dir", str(built)])
    assert json.loads(found.output)["total"] == 0  # replaced, as said
    assert "changed by `topichub update`" not in CliRunner().invoke(main, build).stderr  # said once: that build's

    # A build whose sources make the update's changes too (its change file among them) undoes only the delete.
    assert CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(built)]).exit_code == 0
    upserts = write_jsonl(tmp_path / "upserts.jsonl", [NEW, edit])
    result = CliRunner().invoke(main, ["build", str(DEFAULT_DIR), str(upserts), "--index-dir", str(built)])
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if "topichub update" in line] == [
        "warning: the index held 1 document changed by `topichub update` since its build (id 'introducing-stargate-uk'); "
        f"{UNDONE.replace('them:', 'it:')}"]


def test_a_build_over_updates_that_listed_no_ids_counts_the_updates(built, tmp_path, monkeypatch):
    # An index updated by code before updates listed their ids: said by the updates' count and time.
    import index.update

    monkeypatch.setattr(index.update, "write_updated", lambda snapshot, ids: None)
    for number in range(2):
        changes = write_jsonl(tmp_path / f"c{number}.jsonl", [{**NEW, "summary": f"Edit {number}."}])
        assert CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(built)]).exit_code == 0
    latest = store.read_meta(store.current_path(built))["updates"][-1]["at"]
    result = CliRunner().invoke(main, ["build", "--index-dir", str(built)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        f"warning: the index held the changes of 2 updates by `topichub update` since its build (the latest at {latest}); "
        f"this build from the sources undid them unless the sources make them too: {UNDONE.split(': ', 1)[1]}")


def test_search_prints_readable_results(built):
    result = CliRunner().invoke(main, ["search", "stargate", "--per-page", "3", "--index-dir", str(built)])
    assert result.exit_code == 0
    total = json.loads(CliRunner().invoke(main, ["search", "stargate", "--json", "--index-dir", str(built)]).output)["total"]
    assert total > 3 and result.output.startswith(f"{total} results in") and "  1. [event]" in result.output
    assert "<mark>" not in result.output


def test_an_empty_search_prints_the_ways_out_the_page_offers(built):
    def search(*args: str):
        return CliRunner().invoke(main, ["search", *args, "--index-dir", str(built)])

    stargate = json.loads(search("stargate", "--json").output)["total"]
    excluded = search("stargate -openai")  # it printed "0 results" and nothing else
    assert excluded.output.startswith("0 results") and "Try instead:" in excluded.output
    assert f"without the excluded words: 'stargate': {stargate} results" in excluded.output
    dated = search("stargate", "--month", "2019-01")
    assert f"without --month 2019-01: {stargate} results" in dated.output
    assert "Try instead" not in search("stargate").output
    everything = json.loads(search("--json").output)["total"]
    assert f"without the query: everything, newest first: {everything} results" in search("*").output


def test_search_says_when_a_prefix_was_too_short_or_words_were_left_out(built):
    # The page and the JSON said both; the CLI printed only "0 results" (QA pass AB).
    def search(q: str, *options: str) -> str:
        return CliRunner().invoke(main, ["search", "--index-dir", str(built), *options, "--", q]).output

    assert "s* was searched as its word" in search("s*")
    assert "title:, ^2: other search engines' syntax" in search("title:stargate^2")  # (a browser QA pass)
    long = " ".join(f"word{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40))
    dropped = json.loads(search(long, "--json"))["dropped_words"]
    assert dropped > 0 and f"{dropped} others were left out" in search(long)
    assert "left out" not in search("stargate") and "prefix" not in search("stargate")


def test_search_says_what_it_corrected_and_which_hit_a_name_found(built):
    corrected = CliRunner().invoke(main, ["search", "kuberentes", "--index-dir", str(built)])
    assert corrected.exit_code == 0 and "Showing results for: kubernetes" in corrected.output
    excluded = CliRunner().invoke(main, ["search", "--index-dir", str(built), "--", "training", "-nvdia"])
    assert excluded.exit_code == 0
    assert "No document has nvdia: excluding it left nothing out. Did you mean: training -NVIDIA" in excluded.output
    two = CliRunner().invoke(main, ["search", "--index-dir", str(built), "--", "training", "-nvdia", "-qqzzx"])
    assert "No document has nvdia or qqzzx: excluding them left nothing out." in two.output
    named = CliRunner().invoke(main, ["search", "introducing", "stargate", "uk", "--index-dir", str(built)])
    first = named.output.split("\n  1. ", 1)[1].split("\n", 1)[0]
    assert "Introducing Stargate UK" in first and first.endswith("(exact name)")
    assert "(exact name)" not in named.output.split("\n  2. ", 1)[1]


def test_search_warns_of_its_own_options_typed_after_the_double_dash_and_searches_them(built, tmp_path):
    # A new operator's pass: `search -- python -doc --index-dir IX --per-page 2` (the help offers -- for
    # a leading "-") searched the default index, the options being query words, and said nothing of it.
    elsewhere = ["--index-dir", str(tmp_path / "none")]  # where it looks, unbuilt: the options after -- are not read
    result = CliRunner().invoke(main, ["search", *elsewhere, "--", "stargate", "--index-dir", str(built), "--per-page=2"])
    assert result.stderr.splitlines()[0] == (
        "warning: --index-dir and --per-page after -- are searched as words; put options before --"), result.stderr
    assert "no index has been built" in result.stderr
    one = CliRunner().invoke(main, ["search", "--index-dir", str(built), "--", "stargate", "-h"])
    assert one.exit_code == 0 and one.stderr == "warning: -h after -- is searched as a word; put options before --\n"
    assert "results" in one.stdout  # still searched
    plain = CliRunner().invoke(main, ["search", "--index-dir", str(built), "--", "python", "-doc"])
    assert plain.exit_code == 0 and plain.stderr == ""
    assert "Options go before the --" in CliRunner().invoke(main, ["search", "--help"]).output


def test_search_shows_the_guide_card_a_page_past_the_end_and_what_is_wrong_with_the_query(built):
    def search(*args: str):
        return CliRunner().invoke(main, ["search", *args, "--index-dir", str(built)])

    # The answer card is one of the results (the total counts it): it is printed first, as the page shows it.
    jalapeno = search("Jalapeño")
    data = json.loads(search("Jalapeño", "--json").output)
    assert data["answer"] is not None and jalapeno.output.startswith(f"{data['total']} results")
    assert f"Answer from the guide: {data['answer']['title']}" in jalapeno.output
    assert jalapeno.output.index("Answer from the guide") < jalapeno.output.index("  2. [") and "  1. [" not in jalapeno.output
    past = search("gpu", "--page", "5")
    pages = json.loads(search("gpu", "--json").output)["total"] // 10 + 1
    assert past.exit_code == 0 and f"There is no page 5: the results end on page {pages}" in past.output
    assert "page 5 of" not in past.output and f"({pages} page" in past.output.splitlines()[0]  # not "page 5 of 2"
    assert search("kubernetes").output.startswith("1 result in")
    too_long = search("a" * 5000)
    assert too_long.exit_code == 2 and "QUERY: the query may be at most 4096 characters" in too_long.output
    guides = search("stargate", "--kind", "GUIDE", "--json")
    assert guides.exit_code == 0 and json.loads(guides.output)["filters"]["kind"] == ["guide"]


def test_stats_prints_the_snapshot_facts(built):
    result = CliRunner().invoke(main, ["stats", "--index-dir", str(built)])
    facts = json.loads(result.output)
    assert result.exit_code == 0 and facts["doc_count"] == 57 and facts["size_bytes"] > 0


def test_stats_prints_the_single_facts_before_the_long_lists(built):
    # In name order, the seed index's updated_at came at line 1,824 of 1,836 and size_bytes last, past
    # 1,600 lines of synonyms and organisations; schema_version and snapshot after its organisations.
    assert CliRunner().invoke(main, ["update", str(write_jsonl(built.parent / "c.jsonl", [NEW])),
                                     "--index-dir", str(built)]).exit_code == 0
    result = CliRunner().invoke(main, ["stats", "--index-dir", str(built)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    first_list = next(number for number, line in enumerate(lines[1:], 1) if line.endswith(("[", "{")))
    head = [line.split(":")[0].strip().strip('"') for line in lines[1:first_list]]
    assert {"doc_count", "built_at", "updated_at", "schema_version", "language", "snapshot", "size_bytes"} <= set(head)
    assert first_list < 20 and set(json.loads(result.output)) == {*store.read_meta(store.current_path(built)), "size_bytes"}


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["search", "x", "--per-page", "99"], 2, "--per-page: 'per_page' must be between 1 and 50"),
        (["search", "x", "--index-dir", "{empty}"], 1, "no index has been built"),
        (["stats", "--index-dir", "{empty}"], 1, "no index has been built"),
        (["update", "{bad}", "--index-dir", "{empty}"], 1, "bad.jsonl:2: invalid JSON"),
        (["update", "{good}", "--index-dir", "{empty}"], 1, "no index has been built"),
        (["update", "missing.jsonl"], 2, "does not exist"),
        (["build", "{bad}", "--index-dir", "{empty}"], 1, "bad.jsonl:2: invalid JSON"),
        (["build", "--procs", "0"], 2, "--procs"),
        (["nonsense"], 2, "No such command"),
    ],
)
def test_errors_are_one_line_without_a_traceback(tmp_path, args, code, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(NEW) + "\n{oops\n")
    good = write_jsonl(tmp_path / "good.jsonl", [NEW])
    names = {"{empty}": str(tmp_path / "empty"), "{bad}": str(bad), "{good}": str(good)}
    result = run(*(names.get(a, a) for a in args))
    assert result.returncode == code
    assert message in result.stderr and "Traceback" not in result.stderr + result.stdout


def test_a_second_writer_gets_a_clear_message_or_waits(built, tmp_path):
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW])
    with store.write_lock(built):
        busy = run("update", str(changes), "--index-dir", str(built))
        assert busy.returncode == 1 and "another writer (build, update, rollback, prune or publish) is writing" in busy.stderr
        assert "Traceback" not in busy.stderr and "LockError" not in busy.stderr
        busy_build = run("build", "--index-dir", str(built))
        assert busy_build.returncode == 1 and "another writer (build, update, rollback, prune or publish) is writing" in busy_build.stderr

    # A writer that agrees to wait: the lock is let go only once the update is seen waiting on it
    # (holding the lock file open), and the update then goes through.
    waiting = None
    try:
        with store.write_lock(built):
            waiting = subprocess.Popen([TOPICHUB, "update", str(changes), "--index-dir", str(built), "--wait", "60"],
                                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            lock = str((built / ".write.lock").resolve())
            wait_until(lambda: lock in open_paths(waiting.pid), "the update to wait on the lock", alive=waiting)
            assert waiting.poll() is None  # still waiting: the lock is ours
        out, err = waiting.communicate(timeout=120)
    finally:  # a failed check above leaves no update running on after the test
        if waiting is not None and waiting.poll() is None:
            waiting.kill()
            waiting.communicate()
    assert waiting.returncode == 0 and "1 added" in out, err


def test_serve_rebuilds_an_index_of_another_schema_version(built, monkeypatch):
    import index.schema

    execs: list[list[str]] = []
    monkeypatch.setenv("TOPICHUB_INDEX_DIR", str(built))  # serve sets it for gunicorn: restore it after
    monkeypatch.setattr(os, "execv", lambda path, args: execs.append(args))
    old = store.current_id(built)
    port = str(free_port())
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(built), "--port", port])
    assert result.exit_code == 0 and store.current_id(built) == old  # same version, sources unchanged
    monkeypatch.setattr(index.schema, "SCHEMA_VERSION", index.schema.SCHEMA_VERSION + 1)
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(built), "--port", port])
    assert result.exit_code == 0 and "schema version" in result.output
    assert store.current_id(built) != old
    assert execs[-1][-1] == "web:create_app()" and f"127.0.0.1:{port}" in execs[-1]


def test_serve_refuses_gunicorn_cmd_args_and_takes_its_workers_from_web_concurrency(built, monkeypatch):
    # GUNICORN_CMD_ARGS was passed to gunicorn without a word (plain-text access lines in the JSON log, a
    # timeout past the TOPICHUB_* checks), and WEB_CONCURRENCY ignored for --workers' 2 (a QA pass).
    execs: list[list[str]] = []
    monkeypatch.setenv("TOPICHUB_INDEX_DIR", str(built))  # serve sets it for gunicorn: restore it after
    monkeypatch.setattr(os, "execv", lambda path, args: execs.append(args))
    serve = ["serve", "--index-dir", str(built), "--port", str(free_port())]
    result = CliRunner().invoke(main, serve, env={"GUNICORN_CMD_ARGS": "--access-logfile - --timeout 300"})
    assert result.exit_code == 2 and result.output == (
        "Error: GUNICORN_CMD_ARGS='--access-logfile - --timeout 300' is not read by topichub serve, whose gunicorn "
        "settings are web/gunicorn_conf.py's and the TOPICHUB_* settings (docs/operations.md): unset it (or run "
        "gunicorn itself, --config python:web.gunicorn_conf)\n"), result.output
    assert execs == []
    result = CliRunner().invoke(main, serve, env={"WEB_CONCURRENCY": "many"})
    assert result.exit_code == 2 and result.output.startswith("Error: WEB_CONCURRENCY='many' ") and (
        "(WEB_CONCURRENCY sets --workers: correct it or unset it)" in result.output), result.output
    for env, workers in (({"WEB_CONCURRENCY": "3", "GUNICORN_CMD_ARGS": " "}, "3"), ({"WEB_CONCURRENCY": "3"}, "3"),
                         ({"WEB_CONCURRENCY": ""}, "2")):
        result = CliRunner().invoke(main, serve, env=env)
        assert result.exit_code == 0, result.output
        assert execs[-1][execs[-1].index("--workers") + 1] == workers, env
    result = CliRunner().invoke(main, [*serve, "--workers", "1"], env={"WEB_CONCURRENCY": "3"})
    assert result.exit_code == 0 and execs[-1][execs[-1].index("--workers") + 1] == "1"  # the option wins


def test_serve_says_in_one_line_that_gunicorn_could_not_be_started(built, monkeypatch):
    # A PermissionError from os.execv was a Python traceback (a QA pass).
    import sys

    def refused(path, args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setenv("TOPICHUB_INDEX_DIR", str(built))  # serve sets it for gunicorn: restore it after
    monkeypatch.setattr(os, "execv", refused)
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(built), "--port", str(free_port())])
    assert result.exit_code == 1 and not isinstance(result.exception, PermissionError), result.exception
    assert result.stderr.splitlines()[-1] == (
        f"Error: cannot start gunicorn ({sys.executable} -m gunicorn): Permission denied; nothing is served"), result.stderr


def test_serve_keeps_its_stdout_for_the_json_access_log_when_it_builds_first(tmp_path, monkeypatch):
    # serve's stdout is one JSON object a line (`topichub serve | jq`): the first run's build summary
    # ("built 57 documents …") was written there, and jq stopped at it.
    monkeypatch.setenv("TOPICHUB_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setattr(os, "execv", lambda path, args: None)
    source = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "Alpha", "summary": "First.", "topics": ["t"]}])
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(tmp_path / "index"), "--port", str(free_port())],
                                env={"TOPICHUB_CORPUS": str(source), "TOPICHUB_SEMANTIC": "0"})
    assert result.exit_code == 0 and store.current_id(tmp_path / "index") is not None
    assert result.stdout == "" and "built 1 document in" in result.stderr


def test_serve_keeps_serving_the_published_index_when_a_changed_source_no_longer_builds(tmp_path, monkeypatch):
    execs: list[list[str]] = []
    monkeypatch.setenv("TOPICHUB_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setattr(os, "execv", lambda path, args: execs.append(args))
    source = write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "Alpha", "summary": "First.", "topics": ["t"]}])
    assert CliRunner().invoke(main, ["build", str(source), "--index-dir", str(tmp_path / "index")]).exit_code == 0
    old = store.current_id(tmp_path / "index")
    with source.open("a", encoding="utf-8") as handle:
        handle.write("{broken\n")  # a bad line dropped into a source: the next start must not go down
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(tmp_path / "index"), "--port", str(free_port())])
    assert result.exit_code == 0 and execs and store.current_id(tmp_path / "index") == old
    assert "the rebuild failed" in result.output and "docs.jsonl:2" in result.output


def test_serve_does_not_rebuild_over_a_rollback_from_changed_sources(tmp_path, monkeypatch):
    # A QA pass: restarted after a rollback, serve rebuilt from the changed sources and published
    # again the build that had been rolled back from.
    from web import create_app

    execs: list[list[str]] = []
    index_dir = tmp_path / "index"
    monkeypatch.setenv("TOPICHUB_INDEX_DIR", str(index_dir))
    monkeypatch.setattr(os, "execv", lambda path, args: execs.append(args))
    monkeypatch.setenv("TOPICHUB_SEMANTIC", "0")
    doc = {"id": "a", "title": "Alpha", "summary": "First.", "topics": ["t"]}
    source = write_jsonl(tmp_path / "docs.jsonl", [doc])
    assert CliRunner().invoke(main, ["build", str(source), "--index-dir", str(index_dir)]).exit_code == 0
    good = store.current_id(index_dir)
    write_jsonl(source, [doc, {"id": "b", "title": "Bad", "summary": "Wrong.", "topics": ["t"]}])
    assert CliRunner().invoke(main, ["build", str(source), "--index-dir", str(index_dir)]).exit_code == 0
    bad = store.current_id(index_dir)
    assert bad != good
    assert CliRunner().invoke(main, ["rollback", "--index-dir", str(index_dir)]).exit_code == 0
    assert store.current_id(index_dir) == good

    result = CliRunner().invoke(main, ["serve", "--index-dir", str(index_dir), "--port", str(free_port())])
    assert result.exit_code == 0 and execs, result.output
    assert store.current_id(index_dir) == good and store.snapshot_ids(index_dir) == [good, bad]  # nothing built
    assert "rebuilding" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and f"snapshot {good} was rolled back to" in warnings[0], result.stderr
    assert f"`topichub build SOURCES --index-dir {index_dir}`" in warnings[0]
    health = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client().get("/healthz").get_json()
    assert health["snapshot"] == good and health["sources_changed"] is True  # still true: they did change
    # Nor once a prune deleted the snapshot rolled back from (withdrawn ones go first).
    assert CliRunner().invoke(main, ["prune", "--keep", "0", "--index-dir", str(index_dir)]).exit_code == 0
    assert store.snapshot_ids(index_dir) == [good]
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(index_dir), "--port", str(free_port())])
    assert result.exit_code == 0 and store.snapshot_ids(index_dir) == [good], result.stderr
    assert f"snapshot {good} was rolled back to (from {bad})" in result.stderr

    # An explicit build publishes as usual, and serve rebuilds from changed sources again after it.
    assert CliRunner().invoke(main, ["build", str(source), "--index-dir", str(index_dir)]).exit_code == 0
    rebuilt = store.current_id(index_dir)
    assert rebuilt not in (good, bad)
    write_jsonl(source, [doc])
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(index_dir), "--port", str(free_port())])
    assert result.exit_code == 0 and "the sources changed since the index was built: rebuilding it" in result.stderr
    assert store.current_id(index_dir) not in (good, bad, rebuilt)


def test_serve_says_in_one_line_when_its_port_is_taken(built, monkeypatch):
    import socket

    import index.schema

    monkeypatch.setattr(os, "execv", lambda path, args: pytest.fail("gunicorn started on a taken port"))
    monkeypatch.setattr(index.schema, "SCHEMA_VERSION", index.schema.SCHEMA_VERSION + 1)  # a rebuild is due ...
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--index-dir", str(built), "--port", str(port)])
    assert result.exit_code == 1 and f"Error: cannot listen on 127.0.0.1:{port}" in result.output
    assert "serving on" not in result.output and "rebuilding" not in result.output  # ... and not begun


def test_serve_builds_a_missing_index_then_serves_it(tmp_path):
    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([TOPICHUB, "serve", "--index-dir", str(tmp_path / "index"), "--port", str(port),
                             "--workers", "1"], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        answers: list[dict] = []

        def answered() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                    answers.append(json.loads(response.read()))
            except OSError:
                return False
            return True

        try:
            wait_until(answered, "the new index to be served", alive=proc)
        except AssertionError as failure:
            raise AssertionError((tmp_path / "serve.log").read_text()) from failure
        assert answers[-1]["status"] == "ok" and answers[-1]["doc_count"] == 57
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:  # not stopped: killed, not left serving after the test
            proc.kill()
            proc.wait()
        log.close()
    assert "building it from" in (tmp_path / "serve.log").read_text()


def test_a_build_takes_the_folder_before_reading_its_sources(tmp_path):
    # Of two builds into one folder, the first started goes first: the second is refused before it
    # spends its time reading a corpus (it used to read it all, then win or lose the race).
    index_dir = tmp_path / "index"
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "x"}])  # reading it would fail: no title
    with store.write_lock(index_dir):  # another writer holds the folder
        result = CliRunner().invoke(main, ["build", str(bad), "--index-dir", str(index_dir)])
    assert result.exit_code == 1 and "another writer (build, update, rollback, prune or publish) is writing" in result.output
    assert "bad.jsonl" not in result.output
    result = CliRunner().invoke(main, ["build", str(bad), "--index-dir", str(index_dir)])
    assert result.exit_code == 1 and "bad.jsonl:1" in result.output  # the folder free: the source is read


def test_search_takes_the_apis_dates_months_and_explain(built):
    explained = CliRunner().invoke(main, ["search", "trainium", "deal", "--explain", "--per-page", "1", "--index-dir", str(built)])
    as_json = CliRunner().invoke(main, ["search", "trainium", "deal", "--explain", "--per-page", "1", "--json", "--index-dir", str(built)])
    hit = json.loads(as_json.output)["hits"][0]
    assert hit["explanation"]["score"] == pytest.approx(hit["score"])
    assert f"score {hit['score']:.2f} = " in explained.output and "(body" in explained.output
    later = CliRunner().invoke(main, ["search", "stargate", "--since", "2999-01-01", "--index-dir", str(built)])
    assert later.exit_code == 0 and later.output.startswith("0 results")
    month = json.loads(CliRunner().invoke(main, ["search", "stargate", "--month", "1999-01", "--json", "--index-dir", str(built)]).output)
    assert month["total"] == 0 and month["filters"]["month"] == ["1999-01"]
    bad = CliRunner().invoke(main, ["search", "stargate", "--since", "soon", "--index-dir", str(built)])
    assert bad.exit_code == 2 and "--since:" in bad.output


def test_a_count_of_one_is_in_the_singular(tmp_path):
    def cli(*args: str) -> str:
        result = CliRunner().invoke(main, [*args, "--index-dir", str(tmp_path / "index")])
        assert result.exit_code == 0, result.output
        return result.output

    one = write_jsonl(tmp_path / "one.jsonl", [NEW])
    assert cli("build", str(one)).startswith("built 1 document in ")  # was "built 1 documents"
    two = write_jsonl(tmp_path / "two.jsonl", [{**NEW, "id": "wombat-cluster", "title": "Wombat cluster"}])
    assert "1 added, 0 replaced, 0 deleted; 2 documents" in cli("update", str(two))
    gone = write_jsonl(tmp_path / "gone.jsonl", [{"id": "wombat-cluster", "delete": True}, {"id": "nope", "delete": True}])
    assert "0 added, 0 replaced, 1 deleted (1 id to delete was not in the index); 1 document\n" in cli("update", str(gone))
    nothing = write_jsonl(tmp_path / "nothing.jsonl", [{"id": "nope", "delete": True}])
    assert "its 1 id to delete is not in the index" in cli("update", str(nothing))
    assert cli("search", "quokka").startswith("1 result in ")
    assert cli("prune", "--keep", "1").startswith("removed 1 snapshot: ")


def test_a_snippet_holding_a_line_break_stays_on_its_indented_line(built):
    """`search 300mw`: the guide's line break started "Phase 4 — Custom silicon…" at column 0."""
    result = CliRunner().invoke(main, ["search", "300mw", "--index-dir", str(built)])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    hits = [i for i, line in enumerate(lines) if re.match(r"\s+\d+\. \[", line)]
    assert len(hits) >= 3
    for i in hits:  # a hit is its numbered line, then lines indented under it, until the next hit
        for line in lines[i + 1 : next((h for h in hits if h > i), len(lines))]:
            assert not line or line.startswith(" "), line
    assert "N  " in CliRunner().invoke(main, ["search", "--help"]).output  # --page N, --per-page N: not TEXT


@pytest.mark.parametrize(("env", "said"), [
    ({"PORT": "abc"}, "Error: PORT='abc' is not a valid integer range"),  # a ValueError traceback, then "Invalid value for '--port'"
    ({"TOPICHUB_WORKER_CLASS": "bogus"}, "TOPICHUB_WORKER_CLASS='bogus' is not a gunicorn worker class"),  # gunicorn's, after "serving on"
    ({"TOPICHUB_QUERY_BUDGET_S": "abc"}, "TOPICHUB_QUERY_BUDGET_S='abc' must be a number of seconds above 0"),  # workers failed to boot
    ({"TOPICHUB_QUERY_BUDGET_S": "-1"}, "must be a number of seconds above 0"),
    ({"TOPICHUB_QUERY_BUDGET_S": "1e9"}, "below 30 (the worker timeout)"),  # the worker was killed inside its budget
    ({"TOPICHUB_SEMANTIC": "maybe"}, "TOPICHUB_SEMANTIC='maybe' must be 0 or 1"),  # only 0 was read: the signal stayed on
    ({"TOPICHUB_SEMANTIC": "disabled"}, "TOPICHUB_SEMANTIC='disabled' must be 0 or 1"),
    ({"PROMETHEUS_MULTIPROC_DIR": "/proc/nope"}, "PROMETHEUS_MULTIPROC_DIR='/proc/nope' cannot be a folder"),  # gunicorn's traceback
    ({"PROMETHEUS_MULTIPROC_DIR": "/sys/kernel"}, "PROMETHEUS_MULTIPROC_DIR='/sys/kernel'"),  # root passed os.access there: a traceback
    # Flask refused every Host, /healthz included: every replica left the load balancer's rotation.
    ({"TOPICHUB_TRUSTED_HOSTS": "*.example.org"}, "TOPICHUB_TRUSTED_HOSTS: '*.example.org' is no host name"),
    ({"TOPICHUB_TRUSTED_HOSTS": "search.example.org,https://search.example.org"}, "'https://search.example.org' is no host name"),
    ({"TOPICHUB_TRUSTED_HOSTS": "[::1],127.0.0.1"}, "'[::1]' is no host name"),  # werkzeug never matches one
    ({"TOPICHUB_TRUSTED_HOSTS": "example.org:99999"}, "'example.org:99999' is no host name"),
    # gunicorn's own "Error: 'proxy.lan' does not appear to be an IPv4 or IPv6 network", after "serving on" and a build.
    ({"FORWARDED_ALLOW_IPS": "proxy.lan"}, "Error: FORWARDED_ALLOW_IPS='proxy.lan': 'proxy.lan' is no IP address or network"),
    ({"FORWARDED_ALLOW_IPS": "10.0.0.1, 10.0.0.300"}, "FORWARDED_ALLOW_IPS='10.0.0.1, 10.0.0.300': '10.0.0.300' is no IP"),
    ({"FORWARDED_ALLOW_IPS": "10.0.0.1/8"}, "'10.0.0.1/8' is no IP address or network"),  # host bits set: 10.0.0.0/8
])
def test_serve_refuses_a_setting_its_workers_could_not_use_in_one_line(tmp_path, monkeypatch, env, said):
    monkeypatch.setattr(os, "execv", lambda path, args: pytest.fail(f"gunicorn started with {env}"))
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(tmp_path / "index")], env=env)
    assert result.exit_code in (1, 2) and said in result.output
    assert "Traceback" not in result.output and "serving on" not in result.output
    assert not (tmp_path / "index").exists()  # refused before any build


@pytest.mark.parametrize("given", [False, True])
def test_serve_refuses_a_metrics_folder_on_a_full_disk_in_one_line(tmp_path, monkeypatch, given):
    # Each worker's metrics file is written through a mapping: on a full disk every worker died of
    # SIGBUS at its first request and gunicorn started another (4,615 in 10 minutes), none answering.
    monkeypatch.setattr(os, "execv", lambda path, args: pytest.fail("gunicorn started on a full disk"))
    monkeypatch.setattr(os, "posix_fallocate", _no_space)
    env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")} if given else {}
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(tmp_path / "index")], env=env)
    assert result.exit_code == 1, result.output
    assert "has no room for the 2 workers' metrics files (No space left on device)" in result.output
    assert ("PROMETHEUS_MULTIPROC_DIR=" in result.output) is given and "Traceback" not in result.output
    assert not (tmp_path / "index").exists()  # refused before any build
    one = CliRunner().invoke(main, ["serve", "--workers", "1", "--index-dir", str(tmp_path / "index")], env=env)
    assert one.exit_code == 1 and "has no room for the worker's metrics files" in one.output, one.output  # "the 1 workers'"


def test_search_says_which_hit_an_organisation_found(built):
    result = CliRunner().invoke(main, ["search", "alibaba", "--index-dir", str(built)])
    assert result.exit_code == 0 and "(found by organisation)" in result.output


def _no_space(*args, **kwargs):
    raise OSError(28, "No space left on device")


def _masked_no_space(*args, **kwargs):
    # As Whoosh's writer fails on a full disk: its clean-up raises in turn, the OSError only inside.
    try:
        _no_space()
    except OSError:
        raise Exception("This file is already closed")  # noqa: B904 (the chain is what is tested)


@pytest.mark.parametrize(
    ("command", "target", "fault", "said"),
    [
        ("build", "index.build.build_corpus", _masked_no_space, "cannot write the index in"),
        ("update", "index.update.shutil.copy2", _no_space, "cannot update the index in"),
        # No room for the vectors file: its rows were written into a sparse mapping, and the build died
        # of SIGBUS ("Bus error", exit 135, no Error line, a .tmp- folder left behind).
        ("build", "index.vectors.os.posix_fallocate", _no_space, "cannot write the index in"),
        ("update", "index.vectors.os.posix_fallocate", _no_space, "cannot update the index in"),
        ("rollback", "index.store.write_lock", lambda *a, **k: _read_only(), "cannot roll back"),
        ("prune", "index.store.write_lock", lambda *a, **k: _read_only(), "cannot prune"),
    ],
)
def test_a_full_or_read_only_disk_is_one_error_line_and_the_index_stays(built, tmp_path, monkeypatch, command, target, fault, said):
    # Each printed a traceback; the build's ended in "This file is already closed", the cause hidden inside.
    before = store.current_id(built)
    monkeypatch.setattr(target, fault)
    args = {"build": [], "update": [str(write_jsonl(tmp_path / "c.jsonl", [NEW]))], "rollback": [], "prune": []}[command]
    result = CliRunner().invoke(main, [command, *args, "--index-dir", str(built)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    assert f"Error: {said}" in result.output and ("[Errno 28]" in result.output or "[Errno 30]" in result.output), result.output
    assert "Traceback" not in result.output
    assert store.current_id(built) == before


def _read_only():
    raise OSError(30, "Read-only file system")


@pytest.mark.parametrize(("value", "on"), [("0", False), ("off", False), ("False", False), ("no", False), ("1", True), ("on", True), ("", True)])
def test_the_semantic_switch_reads_the_words_an_operator_types(monkeypatch, value, on):
    from index.vectors import enabled

    monkeypatch.setenv("TOPICHUB_SEMANTIC", value)
    assert enabled() is on  # "off" and "false" left the signal on: only "0" was read


@pytest.mark.parametrize("args", [["rollback", "--to", "xyz"], ["rollback"], ["prune"], ["stats"], ["search", "x"],
                                  ["publish", "--to", "replica-never-made"]])
def test_a_mistyped_index_dir_is_said_to_hold_no_index_and_is_not_made(tmp_path, args):
    # `rollback --to xyz` said "no snapshot xyz is kept in … (kept: none)" of a mistyped --index-dir, and
    # left it made, with snapshots/ and .write.lock in it: the other commands say this, and make nothing.
    # `publish --to rep1` said "rep1: no index has been built in …", as if the replica were at fault.
    mistyped = tmp_path / "some" / "mistyped" / "path"
    result = CliRunner().invoke(main, [*args, "--index-dir", str(mistyped)])
    assert result.exit_code == 1 and result.output == f"Error: no index has been built in {mistyped} yet\n"
    assert list(tmp_path.iterdir()) == []


def test_rollback_to_takes_a_snapshot_as_readlink_current_prints_it(tmp_path):
    # `readlink current` prints snapshots/ID: --to refused it as "no snapshot snapshots/ID is kept", then listed ID as kept.
    index_dir = tmp_path / "index"
    source = write_jsonl(tmp_path / "docs.jsonl", [NEW])
    for _ in range(2):
        assert CliRunner().invoke(main, ["build", str(source), "--no-semantic", "--index-dir", str(index_dir)]).exit_code == 0
    old, new = store.snapshot_ids(index_dir)

    def rollback_to(value: str):
        return CliRunner().invoke(main, ["rollback", "--to", value, "--index-dir", str(index_dir)])

    served = rollback_to(os.readlink(index_dir / "current"))  # the served one: refused as such, not as unknown
    assert served.exit_code == 1 and f"snapshot {new} is the one served in {index_dir} already" in served.output
    for value, said in ((f"snapshots/{old}", f"rolled back from snapshot {new} to {old}"),
                        (f"{new}/", f"moved forward from snapshot {old} to {new}"),  # as a shell completes a folder
                        (f"{index_dir / 'snapshots' / old}/", f"rolled back from snapshot {new} to {old}")):
        result = rollback_to(value)
        assert result.exit_code == 0 and said in result.output, (value, result.output)
    assert store.current_id(index_dir) == old
    for value, named in ((f"snapshots/{'9' * len(new)}", "9" * len(new)), (f"elsewhere/{new}", f"elsewhere/{new}")):
        unknown = rollback_to(value)
        assert unknown.exit_code == 1 and f"Error: no snapshot {named} is kept in {index_dir} (kept: {old}, {new})" in unknown.output
    assert store.current_id(index_dir) == old


def _dated(doc_id: str, **more: str) -> dict:
    return {"id": doc_id, "title": f"Record {doc_id}", "summary": "Words.", "topics": ["t"], **more}


def test_build_and_update_warn_of_records_dated_where_a_reader_would_not_look(tmp_path):
    # An undated record was dated to the build (first in "newest", inside any --since), 9999-12-31 came first
    # and 0001-01-01 last, and the summary said nothing of any of them.
    from datetime import datetime, timezone

    index_dir = tmp_path / "index"
    undated = [_dated("plain"), _dated("another"), _dated("guide-section", kind="guide")]
    future = [_dated(f"future-{n}", published="9999-12-31") for n in range(4)] + [_dated("later", published="2999-01-01T00:00:00Z")]
    ancient = [_dated("ancient", published="0001-01-01")]
    plausible = [_dated("today", published=datetime.now(timezone.utc).date().isoformat()), _dated("epoch", published="1970-01-01")]
    source = write_jsonl(tmp_path / "docs.jsonl", undated + future + ancient + plausible)

    def cli(*args: str):
        result = CliRunner().invoke(main, [*args, "--index-dir", str(index_dir)])
        assert result.exit_code == 0, result.output  # warned of, never refused
        return result

    built = cli("build", str(source), "--no-semantic")
    assert f"built {len(undated + future + ancient + plausible)} documents in " in built.stdout
    assert (f"warning: {len(undated)} records have no date: each is dated to this build, which first indexed it, "
            "so it sorts as newest") in built.stderr
    assert (f"warning: {len(future)} records are dated in the future (after this build): "
            f"ids 'future-0', 'future-1', 'future-2' and {len(future) - 3} more") in built.stderr
    assert "warning: 1 record is dated before 1970-01-01: id 'ancient'" in built.stderr
    assert "'today'" not in built.stderr and "'epoch'" not in built.stderr
    rebuilt = cli("build", str(source), "--no-semantic")  # the undated keep the date they were first indexed
    assert f"warning: {len(undated)} records have no date: each is dated to the build or update that first indexed it (0 to this build)" in rebuilt.stderr

    changes = write_jsonl(tmp_path / "changes.jsonl", [_dated("plain", title="Edited"), _dated("new-and-undated"), _dated("far", published="9999-01-01")])
    updated = cli("update", str(changes))
    assert "2 added, 1 replaced, 0 deleted" in updated.stdout
    assert "warning: 2 records have no date: each is dated to the build or update that first indexed it (1 to this update)" in updated.stderr
    assert "warning: 1 record is dated in the future (after this update): id 'far'" in updated.stderr
    dated = write_jsonl(tmp_path / "dated.jsonl", plausible)
    assert "warning" not in cli("update", str(dated)).stderr
    # The build says only which of the updates' changes it undoes (test_a_build_that_undoes_updates_…).
    warned = [line for line in cli("build", str(dated), "--no-semantic").stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1 and "changed by `topichub update` since its build" in warned[0], warned
    # A corpus with no dates at all (the bundled one) is listed in the order it was first indexed:
    # nothing a reader would not expect, so no warning on every `make run`.
    assert "warning" not in cli("build", str(write_jsonl(tmp_path / "undated.jsonl", undated)), "--no-semantic").stderr


def test_update_warns_of_ids_its_file_repeats_and_keeps_the_later_line(built, tmp_path):
    # The later line won silently: an edit meant to win could lose to a stale copy further down without a word.
    repeated = ["quokka-one", "quokka-two", "quokka-three"]
    lines = [*({**NEW, "id": i, "title": f"Quokka first {i}"} for i in repeated),
             *({**NEW, "id": i, "title": f"Quokka second {i}"} for i in repeated),
             {**NEW, "id": "quokka-once"}, {**NEW, "id": "quokka-gone"}, {"id": "quokka-gone", "delete": True}]
    result = CliRunner().invoke(main, ["update", str(write_jsonl(tmp_path / "c.jsonl", lines)), "--index-dir", str(built)])
    assert result.exit_code == 0, result.output
    count = len(repeated) + 1  # and quokka-gone, upserted then deleted
    assert (f"warning: {tmp_path / 'c.jsonl'} names {count} ids on more than one line; the later line wins: "
            f"ids 'quokka-one', 'quokka-two', 'quokka-three' and {count - 3} more") in result.stderr
    found = json.loads(CliRunner().invoke(main, ["search", "quokka", "--json", "--per-page", "50", "--index-dir", str(built)]).output)
    assert {hit["id"]: hit["title"] for hit in found["hits"]} == {
        **{i: f"Quokka second {i}" for i in repeated}, "quokka-once": NEW["title"]}

    once = CliRunner().invoke(main, ["update", str(write_jsonl(tmp_path / "d.jsonl", [NEW])), "--index-dir", str(built)])
    assert once.exit_code == 0 and "more than one line" not in once.output
    twice = write_jsonl(tmp_path / "e.jsonl", [{"id": "never-was", "delete": True}] * 2)  # nothing to change: still said
    nothing = CliRunner().invoke(main, ["update", str(twice), "--index-dir", str(built)])
    assert nothing.exit_code == 0 and "stays published" in nothing.stdout
    assert f"warning: {twice} names 1 id on more than one line; the later line wins: id 'never-was'" in nothing.stderr


def _one_error_line(text: str) -> str:
    """Return the one line *text* holds, checked to be an ``Error:`` line (no Usage or Try lines, no traceback)."""
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), text
    return lines[0]


@pytest.mark.parametrize("value", ["maybe", "2"])
@pytest.mark.parametrize("command", ["build", "search", "serve"])
def test_every_command_reading_the_semantic_switch_refuses_a_word_it_does_not_know(request, tmp_path, monkeypatch, command, value):
    # QA: build and search took TOPICHUB_SEMANTIC=maybe for on (a build stored vectors), while serve refused it.
    monkeypatch.setattr(os, "execv", lambda path, args: pytest.fail("gunicorn started with a bad TOPICHUB_SEMANTIC"))
    index_dir = request.getfixturevalue("built") if command == "search" else tmp_path / "index"
    before = sorted(p.name for p in index_dir.rglob("*")) if index_dir.exists() else None
    args = {"build": ["build"], "search": ["search", "stargate"], "serve": ["serve"]}[command]
    result = CliRunner().invoke(main, [*args, "--index-dir", str(index_dir)], env={"TOPICHUB_SEMANTIC": value})
    assert result.exit_code == 1, result.output
    line = _one_error_line(result.output)
    assert line.startswith(f"Error: TOPICHUB_SEMANTIC={value!r} must be 0 or 1"), line
    assert (sorted(p.name for p in index_dir.rglob("*")) if index_dir.exists() else None) == before  # nothing written


@pytest.mark.parametrize(("command", "variable", "value", "option"), [
    ("serve", "PORT", "abc", "--port"),
    ("serve", "PORT", "70000", "--port"),
    ("stats", "TOPICHUB_INDEX_DIR", "{file}", "--index-dir"),
    ("serve", "TOPICHUB_INDEX_DIR", "{file}", "--index-dir"),
])
def test_a_bad_value_from_the_environment_is_refused_under_the_variables_name_in_one_line(tmp_path, command, variable, value, option):
    # QA: PORT=abc said "Invalid value for '--port'", with Usage and Try lines, to an operator who never typed --port.
    (tmp_path / "a-file").write_text("x")
    value = value.replace("{file}", str(tmp_path / "a-file"))
    env = {**os.environ, variable: value}
    args = [command] + (["--index-dir", str(tmp_path / "index")] if variable != "TOPICHUB_INDEX_DIR" else [])
    result = subprocess.run([TOPICHUB, *args], capture_output=True, text=True, timeout=120, cwd=REPO, env=env)
    assert result.returncode == 2, result.stderr  # click's code for a bad option value
    line = _one_error_line(result.stderr)
    assert line.startswith(f"Error: {variable}={value!r}") and "Invalid value for" not in line, line
    assert f"{variable} sets {option}: correct it or unset it" in line, line
    assert "serving on" not in result.stderr and not (tmp_path / "index").exists()
    # Typed on the command line, the option is refused as click always did, under its own name.
    typed = subprocess.run([TOPICHUB, command, option, value], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert typed.returncode == 2 and f"Invalid value for '{option}'" in typed.stderr and "Usage:" in typed.stderr


@pytest.mark.parametrize("value", [",", " ", " , "])
def test_serve_refuses_trusted_hosts_that_name_no_host(tmp_path, monkeypatch, value):
    # QA: TOPICHUB_TRUSTED_HOSTS="," was taken as unset: the Host check was off and Host: evil.com got a 200.
    monkeypatch.setattr(os, "execv", lambda path, args: pytest.fail("gunicorn started with the Host check off"))
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(tmp_path / "index")], env={"TOPICHUB_TRUSTED_HOSTS": value})
    assert result.exit_code == 1, result.output
    line = _one_error_line(result.output)
    assert line.startswith(f"Error: TOPICHUB_TRUSTED_HOSTS: {value!r} names no host"), line
    assert not (tmp_path / "index").exists()  # refused before any build
    from web import create_app

    monkeypatch.setenv("TOPICHUB_TRUSTED_HOSTS", value)
    with pytest.raises(ValueError, match="names no host"):  # a worker started by hand refuses it too
        create_app({"INDEX_DIR": str(tmp_path / "index"), "TESTING": True})


def test_empty_or_unset_trusted_hosts_still_answer_every_host(built, monkeypatch):
    from web import create_app

    for value in ("", None):
        if value is None:
            monkeypatch.delenv("TOPICHUB_TRUSTED_HOSTS", raising=False)
        else:
            monkeypatch.setenv("TOPICHUB_TRUSTED_HOSTS", value)
        client = create_app({"INDEX_DIR": str(built), "TESTING": True}).test_client()
        assert client.get("/", headers={"Host": "evil.example"}).status_code == 200, value
    monkeypatch.setenv("TOPICHUB_TRUSTED_HOSTS", "search.example.org")  # and a list still restricts them
    client = create_app({"INDEX_DIR": str(built), "TESTING": True}).test_client()
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400


def test_the_build_examples_in_the_operations_guide_run_from_the_repository(tmp_path):
    # QA: `topichub build corpus/ more-topics/ extra.jsonl` named the Python package and two paths that do not exist.
    import shlex

    guide = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    examples = [shlex.split(line.split("#")[0]) for line in re.findall(r"^topichub build .*$", guide, flags=re.M)]
    local = [args for args in examples if not any(a.startswith("/") for a in args)]  # not /work/shared
    assert local, examples
    for number, args in enumerate(local):
        result = run(*args[1:], "--index-dir", str(tmp_path / f"index-{number}"))
        assert result.returncode == 0, (args, result.stderr)
        assert "published snapshot" in result.stdout
        sources = [REPO / a for a in args[2:] if not a.startswith("-")]
        recorded = json.loads(run("stats", "--index-dir", str(tmp_path / f"index-{number}")).stdout)["sources"]
        assert all(any(Path(r).resolve().is_relative_to(s.resolve()) for r in recorded) for s in sources), (sources, recorded)


def test_publish_refuses_a_snapshots_folder_and_prune_leaves_what_is_no_snapshot(tmp_path, monkeypatch):
    # QA: `publish --to r1/snapshots` made current, snapshots/ and .write.lock inside r1's snapshots, and
    # `prune --keep 0 --index-dir r1` then said "removed 2 snapshots: current, snapshots" and left .tmp-pruned-current.
    builder, replica = tmp_path / "builder", tmp_path / "r1"
    source = write_jsonl(tmp_path / "docs.jsonl", [NEW])

    def topichub(*args: str):
        return CliRunner().invoke(main, [*map(str, args)])

    assert topichub("build", source, "--no-semantic", "--index-dir", builder).exit_code == 0
    assert topichub("publish", "--index-dir", builder, "--to", replica).exit_code == 0
    old = store.current_id(replica)
    inside = store.snapshots_dir(replica)
    listing = sorted(p.name for p in inside.iterdir())
    for targets in ([inside], [tmp_path / "r2", inside / old / "deeper"]):  # every --to checked before any is written
        refused = topichub("publish", "--index-dir", builder, *(a for t in targets for a in ("--to", t)))
        assert refused.exit_code == 2, refused.output
        line = _one_error_line(refused.output)
        assert f"is inside the snapshots folder of the index {replica}" in line and f"--to {replica}" in line, line
    assert sorted(p.name for p in inside.iterdir()) == listing and not (tmp_path / "r2").exists()

    # What such a publish left before it was refused: prune and rollback count only snapshots.
    monkeypatch.setattr(store, "check_target", lambda target: None)
    store.publish_to(builder, inside)
    assert {"current", "snapshots", ".write.lock"} <= {p.name for p in inside.iterdir()}
    assert topichub("build", source, "--no-semantic", "--index-dir", builder).exit_code == 0
    assert topichub("publish", "--index-dir", builder, "--to", replica).exit_code == 0
    new = store.current_id(replica)
    unknown = topichub("rollback", "--to", "current", "--index-dir", replica)
    assert unknown.exit_code == 1 and f"(kept: {old}, {new})" in unknown.output, unknown.output
    pruned = topichub("prune", "--keep", "0", "--index-dir", replica)
    assert pruned.exit_code == 0 and pruned.output.strip() == f"removed 1 snapshot: {old}", pruned.output
    left = {p.name for p in inside.iterdir()}
    assert {"current", "snapshots", new} <= left and old not in left, left
    assert not [name for name in left if name.startswith(".tmp-")], left
    assert store.current_id(replica) == new and store.snapshot_ids(replica) == [new]


@pytest.mark.parametrize("inside", ["current", "snapshots", "snapshots/{id}"])
@pytest.mark.parametrize("command", ["build", "update", "search", "stats", "prune", "rollback"])
def test_an_index_dir_inside_an_index_s_snapshots_folder_is_refused(built, tmp_path, command, inside):
    # QA: `build --index-dir IX/current` wrote current, snapshots/ and .write.lock into the published
    # snapshot being served (and `--index-dir IX/snapshots` made an index inside the snapshots folder),
    # exit 0; `stats --index-dir IX/current` said "no index has been built in IX/current yet".
    listing = sorted(str(p.relative_to(built)) for p in built.rglob("*"))
    wrong = built / inside.replace("{id}", store.current_id(built) or "")
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW])
    args = {"build": ["build", str(changes), "--no-semantic"], "update": ["update", str(changes)], "search": ["search", "x"],
            "stats": ["stats"], "prune": ["prune"], "rollback": ["rollback"]}[command]
    result = CliRunner().invoke(main, [*args, "--index-dir", str(wrong)])
    assert result.exit_code == 2, result.output
    line = _one_error_line(result.output)
    assert f"--index-dir {wrong} is inside the snapshots folder of the index {built}" in line, line
    assert f"(--index-dir {built})" in line, line
    assert sorted(str(p.relative_to(built)) for p in built.rglob("*")) == listing  # nothing written
    from_env = CliRunner().invoke(main, args, env={"TOPICHUB_INDEX_DIR": str(wrong)})
    assert from_env.exit_code == 2 and _one_error_line(from_env.output).startswith(f"Error: TOPICHUB_INDEX_DIR={str(wrong)!r} is inside")


@pytest.mark.parametrize("command", ["build", "update", "search", "stats", "publish", "prune", "rollback"])
def test_an_index_dir_under_a_file_is_refused_in_one_line(tmp_path, command):
    # A docs pass: `stats`, `search`, `publish` and `serve --index-dir /dev/null/x` printed a traceback
    # (NotADirectoryError), and TOPICHUB_INDEX_DIR=/dev/null/x as well, where one line is promised.
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    wrong = blocker / "index"
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW])
    args = {"build": ["build", str(changes), "--no-semantic"], "update": ["update", str(changes)], "search": ["search", "x"],
            "stats": ["stats"], "publish": ["publish", "--to", str(tmp_path / "replica")], "prune": ["prune"],
            "rollback": ["rollback"]}[command]
    result = CliRunner().invoke(main, [*args, "--index-dir", str(wrong)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert _one_error_line(result.output) == f"Error: --index-dir {wrong}: {blocker} is a file, not a folder"
    from_env = CliRunner().invoke(main, args, env={"TOPICHUB_INDEX_DIR": str(wrong)})
    assert from_env.exit_code == 2
    assert _one_error_line(from_env.output) == f"Error: TOPICHUB_INDEX_DIR={str(wrong)!r}: {blocker} is a file, not a folder"
    assert blocker.read_text(encoding="utf-8") == "not a folder\n"


def test_an_index_dir_under_a_link_to_nothing_says_so(tmp_path):
    # It said "… dangling is a file, not a folder" (a regression QA pass).
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    wrong = tmp_path / "dangling" / "index"
    result = CliRunner().invoke(main, ["stats", "--index-dir", str(wrong)])
    assert result.exit_code == 2
    assert _one_error_line(result.output) == f"Error: --index-dir {wrong}: {tmp_path / 'dangling'} is a link to nothing, not a folder"


def test_a_file_named_snapshots_is_no_index(tmp_path):
    # An index folder whose snapshots/ is a plain file: `stats` printed a traceback (a docs pass).
    (tmp_path / "snapshots").write_text("", encoding="utf-8")
    result = CliRunner().invoke(main, ["stats", "--index-dir", str(tmp_path)])
    assert result.exit_code == 1 and _one_error_line(result.output) == f"Error: no index has been built in {tmp_path} yet"


@pytest.mark.parametrize("args", [
    ["build", "{source}", "--no-semantic", "--index-dir", ""],
    ["build", "{source}", "--no-semantic", "--index-dir="],
    ["stats", "--index-dir", ""],
    ["publish", "--index-dir", "{built}", "--to", ""],
    ["rollback", "--index-dir", "{built}", "--to", ""],  # "Error: no snapshot  is kept in IX (kept: …)", exit 1
    ["rollback", "--index-dir", "{built}", "--to", " "],  # blank: exit 1 still (a review)
    ["publish", "--index-dir", "{built}", "--to", " "],  # made a folder named " " (a review)
])
def test_an_empty_folder_option_is_refused_not_read_as_the_current_folder(built, tmp_path, monkeypatch, args):
    # QA: `build --index-dir ""` (a script's unset "$IDX") built into the current folder, exit 0,
    # leaving current, snapshots/ and .write.lock there; `publish --to ""` published into it.
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    source = write_jsonl(tmp_path / "c.jsonl", [NEW])
    names = {"{source}": str(source), "{built}": str(built)}
    result = CliRunner().invoke(main, [names.get(a, a) for a in args])
    assert result.exit_code == 2, result.output
    assert "is empty" in result.output and "Traceback" not in result.output, result.output
    assert list(work.iterdir()) == []


@pytest.mark.parametrize(("variable", "meant"), [
    ("TOPICHUB_INDEX_DIRECTORY", "TOPICHUB_INDEX_DIR"),
    ("TOPICHUB_INDEXDIR", "TOPICHUB_INDEX_DIR"),
    ("topichub_index_dir", "TOPICHUB_INDEX_DIR"),
    ("TOPICHUB_SEMANTICS", "TOPICHUB_SEMANTIC"),
    ("TOPICHUB_QUERY_BUDGET", "TOPICHUB_QUERY_BUDGET_S"),
    ("TOPICHUB_TRUSTED_HOST", "TOPICHUB_TRUSTED_HOSTS"),
    ("TOPICHUB_NOTHING_LIKE_IT", None),
])
@pytest.mark.parametrize("command", ["build", "serve", "search"])
def test_a_misspelt_setting_is_refused_naming_the_one_meant(tmp_path, monkeypatch, command, variable, meant):
    # QA: TOPICHUB_INDEX_DIRECTORY=/srv/… was ignored without a word: serve built the bundled corpus
    # into instance/index and served it; TOPICHUB_SEMANTICS=0 left the meaning signal on.
    monkeypatch.setattr(os, "execv", lambda path, args: pytest.fail("gunicorn started with a misspelt setting"))
    args = {"build": ["build", "--no-semantic"], "serve": ["serve"], "search": ["search", "x"]}[command]
    result = CliRunner().invoke(main, [*args, "--index-dir", str(tmp_path / "index")], env={variable: str(tmp_path / "elsewhere")})
    assert result.exit_code == 2, result.output
    line = _one_error_line(result.output)
    assert line.startswith(f"Error: {variable} is no setting of topichub"), line
    assert (f"did you mean {meant}?" in line) if meant else ("did you mean" not in line and "TOPICHUB_INDEX_DIR" in line), line
    assert not (tmp_path / "index").exists() and not (tmp_path / "elsewhere").exists()


def test_the_settings_of_the_docs_and_the_load_balancer_are_no_misspelling(built):
    env = {"TOPICHUB_CORPUS": "", "TOPICHUB_WORKER_CLASS": "sync", "TOPICHUB_QUERY_BUDGET_S": "2", "TOPICHUB_SEMANTIC": "0",
           "TOPICHUB_TRUSTED_HOSTS": "", "TOPICHUB_LB_BIND": ":80", "TOPICHUB_REPLICA_1": "10.0.0.1:8000",
           "TOPICHUB_REPLICA_12": "10.0.0.12:8000", "TOPICHUB_SCREENSHOTS": "1"}
    result = CliRunner().invoke(main, ["stats"], env={**env, "TOPICHUB_INDEX_DIR": str(built)})
    assert result.exit_code == 0, result.output
    guide = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"TOPICHUB_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_<])", guide)) - {"TOPICHUB_INDEX_DIRECTORY", "TOPICHUB_SEMANTICS"}
    assert len(documented) >= 9, documented
    for name in documented:  # every name the guide sets is taken (the two misspellings it quotes are not)
        taken = CliRunner().invoke(main, ["stats", "--index-dir", str(built)], env={name: ""})
        assert taken.exit_code == 0, (name, taken.output)


@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_serve_binds_an_ipv6_host_as_gunicorn_reads_it(built, monkeypatch, host):
    # QA: `serve --host ::1` said "serving on http://::1:8000/", then gunicorn stopped with
    # "Error: '' is not a valid port number." (it reads ::1:8000 as host ::1:8000 and an empty port).
    import socket

    with socket.socket(socket.AF_INET6) as probe:
        try:
            probe.bind(("::1", 0))
        except OSError:
            pytest.skip("no IPv6 loopback here")
        port = probe.getsockname()[1]
    started: list[list[str]] = []
    monkeypatch.setattr(os, "execv", lambda path, args: started.append(args))
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(built), "--host", host, "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert f"serving on http://[::1]:{port}/ with 2 workers (pid " in result.output, result.output
    one = CliRunner().invoke(main, ["serve", "--index-dir", str(built), "--host", host, "--port", str(port), "--workers", "1"])
    assert f"serving on http://[::1]:{port}/ with 1 worker (pid " in one.output, one.output  # "with 1 workers" (a QA pass)
    bind = started[0][started[0].index("--bind") + 1]
    assert bind == f"[::1]:{port}", bind


def test_serve_names_the_pid_that_stops_it_its_own_which_gunicorn_s_master_keeps(built, monkeypatch):
    # A new operator's pass: SIGTERM to `make run`'s pid ended make alone ("make: *** [Makefile:46: run]
    # Terminated") and left gunicorn serving under pid 1.  serve execs gunicorn, so the pid it names
    # (its own) is the master's: the one to signal.
    monkeypatch.setattr(os, "execv", lambda path, args: None)
    result = CliRunner().invoke(main, ["serve", "--index-dir", str(built), "--port", str(free_port())])
    assert result.exit_code == 0, result.output
    assert f" with 2 workers (pid {os.getpid()}; Ctrl-C or SIGTERM to it stops the service)\n" in result.output, result.output


def test_an_empty_worker_class_is_the_default_as_every_empty_setting_is(monkeypatch):
    # TOPICHUB_WORKER_CLASS= was refused ("'' is not a gunicorn worker class", QA pass Y), while every
    # other setting reads empty as unset: gunicorn's config and serve's check read it by one function.
    import web
    import web.cli

    monkeypatch.setenv("TOPICHUB_WORKER_CLASS", "")
    web.cli._check_environment()  # no refusal
    assert web.worker_class() == "gevent"
    monkeypatch.setenv("TOPICHUB_WORKER_CLASS", "gthread")
    assert web.worker_class() == "gthread"


def test_a_writer_whose_report_cannot_be_printed_still_says_it_published(tmp_path):
    # A full disk under stdout, or a log reader gone: the snapshot was published, yet build, update
    # and rollback said exit 1 (with a traceback on the full disk), and a job would retry or roll back.
    index_dir = tmp_path / "ix"
    with open("/dev/full", "w") as full:  # every write to it fails with ENOSPC
        built = subprocess.run([TOPICHUB, "build", str(REPO / "corpus" / "data"), "--index-dir", str(index_dir)],
                               stdout=full, stderr=subprocess.PIPE, text=True, timeout=300, cwd=REPO)
    assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr
    first = store.current_path(index_dir).name
    changes = write_jsonl(tmp_path / "changes.jsonl", [{"id": "new-one", "title": "A new one", "summary": "Text.", "topics": ["training-infrastructure"]}])
    for args in (["update", str(changes)], ["rollback"]):
        closed = subprocess.Popen([TOPICHUB, *args, "--index-dir", str(index_dir)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=REPO)
        closed.stdout.close()  # the reader is gone before the report is written
        closed.stdout = None
        stderr = closed.communicate(timeout=120)[1].decode()
        assert closed.returncode == 0 and not stderr, (args, stderr)
    assert store.current_path(index_dir).name == first  # updated, then rolled back: both done
    # A search's results are what it is run for: a full disk is an error, in one line.
    with open("/dev/full", "w") as full:
        searched = subprocess.run([TOPICHUB, "search", "stargate", "--index-dir", str(index_dir)],
                                  stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, cwd=REPO)
    assert searched.returncode == 1 and searched.stderr.strip().splitlines() == [
        "Error: cannot write the results: [Errno 28] No space left on device"]


def test_wait_refuses_what_is_no_number_of_seconds(tmp_path):
    # "--wait nan" passed click's range (no comparison is true of NaN) and waited with no limit.
    for value in ("nan", "NaN"):
        result = CliRunner().invoke(main, ["prune", "--wait", value, "--index-dir", str(tmp_path / "ix")])
        assert result.exit_code == 2 and "is not a number of seconds from 0 to 3600" in result.output, value


@pytest.mark.parametrize(("env", "flag", "stored"), [
    ({"TOPICHUB_SEMANTIC": "0"}, ["--semantic"], True),  # the option wins, as --port over PORT (a QA pass)
    ({"TOPICHUB_SEMANTIC": "0"}, [], False),
    ({}, ["--no-semantic"], False),
])
def test_build_semantic_option_wins_over_the_environment(tmp_path, env, flag, stored):
    docs = write_jsonl(tmp_path / "docs.jsonl", [{"id": f"d{i}", "title": f"Doc {i}", "summary": "Text.", "topics": ["t"]}
                                                 for i in range(3)])
    result = CliRunner().invoke(main, ["build", str(docs), *flag, "--index-dir", str(tmp_path / "ix")], env=env)
    assert result.exit_code == 0, result.output
    assert (store.read_meta(store.current_path(tmp_path / "ix"))["semantic"] is not None) is stored


def test_a_file_name_a_terminal_would_act_on_is_told_escaped(tmp_path):
    # A file named with OSC 0 and clear-screen retitled the window and cleared the screen on every
    # warning naming it (a QA pass): warnings and errors write such characters as escapes.
    folder = tmp_path / "corpus"
    folder.mkdir()
    evil = folder / "evil\x1b]0;PWNED\x07\x1b[2J.jsonl"
    write_jsonl(evil, [{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "url": "javascript:alert(1)"}])
    built = run("build", folder, "--index-dir", tmp_path / "ix")
    assert built.returncode == 0, built.stderr
    assert "evil\\x1b]0;PWNED\\x07\\x1b[2J.jsonl:1: 'url' with the scheme 'javascript' dropped" in built.stderr
    write_jsonl(evil, [{"id": "a", "title": "T", "summary": "S", "topics": ["x"], "kind": "\x9b2J"}])
    refused = run("build", folder, "--index-dir", tmp_path / "ix")
    assert refused.returncode == 1 and "\\x9b2J" in refused.stderr
    assert not any(ch in built.stderr + refused.stderr for ch in "\x1b\x07\x9b")


def test_a_build_s_sources_that_are_no_files_are_refused_in_one_line_naming_them(tmp_path):
    # TOPICHUB_CORPUS=/nonexist said "Error: /nonexist: does not exist" (exit 1), not naming the
    # variable; a pipe (`build <(zcat x.jsonl.gz)`) was said not to exist, a FIFO named .jsonl not to
    # be a JSONL file (a QA pass).
    gone = str(tmp_path / "nonexist")
    result = CliRunner().invoke(main, ["build", "--index-dir", str(tmp_path / "index")], env={"TOPICHUB_CORPUS": gone})
    assert result.exit_code == 2 and result.output == (
        f"Error: TOPICHUB_CORPUS={gone!r}: no such file or folder (TOPICHUB_CORPUS sets the default SOURCES: correct it or unset it)\n")
    fifo = tmp_path / "docs.jsonl"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["build", str(fifo), "--index-dir", str(tmp_path / "index")])
    assert result.exit_code == 2 and result.output.startswith(f"Error: SOURCES: {fifo} is no file (a pipe or a device)")
    assert not (tmp_path / "index").exists()
    # `build -` was click's "Path '-' does not exist.", with its Usage lines, where `update -` reads
    # standard input (a new operator's pass): one line, saying so.
    dash = CliRunner().invoke(main, ["build", "-", "--index-dir", str(tmp_path / "index")], input="{}\n")
    assert dash.exit_code == 2 and dash.output.startswith("Error: SOURCES: - (standard input) is no file: a build reads "
                                                          "its sources as files"), dash.output
    assert dash.output.count("\n") == 1 and "update reads its change file from -" in dash.output
    assert not (tmp_path / "index").exists()


def test_search_out_of_open_files_is_one_line_naming_the_limit(built, monkeypatch):
    # Under `ulimit -n 12` a search printed Whoosh's OSError as a traceback (a column file is opened
    # mid-search); under 16 the ImportError of the module the message needed.
    import errno

    from search.service import SearchService

    def short(self, params):
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(SearchService, "search", short)
    result = CliRunner().invoke(main, ["search", "data", "--index-dir", str(built)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.startswith("Error: the search cannot be answered now: out of open files") and "ulimit -n" in result.output


def test_an_unreadable_file_in_a_source_folder_is_refused_naming_it_not_the_index(tmp_path, monkeypatch):
    # QA: a file of a source folder this user may not read (chmod 000, capabilities dropped) was told as
    # "Error: cannot write the index in IX: [Errno 13] Permission denied: '…/a.jsonl'", exit 1; named
    # itself, click refuses it as not readable, exit 2.
    import pathlib

    folder = tmp_path / "corpus"
    folder.mkdir()
    unreadable = write_jsonl(folder / "a.jsonl", [NEW]).resolve()
    opened = pathlib.Path.open

    def refused(self, *args, **kwargs):
        if self == unreadable:
            raise PermissionError(13, "Permission denied", str(self))
        return opened(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "open", refused)
    result = CliRunner().invoke(main, ["build", str(folder), "--no-semantic", "--index-dir", str(tmp_path / "ix")])
    assert result.exit_code == 2 and result.output == f"Error: {unreadable}: cannot be read: Permission denied\n"
    assert store.current_id(tmp_path / "ix") is None


def test_a_change_file_applied_again_publishes_nothing_and_says_why(built, tmp_path):
    # Applied twice, a change file published a new snapshot each time ("0 added, 2 replaced"), pushing an
    # older snapshot out of those kept for a rollback, and the operator could not tell it changed
    # nothing (a QA pass of the operator's). An edit that does change something is published.
    changes = write_jsonl(tmp_path / "c.jsonl", [{**NEW, "id": "quokka-a"}, {**NEW, "id": "quokka-b"}])
    first = CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(built)])
    assert first.exit_code == 0 and "2 added" in first.stdout
    served = store.current_id(built)
    again = CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(built)])
    assert again.exit_code == 0, again.output
    assert f"{changes}: its 2 records say what the index already holds; snapshot {served} stays published" in again.stdout
    assert store.current_id(built) == served
    edited = write_jsonl(tmp_path / "d.jsonl", [{**NEW, "id": "quokka-a", "summary": "Said otherwise."}, {**NEW, "id": "quokka-b"}])
    third = CliRunner().invoke(main, ["update", str(edited), "--index-dir", str(built)])
    assert third.exit_code == 0 and "0 added, 2 replaced" in third.stdout and store.current_id(built) != served


def test_an_update_of_dash_reads_its_changes_from_standard_input(built):
    # QA: `printf '…' | topichub update --index-dir IX -` said "Invalid value for 'CHANGES': File '-'
    # does not exist.", exit 2; /dev/stdin worked.
    import subprocess

    from tests.conftest import REPO, TOPICHUB

    line = json.dumps({"id": "dash-quokka", "title": "Quokka read from a pipe", "summary": "s", "topics": ["t"]})
    for name in ("-", "/dev/stdin"):
        done = subprocess.run([TOPICHUB, "update", "--index-dir", str(built), name], input=line + "\n", text=True,
                              capture_output=True, timeout=120, cwd=REPO)
        assert done.returncode == 0 and ("1 added" if name == "-" else "says what the index already holds") in done.stdout, done.stderr
    assert "dash-quokka" in CliRunner().invoke(main, ["search", "quokka", "--index-dir", str(built)]).output


def test_a_build_indexes_with_as_many_processes_as_it_may_use_cpus_at_most_8(monkeypatch):
    # QA: the help said "the CPU count", the code took min(8, os.cpu_count()), and os.cpu_count()
    # counts the host's CPUs, not those the build may run on (taskset, a container's cpuset).
    import web.cli

    asked: list[int] = []
    monkeypatch.setattr(web.cli, "_build", lambda sources, index_dir, procs, **rest: asked.append(procs))
    for cpus, procs in ((range(2), 2), (range(64), 8)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, cpus=cpus: set(cpus))
        monkeypatch.setattr(os, "cpu_count", lambda: 64)
        assert CliRunner().invoke(main, ["build", "--no-semantic"]).exit_code == 0
        assert asked.pop() == procs
    assert "the CPUs this process may run on, at most 8" in " ".join(CliRunner().invoke(main, ["build", "--help"]).output.split())


def test_publish_refuses_a_replica_folder_whose_parent_does_not_exist(built, tmp_path):
    # QA: `publish --to /nonexistent/deep/dir` made the whole path and said published.
    result = CliRunner().invoke(main, ["publish", "--index-dir", str(built), "--to", str(tmp_path / "replca" / "deep" / "index")])
    assert result.exit_code == 2 and "its parent folder" in result.output and "does not exist" in result.output, result.output
    assert not (tmp_path / "replca").exists()
    made = CliRunner().invoke(main, ["publish", "--index-dir", str(built), "--to", str(tmp_path / "replica")])
    assert made.exit_code == 0 and "published snapshot" in made.output, made.output  # a new replica's own folder is made


def test_search_text_shows_each_hits_dates_as_its_page_does(dated_index):
    # Sorted --sort newest or filtered by --since, the list printed titles and snippets only: nothing
    # showed what the order or the filter went by (a QA pass).
    from web.dates import exact

    result = CliRunner().invoke(main, ["search", "--index-dir", str(dated_index), "--sort", "newest", "--per-page", "5",
                                       "--json"])
    hits = json.loads(result.output)["hits"]
    text = CliRunner().invoke(main, ["search", "--index-dir", str(dated_index), "--sort", "newest", "--per-page", "5"]).output
    for hit in hits:
        said = f"published {exact(hit['published'])}" if hit["published"] else f"added to the hub {exact(hit['first_seen'])}"
        assert said in text, (said, text)



def test_topichub_corpus_takes_several_paths_joined_by_the_path_separator(tmp_path):
    # An editor's second topic lives in a folder of its own: TOPICHUB_CORPUS took one path, so `make
    # build` and a first `make run` built the bundled topic or theirs, never both (a QA pass).
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(DATA / "second-topic" / "inference-infrastructure.topic.txt", mine)
    both = os.pathsep.join([str(DEFAULT_DIR), str(mine)])
    result = CliRunner().invoke(main, ["build", "--index-dir", str(tmp_path / "index"), "--no-semantic"],
                                env={"TOPICHUB_CORPUS": both})
    assert result.exit_code == 0, result.output
    facet = {f.value for f in SearchService(tmp_path / "index").search(SearchParams()).facets["topic"]}
    assert {"training-infrastructure", "inference-infrastructure"} <= facet
    gone = str(tmp_path / "gone")
    result = CliRunner().invoke(main, ["build", "--index-dir", str(tmp_path / "index")],
                                env={"TOPICHUB_CORPUS": os.pathsep.join([str(mine), gone])})
    assert result.exit_code == 2 and result.output.startswith(f"Error: TOPICHUB_CORPUS={os.pathsep.join([str(mine), gone])!r}: "
                                                              f"{gone}: no such file or folder")
