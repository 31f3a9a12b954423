"""Python implementations of the catalog queries over the embedded store's graph.

Why not run the catalog's Cypher through grand-cypher: it has no `$parameters`, no `OPTIONAL MATCH`,
`WITH` or `count(DISTINCT)`, matches undirected patterns wrongly, never binds two pattern nodes to one
graph node, and takes seconds on aggregations at 50k nodes. Each function here computes exactly the
rows its `.cypher` file returns on Neo4j (same columns, same values, same total order) from the same
Cypher parameters (`$name_key`, `$limit`, ...); `tests/queries/test_parity.py` compares the two.

Speed: an `Index` of the graph (key -> entities, per-entity papers and relations, per-paper mentions,
entities of each type and models of each family pre-sorted, each collection's introductions ranked)
is built once per store (or networkx graph) and cached by identity, so each query touches only the
rows it returns plus their neighbourhood. A store that streams its rows
(`graph.embedded.EmbeddedStore.view_rows`) has its index built from them, with no networkx graph:
building one was half of `paperkg serve`'s start, and only user Cypher (grand-cypher) needs it. An
entity's ranked co-mentions are computed the first time a query asks for them and kept with the
index: computing every entity's at start was a fifth of `paperkg serve`'s start at 100k abstracts,
for figures most entities are never asked for. A store object serves the one build it loaded (a
server opens a new one for a rebuild), so a cached index never describes a changed graph.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import threading
import weakref
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, TypeVar

import networkx as nx

from paperkg.graph.model import ENTITY_LABELS, RELATION_TYPES, RESULT_LINKS, node_key
from paperkg.queries import embedded_results
from paperkg.queries.suggest import Named, NameIndex

Row = dict[str, Any]
_T = TypeVar("_T")
Impl = Callable[["Index", dict[str, Any]], list[Row]]

_PAPER_KEY = node_key("Paper", "")         # every paper's key starts so (`node_key`)
_NOTHING: frozenset[str] = frozenset()
MAX_PATH_HOPS = 6          # must equal the `*..6` in shortest_path.cypher
_ENTITY_LABELS = frozenset(ENTITY_LABELS)
_RESULT_LINKS = frozenset(RESULT_LINKS.values())
# The largest `limit` cooccurring and introduced_in accept (their catalog headers): the index keeps
# the first FIGURE_LIMIT co-mentions of each entity overall and of each type, and the first
# FIGURE_LIMIT introductions of each collection, which answers every allowed limit exactly.
FIGURE_LIMIT = 1000
_SEARCH_CAP = 2000          # beyond this many matching keys, scan entities in rank order instead


def _label(attrs: dict[str, Any]) -> str:
    labels = attrs.get("__labels__") or ()
    return next(iter(labels)) if len(labels) == 1 else ""


class PathAdjacency:
    """Node -> its neighbours over MENTIONS and relations, either direction: a paper's `mentions_of`
    list itself, an entity's set (related entities and papers) made the first time it is asked for
    and kept. Made at start for every entity, these sets were ~2 s of a 209k-abstract store's start
    and hundreds of MB at 1M, for the few entities paths are asked between. It holds the index's
    tables, not the index (a cycle would outlive a reload: `graph.store.collector_paused`)."""

    __slots__ = ("_mentions_of", "_papers_of", "_relations", "_sets")

    def __init__(self, relations: dict[str, list[tuple[str, str, str, int, float]]],
                 papers_of: dict[str, list[tuple[str, dict[str, Any]]]],
                 mentions_of: dict[str, list[str]]) -> None:
        self._relations, self._papers_of, self._mentions_of = relations, papers_of, mentions_of
        self._sets: dict[str, set[str]] = {}

    def get(self, node: str, default: Any = None) -> Any:
        """`node`'s neighbours (a list or a set: read them, never change them), or `default`."""
        near: Collection[str] | None = self._mentions_of.get(node) or self._sets.get(node)
        if near is not None:
            return near
        relations, papers = self._relations.get(node), self._papers_of.get(node)
        if relations is None and papers is None:
            return default
        found = {r[2] for r in relations or ()}
        found.update(map(itemgetter(0), papers or ()))
        self._sets[node] = found          # two threads asking at once: the same set, one kept
        return found


