"""Answers of one build carry an `ETag` (its generation); `If-None-Match` with it answers 304."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

import paperkg
from paperkg.api.app import create_app
from paperkg.api.etag import matches
from paperkg.api.settings import Settings
from paperkg.graph.state import BuildState
from tests.api.conftest import add_paper, build_store

QUERY = "/queries/papers_mentioning?name=GRPO"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    build_store(tmp_path).close()
    return tmp_path


def _generation(path: Path) -> str:
    state = BuildState(path)
    try:
        generation = state.generation()
    finally:
        state.close()
    assert generation
    return generation


def test_an_answer_is_tagged_with_its_build_and_a_match_answers_304(store_path: Path) -> None:
    with TestClient(create_app(Settings(store=str(store_path)))) as client:
        first = client.get(QUERY)
        assert first.status_code == 200 and first.json()["items"]
        etag = first.headers["etag"]
        assert etag.startswith(f'"{_generation(store_path)}.') and etag.endswith('"')
        for sent in (etag, f"W/{etag}", f'"other", {etag}', "*"):
            again = client.get(QUERY, headers={"If-None-Match": sent})
            assert again.status_code == 304, sent
            assert again.content == b"" and again.headers["etag"] == etag
        stale = client.get(QUERY, headers={"If-None-Match": '"some-older-build.x"'})
        assert stale.status_code == 200 and stale.json() == first.json()
        for path in ("/stats", "/entities/GRPO", "/papers/p1", "/entities?q=policy"):
            assert client.get(path).headers["etag"] == etag, path


def test_what_is_not_an_answer_of_the_build_carries_no_tag(store_path: Path) -> None:
    with TestClient(create_app(Settings(store=str(store_path))), raise_server_exceptions=False) as client:
        etag = client.get(QUERY).headers["etag"]
        health = client.get("/health", headers={"If-None-Match": etag})
        assert health.status_code == 200 and "etag" not in health.headers
        missing = client.get("/papers/nope")
        assert missing.status_code == 404 and "etag" not in missing.headers
        assert missing.headers["content-type"].startswith("application/problem+json")
        posted = client.post("/queries/papers_mentioning", json={"name": "GRPO"},
                             headers={"If-None-Match": etag})
        assert posted.status_code == 200 and "etag" not in posted.headers


def test_an_answer_too_large_is_refused_untagged(store_path: Path) -> None:
    # the byte cap's 422 replaces the 200 the route answered: no tag may survive on it
    add_paper(store_path, "big", "A long abstract about policy optimization. " * 3000)
    settings = Settings(store=str(store_path), max_answer_bytes=100)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        assert client.get("/papers/p1").headers.get("etag")
        response = client.get("/papers/big")
        assert response.status_code == 422 and "etag" not in response.headers
        assert response.headers["content-type"].startswith("application/problem+json")


def test_the_token_is_checked_before_the_tag(store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERKG_API_TOKEN", "s3cret")
    with TestClient(create_app(Settings(store=str(store_path)))) as client:
        etag = client.get(QUERY, headers={"Authorization": "Bearer s3cret"}).headers["etag"]
        refused = client.get(QUERY, headers={"If-None-Match": etag})
        assert refused.status_code == 401
        assert client.get(QUERY, headers={"If-None-Match": etag,
                                          "Authorization": "Bearer s3cret"}).status_code == 304


def test_a_rebuild_changes_the_tag(store_path: Path) -> None:
    with TestClient(create_app(Settings(store=str(store_path)))) as client:
        before = client.get("/stats")
        old = before.headers["etag"]
        add_paper(store_path, "late", "A paper added while the server runs.")
        deadline = time.monotonic() + 60
        while client.get("/stats", headers={"If-None-Match": old}).status_code == 304:
            assert time.monotonic() < deadline, "the rebuilt store was never served"
            time.sleep(0.05)
        after = client.get("/stats", headers={"If-None-Match": old})
        assert after.status_code == 200
        assert after.json()["nodes"]["Paper"] == before.json()["nodes"]["Paper"] + 1
        assert after.headers["etag"] != old
        assert after.headers["etag"].startswith(f'"{_generation(store_path)}.')


def _served(client: TestClient, path: str, old: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """The first answer to `path` with `If-None-Match: old` that is not a 304 (the server loads a
    new build in the background)."""
    deadline = time.monotonic() + 60
    while True:
        answer = client.get(path, headers={"If-None-Match": old, **(headers or {})})
        if answer.status_code != 304:
            return answer
        assert time.monotonic() < deadline, "the corrected store was never served"
        time.sleep(0.05)


def test_a_correction_made_while_serving_changes_the_tag(store_path: Path) -> None:
    """A correction is a build of the state (a new generation): a client holding the old tag gets
    the corrected answer, not a stale 304, whether the correction came from the Python API (another
    process, as `paperkg curate`) or through the server's own route."""
    with TestClient(create_app(Settings(store=str(store_path), api_token="tok"))) as client:
        auth = {"Authorization": "Bearer tok"}
        before = client.get(QUERY, headers=auth)
        old = before.headers["etag"]
        assert "p3" not in [p["id"] for p in before.json()["items"]]
        with paperkg.open(store_path) as kg:
            kg.merge("PPO", "GRPO")                  # p3 mentions PPO, and now GRPO
        after = _served(client, QUERY, old, auth)
        assert after.status_code == 200 and "p3" in [p["id"] for p in after.json()["items"]]
        assert after.headers["etag"] != old
        assert after.headers["etag"].startswith(f'"{_generation(store_path)}.')
        assert client.get(QUERY, headers={"If-None-Match": after.headers["etag"], **auth}).status_code == 304

        merged = after.headers["etag"]
        undone = client.request("DELETE", "/corrections", params={"name": "PPO"}, headers=auth)
        assert undone.status_code == 200, undone.text
        again = _served(client, QUERY, merged, auth)
        assert again.status_code == 200 and again.json() == before.json()
        assert again.headers["etag"] not in (old, merged)


@pytest.mark.parametrize(("header", "expected"), [
    (b'"a"', True), (b'W/"a"', True), (b' "b" , "a" ', True), (b"*", True),
    (b'"b"', False), (b'"a', False), (b"", False), (b'"A"', False),
])
def test_if_none_match_comparison(header: bytes, expected: bool) -> None:
    assert matches(header, b'"a"') is expected
