"""Corrections and the review queue on a store directory, as every front door runs them: `paperkg
curate ...` / `paperkg review` (api/curate_cli.py), the Python API (`PaperKG.merge`, ... in
api/library.py) and the HTTP routes (api/routers/corrections.py) call these, so a correction made
from any of them is checked, resolved and applied by the same code.

Each opens the build state of `store_dir` for the call alone (the state is the one writer's, and a
build may want it next), and takes `target`, the Neo4j store a build of that state also writes,
which receives what a correction changes as a delta (`graph.curation.apply`); the caller owns
`target` and closes it. Reading the corrections needs no Neo4j connection: `neo4j` (the URI) only
names the graph when `store_dir` holds no build state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from paperkg.graph import curation
from paperkg.graph.errors import InputNotFoundError
from paperkg.graph.review import Item
from paperkg.graph.review import review as queue_of
from paperkg.graph.state import BuildState
from paperkg.queries.suggest import state_suggester

if TYPE_CHECKING:
    from paperkg.graph.store import GraphWriter

__all__ = ["correct", "export", "import_file", "listing", "review", "undo"]


@contextmanager
def _state(store_dir: str | Path, *, write: bool, neo4j: str | None) -> Iterator[BuildState]:
    """The build state of `store_dir`. For a Neo4j graph (`neo4j`, its URI), a directory without
    one is said as what it is: the corrections of a Neo4j graph live in the `--store` directory of
    its builds, which the server does not hold."""
    try:
        state = BuildState(Path(store_dir), read_only=not write)
    except InputNotFoundError as err:
        if not neo4j:
            raise
        raise InputNotFoundError(
            f"no paperkg store at {store_dir}: the corrections of the Neo4j graph at {neo4j} are kept in "
            "the build state (--store directory) its builds use",
            "name that directory: `paperkg curate ... --store DIR --neo4j URI`, or in Python "
            "`paperkg.open(URI, store=DIR)`") from err
    try:
        yield state
    finally:
        state.close()


def _uri(target: GraphWriter | None) -> str | None:
    return None if target is None else getattr(target, "uri", "Neo4j")


def correct(store_dir: str | Path, corrections: Sequence[curation.Correction], *,
            target: GraphWriter | None = None, strict: bool = True,
            on_wait: Callable[[], None] | None = None) -> curation.Applied:
    """Record `corrections` (from `curation.validate`, or a review item's suggestion) and derive
    again what they touch. `strict`: every name must name one entity now (an unknown one is
    UnknownEntityError with the closest names); an import or an accepted review item is not strict."""
    with _state(store_dir, write=True, neo4j=_uri(target)) as state:
        return curation.apply(state, corrections, target=target, suggest=state_suggester(state),
                              strict=strict, on_wait=on_wait)


def undo(store_dir: str | Path, name: str, *, target: GraphWriter | None = None,
         on_wait: Callable[[], None] | None = None) -> list[curation.Correction]:
    """Take back the corrections of `name` and derive again what they touched; returns them."""
    with _state(store_dir, write=True, neo4j=_uri(target)) as state:
        return curation.remove(state, name, target=target, on_wait=on_wait)


def listing(store_dir: str | Path, *, neo4j: str | None = None) -> list[curation.Status]:
    """The corrections in the order they were made, each with whether it applies now. `neo4j`: the
    URI of the Neo4j graph whose build state this is (reading needs no connection; it names the
    graph when the directory holds no state)."""
    with _state(store_dir, write=False, neo4j=neo4j) as state:
        return curation.listing(state)


def export(store_dir: str | Path, path: str | Path, *, neo4j: str | None = None) -> int:
    """Write the corrections to `path` as JSON Lines; returns how many."""
    with _state(store_dir, write=False, neo4j=neo4j) as state:
        return curation.export(state, Path(path))


def import_file(store_dir: str | Path, path: str | Path, *, target: GraphWriter | None = None,
                on_wait: Callable[[], None] | None = None) -> curation.Applied:
    """Record the corrections of a JSON Lines file (`export`'s), not strictly: a line naming an
    entity this graph lacks is kept and reported in `Applied.not_applying`."""
    with _state(store_dir, write=True, neo4j=_uri(target)) as state:
        return curation.import_file(state, Path(path), target=target, on_wait=on_wait)


def review(store_dir: str | Path, limit: int = 20, *, neo4j: str | None = None) -> list[Item]:
    """The `limit` facts a correction would most improve, heaviest first (`graph.review`)."""
    with _state(store_dir, write=False, neo4j=neo4j) as state:
        return queue_of(state, limit)
