"""The build pipeline: read -> dedupe -> extract new -> resolve + derive -> write.

This is the one module that imports both the extractor (`paperkg.extract`) and the stores
(`paperkg.graph`): the extractor produces records, the graph layer never sees spaCy, and `api/` may
import everything. The CLI's `build`, `remove` and `extract` (no store) call it; so do the benchmarks.

Everything happens inside one transaction of the store directory's build state
(`graph/state.py`): a second build of the same store waits for this one, a build that fails or is
killed leaves the previous state, and a server keeps answering from the last committed build. The
state derives the graph and hands back the change (`GraphDelta`); a Neo4j target applies that change
before the state commits, so the two never disagree without the next build noticing (the target
records which generation it holds, and a mismatch makes the next delta a full one). After the commit,
a build of the embedded store saves the catalog's index beside it (`save_serving_index`), which
`paperkg serve` then reads rather than derives.
"""

from __future__ import annotations

import sqlite3
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from paperkg.extract.readers import Problem, read_inputs
from paperkg.extract.version import extractor_fingerprint
from paperkg.graph import curation
from paperkg.graph.corpus import PaperEntry
from paperkg.graph.errors import NotFoundError, StoreCorruptError
from paperkg.graph.records import Extraction
from paperkg.graph.state import (
    QUICK_CHECK_MAX_BYTES,
    BuildState,
    damaged_rows,
    rebuild_hint,
)
from paperkg.queries import index_snapshot

if TYPE_CHECKING:
    from paperkg.graph.neo4j_store import Neo4jStore


__all__ = ["BuildSummary", "Problem", "build", "check", "extract", "extract_page", "open_target", "remove",
           "repair", "save_serving_index"]


def open_target(uri: str, user: str | None, password: str | None, database: str | None, *,
                replace: bool = False) -> Neo4jStore:
    """The Neo4j store a build (`--neo4j URI`) also writes; `replace`: replace a graph another build
    state wrote there (`--replace-neo4j-graph`), which is refused otherwise."""
    from paperkg.graph.neo4j_store import Neo4jStore

    return Neo4jStore(uri, user, password, database, replace_other=replace)


@dataclass
class BuildSummary:
    records: int = 0
    new_papers: int = 0
    extracted: int = 0
    reextracted: int = 0
    removed: int = 0
    papers: int = 0
    saved: bool = False
    errors: int = 0
    warnings: int = 0
    not_applying: list[str] = field(default_factory=list)   # corrections naming no entity now
    stats: dict[str, dict[str, int]] = field(default_factory=dict)
    serving_index: float | str | None = None   # saving the catalog's index (`save_serving_index`)

    def to_json(self) -> dict:
        return {
            "records": self.records, "new_papers": self.new_papers, "extracted": self.extracted,
            "reextracted": self.reextracted, "removed": self.removed,
            "papers": self.papers, "saved": self.saved, "errors": self.errors,
            "warnings": self.warnings, "not_applying": self.not_applying, "stats": self.stats,
            "serving_index": self.serving_index,
        }


def build(
    paths: Sequence[str],
    store_dir: str | Path,
    report: Callable[[Problem], None],
    *,
    target: Neo4jStore | None = None,
    mode: str = "default",
    n_process: int = 1,
    dask: str | None = None,
    progress: Callable[[Iterable, int], Iterable] | None = None,
    on_wait: Callable[[], None] | None = None,
    on_stage: Callable[[str], None] | None = None,
    serving_index: str = "wait",
) -> BuildSummary:
    """Add the papers in `paths` to the store at `store_dir` (and to `target`, a Neo4j store, when
    given). Bad records are reported and skipped; nothing is committed until the end. With `dask` (a
    scheduler address or `local`) the new papers are extracted on that cluster; everything else
    happens here. `on_stage` hears what the build is doing while nothing else shows it (loading
    the extractor takes seconds before the first abstract is counted). `serving_index`: save the
    serving index before returning ("wait"), in the background, or "auto" (`save_serving_index`)."""
    summary = BuildSummary()

    def counted(problem: Problem) -> None:
        if problem.severity == "error":
            summary.errors += 1
        else:
            summary.warnings += 1
        report(problem)

    state = BuildState(Path(store_dir), create=True)
    try:
        if state.size() <= QUICK_CHECK_MAX_BYTES:                            # damage named up front
            state.verify()
        with state.transaction(on_wait) as tx:
            before = tx.paper_count
            for record in read_inputs(paths, counted):                       # read
                summary.records += 1
                try:
                    tx.add_record(record)                                    # dedupe
                except ValueError as err:
                    counted(Problem(record.source, record.line, str(err), "error"))
            summary.new_papers = tx.paper_count - before

            fingerprint = extractor_fingerprint(mode)                        # extract new
            todo = tx.to_extract(fingerprint)
            if todo:
                state.check_room(len(todo), tx.paper_count - len(todo))      # before extracting
                if on_stage:
                    on_stage(f"loading the extractor to extract {len(todo):,} abstracts ...")
                from paperkg.extract.pipeline import Extractor

                extractor = Extractor(mode=mode, n_process=n_process, dask=dask)
                # The papers are read from the state a batch at a time as the extractor asks for
                # them; each one waits in `pending` until its extraction comes back (in order).
                pending: deque[PaperEntry] = deque()

                def inputs() -> Iterator[tuple[str, str]]:
                    for entry in tx.entries(todo):
                        summary.reextracted += entry.extraction is not None
                        pending.append(entry)
                        yield entry.id, entry.abstract

                results = extractor.extract(inputs())
                pairs = ((pending.popleft(), extraction) for extraction in results)
                for entry, extraction in (progress(pairs, len(todo)) if progress else pairs):
                    extraction.extractor = fingerprint
                    tx.set_extraction(entry.key, extraction)
                    summary.extracted += 1
            tx.write(target)                                                 # derive, write
            summary.not_applying = _not_applying(tx.db)
            summary.saved = tx.changed
            summary.papers = tx.paper_count
        summary.stats = (target or state).stats()
    finally:
        state.close()
    if target is None:
        summary.serving_index = save_serving_index(store_dir, serving_index, summary.papers, on_stage)
    return summary


