"""The Neo4j store's precomputed figures kept up to date from a delta, in time that follows the change.

What the figures are (graph/figures_co.cypher, graph/figures_intro.cypher): per entity, the entities
co-mentioned with it and how many papers mention both, the first `limit` of each type in the order
(papers desc, name, id), one `PaperkgCo` entry each; per collection, the entities its papers
introduce, with the number of introducing papers and the smallest of their ids, the first `limit`
overall in the same order, as lists on its `PaperkgFigures` node.

Why not recompute them: a change of 100 papers touches the most-mentioned entities, whose figures
walk every co-mention (90k relationships for the top entity at 100k abstracts), so recomputing made a
change into a big database cost seven times what it costs into an empty one. Why entries and not an
entity's list on one node: the touched entities held 263k list entries at 100k abstracts, and a
list property is rewritten whole, so a change still cost twice what it cost into an empty database;
the same change alters about 3,000 entries. The store reads what the changed papers mentioned,
introduced and belonged to before and after the change (a few relationships per paper), and this
module turns the difference into entry changes:

- a co-mention count changes by the number of changed papers that gained the pair minus those that
  lost it; an entry already kept gets the difference added (and goes at 0);
- an entity not kept whose count grew, in a type whose entries were full (`limit` kept), is counted
  exactly (`co_counts.cypher`, from the less mentioned side of the pair) and enters; a type then
  holding more than `limit` loses its last entries (`co_trim.cypher`): when additions only raise
  counts, the new first `limit` are among the old kept entries and the grown ones, so this is exact;
- a kept entry that shrank in a full type could let an entry that was not kept overtake it: that
  entity's (or collection's) figures are recomputed whole (`Update.redo_*`); so are those showing a
  renamed entity in a full type. Removals and renames pay that; additions do not.

A type (for collections: the list) is "cut" when it holds `limit` entries: it may or may not have had
more, and the rules above treat it as if it had.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import itemgetter


@dataclass(frozen=True)
class Links:
    """What one paper mentions, introduces and belongs to (entity and collection ids)."""

    mentions: frozenset[str] = frozenset()
    introduces: frozenset[str] = frozenset()
    collections: frozenset[str] = frozenset()


NONE = Links()
_NAME_ID, _PAPERS = itemgetter(1, 0), itemgetter(3)

# A stored co-mention entry (other id, name, type, papers) and introduction entry (+ first paper).
CoRow = tuple[str, str, str, int]
IntroRow = tuple[str, str, str, int, str]


@dataclass
class CoChange:
    """What a delta does to one entity's co-mention entries: rows to write (changed or new), others
    whose entry goes, outsiders of cut types that grew (their exact count decides whether they
    enter), and the number of entries of each type afterwards, before those enter."""

    put: list[CoRow]
    drop: list[str]
    exact: list[str]
    sizes: Counter[str]


@dataclass
class Update:
    """What to write: co-mention entries ((entity, other, name, type, papers) rows to write, (entity,
    other) pairs to delete, (entity, type, excess): the last `excess` of a type to delete),
    introduction lists by
    collection id (an empty list: delete the figures node), the figures of deleted entities and
    collections, and what must be recomputed whole instead."""

    co_put: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    co_drop: list[tuple[str, str]] = field(default_factory=list)
    co_trim: list[tuple[str, str, int]] = field(default_factory=list)
    intro: dict[str, list[IntroRow]] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)
    redo_entities: set[str] = field(default_factory=set)
    redo_collections: set[str] = field(default_factory=set)


def co_changes(before: Mapping[str, Links], after: Mapping[str, Links]) -> dict[str, Counter[str]]:
    """Entity -> (other entity -> change in the number of papers mentioning both), nonzero only."""
    change: dict[str, Counter[str]] = defaultdict(Counter)
    for paper in set(before) | set(after):
        old, new = before.get(paper, NONE).mentions, after.get(paper, NONE).mentions
        if old == new:
            continue
        for mentions, sign in ((old, -1), (new, 1)):
            for entity in mentions:
                counter = change[entity]
                for other in mentions:
                    if other != entity:
                        counter[other] += sign
    out = {}
    for entity, counter in change.items():
        nonzero = Counter({o: d for o, d in counter.items() if d})
        if nonzero:
            out[entity] = nonzero
    return out


def intro_pairs(before: Mapping[str, Links], after: Mapping[str, Links]) -> set[tuple[str, str]]:
    """(collection, entity) pairs whose introducing papers a changed paper joined or left (their
    count or their smallest paper id may have changed)."""
    pairs: set[tuple[str, str]] = set()
    for paper in set(before) | set(after):
        old, new = before.get(paper, NONE), after.get(paper, NONE)
        was = {(c, e) for c in old.collections for e in old.introduces}
        now = {(c, e) for c in new.collections for e in new.introduces}
        pairs |= was ^ now
    return pairs


def _ordered(rows: Iterable[tuple]) -> list:
    """Rows in the figures' order (papers desc, name, id): two stable sorts with C-level keys (the
    rows come mostly in order already, so each is close to one pass)."""
    out = sorted(rows, key=_NAME_ID)
    out.sort(key=_PAPERS, reverse=True)
    return out


def cut_intro(rows: Iterable[IntroRow], limit: int) -> list[IntroRow]:
    """Rows in figures_intro.cypher's order (papers desc, name, id), the first `limit`."""
    return _ordered(rows)[:limit]


