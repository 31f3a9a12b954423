"""`/docs` and `/redoc` render in a real browser from files paperkg serves itself."""

from __future__ import annotations

import httpx

from tests.explorer.conftest import Watched


def test_swagger_ui_renders_the_operations_offline(watched: Watched) -> None:
    page = watched.page
    page.goto(f"{watched.base}/docs")
    operations = page.locator(".opblock-summary-path")
    operations.first.wait_for()
    paths = {p.replace("\u200b", "") for p in operations.all_inner_texts()}
    assert {"/entities", "/papers/{id}", "/queries/{name}", "/stats"} <= paths
    assert any(url.endswith("/static/vendor/swagger-ui/swagger-ui-bundle.js") for url in watched.requests)
    watched.assert_clean()


def test_redoc_renders_the_operations_offline(watched: Watched) -> None:
    page = watched.page
    page.goto(f"{watched.base}/redoc")
    page.get_by_text("Counts per node label and edge type").first.wait_for()
    assert page.locator("h2").count() > 5
    assert any(url.endswith("/static/vendor/redoc/redoc.standalone.js") for url in watched.requests)
    watched.assert_clean()


def test_doc_pages_name_no_other_host(seed_server: str) -> None:
    """The HTML itself points only at this server (the browser tests above would also catch it)."""
    for path in ("/docs", "/redoc"):
        html = httpx.get(seed_server + path).text
        assert "cdn." not in html and "fonts.googleapis" not in html and "tiangolo" not in html
