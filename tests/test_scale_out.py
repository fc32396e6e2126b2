"""Scale-out, for real: three replicas (`topichub serve`, gunicorn, each on its own index folder)
behind HAProxy from Debian with deploy/haproxy.cfg, while a load client searches through it.

A builder index is updated (documents added and deleted) and `topichub publish` rolls the new
snapshot to each replica in turn: no request fails, every answer is exactly what its snapshot
gives, and all replicas end on the new snapshot.  Then one replica is killed with SIGKILL under
load: HAProxy retries what it was sending there on the others, and no request fails.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.servers import free_port
from corpus.sources import DEFAULT_DIR
from index import store
from search.params import MAX_QUERY_CHARS
from tests.attack_support import proc_stat
from tests.conftest import REPO, TOPICHUB, topichub, write_jsonl
from tests.waiting import wait_until
from web import create_app

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

HAPROXY_CFG = REPO / "deploy" / "haproxy.cfg"
REPLICAS = 3
CLIENTS = 3  # the load's concurrency: requests in flight at once, at most
MAX_REQUESTS = 50_000  # and its total, whatever happens
ADDED = [
    {"id": "numbat-cluster", "title": "Numbat cluster opens", "summary": "A numbat-named GPU cluster.",
     "topics": ["training-infrastructure"]},
    {"id": "quoll-interconnect", "title": "Quoll interconnect ships", "summary": "A quoll-named network fabric.",
     "topics": ["training-infrastructure"]},
]
DELETED = "expanding-stargate-to-michigan"
URLS = ["/api/search?per_page=5", "/api/search?q=numbat", "/api/search?q=quoll", "/api/search?q=michigan",
        "/api/search?q=stargate&per_page=20", "/api/search?q=gpu+cluster&topic=compute-deals"]
# Failed requests allowed while a replica is killed under load: none, but for answers the dead
# replica had begun to send.  HAProxy retries a request that got no answer (or a 502/503/504) on
# another replica, but once an answer's head has gone on to the client no proxy can take it back:
# a SIGKILL between gunicorn's two writes (head, then body) cuts that answer short.  At most one
# request per client is in flight at the kill, so at most CLIENTS answers can be cut; nothing else
# may fail.
CUT_ANSWERS_ALLOWED = CLIENTS


@dataclass(frozen=True, slots=True)
class Answer:
    url: str
    status: int
    body: dict | None
    cut: bool = False  # the answer began (status and headers came) but its body was cut short


def fetch(url: str) -> Answer:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return Answer(url, response.status, json.loads(response.read()))
    except urllib.error.HTTPError as exc:
        with exc:
            return Answer(url, exc.code, None)
    except http.client.IncompleteRead:
        return Answer(url, 0, None, cut=True)
    except (OSError, ValueError, http.client.HTTPException):
        return Answer(url, 0, None)


@dataclass(frozen=True, slots=True)
class Process:
    """A server started in its own process group, so that it and its workers can be stopped together."""

    proc: subprocess.Popen
    base: str

    def running(self) -> list[int]:
        """Return the live processes left in its group (zombies are dead, whoever reaps them)."""
        left = []
        for entry in Path("/proc").glob("[0-9]*"):
            fields = proc_stat(entry.name)  # None: ended while we looked
            if fields is not None and int(fields[2]) == self.proc.pid and fields[0] != "Z":
                left.append(int(entry.name))
        return left

    def kill(self, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass


@contextmanager
def started(args: list[str], env: dict[str, str], log: Path, base: str, ready) -> Iterator[Process]:
    """Run *args* until the block ends, once *ready* says it answers; stop its whole process group."""
    with log.open("ab") as out:
        proc = subprocess.Popen(args, cwd=REPO, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    server = Process(proc, base)
    try:
        wait_until(lambda: ready(server), f"{args[0]} on {base} (its log: {log})", alive=proc)
        yield server
    finally:
        server.kill(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            proc.wait()


def healthz(base: str) -> dict | None:
    answer = fetch(base + "/healthz")
    return answer.body if answer.status == 200 else None


def replica(index_dir: Path, log: Path) -> AbstractContextManager[Process]:
    port = free_port()
    args = [TOPICHUB, "serve", "--index-dir", str(index_dir), "--port", str(port), "--workers", "1"]
    return started(args, {}, log, f"http://127.0.0.1:{port}", lambda s: healthz(s.base) is not None)


def haproxy(replicas: list[Process], log: Path) -> AbstractContextManager[Process]:
    port = free_port()
    env = {"TOPICHUB_LB_BIND": f"127.0.0.1:{port}"}
    env.update({f"TOPICHUB_REPLICA_{n}": r.base.removeprefix("http://") for n, r in enumerate(replicas, 1)})

    def ready(server: Process) -> bool:
        # Answers through the balancer, a few times over (HAProxy counts servers up until checks fail).
        return all(healthz(server.base) is not None for _ in range(2 * len(replicas)))

    return started([shutil.which("haproxy", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin") or "haproxy", "-db", "-f", str(HAPROXY_CFG)], env, log,
                   f"http://127.0.0.1:{port}", ready)


class Load:
    """A bounded load client: CLIENTS threads searching through the balancer until stopped."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.answers: list[Answer] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(n,)) for n in range(CLIENTS)]

    def _run(self, offset: int) -> None:
        i = offset
        while not self._stop.is_set() and len(self.answers) < MAX_REQUESTS:
            self.answers.append(fetch(self.base + URLS[i % len(URLS)]))
            i += 1

    def more(self, count: int) -> None:
        """Wait until *count* more answers came in (the load runs on meanwhile)."""
        target = len(self.answers) + count
        wait_until(lambda: len(self.answers) >= target or self._stop.is_set(), f"{count} more answers")

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


