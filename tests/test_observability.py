"""Request ids, the JSON access log and /metrics: through the app, then through gunicorn with two workers."""

from __future__ import annotations

import json
import re
import logging
import shutil
from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from index.build import build
from index.update import update
from tests.conftest import write_jsonl
from tests.waiting import wait_until
from tests.servers import get, gunicorn
from web import create_app
from web.observability import JsonFormatter, RequestIdFilter

QUERY = "stargate michigan"


@pytest.fixture()
def logged(caplog):
    """Capture log records as the server's handler sees them: with the request id filled in."""
    caplog.set_level(logging.INFO)
    caplog.handler.addFilter(RequestIdFilter())
    yield caplog
    caplog.handler.removeFilter(caplog.handler.filters[-1])


def lines(caplog) -> list[dict]:
    """Return the captured records as the JSON lines the server writes."""
    return [json.loads(JsonFormatter().format(record)) for record in caplog.records]


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Return every sample of a /metrics answer by (name, labels)."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def search_count(values, route: str = "/api/search", status: str = "200") -> float:
    return values.get(("topichub_http_request_duration_seconds_count", (("route", route), ("status", status))), 0.0)


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("abc-123", True),
        ("trace:9f86d081884c7d65/span=1", True),
        ("x" * 128, True),
        ("x" * 129, False),
        ("has space", False),
        ("naïve", False),
        ("", False),
        # Written otherwise by a proxy's log or escaped in the JSON line: the two lines would not join.
        *((f"a{char}b", False) for char in '"#\\{|}'),
        ("".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"#\\{|}'), True),
    ],
)
def test_a_safe_incoming_request_id_is_kept_and_any_other_replaced(client, sent, kept):
    response = client.get("/api/search?q=gpu", headers={"X-Request-ID": sent})
    got = response.headers["X-Request-ID"]
    assert (got == sent) is kept
    assert 1 <= len(got) <= 128 and got.isprintable() and " " not in got


def test_each_request_gets_its_own_id(client):
    ids = {client.get(path).headers["X-Request-ID"] for path in ("/healthz", "/healthz", "/api/nothing", "/?q=x")}
    assert len(ids) == 4


def test_one_json_line_per_request_without_the_query_text(client, logged):
    client.get(f"/api/search?q={QUERY}", headers={"X-Request-ID": "req-1"}, buffered=True)
    client.get("/api/documents/nope", headers={"X-Request-ID": "req-2"}, buffered=True)
    access = [line for line in lines(logged) if "method" in line]
    assert [line["request_id"] for line in access] == ["req-1", "req-2"]
    search, missing = access
    assert search["method"] == "GET" and search["path"] == "/api/search" and search["status"] == 200
    assert search["q_chars"] == len(QUERY) and search["bytes"] > 100 and search["duration_ms"] > 0
    assert search["snapshot"] == client.get("/healthz").get_json()["snapshot"]
    assert search["ts"].endswith("+00:00")
    assert missing["status"] == 404 and "q_chars" not in missing
    assert all("stargate" not in json.dumps(line) for line in lines(logged))



@pytest.mark.parametrize("path", ["/feeds/search.atom", "/api/suggest/opensearch"])
def test_every_search_route_logs_the_length_of_its_query(client, logged, path):
    # A feed of a search and the browser's completions logged "q_chars": null (a QA pass).
    client.get(f"{path}?q={QUERY}", buffered=True)
    (line,) = [line for line in lines(logged) if line.get("path") == path]
    assert line["q_chars"] == len(QUERY)


def test_an_access_line_is_one_line_without_controls_naming_the_path_as_it_was_typed(client, logged):
    # The path was the WSGI Latin-1 string, written as it was: "/events/日本" as mojibake, and a C1 CSI
    # (%C2%9B, which a terminal reads as ESC [) raw in the log; U+2028 splits a line for some readers.
    for path in ("/events/%E6%97%A5%E6%9C%AC", "/events/%C2%9B2J%C2%85x", "/events/a%E2%80%A8b"):
        client.get(path, buffered=True)
    written = [JsonFormatter().format(record) for record in logged.records if getattr(record, "fields", None)]
    assert not [line for line in written if re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029]", line) or len(line.splitlines()) != 1]
    paths = [json.loads(line)["path"] for line in written]
    assert paths == ["/events/日本", "/events/\x9b2J\x85x", "/events/a\u2028b"]


def test_an_access_line_gives_a_long_path_cut_short(client, logged):
    # A path of 60 KB (a 404) made a 60 KB access line, which journald (LineMax 48K) splits: one JSON
    # object a line no longer held (a review). An id's address (512 characters at most) is whole.
    from web.observability import LOGGED_PATH_CHARS

    for path in ("/events/" + "a" * 60_000, "/events/" + "b" * 512):
        client.get(path, buffered=True)
    paths = [line["path"] for line in lines(logged) if "status" in line]
    assert paths == ["/events/" + "a" * (LOGGED_PATH_CHARS - len("/events/")) + "…", "/events/" + "b" * 512]


