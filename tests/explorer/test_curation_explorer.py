"""The entity page's edit menu and the review page, in Chromium: absent on a server without a token,
and on a server with one they record merges, retypes, drops and a review item's suggestion that the
page then shows (the served graph reloads)."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.explorer.conftest import Watched, serve, watch


def test_no_edit_menu_without_a_token(watched: Watched) -> None:
    page = watched.page
    page.goto(watched.base + "/#/entity/GRPO")
    expect(page.get_by_role("link", name="Review")).to_be_hidden()
    expect(page.locator("h1")).to_have_text("GRPO")
    expect(page.locator("[data-testid=evidence]").first).to_be_visible()
    expect(page.locator("[data-testid=edit-menu]")).to_have_count(0)
    watched.assert_clean()


def test_the_edit_menu_merges_retypes_and_drops(browser: Browser, seed_store_path: Path,
                                                 tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(seed_store_path, store)
    with serve(store, tmp_path / "server.log", PAPERKG_API_TOKEN="edit-token") as base, \
            watch(browser, base) as w:
        page = w.page
        page.goto(base + "/#/entity/DPO")
        page.get_by_label("API token").fill("edit-token")
        page.get_by_role("button", name="Use token").click()
        expect(page.locator("h1")).to_have_text("DPO")
        menu = page.locator("[data-testid=edit-menu]")
        menu.locator("summary").click()
        menu.get_by_label("Merge into").fill("RLHF")
        menu.get_by_role("button", name="Merge").click()
        expect(page.locator("h1")).to_have_text("RLHF", timeout=20_000)
        expect(page.locator(".facts")).to_contain_text("DPO")         # the merged name, an alias now

        menu = page.locator("[data-testid=edit-menu]")
        menu.locator("summary").click()
        menu.get_by_label("New type").select_option("Task")
        menu.get_by_role("button", name="Retype").click()
        expect(page.locator(".badge").first).to_have_text("Task", timeout=20_000)

        page.goto(base + "/#/entity/pruning")
        expect(page.locator("h1")).to_have_text("pruning")
        page.once("dialog", lambda dialog: dialog.accept())
        menu = page.locator("[data-testid=edit-menu]")
        menu.locator("summary").click()
        menu.get_by_role("button", name="Drop").click()
        expect(page.locator("h1")).to_have_text("Overview", timeout=20_000)
        page.goto(base + "/#/entity/pruning")
        expect(page.locator(".error")).to_contain_text("no entity named 'pruning'")

        page.get_by_role("link", name="Review").click()              # the queue; accepting its first item
        rows = page.locator("[data-testid=review] tr")
        expect(rows.nth(1)).to_be_visible()
        first = rows.nth(1).locator("td").nth(1).inner_text()
        rows.nth(1).get_by_role("button", name="Accept").click()
        expect(rows.nth(1).locator("td").nth(1)).not_to_have_text(first, timeout=20_000)
        assert not w.refused
        # the errors are the first calls' 401s (before the token) and the last page's 404
        assert all("401" in e or "404" in e for e in w.errors), w.errors
