"""The Neo4j store's delta writer: a `GraphDelta` on the generation it was made from, MERGEd as
`UNWIND $rows` batches, one transaction when small (readers see the old graph or the new), with the
figures changed by what it changed and the save marker recorded last."""

from __future__ import annotations

from collections.abc import Iterable

import neo4j

from paperkg.graph import neo4j_figures as figures
from paperkg.graph.errors import (
    StoreUnavailableError,
)
from paperkg.graph.model import NODE_LABELS
from paperkg.graph.neo4j_cypher import render
from paperkg.graph.neo4j_figure_writer import FIGURE_BATCH, Neo4jFigureWriter, _split_update
from paperkg.graph.neo4j_lease import Neo4jLease
from paperkg.graph.neo4j_rows import Part, Plan, _batches, _pack

# A delta of at most this many rows (nodes, relationships, deletions) is written in one
# transaction, figures and marker included: atomic for readers.
ATOMIC_ROWS = 20000


class Neo4jDeltaWriter(Neo4jLease, Neo4jFigureWriter):
    """Delta saves of `Neo4jStore`, and the statement parts full saves share."""

    def _run_parts(self, tx: neo4j.Transaction, parts: Iterable[Part],
                   found: dict[tuple[str, str], str] | None = None) -> None:
        """Run each part, checking its written count; `found` collects the (label, id) -> element id
        pairs of statements that return them (create_nodes)."""
        for part in parts:
            record = tx.run(part.text, rows=part.rows).single()
            written = int(record["written"]) if record else 0
            if found is not None and record is not None and record.get("ids") is not None:
                found.update(((part.label, nid), eid) for nid, eid in record["ids"])
            if part.expect is not None and written != part.expect:
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} wrote {written} of {part.expect} {part.what}: endpoints "
                    "vanished during the save (another process writing the same database?)",
                    "run the build again")

    def _parts(self, plan: Plan, *, create: bool) -> tuple[list[Part], list[Part]]:
        """Statement parts of the upserts: nodes, then relationships (CREATE-grouped by source for
        a save into an empty database, MERGE otherwise)."""
        size = self.batch_size
        nodes = [Part(render("create_nodes" if create else "merge_nodes", label=label), batch,
                      f"{label} nodes", len(batch), label)
                 for label in NODE_LABELS for batch in _batches(plan.nodes.get(label, []), size)]
        edges: list[Part] = []
        if not create:
            for (etype, slabel, tlabel), rows in sorted(plan.edges.items()):
                text = render("merge_edges", type=etype, source_label=slabel, target_label=tlabel)
                edges += [Part(text, batch, f"{etype} relationships", len(batch))
                          for batch in _batches(rows, size)]
        return nodes, edges

    def _deletions(self, plan: Plan) -> list[Part]:
        parts = [Part(render("delete_edges", type=etype, source_label=slabel, target_label=tlabel),
                      batch, f"stale {etype} relationships", None)
                 for (etype, slabel, tlabel), rows in sorted(plan.deleted_edges.items())
                 for batch in _batches(rows, self.batch_size)]
        parts += [Part(render("delete_nodes", label=label), [{"id": i} for i in batch],
                       f"stale {label} nodes", None)
                  for label in NODE_LABELS for batch in _batches(plan.deleted_nodes.get(label, []),
                                                                 self.batch_size)]
        return parts

    def _apply_change(self, session: neo4j.Session, plan: Plan, generation: str) -> None:
        """A delta on the generation it was made from: one transaction when small (readers see the
        old graph or the new), else marked batches. The figures change by what the delta changed
        (`_figure_update`), not computed again."""
        papers = sorted(plan.papers)
        renamed = self._renamed(session, plan.entities)
        dependents = self._dependents(session, renamed)
        nodes, edges = self._parts(plan, create=False)
        parts = [*nodes, *edges, *self._deletions(plan)]

        if plan.size <= ATOMIC_ROWS:
            def work(tx: neo4j.Transaction) -> None:
                before = self._links(tx, papers)
                self._run_parts(tx, parts)
                update = self._figure_update(tx, before, self._links(tx, papers), renamed, dependents,
                                             plan.gone)
                self._write_figures(tx, update)
                self._marker(tx, "meta_complete", generation)

            self._write(session, work)
            return
        before = self._links(session, papers)
        self._write(session, lambda tx: self._marker(tx, "meta_writing", generation))
        for batch in _pack(parts, self.batch_size):
            self._write(session, lambda tx, b=batch: self._run_parts(tx, b))
        update = session.execute_read(lambda tx: self._figure_update(
            tx, before, self._links(tx, papers), renamed, dependents, plan.gone))
        chunks = list(_split_update(update, FIGURE_BATCH)) or [figures.Update()]
        for i, chunk in enumerate(chunks):
            def finish(tx: neo4j.Transaction, chunk: figures.Update = chunk, last: bool = i == len(chunks) - 1
                       ) -> None:
                self._write_figures(tx, chunk)
                if last:
                    self._marker(tx, "meta_complete", generation)

            self._write(session, finish)