@dataclass
class Index:
    """Lookup tables over one graph (node keys as in `graph.model.node_key`).

    The index holds no reference to the store or graph it was built from: `_CACHE` maps each to
    its index weakly, and an index holding its source would keep both alive forever (a server
    reloading a rebuilt store grew by a whole graph and index per reload)."""

    # what the view leaves in the store, read per request: `abstract_of(paper id)`,
    # `paper_details(paper key)` (`graph.embedded.EmbeddedStore.lookups`)
    lookups: dict[str, Callable[[str], Any]] = field(default_factory=dict)
    props: dict[str, dict[str, Any]] = field(default_factory=dict)     # node key -> attributes
    label: dict[str, str] = field(default_factory=dict)                # node key -> label
    by_key: dict[str, list[str]] = field(default_factory=dict)        # compact key -> entity nodes
    by_type: dict[str, list[str]] = field(default_factory=dict)       # label -> entities, top first
    by_family: dict[str, list[str]] = field(default_factory=dict)     # family_key -> models, top first
    # entity -> (paper, props of its MENTIONS edge), in paper id order
    papers_of: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    mentions_of: dict[str, list[str]] = field(default_factory=dict)   # paper -> entities it mentions
    mention_props: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # ... their MENTIONS props
    collections_of: dict[str, list[str]] = field(default_factory=dict)  # paper -> its collections
    introduces_of: dict[str, list[str]] = field(default_factory=dict)  # paper -> entities it introduces
    papers_in: dict[str, list[str]] = field(default_factory=dict)     # collection -> papers
    paper_by_id: dict[str, str] = field(default_factory=dict)         # any record id -> paper node
    # entity -> [(relation type, "out"/"in", other entity, support, confidence)]; confidence 1.0
    # where the edge has none (`coalesce(r.confidence, 1.0)` in the Cypher)
    relations: dict[str, list[tuple[str, str, str, int, float]]] = field(default_factory=dict)
    # results (`queries.embedded_results`): result -> its paper, result -> {link type: entity},
    # entity -> [(link type, result)] in edge order
    result_paper: dict[str, str] = field(default_factory=dict)
    result_links: dict[str, dict[str, str]] = field(default_factory=dict)
    results_of: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # entity -> {year: papers of that year mentioning it}, entities with dated papers only: the
    # timeline of an entity with 10^5 papers was 10^5 lookups per request
    years_of: dict[str, dict[int, int]] = field(default_factory=dict)
    # key -> {year: distinct papers}, for keys naming several entities with dated papers: an
    # ambiguous hub's union of papers (263k at 1M abstracts) took half a second per request
    years_of_key: dict[str, dict[int, int]] = field(default_factory=dict)
    latest_year: int | None = None                                     # of any paper
    # node -> neighbours over MENTIONS and relations, either direction (shortest paths,
    # papers_with_all): `PathAdjacency` over the tables above
    path_adj: PathAdjacency = field(default_factory=lambda: PathAdjacency({}, {}, {}))
    # search: all entity keys joined by "\x00", each key's start offset and owning entity
    key_blob: str = ""
    key_starts: list[int] = field(default_factory=list)
    key_owner: list[str] = field(default_factory=list)
    # every entity by (papers desc, name, id), and each entity's position in that order
    ranked: list[str] = field(default_factory=list)
    rank: dict[str, int] = field(default_factory=dict)
    # whole-neighbourhood figures (the graph never changes under the index), like the Neo4j store's
    # save-time figures: entity -> co-mentions as (-papers, name, id, other) in ORDER BY order (see
    # FIGURE_LIMIT), filled by `co_ranked` as entities are asked for; collection -> introduced_in rows
    _co_ranked: dict[str, list[tuple[int, str, str, str]]] = field(default_factory=dict)
    introductions: dict[str, list[Row]] = field(default_factory=dict)
    # every key filed for suggestions (`queries.suggest`), built by `suggest` on the first unknown
    # name: a store whose users never mistype pays nothing for it
    _names: NameIndex | None = None
    # read from the file a build saved (`queries.index_snapshot.load`) rather than derived: a server
    # that derived it has the file saved for its next start (`api.deps`)
    from_file: bool = False

    @classmethod
    def build(cls, g: nx.MultiDiGraph) -> Index:
        """The index of a networkx view (`graph.embedded.to_networkx`'s shape)."""
        return cls.from_rows(((n, _label(a), a) for n, a in g.nodes(data=True)),
                             ((_label(d), u, v, d) for u, v, d in g.edges(data=True)),
                             {k: v for k, v in g.graph.items() if k in ("abstract_of", "paper_details")})

    @classmethod
    def from_rows(cls, nodes: Iterable[tuple[str, str, dict[str, Any]]],
                  edges: Iterable[tuple[str, str, str, dict[str, Any]]],
                  lookups: dict[str, Callable[[str], Any]]) -> Index:
        """The index of a graph given as (key, label, props) nodes in any order, then (type, source,
        target, props) edges in id order: a store's rows (`graph.embedded.ViewRows`) need no
        networkx graph between. The index keeps the props dicts it is given, and the node keys'
        objects."""
        index = cls(lookups=lookups)
        by_key: dict[str, list[str]] = defaultdict(list)
        by_type: dict[str, list[str]] = defaultdict(list)
        by_family: dict[str, list[str]] = defaultdict(list)
        for node, label, attrs in nodes:
            index.props[node] = attrs
            index.label[node] = label
            if label == "Paper":          # nodes come in any order: the smallest key owns an id
                for rid in attrs.get("ids") or ():
                    if index.paper_by_id.setdefault(rid, node) > node:
                        index.paper_by_id[rid] = node
            if label in _ENTITY_LABELS:
                for key in attrs.get("keys") or ():
                    by_key[key].append(node)
                by_type[str(attrs.get("type"))].append(node)
                if label == "Model" and attrs.get("family_key") is not None:
                    by_family[attrs["family_key"]].append(node)
        # most keys name one entity: sorting those was a tenth of the index's build
        index.by_key = {k: v if len(v) == 1 else sorted(v, key=lambda n: index.props[n]["id"])
                        for k, v in by_key.items()}
        index.by_type = {t: sorted(v, key=index.rank_key) for t, v in by_type.items()}
        index.by_family = {f: sorted(v, key=index.rank_key) for f, v in by_family.items()}
        index.ranked = sorted((n for nodes in by_type.values() for n in nodes), key=index.rank_key)
        index.rank = {n: i for i, n in enumerate(index.ranked)}

        papers_of: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
        mentions_of: dict[str, list[str]] = defaultdict(list)
        mention_props: dict[str, list[dict[str, Any]]] = defaultdict(list)
        collections_of: dict[str, list[str]] = defaultdict(list)
        introduces_of: dict[str, list[str]] = defaultdict(list)
        papers_in: dict[str, list[str]] = defaultdict(list)
        relations: dict[str, list[tuple[str, str, str, int, float]]] = defaultdict(list)
        # The loop runs once per edge (8M at 1M abstracts), so it does as little as it can: a
        # paper's MENTIONS are contiguous (edges come in id order), so its lists are looked up once
        # per paper.
        last, targets, targets_props = None, [], []
        nodes = index.props
        for etype, source, target, attrs in edges:
            if source not in nodes or target not in nodes:
                # no such edge on Neo4j, where an edge needs both its nodes: the store held three at
                # 208k abstracts (a cluster with no node row), and `trending` met one as a KeyError
                continue
            if etype == "MENTIONS":
                papers_of[target].append((source, attrs))
                if source is not last:
                    last, targets, targets_props = source, mentions_of[source], mention_props[source]
                targets.append(target)
                targets_props.append(attrs)
            elif etype == "INTRODUCES":
                introduces_of[source].append(target)
            elif etype == "IN_COLLECTION":
                papers_in[target].append(source)
                collections_of[source].append(target)
            elif etype in RELATION_TYPES:
                support = attrs.get("support")
                confidence = attrs.get("confidence")
                confidence = 1.0 if confidence is None else confidence
                relations[source].append((etype, "out", target, support, confidence))
                relations[target].append((etype, "in", source, support, confidence))
            elif etype == "REPORTS":
                index.result_paper[target] = source
            elif etype in _RESULT_LINKS:
                index.result_links.setdefault(source, {})[etype] = target
                index.results_of.setdefault(target, []).append((etype, source))
        # paper id order (papers_mentioning pages by it): a paper's key is its id behind one prefix
        # (`node_key`), and an entity has one MENTIONS edge per paper, so the tuples sort by key
        # alone, in C; edges come in id order (by paper within a type), so mostly sorted already
        for papers in papers_of.values():
            papers.sort()
        index.papers_of, index.mentions_of = dict(papers_of), dict(mentions_of)
        index.mention_props, index.collections_of = dict(mention_props), dict(collections_of)
        index.introduces_of, index.papers_in = dict(introduces_of), dict(papers_in)
        index.relations = dict(relations)
        index.path_adj = PathAdjacency(index.relations, index.papers_of, index.mentions_of)
        year_of = {node: year for node, label in index.label.items() if label == "Paper"
                   and (year := index.props[node].get("year")) is not None}
        if year_of:
            # counted in C (`map`s, no generator): most entities have one paper, and this loop runs
            # once per entity (a Counter over a generator each was a sixth of the index's build)
            first = itemgetter(0)
            for node, mentioning in index.papers_of.items():
                if len(mentioning) == 1:
                    year = year_of.get(mentioning[0][0])
                    if year is not None:
                        index.years_of[node] = {year: 1}
                    continue
                years = Counter(map(year_of.get, map(first, mentioning)))
                years.pop(None, None)
                if years:
                    index.years_of[node] = dict(years)
            for key, nodes in index.by_key.items():
                dated = [n for n in nodes if n in index.years_of]
                if len(dated) > 1:
                    papers = {p for n in dated for p, _ in index.papers_of[n] if p in year_of}
                    index.years_of_key[key] = dict(Counter(year_of[p] for p in papers))
        index.latest_year = max(year_of.values(), default=None)

        index.introductions = {c: _introductions(index, c)[:FIGURE_LIMIT] for c in index.papers_in
                               if index.label.get(c) == "Collection"}

        keys = sorted(by_key)
        starts, pos = [], 0
        for key in keys:
            starts.append(pos)
            pos += len(key) + 1
        index.key_blob = "\x00".join(keys) + "\x00"
        index.key_starts = starts
        index.key_owner = keys
        return index

    def co_ranked(self, node: str) -> list[tuple[int, str, str, str]]:
        """`node`'s co-mentions as kept figures (`_kept`), computed once. Two threads asking at once
        may both compute them: the same list, one kept."""
        ranked = self._co_ranked.get(node)
        if ranked is None:
            ranked = self._co_ranked[node] = _kept(self, _comentions(self, node))
        return ranked

    def entity_id(self, node: str) -> str:
        return self.props[node]["id"]

    def rank_key(self, node: str) -> tuple[int, str, str]:
        """ORDER BY papers DESC, name, id."""
        p = self.props[node]
        return (-int(p.get("paper_count", 0)), str(p.get("name", "")), str(p["id"]))

    def entities(self, key: str, labels: Iterable[str] = ENTITY_LABELS) -> list[str]:
        """Entities one of whose keys is `key` (`$key IN e.keys`), restricted to `labels`."""
        wanted = frozenset(labels)
        return [n for n in self.by_key.get(key, ()) if self.label[n] in wanted]

    def suggest(self, key: str) -> list[str]:
        """Names of the entities whose keys are closest to `key`, a key no entity has. Two threads
        missing at once may both build the name index: the same index, one kept."""
        names = self._names
        if names is None:
            names = self._names = NameIndex(
                (key, Named(str(p.get("name", "")), int(p.get("paper_count") or 0), str(p["id"])))
                for key, nodes in self.by_key.items() for p in (self.props[n] for n in nodes))
        return names.suggest(key)

    def search(self, fragment: str, cap: int) -> set[str] | None:
        """Entities with a key containing `fragment` (`any(k IN e.keys WHERE k CONTAINS $q)`), or
        None when more than `cap` keys contain it (then scanning in rank order is faster)."""
        found: set[str] = set()
        if not fragment or "\x00" in fragment:
            return found
        blob, starts, owner = self.key_blob, self.key_starts, self.key_owner
        pos, hits = blob.find(fragment), 0
        while pos >= 0:
            hits += 1
            if hits > cap:
                return None
            i = bisect.bisect_right(starts, pos) - 1
            found.update(self.by_key[owner[i]])
            next_start = starts[i + 1] if i + 1 < len(starts) else len(blob)
            pos = blob.find(fragment, next_start)
        return found


