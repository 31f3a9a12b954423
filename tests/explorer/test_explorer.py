"""The explorer at `/`, driven in Chromium the way a person uses it, on the seed store.

Each test ends with `assert_clean`: every request stayed on the server and the page logged no error.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from playwright.sync_api import Browser, expect

from tests.explorer.conftest import Watched, serve, watch

GRPO_NAMES = {"GRPO", "Group Relative Policy Optimization"}


def test_overview_counts_top_entities_and_rising(watched: Watched) -> None:
    page = watched.page
    page.goto(watched.base + "/")
    expect(page.locator("h1")).to_have_text("Overview")
    expect(page.locator(".card").first).to_contain_text("250")      # the seed store's papers
    panels = page.locator(".grid .panel")
    expect(panels).to_have_count(6)
    method = panels.filter(has_text="Method")
    expect(method.locator("li")).to_have_count(8)
    expect(method).to_contain_text("GRPO")
    # the seeds carry no years: the rising section says so rather than showing an empty table
    expect(page.get_by_text("carry no years")).to_be_visible()
    watched.assert_clean()


def test_search_grpo_open_it_click_through_and_back(watched: Watched) -> None:
    page = watched.page
    page.goto(watched.base + "/")
    page.locator("#q").press_sequentially("grpo", delay=30)
    suggestion = page.locator("#suggestions a").filter(has_text=re.compile(r"^MethodGRPO"))
    expect(suggestion).to_be_visible()
    expect(suggestion).to_contain_text("10 papers")
    suggestion.click()
    expect(page).to_have_url(re.compile(r"#/entity/method%3Agroup-relative-policy-optimization$"))
    expect(page.locator("h1")).to_have_text("GRPO")
    expect(page.locator(".facts")).to_contain_text("Group Relative Policy Optimization")

    # its papers, each with the evidence sentence and the mention highlighted in it
    evidence = page.locator("[data-testid=evidence]")
    expect(evidence).to_have_count(10)
    marks = evidence.locator("blockquote mark").all_inner_texts()
    assert len(marks) >= 3 and set(marks) <= GRPO_NAMES, marks
    sentences = evidence.locator("blockquote").all_inner_texts()
    assert all(len(s) > 40 for s in sentences[:3]), sentences

    # relations grouped by type, with support and confidence: what the API says GRPO is compared with
    # (which neighbours the extractor finds is the extractor's business, not the explorer's)
    answer = httpx.get(watched.base + "/queries/neighbors", params={"name": "GRPO", "limit": 100}).json()
    compared = [r for r in answer["items"] if r["relation"] == "COMPARED_WITH"]
    assert compared, answer
    expect(page.locator(".rel-group h3").first).to_be_visible()
    expect(page.locator(".rel-group").filter(has_text="compared with").first).to_contain_text(
        compared[0]["name"])

    # the neighbourhood is drawn: cytoscape holds the entity and its neighbours, on a canvas
    # (a function, not an expression: the page's Content-Security-Policy forbids eval)
    page.wait_for_function("() => window.paperkgGraph && window.paperkgGraph.nodes().length > 1")
    assert page.locator("#graph canvas").count() >= 1
    nodes = page.evaluate("window.paperkgGraph.nodes().map(n => n.data('label'))")
    neighbour = compared[0]
    assert "GRPO" in nodes and neighbour["name"] in nodes

    # click through the drawing to a neighbour, as a person would
    box = page.locator("#graph").bounding_box()
    assert box is not None
    pos = page.evaluate("(id) => { const p = window.paperkgGraph.getElementById(id)"
                        ".renderedPosition(); return [p.x, p.y]; }", neighbour["id"])
    page.mouse.click(box["x"] + pos[0], box["y"] + pos[1])
    expect(page.locator("h1")).to_have_text(neighbour["name"])
    page.go_back()
    expect(page.locator("h1")).to_have_text("GRPO")

    # on to a paper page, with the mentions in its abstract coloured and linked, and back
    first = evidence.first.locator("a").first
    first.click()
    expect(page).to_have_url(re.compile(r"#/paper/"))
    abstract = page.locator("[data-testid=abstract]")
    grpo = re.compile("^(GRPO|Group Relative Policy Optimization)$")
    mention = abstract.locator("a.m").filter(has_text=grpo)
    expect(mention.first).to_have_attribute("href", "#/entity/method%3Agroup-relative-policy-optimization")
    expect(page.locator(".facts")).to_contain_text("Collections")
    page.go_back()
    expect(page.locator("h1")).to_have_text("GRPO")
    expect(page.locator("[data-testid=evidence]")).to_have_count(10)
    watched.assert_clean()


def test_every_page_has_its_own_address(watched: Watched) -> None:
    page = watched.page
    page.goto(watched.base + "/#/search?q=policy&type=Method")
    expect(page.locator("h1")).to_contain_text("policy")
    rows = page.locator("table tr")
    expect(rows.nth(1)).to_be_visible()
    assert all("Method" in t for t in page.locator("table td:nth-child(2)").all_inner_texts())
    page.goto(watched.base + "/#/entity/PPO")
    expect(page.locator("h1")).to_have_text("PPO")
    watched.assert_clean()


def test_query_form_is_generated_from_the_catalog_and_runs(watched: Watched) -> None:
    page = watched.page
    page.goto(watched.base + "/#/queries")
    page.get_by_role("link", name="top_entities").click()
    form = page.locator("[data-testid=query-form]")
    expect(form.locator("select[name=type]")).to_be_visible()
    expect(form.locator("input[name=limit]")).to_have_attribute("type", "number")
    form.locator("select[name=type]").select_option("Dataset")
    form.locator("input[name=limit]").fill("3")
    form.get_by_role("button", name="Run").click()
    expect(page).to_have_url(re.compile(r"#/queries/top_entities\?type=Dataset&limit=3$"))
    result = page.locator("[data-testid=result]")
    expect(result.locator("tr")).to_have_count(4)        # header + 3 rows
    expect(result.locator("a").first).to_have_attribute("href", re.compile("^#/entity/dataset%3A"))

    # a query with a list parameter, straight from its address
    page.goto(watched.base + "/#/queries/papers_with_all?names=GRPO%2C+PPO")
    expect(page.locator("[data-testid=result] tr").nth(1)).to_be_visible()
    watched.assert_clean()


def test_a_server_with_a_token_asks_for_it_once(browser: Browser, seed_store_path: Path,
                                                 tmp_path: Path) -> None:
    """With PAPERKG_API_TOKEN the page loads (it is public) but the API answers 401 until the page
    sends the token; the explorer asks for it and sends it on every call after."""
    with serve(seed_store_path, tmp_path / "server.log", PAPERKG_API_TOKEN="s3cret-token") as base, \
            watch(browser, base) as w:
        page = w.page
        page.goto(base + "/#/entity/GRPO")
        token = page.get_by_label("API token")
        expect(token).to_be_visible()
        token.fill("s3cret-token")
        page.get_by_role("button", name="Use token").click()
        expect(page.locator("h1")).to_have_text("GRPO")
        expect(page.locator("[data-testid=evidence]")).to_have_count(10)
        page.goto(base + "/#/queries/top_entities?type=Task&limit=2")
        expect(page.locator("[data-testid=result] tr")).to_have_count(3)
        assert not w.refused
        # the only errors are the first calls' 401s, before the token was given
        assert w.errors and all("401" in e for e in w.errors), w.errors


def test_an_unknown_name_offers_the_closest_names_as_links(watched: Watched) -> None:
    """`#/entity/grppo` (a typo in the address bar) is not a dead end: the page offers GRPO."""
    page = watched.page
    page.goto(watched.base + "/#/entity/grppo")
    near = page.locator("[data-testid=suggestions]")
    expect(near).to_contain_text("Did you mean")
    near.get_by_role("link", name="GRPO", exact=True).click()
    expect(page.locator("h1")).to_have_text("GRPO")
    # the query form's not-found answer offers them too
    page.goto(watched.base + "/#/queries/timeline?name=Qwen3-8C")
    expect(page.locator("[data-testid=suggestions] a").first).to_have_text("Qwen3-8B")
