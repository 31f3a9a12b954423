"""Shared fixtures: the example corpus built once, and the real Neo4j test engine."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperkg.graph.embedded import EmbeddedStore

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "abstracts"
ARXIV_EXAMPLE = ROOT / "examples" / "arxiv"


def _problems_are_fatal(problem: object) -> None:
    raise AssertionError(f"the example corpus should read cleanly: {problem}")


@pytest.fixture(scope="session")
def seed_store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example abstracts built with the default pipeline, once per test session."""
    from paperkg.api.build import build

    path = tmp_path_factory.mktemp("seed-store")
    build([str(EXAMPLES)], path, _problems_are_fatal)
    return path


@pytest.fixture(scope="session")
def seed_store(seed_store_path: Path) -> EmbeddedStore:
    """Read-only use: tests must not save into it."""
    return EmbeddedStore(seed_store_path)


@pytest.fixture(scope="session")
def results_store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real abstracts with their gold results (`tests/graph/results_gold.py`), where the result
    queries' catalog examples answer, built once per test session."""
    from paperkg.queries import index_snapshot
    from tests.graph.results_gold import leaderboard_corpus
    from tests.stores import write_corpus

    path = tmp_path_factory.mktemp("results-store")
    write_corpus(path, leaderboard_corpus()).close()
    index_snapshot.save(path)   # as a build leaves a store: a server loads it, and saves nothing into it
    return path


@pytest.fixture(scope="session")
def results_store(results_store_path: Path) -> EmbeddedStore:
    """Read-only use: tests must not save into it."""
    return EmbeddedStore(results_store_path)


@pytest.fixture(scope="session")
def neo4j_uri() -> str:
    """A real Neo4j: `NEO4J_URI` when set (CI starts the engine), else the suite starts its own.
    Outside CI a machine without Java/Maven skips these tests; in CI that is a failure."""
    from tests.neo4j_engine import ensure_neo4j

    uri = ensure_neo4j()
    if uri is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but no Neo4j engine could be started or reached")
        pytest.skip("no Neo4j engine (set NEO4J_URI or install Java 17 + Maven)")
    return uri


@pytest.fixture(scope="module")
def neo4j_seed_store(neo4j_uri: str, seed_store: EmbeddedStore) -> Iterator[object]:
    """The example graph saved into Neo4j; saving replaces whatever earlier modules left there."""
    from paperkg.graph.neo4j_store import Neo4jStore

    store = Neo4jStore(neo4j_uri)
    store.save_graph(seed_store.graph())
    yield store
    store.close()


@pytest.fixture(scope="session")
def arxiv_example_store(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedStore:
    """The shipped arXiv example (examples/arxiv, 300 records with titles and years), built once."""
    from paperkg.api.build import build

    path = tmp_path_factory.mktemp("arxiv-example-store")
    problems: list[object] = []
    build([str(ARXIV_EXAMPLE)], path, problems.append)
    assert not problems, problems[:3]
    return EmbeddedStore(path)
