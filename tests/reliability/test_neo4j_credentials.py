"""Wrong and right credentials against a real Neo4j with auth on (a second test engine started with
NEO4J_AUTH_PASSWORD): `/health` and every route are 503 with Retry-After, within seconds, saying
which user was refused and never showing a password; the right password (from the environment or
a password file) serves."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.neo4j_engine import SERVER
from tests.reliability.test_live_server import serve

pytestmark = pytest.mark.neo4j

RIGHT, WRONG = "Right-Pa55-13", "Wrong-Pa55-13"


@pytest.fixture(scope="module")
def auth_engine(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`neo4j_uri` first: where the suite can start no engine this module is skipped with it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "NEO4J_PORT": str(port), "NEO4J_AUTH_PASSWORD": RIGHT,
           "NEO4J_RUN_DIR": str(tmp_path_factory.mktemp("neo4j-auth"))}
    started = subprocess.run(["bash", str(SERVER), "start"], env=env, capture_output=True, text=True,
                             timeout=600)
    assert started.returncode == 0, started.stderr
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run(["bash", str(SERVER), "stop"], env=env, capture_output=True, timeout=120)


def test_wrong_credentials_are_503_fast_and_say_who(auth_engine: str, tmp_path: Path) -> None:
    env = {"PAPERKG_NEO4J_URI": auth_engine, "PAPERKG_NEO4J_PASSWORD": WRONG}
    with serve(tmp_path, env=env) as (base, _, log):
        texts = []
        for path in ("/health", "/stats", "/queries/top_entities?type=Method", "/entities?q=gr"):
            start = time.monotonic()
            response = httpx.get(f"{base}{path}", timeout=30)
            seconds = time.monotonic() - start
            assert response.status_code == 503 and response.headers["retry-after"], (path, response.text)
            assert seconds < 5, f"{path}: {seconds:.1f} s"
            texts.append(response.text)
        # each refusal names the user: its credentials, or Neo4j's lock after repeated wrong ones
        assert all("user 'neo4j'" in t and ("credentials" in t or "wrong passwords" in t)
                   for t in texts[1:]), texts
    assert all(WRONG not in t for t in texts) and WRONG not in log.read_text()


def test_right_credentials_serve(auth_engine: str, tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text(RIGHT + "\n")
    for env in ({"PAPERKG_NEO4J_URI": auth_engine, "PAPERKG_NEO4J_PASSWORD": RIGHT},
                {"PAPERKG_NEO4J_URI": auth_engine, "PAPERKG_NEO4J_PASSWORD_FILE": str(secret)}):
        with serve(tmp_path, env=env) as (base, _, log):
            # the wrong passwords above may have Neo4j lock the user for its auth_lock_time (5 s)
            deadline = time.monotonic() + 30
            while (health := httpx.get(f"{base}/health", timeout=10)).status_code != 200:
                assert time.monotonic() < deadline, health.text
                time.sleep(1)
            assert httpx.get(f"{base}/stats", timeout=30).status_code == 200
        assert RIGHT not in log.read_text()
