"""The HTTP API through TestClient: every route, every kind of error, and hostile requests."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from paperkg.api import deps
from paperkg.api.app import create_app
from paperkg.api.deps import get_store
from paperkg.api.settings import Settings
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.state import DB_FILE
from paperkg.graph.store import graph_stats

PROBLEM = "application/problem+json"


_SMALL_WORDS = {"a", "an", "and", "by", "for", "in", "of", "on", "or", "the", "to"}


def in_title_style(title: str) -> bool:
    """Titled like HTTP status phrases (`Not Found`, `Query Exceeds a Limit`): every word
    capitalised but short function words after the first."""
    return all(w[:1].isupper() or (i and w in _SMALL_WORDS) for i, w in enumerate(title.split(" ")))


def assert_problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["status"] == status
    assert {"type", "title", "status", "detail", "instance"} <= set(body)
    assert in_title_style(body["title"]), body["title"]
    assert "Traceback" not in response.text
    return body


def test_every_problem_title_has_one_style() -> None:
    from paperkg.api.problems import PROBLEMS

    assert not in_title_style("Not found") and in_title_style("Query Exceeds a Limit")
    assert [k.title for k in PROBLEMS.values() if not in_title_style(k.title)] == []


def digest(path: Path) -> str:
    return hashlib.sha256((path / DB_FILE).read_bytes()).hexdigest()


# ---------------------------------------------------------------- service, stats, docs


def test_health(client: TestClient) -> None:
    body = client.get("/health").json()
    assert body["status"] == "ok" and body["store"] == "embedded" and body["version"]


def test_health_says_while_the_graph_user_cypher_reads_is_loading(small_store_path: Path) -> None:
    """The embedded store answers the catalog from an index of its rows; the networkx graph user
    Cypher reads is built afterwards, and /health tells which (a /cypher request waits for it)."""
    store = EmbeddedStore(small_store_path)
    app = create_app(Settings(store=str(small_store_path)))
    app.dependency_overrides[get_store] = lambda: store
    try:
        with TestClient(app) as client:
            assert client.get("/queries/entity", params={"name": "GRPO"}).status_code == 200
            assert client.get("/health").json()["cypher"] == "loading"
            response = client.post("/cypher", json={"query": "MATCH (m:Method) RETURN count(m) AS n"})
            assert response.status_code == 200, response.text
            assert client.get("/health").json()["cypher"] == "ready"
    finally:
        store.close()


def test_a_served_store_builds_user_cyphers_graph_by_itself(small_store_path: Path) -> None:
    with TestClient(create_app(Settings(store=str(small_store_path)))) as client:
        deadline = time.monotonic() + 60
        while client.get("/health").json()["cypher"] != "ready":
            assert time.monotonic() < deadline, "the graph for user Cypher was not built within 60 s"
            time.sleep(0.05)


def test_stats_is_the_cli_json(client: TestClient, small_store: EmbeddedStore) -> None:
    response = client.get("/stats")
    assert response.status_code == 200
    assert response.json() == graph_stats(small_store.graph())
    assert response.json()["nodes"]["Paper"] == 3


def test_openapi_and_docs(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/health", "/stats", "/queries", "/queries/{name}", "/entities", "/entities/{id}",
            "/entities/{id}/neighbors", "/papers/{id}", "/cypher", "/export/graphml",
            "/export/gexf"} <= set(schema["paths"])
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if status[0] in "45":
                    assert list(response["content"]) == [PROBLEM], (path, method, status)
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert "Problem" in schema["components"]["schemas"]
    limit = next(p for p in schema["paths"]["/entities"]["get"]["parameters"] if p["name"] == "limit")
    assert limit["schema"]["minimum"] == 1 and limit["schema"]["maximum"] == 1000
    assert client.get("/docs").status_code == 200


# ---------------------------------------------------------------- catalog queries


def test_catalog_lists_queries(client: TestClient) -> None:
    from paperkg.queries.catalog import catalog_json

    response = client.get("/queries")
    assert response.status_code == 200
    assert response.json() == catalog_json()
    names = {q["name"] for q in response.json()}
    assert {"entity_search", "entity", "neighbors"} <= names


def test_named_query_get_and_post_agree(client: TestClient) -> None:
    got = client.get("/queries/entity_search", params={"q": "grpo"})
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["query"] == "entity_search" and body["params"] == {"q": "grpo"}
    assert any(row.get("name") == "GRPO" for row in body["items"])
    posted = client.post("/queries/entity_search", json={"q": "grpo"})
    assert posted.status_code == 200, posted.text
    assert posted.json()["items"] == body["items"]


def test_every_catalog_example_answers(client: TestClient) -> None:
    """Each catalog entry's example parameters are accepted: rows, or, for a name this tiny graph
    does not hold, the 404 that offers the names it does hold."""
    for query in client.get("/queries").json():
        params = {p["name"]: p["example"] for p in query["params"] if p["required"]}
        response = client.post(f"/queries/{query['name']}", json=params)
        unknown_name = response.status_code == 404 and "suggestions" in response.json()
        assert response.status_code == 200 or unknown_name, (query["name"], response.text)


def test_unknown_query_is_404(client: TestClient) -> None:
    body = assert_problem(client.get("/queries/no_such_query"), 404)
    assert "no_such_query" in body["detail"]
    assert_problem(client.post("/queries/no_such_query", json={}), 404)


def test_bad_query_params_are_4xx(client: TestClient) -> None:
    assert_problem(client.get("/queries/entity_search"), 422)  # q is required
    assert_problem(client.post("/queries/entity_search", json={"q": "x", "bogus": 1}), 422)
    assert_problem(client.post("/queries/entity_search", json={"q": {"nested": "object"}}), 422)
    assert_problem(client.post("/queries/entity_search", json=["q", "x"]), 422)


@pytest.mark.parametrize("name", [
    "..%2F..%2Fetc%2Fpasswd",
    "entity_search%27%20OR%201%3D1%20--",
    "entity_search;MATCH%20(n)%20DETACH%20DELETE%20n",
    "%00",
    "x" * 190,
    "entity_search.cypher",
    "__init__",
])
def test_injection_shaped_query_names(client: TestClient, small_store_path: Path, name: str) -> None:
    before = digest(small_store_path)
    response = client.get(f"/queries/{name}")
    assert 400 <= response.status_code < 500
    assert response.headers["content-type"].startswith(PROBLEM)
    assert digest(small_store_path) == before


# ---------------------------------------------------------------- entities


def test_entity_search(client: TestClient) -> None:
    body = client.get("/entities", params={"q": "policy"}).json()
    names = [e["name"] for e in body["items"]]
    assert set(names) == {"GRPO", "PPO"}  # matched through their long-form aliases
    assert body["offset"] == 0 and body["next_offset"] is None
    everything = client.get("/entities", params={"q": "a"}).json()["items"]
    counts = [e["paper_count"] for e in everything]
    assert counts == sorted(counts, reverse=True)
    assert client.get("/entities", params={"q": "Policy-Opt"}).json()["items"][0]["id"] in (
        "method:group-relative-policy-optimization", "method:proximal-policy-optimization")


def test_entity_search_type_and_paging(client: TestClient) -> None:
    body = client.get("/entities", params={"q": "o", "type": "Method"}).json()
    assert {e["type"] for e in body["items"]} == {"Method"}
    assert {e["name"] for e in body["items"]} == {"GRPO", "PPO"}
    pages, offset = [], 0
    while offset is not None:
        page = client.get("/entities", params={"q": "a", "limit": 2, "offset": offset}).json()
        assert len(page["items"]) <= 2
        pages.append(page["items"])
        offset = page["next_offset"]
    paged = [e["id"] for items in pages for e in items]
    whole = [e["id"] for e in client.get("/entities", params={"q": "a", "limit": 1000}).json()["items"]]
    assert paged == whole and len(whole) > 2
    assert client.get("/entities", params={"q": "a", "offset": 5000}).json()["items"] == []


def test_papers_mentioning_pages_by_paper_id(client: TestClient) -> None:
    """`limit` and `offset` cut the id-ordered list of papers; out-of-range values are 422."""
    whole = client.get("/queries/papers_mentioning", params={"name": "GRPO"}).json()["items"]
    assert [r["id"] for r in whole] == sorted(r["id"] for r in whole) and len(whole) >= 2
    pages = [client.get("/queries/papers_mentioning", params={"name": "GRPO", "limit": 1, "offset": i})
             .json()["items"] for i in range(len(whole) + 1)]
    assert [r for page in pages for r in page] == whole and pages[-1] == []
    posted = client.post("/queries/papers_mentioning", json={"name": "GRPO", "limit": 1, "offset": 1})
    assert posted.json()["items"] == whole[1:2]
    for bad in ({"limit": 0}, {"limit": 1001}, {"offset": -1}, {"offset": "x"}):
        response = client.get("/queries/papers_mentioning", params={"name": "GRPO", **bad})
        assert response.status_code == 422 and response.headers["content-type"].startswith(
            "application/problem+json"), bad


@pytest.mark.parametrize("params", [
    {"limit": 0}, {"limit": -1}, {"limit": 1001}, {"limit": 10**30}, {"limit": "ten"},
    {"offset": -1}, {"offset": 10**30}, {"type": "Paper"}, {"type": "method'; DROP"}, {"q": "x" * 600},
    {"q": ""}, {"limit": 1.5},
])
def test_entity_search_rejects_bad_params(client: TestClient, params: dict[str, Any]) -> None:
    body = assert_problem(client.get("/entities", params={"q": "a", **params}), 422)
    assert body["errors"] and body["type"] == "urn:paperkg:problem:validation"


def test_entity_search_rejects_unsearchable_text(client: TestClient) -> None:
    """Valid for the schema but not a name fragment: the catalog's validation answers 422."""
    body = assert_problem(client.get("/entities", params={"q": "--"}), 422)
    assert body["type"] == "urn:paperkg:problem:bad-input"
    assert_problem(client.get("/entities"), 422)  # q is required


