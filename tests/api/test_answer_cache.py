"""Answers of one build are kept and sent again without running the query (`api/answer_cache.py`);
a new build empties them, and nothing but a tagged 200 is kept."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paperkg.api.answer_cache import AnswerCache, AnswerCacheMiddleware
from paperkg.api.app import create_app
from paperkg.api.routers import queries
from paperkg.api.settings import Settings
from tests.api.conftest import add_paper, build_store

QUERY = "/queries/papers_mentioning?name=GRPO"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    build_store(tmp_path).close()
    return tmp_path


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The catalog queries the routes ran, by name."""
    ran: list[str] = []
    real = queries.run_page

    def counted(store: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        ran.append(name)
        return real(store, name, *args, **kwargs)

    monkeypatch.setattr(queries, "run_page", counted)
    return ran


def _cache(client: TestClient) -> AnswerCache:
    app: Any = client.app
    layer = app.middleware_stack
    while not isinstance(layer, AnswerCacheMiddleware):
        layer = layer.app
    return layer.cache


def test_an_answer_asked_again_is_sent_without_running_the_query(store_path: Path, runs: list[str]) -> None:
    with TestClient(create_app(Settings(store=str(store_path)))) as client:
        first = client.get(QUERY)
        again = client.get(QUERY)
        assert first.status_code == again.status_code == 200 and first.json()["items"]
        assert again.content == first.content
        assert again.headers["etag"] == first.headers["etag"]
        assert again.headers["content-type"] == first.headers["content-type"]
        assert runs == ["papers_mentioning"]
        client.get(QUERY + "&limit=1")              # another query string is another answer
        assert runs == ["papers_mentioning"] * 2
        assert client.post("/queries/papers_mentioning", json={"name": "GRPO"}).status_code == 200
        assert runs == ["papers_mentioning"] * 3      # a POST always runs
        assert _cache(client).hits == 1


def test_a_new_build_is_answered_afresh(store_path: Path, runs: list[str]) -> None:
    with TestClient(create_app(Settings(store=str(store_path)))) as client:
        before = client.get("/stats").json()
        assert client.get("/stats").json() == before
        add_paper(store_path, "late", "A paper added while the server runs.")
        deadline = time.monotonic() + 60
        while (after := client.get("/stats").json()) == before:
            assert time.monotonic() < deadline, "the rebuilt store was never served"
            time.sleep(0.05)
        assert after["nodes"]["Paper"] == before["nodes"]["Paper"] + 1
        assert len(_cache(client)) == 1              # the old build's answers went with it


def test_only_tagged_answers_are_kept(store_path: Path, runs: list[str]) -> None:
    with TestClient(create_app(Settings(store=str(store_path))), raise_server_exceptions=False) as client:
        for _ in range(2):
            assert client.get("/queries/papers_mentioning?name=NoSuchMethodAnywhere").status_code == 404
            assert client.get("/health").status_code == 200
            assert client.get("/queries/papers_mentioning?name=GRPO&limit=0").status_code == 422
        assert runs == ["papers_mentioning"] * 2      # the 404 ran twice; the 422 is FastAPI's
        assert len(_cache(client)) == 0


def test_a_refused_answer_is_not_kept(store_path: Path) -> None:
    add_paper(store_path, "big", "A long abstract about policy optimization. " * 3000)
    with TestClient(create_app(Settings(store=str(store_path), max_answer_bytes=100)),
                    raise_server_exceptions=False) as client:
        for _ in range(2):
            assert client.get("/papers/big").status_code == 422
        assert len(_cache(client)) == 0


def test_a_cache_of_zero_keeps_nothing(store_path: Path, runs: list[str]) -> None:
    with TestClient(create_app(Settings(store=str(store_path), answer_cache_mb=0))) as client:
        assert client.get(QUERY).content == client.get(QUERY).content
        assert runs == ["papers_mentioning"] * 2


def test_the_token_is_checked_before_a_kept_answer(store_path: Path) -> None:
    with TestClient(create_app(Settings(store=str(store_path), api_token="tok"))) as client:
        assert client.get(QUERY, headers={"Authorization": "Bearer tok"}).status_code == 200
        assert client.get(QUERY).status_code == 401
        assert client.get(QUERY, headers={"Authorization": "Bearer nope"}).status_code == 401


def test_least_recently_used_answers_go_first_within_the_budget() -> None:
    cache = AnswerCache(8 * 1000)
    body = b"x" * 700                                # under an eighth of the budget: kept
    for key in (b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h", b"i", b"j"):   # ~9 kB
        cache.put("g1", key, [], body)
        cache.get("g1", b"a")                        # "a" stays the most recently used
    assert cache.used <= cache.max_bytes
    assert cache.get("g1", b"a") is not None and cache.get("g1", b"b") is None
    assert cache.get("g1", b"j") is not None and len(cache) == 8
    cache.put("g1", b"huge", [], b"x" * 1001)        # over an eighth: never kept
    assert cache.get("g1", b"huge") is None
    assert cache.get("g2", b"a") is None and len(cache) == 0 and cache.used == 0
