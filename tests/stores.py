"""Stores made from hand-written corpora (records with their extractions), without spaCy: the
build state's own write path, as a build takes it after extraction."""

from __future__ import annotations

from pathlib import Path

from paperkg.graph.corpus import Corpus, PaperEntry
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.records import PaperInput
from paperkg.graph.state import BuildState, StateWriter


def add_entry(tx: StateWriter, entry: PaperEntry) -> None:
    """Every record of `entry`, then its extraction."""
    for meta in entry.records.values():
        tx.add_record(PaperInput(meta.id, meta.abstract, "test", 1, collection=meta.collection,
                                 title=meta.title, year=meta.year, authors=meta.authors, url=meta.url,
                                 doi=meta.doi, categories=meta.categories))
    if entry.extraction is not None:
        tx.set_extraction(entry.key, entry.extraction)


def write_corpus(path: Path, corpus: Corpus) -> EmbeddedStore:
    """Add `corpus` to the store at `path` (created if need be) in one build."""
    state = BuildState(path, create=True)
    try:
        with state.transaction() as tx:
            for entry in corpus:
                add_entry(tx, entry)
            tx.derive()
    finally:
        state.close()
    return EmbeddedStore(path)


def store_generation(path: Path) -> str | None:
    """The build generation the store at `path` holds now (what a saved serving index must name)."""
    state = BuildState(path, read_only=True)
    try:
        return state.generation()
    finally:
        state.close()
