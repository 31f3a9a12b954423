"""The API on Neo4j answers exactly as on the embedded store, and refuses the same hostile requests
with nothing written. Runs against the real engine (`neo4j` marker; CI starts it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.deps import get_store
from paperkg.api.settings import Settings
from paperkg.graph.embedded import EmbeddedStore
from paperkg.queries.catalog import load_catalog

pytestmark = pytest.mark.neo4j

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def neo4j_client(neo4j_small_store: Any) -> Iterator[TestClient]:
    app = create_app(Settings())
    app.dependency_overrides[get_store] = lambda: neo4j_small_store
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def embedded_client(small_store: EmbeddedStore) -> Iterator[TestClient]:
    app = create_app(Settings())
    app.dependency_overrides[get_store] = lambda: small_store
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


SAME = [
    ("GET", "/stats", None),
    ("GET", "/queries", None),
    ("GET", "/entities?q=policy", None),
    ("GET", "/entities?q=a&type=Method&limit=1&offset=1", None),
    ("GET", "/entities?q=a&limit=3&offset=2", None),
    ("GET", "/entities/method:group-relative-policy-optimization", None),
    ("GET", "/entities/proximal-policy optimization", None),
    ("GET", "/entities/Qwen3-8B", None),
    ("GET", "/entities/GRPO/neighbors", None),
    ("GET", "/entities/PPO/neighbors?limit=2&offset=1", None),
    ("GET", "/entities/GRPO/papers", None),
    ("GET", "/entities/PPO/papers?limit=1&offset=1", None),
    ("GET", "/entities/nope", None),
    ("GET", "/queries/entity_search?q=grpo", None),
    ("POST", "/queries/neighbors", {"name": "GRPO", "limit": 3}),
    ("POST", "/queries/papers_mentioning", {"name": "ppo"}),
    ("GET", "/queries/papers_mentioning?name=GRPO&limit=1", None),
    ("GET", "/queries/papers_mentioning?name=GRPO&limit=1&offset=1", None),
    ("POST", "/queries/papers_mentioning", {"name": "accuracy", "limit": 1, "offset": 5}),
    ("GET", "/queries/papers_mentioning?name=GRPO&limit=0", None),
    ("GET", "/queries/papers_mentioning?name=GRPO&offset=-1", None),
    ("GET", "/queries/papers_mentioning?name=GRPO&limit=1001", None),
    ("GET", "/queries/no_such_query", None),
    ("POST", "/queries/entity_search", {"q": "x", "bogus": 1}),
    ("GET", "/entities?q=a&limit=0", None),
]


def _call(client: TestClient, method: str, path: str, body: Any) -> Any:
    response = client.request(method, path, json=body)
    return response.status_code, response.headers["content-type"].split(";")[0], response.json()


@pytest.mark.parametrize(("method", "path", "body"), SAME)
def test_same_answer_on_both_stores(embedded_client: TestClient, neo4j_client: TestClient,
                                    method: str, path: str, body: Any) -> None:
    assert _call(neo4j_client, method, path, body) == _call(embedded_client, method, path, body)


def test_every_catalog_example_on_neo4j(embedded_client: TestClient, neo4j_client: TestClient) -> None:
    for query in neo4j_client.get("/queries").json():
        params = {p["name"]: p["example"] for p in query["params"] if p["required"]}
        on_neo4j = neo4j_client.post(f"/queries/{query['name']}", json=params)
        on_embedded = embedded_client.post(f"/queries/{query['name']}", json=params)
        if on_neo4j.status_code == 404:      # an example name this small graph lacks: both say so
            assert on_embedded.status_code == 404 and "suggestions" in on_neo4j.json(), query["name"]
            assert on_neo4j.json()["detail"].split(" (")[0] == on_embedded.json()["detail"].split(" (")[0]
            continue
        assert on_neo4j.status_code == 200, (query["name"], on_neo4j.text)
        if load_catalog()[query["name"]].ordered:
            assert on_neo4j.json() == on_embedded.json(), query["name"]


def test_paper_on_neo4j(embedded_client: TestClient, neo4j_client: TestClient) -> None:
    for pid in ("p1", "p3", "nope"):
        assert _call(neo4j_client, "GET", f"/papers/{pid}", None) == \
            _call(embedded_client, "GET", f"/papers/{pid}", None)


@pytest.mark.parametrize("query", [
    "CREATE (n:Method {id: 'method:evil', name: 'evil'}) RETURN n",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n:Method) SET n.name = 'x' RETURN n.name",
    "MERGE (n:Method {id: 'method:evil'}) RETURN n.id",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "CALL dbms.components() YIELD name RETURN name",
    "MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS RETURN 1",
    "CREATE INDEX evil FOR (n:Method) ON (n.name)",
    "CALL db.clearQueryCaches()",
])
def test_writes_refused_on_neo4j(neo4j_client: TestClient, query: str) -> None:
    before = neo4j_client.get("/stats").json()
    response = neo4j_client.post("/cypher", json={"query": query})
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    assert neo4j_client.get("/stats").json() == before
    assert neo4j_client.get("/entities/method:evil").status_code == 404


def test_read_cypher_on_neo4j(neo4j_client: TestClient) -> None:
    response = neo4j_client.post("/cypher", json={"query": "MATCH (m:Model) RETURN m.name AS name",
                                                  "params": {}})
    assert response.status_code == 200, response.text
    assert response.json()["items"] == [{"name": "Qwen3-8B"}]
    nodes = neo4j_client.post("/cypher", json={"query": "MATCH (m:Model) RETURN m LIMIT 1"})
    assert nodes.status_code == 200 and nodes.json()["items"][0]["m"]["name"] == "Qwen3-8B"
    text = "MATCH (e:Method) WHERE e.name = $n RETURN e.id AS id"
    param = neo4j_client.post("/cypher", json={"query": text, "params": {"n": "GRPO"}})
    assert param.json()["items"] == [{"id": "method:group-relative-policy-optimization"}]


def test_graphml_from_neo4j_matches_embedded(embedded_client: TestClient, neo4j_client: TestClient) -> None:
    import io

    import networkx as nx

    a = nx.read_graphml(io.BytesIO(neo4j_client.get("/export/graphml").content))
    b = nx.read_graphml(io.BytesIO(embedded_client.get("/export/graphml").content))
    assert (a.number_of_nodes(), a.number_of_edges()) == (b.number_of_nodes(), b.number_of_edges())


def test_gexf_from_neo4j_matches_embedded(embedded_client: TestClient, neo4j_client: TestClient) -> None:
    import io

    import networkx as nx

    a = nx.read_gexf(io.BytesIO(neo4j_client.get("/export/gexf").content))
    b = nx.read_gexf(io.BytesIO(embedded_client.get("/export/gexf").content))
    assert dict(a.nodes(data="start")) == dict(b.nodes(data="start"))
    assert sorted(a.edges(keys=True)) == sorted(b.edges(keys=True))


def test_catalog_query_timeout_is_503_problem(neo4j_client: TestClient, neo4j_small_store: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A catalog query Neo4j stops at its transaction timeout is a 503 problem (retry, or narrow the
    query), not a 422: the request was valid. The real engine times a slow query out here."""
    original = type(neo4j_small_store).run_catalog

    def slow(self: Any, cypher: str, params: Any = None, *, timeout: float | None = None) -> Any:
        return original(self, "UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 3 RETURN count(*) AS c",
                        {}, timeout=0.5)

    monkeypatch.setattr(type(neo4j_small_store), "run_catalog", slow)
    response = neo4j_client.get("/queries/cooccurring?name=GRPO")
    assert response.status_code == 503
    assert response.headers["content-type"].split(";")[0] == PROBLEM
    assert int(response.headers["retry-after"]) >= 1
    body = response.json()
    assert body["status"] == 503 and body["type"].endswith(":query-timeout")
    assert "time limit" in body["detail"] and "retry" in body["hint"] and "narrow" in body["hint"]
