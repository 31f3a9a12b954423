"""The explorer's result pages (issue 27), in Chromium on a served store of real abstracts with their
gold results: a benchmark's leaderboard (sortable, evidence on hover, links) and its best value by
year drawn with the vendored uPlot; a method's reported results. Nothing leaves the server, nothing
logs an error, and names are shown as text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.explorer.conftest import Watched, serve, watch


@pytest.fixture(scope="module")
def results_server(results_store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(results_store_path, tmp_path_factory.mktemp("results-server") / "server.log") as base:
        yield base


@pytest.fixture
def page_on(browser: Browser, results_server: str) -> Iterator[Watched]:
    with watch(browser, results_server) as w:
        yield w


def _values(table: Locator) -> list[float]:
    return [float(v.split()[0]) for v in table.locator("tbody tr td:nth-child(3)").all_inner_texts()]


def test_a_benchmark_page_shows_its_leaderboard_and_the_best_value_by_year(page_on: Watched) -> None:
    page, base = page_on.page, page_on.base
    board = httpx.get(base + "/queries/leaderboard", params={"benchmark": "Gait3D"}).json()["items"]
    sota = httpx.get(base + "/queries/sota_over_time",
                     params={"benchmark": "Gait3D", "metric": "rank-1 accuracy"}).json()["items"]
    assert len(board) >= 8 and len(sota) >= 4
    page.goto(base + "/#/entity/dataset%3Agait3d")
    expect(page.locator("h1")).to_have_text("Gait3D")
    table = page.locator("[data-testid=leaderboard]")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(board))
    # best first, as the query ranks them; each row's sentence on hover
    first = rows.first
    expect(first).to_contain_text(board[0]["subject"])
    expect(first).to_contain_text(board[0]["value"])
    assert first.get_attribute("title") == board[0]["evidence"]
    assert board[0]["evidence"] and board[0]["value"] in board[0]["evidence"]
    # links to the method, the metric and the paper
    expect(first.locator(f'a[href="#/entity/{board[0]["subject_id"].replace(":", "%3A")}"]')).to_have_count(1)
    expect(first.locator(f'a[href="#/paper/{board[0]["paper"]}"]')).to_have_count(1)
    # sorting by value: one way, then the other
    table.locator("th[data-col=value]").click()
    ascending = _values(table)
    assert ascending == sorted(ascending) and len(ascending) == len(board)
    table.locator("th[data-col=value]").click()
    assert _values(table) == sorted(ascending, reverse=True)
    expect(table.locator("th[data-col=value]")).to_have_attribute("aria-sort", "descending")
    # the chart: uPlot's canvas, one point per year of sota_over_time
    page.wait_for_function("() => window.paperkgChart && window.paperkgChart.data[0].length > 0")
    assert page.locator("[data-testid=sota-chart] canvas").count() >= 1
    years = page.evaluate("Array.from(window.paperkgChart.data[0])")
    values = page.evaluate("Array.from(window.paperkgChart.data[1])")
    assert years == [r["year"] for r in sota] and values == [r["number"] for r in sota]
    # a name written as markup is text
    markup = rows.filter(has_text="<i>GaitGL</i>")
    expect(markup).to_have_count(1)
    assert table.locator("i").count() == 0
    page_on.assert_clean()


def test_a_method_page_lists_its_results_and_links_back(page_on: Watched) -> None:
    page, base = page_on.page, page_on.base
    results = httpx.get(base + "/queries/results_of", params={"name": "GaitSet"}).json()["items"]
    assert len(results) == 4
    page.goto(base + "/#/entity/dataset%3Agait3d")
    page.locator("[data-testid=leaderboard] a", has_text="GaitSet").first.click()
    expect(page.locator("h1")).to_have_text("GaitSet")
    table = page.locator("[data-testid=results-of]")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(results))
    assert sorted(rows.locator("td:first-child").all_inner_texts()) == sorted(
        r["value"] + (" ↓" if r["direction"] == "lower" else "") for r in results)
    titles = {rows.nth(i).get_attribute("title") for i in range(len(results))}
    assert titles == {r["evidence"] for r in results}
    table.locator("a", has_text="GREW").first.click()
    expect(page.locator("h1")).to_have_text("GREW")
    expect(page.locator("[data-testid=leaderboard] tbody tr").first).to_be_visible()
    page_on.assert_clean()
