"""An entity name the graph does not hold is answered with the closest names it does hold: on the
CLI's stderr (exit 66), in the API's 404 problem (`suggestions`), on the explorer's error page."""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.settings import Settings
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.errors import UnknownEntityError
from paperkg.queries.runner import run_named
from paperkg.queries.suggest import CUTOFF, Named, NameIndex, length_window, rank
from tests.api.test_cli import paperkg


def _one_edit(rng: random.Random, key: str, alphabet: str) -> str:
    """`key` with one substitution, insertion, deletion or transposition."""
    pos = rng.randrange(len(key))
    kind = rng.choice(["sub", "ins", "del", "swap"])
    if kind == "sub":
        return key[:pos] + rng.choice(alphabet) + key[pos + 1:]
    if kind == "ins":
        return key[:pos] + rng.choice(alphabet) + key[pos:]
    if kind == "del" and len(key) > 2:
        return key[:pos] + key[pos + 1:]
    pos = min(pos, len(key) - 2)
    return key[:pos] + key[pos + 1] + key[pos] + key[pos + 2:]


def test_the_index_skips_only_keys_it_cannot_need() -> None:
    """On random names with one typo each: the index suggests exactly what ranking every key that
    shares the name's first or last character suggests (the length window loses nothing), and the
    name typed wrong is found whenever a ranking of every key in the graph finds it (one edit
    leaves the first or the last character as it was)."""
    rng = random.Random(7)
    alphabet = string.ascii_lowercase[:6] + string.digits[:3]
    keys = sorted({"".join(rng.choices(alphabet, k=rng.randint(2, 14))) for _ in range(3000)})
    entries = [(k, Named(k.upper(), rng.randint(0, 9), f"method:{k}")) for k in keys]
    index = NameIndex(entries)
    found = 0
    for key in rng.sample(keys, 300):
        typo = _one_edit(rng, key, alphabet)
        if typo in keys:
            continue
        got = index.suggest(typo)
        assert got == rank(typo, [e for e in entries if e[0][0] == typo[0] or e[0][-1] == typo[-1]]), typo
        if key.upper() in rank(typo, entries):
            assert key.upper() in got, typo
            found += 1
    assert found > 100


def test_length_window_holds_every_length_that_can_reach_the_cutoff() -> None:
    for n in range(1, 60):
        reachable = {m for m in range(1, 200) if 2 * min(n, m) / (n + m) >= CUTOFF}
        assert reachable == set(length_window(n))


def test_suggestions_go_through_aliases_to_the_display_name(seed_store: EmbeddedStore) -> None:
    with pytest.raises(UnknownEntityError) as caught:
        run_named(seed_store, "entity", {"name": "Group Relative Policy Optimisation"})
    assert caught.value.suggestions[0] == "GRPO"
    with pytest.raises(UnknownEntityError) as caught:       # the second name of a list
        run_named(seed_store, "papers_with_all", {"names": "GRPO, MATH-5000"})
    assert caught.value.suggestions[0] == "MATH500"
    assert "'MATH-5000'" in str(caught.value)


def test_a_known_name_with_no_rows_is_no_error(seed_store: EmbeddedStore) -> None:
    assert run_named(seed_store, "neighbors", {"name": "GRPO", "min_confidence": 1.0}) == []


def test_cli_prints_the_closest_names_and_exits_66(seed_store_path: Path) -> None:
    proc = paperkg("query", "papers_mentioning", "--param", "name=GRPPO", "--store", str(seed_store_path))
    assert proc.returncode == 66, proc.stderr
    assert proc.stdout == ""
    assert "no entity named 'GRPPO' (did you mean 'GRPO'" in proc.stderr


@pytest.fixture(scope="module")
def seed_client(seed_store_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(store=str(seed_store_path)))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.mark.parametrize("path", ["/queries/papers_mentioning?name=GRPPO", "/entities/grppo",
                                  "/entities/grppo/neighbors", "/entities/grppo/papers"])
def test_api_answers_404_with_suggestions(seed_client: TestClient, path: str) -> None:
    response = seed_client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["suggestions"][0] == "GRPO"
    assert "GRPPO" in body["detail"] or "grppo" in body["detail"]


def test_post_query_answers_404_with_suggestions(seed_client: TestClient) -> None:
    response = seed_client.post("/queries/timeline", json={"name": "Qwen3-8C"})
    assert response.status_code == 404
    assert response.json()["suggestions"][0] == "Qwen3-8B"


def test_neo4j_suggests_from_its_fulltext_index(neo4j_seed_store: object) -> None:
    """On Neo4j the candidates come from Lucene's fuzzy query on the key index, ranked the same way."""
    with pytest.raises(UnknownEntityError) as caught:
        run_named(neo4j_seed_store, "papers_mentioning", {"name": "GRPPO"})
    assert caught.value.suggestions[:3] == ["GRPO", "GPPO", "PPO"]
    with pytest.raises(UnknownEntityError) as caught:
        run_named(neo4j_seed_store, "timeline", {"name": "Qwen3-8C"})
    assert caught.value.suggestions[0] == "Qwen3-8B"
