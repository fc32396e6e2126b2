"""Shared tools of the attack tests: a tally of hostile requests and checks that output is inert."""

from __future__ import annotations

import os
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import REPO

TEMPLATES = REPO / "web" / "templates"
SNIPPET_TAGS = frozenset({"mark"})
_TALLY = pytest.StashKey[Counter]()


@pytest.fixture()
def hostile(request) -> Counter:
    """Return the run's tally of hostile requests; it is printed when the run ends."""
    stash = request.config.stash
    if _TALLY not in stash:
        tally: Counter = Counter()
        stash[_TALLY] = tally

        def report() -> None:
            reporter = request.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None and tally:
                parts = ", ".join(f"{kind} {n:,}" for kind, n in sorted(tally.items()))
                reporter.write_line(f"attack tests: {sum(tally.values()):,} hostile requests sent ({parts})")

        request.config.add_cleanup(report)
    return stash[_TALLY]


def template_tags() -> frozenset[str]:
    """Return every tag name the templates can write, plus the highlighter's <mark>."""
    tags = set(SNIPPET_TAGS)
    for path in TEMPLATES.glob("*.html"):
        tags.update(t.lower() for t in re.findall(r"<([a-zA-Z][a-zA-Z0-9-]*)", path.read_text(encoding="utf-8")))
    return frozenset(tags)


def is_safe_url(url: str) -> bool:
    """Return True for an http(s) URL or a same-site relative one."""
    url = url.strip()
    if url.startswith(("//", "\\\\", "/\\")):
        return False
    return urlsplit(url).scheme.lower() in ("", "http", "https")


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag in ("script", "style")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.script_text.append(data)


def inert_page_problems(body: str, allowed_tags: frozenset[str], marker: str | None = None) -> list[str]:
    """Return what makes an HTML page unsafe: foreign tags, handlers, inline script, unsafe links."""
    problems = []
    if marker is not None and marker.lower() in body.lower():
        problems.append(f"the marker {marker!r} appears unescaped")
    parser = _Collector()
    parser.feed(body)
    parser.close()
    for tag, attrs in parser.tags:
        if tag not in allowed_tags:
            problems.append(f"tag <{tag}> is not one the templates write")
        for name, value in attrs.items():
            if name.startswith("on") or name in ("style", "srcdoc", "formaction"):
                problems.append(f"<{tag}> carries the attribute {name}={value!r}")
            if name in ("href", "src", "action") and value is not None and not is_safe_url(value):
                problems.append(f"<{tag} {name}={value!r}> is not an http(s) or relative URL")
        if tag == "script" and not (attrs.get("src") or "").startswith("/static/"):
            problems.append(f"a <script> that is not one of ours: {attrs}")
    if parser.script_text:
        problems.append(f"script or style text in the page: {parser.script_text[0][:80]!r}")
    return problems


def fragment_problems(markup: str) -> list[str]:
    """Return what is wrong with a highlighted fragment: any tag but a bare <mark>."""
    parser = _Collector()
    parser.feed(markup)
    parser.close()
    return [
        f"fragment carries <{tag} {attrs}>" for tag, attrs in parser.tags if tag not in SNIPPET_TAGS or attrs
    ]


def proc_stat(pid: int | str) -> list[str] | None:
    """Return /proc/PID/stat's fields from the state on (state, ppid, pgrp, ...), None once it has gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    return stat[stat.rindex(")") + 2 :].split()


def children(pid: int) -> list[int]:
    """Return the pids of *pid*'s child processes (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := proc_stat(entry.name)) is not None and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def open_files(pid: int) -> int:
    """Return how many file descriptors *pid* holds open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def open_paths(pid: int) -> list[str]:
    """Return what *pid*'s open file descriptors point at (none once it has gone)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []
    paths = []
    for fd in fds:
        try:
            paths.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue  # closed while we looked
    return paths