_CACHE: weakref.WeakKeyDictionary[Any, Index] = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()


def index_for(g: nx.MultiDiGraph) -> Index:
    """The index of `g`, built on first use and kept while `g` lives (thread-safe for the API)."""
    with _CACHE_LOCK:
        index = _CACHE.get(g)
        if index is None:
            index = Index.build(g)
            _CACHE[g] = index
        return index


def index_of(view: Any) -> Index:
    """The index of a `graph.store.GraphView` store, made on first use and kept while the store
    object lives: the one its build saved (`_saved_index`), else built from its rows when it streams
    them (`view_rows`), else from its networkx view."""
    view_rows = getattr(view, "view_rows", None)
    if view_rows is None:
        return index_for(view.networkx())
    with _CACHE_LOCK:
        index = _CACHE.get(view)
        if index is None:
            index = _saved_index(view)
            if index is None:
                with view_rows() as rows:
                    index = Index.from_rows(rows.nodes(), rows.edges(), view.lookups())
            _CACHE[view] = index
        return index


def _saved_index(view: Any) -> Index | None:
    """The index a build saved beside an embedded store for the build it holds now
    (`queries.index_snapshot`), shared with the store's later networkx view; None without one."""
    share_props = getattr(view, "share_props", None)
    if share_props is None:
        return None
    from paperkg.queries import index_snapshot  # it builds on this module's Index

    generation = view.state.generation()
    index = index_snapshot.load(view.path, generation, view.lookups())
    if index is not None:
        share_props(index.props, generation)
    return index