def test_an_error_s_log_lines_carry_the_request_id(app, logged):
    def boom():
        raise RuntimeError("the disk caught fire")

    app.add_url_rule("/boom", view_func=boom)
    response = app.test_client().get("/boom", headers={"X-Request-ID": "broken-1"}, buffered=True)
    assert response.status_code == 500 and response.headers["X-Request-ID"] == "broken-1"
    written = lines(logged)
    error = next(line for line in written if line.get("level") == "error")
    assert error["request_id"] == "broken-1" and "the disk caught fire" in error["exception"]
    assert [line["status"] for line in written if line.get("request_id") == "broken-1" and "status" in line] == [500]


def test_a_missing_index_s_warning_carries_the_request_id(tmp_path, logged):
    client = create_app({"INDEX_DIR": str(tmp_path / "none"), "TESTING": True}).test_client()
    assert client.get("/api/search?q=x", headers={"X-Request-ID": "no-index"}, buffered=True).status_code == 503
    tagged = [line for line in lines(logged) if line.get("request_id") == "no-index"]
    assert {line["level"] for line in tagged} == {"warning", "info"} and tagged[-1]["snapshot"] is None


def _record(created: float, **fields: object) -> logging.LogRecord:
    record = logging.LogRecord("topichub.access", logging.INFO, "", 0, "request", (), None)
    record.created = created
    if fields:
        record.fields = fields
    return record


@given(st.floats(min_value=0, max_value=4e9, allow_nan=False))
def test_a_line_s_time_is_its_record_s_time_in_utc_to_the_millisecond(created):
    line = json.loads(JsonFormatter().format(_record(created)))
    assert line["ts"] == datetime.fromtimestamp(created, timezone.utc).isoformat(timespec="milliseconds")


def test_a_field_the_fast_encoder_refuses_is_still_written():
    line = json.loads(JsonFormatter().format(_record(1.5, status=200, huge=2**70, text="a\udc80b")))
    assert line["huge"] == 2**70 and line["status"] == 200 and line["text"] == "a\udc80b"


def test_metrics_move_with_requests(tmp_path):
    root = tmp_path / "index"
    build(root=root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    before = samples(client.get("/metrics", buffered=True).get_data(as_text=True))
    for _ in range(3):
        client.get("/api/search?q=trainium", buffered=True)  # buffered: read and closed, as a server does
    client.get("/api/nothing", buffered=True)
    client.post("/api/search?q=trainium", buffered=True)  # a route asked with a method it does not take
    response = client.get("/metrics")
    assert response.status_code == 200 and response.content_type.startswith("text/plain; version=0.0.4")
    after = samples(response.get_data(as_text=True))
    assert search_count(after) - search_count(before) == 3
    assert search_count(after, "unmatched", "404") == 1
    assert search_count(after, "/api/search", "405") == 1 and search_count(after, "unmatched", "405") == 0
    assert after[("topichub_result_cache_misses_total", ())] - before[("topichub_result_cache_misses_total", ())] == 1
    assert after[("topichub_result_cache_hits_total", ())] - before[("topichub_result_cache_hits_total", ())] == 2
    assert after[("topichub_http_requests_in_progress", ())] == 1  # the scrape itself
    assert after[("topichub_snapshot_documents", ())] == after[("topichub_build_documents", ())] == 57
    assert 0 <= after[("topichub_snapshot_age_seconds", ())] < 3600
    assert after[("topichub_build_duration_seconds", ())] > 0
    assert ("topichub_update_documents", ()) not in after  # no update yet

    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "new-1", "title": "New", "summary": "A new one.", "topics": ["x"]}]), root)
    updated = samples(client.get("/metrics", buffered=True).get_data(as_text=True))
    assert updated[("topichub_update_documents", ())] == updated[("topichub_snapshot_documents", ())] == 58
    assert updated[("topichub_update_duration_seconds", ())] > 0
    assert updated[("topichub_build_documents", ())] == 57


