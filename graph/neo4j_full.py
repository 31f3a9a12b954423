"""The Neo4j store's full writer: every node and relationship of a graph, CREATEd into an empty
database on concurrent sessions (relationships by element id, partitioned by source) or MERGEd into
one holding another graph and the rest deleted; then every figure, then the save marker."""

from __future__ import annotations

from collections.abc import Mapping

import neo4j

from paperkg.graph.errors import (
    StoreUnavailableError,
)
from paperkg.graph.model import EDGE_TYPES, NODE_LABELS, Edge, node_key
from paperkg.graph.neo4j_cypher import lookup_index_names, render, statement
from paperkg.graph.neo4j_delta import Neo4jDeltaWriter
from paperkg.graph.neo4j_reader import Neo4jReader
from paperkg.graph.neo4j_rows import Part, Plan, _batches, _grouped_by_source, _label_of, _pack
from paperkg.graph.neo4j_schema import Neo4jSchema


class Neo4jFullWriter(Neo4jDeltaWriter, Neo4jReader, Neo4jSchema):
    """Full saves of `Neo4jStore`."""

    def _created_edges(self, plan: Plan, element_ids: Mapping[tuple[str, str], str]) -> list[Part]:
        """Relationship parts of a save into an empty database: endpoints as the element ids the
        node batches returned, grouped by source (see `_grouped_by_source`)."""
        edges: list[Part] = []
        for (etype, slabel, tlabel), rows in sorted(plan.edges.items()):
            text = render("create_edges", type=etype, source_label=slabel, target_label=tlabel)
            try:
                located = [{"source": element_ids[(slabel, row["source"])],
                            "target": element_ids[(tlabel, row["target"])], "props": row["props"]}
                           for row in rows]
            except KeyError as err:
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} did not report creating node {err.args[0]!r} of this save",
                    "run the build again") from None
            edges += [Part(text, batch, f"{etype} relationships", sum(len(g["rels"]) for g in batch))
                      for batch in _grouped_by_source(located, self.batch_size)]
        return edges

    def _apply_full(self, session: neo4j.Session, plan: Plan, generation: str) -> None:
        """Every node and relationship of the graph, then nothing else: CREATE into a database with
        no paperkg node, else MERGE and delete the stale; then every figure, then the marker.

        Indexes no write looks anything up through are dropped first and built once at the end (a
        population is cheaper than updating them per batch): into an empty database every one that
        backs no constraint, into another graph the co-mention indexes (every entry is deleted and
        written again)."""
        counts = session.execute_read(self._count_all)
        empty = not any(counts["nodes"].values()) and not any(counts["edges"].values())
        self._write(session, lambda tx: self._marker(tx, "meta_writing", generation))
        nodes, edges = self._parts(plan, create=empty)
        dropped = lookup_index_names() if empty else {
            name for name in lookup_index_names() if name.startswith("paperkg_co_")}
        for name in sorted(dropped):
            session.run(f"DROP INDEX {name} IF EXISTS").consume()
        self._schema_ok = False
        if empty:
            # The uniqueness constraints stay: the relationship batches look their endpoints up
            # through them.
            element_ids: dict[tuple[str, str], str] = {}
            self._concurrently(nodes, element_ids)
            self._concurrently(self._created_edges(plan, element_ids))
            del element_ids
        else:
            for batch in _pack(nodes, self.batch_size):
                self._write(session, lambda tx, b=batch: self._run_parts(tx, b))
            for batch in _pack(edges, self.batch_size):
                self._write(session, lambda tx, b=batch: self._run_parts(tx, b))
            self._delete_stale(session, plan, counts_after=session.execute_read(self._count_all))
        while self._write(session, lambda tx: tx.run(statement("figures_clear"), limit=self.batch_size)
                          .single(strict=True)["deleted"]):
            pass
        ids = [r["id"] for r in session.execute_read(lambda tx: list(tx.run(statement("figured_ids"))))]
        entities = [i for i in ids if not i.startswith("collection:")]
        collections = [i for i in ids if i.startswith("collection:")]
        self._figures_batched(entities, collections)
        self.ensure_schema()
        self._write(session, lambda tx: self._marker(tx, "meta_complete", generation))

    def _concurrently(self, parts: list[Part], found: dict[tuple[str, str], str] | None = None) -> None:
        """Parts of a save into an empty database on `workers` sessions at once, a transaction
        each: node batches (new nodes, nothing shared), then relationship batches, which never
        share a source node (`_grouped_by_source`) and so only wait for each other on targets.
        `found` collects the created nodes' element ids (see `_run_parts`)."""
        self._in_parallel([lambda tx, p=part: self._run_parts(tx, [p], found) for part in parts])

    def _delete_stale(self, session: neo4j.Session, plan: Plan, counts_after: dict[str, dict[str, int]]
                      ) -> None:
        """Delete what the new graph does not have: relationships first (by type, with duplicates),
        then nodes (by label), found by reading the stored keys and comparing in Python.

        Fast path, exact: after the upserts every wanted node and relationship exists at least once,
        so a type (or label) whose stored count equals the graph's count holds nothing else, and its
        keys need not be read. Only types and labels that shrank (or hold strays) are scanned."""
        wanted = plan.wanted_counts
        for etype in EDGE_TYPES:
            if counts_after["edges"][etype] == wanted["edges"][etype]:
                continue
            text = render("edge_keys", type=etype)
            stale: list[str] = []
            seen: set[str] = set()
            for record in session.execute_read(lambda tx, text=text: list(tx.run(text))):
                slabel = _label_of(record["source_labels"])
                tlabel = _label_of(record["target_labels"])
                key = None
                if slabel and tlabel and record["source"] is not None and record["target"] is not None:
                    key = Edge(etype, node_key(slabel, record["source"]),
                               node_key(tlabel, record["target"])).id
                if key is None or key not in plan.wanted_edges or key in seen:
                    stale.append(record["element_id"])
                else:
                    seen.add(key)
            self._delete_elements(session, stale)
        for label in NODE_LABELS:
            if counts_after["nodes"][label] == wanted["nodes"][label]:
                continue
            text = render("node_ids", label=label)
            stale_ids = [
                record["element_id"]
                for record in session.execute_read(lambda tx, text=text: list(tx.run(text)))
                if record["id"] is None or node_key(label, record["id"]) not in plan.wanted_nodes
            ]
            for batch in _batches(stale_ids, self.batch_size):
                self._write(session, lambda tx, b=batch: tx.run(statement("delete_node_elements"),
                                                                element_ids=b).consume())

    def _delete_elements(self, session: neo4j.Session, element_ids: list[str]) -> None:
        for batch in _batches(element_ids, self.batch_size):
            self._write(session, lambda tx, b=batch: tx.run(statement("delete_elements"),
                                                            element_ids=b).consume())