def _top(rows: list[Row], limit: int | None, key: Callable[[Row], Any]) -> list[Row]:
    if limit is not None and limit < len(rows):
        return heapq.nsmallest(limit, rows, key=key)
    return sorted(rows, key=key)


def _end(params: dict[str, Any]) -> int:
    return params["offset"] + params["limit"]


def _page(rows: list[_T], params: dict[str, Any]) -> list[_T]:
    """The `offset`/`limit` window of rows already in the query's order (Cypher's SKIP/LIMIT)."""
    return rows[params["offset"]:_end(params)]


def _paper_row(ix: Index, paper: str) -> Row:
    p = ix.props[paper]
    return {"id": p["id"], "title": p.get("title"), "year": p.get("year")}


# --- the catalog -------------------------------------------------------------------------------


def entity_search(ix: Index, params: dict[str, Any]) -> list[Row]:
    wanted, fragment, offset = params["type"], params["q_key"], params["offset"]
    end = offset + params["limit"]
    found = ix.search(fragment, _SEARCH_CAP)
    if found is not None:
        nodes = [n for n in found if wanted is None or ix.props[n].get("type") == wanted]
        top = heapq.nsmallest(end, nodes, key=ix.rank.__getitem__)
    else:       # a common fragment: the best-ranked entities match early
        top = []
        for n in ix.ranked if wanted is None else ix.by_type.get(wanted, []):
            if any(fragment in k for k in ix.props[n].get("keys") or ()):
                top.append(n)
                if len(top) == end:
                    break
    top = top[offset:]
    return [{"id": p["id"], "name": p.get("name"), "type": p.get("type"), "aliases": p.get("aliases"),
             "papers": p.get("paper_count")} for p in (ix.props[n] for n in top)]


def entity(ix: Index, params: dict[str, Any]) -> list[Row]:
    nodes = sorted(ix.entities(params["name_key"]), key=ix.rank_key)
    return [{"id": p["id"], "name": p.get("name"), "type": p.get("type"), "aliases": p.get("aliases"),
             "papers": p.get("paper_count"), "introduced": p.get("introduced_count"),
             "family": p.get("family"), "ambiguous": bool(p.get("ambiguous", False)),
             "first_year": p.get("first_year"), "last_year": p.get("last_year"),
             "confidence": p.get("confidence")}
            for p in (ix.props[n] for n in nodes)]


def _contenders(relations: list[tuple[str, str, str, int, float]], end: int
                ) -> list[tuple[str, str, str, int, float]]:
    """Of `relations` (already filtered to what the query keeps), those that can be among the first
    `end` by support (descending, as every relation query orders first): those with at least the
    `end`-th largest support. A hub has tens of thousands of relations at 1M abstracts, and a row
    built for each (a name looked up, a dict made) was the whole of its query's time."""
    if len(relations) <= end:
        return relations
    least = sorted([r[3] for r in relations], reverse=True)[end - 1]
    return [r for r in relations if r[3] >= least]


def neighbors(ix: Index, params: dict[str, Any]) -> list[Row]:
    rows = []
    end, floor = _end(params), params["min_confidence"]
    for node in ix.entities(params["name_key"]):
        kept = [r for r in ix.relations.get(node, ()) if r[4] >= floor]
        for rtype, direction, other, support, confidence in _contenders(kept, end):
            o = ix.props[other]
            rows.append({"entity": ix.entity_id(node), "relation": rtype, "direction": direction,
                         "id": o["id"], "name": o.get("name"), "type": o.get("type"), "support": support,
                         "confidence": confidence})
    ranked = _top(rows, end, lambda r: (
        -r["support"], r["relation"], r["direction"], r["name"], r["id"], r["entity"]))
    return ranked[params["offset"]:]


