"""Incremental derivation: re-derive only what the papers a build adds or removes touch.

`graph/build.py` defines the graph as a function of the whole corpus. Re-running it on every build
made adding 100 abstracts to 100k cost minutes. Here the build state keeps, in SQLite, what
resolution needs as order-independent aggregates, so a build re-derives a bounded part:

- per paper: its acronym definitions and the type it gives each (`local_def`), the name keys it
  mentions and the inner names it could nest (`terms`), its spellings, votes and surfaces
  (`contrib`), the entities it mentions (`cluster_paper`) and the relations it supports
  (`rel_support`);
- across papers: spelling counts per name key (`spelling`), each long form's representative among
  the near-identical spellings of its initials (`long_key`), the long forms each short form is
  defined with and their types (`short_key`), type votes and surface forms per cluster (`votes`,
  `surfaces`), each cluster's entity id (`clusters`) and the spellings inner names are looked up by
  (`nested_spelling`).

A build then goes in phases, each touching only what the previous one changed: (A) the base facts of
the new, changed and removed papers; (B) the representatives of the long forms in the initials
buckets they touch, and the definitions of the short forms they touch; (C) the cluster of every
mention of the papers whose keys those changed; (D) the name, type and id of the clusters touched;
(E) the mentions and relations of those papers and of the papers of clusters whose id or inner-name
lookup changed (a paper's results with its mentions: their links resolve through the same
clusters); (F) the graph rows of all of these, compared with the stored rows, so only changed rows
are written and handed on as the `GraphDelta`.

The user's corrections (`graph/curation.py`) act in (C) and (D): a mention's cluster goes where a
merge, drop or split sends it, and a cluster's type and name are a retype's and a rename's. When a
build's new definitions move the cluster a correction's key names, the papers of both are resolved
again; applying a correction is a derivation whose changed papers are those of the entities it names.

Every aggregate is a count or a set, so the result does not depend on the order papers came in; the
property test (tests/graph/test_incremental.py) holds it equal to `build_graph` of the same corpus.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence

import msgspec

from paperkg.graph.build import (
    entity_props,
    mention_props,
    paper_node,
    paper_year,
    relation_props,
    result_rows,
)
from paperkg.graph.corpus import PaperEntry
from paperkg.graph.curation import Rules, base_key, changed_bindings, papers_of
from paperkg.graph.model import RELATION_TYPES, Edge, KnowledgeGraph, Node, collection_id, entity_id, node_key
from paperkg.graph.normalize import compact_key, id_name
from paperkg.graph.records import Extraction, Mention
from paperkg.graph.resolve import (
    GENERIC,
    TYPE_ORDER,
    _initials,
    _inner_runs,
    _merge_similar,
    _name_tokens,
    _named_token,
    definition_types,
    inner_mentions,
    local_definitions,
    resolve_undefined,
    shown_name,
)
from paperkg.graph.store import GraphDelta

SCHEMA = """
CREATE TABLE counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE contrib (paper TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE terms (kind TEXT NOT NULL, term TEXT NOT NULL, paper TEXT NOT NULL,
    PRIMARY KEY (kind, term, paper)) WITHOUT ROWID;
CREATE INDEX terms_paper ON terms (paper);
CREATE TABLE spelling (key TEXT NOT NULL, surface TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (key, surface)) WITHOUT ROWID;
CREATE TABLE local_def (paper TEXT NOT NULL, short TEXT NOT NULL, long TEXT NOT NULL, type TEXT,
    PRIMARY KEY (paper, short)) WITHOUT ROWID;
CREATE INDEX local_def_short ON local_def (short);
CREATE INDEX local_def_long ON local_def (long);
CREATE TABLE long_key (key TEXT PRIMARY KEY, initials TEXT NOT NULL, rep TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX long_key_initials ON long_key (initials);
CREATE TABLE short_key (key TEXT PRIMARY KEY, targets TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE votes (cluster TEXT NOT NULL, type TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (cluster, type)) WITHOUT ROWID;
CREATE TABLE surfaces (cluster TEXT NOT NULL, surface TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (cluster, surface)) WITHOUT ROWID;
CREATE TABLE cluster_paper (cluster TEXT NOT NULL, paper TEXT NOT NULL, introduced INTEGER NOT NULL,
    confidence REAL NOT NULL, year INTEGER, PRIMARY KEY (cluster, paper)) WITHOUT ROWID;
CREATE INDEX cluster_paper_paper ON cluster_paper (paper);
CREATE TABLE clusters (cluster TEXT PRIMARY KEY, id TEXT NOT NULL, spellings TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE nested_spelling (joined TEXT NOT NULL, cluster TEXT NOT NULL,
    PRIMARY KEY (joined, cluster)) WITHOUT ROWID;
CREATE TABLE rel_support (head TEXT NOT NULL, type TEXT NOT NULL, tail TEXT NOT NULL,
    paper TEXT NOT NULL, pid TEXT NOT NULL, evidence TEXT NOT NULL, confidence REAL NOT NULL,
    year INTEGER, PRIMARY KEY (head, type, tail, paper)) WITHOUT ROWID;
CREATE INDEX rel_support_paper ON rel_support (paper);
CREATE INDEX rel_support_tail ON rel_support (tail);
"""

_SEP = "\t"
# The per-paper lists of a relation edge (parallel to `papers`). A popular relation has thousands of
# supporting papers: its edge row keeps only support, confidence and first_year, and the lists are
# the relation's `rel_support` rows, one per paper, so adding a paper writes one row and a small
# edge, not the whole list again. Whole edges are put together when they are read whole.
RELATION_LISTS = ("papers", "confidences", "evidence")


# Keys bound in one `WHERE key IN (...)` (SQLite allows 32,766 parameters since 3.32).
IN_BATCH = 500


def rows_in(db: sqlite3.Connection, sql: str, keys: Sequence[str]) -> Iterator[tuple]:
    """The rows of `sql`, whose `IN ({})` is bound to `keys` `IN_BATCH` at a time: a 1M-paper build
    reads its papers in one statement per 500 keys, not one per key."""
    for start in range(0, len(keys), IN_BATCH):
        chunk = keys[start:start + IN_BATCH]
        yield from db.execute(sql.format(",".join("?" * len(chunk))), chunk)


def read_graph(db: sqlite3.Connection, *, bulky: bool = True) -> KnowledgeGraph:
    """The graph the rows hold, nodes in key order, edges in id order. With `bulky`, whole: papers
    with their abstract, relations with their per-paper lists; without, what a served graph keeps
    in memory (topology and small properties: `EmbeddedStore` fetches abstracts when asked)."""
    graph = KnowledgeGraph()
    for key, label, props, text in db.execute("SELECT key, label, props, text FROM nodes ORDER BY key"):
        data = json.loads(props)
        if bulky and text is not None:
            data = dict(sorted({**data, "abstract": text}.items()))
        graph.nodes[key] = Node(label, data["id"], data)
    lists = _relation_lists(db, None) if bulky else {}
    for eid, etype, source, target, owner, props in db.execute(
            "SELECT id, type, source, target, owner, props FROM edges ORDER BY id"):
        data = json.loads(props)
        if bulky and etype in RELATION_TYPES:
            data = _whole(data, lists.get(owner, []))
        graph.edges[eid] = Edge(etype, source, target, data)
    return graph


def mentions_owner(paper_owner: str) -> str:
    """The owner of a paper's MENTIONS/INTRODUCES rows, from the owner of its node row."""
    return "m" + paper_owner[1:]


# What the served view (`lean_rows`) leaves in the state: no query but `paper` returns an abstract
# or a paper's sentence offsets (it asks `g.graph["abstract_of"]` / `["paper_details"]`), none
# returns a relation's evidence sentences (exports read the store), and the per-mention lists of a
# MENTIONS edge were a third of the view's memory at 100k abstracts.
BULKY_NODE_PROPS = frozenset({"abstract"})
BULKY_EDGE_PROPS = frozenset({"evidence"})
STORED_PAPER_PROPS = frozenset({"sentence_starts"})
STORED_MENTION_PROPS = frozenset({"sentences", "starts", "ends", "surfaces", "confidences"})


def _removing(names: Iterable[str]) -> str:
    return ", ".join(f"'$.{name}'" for name in sorted(names))


# A MENTIONS row keeps the props the served view reads in `lean` (`Derivation._put`): removing the
# lists as the view read each row (`json_remove`) was 10 of the 25 s a 1M-abstract store's edge
# rows took, and parsing whole rows in Python half of `paperkg serve`'s start at 100k. The same
# expression fills `lean` in a store of schema 3 (`state._MIGRATIONS`). Relation rows hold their
# small props only, and other rows have no lists. A paper's offsets are dropped as its row is read.
# Nodes come in the table's order, not by key: walking the key index fetched each row from
# elsewhere in the file (6.5 s against 2.1 s for a 1M-abstract store's million nodes).
LEAN_MENTIONS = f"json_remove(props, {_removing(STORED_MENTION_PROPS)})"
_LEAN_NODES = ("SELECT key, label, CASE label WHEN 'Paper' THEN json_remove(props, "
               f"{_removing(STORED_PAPER_PROPS)}) ELSE props END FROM nodes")
_LEAN_EDGES = "SELECT type, source, target, coalesce(lean, props) FROM edges ORDER BY id"
# Edge types a paper has one of per entity or collection: once their lists are left out, a few
# hundred distinct property texts cover a million such edges.
PER_PAPER_EDGES = frozenset({"MENTIONS", "INTRODUCES", "IN_COLLECTION"})


def lean_rows(db: sqlite3.Connection) -> tuple[Iterator[tuple[str, str, dict]],
                                                Iterator[tuple[str, str, str, dict]]]:
    """The rows of the served view, streamed: (key, label, small props) of every node in no particular
    order, then (type, source, target, small props) of every edge in `read_graph`'s order; without
    the properties named above. Parsed with msgspec, three times as fast as `json.loads` (whose parse
    was a third of `paperkg serve`'s start) into dicts of the same size (orjson's are presized, 15%
    bigger); its key cache also shares the few property names between the ten million props maps of
    a 1M-abstract graph (`json.loads` made new name strings for each).
    Per-paper edges of one type with equal text share one parsed dict: a change to it is a change to all of
    them."""
    parsed: dict[tuple[str, str], dict] = {}
    decode = msgspec.json.Decoder().decode

    def small(text: str) -> dict:
        try:
            return decode(text)
        except (msgspec.DecodeError, UnicodeError):   # what only Python's json reads (a lone surrogate)
            return {sys.intern(k): v for k, v in json.loads(text).items()}

    def shared(etype: str, text: str) -> dict:
        props = parsed.get((etype, text))
        if props is None:
            props = parsed[etype, text] = small(text)
        return props

    nodes = ((key, label, small(props)) for key, label, props in db.execute(_LEAN_NODES))
    edges = ((etype, source, target, shared(etype, props) if etype in PER_PAPER_EDGES else small(props))
             for etype, source, target, props in db.execute(_LEAN_EDGES))
    return nodes, edges


def _relation_lists(db: sqlite3.Connection, triples: Iterable[tuple[str, str, str]] | None
                    ) -> dict[str, list[tuple[str, str, float]]]:
    """(paper id, evidence, confidence) of each relation's supporting papers, by the owner of its
    edge row; every relation when `triples` is None."""
    out: dict[str, list[tuple[str, str, float]]] = defaultdict(list)
    if triples is None:
        rows: Iterable = db.execute("SELECT head, type, tail, pid, evidence, confidence FROM rel_support")
    else:
        rows = (row for triple in triples for row in db.execute(
            "SELECT head, type, tail, pid, evidence, confidence FROM rel_support "
            "WHERE head = ? AND type = ? AND tail = ?", triple))
    for head, rtype, tail, pid, evidence, confidence in rows:
        out[_SEP.join(("r", head, rtype, tail))].append((pid, evidence, confidence))
    return out


def _whole(small: dict, support: list[tuple[str, str, float]]) -> dict:
    """A relation edge's props from its stored row and its supporting papers' rows."""
    rows = sorted(support)
    whole = relation_props([(pid, evidence, confidence, None) for pid, evidence, confidence in rows])
    lists = {k: whole[k] for k in RELATION_LISTS}
    return dict(sorted({**small, **lists}.items()))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _inner_candidates(ex: Extraction) -> set[str]:
    """Every joined token run `nested` may look up for this paper's mentions (a superset)."""
    out: set[str] = set()
    for m in ex.mentions:
        tokens = _name_tokens(m.text)
        if len(tokens) < 2:
            continue
        for i, j in _inner_runs(tokens, m.type == "Model"):
            out.add("".join(t for t, _, _ in tokens[i:j]))
    return out


def _resolves_to(key: str, rep: str | None, targets: dict[str, dict[str, int]], etype: str) -> str:
    """The cluster of a mention of `key` typed `etype` in a paper that does not define it
    (resolution rules 2-4): the representative of the long form it is, else the long form it is
    defined with (by type when there are several), else itself (none, or ambiguous)."""
    if rep is not None:
        return rep
    return resolve_undefined(key, targets, etype)


def _nested_spellings(aliases: Iterable[str]) -> set[str]:
    out = set()
    for alias in aliases:
        tokens = [t for t, _, _ in _name_tokens(alias)]
        if tokens and all(_named_token(t) for t in tokens):
            out.add("".join(tokens))
    return out


def short_targets(db: sqlite3.Connection, short: str, rep: Callable[[str], str | None]
                  ) -> dict[str, dict[str, int]]:
    """The `short_key` row of `short`: each long form's representative it is defined with, and how
    many papers define it so with each type ("" for a definition of no type), both sorted."""
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for long, etype in db.execute("SELECT long, type FROM local_def WHERE short = ?", (short,)):
        if long_rep := rep(long):
            found[long_rep][etype or ""] += 1
    return {r: dict(sorted(types.items())) for r, types in sorted(found.items())}


class Derivation:
    """One build's incremental derivation, on the connection of its open transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._rep: dict[str, str | None] = {}
        self._defined: dict[str, dict[str, list[str]]] = {}
        self.rules = Rules.load(db)      # the user's corrections (graph/curation.py)
        self.rules.bind(self.cluster_of_key)

    def cluster_of_key(self, key: str) -> str:
        """The cluster a bare mention of `key` resolves to (rules 2-4, whatever its type: an acronym
        defined several ways stays itself); how a correction's key finds its entity now. A split
        part's key is its own cluster."""
        if base_key(key) != key:
            return key
        return self.rep(key) or resolve_undefined(key, self.defined(key), None)

    # ---- small lookups ----------------------------------------------------------------------

    def _one(self, sql: str, args: tuple) -> tuple | None:
        return self.db.execute(sql, args).fetchone()

    def _papers_with(self, kind: str, terms: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for term in terms:
            out.update(p for (p,) in self.db.execute(
                "SELECT paper FROM terms WHERE kind = ? AND term = ?", (kind, term)))
        return out

    def rep(self, key: str) -> str | None:
        if key not in self._rep:
            row = self._one("SELECT rep FROM long_key WHERE key = ?", (key,))
            self._rep[key] = row[0] if row else None
        return self._rep[key]

    def defined(self, key: str) -> dict[str, dict[str, int]]:
        """The long forms `key` is defined with, each with how many papers define it so with each
        type ("" for no type)."""
        if key not in self._defined:
            row = self._one("SELECT targets FROM short_key WHERE key = ?", (key,))
            self._defined[key] = json.loads(row[0]) if row else {}
        return self._defined[key]

    def _min_spelling(self, key: str) -> str | None:
        row = self._one("SELECT min(surface) FROM spelling WHERE key = ?", (key,))
        return row[0] if row else None

    def _bump(self, table: str, cols: tuple[str, str], key: tuple[str, str], n: int) -> None:
        a, b = cols
        self.db.execute(f"INSERT INTO {table} ({a}, {b}, n) VALUES (?, ?, ?) "
                        f"ON CONFLICT ({a}, {b}) DO UPDATE SET n = n + excluded.n", (*key, n))
        if n < 0:
            self.db.execute(f"DELETE FROM {table} WHERE {a} = ? AND {b} = ? AND n <= 0", key)

    # ---- the phases ---------------------------------------------------------------------------

    def run(self, entries: dict[str, PaperEntry], removed: set[str], full: bool, whole: bool = False
            ) -> GraphDelta:
        """`entries`: the papers whose records or extraction changed (as they are now); `removed`:
        the papers gone. Returns the change of the graph rows (all rows when `full`; relation edges
        with their per-paper lists when `whole`)."""
        dirty = set(entries)
        contrib = {p: json.loads(d) for p in sorted(dirty | removed)
                   for (d,) in self.db.execute("SELECT data FROM contrib WHERE paper = ?", (p,))}

        # (A) base facts
        spell_keys: set[str] = set()
        long_keys: set[str] = set()
        short_keys: set[str] = set()
        for p in sorted(dirty | removed):
            for key, surface in contrib.get(p, {}).get("spell", ()):
                self._bump("spelling", ("key", "surface"), (key, surface), -1)
                spell_keys.add(key)
            for short, long in self.db.execute("SELECT short, long FROM local_def WHERE paper = ?", (p,)):
                short_keys.add(short)
                long_keys.add(long)
            self.db.execute("DELETE FROM local_def WHERE paper = ?", (p,))
            self.db.execute("DELETE FROM terms WHERE paper = ?", (p,))
        spells: dict[str, list[list[str]]] = {}
        for p, entry in sorted(entries.items()):
            ex = entry.extraction
            if ex is None:
                spells[p] = []
                continue
            pairs = [[compact_key(m.text), m.text] for m in ex.mentions]
            pairs += [[compact_key(long), long] for long, _ in ex.aliases]
            spells[p] = [pair for pair in pairs if pair[0]]
            for key, surface in spells[p]:
                self._bump("spelling", ("key", "surface"), (key, surface), 1)
                spell_keys.add(key)
            local = local_definitions(ex)
            types = definition_types(ex, local)
            for short, long in local.items():
                self.db.execute("INSERT INTO local_def (paper, short, long, type) VALUES (?, ?, ?, ?)",
                                (p, short, long, types.get(short)))
                short_keys.add(short)
                long_keys.add(long)
            keys = {compact_key(m.text) for m in ex.mentions} - GENERIC - {""}
            self.db.executemany("INSERT INTO terms (kind, term, paper) VALUES ('m', ?, ?)",
                                [(k, p) for k in sorted(keys)])
            self.db.executemany("INSERT INTO terms (kind, term, paper) VALUES ('i', ?, ?)",
                                [(j, p) for j in sorted(_inner_candidates(ex))])

        # (B) long-form representatives and short-form definitions
        bound = self.rules.bind(self.cluster_of_key) if self.rules else {}
        reps = self._update_long_keys(long_keys | spell_keys)
        for key in reps:
            short_keys.update(s for (s,) in self.db.execute(
                "SELECT DISTINCT short FROM local_def WHERE long = ?", (key,)))
        definitions = self._update_short_keys(short_keys)

        # (C) mention clusters of the papers whose keys changed meaning
        changed_keys = set(reps) | set(definitions)
        mention_changed, long_changed = self._meaning_changed(reps, definitions)
        resolve_set = (dirty | self._papers_with("m", mention_changed)
                       | {p for key in long_changed for (p,) in self.db.execute(
                           "SELECT paper FROM local_def WHERE long = ?", (key,))}) - removed
        # corrections whose entity's key resolves elsewhere now (a new long form of an acronym)
        rebound = changed_bindings(bound, self.rules.bind(self.cluster_of_key)) if self.rules else set()
        resolve_set |= papers_of(self.db, rebound) - removed
        touched: set[str] = set()
        extractions = {p: e.extraction for p, e in entries.items()}
        extractions.update(self._load_extractions(resolve_set - dirty))
        assigns: dict[str, dict[str, str]] = {}
        for p in sorted(resolve_set | removed):
            old = contrib.get(p)
            if old is None and p not in dirty:
                old = self._contrib(p)
                contrib[p] = old
            for cluster, etype, n in (old or {}).get("votes", ()):
                self._bump("votes", ("cluster", "type"), (cluster, etype), -n)
                touched.add(cluster)
            for cluster, surface, n in (old or {}).get("surf", ()):
                self._bump("surfaces", ("cluster", "surface"), (cluster, surface), -n)
        for p in sorted(resolve_set):
            ex = extractions.get(p)
            assign, votes, surf = self._assign(ex) if ex is not None else ({}, Counter(), Counter())
            assigns[p] = assign
            for (cluster, etype), n in sorted(votes.items()):
                self._bump("votes", ("cluster", "type"), (cluster, etype), n)
                touched.add(cluster)
            for (cluster, surface), n in sorted(surf.items()):
                self._bump("surfaces", ("cluster", "surface"), (cluster, surface), n)
            spell = spells[p] if p in spells else (contrib.get(p) or {}).get("spell", [])
            self.db.execute("INSERT OR REPLACE INTO contrib (paper, data) VALUES (?, ?)", (p, _json({
                "spell": spell, "assign": assign,
                "votes": [[c, t, n] for (c, t), n in sorted(votes.items())],
                "surf": [[c, s, n] for (c, s), n in sorted(surf.items())]})))
        for p in removed:
            self.db.execute("DELETE FROM contrib WHERE paper = ?", (p,))

        # (D) names, types and ids of the touched clusters
        summarize = touched | {k for k in changed_keys | spell_keys | rebound
                               if self._one("SELECT 1 FROM clusters WHERE cluster = ?", (k,))
                               or self._one("SELECT 1 FROM votes WHERE cluster = ? LIMIT 1", (k,))}
        summaries, id_changed, lookups_changed = self._summarize(summarize)

        # (E) mentions and relations of the papers whose clusters, ids or inner lookups changed
        edge_set = set(resolve_set)
        for cluster in id_changed:
            edge_set.update(p for (p,) in self.db.execute(
                "SELECT paper FROM cluster_paper WHERE cluster = ?", (cluster,)))
        edge_set |= self._papers_with("i", lookups_changed)
        edge_set -= removed
        extractions.update(self._load_extractions(edge_set - set(extractions)))
        for p in edge_set - set(assigns):
            assigns[p] = (contrib.get(p) or self._contrib(p)).get("assign", {})
        entity_touched = set(summaries)
        relations_touched: set[tuple[str, str, str]] = set()
        mention_papers = edge_set | removed
        for p in sorted(mention_papers):
            entity_touched.update(c for (c,) in self.db.execute(
                "SELECT cluster FROM cluster_paper WHERE paper = ?", (p,)))
            relations_touched.update(self.db.execute(
                "SELECT head, type, tail FROM rel_support WHERE paper = ?", (p,)))
            self.db.execute("DELETE FROM cluster_paper WHERE paper = ?", (p,))
            self.db.execute("DELETE FROM rel_support WHERE paper = ?", (p,))
        meta = {p: (entry.id, paper_year(entry)) for p, entry in entries.items()}
        meta.update(self._paper_meta(edge_set - set(meta)))
        mention_rows: dict[str, list[tuple[str, dict, dict | None]]] = {}
        for p in sorted(edge_set):
            ex = extractions.get(p)
            if ex is None:
                mention_rows[p] = []
                continue
            pid, year = meta[p]
            mention_rows[p] = self._paper_edges(p, pid, year, ex, assigns[p], entity_touched,
                                                relations_touched)

        # (F) the graph rows of everything touched
        emit = _Emitter(self.db)
        for p in sorted(dirty | removed):
            emit.paper(p, entries.get(p))
        for name in sorted(emit.collections):
            emit.collection(name)
        ids = self._ids(entity_touched | {c for rows in mention_rows.values() for c, _, _ in rows}
                        | {c for h, _, t in relations_touched for c in (h, t)})
        for cluster in sorted(entity_touched):
            emit.entity(cluster, summaries.get(cluster) or self._summary(cluster), ids.get(cluster))
        for p in sorted(mention_papers):
            pid, year = meta.get(p, (None, None))
            ex = extractions.get(p)
            results = ([], []) if pid is None or ex is None or p in removed else \
                result_rows(pid, year, ex, assigns[p].get, ids)
            emit.mentions(p, pid, mention_rows.get(p, []), ids, results)
        for triple in sorted(relations_touched):
            emit.relation(triple, ids)
        return emit.delta(full, whole)

    def _load_extractions(self, papers: Iterable[str]) -> dict[str, Extraction | None]:
        from paperkg.graph.state import _extraction_from_json

        wanted = sorted(papers)
        out: dict[str, Extraction | None] = dict.fromkeys(wanted)
        for key, extractor, extraction in rows_in(
                self.db, "SELECT key, extractor, extraction FROM papers WHERE key IN ({})", wanted):
            if extraction is not None:
                out[key] = _extraction_from_json(extractor, extraction)
        return out

    def _contrib(self, p: str) -> dict:
        row = self._one("SELECT data FROM contrib WHERE paper = ?", (p,))
        return json.loads(row[0]) if row else {}

    def _paper_meta(self, papers: Iterable[str]) -> dict[str, tuple[str, int | None]]:
        from paperkg.graph.state import _load_records

        return {p: (e.id, paper_year(e)) for p, e in _load_records(self.db, list(papers)).items()}

    def _update_long_keys(self, candidates: set[str]) -> dict[str, tuple[str | None, str | None]]:
        """Recompute the representatives of every initials bucket a candidate key is (or was) in;
        returns (old, new) representative of each long key whose representative changed,
        appeared or went."""
        buckets: set[str] = set()
        moved: dict[str, set[str]] = defaultdict(set)     # bucket -> candidates now in it
        for key in sorted(candidates):
            row = self._one("SELECT initials FROM long_key WHERE key = ?", (key,))
            if row:
                buckets.add(row[0])
            if self._defined_long(key):
                bucket = _initials(self._min_spelling(key) or key)
                buckets.add(bucket)
                moved[bucket].add(key)
        changed: dict[str, tuple[str | None, str | None]] = {}
        for bucket in sorted(buckets):
            old = dict(self.db.execute("SELECT key, rep FROM long_key WHERE initials = ?", (bucket,)))
            spelled: dict[str, str] = {}
            for key in set(old) | moved[bucket]:
                if not self._defined_long(key):
                    continue                      # no paper defines it any more
                surface = self._min_spelling(key) or key
                if _initials(surface) == bucket:
                    spelled[key] = surface
            new = _merge_similar(spelled)
            for key in old.keys() | new.keys():
                if old.get(key) == new.get(key):
                    continue
                # a key in one bucket before and another now is met twice: (old, None), (None, new)
                was, now = changed.get(key, (None, None))
                changed[key] = (was or old.get(key), now or new.get(key))
                self._rep.pop(key, None)
                if key in new:
                    self.db.execute("INSERT OR REPLACE INTO long_key (key, initials, rep) VALUES (?, ?, ?)",
                                    (key, bucket, new[key]))
                elif self._one("SELECT initials FROM long_key WHERE key = ?", (key,)) == (bucket,):
                    self.db.execute("DELETE FROM long_key WHERE key = ?", (key,))
        return changed

    def _defined_long(self, key: str) -> bool:
        return self._one("SELECT 1 FROM local_def WHERE long = ? LIMIT 1", (key,)) is not None

    def _update_short_keys(self, shorts: set[str]) -> dict[str, tuple[dict, dict]]:
        """Store the long forms each short form is defined with, and how many papers define it so
        with each type; returns (old, new) of each short form whose long forms or counts changed."""
        changed: dict[str, tuple[dict, dict]] = {}
        for short in sorted(shorts):
            targets = short_targets(self.db, short, self.rep)
            row = self._one("SELECT targets FROM short_key WHERE key = ?", (short,))
            old = json.loads(row[0]) if row else {}
            if targets == old:
                continue
            changed[short] = (old, targets)
            self._defined.pop(short, None)
            if targets:
                self.db.execute("INSERT OR REPLACE INTO short_key (key, targets) VALUES (?, ?)",
                                (short, _json(targets)))
            else:
                self.db.execute("DELETE FROM short_key WHERE key = ?", (short,))
        return changed

    def _meaning_changed(self, reps: dict[str, tuple[str | None, str | None]],
                         definitions: dict[str, tuple[dict, dict]]) -> tuple[set[str], set[str]]:
        """The keys whose changed representative or long forms change what a paper's mention of
        them resolves to (`_assign`), and the long keys whose change does so for the papers that
        define them; only those papers are resolved again.

        A long form first defined is its own representative, which is what a mention of it
        resolved to before; an acronym defined two ways that gains a third resolves to itself
        before and after. A big corpus changes the definitions of its popular acronyms in every
        batch: re-resolving all their papers each time made a build's batches slower with the size
        of the store (43k old papers re-derived when 50k were added to 100k)."""
        mention: set[str] = set()
        for key in reps.keys() | definitions.keys():
            rep_now = self.rep(key)
            was_rep, now_rep = reps.get(key, (rep_now, rep_now))
            defined_now = self.defined(key)
            was_defined, now_defined = definitions.get(key, (defined_now, defined_now))
            if any(_resolves_to(key, was_rep, was_defined, etype)
                   != _resolves_to(key, now_rep, now_defined, etype) for etype in TYPE_ORDER):
                mention.add(key)
        local = {key for key, (was, now) in reps.items() if (was or key) != (now or key)}
        return mention, local

    def _assign(self, ex: Extraction) -> tuple[dict[str, str], Counter, Counter]:
        """Resolution rules 1-4 (graph/resolve.py) for one paper's mentions."""
        local = local_definitions(ex)
        assign: dict[str, str] = {}
        votes: Counter[tuple[str, str]] = Counter()
        surf: Counter[tuple[str, str]] = Counter()
        for m in ex.mentions:
            key = compact_key(m.text)
            if not key or key in GENERIC:
                continue
            if key in local:
                cluster = self.rep(local[key]) or local[key]
            else:
                cluster = _resolves_to(key, self.rep(key), self.defined(key), m.type)
            if self.rules:
                corrected = self.rules.correct(cluster, m.type)
                if corrected is None:               # dropped by the user
                    continue
                cluster = corrected
            assign[m.text] = cluster
            votes[(cluster, m.type)] += 1
            surf[(cluster, m.text)] += 1
        return assign, votes, surf

    def _summary(self, cluster: str) -> dict | None:
        """Type, name, aliases, id and lookup spellings of a cluster now (None: it has no mention)."""
        votes = dict(self.db.execute("SELECT type, n FROM votes WHERE cluster = ?", (cluster,)))
        if not votes:
            return None
        best = max(votes.values())
        label = self.rules.types.get(cluster) or next(t for t in TYPE_ORDER if votes.get(t) == best)
        names = dict(self.db.execute("SELECT surface, n FROM surfaces WHERE cluster = ?", (cluster,)))
        name = self.rules.names.get(cluster) or shown_name(names)
        key = base_key(cluster)
        spellings = dict(self.db.execute("SELECT surface, n FROM spelling WHERE key = ?", (key,)))
        canonical = id_name(spellings, key)
        ambiguous = key == cluster and self.rep(cluster) is None and len(self.defined(cluster)) > 1
        return {"label": label, "name": name, "aliases": sorted(set(names) | {name}), "ambiguous": ambiguous,
                "id": entity_id(label, canonical), "curated": self.rules.is_curated(cluster),
                "lookup": [] if ambiguous else sorted(_nested_spellings(names))}

    def _summarize(self, clusters: set[str]) -> tuple[dict[str, dict | None], set[str], set[str]]:
        """Summaries of `clusters`, stored; the clusters whose id changed, and the inner-name
        spellings whose one cluster changed."""
        summaries: dict[str, dict | None] = {}
        id_changed: set[str] = set()
        joined_touched: set[str] = set()
        updates = []
        for cluster in sorted(clusters):
            summary = self._summary(cluster)
            summaries[cluster] = summary
            row = self._one("SELECT id, spellings FROM clusters WHERE cluster = ?", (cluster,))
            old_id, old_lookup = (row[0], json.loads(row[1])) if row else (None, [])
            new_id, new_lookup = (summary["id"], summary["lookup"]) if summary else (None, [])
            if old_id != new_id:
                id_changed.add(cluster)
            if old_lookup != new_lookup:
                joined_touched.update(set(old_lookup) ^ set(new_lookup))
            updates.append((cluster, old_lookup, new_id, new_lookup))
        before = {j: self._unique(j) for j in joined_touched}
        for cluster, old_lookup, new_id, new_lookup in updates:
            for j in old_lookup:
                self.db.execute("DELETE FROM nested_spelling WHERE joined = ? AND cluster = ?", (j, cluster))
            for j in new_lookup:
                self.db.execute("INSERT OR IGNORE INTO nested_spelling (joined, cluster) VALUES (?, ?)",
                                (j, cluster))
            if new_id is None:
                self.db.execute("DELETE FROM clusters WHERE cluster = ?", (cluster,))
            else:
                self.db.execute("INSERT OR REPLACE INTO clusters (cluster, id, spellings) VALUES (?, ?, ?)",
                                (cluster, new_id, _json(new_lookup)))
        lookups_changed = {j for j in joined_touched if self._unique(j) != before[j]}
        return summaries, id_changed, lookups_changed

    def _unique(self, joined: str) -> str | None:
        rows = self.db.execute("SELECT cluster FROM nested_spelling WHERE joined = ? LIMIT 2",
                               (joined,)).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def _ids(self, clusters: Iterable[str]) -> dict[str, str]:
        out = {}
        for cluster in clusters:
            row = self._one("SELECT id FROM clusters WHERE cluster = ?", (cluster,))
            if row:
                out[cluster] = row[0]
        return out

    def _paper_edges(self, p: str, pid: str, year: int | None, ex: Extraction, assign: dict[str, str],
                     entity_touched: set[str], relations_touched: set[tuple[str, str, str]]
                     ) -> list[tuple[str, dict, dict | None]]:
        """One paper's MENTIONS/INTRODUCES props per cluster (nested names included) and its
        relation support rows, stored."""
        per_entity: dict[str, list[Mention]] = defaultdict(list)
        for m in ex.mentions:
            cluster = assign.get(m.text)
            if cluster is not None:
                per_entity[cluster].append(m)
        for cluster, m in self._nested(ex, assign):
            per_entity[cluster].append(m)
        out = []
        for cluster, mentions in sorted(per_entity.items()):
            mentions.sort(key=lambda m: m.start)
            props, introduces = mention_props(mentions, year)
            out.append((cluster, props, introduces))
            self.db.execute("INSERT INTO cluster_paper (cluster, paper, introduced, confidence, year) "
                            "VALUES (?, ?, ?, ?, ?)",
                            (cluster, p, int(introduces is not None), props["confidence"], year))
            entity_touched.add(cluster)
        support: dict[tuple[str, str, str], tuple[str, float]] = {}
        for rel in ex.relations:
            if rel.type not in RELATION_TYPES:
                continue
            head, tail = assign.get(rel.head), assign.get(rel.tail)
            if head is None or tail is None or head == tail:
                continue
            triple = (head, rel.type, tail)
            if triple not in support:
                evidence = ex.sentence_text(rel.sentence) if rel.sentence < len(ex.sentences) else ""
                support[triple] = (evidence, rel.confidence)
            else:
                support[triple] = (support[triple][0], max(support[triple][1], rel.confidence))
        for triple, (evidence, confidence) in sorted(support.items()):
            self.db.execute("INSERT INTO rel_support (head, type, tail, paper, pid, evidence, confidence, "
                            "year) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            (*triple, p, pid, evidence, confidence, year))
            relations_touched.add(triple)
        return out

    def _nested(self, ex: Extraction, assign: dict[str, str]) -> list[tuple[str, Mention]]:
        """`resolve.nested_mentions` for one paper, the corpus-wide lookup read from the state."""
        return inner_mentions(ex, assign.get, self._unique, lambda _cluster: "")


class _Emitter:
    """Graph rows per owner (a paper, a collection, an entity, a paper's mentions, a relation),
    compared with the stored rows of that owner: writes and records only the difference."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.collections: set[str] = set()
        self._delta = GraphDelta()
        self._counts: Counter[str] = Counter()     # rows added minus rows deleted, per label/type
        self._relations: dict[str, str] = {}         # relation edges in the delta: id -> row owner

    def _put(self, owner: str, nodes: list[Node], edges: list[Edge]) -> None:
        """Make the rows of `owner` these nodes and edges. A paper's abstract goes to the `text`
        column (read only when asked for); a relation edge here has its small props only."""
        from paperkg.graph.state import props_json

        old_nodes = {key: (label, props, text) for key, label, props, text in self.db.execute(
            "SELECT key, label, props, text FROM nodes WHERE owner = ?", (owner,))}
        old_edges = {eid: (etype, s, t, props) for eid, etype, s, t, props in self.db.execute(
            "SELECT id, type, source, target, props FROM edges WHERE owner = ?", (owner,))}
        for node in nodes:
            small = {k: v for k, v in node.props.items() if k != "abstract"}
            row = (node.label, props_json(small), node.props.get("abstract"))
            old = old_nodes.pop(node.key, None)
            if old is None:
                self._counts["node:" + node.label] += 1
            if old != row:
                self.db.execute("INSERT OR REPLACE INTO nodes (key, label, owner, props, text) "
                                "VALUES (?, ?, ?, ?, ?)", (node.key, row[0], owner, row[1], row[2]))
                self._delta.nodes.append(node)
        for edge in edges:
            props = props_json(edge.props)
            old_edge = old_edges.pop(edge.id, None)
            if old_edge is None:
                self._counts["edge:" + edge.type] += 1
            if old_edge != (edge.type, edge.source, edge.target, props):
                lean = None if edge.type != "MENTIONS" else props_json(
                    {k: v for k, v in edge.props.items() if k not in STORED_MENTION_PROPS})
                self.db.execute("INSERT OR REPLACE INTO edges (id, type, source, target, owner, props, "
                                "lean) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                (edge.id, edge.type, edge.source, edge.target, owner, props, lean))
                self._delta.edges.append(edge)
                if edge.type in RELATION_TYPES:
                    self._relations[edge.id] = owner
        for eid, (etype, source, target, _) in old_edges.items():
            self.db.execute("DELETE FROM edges WHERE id = ? AND owner = ?", (eid, owner))
            self._delta.deleted_edges.append(Edge(etype, source, target))
            self._counts["edge:" + etype] -= 1
        for key, (label, props, _) in old_nodes.items():
            self._counts["node:" + label] -= 1
            self.db.execute("DELETE FROM nodes WHERE key = ? AND owner = ?", (key, owner))
            self._delta.deleted_nodes.append(Node(label, json.loads(props)["id"]))

    def paper(self, p: str, entry: PaperEntry | None) -> None:
        owner = "p" + _SEP + p          # its mentions: "m" + _SEP + p (`mentions_owner`)
        self.collections.update(json.loads(props)["name"] for (props,) in self.db.execute(
            "SELECT n.props FROM edges e JOIN nodes n ON n.key = e.target WHERE e.owner = ?", (owner,)))
        if entry is None:
            self._put(owner, [], [])
            return
        node = paper_node(entry)
        self.collections.update(entry.collections)
        self._put(owner, [node], [Edge("IN_COLLECTION", node.key, node_key("Collection", collection_id(c)))
                                  for c in entry.collections])

    def collection(self, name: str) -> None:
        count = self.db.execute("SELECT count(DISTINCT paper) FROM records WHERE collection = ?",
                                (name,)).fetchone()[0]
        cid = collection_id(name)
        nodes = [Node("Collection", cid, {"id": cid, "name": name, "paper_count": count})] if count else []
        self._put("c" + _SEP + name, nodes, [])

    def entity(self, cluster: str, summary: dict | None, eid: str | None) -> None:
        nodes = []
        if summary is not None and eid is not None:
            per_year = self.db.execute(
                "SELECT year, count(*), sum(introduced), max(confidence) FROM cluster_paper "
                "WHERE cluster = ? GROUP BY year", (cluster,)).fetchall()
            papers = sum(row[1] for row in per_year)
            if papers:
                introduced = sum(row[2] for row in per_year)
                confidence = max(row[3] for row in per_year)
                years = {year: n for year, n, _, _ in per_year if year is not None}
                nodes.append(Node(summary["label"], eid, entity_props(
                    eid, summary["label"], summary["name"], set(summary["aliases"]), base_key(cluster),
                    ambiguous=summary["ambiguous"], papers=papers, introduced=introduced,
                    confidence=confidence, years=years, curated=summary.get("curated", False))))
        self._put("e" + _SEP + cluster, nodes, [])

    def mentions(self, p: str, pid: str | None, rows: list[tuple[str, dict, dict | None]],
                 ids: dict[str, str], results: tuple[list[Node], list[Edge]]) -> None:
        """A paper's MENTIONS and INTRODUCES edges, and its results (`build.result_rows`): they
        resolve through the same clusters, so they are derived again together."""
        nodes, edges = results
        edges = list(edges)
        if pid is not None:
            pkey = node_key("Paper", pid)
            for cluster, props, introduces in rows:
                eid = ids[cluster]
                edges.append(Edge("MENTIONS", pkey, eid, props))
                if introduces is not None:
                    edges.append(Edge("INTRODUCES", pkey, eid, introduces))
        self._put("m" + _SEP + p, nodes, edges)

    def relation(self, triple: tuple[str, str, str], ids: dict[str, str]) -> None:
        """The relation's edge row: support, combined confidence and first year over its supporting
        papers (their confidences and years: small columns of `rel_support`)."""
        head, rtype, tail = triple
        support = self.db.execute("SELECT pid, '', confidence, year FROM rel_support "
                                  "WHERE head = ? AND type = ? AND tail = ?", triple).fetchall()
        edges = []
        if support:
            props = relation_props(support)
            small = {k: v for k, v in props.items() if k not in RELATION_LISTS}
            edges.append(Edge(rtype, ids[head], ids[tail], small))
        self._put("r" + _SEP + _SEP.join(triple), [], edges)

    def delta(self, full: bool, whole: bool) -> GraphDelta:
        """The change (whole graph when `full`); also brings the stored counts up to date. With
        `whole` (a target store keeps every property), its relation edges carry their lists."""
        self.db.executemany("INSERT INTO counts (name, n) VALUES (?, ?) "
                            "ON CONFLICT (name) DO UPDATE SET n = n + excluded.n",
                            sorted((k, n) for k, n in self._counts.items() if n))
        delta = self._delta
        if full:
            graph = read_graph(self.db)
            return GraphDelta(nodes=list(graph.nodes.values()), edges=list(graph.edges.values()), full=True)
        if whole and self._relations:
            owners = set(self._relations.values())
            lists = _relation_lists(self.db, [tuple(o.split(_SEP)[1:]) for o in sorted(owners)])
            relations = self._relations
            delta.edges = [e if e.id not in relations else
                           Edge(e.type, e.source, e.target, _whole(e.props, lists.get(relations[e.id], [])))
                           for e in delta.edges]
        return delta
