"""A half-saved Neo4j graph is not served as complete (issue 28, finding 3).

A save killed half-way left a graph no build would make, and `/health` answered 200, `stats
--neo4j` exit 0, every query from the half graph, until the next build repaired it. Now readers of
a database whose save marker says "interrupted" (or "writing") are refused: 503 with `Retry-After`
and a message naming the rerun over HTTP (`/health` included), exit 69 from the CLI. The save is
killed for real (SIGKILL of a saving process) on the Neo4j test engine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.settings import Settings
from paperkg.graph.neo4j_store import Neo4jStore
from tests.graph.test_neo4j_store import _saver, big_graph, kill_mid_save


@pytest.fixture
def store(neo4j_uri: str) -> Iterator[Neo4jStore]:
    with neo4j.GraphDatabase.driver(neo4j_uri, notifications_min_severity="OFF") as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n")
    with Neo4jStore(neo4j_uri) as st:
        yield st


def _stats(uri: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}
    return subprocess.run([sys.executable, "-m", "paperkg.api.cli", "stats", "--json", "--neo4j", uri],
                          capture_output=True, text=True, env=env, timeout=120)


def _kill_mid_save(tmp_path: Path, uri: str, store: Neo4jStore) -> None:
    kill_mid_save(_saver(tmp_path, uri, "half", ttl=2.0), store)
    time.sleep(2.5)                     # the killed save's lease runs out
    assert store.build_status()["state"] == "interrupted"


def test_a_half_saved_graph_is_refused_naming_the_rerun(neo4j_uri: str, store: Neo4jStore,
                                                        tmp_path: Path) -> None:
    store.save_graph(big_graph(papers=50, prefix="old")[1], generation="old")
    assert _stats(neo4j_uri).returncode == 0
    _kill_mid_save(tmp_path, neo4j_uri, store)

    cli = _stats(neo4j_uri)
    assert cli.returncode == 69, (cli.stdout[:200], cli.stderr)
    assert "interrupted" in cli.stderr and "build again" in cli.stderr

    with TestClient(create_app(Settings(neo4j_uri=neo4j_uri)), raise_server_exceptions=False) as client:
        for path in ("/health", "/stats", "/queries/top_entities?type=Method", "/entities/x"):
            answer = client.get(path)
            assert answer.status_code == 503, (path, answer.status_code, answer.text[:300])
            assert answer.headers["retry-after"] == "60"
            assert "interrupted" in answer.json()["detail"] and "build again" in answer.json()["hint"]

        # the next build's save repairs it, and everything answers again
        with Neo4jStore(neo4j_uri, lease_ttl=2.0) as again:
            again.save_graph(big_graph(papers=50, prefix="new")[1], generation="new")
        deadline = time.monotonic() + 10        # readers ask the marker again within a second
        while client.get("/health").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert client.get("/health").status_code == 200
        assert client.get("/stats").status_code == 200
    assert _stats(neo4j_uri).returncode == 0