def test_entity_by_id_and_alias(client: TestClient) -> None:
    by_id = client.get("/entities/method:group-relative-policy-optimization")
    assert by_id.status_code == 200, by_id.text
    entity = by_id.json()
    assert entity["name"] == "GRPO" and entity["type"] == "Method" and entity["paper_count"] == 2
    assert "Group Relative Policy Optimization" in entity["aliases"]
    by_alias = client.get("/entities/group-relative policy OPTIMIZATION")
    assert by_alias.status_code == 200
    assert by_alias.json()["id"] == "method:group-relative-policy-optimization"
    model = client.get("/entities/qwen3 8b").json()
    assert model["type"] == "Model" and model["family"]


def test_ambiguous_name_resolves_to_the_most_mentioned(client: TestClient,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`entity` returns one row per entity a name names (DP: dynamic programming, data-parallel...)."""
    from paperkg.api.routers import entities

    rows = [
        {"id": "method:dynamic-programming", "type": "Method", "name": "DP", "aliases": ["DP"], "papers": 5,
         "introduced": 0, "family": None, "ambiguous": True},
        {"id": "method:data-parallel", "type": "Method", "name": "DP", "aliases": ["DP"], "papers": 2,
         "introduced": 0, "family": None, "ambiguous": True},
    ]
    monkeypatch.setattr(entities, "run_named", lambda store, name, params: rows)
    body = client.get("/entities/DP").json()
    assert body["id"] == "method:dynamic-programming" and body["ambiguous"]
    assert body["same_name"] == ["method:data-parallel"]
    assert client.get("/entities/method:data-parallel").json()["same_name"] == ["method:dynamic-programming"]


@pytest.mark.parametrize("ref", ["no-such-entity", "x') DETACH DELETE n //", "method:nope", "%2e%2e"])
def test_unknown_entity_is_404(client: TestClient, small_store_path: Path, ref: str) -> None:
    before = digest(small_store_path)
    assert_problem(client.get(f"/entities/{ref}"), 404)
    assert_problem(client.get(f"/entities/{ref}/neighbors"), 404)
    assert digest(small_store_path) == before


def test_neighbors(client: TestClient) -> None:
    response = client.get("/entities/GRPO/neighbors")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["entity"]["id"] == "method:group-relative-policy-optimization"
    edges = {(n["name"], n["edge_type"], n["direction"]) for n in body["items"]}
    assert ("GSM8K", "EVALUATED_ON", "out") in edges
    assert ("PPO", "COMPARED_WITH", "out") in edges
    assert ("Qwen3-8B", "USES", "in") in edges
    assert len(body["items"]) == 4 and body["next_offset"] is None
    assert len(client.get("/entities/GRPO/neighbors", params={"limit": 1}).json()["items"]) == 1
    assert_problem(client.get("/entities/GRPO/neighbors", params={"limit": 0}), 422)


# ---------------------------------------------------------------- papers


def test_paper_with_evidence(client: TestClient) -> None:
    response = client.get("/papers/p1")
    assert response.status_code == 200, response.text
    paper = response.json()
    assert paper["id"] == "p1" and paper["collections"] == ["RL"] and paper["title"] == "Paper p1"
    abstract = paper["abstract"]
    assert abstract.startswith("We introduce Group Relative Policy Optimization")
    by_name = {e["name"]: e for e in paper["entities"]}
    assert set(by_name) == {"GRPO", "PPO", "accuracy", "GSM8K", "MATH500"}
    assert by_name["GRPO"]["introduced"] and not by_name["PPO"]["introduced"]
    assert by_name["GRPO"]["count"] == len(by_name["GRPO"]["mentions"]) == 3
    for entity in paper["entities"]:
        for m in entity["mentions"]:
            assert abstract[m["start"]:m["end"]] == m["surface"]
    assert client.get("/papers/p3").json()["collections"] == []


@pytest.mark.parametrize("pid", ["nope", "p1' OR '1'='1", "paper:p1", "..%2Fp1"])
def test_unknown_paper_is_404(client: TestClient, pid: str) -> None:
    assert_problem(client.get(f"/papers/{pid}"), 404)


# ---------------------------------------------------------------- raw Cypher


def test_read_cypher(client: TestClient) -> None:
    response = client.post("/cypher", json={"query": "MATCH (m:Model) RETURN m.name AS name"})
    assert response.status_code == 200, response.text
    assert response.json()["items"] == [{"name": "Qwen3-8B"}]


@pytest.mark.parametrize("query", [
    "CREATE (n:Method {name: 'evil'}) RETURN n",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n:Method) SET n.name = 'x' RETURN n",
    "MERGE (n:Method {id: 'method:evil'}) RETURN n",
    "MATCH (n:Method) REMOVE n.name RETURN n",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "CALL dbms.components() YIELD name RETURN name",
    "CALL apoc.load.json('file:///etc/passwd') YIELD value RETURN value",
    "MATCH (n) CALL { WITH n DETACH DELETE n } RETURN 1",
    "create (n:Method) return n",
    "/* read */ MATCH (n) WITH n LIMIT 1 CREATE (m:Method) RETURN m",
])
def test_writing_or_file_reading_cypher_is_refused(client: TestClient, small_store_path: Path,
                                                   small_store: EmbeddedStore, query: str) -> None:
    before_file, before_stats = digest(small_store_path), graph_stats(small_store.graph())
    response = client.post("/cypher", json={"query": query})
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    assert digest(small_store_path) == before_file
    assert graph_stats(small_store.graph()) == before_stats
    assert graph_stats(EmbeddedStore(small_store_path).graph()) == before_stats


@pytest.mark.parametrize("body", [{}, {"query": ""}, {"query": 42}, {"query": "RETURN 1", "extra": 1},
                                  {"query": "RETURN 1", "params": []}])
def test_cypher_body_validation(client: TestClient, body: dict[str, Any]) -> None:
    assert_problem(client.post("/cypher", json=body), 422)


@pytest.mark.parametrize(("path", "payload"), [
    ("/cypher", b'{"query": "RETURN \\ud800 AS x"}'),
    ("/cypher", b'{"query": "MATCH (n) RETURN n.name AS x", "params": {"x": "\\udfff"}}'),
    ("/cypher", b'{"query": "MATCH (n) RETURN n.name AS x", "params": {"\\ud800": 1}}'),
    ("/cypher", b'{"query": "MATCH (n) RETURN 1 AS x", "params": {"x": [{"y": "\\ud800"}]}}'),
    ("/queries/entity_search", b'{"q": "\\ud800"}'),
    ("/queries/entity_search", b'{"q": "a", "\\ud800": "b"}'),
])
def test_lone_surrogates_are_422_not_500(client: TestClient, path: str, payload: bytes) -> None:
    """Valid JSON, invalid Unicode: refused before it can reach a driver or the response encoder."""
    assert_problem(client.post(path, content=payload, headers={"content-type": "application/json"}), 422)


# ---------------------------------------------------------------- export


def test_graphml_download(client: TestClient, small_store: EmbeddedStore) -> None:
    response = client.get("/export/graphml")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/graphml+xml")
    assert response.headers["content-disposition"].startswith("attachment")
    assert "paperkg.graphml" in response.headers["content-disposition"]
    graph = nx.read_graphml(io.BytesIO(response.content))
    stats = graph_stats(small_store.graph())
    assert graph.number_of_nodes() == sum(stats["nodes"].values())
    assert graph.number_of_edges() == sum(stats["edges"].values())


def test_gexf_download(client: TestClient, small_store: EmbeddedStore) -> None:
    response = client.get("/export/gexf")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/gexf+xml")
    assert "paperkg.gexf" in response.headers["content-disposition"]
    graph = nx.read_gexf(io.BytesIO(response.content))
    stats = graph_stats(small_store.graph())
    assert graph.graph["mode"] == "dynamic"
    assert graph.number_of_nodes() == sum(stats["nodes"].values())
    assert graph.number_of_edges() == sum(stats["edges"].values())


# ---------------------------------------------------------------- protocol-level errors


def test_unknown_route_and_method(client: TestClient) -> None:
    assert_problem(client.get("/nope"), 404)
    body = assert_problem(client.delete("/stats"), 405)
    assert body["type"] == "about:blank" and body["title"] == "Method Not Allowed"
    assert "GET" in client.put("/entities").headers["allow"]


def test_malformed_json_is_400(client: TestClient) -> None:
    for payload in (b"{not json", b'{"query": "RETURN 1"', b"\xff\xfe", b'{"query": "\\ud800"'):
        response = client.post("/cypher", content=payload, headers={"content-type": "application/json"})
        body = assert_problem(response, 400)
        assert body["title"] == "Malformed JSON"
    response = client.post("/queries/entity_search", content=b"[1,",
                           headers={"content-type": "application/json"})
    assert_problem(response, 400)


def test_body_too_large_is_413(client: TestClient, settings: Settings) -> None:
    big = {"query": "RETURN 1", "params": {"x": "a" * settings.max_body_bytes}}
    body = assert_problem(client.post("/cypher", json=big), 413)
    assert str(settings.max_body_bytes) in body["detail"]
    assert_problem(client.post("/queries/entity_search", json={"q": "a" * settings.max_body_bytes}), 413)


def test_chunked_body_too_large_is_413(client: TestClient, settings: Settings) -> None:
    """No Content-Length: the limit is enforced while reading."""

    def chunks() -> Iterator[bytes]:
        yield b'{"query": "RETURN 1", "params": {"x": "'
        for _ in range(settings.max_body_bytes // 1024 + 2):
            yield b"a" * 1024
        yield b'"}}'

    response = client.post("/cypher", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert_problem(response, 413)


def test_body_just_under_limit_is_accepted(client: TestClient, settings: Settings) -> None:
    padding = settings.max_body_bytes - 200
    response = client.post("/queries/entity_search", json={"q": "grpo" + " " * padding})
    assert response.status_code != 413


def test_unexpected_error_is_a_500_problem_without_traceback(app: FastAPI) -> None:
    class Broken:
        kind = "broken"

        def stats(self) -> dict:
            raise RuntimeError("secret internals /etc/shadow")

    app.dependency_overrides[get_store] = lambda: Broken()
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/stats")
    body = assert_problem(response, 500)
    assert "secret" not in response.text and "RuntimeError" not in response.text
    assert body["type"] == "urn:paperkg:problem:internal"


def test_missing_store_is_503(tmp_path: Path) -> None:
    app = create_app(Settings(store=str(tmp_path / "absent")))
    with TestClient(app, raise_server_exceptions=False) as client:
        for path in ("/health", "/stats", "/entities?q=a", "/papers/p1", "/export/graphml"):
            body = assert_problem(client.get(path), 503)
            assert body["type"] == "urn:paperkg:problem:store-unavailable"
        assert client.get("/queries").status_code == 200  # the catalog needs no store
        assert client.get("/openapi.json").status_code == 200


# ---------------------------------------------------------------- lifecycle, config


def test_the_store_opens_at_startup_not_at_create_app(monkeypatch: pytest.MonkeyPatch,
                                                      small_store_path: Path) -> None:
    """Nothing opens at import or `create_app`; the lifespan opens and prepares the store once, so
    the first request does not pay for it; requests reuse it; shutdown closes it."""
    opened: list[object] = []
    closed: list[object] = []

    class Recording(EmbeddedStore):
        def close(self) -> None:
            closed.append(self)
            super().close()

    def fake_open(*args: Any, **kwargs: Any) -> EmbeddedStore:
        store = Recording(small_store_path)
        opened.append(store)
        return store

    prepared: list[object] = []
    monkeypatch.setattr(deps, "open_store", fake_open)
    monkeypatch.setattr(deps, "prepare", prepared.append)
    app = create_app(Settings(store=str(small_store_path)))
    assert opened == []
    with TestClient(app) as client:
        assert len(opened) == 1 and prepared == opened   # at startup, before any request
        client.get("/queries")
        client.get("/stats")
        client.get("/entities", params={"q": "grpo"})
        assert len(opened) == 1  # reused
        assert closed == []
    assert closed == opened  # closed at shutdown


def test_a_store_missing_at_startup_is_opened_by_a_later_request(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, small_store_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """Startup does not fail when the store is not there yet (built, or Neo4j up, later): it logs,
    the first request answers 503, and a request after the store appears gets it."""
    import shutil

    path = tmp_path / "later"
    app = create_app(Settings(store=str(path)))
    with caplog.at_level("WARNING", logger="paperkg.api"), \
            TestClient(app, raise_server_exceptions=False) as client:
        assert "store not ready at startup" in caplog.text
        assert client.get("/stats").status_code == 503
        shutil.copytree(small_store_path, path)
        assert client.get("/stats").json()["nodes"]["Paper"] == 3


def test_neo4j_settings_do_not_connect_at_create_app() -> None:
    """A dead Neo4j URI: create_app and non-store routes work; store routes say 503."""
    app = create_app(Settings(neo4j_uri="bolt://127.0.0.1:1", neo4j_password="pw"))
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/openapi.json").status_code == 200
        response = client.get("/stats")
        assert response.status_code >= 500 and response.headers["content-type"].startswith(PROBLEM)
        assert "pw" not in response.text


def test_importing_the_app_does_not_import_spacy() -> None:
    code = ("import sys; import paperkg.api.app as a; a.create_app(); "
            "bad = [m for m in sys.modules if m == 'spacy' or m.startswith('spacy.')]; "
            "assert not bad, bad; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_cors_is_off_by_default(client: TestClient) -> None:
    response = client.get("/health", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in response.headers
    preflight = client.options("/cypher", headers={"Origin": "https://evil.example",
                                                   "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in preflight.headers


def test_cors_when_configured(small_store: EmbeddedStore, small_store_path: Path) -> None:
    app = create_app(Settings(store=str(small_store_path), cors_origins=["https://ok.example"]))
    app.dependency_overrides[get_store] = lambda: small_store
    with TestClient(app) as client:
        ok = client.get("/health", headers={"Origin": "https://ok.example"})
        assert ok.headers["access-control-allow-origin"] == "https://ok.example"
        other = client.get("/health", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERKG_STORE", "/data/kg")
    monkeypatch.setenv("PAPERKG_CORS_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("PAPERKG_MAX_BODY_BYTES", "2048")
    monkeypatch.setenv("PAPERKG_NEO4J_PASSWORD", "hunter2")
    settings = Settings()
    assert settings.store == "/data/kg" and settings.max_body_bytes == 2048
    assert settings.cors_origins == ["https://a.example", "https://b.example"]
    assert settings.password() == "hunter2" and "hunter2" not in repr(settings)
    monkeypatch.setenv("PAPERKG_CORS_ORIGINS", json.dumps(["https://c.example"]))
    assert Settings().cors_origins == ["https://c.example"]
    with pytest.raises(ValueError):
        Settings(default_limit=500, max_limit=100)
    with pytest.raises(ValueError):
        Settings(max_limit=5000)


def test_settings_narrow_the_limit(small_store: EmbeddedStore, small_store_path: Path) -> None:
    app = create_app(Settings(store=str(small_store_path), default_limit=2, max_limit=5))
    app.dependency_overrides[get_store] = lambda: small_store
    with TestClient(app, raise_server_exceptions=False) as client:
        assert len(client.get("/entities", params={"q": "a"}).json()["items"]) == 2
        assert_problem(client.get("/entities", params={"q": "a", "limit": 6}), 422)
        limit = next(p for p in client.get("/openapi.json").json()["paths"]["/entities"]["get"]["parameters"]
                     if p["name"] == "limit")
        assert limit["schema"]["maximum"] == 5