def _paper_stream(ix: Index, node: str) -> Iterator[tuple[str, str, int, str]]:
    """(paper id, entity id, mention count, paper node) of the papers mentioning `node`, by paper id."""
    entity_id = ix.entity_id(node)
    for paper, attrs in ix.papers_of.get(node, ()):
        yield ix.props[paper]["id"], entity_id, int(attrs.get("count", 0)), paper


def papers_mentioning(ix: Index, params: dict[str, Any]) -> list[Row]:
    """Papers in id order, `offset` skipped, `limit` kept: each entity's papers are already in id
    order, so the named entities' lists are merged lazily and only the page is built."""
    offset, limit = params["offset"], params["limit"]
    streams = [_paper_stream(ix, node) for node in ix.entities(params["name_key"])]   # by entity id
    rows: list[Row] = []
    seen, last = 0, None
    current: Row | None = None
    for pid, entity_id, count, paper in heapq.merge(*streams):
        if pid == last:                     # the same paper mentioning another of the entities
            if current is not None:
                current["entities"].append(entity_id)
                current["mentions"] += count
            continue
        if seen == offset + limit:
            break
        seen, last = seen + 1, pid
        current = None
        if seen > offset:
            current = {**_paper_row(ix, paper), "mentions": count, "entities": [entity_id]}
            rows.append(current)
    return rows


def papers_with_all(ix: Index, params: dict[str, Any]) -> list[Row]:
    """Intersections of the kept path adjacency sets (an entity's papers and related entities),
    rarest name first: in C, probing the smaller side. Making a set of a hub's papers per request
    was 260 ms for RL and regret at 1M abstracts (264k and 65k papers); this does one probe a
    paper of the rarer. An ambiguous name unions its entities' sets, or their intersections with
    the candidates once there are some."""
    names = [[ix.path_adj.get(n, _NOTHING) for n in ix.entities(key)] for key in params["names_keys"]]
    names.sort(key=lambda near: sum(map(len, near)))
    common: Collection[str] | None = None
    for near in names:
        if common is None:
            common = near[0] if len(near) == 1 else set().union(*near)
        else:                                        # each `&` iterates the smaller side
            common = near[0] & common if len(near) == 1 else set().union(*(s & common for s in near))
        if not common:
            return []
    # a paper's key is its id behind one prefix: key order is id order; entity keys have no such prefix
    papers = [p for p in common or () if p.startswith(_PAPER_KEY)]
    end = _end(params)
    ordered = heapq.nsmallest(end, papers) if len(papers) > 4 * end else sorted(papers)
    return [_paper_row(ix, p) for p in _page(ordered, params)]


def _relation_rows(ix: Index, nodes: list[str], rtype: str, direction: str | None,
                   other_labels: frozenset[str] | None, entity_col: str, floor: float, end: int
                   ) -> list[Row]:
    """Rows for `rtype` relations of `nodes` (`direction` None: both ways, with a direction column;
    `other_labels` None: any label at the other end) whose confidence is at least `floor`, of those
    that can be among the first `end` by support (`_contenders`)."""
    rows = []
    for node in nodes:
        kept = [r for r in ix.relations.get(node, ())
                if r[0] == rtype and (direction is None or r[1] == direction) and r[4] >= floor
                and (other_labels is None or ix.label[r[2]] in other_labels)]
        for _, d, other, support, confidence in _contenders(kept, end):
            o = ix.props[other]
            row = {entity_col: ix.entity_id(node), "id": o["id"], "name": o.get("name"),
                   "type": o.get("type")}
            if direction is None:
                row["direction"] = d
            row["support"] = support
            row["confidence"] = confidence
            rows.append(row)
    return rows


def evaluated_on(ix: Index, params: dict[str, Any]) -> list[Row]:
    nodes = ix.entities(params["name_key"], ("Dataset", "Benchmark"))
    rows = _relation_rows(ix, nodes, "EVALUATED_ON", "in", frozenset({"Method", "Model"}), "dataset",
                          params["min_confidence"], _end(params))
    return _page(_top(rows, _end(params), lambda r: (
        -r["support"], r["name"], r["id"], r["dataset"])), params)


def benchmarks_of(ix: Index, params: dict[str, Any]) -> list[Row]:
    nodes = ix.entities(params["name_key"], ("Method", "Model"))
    rows = _relation_rows(ix, nodes, "EVALUATED_ON", "out", frozenset({"Dataset", "Benchmark"}), "entity",
                          params["min_confidence"], _end(params))
    return _page(_top(rows, _end(params), lambda r: (
        -r["support"], r["name"], r["id"], r["entity"])), params)


def compared_with(ix: Index, params: dict[str, Any]) -> list[Row]:
    nodes = ix.entities(params["name_key"], ("Method", "Model"))
    rows = _relation_rows(ix, nodes, "COMPARED_WITH", None, None, "entity", params["min_confidence"],
                          _end(params))
    return _page(_top(rows, _end(params), lambda r: (
        -r["support"], r["name"], r["id"], r["direction"], r["entity"])), params)


def timeline(ix: Index, params: dict[str, Any]) -> list[Row]:
    key = params["name_key"]
    # an ambiguous name counts a paper mentioning two of its entities once (`years_of_key`)
    per_year = ix.years_of_key.get(key)
    if per_year is None:
        dated = [n for n in ix.entities(key) if n in ix.years_of]
        per_year = ix.years_of[dated[0]] if dated else {}
    return [{"year": year, "papers": count} for year, count in sorted(per_year.items())]