@pytest.mark.parametrize("refused", ["another schema version", "damaged"])
def test_metrics_report_the_snapshot_served_and_whether_the_service_is_degraded(tmp_path, refused):
    # The published snapshot refused, an older one answering: /metrics gave the refused one's figures
    # (read from its snapshot.json) and nothing said degraded, so no alert could fire (a QA pass).
    from index import store
    from tests.test_publish import _built_by_other_code, _damage_flipped

    root = tmp_path / "index"
    build(root=root)
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "new-1", "title": "New", "summary": "A new one.", "topics": ["x"]}]), root)
    good, published = store.snapshot_ids(root)
    healthy = samples(create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client().get("/metrics").get_data(as_text=True))
    assert healthy[("topichub_degraded", ())] == 0 and healthy[("topichub_snapshot_documents", ())] == 58
    assert healthy[("topichub_snapshot_info", (("published", published), ("served", published)))] == 1

    (_built_by_other_code if refused == "another schema version" else _damage_flipped)(store.snapshots_dir(root) / published)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    values = samples(client.get("/metrics").get_data(as_text=True))
    assert client.get("/healthz").status_code == 503
    assert values[("topichub_degraded", ())] == 1
    assert values[("topichub_snapshot_info", (("published", published), ("served", good)))] == 1
    assert values[("topichub_snapshot_documents", ())] == values[("topichub_build_documents", ())] == 57
    assert ("topichub_update_documents", ()) not in values  # the served one had no update

    shutil.rmtree(store.snapshots_dir(root) / good)  # none answers
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    values = samples(client.get("/metrics").get_data(as_text=True))
    assert values[("topichub_degraded", ())] == 1 and ("topichub_snapshot_documents", ()) not in values
    assert values[("topichub_snapshot_info", (("published", published), ("served", "")))] == 1


def test_a_worker_short_of_files_is_degraded_and_the_help_text_says_so(app):
    # The HELP line said "the published snapshot was refused, or none answers", leaving out a worker
    # that ran short of open files or memory, which the gauge counts (a new operator's pass).
    import errno

    from search.snapshot import ResourceShortage

    client = app.test_client()
    assert samples(client.get("/metrics").get_data(as_text=True))[("topichub_degraded", ())] == 0
    app.extensions["search"].note_shortage(ResourceShortage(OSError(errno.EMFILE, "Too many open files"), "a search"))
    text = client.get("/metrics").get_data(as_text=True)
    assert samples(text)[("topichub_degraded", ())] == 1
    help_line = next(line for line in text.splitlines() if line.startswith("# HELP topichub_degraded "))
    assert "refused" in help_line and "none answers" in help_line and "short of open files or memory" in help_line


def test_an_expired_time_budget_is_counted(index_dir):
    client = create_app({"INDEX_DIR": str(index_dir), "TESTING": True, "QUERY_BUDGET_S": 0.0}).test_client()
    assert client.get("/api/search?q=compute+power+deal", buffered=True).status_code == 200
    values = samples(client.get("/metrics", buffered=True).get_data(as_text=True))
    assert values[("topichub_search_budget_expiries_total", ())] == 1


def _get(url: str, request_id: str | None = None) -> tuple[int, dict[str, str], bytes]:
    return get(url, {"X-Request-ID": request_id} if request_id else None)


def test_two_workers_log_json_and_every_scrape_counts_both(index_dir, tmp_path):
    searches = 0
    log = tmp_path / "gunicorn.log"

    def answering_pids() -> set[int]:
        return {line["pid"] for line in map(json.loads, filter(lambda text: text.startswith("{"), log.read_text().splitlines()))
                if line.get("path") == "/api/search"}

    with gunicorn(index_dir, tmp_path, workers=2) as base:
        # A new connection per request, until the log shows that both workers answered some (the
        # kernel, not the test, decides which worker accepts a connection).
        while searches < 40 or (len(answering_pids()) < 2 and searches < 2000):
            status, headers, _ = _get(f"{base}/api/search?q={searches}+{QUERY.replace(' ', '+')}", f"s-{searches}")
            assert status == 200 and headers["X-Request-ID"] == f"s-{searches}"
            searches += 1
        assert _get(f"{base}/api/nothing", "missing-1")[0] == 404
        # A request is counted once its answer is sent: the last one may still be on its way in.
        wait_until(lambda: search_count(samples(_get(f"{base}/metrics")[2].decode())) >= searches,
                   "every search to be counted")
        scrapes = [samples(_get(f"{base}/metrics")[2].decode()) for _ in range(6)]
    written = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    access = {line["request_id"]: line for line in written if "method" in line}
    assert {access[f"s-{n}"]["status"] for n in range(searches)} == {200}
    assert len({access[f"s-{n}"]["pid"] for n in range(searches)}) == 2, "one worker answered every search"
    assert access["missing-1"]["status"] == 404 and access["missing-1"]["path"] == "/api/nothing"
    assert "stargate" not in (tmp_path / "gunicorn.log").read_text()
    # Whichever worker answers a scrape, it reports both workers' requests.
    assert {search_count(values) for values in scrapes} == {searches}
    assert {values[("topichub_result_cache_misses_total", ())] for values in scrapes} == {searches}
    assert all(values[("topichub_snapshot_documents", ())] == 57 for values in scrapes)


