"""Answers keep their byte limit on every route, and a build empties its log (issue 28, finding 9).

- `GET /papers/{id}` of a paper bigger than `PAPERKG_MAX_ANSWER_BYTES` answered it whole (32 MB
  against a 16 MiB limit); now it is a 422 naming the limit, as for a single query row beyond it
  (a paper cut short would say something else). Here at a small limit: a 300 KB abstract against
  100 KB.
- After a build into a store whose reader was in the middle of a read when the build committed (a
  server answering, or loading the new build), the write-ahead log stayed as large as the build's
  writes until the next build; the build now waits for the reader to let go and empties it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.settings import Settings
from tests.api.conftest import corpus_of
from tests.stores import write_corpus

ROOT = Path(__file__).resolve().parents[2]
ARXIV = ROOT / "examples" / "arxiv" / "abstracts.jsonl"
LIMIT = 100_000


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("big")
    sentence = "We train GRPO on GSM8K with a long and careful description of every step. "
    big = sentence * (300_000 // len(sentence))
    small = "We train GRPO on GSM8K. GRPO is compared with PPO."
    entities = [("GRPO", "Method", False), ("GSM8K", "Dataset", False)]
    write_corpus(path, corpus_of([("big", big, entities, [], []),
                                  ("small", small, [*entities, ("PPO", "Method", False)], [], [])])).close()
    with TestClient(create_app(Settings(store=str(path), max_answer_bytes=LIMIT)),
                    raise_server_exceptions=False) as client:
        yield client


def test_a_paper_beyond_the_answer_limit_is_a_422_naming_it(client: TestClient) -> None:
    answer = client.get("/papers/big")
    assert answer.status_code == 422, (answer.status_code, len(answer.content))
    assert answer.headers["content-type"].startswith("application/problem+json")
    problem = answer.json()
    assert "PAPERKG_MAX_ANSWER_BYTES" in problem["detail"] and problem["instance"] == "/papers/big"
    assert len(answer.content) < 2000


def test_answers_within_the_limit_are_untouched(client: TestClient) -> None:
    assert client.get("/papers/small").json()["abstract"].startswith("We train GRPO")
    assert client.get("/entities/GRPO").status_code == 200
    papers = client.get("/entities/GRPO/papers").json()["items"]
    assert {p["id"] for p in papers} == {"big", "small"}
    assert client.get("/stats").status_code == 200


def _corpus(path: Path, start: int, n: int) -> Path:
    base = [json.loads(line)["abstract"] for line in ARXIV.read_text().splitlines() if line.strip()]
    with path.open("w") as out:
        for i in range(start, start + n):
            out.write(json.dumps({"id": f"g{i}", "abstract": f"{base[i % len(base)]} Growth {i}."}) + "\n")
    return path


# Holds a read transaction on the store from before a build until a second after the build has
# committed (it sees the store's generation change), as a server answering or reloading does.
READER = """
import sqlite3, sys, time
uri = sys.argv[1]
held = sqlite3.connect(uri, uri=True, isolation_level=None)
held.execute("BEGIN")
before = held.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
print("holding", flush=True)
look = sqlite3.connect(uri, uri=True, isolation_level=None)
while look.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone() == before:
    time.sleep(0.02)
time.sleep(1.0)
held.execute("COMMIT")
"""


def test_a_build_empties_the_log_once_a_reader_lets_go(tmp_path: Path) -> None:
    store = tmp_path / "store"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}

    def build(corpus: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", str(corpus), "--mode",
                               "rules", "--store", str(store)], capture_output=True, text=True, env=env,
                              timeout=300)

    assert build(_corpus(tmp_path / "a.jsonl", 0, 300)).returncode == 0
    reader = subprocess.Popen([sys.executable, "-c", READER, f"{(store / 'state.sqlite').as_uri()}?mode=ro"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "holding"
        started = time.monotonic()
        done = build(_corpus(tmp_path / "b.jsonl", 300, 300))
        assert done.returncode == 0, done.stderr
        assert reader.wait(timeout=30) == 0
    finally:
        if reader.poll() is None:
            reader.kill()
    wal = store / "state.sqlite-wal"
    assert not wal.exists() or wal.stat().st_size == 0, wal.stat().st_size
    assert time.monotonic() - started < 120
