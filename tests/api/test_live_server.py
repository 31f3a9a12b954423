"""`paperkg serve` as a user runs it: a real process on a free port, real HTTP, stopped at the end.

TestClient skips the parts a deployment depends on — the CLI building `Settings`, uvicorn, the
lifespan, real sockets and chunked transfer — so one test goes through all of them.
"""

from __future__ import annotations

import io
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import networkx as nx
import pytest

from tests.live import serve

PROBLEM = "application/problem+json"


@pytest.fixture
def server(small_store_path: Path, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    log = tmp_path / "server.log"
    with serve(["--store", str(small_store_path)], log) as (base, proc):
        yield base, proc, log


def test_live_server(server: tuple[str, subprocess.Popen[bytes], Path]) -> None:
    base, proc, log = server
    with httpx.Client(base_url=base, timeout=30) as http:
        health = http.get("/health").json()
        assert health["status"] == "ok" and health["store"] == "embedded"
        assert http.get("/stats").json()["nodes"]["Paper"] == 3
        catalog = http.get("/queries").json()
        assert {q["name"] for q in catalog} >= {"entity_search", "entity", "neighbors"}
        rows = http.get("/queries/entity_search", params={"q": "grpo"}).json()["items"]
        assert any(r.get("name") == "GRPO" for r in rows)
        assert len(http.get("/entities", params={"q": "policy"}).json()["items"]) == 2
        assert http.get("/entities/GRPO").json()["id"] == "method:group-relative-policy-optimization"
        paper = http.get("/papers/p1").json()
        assert paper["collections"] == ["RL"]

        missing = http.get("/papers/nope")
        assert missing.status_code == 404 and missing.headers["content-type"].startswith(PROBLEM)
        refused = http.post("/cypher", json={"query": "MATCH (n) DETACH DELETE n"})
        assert 400 <= refused.status_code < 500
        assert http.get("/stats").json()["nodes"]["Paper"] == 3

        def chunks() -> Iterator[bytes]:
            yield b'{"query": "RETURN 1", "params": {"x": "'
            for _ in range(1100):
                yield b"a" * 1024
            yield b'"}}'

        too_big = http.post("/cypher", content=chunks(), headers={"content-type": "application/json"})
        assert too_big.status_code == 413 and too_big.headers["content-type"].startswith(PROBLEM)

        export = http.get("/export/graphml")
        assert export.status_code == 200
        assert export.headers["content-type"].startswith("application/graphml+xml")
        assert nx.read_graphml(io.BytesIO(export.content)).number_of_nodes() > 0
        assert http.get("/openapi.json").json()["info"]["title"] == "paperkg"

    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) == 0
    output = log.read_text(errors="replace")
    assert "Traceback" not in output, output


def test_two_worker_processes_serve_the_same_build(small_store_path: Path, tmp_path: Path) -> None:
    """`serve --workers 2`: two processes, each with the store open read-only, answer alike (one
    ETag, the build's), and stop cleanly on SIGINT."""
    log = tmp_path / "server.log"
    with serve(["--store", str(small_store_path), "--workers", "2"], log) as (base, proc):
        deadline = time.monotonic() + 60
        while log.read_text(errors="replace").count("Application startup complete") < 2:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        tags, answers = set(), []
        with httpx.Client(base_url=base, timeout=30) as http:
            for _ in range(3):     # new connections: the kernel spreads them over the workers
                with httpx.Client(base_url=base, timeout=30) as fresh:
                    assert fresh.get("/health").json()["status"] == "ok"
                    response = fresh.get("/queries/papers_mentioning", params={"name": "GRPO"})
                    assert response.status_code == 200
                    tags.add(response.headers["etag"])
                    answers.append(response.json()["items"])
            assert len(tags) == 1 and answers[0] and all(a == answers[0] for a in answers)
            cached = http.get("/queries/papers_mentioning", params={"name": "GRPO"},
                              headers={"If-None-Match": tags.pop()})
            assert cached.status_code == 304
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    output = log.read_text(errors="replace")
    assert "Traceback" not in output, output
