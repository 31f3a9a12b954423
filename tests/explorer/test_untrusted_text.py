"""Untrusted text stays text: records whose titles, abstracts, authors, collections and urls carry
markup, event handlers and `javascript:`/`data:` urls go through a real build and a real server,
and browsing every page they reach in Chromium runs none of it and links nothing but http(s)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Dialog, Route, expect

from tests.explorer.conftest import Watched, serve, watch

PWN = "window.__pwned = (window.__pwned || []).concat"
RECORDS = [
    {"id": "inj-1", "title": f'<img src=x onerror="{PWN}(\'title\')">',
     "url": f"javascript:{PWN}('url')",
     "authors": [f"<script>{PWN}('author')</script>", "Ada <b onclick=alert(1)>Lovelace</b>"],
     "collection": "<i onmouseover=alert(1)>Evil collection</i>",
     "abstract": f'We propose <b onmouseover="{PWN}(1)">GRPO-X</b>, which improves GRPO on MATH500 and '
                 f"<img src=x onerror={PWN}(2)> GSM8K."},
    {"id": "inj-2", "title": "A data url", "url": f"data:text/html,<script>{PWN}('data')</script>",
     "abstract": f'We evaluate "><svg onload={PWN}(3)> PPO on GSM8K and compare it with GRPO.'},
    {"id": "inj-3", "title": "</title><script>alert(1)</script>", "url": "https://example.org/ok",
     "abstract": "We fine-tune Qwen3-8B with GRPO and report accuracy on MATH500 <script>alert(1)</script>."},
]
WEB_OR_LOCAL = ("#", "/", "http://", "https://")


@pytest.fixture(scope="module")
def injection_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("injection")
    (work / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    build = subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", str(work / "records.jsonl"),
                            "--store", str(work / "store")], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    # the two non-web urls are dropped at read time, each with a warning
    assert build.stderr.count("is not an http(s) address; dropped") == 2, build.stderr
    with serve(work / "store", work / "server.log") as base:
        yield base


def _hrefs(w: Watched) -> list[str]:
    return w.page.eval_on_selector_all("a[href]", "els => els.map((e) => e.getAttribute('href'))")


def test_nothing_runs_and_nothing_links_off_the_web(browser: Browser, injection_server: str) -> None:
    base = injection_server
    paper = httpx.get(f"{base}/papers/inj-1").json()
    assert paper["url"] is None and paper["title"] == RECORDS[0]["title"]
    entities = [e["id"] for p in ("inj-1", "inj-2", "inj-3")
                for e in httpx.get(f"{base}/papers/{p}").json()["entities"]]
    assert entities
    addresses = ["/#/", "/#/paper/inj-1", "/#/paper/inj-2", "/#/paper/inj-3", "/#/search?q=grpo",
                 "/#/queries/papers_mentioning?name=GRPO", *(f"/#/entity/{e}" for e in entities)]
    with watch(browser, base) as w:
        dialogs: list[str] = []

        def dismiss(dialog: Dialog) -> None:
            dialogs.append(dialog.message)
            dialog.dismiss()

        w.page.on("dialog", dismiss)
        for address in addresses:
            w.page.goto(base + address)
            expect(w.page.locator("main#view")).not_to_have_attribute("aria-busy", "true")
            w.page.locator("main#view a, main#view h1").first.hover()      # mouseover handlers, if any
            assert w.page.evaluate("window.__pwned") is None, address
            assert dialogs == [], address
            bad = [h for h in _hrefs(w) if not h.startswith(WEB_OR_LOCAL)]
            assert bad == [], (address, bad)
        # the markup is shown as the text it is
        w.page.goto(base + "/#/paper/inj-1")
        expect(w.page.locator("h1")).to_have_text(RECORDS[0]["title"])
        expect(w.page.locator("[data-testid=abstract]")).to_contain_text("<img src=x onerror=")
        expect(w.page.get_by_text("<script>", exact=False).first).to_be_visible()
        w.assert_clean()           # no CSP violation, no failed image load: nothing was parsed as HTML


def test_a_stored_non_web_url_is_shown_as_text(browser: Browser, injection_server: str) -> None:
    """A store built before the readers dropped such urls still answers with them: the paper page
    shows the url as text, not as a link."""
    base = injection_server
    with watch(browser, base) as w:
        def old_store(route: Route) -> None:
            answer = route.fetch()
            body = answer.json() | {"url": f"javascript:{PWN}('old store')"}
            route.fulfill(response=answer, json=body)

        w.page.route("**/papers/inj-3", old_store)
        w.page.goto(base + "/#/paper/inj-3")
        expect(w.page.locator("[data-testid=unlinked-url]")).to_have_text(f"javascript:{PWN}('old store')")
        assert [h for h in _hrefs(w) if h.lower().startswith("javascript:")] == []


def test_the_explorer_forbids_inline_script(injection_server: str) -> None:
    for path in ("/", "/static/explorer/app.js"):
        policy = httpx.get(injection_server + path).headers["content-security-policy"]
        script_src = next(d for d in policy.split(";") if d.strip().startswith("script-src")).split()
        assert script_src == ["script-src", "'self'"], policy
        assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    # the docs pages allow their own inline bootstrap by hash, nothing inline besides
    docs = httpx.get(injection_server + "/docs").headers["content-security-policy"]
    assert "'unsafe-inline'" not in next(d for d in docs.split(";") if "script-src" in d)