def trending(ix: Index, params: dict[str, Any]) -> list[Row]:
    """Growth as trending.cypher defines it, from each entity's papers by year (`years_of`), entities
    read most-mentioned first: growth <= recent <= paper_count, so once
    an entity has fewer papers than the `limit`-th growth found, none after it can enter."""
    latest = ix.latest_year
    if latest is None:
        return []
    since = latest if params["since"] is None else params["since"]
    span = latest - since + 1
    if span < 1:
        return []
    wanted, least, limit = params["type"], params["min_papers"], params["limit"]
    rows: list[Row] = []
    kept: list[int] = []                 # the `limit` largest growths so far (a min-heap)
    for node in ix.ranked if wanted is None else ix.by_type.get(wanted, []):
        p = ix.props[node]
        papers = int(p.get("paper_count", 0))
        if papers < least or (len(kept) == limit and papers < kept[0]):
            break
        recent = before = 0
        for year, n in ix.years_of.get(node, {}).items():
            if since <= year <= latest:
                recent += n
            elif since - span <= year < since:
                before += n
        if recent < least or recent <= before:
            continue
        rows.append({"id": p["id"], "name": p.get("name"), "type": p.get("type"), "recent": recent,
                     "before": before, "growth": recent - before, "since": since, "until": latest})
        if len(kept) < limit:
            heapq.heappush(kept, recent - before)
        elif recent - before > kept[0]:
            heapq.heapreplace(kept, recent - before)
    return _top(rows, limit, lambda r: (-r["growth"], -r["recent"], r["name"], r["id"]))


def top_entities(ix: Index, params: dict[str, Any]) -> list[Row]:
    nodes = ix.by_type.get(params["type"], [])[: params["limit"]]
    return [{"id": p["id"], "name": p.get("name"), "type": p.get("type"), "papers": p.get("paper_count"),
             "introduced": p.get("introduced_count")} for p in (ix.props[n] for n in nodes)]


def family(ix: Index, params: dict[str, Any]) -> list[Row]:
    """The families named are the key itself and the families of the models it names; their model
    lists are disjoint and each already in rank order, so they are merged and only the page kept."""
    key = params["name_key"]
    families = {ix.props[n]["family_key"] for n in ix.entities(key, ("Model",))
                if ix.props[n].get("family_key") is not None} | {key}
    nodes = heapq.merge(*(ix.by_family.get(f, ()) for f in sorted(families)), key=ix.rank_key)
    page = itertools.islice(nodes, params["offset"], _end(params))
    return [{"id": p["id"], "name": p.get("name"), "family": p.get("family"), "papers": p.get("paper_count"),
             "first_year": p.get("first_year"), "last_year": p.get("last_year")}
            for p in (ix.props[n] for n in page)]


def _comentions(ix: Index, node: str) -> list[tuple[int, str, str, str]]:
    """(-papers, name, id, other) for every entity mentioned with `node`, in ORDER BY order."""
    counts: Counter[str] = Counter()
    for paper, _ in ix.papers_of.get(node, ()):
        counts.update(ix.mentions_of.get(paper, ()))
    counts.pop(node, None)
    return sorted((-papers, str(ix.props[o].get("name", "")), ix.props[o]["id"], o)
                  for o, papers in counts.items() if ix.label[o] in _ENTITY_LABELS)


def _kept(ix: Index, ranked: list[tuple[int, str, str, str]]) -> list[tuple[int, str, str, str]]:
    """The first FIGURE_LIMIT of `ranked` overall plus the first FIGURE_LIMIT of each type: the first
    `limit` rows with or without a type filter are then exact (as on Neo4j, `neo4j_store.figures`)."""
    if len(ranked) <= FIGURE_LIMIT:
        return ranked
    per_type: Counter[str] = Counter()
    kept = []
    for rank, item in enumerate(ranked):
        otype = str(ix.props[item[3]].get("type"))
        per_type[otype] += 1
        if rank < FIGURE_LIMIT or per_type[otype] <= FIGURE_LIMIT:
            kept.append(item)
    return kept


def _with_entity(ranked: list[tuple[int, str, str, str]], entity_id: str
                 ) -> Iterator[tuple[int, str, str, str, str]]:
    """Sort keys extended by the entity's id (the last tie-breaker), lazily, for heapq.merge."""
    for neg, name, oid, other in ranked:
        yield neg, name, oid, entity_id, other


def cooccurring(ix: Index, params: dict[str, Any]) -> list[Row]:
    wanted, limit = params["type"], params["limit"]
    streams = []
    for node in ix.entities(params["name_key"]):
        streams.append(_with_entity(ix.co_ranked(node), ix.entity_id(node)))
    rows = []
    for neg, _name, oid, entity_id, other in heapq.merge(*streams):
        o = ix.props[other]
        if wanted is not None and o.get("type") != wanted:
            continue
        rows.append({"entity": entity_id, "id": oid, "name": o.get("name"), "type": o.get("type"),
                     "papers": -neg})
        if len(rows) == limit:
            break
    return rows


