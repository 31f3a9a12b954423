"""A real `paperkg serve` on the seed store and a real Chromium (Debian's, driven by Playwright).

Every request a page makes goes through a route handler that records its URL and refuses any that
is not the server's own, so a test can assert that nothing left the machine; console errors and
uncaught page errors are recorded too. Playwright never downloads a browser here: it launches
`/usr/bin/chromium` (`.ci/run` installs it when missing).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, Route, sync_playwright

from tests import live

CHROMIUM = os.environ.get("PAPERKG_TEST_CHROMIUM", "/usr/bin/chromium")


@contextmanager
def serve(store: Path, log: Path, **env_extra: str) -> Iterator[str]:
    """`paperkg serve` on `store`, as a user starts it (with `env_extra` set); its base URL."""
    with live.serve(["--store", str(store)], log, env_extra) as (base, _):
        yield base


@pytest.fixture(scope="session")
def seed_server(seed_store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The seed store served with default settings."""
    with serve(seed_store_path, tmp_path_factory.mktemp("explorer-server") / "server.log") as base:
        yield base


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: install Debian's `chromium` (.ci/run does)")
    browser = playwright.chromium.launch(executable_path=CHROMIUM)
    yield browser
    browser.close()


@dataclass
class Watched:
    """A page, and what it did: every URL it asked for, the ones refused, its console errors."""

    page: Page
    base: str
    requests: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        """Nothing left the machine and nothing went wrong in the page."""
        assert self.requests, "the page made no request at all"
        assert not self.refused, f"requests to other hosts: {self.refused}"
        assert all(url.startswith(self.base + "/") or url == self.base for url in self.requests)
        assert not self.errors, f"console errors: {self.errors}"


@pytest.fixture
def watched(browser: Browser, seed_server: str) -> Iterator[Watched]:
    with watch(browser, seed_server) as w:
        yield w


@contextmanager
def watch(browser: Browser, base: str) -> Iterator[Watched]:
    """A new browser context whose every request to another host than `base` is refused and recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    w = Watched(page, base)

    def route(route: Route) -> None:
        url = route.request.url
        w.requests.append(url)
        if url.startswith(base + "/"):
            route.continue_()
        else:
            w.refused.append(url)
            route.abort()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            w.errors.append(f"{message.text} ({message.location.get('url')})")

    context.route("**/*", route)
    page.on("console", console)
    page.on("pageerror", lambda err: w.errors.append(f"uncaught: {err}"))
    page.set_default_timeout(15_000)
    try:
        yield w
    finally:
        context.close()