def expected_answers(root: Path) -> dict[str, tuple[int, list[str]]]:
    """Return, per URL, the total and hit ids the snapshot now published under *root* gives."""
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    bodies = {url: client.get(url).get_json() for url in URLS}
    return {url: (body["total"], [h["id"] for h in body["hits"]]) for url, body in bodies.items()}


def retried(log: Path) -> int:
    """Return how many requests HAProxy's log shows as retried (the "+N" or N in act/fe/be/srv/retries)."""
    # After the termination state ("----", "SD--", ...): actconn/feconn/beconn/srv_conn/retries.
    counters = re.findall(r" [A-Za-z-]{4} \d+/\d+/\d+/\d+/\+?(\d+) ", log.read_text(errors="replace"))
    return sum(1 for n in counters if int(n) > 0)


def test_a_snapshot_rolls_out_to_replicas_behind_haproxy_under_load_and_a_killed_replica_costs_nothing(tmp_path):
    corpus = shutil.copytree(DEFAULT_DIR, tmp_path / "corpus")
    builder = tmp_path / "builder"
    topichub("build", corpus, "--index-dir", builder, "--procs", 1)
    first = store.current_id(builder)
    expected = {first: expected_answers(builder)}
    roots = [tmp_path / f"replica{n}" for n in range(1, REPLICAS + 1)]
    topichub("publish", "--index-dir", builder, *(a for root in roots for a in ("--to", root)))
    lb_log = tmp_path / "haproxy.log"

    with ExitStack() as stack:
        replicas = [stack.enter_context(replica(root, tmp_path / f"{root.name}.log")) for root in roots]
        lb = stack.enter_context(haproxy(replicas, lb_log))
        # A client's own X-Forwarded-Proto reached gunicorn from the balancer's 127.0.0.1, which it
        # trusts: it put https:// into the /opensearch.xml cached a day.  The balancer drops it.
        forged = urllib.request.Request(lb.base + "/opensearch.xml", headers={"X-Forwarded-Proto": "https", "X-Forwarded-Ssl": "on"})
        with urllib.request.urlopen(forged, timeout=30) as response:
            description = response.read().decode()
        assert 'template="http://' in description and "https://" not in description
        # The longest query in any script passes the balancer too (its buffer held 16 KB by default).
        longest = urllib.parse.quote(("😀 stargate " * 400)[:MAX_QUERY_CHARS])
        assert fetch(lb.base + "/api/search?q=" + longest).status == 200

        # -- the roll-out ------------------------------------------------------------------------
        # Per replica: publish's own copy, verify and switch; the command's wall time; until its /healthz named it.
        switch_seconds: list[tuple[float, float, float]] = []
        with Load(lb.base) as load:
            load.more(100)
            changes = write_jsonl(tmp_path / "changes.jsonl", [*ADDED, {"id": DELETED, "delete": True}])
            topichub("update", changes, "--index-dir", builder)
            new = store.current_id(builder)
            expected[new] = expected_answers(builder)
            # The change shows in the answers: each one can only match the snapshot it names.
            assert all(expected[first][url] != expected[new][url] for url in URLS[:4])
            for server, root in zip(replicas, roots):
                began = time.monotonic()
                out = topichub("publish", "--index-dir", builder, "--to", root)
                published = time.monotonic() - began
                serving = wait_until(lambda: (healthz(server.base) or {}).get("snapshot") == new,
                                     f"{server.base} to serve {new}")
                copy = float(re.search(r"copied in ([\d.]+) s\)", out).group(1))
                switch_seconds.append((copy, published, published + serving))
                load.more(100)  # answers from a fleet with replicas on either snapshot
        rollout = load.answers

        failed = [(a.url, a.status) for a in rollout if a.status != 200 or a.body is None]
        seen = Counter(a.body["snapshot"] for a in rollout if a.body)
        print(f"\nroll-out: {len(rollout)} requests through HAProxy, {len(failed)} failed, {retried(lb_log)} retried; "
              "answers per snapshot "
              f"{dict(seen)}; seconds per replica (copy+verify+switch / publish command / until /healthz "
              "named it): " + ", ".join(f"{c:.3f} / {p:.2f} / {s:.2f}" for c, p, s in switch_seconds))
        assert failed == []
        mismatched = [(a.url, a.body["snapshot"]) for a in rollout
                      if expected.get(a.body["snapshot"], {}).get(a.url.removeprefix(lb.base))
                      != (a.body["total"], [h["id"] for h in a.body["hits"]])]
        assert mismatched == []  # every answer is exactly what the snapshot it names gives
        assert set(seen) == {first, new} and seen[first] > 0 and seen[new] > 0
        for server in replicas:
            health = healthz(server.base)
            assert health["snapshot"] == new and health["sources_changed"] is None
            assert health["replica"]["from"] == str(builder.resolve())
        for _ in range(2 * REPLICAS):  # round robin: every replica answers some of these
            numbat = fetch(lb.base + "/api/search?q=numbat").body
            assert [h["id"] for h in numbat["hits"]] == ["numbat-cluster"]
            assert fetch(lb.base + "/api/search?q=quoll").body["total"] == 1
            assert DELETED not in [h["id"] for h in fetch(lb.base + "/api/search?q=michigan").body["hits"]]

        # -- a replica killed under load ---------------------------------------------------------
        retried_before = retried(lb_log)
        with Load(lb.base) as load:
            load.more(100)
            victim = replicas[1]
            assert len(victim.running()) == 2  # its gunicorn master and worker
            victim.kill()
            victim.proc.wait(timeout=10)
            load.more(300)
        after_kill = load.answers
        failed = [(a.url, a.status) for a in after_kill if (a.status != 200 or a.body is None) and not a.cut]
        cut = [a.url for a in after_kill if a.cut]
        retries = retried(lb_log) - retried_before
        print(f"kill -9 of one replica: {len(after_kill)} requests, {len(failed)} failed, {len(cut)} cut short "
              f"by the kill, {retries} retried by HAProxy on another replica")
        assert failed == []
        assert len(cut) <= CUT_ANSWERS_ALLOWED, cut
        assert retries > 0  # requests did go to the dead replica, and were sent on
        assert {a.body["snapshot"] for a in after_kill if a.body} == {new}
    # Every process started here is stopped, workers included: their process groups are empty.
    for server in (*replicas, lb):
        assert server.proc.poll() is not None
        assert server.running() == [], server.base