def co_types(stored: Mapping[str, CoRow], changes: Mapping[str, int], names: Mapping[str, tuple[str, str]],
             renamed: Mapping[str, tuple[str, str]]) -> set[str]:
    """The types whose number of kept entries `change_co` needs for one entity."""
    types = {row[2] for row in stored.values()}
    types |= {names[o][1] for o in changes if o in names}
    for other, (old_name, old_type) in renamed.items():
        types |= {old_type, names.get(other, (old_name, old_type))[1]}
    return types


def change_co(stored: Mapping[str, CoRow], sizes: Mapping[str, int], changes: Mapping[str, int],
              names: Mapping[str, tuple[str, str]], renamed: Mapping[str, tuple[str, str]], limit: int
              ) -> CoChange | None:
    """What the change does to one entity's entries, or None when they must be recomputed.

    `stored`: other -> its kept entry, for the others in `changes` and `renamed` that have one;
    `sizes`: type -> number of kept entries, for the types of `co_types`; `changes`: other -> count
    change; `names`: current (name, type) of every entity in `changes` and `renamed` that still
    exists; `renamed`: entity -> its (name, type) before the change, for entities whose name or type
    changed."""
    cut = {etype for etype, n in sizes.items() if n >= limit}
    rows = dict(stored)
    after: Counter[str] = Counter(sizes)
    changed: set[str] = set()
    for other, (old_name, old_type) in renamed.items():
        new_type = names.get(other, (old_name, old_type))[1]
        if old_type in cut or new_type in cut:
            return None      # a renamed entry near a cut: its place (or an outsider's) unknown
        if other in rows and other in names:
            row = rows[other]
            rows[other] = (other, names[other][0], names[other][1], row[3])
            after[row[2]] -= 1
            after[names[other][1]] += 1
            changed.add(other)
    exact: list[str] = []
    for other, change in changes.items():
        row = rows.get(other)
        if row is not None:
            papers = row[3] + change
            if (change < 0 and row[2] in cut) or papers < 0 or (papers > 0 and other not in names):
                return None
            if papers == 0:
                del rows[other]
                after[row[2]] -= 1
            else:
                rows[other] = (other, names[other][0], names[other][1], papers)
            changed.add(other)
        elif other in names:
            name, etype = names[other]
            if etype in cut:
                if change > 0:
                    exact.append(other)      # maybe grown past the cut: its count is needed
            elif change < 0:
                return None                  # a count the entries say was 0 shrank: recompute
            else:
                rows[other] = (other, name, etype, change)
                after[etype] += 1
                changed.add(other)
    ordered = sorted(changed)
    return CoChange([rows[o] for o in ordered if o in rows], [o for o in ordered if o not in rows],
                    sorted(exact), after)


def merge_intro(stored: list[IntroRow], counted: Mapping[str, tuple[int, str | None]],
                names: Mapping[str, tuple[str, str]], renamed: Mapping[str, tuple[str, str]],
                limit: int) -> list[IntroRow] | None:
    """One collection's new introduction list, or None when it must be recomputed. `counted`: entity
    -> (introducing papers, smallest paper id) now, exact, for every entity whose introductions in
    this collection changed."""
    cut = len(stored) >= limit
    rows = {row[0]: row for row in stored}
    for other in renamed:
        if cut:
            return None
        if other in rows and other in names:
            row = rows[other]
            rows[other] = (other, names[other][0], names[other][1], row[3], row[4])
    for other, (papers, first) in counted.items():
        row = rows.get(other)
        if row is not None and cut and papers < row[3]:
            return None
        if papers == 0 or first is None or other not in names:
            rows.pop(other, None)
        else:
            rows[other] = (other, names[other][0], names[other][1], papers, first)
    return cut_intro(rows.values(), limit)
