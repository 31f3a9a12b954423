"""Corpus -> KnowledgeGraph in one pass: the specification of the derived graph.

Builds do not call this: the build state re-derives only what new and removed papers touch
(`graph/derive.py`), and a property test holds that incremental graph equal to this one for random
splits, orders and removals. The property helpers below are shared by both, so a property is
computed one way.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence

from paperkg.graph.corpus import Corpus, PaperEntry
from paperkg.graph.curation import Rules, base_key
from paperkg.graph.metric_direction import metric_direction
from paperkg.graph.model import (
    RELATION_TYPES,
    RESULT_LINK_LABELS,
    RESULT_LINKS,
    Edge,
    KnowledgeGraph,
    Node,
    collection_id,
    entity_id,
    node_key,
    result_id,
)
from paperkg.graph.normalize import compact_key
from paperkg.graph.records import Extraction, Mention
from paperkg.graph.resolve import model_family, nested_mentions, resolve


def paper_node(entry: PaperEntry) -> Node:
    props: dict[str, object] = {"id": entry.id, "abstract": entry.abstract, "ids": entry.ids}
    for attr in ("title", "year", "url", "doi"):
        value = entry.first(attr)
        if value:
            props[attr] = value
    authors = entry.first("authors")
    if authors:
        props["authors"] = list(authors)  # type: ignore[arg-type]
    if entry.extraction is not None and entry.extraction.sentences:
        props["sentence_starts"] = [start for start, _ in entry.extraction.sentences]
    categories = entry.first("categories")
    if categories:
        props["categories"] = list(categories)  # type: ignore[arg-type]
    return Node("Paper", entry.id, props)


def paper_year(entry: PaperEntry) -> int | None:
    """The year a paper's mentions and relations carry (None when unknown; 0 counts as unknown)."""
    year = entry.first("year")
    return year if isinstance(year, int) and year else None


def mention_props(mentions: Sequence[Mention], year: int | None) -> tuple[dict, dict | None]:
    """MENTIONS props of one paper's mentions of one entity (sorted by start), and its INTRODUCES
    props (None when no mention introduces it). Confidences are kept to 4 decimals: they are
    calibrated probabilities, and fewer digits keep the stored rows and exports stable."""
    confidences = [round(m.confidence, 4) for m in mentions]
    props: dict[str, object] = {
        "count": len(mentions),
        "sentences": [m.sentence for m in mentions],
        "starts": [m.start for m in mentions],
        "ends": [m.end for m in mentions],
        "surfaces": [m.text for m in mentions],
        "confidences": confidences,
        "confidence": max(confidences),
    }
    intro = [m for m in mentions if m.introduced]
    introduces: dict[str, object] | None = {"sentence": intro[0].sentence} if intro else None
    if year is not None:
        props["year"] = year
        if introduces is not None:
            introduces["year"] = year
    return props, introduces


def relation_props(support: Sequence[tuple[str, str, float, int | None]]) -> dict:
    """A relation edge from its supporting papers: (paper id, evidence, the paper's best confidence,
    year) each. The papers are independent witnesses, so the relation holds unless every one of
    them is wrong: confidence 1 - prod(1 - p)."""
    rows = sorted(support)
    confidences = [round(r[2], 4) for r in rows]
    props: dict[str, object] = {
        "papers": [r[0] for r in rows],
        "support": len(rows),
        "evidence": [r[1] for r in rows],
        "confidences": confidences,
        "confidence": round(1 - math.prod(1 - c for c in confidences), 4),
    }
    years = [r[3] for r in rows if r[3] is not None]
    if years:
        props["first_year"] = min(years)
    return props


# entity ids start with their label in lower case (`model.entity_id`)
_LINK_PREFIXES = {name: {label.lower() for label in labels} for name, labels in RESULT_LINK_LABELS.items()}