def _introductions(ix: Index, collection: str) -> list[Row]:
    """Each entity introduced in `collection` with its papers there and the first of them. Edges are
    unique per (type, source, target), so neither list holds a paper twice; a paper's key is its id
    behind one prefix, so the smallest key is the first paper (this runs over every paper at start)."""
    papers_by_entity: dict[str, list[str]] = defaultdict(list)
    introduces_of = ix.introduces_of
    for paper in ix.papers_in.get(collection, ()):
        for node in introduces_of.get(paper, ()):
            papers_by_entity[node].append(paper)
    rows = [{"id": ix.entity_id(n), "name": ix.props[n].get("name"), "type": ix.props[n].get("type"),
             "papers": len(ps), "paper": ix.props[min(ps)]["id"]} for n, ps in papers_by_entity.items()]
    return sorted(rows, key=lambda r: (-r["papers"], r["name"], r["id"]))


def introduced_in(ix: Index, params: dict[str, Any]) -> list[Row]:
    collection = params["collection_id"]            # a collection's node key is its id
    if ix.label.get(collection) != "Collection":
        return []
    return [dict(r) for r in ix.introductions.get(collection, [])[: params["limit"]]]


def shortest_path(ix: Index, params: dict[str, Any]) -> list[Row]:
    best: tuple[int, list[str], list[str], list[str]] | None = None
    for a in ix.entities(params["from_key"]):
        for b in ix.entities(params["to_key"]):
            if a == b:
                continue
            # an ambiguous name's other entities only matter by a path as short as the best so far
            found = _shortest(ix, a, b, MAX_PATH_HOPS if best is None else best[0])
            if found is None:
                continue
            nodes, vias = found
            candidate = (len(nodes) - 1, [ix.props[n]["id"] for n in nodes], vias, nodes)
            if best is None or candidate[:3] < best[:3]:
                best = candidate
    if best is None:
        return []
    _, _, vias, nodes = best
    rows = []
    for step, node in enumerate(nodes):
        p = ix.props[node]
        rows.append({"step": step, "via": vias[step - 1] if step else None, "id": p["id"],
                     "type": p.get("type") or "Paper",
                     "name": p.get("name") or p.get("title") or p["id"]})
    return rows


def _shortest(ix: Index, a: str, b: str, max_hops: int) -> tuple[list[str], list[str]] | None:
    """The shortest a-b path over MENTIONS and relation edges, either direction, at most `max_hops`
    long, that is smallest by (node ids, vias) among all shortest ones; None when there is none.

    Bidirectional BFS finds the distance D touching only the two balls around a and b, expanding
    whichever frontier has fewer edges to follow (hubs like `accuracy` touch thousands of papers),
    with set operations so the per-edge work runs in C. The nodes on shortest paths are then layered
    (L_k = on a shortest path, k steps from a) from the two searches' levels, and the smallest path
    is picked greedily: ids are unique, so the smallest id list takes the smallest id at every step.
    """
    adj = ix.path_adj
    empty: set[str] = set()
    # One or two steps, the usual answer between popular entities, read off the two neighbourhoods
    # directly (one intersection, in C) instead of expanding a hub's every paper into the search.
    near_a, near_b = adj.get(a, empty), adj.get(b, empty)
    if max_hops >= 1 and b in near_a:
        return [a, b], [_via(ix, a, b)]
    common = near_a & near_b if max_hops >= 2 else empty
    if common:
        middle = _smallest_id(ix, common)
        return [a, middle, b], [_via(ix, a, middle), _via(ix, middle, b)]
    if max_hops <= 2:
        return None
    seen_a, seen_b = {a}, {b}
    levels_a, levels_b = [{a}], [{b}]
    meet: set[str] = set()
    while levels_a[-1] and levels_b[-1] and len(levels_a) + len(levels_b) - 2 < max_hops:
        last_a, last_b = levels_a[-1], levels_b[-1]
        if len(last_a) <= len(last_b):      # the smaller level counted whole, the other up to it
            cost_a = _cost(adj, last_a)
            expand_a = cost_a <= _cost(adj, last_b, cost_a)
        else:
            cost_b = _cost(adj, last_b)
            expand_a = _cost(adj, last_a, cost_b) <= cost_b
        levels, seen, other = (levels_a, seen_a, seen_b) if expand_a else (levels_b, seen_b, seen_a)
        new: set[str] = set()
        for node in levels[-1]:
            new.update(adj.get(node, ()))
        new -= seen
        seen |= new
        levels.append(new)
        meet = new & other
        if meet:
            break
    if not meet:
        return None
    # The first meeting happens with total == level_a + level_b (a meet node closer to b would have
    # made the searches meet one expansion earlier), so the meet nodes are exactly the shortest-path
    # nodes `cut` steps from a. Layers before the cut come from a's BFS levels, after it from b's.
    level_a, level_b = len(levels_a) - 1, len(levels_b) - 1
    total = level_a + level_b
    layers: list[set[str]] = [set() for _ in range(total + 1)]
    layers[level_a] = levels_a[level_a] & levels_b[level_b]
    for k in range(level_a - 1, -1, -1):
        layers[k] = _touching(adj, levels_a[k], layers[k + 1])
    for k in range(level_a + 1, total + 1):
        layers[k] = _touching(adj, levels_b[total - k], layers[k - 1])
    path = [a]
    for k in range(1, total + 1):
        path.append(_smallest_id(ix, layers[k].intersection(adj.get(path[-1], ()))))
    vias = [_via(ix, path[k], path[k + 1]) for k in range(total)]
    return path, vias


def _cost(adj: PathAdjacency, nodes: set[str], bound: int | None = None) -> int:
    """The edges to follow from `nodes`, counted until they pass `bound`: deciding which side of
    the search to expand must not walk a hub's every paper (28k at 100k abstracts)."""
    total = 0
    for n in nodes:
        neighbours = adj.get(n)
        if neighbours is not None:
            total += len(neighbours)
            if bound is not None and total > bound:
                break
    return total


