"""`GET /entities/{id}/papers`: an entity's papers with the sentence of its first mention, and the
cutting of that sentence (`evidence_of`), which the explorer highlights."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from paperkg.api.routers.entities import evidence_of


def test_papers_with_evidence_sentences(client: TestClient) -> None:
    response = client.get("/entities/GRPO/papers")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["entity"]["id"] == "method:group-relative-policy-optimization" and body["next_offset"] is None
    by_id = {p["id"]: p for p in body["items"]}
    assert list(by_id) == ["p1", "p2"]
    p1, p2 = by_id["p1"]["evidence"], by_id["p2"]["evidence"]
    assert p1 == {"sentence": "We introduce Group Relative Policy Optimization (GRPO), a variant of PPO.",
                  "start": 13, "end": 47, "surface": "Group Relative Policy Optimization"}
    assert p2["sentence"] == "We fine-tune Qwen3-8B with GRPO."
    assert p2["sentence"][p2["start"]:p2["end"]] == "GRPO"
    assert by_id["p1"]["introduced"] and not by_id["p2"]["introduced"]
    assert by_id["p1"]["mentions"] == 3 and by_id["p1"]["title"] == "Paper p1" and by_id["p1"]["year"] == 2025


def test_papers_page(client: TestClient) -> None:
    first = client.get("/entities/method:group-relative-policy-optimization/papers",
                       params={"limit": 1}).json()
    assert [p["id"] for p in first["items"]] == ["p1"] and first["next_offset"] == 1
    second = client.get("/entities/GRPO/papers", params={"limit": 1, "offset": 1}).json()
    assert [p["id"] for p in second["items"]] == ["p2"] and second["next_offset"] is None
    assert client.get("/entities/GRPO/papers", params={"offset": 5}).json()["items"] == []
    assert client.get("/entities/nothing-like-it/papers").status_code == 404
    assert client.get("/entities/GRPO/papers", params={"limit": 0}).status_code == 422


def test_entity_shows_years_and_confidence_fields(client: TestClient) -> None:
    """Null on a graph built without them (graph/model.py: first_year?, last_year?)."""
    entity = client.get("/entities/GRPO").json()
    assert {"first_year", "last_year", "confidence"} <= set(entity)
    neighbour = client.get("/entities/GRPO/neighbors").json()["items"][0]
    assert "confidence" in neighbour


ABSTRACT = "First one here.  Second has GRPO in it. Third."
STARTS = [0, 17, 40]


@pytest.mark.parametrize(("starts", "mention", "expected"), [
    # the mention's sentence, trimmed; offsets moved into it
    (STARTS, {"sentence": 1, "start": 28, "end": 32, "surface": "GRPO"},
     {"sentence": "Second has GRPO in it.", "start": 11, "end": 15, "surface": "GRPO"}),
    # the last sentence runs to the end
    (STARTS, {"sentence": 2, "start": 40, "end": 45, "surface": "Third"},
     {"sentence": "Third.", "start": 0, "end": 5, "surface": "Third"}),
    # no boundaries stored: the whole abstract
    ([], {"sentence": 1, "start": 28, "end": 32, "surface": "GRPO"},
     {"sentence": ABSTRACT, "start": 28, "end": 32, "surface": "GRPO"}),
    # boundaries that do not hold the mention are not trusted
    (STARTS, {"sentence": 0, "start": 28, "end": 32, "surface": "GRPO"},
     {"sentence": ABSTRACT, "start": 28, "end": 32, "surface": "GRPO"}),
])
def test_evidence_of(starts: list[int], mention: dict[str, Any], expected: dict[str, Any]) -> None:
    got = evidence_of(ABSTRACT, starts, mention)
    assert got == expected
    assert got["sentence"][got["start"]:got["end"]] == mention["surface"]
