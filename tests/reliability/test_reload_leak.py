"""Hot reload frees the old graph: before the fix each reload kept the previous graph and its query
index alive (the index held its graph strongly, and `gc.freeze` kept networkx's view cycles)."""

from __future__ import annotations

import shutil
import time
import weakref
from pathlib import Path

from paperkg.api.deps import StoreHolder
from paperkg.api.settings import Settings
from paperkg.graph.corpus import Corpus
from paperkg.graph.records import Extraction, PaperInput
from paperkg.queries import embedded_impl
from tests.stores import write_corpus


def _rebuild(path: Path, n: int) -> None:
    """A real build into the store: one more hand-made paper, so the state gets a new generation."""
    corpus = Corpus()
    text = f"Paper number {n} adds one abstract to the store."
    entry, _ = corpus.add(PaperInput(f"extra{n}", text, "test", 1))
    entry.extraction = Extraction(f"extra{n}", text, [(0, len(text))], [], [], [])
    write_corpus(path, corpus).close()


def _wait_reloaded(holder: StoreHolder) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        holder.get()
        store = holder._store
        if holder._reloading is None and store is not None and holder._version == store.version():
            return
        time.sleep(0.05)
    raise AssertionError("the store was not reloaded within 60 s")


def test_old_graph_and_index_are_freed_after_reloads(small_store_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "store"
    shutil.copytree(small_store_path, path)
    holder = StoreHolder(Settings(store=str(path)))
    refs = []
    for n in range(3):
        store = holder.get()
        index = embedded_impl.index_of(store)      # the catalog's, from the store's rows
        graph = store.networkx()          # type: ignore[attr-defined]
        refs.append((weakref.ref(graph), weakref.ref(embedded_impl.index_for(graph)), weakref.ref(index),
                     weakref.ref(store)))
        del store, graph, index
        _rebuild(path, n)
        _wait_reloaded(holder)
    # no gc.collect(): frozen objects are beyond it anyway; reference counting alone must free them
    assert all(ref() is None for group in refs for ref in group), [[r() is None for r in g] for g in refs]
    assert holder.get().stats()["nodes"]["Paper"] == 3 + 3
    holder.close()