def _smallest_id(ix: Index, nodes: set[str]) -> str:
    """The node with the smallest id. A paper's key is its id behind one fixed prefix, so the
    papers' smallest key is their smallest id, found in C (a step between two hubs has thousands
    of common papers to choose from)."""
    papers = {n for n in nodes if n.startswith(_PAPER_KEY)}
    best = [min(papers)] if papers else []
    best += (n for n in nodes if n not in papers) if len(papers) < len(nodes) else ()
    return min(best, key=lambda n: ix.props[n]["id"])


def _touching(adj: PathAdjacency, candidates: set[str], layer: set[str]) -> set[str]:
    """The candidates adjacent to some node of `layer`, from whichever side is cheaper to walk."""
    if _cost(adj, layer, len(candidates)) < len(candidates):
        near: set[str] = set()
        for n in layer:
            near.update(adj.get(n, ()))
        return near & candidates
    return {m for m in candidates if not layer.isdisjoint(adj.get(m, ()))}


def _via(ix: Index, u: str, v: str) -> str:
    """The smallest way to step from u to v: `-TYPE->` along an edge u->v, `<-TYPE-` against v->u
    (the path types: MENTIONS from a paper, relations between entities)."""
    options = [f"-{t}->" if d == "out" else f"<-{t}-" for t, d, other, _, _ in ix.relations.get(u, ())
               if other == v]
    if v in ix.mentions_of.get(u, ()):
        options.append("-MENTIONS->")
    if u in ix.mentions_of.get(v, ()):
        options.append("<-MENTIONS-")
    return min(options)


def _abstract(ix: Index, props: dict[str, Any]) -> str | None:
    """The abstract is bulky text the served view leaves with the store (`graph.embedded.to_networkx`
    puts the lookup in `g.graph["abstract_of"]`); a view that keeps it has it in the node."""
    if "abstract" in props:
        return props["abstract"]
    lookup = ix.lookups.get("abstract_of")
    return lookup(props["id"]) if lookup else None


def paper(ix: Index, params: dict[str, Any]) -> list[Row]:
    pid = params["id"]
    node = node_key("Paper", pid)
    if ix.label.get(node) != "Paper":
        found = ix.paper_by_id.get(pid)
        if found is None:
            return []
        node = found
    p = ix.props[node]
    # A view read from a store keeps the per-mention lists and sentence offsets there
    # (`graph.derive.lean_rows`): one paper's are read back here.
    details = ix.lookups.get("paper_details")
    stored, stored_mentions = details(node) if details is not None else ({}, {})
    collections = sorted(str(ix.props[c].get("name")) for c in set(ix.collections_of.get(node, ()))
                         if ix.label.get(c) == "Collection")
    introduced = set(ix.introduces_of.get(node, ()))
    entities = []
    for target, attrs in zip(ix.mentions_of.get(node, ()), ix.mention_props.get(node, ()), strict=True):
        if ix.label.get(target) not in _ENTITY_LABELS:
            continue
        e = ix.props[target]
        attrs = stored_mentions.get(target, attrs)
        starts = list(attrs.get("starts") or [])
        mentions = [{"sentence": s, "start": a, "end": b, "surface": t} for s, a, b, t in zip(
            attrs.get("sentences") or [], starts, attrs.get("ends") or [], attrs.get("surfaces") or [],
            strict=False)]
        first = starts[0] if starts else None
        entities.append(((first is None, first or 0, e["id"]), {
            "id": e["id"], "type": e.get("type"), "name": e.get("name"), "count": attrs.get("count"),
            "introduced": target in introduced, "mentions": mentions}))
    entities.sort(key=lambda item: item[0])
    return [{"id": p["id"], "ids": list(p.get("ids") or [p["id"]]), "title": p.get("title"),
             "year": p.get("year"), "authors": list(p.get("authors") or []), "url": p.get("url"),
             "doi": p.get("doi"), "categories": list(p.get("categories") or []),
             "abstract": _abstract(ix, p),
             "sentence_starts": list(p.get("sentence_starts") or stored.get("sentence_starts") or []),
             "collections": collections,
             "entities": [row for _, row in entities]}]


IMPLEMENTATIONS: dict[str, Impl] = {
    "paper": paper,
    "entity_search": entity_search,
    "entity": entity,
    "neighbors": neighbors,
    "papers_mentioning": papers_mentioning,
    "papers_with_all": papers_with_all,
    "evaluated_on": evaluated_on,
    "benchmarks_of": benchmarks_of,
    "compared_with": compared_with,
    "top_entities": top_entities,
    "family": family,
    "timeline": timeline,
    "trending": trending,
    "cooccurring": cooccurring,
    "introduced_in": introduced_in,
    "shortest_path": shortest_path,
    "leaderboard": embedded_results.leaderboard,
    "results_of": embedded_results.results_of,
    "sota_over_time": embedded_results.sota_over_time,
}


def run(name: str, g: nx.MultiDiGraph, params: dict[str, Any]) -> list[Row] | None:
    """Rows of catalog query `name` on `g`, or None when no Python implementation is registered."""
    impl = IMPLEMENTATIONS.get(name)
    return None if impl is None else impl(index_for(g), params)


def run_on(name: str, view: Any, params: dict[str, Any]) -> list[Row] | None:
    """Rows of catalog query `name` on a `GraphView` store (`index_of`), or None when no Python
    implementation is registered."""
    impl = IMPLEMENTATIONS.get(name)
    return None if impl is None else impl(index_of(view), params)
