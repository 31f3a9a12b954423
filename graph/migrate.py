"""Migrations of the build state that compute in Python (`state._MIGRATIONS` runs them inside the
migration's transaction, beside its SQL steps)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections import defaultdict
from collections.abc import Callable

from paperkg.graph.curation import Rules, base_key, changed_bindings, papers_of
from paperkg.graph.model import entity_id
from paperkg.graph.normalize import id_name
from paperkg.graph.resolve import TYPE_ORDER, resolve_undefined

_ENTITY_OWNERS = "owner >= 'e' || char(9) AND owner < 'e' || char(10)"     # `derive._Emitter.entity`


def rekey_entities(db: sqlite3.Connection) -> None:
    """Schema 8 -> 9 and 11 -> 12: entity ids from `normalize.id_name` (the key's folds; then its
    spelling written most often). Marks for the next build's derivation
    (`pending_derive`) the papers of every cluster whose id changes, or whose id another cluster
    shared (their rows took each other's place; the one left owns the node, both have edges), and
    counts the rows again (a shared row was counted twice). Nothing is re-extracted."""
    stale: set[str] = set()
    holders: dict[str, list[str]] = defaultdict(list)
    for cluster, eid in db.execute("SELECT cluster, id FROM clusters"):
        holders[eid].append(cluster)
        key = base_key(cluster)
        spellings = dict(db.execute("SELECT surface, n FROM spelling WHERE key = ?", (key,)))
        label = eid.partition(":")[0]
        if entity_id(label, id_name(spellings, key)) != eid:
            stale.add(cluster)
    stale.update(c for clusters in holders.values() if len(clusters) > 1 for c in clusters)
    for cluster in sorted(stale):
        db.execute("INSERT OR IGNORE INTO pending_derive (paper) SELECT paper FROM cluster_paper "
                   "WHERE cluster = ?", (cluster,))
    db.execute("DELETE FROM counts")
    db.execute("INSERT INTO counts (name, n) SELECT 'node:' || label, count(*) FROM nodes GROUP BY label")
    db.execute("INSERT INTO counts (name, n) SELECT 'edge:' || type, count(*) FROM edges GROUP BY type")


def count_years(db: sqlite3.Connection) -> None:
    """Schema 9 -> 10: every entity node gets its papers by year (`years`, `papers_per_year`, which
    `trending` reads on Neo4j) from `cluster_paper`, and the state a new generation, so that a Neo4j
    graph kept in step with it is written whole by the next build (it holds no such properties) and
    a saved serving index is not taken for this state's."""
    from paperkg.graph.state import props_json

    per_year: dict[str, dict[int, int]] = defaultdict(dict)
    for cluster, year, n in db.execute("SELECT cluster, year, count(*) FROM cluster_paper WHERE year IS NOT "
                                       "NULL GROUP BY cluster, year ORDER BY cluster, year"):
        per_year[cluster][year] = n
    updates = []
    entities = db.execute(f"SELECT key, owner, props FROM nodes WHERE {_ENTITY_OWNERS}").fetchall()
    for key, owner, props in entities:
        years = per_year.get(owner[2:])
        if years:
            data = json.loads(props)
            data["years"], data["papers_per_year"] = list(years), list(years.values())
            updates.append((props_json(data), key))
    db.executemany("UPDATE nodes SET props = ? WHERE key = ?", updates)
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)", (uuid.uuid4().hex,))


def count_definitions(db: sqlite3.Connection) -> None:
    """Schema 10 -> 11: each short form's long forms with how many papers define it so with each
    type (`derive.short_targets`; they were the types alone), which rule 3's share needs
    (`resolve.DOMINANT_SHARE`). Marks for the next build's derivation (`pending_derive`) the papers
    that mention a short form a mention of which, of some type, now resolves elsewhere (the bare
    `GRPO` now joins group relative policy optimization), and those of the clusters a correction
    of such a short form named before or names now. Nothing is re-extracted."""
    from paperkg.graph.derive import short_targets
    from paperkg.graph.state import props_json

    reps = dict(db.execute("SELECT key, rep FROM long_key"))
    old_targets: dict[str, dict[str, dict[str, int]]] = {}
    new_targets: dict[str, dict[str, dict[str, int]]] = {}
    for short, targets in db.execute("SELECT key, targets FROM short_key").fetchall():
        # the old rule is the new one over one definition per (long form, type): no share reaches it
        old_targets[short] = {long: {t: 1 for t in types} or {"": 1}
                              for long, types in json.loads(targets).items()}
        new_targets[short] = short_targets(db, short, reps.get)
        db.execute("UPDATE short_key SET targets = ? WHERE key = ?", (props_json(new_targets[short]), short))

    def cluster_of(targets: dict[str, dict[str, dict[str, int]]]) -> Callable[[str], str]:
        def of(key: str) -> str:          # `derive.Derivation.cluster_of_key`
            if base_key(key) != key:
                return key
            return reps.get(key) or resolve_undefined(key, targets.get(key, {}), None)
        return of

    moved = [short for short in sorted(new_targets)
             if any(resolve_undefined(short, old_targets[short], etype)
                    != resolve_undefined(short, new_targets[short], etype) for etype in (*TYPE_ORDER, None))]
    for short in moved:
        db.execute("INSERT OR IGNORE INTO pending_derive (paper) SELECT paper FROM terms "
                   "WHERE kind = 'm' AND term = ?", (short,))
    rules = Rules.load(db)
    if rules.corrections:
        rebound = changed_bindings(rules.bind(cluster_of(old_targets)), rules.bind(cluster_of(new_targets)))
        db.executemany("INSERT OR IGNORE INTO pending_derive (paper) VALUES (?)",
                       [(p,) for p in sorted(papers_of(db, rebound))])
