"""The corrections routes (`api/routers/corrections.py`) on a copy of the example store: absent
without `PAPERKG_API_TOKEN`, 401 without the token, and with it they record corrections the served
graph then shows."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.settings import Settings

TOKEN = "curation-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def store(seed_store_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    return path


def _client(store: Path, **settings: object) -> TestClient:
    return TestClient(create_app(Settings(store=str(store), **settings)),  # type: ignore[arg-type]
                      raise_server_exceptions=False)


def test_without_a_token_the_routes_are_absent(store: Path) -> None:
    with _client(store) as client:
        assert client.get("/corrections").status_code == 404
        assert client.post("/corrections", json={"op": "drop", "name": "pruning"}).status_code == 404
        assert client.get("/review").status_code == 404
        assert client.get("/entities/pruning").status_code == 200


def test_with_a_token_they_need_it_and_record_corrections(store: Path) -> None:
    with _client(store, api_token=TOKEN) as client:
        assert client.post("/corrections", json={"op": "drop", "name": "pruning"}).status_code == 401
        unknown = client.post("/corrections", json={"op": "drop", "name": "GRPPO"}, headers=AUTH)
        assert unknown.status_code == 404 and "GRPO" in unknown.json()["suggestions"]
        bad = client.post("/corrections", json={"op": "retype", "name": "GRPO", "value": "Algorithm"},
                          headers=AUTH)
        assert bad.status_code == 422 and "not an entity type" in bad.json()["detail"]
        done = client.post("/corrections", json={"op": "merge", "name": "DPO", "value": "RLHF"}, headers=AUTH)
        assert done.status_code == 200, done.text
        assert done.json()["changed"] and done.json()["corrections"][0]["value"] == "RLHF"
        deadline = time.monotonic() + 30              # the server loads the new build in the background
        while time.monotonic() < deadline:
            entity = client.get("/entities/DPO", headers=AUTH).json()
            if entity["id"] == "method:reinforcement-learning-from-human-feedback":
                break
            time.sleep(0.2)
        assert entity["id"] == "method:reinforcement-learning-from-human-feedback"
        assert "DPO" in entity["aliases"]
        listed = client.get("/corrections", headers=AUTH).json()
        assert [(c["op"], c["name"], c["applies"]) for c in listed] == [("merge", "DPO", True)]
        items = client.get("/review", params={"limit": 3}, headers=AUTH).json()
        assert len(items) == 3 and all(i["suggestion"]["op"] in ("drop", "retype", "merge") for i in items)
        undone = client.delete("/corrections", params={"name": "DPO"}, headers=AUTH)
        assert undone.status_code == 200 and client.get("/corrections", headers=AUTH).json() == []
