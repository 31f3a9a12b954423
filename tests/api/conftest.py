"""Fixtures for the HTTP API: a small hand-made graph in an embedded store, and apps over it.

The graph is derived by the real builder from hand-written extractions, so its properties are the
ones the builder writes, and no spaCy pipeline is needed (the API must never need one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.deps import get_store
from paperkg.api.settings import Settings
from paperkg.graph.build import build_graph
from paperkg.graph.corpus import Corpus
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.records import Extraction, Mention, PaperInput, RelationMention
from paperkg.queries import index_snapshot
from tests.stores import write_corpus

# (id, collection, abstract, [(surface, type, introduced)], [(head, type, tail)], [(long, short)]):
# aliases in `Extraction.aliases` order, as the extractor writes them
PAPERS: list[tuple[str, str | None, str, list[tuple[str, str, bool]], list[tuple[str, str, str]],
                   list[tuple[str, str]]]] = [
    (
        "p1", "RL",
        "We introduce Group Relative Policy Optimization (GRPO), a variant of PPO. "
        "GRPO improves accuracy on GSM8K and MATH500 over PPO.",
        [("Group Relative Policy Optimization", "Method", True), ("GRPO", "Method", True),
         ("PPO", "Method", False), ("accuracy", "Metric", False), ("GSM8K", "Dataset", False),
         ("MATH500", "Benchmark", False)],
        [("GRPO", "EVALUATED_ON", "GSM8K"), ("GRPO", "EVALUATED_ON", "MATH500"),
         ("GRPO", "COMPARED_WITH", "PPO")],
        [("Group Relative Policy Optimization", "GRPO")],
    ),
    (
        "p2", "RL",
        "We fine-tune Qwen3-8B with GRPO. Qwen3-8B reaches high accuracy on GSM8K.",
        [("Qwen3-8B", "Model", False), ("GRPO", "Method", False), ("accuracy", "Metric", False),
         ("GSM8K", "Dataset", False)],
        [("Qwen3-8B", "USES", "GRPO"), ("Qwen3-8B", "EVALUATED_ON", "GSM8K")],
        [],
    ),
    (
        "p3", None,
        "Proximal Policy Optimization (PPO) is compared with DQN on Atari 2600 for game playing.",
        [("Proximal Policy Optimization", "Method", False), ("PPO", "Method", False),
         ("DQN", "Method", False), ("Atari 2600", "Benchmark", False), ("game playing", "Task", False)],
        [("PPO", "COMPARED_WITH", "DQN"), ("PPO", "EVALUATED_ON", "Atari 2600"),
         ("PPO", "ADDRESSES", "game playing")],
        [("Proximal Policy Optimization", "PPO")],
    ),
]


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for i, ch in enumerate(text):
        if ch == "." and (i + 1 == len(text) or text[i + 1] == " "):
            spans.append((start, i + 1))
            start = i + 2
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _extraction(pid: str, text: str, entities: list[tuple[str, str, bool]],
                relations: list[tuple[str, str, str]], aliases: list[tuple[str, str]]) -> Extraction:
    sentences = _sentences(text)

    def sentence_of(pos: int) -> int:
        return next(i for i, (s, e) in enumerate(sentences) if s <= pos < e)

    mentions: list[Mention] = []
    for surface, etype, introduced in entities:
        start = text.find(surface)
        while start >= 0:
            end = start + len(surface)
            mentions.append(Mention(surface, etype, start, end, sentence_of(start), introduced))
            start = text.find(surface, end)
    def sentence_with(head: str, tail: str) -> int:
        """The first sentence naming both ends, as an extractor would cite it."""
        for i, (s, e) in enumerate(sentences):
            if head in text[s:e] and tail in text[s:e]:
                return i
        return sentence_of(text.find(head))

    rels = [RelationMention(h, t, tl, sentence_with(h, tl)) for h, t, tl in relations]
    return Extraction(pid, text, sentences, sorted(mentions, key=lambda m: m.start), list(aliases), rels)


def corpus_of(papers: list[tuple[str, str, list[tuple[str, str, bool]], list[tuple[str, str, str]],
                               list[tuple[str, str]]]]) -> Corpus:
    """A corpus of hand-made papers, (id, abstract, entities, relations, aliases) as in `PAPERS`
    without the collection."""
    corpus = Corpus()
    for pid, text, entities, relations, aliases in papers:
        entry, _ = corpus.add(PaperInput(pid, text, "test", 1, title=f"Paper {pid}", year=2025))
        entry.extraction = _extraction(pid, text, entities, relations, aliases)
    return corpus


def make_corpus() -> Corpus:
    corpus = Corpus()
    for pid, collection, text, entities, relations, aliases in PAPERS:
        entry, _ = corpus.add(PaperInput(pid, text, "test", 1, collection=collection,
                                         title=f"Paper {pid}", year=2025))
        entry.extraction = _extraction(pid, text, entities, relations, aliases)
    return corpus


def build_store(path: Path) -> EmbeddedStore:
    return write_corpus(path, make_corpus())


def add_paper(path: Path, pid: str, text: str) -> None:
    """One more paper built into the store at `path` (another writer, as `paperkg build` while a
    server serves it): a new build generation."""
    from paperkg.graph.records import PaperInput
    from paperkg.graph.state import BuildState

    writer = BuildState(path)
    try:
        with writer.transaction() as tx:
            tx.add_record(PaperInput(pid, text, "test", 1))
            tx.derive()
    finally:
        writer.close()


@pytest.fixture(scope="session")
def small_store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("api-store")
    build_store(path).close()
    index_snapshot.save(path)   # as a build leaves a store: a server loads it, and saves nothing into it
    return path


@pytest.fixture(scope="session")
def small_store(small_store_path: Path) -> EmbeddedStore:
    """Read-only: tests must not save into it."""
    return EmbeddedStore(small_store_path)


@pytest.fixture
def settings(small_store_path: Path) -> Settings:
    return Settings(store=str(small_store_path), max_body_bytes=64 * 1024)


@pytest.fixture
def app(settings: Settings, small_store: EmbeddedStore) -> FastAPI:
    app = create_app(settings)
    app.dependency_overrides[get_store] = lambda: small_store
    return app


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def neo4j_small_store(neo4j_uri: str) -> Iterator[object]:
    """The same small graph saved into the Neo4j test engine (saving replaces what other modules
    left there, hence module scope, as `neo4j_seed_store` does)."""
    from paperkg.graph.neo4j_store import Neo4jStore

    corpus = make_corpus()
    store = Neo4jStore(neo4j_uri)
    store.save_graph(build_graph(corpus))
    yield store
    store.close()
