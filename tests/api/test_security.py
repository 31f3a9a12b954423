"""Access control and secrets: the bearer token, the Host check, `PAPERKG_RAW_CYPHER=off`, and
credentials kept out of answers, logs and CLI messages."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.deps import get_store
from paperkg.api.settings import Settings
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.secrets import redact, split_credentials

PROBLEM = "application/problem+json"
TOKEN = "s3cret-token-value"


def _client(small_store: EmbeddedStore, base_url: str = "http://testserver",
            **settings: object) -> TestClient:
    app = create_app(Settings(store="unused", **settings))  # type: ignore[arg-type]
    app.dependency_overrides[get_store] = lambda: small_store
    return TestClient(app, base_url=base_url, raise_server_exceptions=False)


@pytest.mark.parametrize("path", ["/stats", "/queries", "/entities?q=grpo", "/export/graphml",
                                  "/no-such-route"])
def test_token_protects_data_routes(small_store: EmbeddedStore, path: str) -> None:
    with _client(small_store, api_token=TOKEN) as client:
        missing = client.get(path)
        assert missing.status_code == 401 and missing.headers["content-type"].startswith(PROBLEM)
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert TOKEN not in missing.text
        wrong = client.get(path, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == (404 if path == "/no-such-route" else 200)


def test_token_leaves_health_and_docs_public(small_store: EmbeddedStore) -> None:
    with _client(small_store, api_token=TOKEN) as client:
        for path in ("/health", "/openapi.json", "/docs", "/redoc"):
            assert client.get(path).status_code == 200, path
        post = client.post("/cypher", json={"query": "MATCH (m:Method) RETURN m.name AS n"})
        assert post.status_code == 401
        schema = client.get("/openapi.json").json()
        assert schema["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
        assert schema["paths"]["/stats"]["get"]["security"] == [{"bearer": []}]
        assert "security" not in schema["paths"]["/health"]["get"]


def test_no_token_no_auth(small_store: EmbeddedStore) -> None:
    with _client(small_store) as client:
        assert client.get("/stats").status_code == 200
        assert "securitySchemes" not in client.get("/openapi.json").json()["components"]


def test_raw_cypher_off_removes_the_route(small_store: EmbeddedStore) -> None:
    with _client(small_store, raw_cypher=False) as client:
        assert client.post("/cypher", json={"query": "MATCH (n:Method) RETURN n.id AS id"}).status_code == 404
        assert "/cypher" not in client.get("/openapi.json").json()["paths"]


def test_raw_cypher_off_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERKG_RAW_CYPHER", "off")
    monkeypatch.setenv("PAPERKG_ALLOWED_HOSTS", "kg.example.org, *.lab.example")
    settings = Settings()
    assert settings.raw_cypher is False
    assert settings.allowed_hosts == ["kg.example.org", "*.lab.example"]


@pytest.mark.parametrize(("host", "status"), [
    ("localhost:8000", 200), ("127.0.0.1:8000", 200), ("[::1]:8000", 200), ("localhost", 200),
    ("evil.example", 400), ("evil.example:8000", 400), ("127.0.0.1.evil.example", 400),
])
def test_loopback_server_accepts_only_loopback_names(small_store: EmbeddedStore, host: str,
                                                     status: int) -> None:
    # TestClient puts the base URL's host in the ASGI scope's `server`, as uvicorn puts the bound address
    with _client(small_store, base_url="http://127.0.0.1:8000") as client:
        assert client.get("/health", headers={"Host": host}).status_code == status


def test_configured_hosts(small_store: EmbeddedStore) -> None:
    with _client(small_store, base_url="http://127.0.0.1:8000",
                 allowed_hosts=["kg.example.org", "*.lab.example"]) as client:
        assert client.get("/health", headers={"Host": "kg.example.org"}).status_code == 200
        assert client.get("/health", headers={"Host": "a.lab.example"}).status_code == 200
        assert client.get("/health", headers={"Host": "localhost"}).status_code == 400
        assert client.get("/health", headers={"Host": "evil.example"}).status_code == 400


@pytest.mark.parametrize(("text", "shown"), [
    ("cannot reach Neo4j at bolt://neo4j:hunter2@db:7687 now",
     "cannot reach Neo4j at bolt://***@db:7687 now"),
    ("neo4j+s://u:p@ss@x.databases.neo4j.io", "neo4j+s://***@x.databases.neo4j.io"),
    ("'bolt://user@host'", "'bolt://***@host'"),
    ("bolt://host:7687 and mail@example.org", "bolt://host:7687 and mail@example.org"),
])
def test_redact_uris(text: str, shown: str) -> None:
    assert redact(text) == shown


def test_split_credentials_registers_the_password() -> None:
    uri, user, password = split_credentials("bolt://alice:pa%40ss-w0rd-1@db.example:7687")
    assert (uri, user, password) == ("bolt://db.example:7687", "alice", "pa@ss-w0rd-1")
    assert redact("the password is pa@ss-w0rd-1") == "the password is ***"


def test_a_password_in_the_uri_never_reaches_a_client_or_the_log(caplog: pytest.LogCaptureFixture) -> None:
    secret = "Uri-Pa55word-9"
    caplog.set_level(logging.INFO)
    app = create_app(Settings(neo4j_uri=f"bolt://neo4j:{secret}@127.0.0.1:1"))
    with TestClient(app, raise_server_exceptions=False) as client:
        for path in ("/stats", "/health", "/entities?q=x", "/queries/entity?name=x"):
            response = client.get(path)
            assert response.status_code == 503 and response.headers["retry-after"], path
            assert secret not in response.text and "127.0.0.1:1" in response.json()["detail"]
    assert caplog.records and secret not in caplog.text
    logging.getLogger("paperkg.test").warning("connecting to bolt://neo4j:%s@host", secret)
    assert secret not in caplog.records[-1].getMessage()


def _paperkg(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    full = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "paperkg.api.cli", *args], capture_output=True, text=True,
                          timeout=120, env=full)


def test_cli_has_no_password_option_and_redacts(tmp_path: Path) -> None:
    refused = _paperkg("stats", "--neo4j", "bolt://127.0.0.1:1", "--neo4j-password", "hunter22")
    assert refused.returncode == 2 and "PAPERKG_NEO4J_PASSWORD" in refused.stderr
    assert "hunter22" not in refused.stderr
    secret = "Cli-Pa55word-7"
    uri = _paperkg("stats", "--neo4j", f"bolt://neo4j:{secret}@127.0.0.1:1")
    assert uri.returncode == 69 and "127.0.0.1:1" in uri.stderr and secret not in uri.stderr + uri.stdout
    file = tmp_path / "pw"
    file.write_text(secret + "\n")
    from_file = _paperkg("stats", "--neo4j", "bolt://127.0.0.1:1", "--neo4j-user", "neo4j",
                         "--neo4j-password-file", str(file))
    assert from_file.returncode == 69 and secret not in from_file.stderr
    missing = _paperkg("stats", "--neo4j", "bolt://127.0.0.1:1", "--neo4j-password-file",
                       str(tmp_path / "none"))
    assert missing.returncode == 2 and "cannot read the password file" in missing.stderr


def test_input_problems_are_summarised_and_control_characters_escaped(tmp_path: Path) -> None:
    bad = tmp_path / "bad\x1b[31mname\nforged.jsonl"
    bad.write_text("".join("{oops\n" for _ in range(50)))
    out = _paperkg("build", str(bad), "--store", str(tmp_path / "store"), "--mode", "rules")
    lines = out.stderr.splitlines()
    assert out.returncode == 65
    assert sum("oops" in line or "JSON" in line or "line" in line for line in lines[:20]) >= 1
    assert len(lines) < 30, out.stderr
    assert "and 30 error(s) more" in out.stderr or "30 error(s)" in out.stderr
    assert "\x1b" not in out.stderr and "\\x1b" in out.stderr
    assert not any(line.startswith("forged") for line in lines)


def test_a_one_word_abstract_is_no_paper(tmp_path: Path) -> None:
    """Issue 13.8: the abstract "x" is skipped with a warning (the build still succeeds)."""
    data = tmp_path / "in.jsonl"
    data.write_text('{"id": "x1", "abstract": "x"}\n'
                    '{"id": "ok1", "abstract": "We propose FooNet, a transformer for graphs."}\n')
    store = tmp_path / "store"
    out = _paperkg("build", str(data), "--store", str(store), "--mode", "rules", "--json")
    assert out.returncode == 0, out.stderr
    assert "in.jsonl:1: 'abstract' is too short to be one" in out.stderr
    assert json.loads(out.stdout)["papers"] == 1
    gone = _paperkg("query", "paper", "--param", "id=x1", "--store", str(store), "--json")
    kept = _paperkg("query", "paper", "--param", "id=ok1", "--store", str(store), "--json")
    assert json.loads(gone.stdout) == [] and len(json.loads(kept.stdout)) == 1, (gone, kept)


def test_catalog_answers_are_held_to_the_byte_budget(small_store: EmbeddedStore) -> None:
    params = {"q": "o", "limit": 100}
    with _client(small_store) as client:
        full = client.get("/queries/entity_search", params=params).json()
        assert full["truncated"] is False and len(json.dumps(full["items"])) > 200
    with _client(small_store, max_answer_bytes=200) as client:
        cut = client.get("/queries/entity_search", params=params).json()
        assert cut["truncated"] is True and cut["items"] == full["items"][:len(cut["items"])]
        assert cut["items"] and len(json.dumps(cut["items"])) <= 200
