"""Hot reload frees the old graph: before the fix each reload kept the previous graph and its query
index alive (the index held its graph strongly, and `gc.freeze` kept networkx's view cycles)."""

from __future__ import annotations

import shutil
import time
import weakref
from pathlib import Path

from paperkg.api.deps import StoreHolder
from paperkg.api.settings import Settings
from paperkg.graph.embedded import EmbeddedStore
from paperkg.queries import embedded_impl


def _rebuild(path: Path) -> None:
    store = EmbeddedStore(path)
    corpus, graph = store.load_corpus(), store.graph()
    store.save(corpus, graph)          # a new file: a new version for the server
    store.close()


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
    for _ in range(3):
        store = holder.get()
        graph = store.networkx()          # type: ignore[attr-defined]
        refs.append((weakref.ref(graph), weakref.ref(embedded_impl.index_for(graph))))
        del store, graph
        time.sleep(0.01)                  # the version is (inode, mtime_ns, size)
        _rebuild(path)
        _wait_reloaded(holder)
    # no gc.collect(): frozen objects are beyond it anyway; reference counting alone must free them
    assert all(g() is None and i() is None for g, i in refs), [(g() is None, i() is None) for g, i in refs]
    assert holder.get().stats()["nodes"]["Paper"] == 3
    holder.close()
