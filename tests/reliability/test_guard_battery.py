"""The guard's escape table: 160 write / file / procedure / escape attempts, each sent to both
stores through both channels (HTTP to a live `paperkg serve`, and the `paperkg query --cypher`
command), none of which may change the graph or reach the LOAD CSV canary, a loopback HTTP server
that counts every request it gets."""

from __future__ import annotations

import http.server
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from paperkg.api.cli import main
from tests.reliability.test_live_server import serve


class _Canary(http.server.BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self) -> None:
        type(self).hits += 1
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"id\n1\n")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def canary() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Canary)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/canary.csv"
    server.shutdown()


def payloads(url: str) -> list[str]:
    """20 attacks x 8 disguises = 160 cases."""
    attacks = [
        "CREATE (n:Method {id: 'pwned', name: 'pwned'}) RETURN n",
        "MATCH (n:Method) SET n.name = 'pwned' RETURN count(n) AS c",
        "MATCH (n:Method) DETACH DELETE n",
        "MATCH (n:Paper) DELETE n",
        "MERGE (n:Task {id: 'pwned'}) RETURN n",
        "MATCH (n:Method) REMOVE n.name RETURN n",
        "MATCH (n:Method) FOREACH (x IN [1] | SET n.pwned = x)",
        f"LOAD CSV FROM '{url}' AS line RETURN line",
        f"LOAD CSV WITH HEADERS FROM '{url}' AS line CREATE (:Method {{id: line.id}})",
        f"CALL {{ LOAD CSV FROM '{url}' AS l RETURN l }} RETURN l",
        "CALL apoc.load.json('file:///etc/passwd')",
        f"CALL apoc.load.csv('{url}')",
        "CALL dbms.components()",
        "CALL db.index.fulltext.queryNodes('x', 'y')",
        "CREATE USER eve SET PASSWORD 'x'",
        "DROP INDEX paperkg_paper_id",
        "CREATE INDEX pwned FOR (n:Paper) ON (n.title)",
        "USE system MATCH (n) RETURN n",
        "MATCH (n) CALL { WITH n SET n.pwned = 1 } RETURN count(n) AS c",
        "CALL { MATCH (n:Method) RETURN n } IN TRANSACTIONS RETURN n",
    ]

    def unicode_first(text: str) -> str:     # the parser decodes \\uXXXX before lexing
        return f"\\u{ord(text[0]):04x}" + text[1:]

    disguises = [
        lambda t: t,
        lambda t: t.lower(),
        lambda t: t.replace(" ", "\n  "),
        lambda t: t.replace(" ", " /* x */ ", 1),
        lambda t: "MATCH (z) WHERE z.id = '\\u0027 " + t + " //' RETURN z",
        unicode_first,
        lambda t: "RETURN 1 AS one // harmless?\n" + t,
        lambda t: t.replace("(", " ( ", 1) + " // \\u000a",
    ]
    return [d(a) for a, d in itertools.product(attacks, disguises)]


REFUSED_HTTP = {400, 403, 422}
REFUSED_CLI = {2, 65}


def _stats(base: str) -> dict:
    return httpx.get(f"{base}/stats", timeout=30).json()


def _check_store(base: str, cli_args: list[str], url: str) -> None:
    before = _stats(base)
    cases = payloads(url)
    assert len(cases) >= 160
    for text in cases:
        response = httpx.post(f"{base}/cypher", json={"query": text}, timeout=30)
        assert response.status_code in REFUSED_HTTP, (text, response.status_code, response.text)
    runner = CliRunner()
    for text in cases:
        result = runner.invoke(main, ["query", "--cypher", text, *cli_args])
        assert result.exit_code in REFUSED_CLI, (text, result.exit_code, result.output)
    assert _stats(base) == before
    assert _Canary.hits == 0


def test_escape_table_embedded(seed_store_path: Path, tmp_path: Path, canary: str) -> None:
    with serve(tmp_path, "--store", str(seed_store_path)) as (base, _, _):
        _check_store(base, ["--store", str(seed_store_path)], canary)


def test_escape_table_neo4j(neo4j_seed_store: object, neo4j_uri: str, tmp_path: Path, canary: str) -> None:
    with serve(tmp_path, env={"PAPERKG_NEO4J_URI": neo4j_uri}) as (base, _, _):
        _check_store(base, ["--neo4j", neo4j_uri], canary)
