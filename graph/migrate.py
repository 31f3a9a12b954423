"""Migrations of the build state that compute in Python (`state._MIGRATIONS` runs them inside the
migration's transaction, beside its SQL steps)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections import defaultdict

from paperkg.graph.curation import base_key
from paperkg.graph.model import entity_id
from paperkg.graph.normalize import id_name

_ENTITY_OWNERS = "owner >= 'e' || char(9) AND owner < 'e' || char(10)"     # `derive._Emitter.entity`


def rekey_entities(db: sqlite3.Connection) -> None:
    """Schema 8 -> 9: entity ids from `normalize.id_name`. Marks for the next build's derivation
    (`pending_derive`) the papers of every cluster whose id changes, or whose id another cluster
    shared (their rows took each other's place; the one left owns the node, both have edges), and
    counts the rows again (a shared row was counted twice). Nothing is re-extracted."""
    stale: set[str] = set()
    holders: dict[str, list[str]] = defaultdict(list)
    for cluster, eid in db.execute("SELECT cluster, id FROM clusters"):
        holders[eid].append(cluster)
        key = base_key(cluster)
        spellings = [s for (s,) in db.execute("SELECT surface FROM spelling WHERE key = ?", (key,))]
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
