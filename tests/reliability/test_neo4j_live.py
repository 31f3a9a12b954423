"""The battery's query bounds against a live `paperkg serve` on Neo4j (the seed store saved into the
test engine): pathological nesting is refused before Neo4j parses it, huge answers are refused or
cut, the three-MATCH cartesian query is stopped, and `/health` keeps answering throughout."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.reliability.test_live_server import CARTESIAN, _rss_mb, serve

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def neo4j_server(neo4j_seed_store: object, neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[tuple[str, int]]:
    env = {"PAPERKG_NEO4J_URI": neo4j_uri}
    with serve(tmp_path_factory.mktemp("neo4j-live"), env=env) as (base, proc, _):
        yield base, proc.pid


def _while_health(base: str, pid: int, request: dict) -> tuple[httpx.Response, float, float, float]:
    """Send `request` to /cypher while polling /health: the response, its seconds, the slowest
    /health and the server's peak RSS (MB)."""
    result: dict[str, object] = {}

    def run() -> None:
        start = time.monotonic()
        result["response"] = httpx.post(f"{base}/cypher", json=request, timeout=60)
        result["seconds"] = time.monotonic() - start

    worker = threading.Thread(target=run)
    worker.start()
    slowest, peak = 0.0, 0.0
    while worker.is_alive():
        start = time.monotonic()
        health = httpx.get(f"{base}/health", timeout=5)
        assert health.status_code == 200, health.text
        slowest = max(slowest, time.monotonic() - start)
        peak = max(peak, _rss_mb(pid))
        time.sleep(0.2)
    worker.join()
    return result["response"], result["seconds"], slowest, peak  # type: ignore[return-value]


def test_nesting_is_refused_before_neo4j_parses_it(neo4j_server: tuple[str, int]) -> None:
    base, _ = neo4j_server
    for text in ("RETURN " + "(" * 3000 + "1" + ")" * 3000,      # the 6 KB
                 "RETURN " + "(" * 1000 + "1" + ")" * 1000,      # under the token limit, still too deep
                 "RETURN " + "[" * 500 + "1" + "]" * 500):
        start = time.monotonic()
        response = httpx.post(f"{base}/cypher", json={"query": text}, timeout=30)
        seconds = time.monotonic() - start
        assert response.status_code == 422, response.text
        assert response.json()["type"] == "urn:paperkg:problem:query-limit", response.text
        assert seconds < 2, f"refused after {seconds:.2f} s"
    # 45 of them took /health down for two minutes before the guard's bounds
    for _ in range(45):
        assert httpx.post(f"{base}/cypher", json={"query": "RETURN " + "(" * 3000 + "1" + ")" * 3000},
                          timeout=30).status_code == 422
    start = time.monotonic()
    assert httpx.get(f"{base}/health", timeout=5).status_code == 200
    assert time.monotonic() - start < 1


def test_huge_answers_on_neo4j(neo4j_server: tuple[str, int]) -> None:
    base, pid = neo4j_server
    ranged, seconds, slowest, peak = _while_health(base, pid, {"query": "RETURN range(1, 20000000) AS r"})
    assert ranged.status_code in (422, 503) or ranged.json()["truncated"] is True, ranged.text[:300]
    assert len(ranged.content) < 20 * 1024 * 1024 and seconds < 15
    assert slowest < 1.0 and peak < 2048, (slowest, peak)
    # 57 million rows: the first 10,000 come back flagged, and Neo4j stops computing the rest
    many, seconds, slowest, _ = _while_health(base, pid, {"query": "MATCH (p:Paper) MATCH (m:Method) "
                                                                   "MATCH (t:Task) RETURN p.id, m.id, t.id"})
    assert many.status_code == 200 and many.json()["truncated"] is True, many.text[:300]
    assert len(many.json()["items"]) == 10_000 and seconds < 5 and slowest < 1.0


def test_a_query_that_runs_neo4j_out_of_heap_is_refused_once(neo4j_server: tuple[str, int]) -> None:
    """A doubling string is not held to db.memory.transaction.max: Neo4j's heap runs out. The query
    is answered 422 naming the cause and not retried; the server and Neo4j keep answering. While
    Neo4j's JVM collects, /health may say 503 for a moment: it answers, within 2 s."""
    base, _ = neo4j_server
    result: dict[str, object] = {}

    def run() -> None:
        start = time.monotonic()
        result["response"] = httpx.post(f"{base}/cypher", json={
            "query": "RETURN size(reduce(s = 'x', i IN range(1, 40) | s + s)) AS n"}, timeout=60)
        result["seconds"] = time.monotonic() - start

    worker = threading.Thread(target=run)
    worker.start()
    slowest = 0.0
    while worker.is_alive():
        start = time.monotonic()
        assert httpx.get(f"{base}/health", timeout=5).status_code in (200, 503)
        slowest = max(slowest, time.monotonic() - start)
        time.sleep(0.2)
    worker.join()
    grown = result["response"]
    assert isinstance(grown, httpx.Response) and grown.status_code == 422, grown
    assert "heap" in grown.json()["detail"] and result["seconds"] < 15  # type: ignore[operator]
    assert slowest < 2.0, slowest
    deadline = time.monotonic() + 30
    while httpx.get(f"{base}/health", timeout=5).status_code != 200:
        assert time.monotonic() < deadline
        time.sleep(0.5)
    assert httpx.post(f"{base}/cypher", json={"query": "MATCH (m:Model) RETURN count(m) AS c"},
                      timeout=30).json()["items"][0]["c"] > 0


def test_cartesian_queries_on_neo4j(neo4j_server: tuple[str, int]) -> None:
    """The issue's three-MATCH count Neo4j answers from its counts store at once; one that must
    visit every combination is stopped at the deadline, /health answering in < 1 s throughout."""
    base, pid = neo4j_server
    counted, seconds, _, _ = _while_health(base, pid, {"query": CARTESIAN})
    assert counted.status_code == 200 and seconds < 15
    walked, seconds, slowest, peak = _while_health(base, pid, {
        "query": "MATCH (p:Paper) MATCH (m:Method) MATCH (t:Task) RETURN count(p.id + m.id + t.id) AS c"})
    assert walked.status_code in (422, 503), walked.text[:300]
    if walked.status_code == 503:
        assert walked.headers["retry-after"]
    assert seconds < 15 and slowest < 1.0 and peak < 2048, (seconds, slowest, peak)