def sent_through(base: str, headers: list[tuple[str, str]]) -> str:
    """Send a search through the balancer with *headers* (a name may repeat); return its X-Request-ID."""
    host, port = urllib.parse.urlsplit(base).netloc.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.putrequest("GET", "/api/search?q=gpu")
        for name, value in headers:
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        response.read()
        assert response.status == 200
        return response.headers["X-Request-ID"]
    finally:
        connection.close()


def test_a_request_through_haproxy_has_one_id_in_haproxy_s_log_and_the_service_s(tmp_path, index_dir):
    # HAProxy's log (option httplog) had no request id and sent none: the service made up its own, so a
    # line of one log could not be found in the other (docs/operations.md, "Request ids").  Now the
    # balancer chooses the id by the service's rule (a client's own when it is 1-128 printable
    # characters, no blank; else a UUID of its own), sends it on and writes it in its line.
    root = shutil.copytree(index_dir, tmp_path / "index", symlinks=True)
    lb_log, replica_log = tmp_path / "haproxy.log", tmp_path / "replica.log"
    with ExitStack() as stack:
        server = stack.enter_context(replica(root, replica_log))
        lb = stack.enter_context(haproxy([server] * REPLICAS, lb_log))  # one replica in the three places
        own = sent_through(lb.base, [])
        kept = sent_through(lb.base, [("X-Request-ID", "client-tag-42")])
        longest = sent_through(lb.base, [("X-Request-ID", "t" * 128)])
        # Each printable character but a blank and " # \ { | }, which HAProxy's line writes as #22 #23
        # #7B #7C #7D (an id "a}b" was {a#7Db} there, "a}b" in the service's) or the service's JSON
        # line escapes (" and \): those are refused, and the id is one of HAProxy's.
        rest = "".join(chr(code) for code in range(0x21, 0x7F) if chr(code) not in '"#\\{|}')
        printable = sent_through(lb.base, [("X-Request-ID", rest)])
        refused = ("has a blank", "t" * 129, "é", "a}b", 'a"b', "a{b", "a|b", "a#b", "a\\")
        replaced = [sent_through(lb.base, [("X-Request-ID", sent)]) for sent in refused]
        twice = sent_through(lb.base, [("X-Request-ID", "first-line"), ("X-Request-ID", "second-line")])

        ids = [own, kept, longest, printable, *replaced, twice]

        def searches(log: Path, ids_of) -> list[str]:
            return [rid for line in log.read_text(errors="replace").splitlines() for rid in ids_of(line)]

        def in_haproxy_log() -> list[str]:  # the captured id, in braces before the request line
            return searches(lb_log, lambda line: re.findall(r' \{([^}]*)\} "GET /api/search\?q=gpu ', line))

        def in_service_log() -> list[str]:
            return searches(replica_log, lambda line: [json.loads(line)["request_id"]]
                            if line.startswith("{") and '"path":"/api/search"' in line else [])

        wait_until(lambda: len(in_haproxy_log()) == len(in_service_log()) == len(ids), "a line per search in each log")
        assert in_haproxy_log() == in_service_log() == ids
        service_log = replica_log.read_text(errors="replace")  # one grep finds both: written as it is in each
        assert all(f'"request_id":"{rid}"' in service_log for rid in ids)
        # HAProxy's own ids are UUIDs, one a request; a client's id is kept as the service would keep it.
        assert all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", rid) for rid in (own, *replaced))
        assert len({own, *replaced}) == 1 + len(refused) and (kept, longest, printable) == ("client-tag-42", "t" * 128, rest)
        assert twice == "second-line"  # one id, not the two lines joined by a comma
