"""The embedded store: a networkx graph in a directory, no server.

One pickle holds the corpus and the derived graph. It is written to a temporary file, flushed to
disk and renamed over the old one, so a build that fails or is killed leaves the previous store
loadable and unchanged; a lock file keeps two builds from interleaving.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import networkx as nx

from paperkg.graph.corpus import Corpus
from paperkg.graph.errors import BadInputError, InputNotFoundError, StoreUnavailableError
from paperkg.graph.model import KnowledgeGraph, node_key
from paperkg.graph.store import graph_stats

FORMAT = 1
DATA_FILE = "graph.pickle"
LOCK_FILE = ".lock"


# Bulky text the query view leaves out: no query but `paper` returns an abstract (it asks
# `g.graph["abstract_of"]`), none returns a relation's evidence sentences (exports read the store).
BULKY_NODE_PROPS = frozenset({"abstract"})
BULKY_EDGE_PROPS = frozenset({"evidence"})


def to_networkx(graph: KnowledgeGraph,
                abstract_of: Callable[[str], str | None] | None = None) -> nx.MultiDiGraph:
    """The query view: topology and small properties; grand-cypher reads labels and types from a
    `__labels__` set.

    Memory decides the shape (the served graph must fit at 1M abstracts): one `__labels__` set per
    label, shared by every node or edge that carries it (a set each was a third of an edge's
    size), edge keys are the edge type (unique: at most one edge of a type between two nodes) rather
    than the long `edge_id` string, and the bulky text stays with the store: `abstract_of(paper id)`
    (kept as `g.graph["abstract_of"]`) fetches an abstract when a query returns one; by default it
    reads `graph`, for callers that hold the whole graph anyway."""
    if abstract_of is None:
        def abstract_of(pid: str) -> str | None:
            node = graph.nodes.get(node_key("Paper", pid))
            return node.props.get("abstract") if node else None

    g = nx.MultiDiGraph(abstract_of=abstract_of)
    labels: dict[str, set[str]] = {}
    for key, node in graph.nodes.items():
        props = {k: v for k, v in node.props.items() if k not in BULKY_NODE_PROPS}
        g.add_node(key, **props, __labels__=labels.setdefault(node.label, {node.label}))
    for edge in graph.edges.values():
        props = {k: v for k, v in edge.props.items() if k not in BULKY_EDGE_PROPS}
        g.add_edge(edge.source, edge.target, key=edge.type, **props,
                   __labels__=labels.setdefault(edge.type, {edge.type}))
    return g


class EmbeddedStore:
    kind = "embedded"

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise BadInputError(f"store path {self.path} is a file, not a directory",
                                "give --store a directory")
        if not create and not (self.path / DATA_FILE).exists():
            raise InputNotFoundError(f"no paperkg store at {self.path}",
                                     "build one first with `paperkg build INPUT --store PATH`")
        self._data: dict | None = None
        self._nx: nx.MultiDiGraph | None = None

    def version(self) -> tuple[int, int, int] | None:
        """Identity of the pickle on disk now (inode, mtime, size): a save replaces the file, so this
        changes with every build, which is how a running server notices one (`api.deps`)."""
        try:
            st = os.stat(self.path / DATA_FILE)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _load(self) -> dict:
        if self._data is None:
            file = self.path / DATA_FILE
            if not file.exists():
                self._data = {"format": FORMAT, "corpus": Corpus(), "graph": KnowledgeGraph()}
            else:
                try:
                    with open(file, "rb") as fh:
                        data = pickle.load(fh)
                except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as err:
                    raise StoreUnavailableError(f"cannot read the store {file}: {err}",
                                                "rebuild it into a new --store directory") from err
                if not isinstance(data, dict) or data.get("format") != FORMAT:
                    raise StoreUnavailableError(f"{file} is not a paperkg store of format {FORMAT}",
                                                "rebuild it into a new --store directory")
                self._data = data
        return self._data

    def load_corpus(self) -> Corpus:
        return self._load()["corpus"]

    def graph(self) -> KnowledgeGraph:
        return self._load()["graph"]

    def networkx(self) -> nx.MultiDiGraph:
        if self._nx is None:
            self._nx = to_networkx(self.graph())
        return self._nx

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / LOCK_FILE, "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as err:
                raise StoreUnavailableError(f"the store {self.path} is being written by another process",
                                            "wait for that build to finish") from err
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def save(self, corpus: Corpus, graph: KnowledgeGraph) -> None:
        data = {"format": FORMAT, "corpus": corpus, "graph": graph}
        with self._locked():
            fd, tmp = tempfile.mkstemp(prefix=".graph-", suffix=".tmp", dir=self.path)
            try:
                with os.fdopen(fd, "wb") as fh:
                    pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self.path / DATA_FILE)
                dir_fd = os.open(self.path, os.O_RDONLY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
        self._data, self._nx = data, None

    def stats(self) -> dict[str, dict[str, int]]:
        return graph_stats(self.graph())

    def export(self) -> KnowledgeGraph:
        return self.graph()

    def close(self) -> None:
        self._data, self._nx = None, None
