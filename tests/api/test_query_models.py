"""One typed GET per catalog query, with its parameters documented and its rows typed, inside the
paging envelope every list of the API shares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.models import ROW_MODELS
from paperkg.api.settings import Settings
from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named
from tests.graph.results_gold import RESULT_QUERIES

ENVELOPE = {"query", "params", "items", "limit", "offset", "next_offset", "truncated"}


TIMED = frozenset({"timeline", "trending"})     # their examples need years: the arXiv example


@pytest.fixture(scope="module")
def arxiv_client(arxiv_example_store: Any) -> TestClient:
    return TestClient(create_app(Settings(store=str(Path(arxiv_example_store.path)))))


@pytest.fixture(scope="module")
def seed_client(seed_store_path: Path) -> TestClient:
    return TestClient(create_app(Settings(store=str(seed_store_path))))


@pytest.fixture(scope="module")
def results_client(results_store_path: Path) -> TestClient:
    return TestClient(create_app(Settings(store=str(results_store_path))))


@pytest.mark.parametrize("name", sorted(load_catalog()))
def test_every_returned_column_has_a_typed_field(name: str, arxiv_example_store: Any,
                                                 seed_store: Any, results_store: Any) -> None:
    store = arxiv_example_store if name in TIMED else results_store if name in RESULT_QUERIES else seed_store
    rows = run_named(store, name, load_catalog()[name].example_params())
    assert rows
    assert set(rows[0]) <= set(ROW_MODELS[name].model_fields)


@pytest.mark.parametrize("name", sorted(load_catalog()))
def test_openapi_documents_each_query(name: str, arxiv_client: TestClient) -> None:
    operation = arxiv_client.get("/openapi.json").json()["paths"][f"/queries/{name}"]["get"]
    documented = {p["name"]: p for p in operation["parameters"]}
    for p in load_catalog()[name].params:
        assert documented[p.name]["required"] is p.required
        assert documented[p.name]["description"]
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ROW_MODELS[name].__name__ in ok


@pytest.mark.parametrize("name", sorted(load_catalog()))
def test_example_answers_in_the_envelope(name: str, arxiv_client: TestClient, seed_client: TestClient,
                                         results_client: TestClient) -> None:
    """Rows are validated against the typed model by FastAPI (a mismatch would be a 500)."""
    client = arxiv_client if name in TIMED else results_client if name in RESULT_QUERIES else seed_client
    query = load_catalog()[name]
    params = query.example_params()
    response = client.get(f"/queries/{name}", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == ENVELOPE and body["items"]
    assert set(body["params"]) <= set(params)        # what was asked, not the defaults
    posted = client.post(f"/queries/{name}", json=params)
    assert posted.status_code == 200 and posted.json()["items"] == body["items"]


@pytest.mark.parametrize(("name", "params"), [
    ("top_entities", {"type": "Method"}),           # limit only: paged by the API
    ("trending", {"since": 2024, "min_papers": 1}),  # limit only
    ("papers_mentioning", {"name": "CoT"}),         # limit and offset in the Cypher
    ("entity_search", {"q": "reason"}),            # a substring with a few dozen names, under 1000
])
def test_pages_cut_the_whole_list(name: str, params: dict[str, Any], arxiv_client: TestClient) -> None:
    whole = arxiv_client.get(f"/queries/{name}", params={**params, "limit": 1000}).json()
    assert whole["next_offset"] is None and len(whole["items"]) >= 4
    pages, offset = [], 0
    while offset is not None:
        page = arxiv_client.get(f"/queries/{name}", params={**params, "limit": 3, "offset": offset}).json()
        assert page["limit"] == 3 and page["offset"] == offset
        pages += page["items"]
        offset = page["next_offset"]
    assert pages == whole["items"]


def test_unpaged_answers_say_so(arxiv_client: TestClient) -> None:
    body = arxiv_client.get("/queries/timeline", params={"name": "CoT"}).json()
    assert (body["limit"], body["offset"], body["next_offset"]) == (None, 0, None)
    assert [r["year"] for r in body["items"]] == sorted(r["year"] for r in body["items"])


@pytest.mark.parametrize(("path", "params", "words"), [
    ("/queries/neighbourz", {"name": "GRPO"}, ["did you mean 'neighbors'?"]),
    ("/queries/neighbors", {"name": "GRPO", "min_confidence": 2}, ["min_confidence"]),
    ("/queries/top_entities", {"type": "Method", "offset": -1}, ["offset"]),
])
def test_bad_requests_are_problems(path: str, params: dict[str, Any], words: list[str],
                                   arxiv_client: TestClient) -> None:
    response = arxiv_client.get(path, params=params)
    assert response.status_code in (404, 422)
    assert response.headers["content-type"].startswith("application/problem+json")
    for word in words:
        assert word in response.text
