"""axe-core finds no serious or critical accessibility violation, in light and dark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.browser.conftest import AXE, DESKTOP

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

PAGES = {
    "search": "/?q=stargate",
    "no-results": "/?q=stargate&kind=guide&topic=funding",
    "event": "/events/expanding-stargate-to-michigan",
    "guide": "/guides/training-infrastructure",
    "topics": "/topics",
    "tips": "/help",
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pages_have_no_serious_accessibility_violations(browser: Browser, base_url: str, tmp_path: Path, scheme: str):
    # axe is injected as an inline script, which the page's CSP forbids; only these runs bypass it.
    context = browser.new_context(base_url=base_url, viewport=DESKTOP, color_scheme=scheme, bypass_csp=True)
    page = context.new_page()
    failures = {}
    try:
        for name, url in PAGES.items():
            page.goto(url)
            assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
            page.add_script_tag(path=str(AXE))
            violations = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
            bad = [
                {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
                for v in violations
                if v["impact"] in ("serious", "critical")
            ]
            if bad:
                failures[name] = bad
            page.screenshot(path=str(tmp_path / f"{name}-{scheme}.png"), full_page=True)
    finally:
        context.close()
    assert not failures, json.dumps(failures, indent=1)
