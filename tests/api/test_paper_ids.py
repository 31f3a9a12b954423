"""Issue 12.6: `/papers/{id}` takes old-style arXiv ids with a slash (`hep-th/9901001`), on a store
built by `paperkg build` from arXiv metadata records, embedded and Neo4j alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.deps import get_store
from paperkg.api.settings import Settings

OLD, NEW = "hep-th/9901001", "2401.00001"
RECORDS = [
    {"id": OLD, "title": "A duality for strings", "versions": [{"version": "v1",
     "created": "Fri, 1 Jan 1999 10:00:00 GMT"}],
     "abstract": "We study a duality of string theory and use PPO to search the moduli space."},
    {"id": NEW, "title": "GRPO for maths", "versions": [{"version": "v1",
     "created": "Mon, 1 Jan 2024 10:00:00 GMT"}],
     "abstract": "We propose GRPO and evaluate it on GSM8K."},
]


def _build(tmp_path: Path, *args: str) -> None:
    data = tmp_path / "arxiv.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}
    out = subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", str(data), "--mode", "rules",
                          *args], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr


def _client(store: object) -> TestClient:
    app = create_app(Settings(store="unused"))
    app.dependency_overrides[get_store] = lambda: store
    return TestClient(app, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from paperkg.graph.embedded import EmbeddedStore

    path = tmp_path_factory.mktemp("ids")
    _build(path, "--store", str(path / "store"))
    with _client(EmbeddedStore(path / "store")) as client:
        yield client


@pytest.fixture(scope="module")
def on_neo4j(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    import neo4j

    from paperkg.graph.neo4j_store import Neo4jStore

    with neo4j.GraphDatabase.driver(neo4j_uri) as driver:   # what other modules left there
        driver.execute_query("MATCH (n) DETACH DELETE n")
    path = tmp_path_factory.mktemp("ids-neo4j")
    _build(path, "--store", str(path / "store"), "--neo4j", neo4j_uri)
    store = Neo4jStore(neo4j_uri)
    with _client(store) as client:
        yield client
    store.close()


def _check(client: TestClient) -> None:
    for path in (f"/papers/{OLD}", "/papers/hep-th%2F9901001"):
        response = client.get(path)
        assert response.status_code == 200, (path, response.text)
        paper = response.json()
        assert paper["id"] == OLD and paper["year"] == 1999, paper
        assert paper["url"] == f"https://arxiv.org/abs/{OLD}"
    assert client.get(f"/papers/{NEW}").json()["id"] == NEW
    missing = client.get("/papers/hep-th/9901002")
    assert missing.status_code == 404 and "hep-th/9901002" in missing.json()["detail"]


def test_old_style_ids_on_the_embedded_store(embedded: TestClient) -> None:
    _check(embedded)


@pytest.mark.neo4j
def test_old_style_ids_on_neo4j(on_neo4j: TestClient, embedded: TestClient) -> None:
    _check(on_neo4j)
    assert on_neo4j.get(f"/papers/{OLD}").json() == embedded.get(f"/papers/{OLD}").json()
