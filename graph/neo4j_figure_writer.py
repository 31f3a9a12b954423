"""The Neo4j store's precomputed figures (`PaperkgCo`, `PaperkgFigures`) as it reads and writes them:
what a delta's papers linked to before and after it, the update `graph/neo4j_figures.py` derives
from that, written in place, and the figures of a full save computed in Neo4j."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import neo4j

from paperkg.graph import neo4j_figures as figures
from paperkg.graph.neo4j_connection import Neo4jConnection
from paperkg.graph.neo4j_cypher import statement
from paperkg.graph.neo4j_rows import _batches

# Entities (or collections) whose figures one transaction computes.
FIGURE_BATCH = 500
# The largest `limit` cooccurring and introduced_in accept (their catalog headers): the figures keep
# the first FIGURE_LIMIT entries of each type (co-mentions) or overall (introductions).
FIGURE_LIMIT = 1000


class Neo4jFigureWriter(Neo4jConnection):
    """Figure upkeep of `Neo4jStore`."""

    def _links(self, runner: Any, papers: list[str]) -> dict[str, figures.Links]:
        """What these papers mention, introduce and belong to (through a session or in a transaction);
        papers not in the database are left out."""
        links: dict[str, figures.Links] = {}
        for batch in _batches(papers, self.batch_size):
            for pid, mentions, introduces, collections in runner.run(
                    statement("paper_links"), ids=batch).single(strict=True)["rows"]:
                links[pid] = figures.Links(frozenset(mentions), frozenset(introduces), frozenset(collections))
        return links

    def _entity_rows(self, runner: Any, ids: Iterable[str]) -> dict[str, tuple[Any, Any, Any]]:
        """Stored (name, type, papers mentioning it) of these entities (the ones that exist)."""
        found: dict[str, tuple[Any, Any, Any]] = {}
        for batch in _batches(sorted(ids), self.batch_size):
            for eid, name, etype, papers in runner.run(statement("entity_names"), ids=batch).single(
                    strict=True)["rows"]:
                found[eid] = (name, etype, papers)
        return found

    def _renamed(self, session: neo4j.Session, entities: Mapping[str, tuple[Any, Any]]
                 ) -> dict[str, tuple[str, str]]:
        """Entities of the delta whose stored name or type differs from the new one, with the stored
        (name, type) as the figures hold them ('' for a missing one)."""
        stored = self._entity_rows(session, entities)
        return {eid: (name or "", etype or "") for eid, (name, etype, _) in stored.items()
                if entities[eid] != (name, etype)}

    def _dependents(self, session: neo4j.Session, renamed: Mapping[str, tuple[str, str]]
                    ) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """Whose figures show the renamed entities, read before the change: entity -> the renamed
        entities co-mentioned with it, collection -> the renamed entities its papers introduce."""
        entities: dict[str, set[str]] = defaultdict(set)
        collections: dict[str, set[str]] = defaultdict(set)
        for batch in _batches(sorted(renamed), FIGURE_BATCH):
            for rid, others, colls in session.run(statement("renamed_dependents"), ids=batch).single(
                    strict=True)["rows"]:
                for other in others:
                    entities[other].add(rid)
                for coll in colls:
                    collections[coll].add(rid)
        return entities, collections

    def _figure_update(self, tx: Any, before: Mapping[str, figures.Links], after: Mapping[str, figures.Links],
                       renamed: Mapping[str, tuple[str, str]],
                       dependents: tuple[dict[str, set[str]], dict[str, set[str]]],
                       gone: set[str]) -> figures.Update:
        """The figure changes the delta makes (see graph/neo4j_figures.py), read inside `tx` after
        the delta's writes: the stored entries of the co-mention pairs it changed, how many entries
        the types concerned keep, the stored lists of the collections whose inputs changed, the
        current names of the entries that change, and exact counts where a cut needs them."""
        limit = FIGURE_LIMIT
        co = figures.co_changes(before, after)
        pairs = figures.intro_pairs(before, after)
        dep_entities, dep_collections = dependents
        entity_ids = sorted((set(co) | set(dep_entities)) - gone)
        collection_ids = ({c for c, _ in pairs} | set(dep_collections)) - gone
        wanted = {o for changes in co.values() for o in changes} | set(renamed) | {e for _, e in pairs}
        wanted |= set(entity_ids)
        rows = self._entity_rows(tx, wanted)
        names = {eid: (name or "", etype or "") for eid, (name, etype, _) in rows.items()}
        moved = {eid: {r: renamed[r] for r in dep_entities.get(eid, ())} for eid in entity_ids}

        stored: dict[str, dict[str, figures.CoRow]] = defaultdict(dict)
        asked = [[eid, o] for eid in entity_ids for o in sorted({*co.get(eid, ()), *moved[eid]})]
        for batch in _batches(asked, self.batch_size):
            for of, other, name, etype, papers in tx.run(statement("co_read"), pairs=batch).single(
                    strict=True)["rows"]:
                stored[of][other] = (other, name, etype, int(papers))
        sizes: dict[str, dict[str, int]] = defaultdict(dict)
        least: dict[tuple[str, str], int] = {}      # (entity, type) -> smallest kept count
        keys = [[eid, t] for eid in entity_ids
                for t in sorted(figures.co_types(stored[eid], co.get(eid, {}), names, moved[eid]))]
        for batch in _batches(keys, self.batch_size):
            for of, etype, n, smallest in tx.run(statement("co_sizes"), keys=batch).single(
                    strict=True)["rows"]:
                sizes[of][etype] = int(n)
                least[(of, etype)] = int(smallest or 0)

        update = figures.Update(gone=set(gone))
        changes: dict[str, figures.CoChange] = {}
        for eid in entity_ids:
            change = figures.change_co(stored[eid], sizes[eid], co.get(eid, {}), names, moved[eid], limit)
            if change is None:
                update.redo_entities.add(eid)
                continue
            changes[eid] = change
            update.co_put += [(eid, *row) for row in change.put]
            update.co_drop += [(eid, other) for other in change.drop]
        counts: dict[tuple[str, str], int] = {}

        def papers(eid: str) -> int:
            return int(rows[eid][2] or 0) if eid in rows else 0

        # An outsider enters a cut type only if it counts at least the type's smallest kept count
        # (on a tie its name decides: co_trim); it counts at most its own papers, so most are never
        # counted.
        entering = {eid: [o for o in change.exact if papers(o) >= least[(eid, names[o][1])]]
                    for eid, change in changes.items()}
        ask = [[eid, o] if papers(eid) <= papers(o) else [o, eid] for eid, others in entering.items()
               for o in others]
        for batch in _batches(ask, self.batch_size):
            for a, b, n in tx.run(statement("co_counts"), pairs=batch).single(strict=True)["rows"]:
                counts[(a, b)] = counts[(b, a)] = int(n)
        for eid, change in changes.items():
            for other in entering[eid]:
                if counts[(eid, other)] >= max(1, least[(eid, names[other][1])]):
                    name, etype = names[other]
                    update.co_put.append((eid, other, name, etype, counts[(eid, other)]))
                    change.sizes[etype] += 1
            update.co_trim += [(eid, etype, n - limit) for etype, n in sorted(change.sizes.items())
                               if n > limit]

        stored_intro: dict[str, list[figures.IntroRow]] = {}
        for batch in _batches(sorted(collection_ids), self.batch_size):
            for fid, *lists in tx.run(statement("figures_read"), ids=batch).single(strict=True)["rows"]:
                stored_intro[fid] = list(zip(*lists, strict=True))
        counted: dict[str, dict[str, tuple[int, str | None]]] = defaultdict(dict)
        for batch in _batches(sorted(map(list, pairs)), self.batch_size):
            result = tx.run(statement("intro_counts"), pairs=batch).single(strict=True)["rows"]
            for cid, eid, n, first in result:
                counted[cid][eid] = (int(n), first)
        for cid in sorted(collection_ids):
            moved_intro = {r: renamed[r] for r in dep_collections.get(cid, ())}
            merged_intro = figures.merge_intro(stored_intro.get(cid, []), counted.get(cid, {}), names,
                                               moved_intro, limit)
            if merged_intro is None:
                update.redo_collections.add(cid)
            elif merged_intro != stored_intro.get(cid, []):
                update.intro[cid] = merged_intro
        return update

    def _write_figures(self, tx: neo4j.Transaction, update: figures.Update) -> None:
        """Write an update: the figures of what is gone deleted, co-mention entries deleted, written
        and cut back, introduction lists replaced (an empty one deletes the figures node); then
        recompute whole what it could not change in place."""
        gone = sorted(update.gone | {fid for fid, rows in update.intro.items() if not rows})
        for batch in _batches(gone, self.batch_size):
            tx.run(statement("figures_delete"), ids=batch).consume()
        for batch in _batches([list(pair) for pair in update.co_drop], self.batch_size):
            tx.run(statement("co_drop"), pairs=batch).consume()
        for batch in _batches([list(row) for row in update.co_put], self.batch_size):
            tx.run(statement("co_put"), rows=batch).consume()
        excess: dict[int, list[list[str]]] = defaultdict(list)
        for eid, etype, n in update.co_trim:
            excess[n].append([eid, etype])
        for n, keys in sorted(excess.items()):
            for batch in _batches(keys, FIGURE_BATCH):
                tx.run(statement("co_trim"), keys=batch, excess=n).consume()
        intro = [{"of": fid, "ids": [r[0] for r in rows], "names": [r[1] for r in rows],
                  "types": [r[2] for r in rows], "papers": [r[3] for r in rows],
                  "firsts": [r[4] for r in rows]}
                 for fid, rows in sorted(update.intro.items()) if rows]
        for batch in _batches(intro, FIGURE_BATCH):
            tx.run(statement("figures_put_intro"), rows=batch).consume()
        if update.redo_entities or update.redo_collections:
            self._figures(tx, sorted(update.redo_entities), sorted(update.redo_collections))

    def _figures(self, tx: neo4j.Transaction, entities: Sequence[str], collections: Sequence[str]) -> None:
        """Recompute (inside `tx`) the figures of these entities and collections."""
        for batch in _batches([*entities, *collections], self.batch_size):
            tx.run(statement("figures_delete"), ids=batch).consume()
        self._new_figures(tx, entities, collections)

    @staticmethod
    def _new_figures(tx: neo4j.Transaction, entities: Sequence[str], collections: Sequence[str]) -> None:
        """Compute (inside `tx`) the figures of entities and collections that have none stored."""
        for batch in _batches(list(entities), FIGURE_BATCH):
            tx.run(statement("figures_co"), ids=batch, limit=FIGURE_LIMIT).consume()
        for batch in _batches(list(collections), FIGURE_BATCH):
            tx.run(statement("figures_intro"), ids=batch, limit=FIGURE_LIMIT).consume()

    def _figures_batched(self, entities: Sequence[str], collections: Sequence[str]) -> None:
        """The figures of a full save (none stored: cleared first), a transaction per FIGURE_BATCH,
        on `workers` sessions at once: each batch reads the graph and writes nodes of its own."""
        works = [lambda tx, e=ents: self._new_figures(tx, e, [])
                 for ents in _batches(list(entities), FIGURE_BATCH)]
        works += [lambda tx, c=colls: self._new_figures(tx, [], c)
                  for colls in _batches(list(collections), FIGURE_BATCH)]
        self._in_parallel(works)


def _split_update(update: figures.Update, size: int) -> Iterator[figures.Update]:
    """An update as pieces of about `size` items each (a transaction each, for big deltas), applied
    in order: what is gone, dropped and written before any cut back, the recomputations last."""
    items: list[tuple[str, Any]] = [("gone", k) for k in sorted(update.gone)]
    items += [("co_drop", k) for k in update.co_drop] + [("co_put", k) for k in update.co_put]
    items += [("co_trim", k) for k in update.co_trim]
    items += [("intro", k) for k in sorted(update.intro.items())]
    items += [("redo_e", k) for k in sorted(update.redo_entities)]
    items += [("redo_c", k) for k in sorted(update.redo_collections)]
    for start in range(0, len(items), size):
        piece = figures.Update()
        for kind, item in items[start:start + size]:
            if kind == "gone":
                piece.gone.add(item)
            elif kind == "intro":
                piece.intro[item[0]] = item[1]
            elif kind == "redo_e":
                piece.redo_entities.add(item)
            elif kind == "redo_c":
                piece.redo_collections.add(item)
            else:
                getattr(piece, kind).append(item)
        yield piece