def result_rows(pid: str, year: int | None, ex: Extraction, cluster_of: Callable[[str], str | None],
                ids: Mapping[str, str]) -> tuple[list[Node], list[Edge]]:
    """One paper's `Result` nodes, its `REPORTS` edges and each result's links to the entities its
    surfaces name. A surface resolves as the paper's mention written the same way does
    (`cluster_of`), else as a mention with the same name key (`ResNet50` for `ResNet-50`); one that
    names no entity of the graph, or one of a type the link cannot end at (`RESULT_LINK_LABELS`), has
    no link. One result per value offset (the id); the first wins."""
    by_key: dict[str, str] = {}
    for m in sorted(ex.mentions, key=lambda m: m.start):
        cluster = cluster_of(m.text)
        if cluster is not None:
            by_key.setdefault(compact_key(m.text), cluster)

    def entity_of(surface: str | None) -> str | None:
        if not surface:
            return None
        cluster = cluster_of(surface)
        if cluster is None:
            cluster = by_key.get(compact_key(surface))
        return ids.get(cluster) if cluster is not None else None

    pkey = node_key("Paper", pid)
    nodes: list[Node] = []
    edges: list[Edge] = []
    seen: set[int] = set()
    for r in sorted(ex.results, key=lambda r: (r.start, r.end)):
        if r.start in seen:
            continue
        seen.add(r.start)
        rid = result_id(pid, r.start)
        props: dict[str, object] = {
            "id": rid, "paper": pid, "value": r.value, "display": r.display, "kind": r.kind,
            "unit": r.unit, "confidence": round(r.confidence, 4), "sentence": r.sentence,
            "start": r.start, "end": r.end,
            "evidence": ex.sentence_text(r.sentence) if 0 <= r.sentence < len(ex.sentences) else "",
        }
        for name in ("number", "upper"):
            value = getattr(r, name)
            if value is not None and math.isfinite(value):
                props[name] = float(value)     # one type per property, as exports declare it
        if year is not None:
            props["year"] = year
        props["direction"] = metric_direction(r.metric)
        for field_name in RESULT_LINKS:
            surface = getattr(r, field_name)
            if surface:
                props[field_name] = surface
        nodes.append(Node("Result", rid, props))
        edges.append(Edge("REPORTS", pkey, rid))
        for field_name, etype in RESULT_LINKS.items():
            target = entity_of(getattr(r, field_name))
            if target is not None and target.split(":", 1)[0] in _LINK_PREFIXES[field_name]:
                edges.append(Edge(etype, rid, target))
    return nodes, edges


def entity_props(eid: str, label: str, name: str, aliases: set[str], cluster: str, *, ambiguous: bool,
                 papers: int, introduced: int, confidence: float, years: Mapping[int, int],
                 curated: bool = False) -> dict:
    """An entity node's properties; `years` counts its papers by year (papers without one aside).
    Those counts go on the node (`years`, `papers_per_year`, parallel lists: Neo4j keeps no maps)
    so that `trending` reads an entity's growth from it, not from every mention of the window."""
    ordered = sorted(aliases)
    props: dict[str, object] = {
        "id": eid,
        "type": label,
        "name": name,
        "aliases": ordered,
        "keys": sorted({compact_key(a) for a in ordered} | {cluster}),
        "paper_count": papers,
        "introduced_count": introduced,
        "confidence": confidence,
    }
    if years:
        props["first_year"], props["last_year"] = min(years), max(years)
        ordered_years = sorted(years)
        props["years"] = ordered_years
        props["papers_per_year"] = [years[y] for y in ordered_years]
    if ambiguous:
        props["ambiguous"] = True
    if curated:                 # a user's correction (graph/curation.py) made or changed it
        props["curated"] = True
    if label == "Model":
        # the key beside the display form: the `family` query matches families the way every name
        # is matched (`llama` finds `LLaMA`), by an index on Neo4j (graph/schema.cypher)
        family = model_family(name)
        props["family"], props["family_key"] = family, compact_key(family)
    return props