def remove(
    ids: Sequence[str],
    store_dir: str | Path,
    *,
    target: Neo4jStore | None = None,
    on_wait: Callable[[], None] | None = None,
    serving_index: str = "wait",
) -> BuildSummary:
    """Remove the papers `ids` name, and everything only they supported; the graph becomes the one
    a build without them makes. An id no paper has removes nothing (NotFoundError)."""
    summary = BuildSummary()
    state = BuildState(Path(store_dir))
    try:
        with state.transaction(on_wait) as tx:
            before = tx.paper_count
            unknown = tx.remove(ids)
            if unknown:
                shown = ", ".join(repr(i) for i in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
                raise NotFoundError(f"no paper in {store_dir} has the id(s) {shown}; nothing was removed",
                                    "check the ids (`paperkg query paper --param id=ID`)")
            summary.removed = before - tx.paper_count
            tx.write(target)
            summary.not_applying = _not_applying(tx.db)
            summary.saved = tx.changed
            summary.papers = tx.paper_count
        summary.stats = (target or state).stats()
    finally:
        state.close()
    if target is None:
        summary.serving_index = save_serving_index(store_dir, serving_index, summary.papers)
    return summary


# From this many papers "auto" saves the serving index in the background: ~0.24 ms a paper (50 s at
# 209k abstracts), so below it a build waits a few seconds at most.
BACKGROUND_INDEX_PAPERS = 20_000


def save_serving_index(store_dir: str | Path, mode: str = "wait", papers: int = 0,
                       on_stage: Callable[[str], None] | None = None) -> float | str | None:
    """Save the catalog's index of the store's committed build beside it (`queries.index_snapshot`),
    so that `paperkg serve` reads it instead of deriving it at every start. It is derived from the
    whole store whatever the change (~50 s at 209k abstracts, against ~2 s for removing 100 papers),
    so "background" starts a detached, low-priority process for it (like `git gc --auto`) and returns;
    a server started before it is done derives the index itself. "auto" is "background" for a store of
    BACKGROUND_INDEX_PAPERS `papers` or more, else "wait". Returns the seconds it took (waited for),
    "background", or None when the saved one was current."""
    if mode == "background" or (mode == "auto" and papers >= BACKGROUND_INDEX_PAPERS):
        index_snapshot.save_in_background(store_dir)
        return "background"
    started = time.perf_counter()
    if on_stage:
        on_stage("saving the index paperkg serve loads ...")
    if index_snapshot.save(store_dir) is None:
        return None
    return round(time.perf_counter() - started, 2)


def check(store_dir: str | Path) -> int:
    """Check the whole store, whatever its size: every page (`quick_check`) and every JSON row.
    Returns its paper count; damage raises StoreCorruptError naming the damaged rows, with the
    repair (`repair`) when only derived rows are damaged, else the rebuild."""
    state = BuildState(Path(store_dir), read_only=True)
    try:
        state.verify()
        return state.stats()["nodes"]["Paper"]
    finally:
        state.close()


def repair(store_dir: str | Path, on_wait: Callable[[], None] | None = None, *,
           serving_index: str = "wait") -> BuildSummary:
    """Derive the graph of the store at `store_dir` again from its stored records and extractions
    (no extraction), replacing every derived row: what mends damaged derived rows. Damage to the
    pages or to the records and extractions themselves is refused: only a rebuild from the input
    mends that."""
    summary = BuildSummary()
    state = BuildState(Path(store_dir))
    try:
        with state.reader() as db:
            pages = [row[0] for row in db.execute("PRAGMA quick_check(3)") if row[0] != "ok"]
            _, source = damaged_rows(db)
        if pages or source:
            raise StoreCorruptError(
                f"the store {store_dir} cannot be repaired: " + ("; ".join(pages) if pages else
                "its records or extractions are damaged: " + ", ".join(source)),
                rebuild_hint(Path(store_dir)))
        with state.transaction(on_wait) as tx:
            tx.rederive_all()
            summary.saved = True
            summary.papers = tx.paper_count
        summary.stats = state.stats()
    finally:
        state.close()
    summary.serving_index = save_serving_index(store_dir, serving_index, summary.papers)
    return summary


def extract(paths: Sequence[str], *, mode: str, n_process: int,
            on_problem: Callable[[Problem], None]) -> Iterator[Extraction]:
    """`paperkg extract`: each readable record's extraction, in input order, with no store (the
    records are not deduplicated: each line of the input gets its own)."""
    from paperkg.extract.pipeline import Extractor

    records = read_inputs(paths, on_problem)
    return Extractor(mode=mode, n_process=n_process).extract((r.id, r.abstract) for r in records)


def extract_page(extractions: Iterable[Extraction]) -> str:
    """`paperkg extract --html`: one HTML page showing every extraction's entities in its abstract
    (displaCy's span view, `extract.display`)."""
    from paperkg.extract.display import render_page

    return render_page(extractions)


def _not_applying(db: sqlite3.Connection) -> list[str]:
    """The user's corrections that name no entity of the graph now: said, not fatal."""
    return [f"{s.correction.describe()}: {s.reason}" for s in curation.statuses(db) if not s.applies]