def test_a_request_the_server_refuses_leaves_no_query_in_its_error_log(index_dir, tmp_path):
    # gunicorn's warning quoted what was sent: "Invalid HTTP Version: 'private diagnosis HTTP/1.1'" of a
    # query with raw spaces, the whole request line of "?q=café_secret" (a QA pass).
    import socket

    sent = [b"GET /?q=my private diagnosis HTTP/1.1", "GET /?q=café_secret HTTP/1.1".encode(),
            b"GET /?q=x HTTP/1.1\r\nX-Note: s\x01ecret"]
    with gunicorn(index_dir, tmp_path, workers=1) as base:
        port = int(base.rpartition(":")[2])
        for head in sent:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(head + b"\r\nHost: x\r\n\r\n")
                assert sock.recv(64).startswith(b"HTTP/1.1 400")
        warned = lambda: [line for line in (tmp_path / "gunicorn.log").read_text(errors="replace").splitlines()
                          if "Invalid request from" in line]
        wait_until(lambda: len(warned()) == 3, "gunicorn's three warnings")
    assert [line.partition("[WARNING] ")[2] for line in warned()] == [
        "Invalid request from ip=127.0.0.1: Invalid HTTP Version: [request text withheld: 26 bytes]",
        "Invalid request from ip=127.0.0.1: Invalid HTTP request line: [request text withheld: 29 bytes]",
        "Invalid request from ip=127.0.0.1: Invalid HTTP Header: [request text withheld: 6 bytes]",
    ]
    log = (tmp_path / "gunicorn.log").read_text(errors="replace")
    # "café" as sent or as gunicorn reads its bytes ("cafÃ©"); not "caf" alone, which a request id's hex
    # holds now and then ("…5289868caf60…" failed a CI run).
    assert not any(word in log for word in ("private", "diagnosis", "secret", "café", "cafÃ")), log


def test_a_request_that_failed_is_logged_by_gunicorn_without_its_query(caplog):
    from gunicorn.config import Config

    from web.gunicorn_conf import WithholdingLogger

    logger = WithholdingLogger(Config())
    logger.error_log = logging.getLogger("test.gunicorn.error")
    caplog.set_level(logging.ERROR, "test.gunicorn.error")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logger.exception("Error handling request %s %s", "GET", "/api/search?q=my+private+diagnosis")
        logger.exception("Error handling request %s", "/feeds/search.atom")
    assert [r.getMessage() for r in caplog.records] == [
        "Error handling request GET /api/search?[query withheld]", "Error handling request /feeds/search.atom"]


def test_a_closed_log_output_is_said_once_not_a_traceback_a_request(index_dir, tmp_path):
    # `topichub serve | head -1`: each request after the first printed logging's 25-line "--- Logging
    # error ---" report of a BrokenPipeError on stderr (a QA pass).
    import os
    import subprocess
    import sys

    from bench.servers import free_port, workers_booted
    from tests.conftest import REPO

    port, errors = free_port(), tmp_path / "stderr.log"
    with errors.open("wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "python:web.gunicorn_conf", "--bind",
                                 f"127.0.0.1:{port}", "--workers", "1", "web:create_app()"], cwd=REPO,
                                env={**os.environ, "TOPICHUB_INDEX_DIR": str(index_dir)}, stdout=subprocess.PIPE, stderr=stderr)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: workers_booted(proc.pid, 1) and _answers(base), "the server to answer")
        proc.stdout.readline()  # the first line, as `head -1` reads it; then the pipe is closed
        proc.stdout.close()
        for n in range(5):
            assert _get(f"{base}/api/search?q=closed+{n}")[0] == 200
        wait_until(lambda: any(said in errors.read_text() for said in ("writes no more log lines", "Logging error")),
                   "a word on stderr")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    said = errors.read_text()
    assert "Traceback" not in said and "Logging error" not in said, said
    [line] = [line for line in said.splitlines() if "[INFO]" not in line]  # gunicorn's own lines aside
    assert re.fullmatch(r"warning: the JSON log's output was closed \(\[Errno 32\] Broken pipe\): process \d+ writes "
                        r"no more log lines", line), said


def _answers(base: str) -> bool:
    try:
        return _get(f"{base}/healthz")[0] == 200
    except OSError:
        return False


def test_the_operations_guides_grep_for_a_request_id_finds_its_access_line(client, logged):
    """docs/operations.md showed spaced JSON and said `grep '"request_id": "demo-1"'`: nothing matched."""
    import re

    from tests.conftest import REPO

    guide = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    pattern = re.search(r"`grep '([^']*demo-1[^']*)'`", guide)[1]
    client.get("/api/search?q=gpu", headers={"X-Request-ID": "demo-1"}, buffered=True)
    written = [JsonFormatter().format(record) for record in logged.records]
    assert any(pattern in line and '"method"' in line for line in written)
    assert "/api/documents/<id:doc_id>" in guide and "<path:doc_id>" not in guide