def build_graph(corpus: Corpus, rules: Rules | None = None) -> KnowledgeGraph:
    """Derive the whole graph from the corpus and the user's corrections (`rules`); the same corpus
    and corrections always give the same graph."""
    graph = KnowledgeGraph()
    collection_papers: dict[str, int] = defaultdict(int)
    years: dict[str, int | None] = {}
    for entry in corpus:
        paper = paper_node(entry)
        years[entry.id] = paper_year(entry)
        graph.add_node(paper)
        for name in entry.collections:
            cid = collection_id(name)
            collection_papers[name] += 1
            graph.add_edge(Edge("IN_COLLECTION", paper.key, node_key("Collection", cid)))
    for name, count in collection_papers.items():
        cid = collection_id(name)
        graph.add_node(Node("Collection", cid, {"id": cid, "name": name, "paper_count": count}))

    extracted = [(e.id, e.extraction) for e in corpus if e.extraction is not None]
    res = resolve(extracted, rules)
    nested = nested_mentions(extracted, res)
    ids = {c: entity_id(res.label[c], res.canonical[c]) for c in res.label}
    papers_of: dict[str, set[str]] = defaultdict(set)
    introduced_by: dict[str, set[str]] = defaultdict(set)
    best: dict[str, float] = defaultdict(float)
    relation_support: dict[tuple[str, str, str], dict[str, tuple[str, float]]] = defaultdict(dict)

    for pid, ex in extracted:
        pkey = node_key("Paper", pid)
        per_entity: dict[str, list[Mention]] = defaultdict(list)
        for m in ex.mentions:
            cluster = res.cluster_of.get((pid, m.text))
            if cluster is None:
                continue
            per_entity[cluster].append(m)
        for cluster, m in nested.get(pid, ()):
            per_entity[cluster].append(m)
        for cluster, mentions in sorted(per_entity.items()):
            eid = ids[cluster]
            mentions.sort(key=lambda m: m.start)
            papers_of[cluster].add(pid)
            props, introduces = mention_props(mentions, years[pid])
            best[cluster] = max(best[cluster], props["confidence"])  # type: ignore[type-var]
            graph.add_edge(Edge("MENTIONS", pkey, eid, props))
            if introduces is not None:
                introduced_by[cluster].add(pid)
                graph.add_edge(Edge("INTRODUCES", pkey, eid, introduces))
        for rel in ex.relations:
            if rel.type not in RELATION_TYPES:
                continue
            head = res.cluster_of.get((pid, rel.head))
            tail = res.cluster_of.get((pid, rel.tail))
            if head is None or tail is None or head == tail:
                continue
            support = relation_support[(head, rel.type, tail)]
            if pid not in support:
                evidence = ex.sentence_text(rel.sentence) if rel.sentence < len(ex.sentences) else ""
                support[pid] = (evidence, rel.confidence)
            else:
                support[pid] = (support[pid][0], max(support[pid][1], rel.confidence))

    for cluster, eid in ids.items():
        if not papers_of[cluster]:
            continue
        paper_years = Counter(y for y in (years[p] for p in papers_of[cluster]) if y is not None)
        graph.add_node(Node(res.label[cluster], eid, entity_props(
            eid, res.label[cluster], res.name[cluster], res.aliases[cluster], base_key(cluster),
            ambiguous=cluster in res.ambiguous, papers=len(papers_of[cluster]),
            introduced=len(introduced_by[cluster]), confidence=best[cluster], years=paper_years,
            curated=cluster in res.curated)))

    for pid, ex in extracted:
        nodes, edges = result_rows(pid, years[pid], ex, lambda s, pid=pid: res.cluster_of.get((pid, s)), ids)
        for node in nodes:
            graph.add_node(node)
        for edge in edges:
            graph.add_edge(edge)

    for (head, rtype, tail), support in sorted(relation_support.items()):
        graph.add_edge(Edge(rtype, ids[head], ids[tail], relation_props(
            [(pid, ev, conf, years[pid]) for pid, (ev, conf) in support.items()])))
    return graph
