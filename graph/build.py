"""Corpus -> KnowledgeGraph: papers, collections, resolved entities, mentions and relations."""

from __future__ import annotations

from collections import defaultdict

from paperkg.graph.corpus import Corpus, PaperEntry
from paperkg.graph.model import (
    RELATION_TYPES,
    Edge,
    KnowledgeGraph,
    Node,
    collection_id,
    entity_id,
    node_key,
)
from paperkg.graph.normalize import compact_key
from paperkg.graph.resolve import model_family, nested_mentions, resolve


def _paper_node(entry: PaperEntry) -> Node:
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


def build_graph(corpus: Corpus) -> KnowledgeGraph:
    """Derive the whole graph from the corpus; the same corpus always gives the same graph."""
    graph = KnowledgeGraph()
    collection_papers: dict[str, int] = defaultdict(int)
    for entry in corpus:
        paper = _paper_node(entry)
        graph.add_node(paper)
        for name in entry.collections:
            cid = collection_id(name)
            collection_papers[name] += 1
            graph.add_edge(Edge("IN_COLLECTION", paper.key, node_key("Collection", cid)))
    for name, count in collection_papers.items():
        cid = collection_id(name)
        graph.add_node(Node("Collection", cid, {"id": cid, "name": name, "paper_count": count}))

    extracted = [(e.id, e.extraction) for e in corpus if e.extraction is not None]
    res = resolve(extracted)
    nested = nested_mentions(extracted, res)
    ids = {c: entity_id(res.label[c], res.canonical[c]) for c in res.label}
    papers_of: dict[str, set[str]] = defaultdict(set)
    introduced_by: dict[str, set[str]] = defaultdict(set)
    relation_support: dict[tuple[str, str, str], dict[str, str]] = defaultdict(dict)

    for pid, ex in extracted:
        pkey = node_key("Paper", pid)
        per_entity: dict[str, list] = defaultdict(list)
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
            graph.add_edge(Edge("MENTIONS", pkey, eid, {
                "count": len(mentions),
                "sentences": [m.sentence for m in mentions],
                "starts": [m.start for m in mentions],
                "ends": [m.end for m in mentions],
                "surfaces": [m.text for m in mentions],
            }))
            intro = [m for m in mentions if m.introduced]
            if intro:
                introduced_by[cluster].add(pid)
                graph.add_edge(Edge("INTRODUCES", pkey, eid, {"sentence": intro[0].sentence}))
        for rel in ex.relations:
            if rel.type not in RELATION_TYPES:
                continue
            head = res.cluster_of.get((pid, rel.head))
            tail = res.cluster_of.get((pid, rel.tail))
            if head is None or tail is None or head == tail:
                continue
            support = relation_support[(ids[head], rel.type, ids[tail])]
            if pid not in support:
                support[pid] = ex.sentence_text(rel.sentence) if rel.sentence < len(ex.sentences) else ""

    for cluster, eid in ids.items():
        if not papers_of[cluster]:
            continue
        label = res.label[cluster]
        aliases = sorted(res.aliases[cluster])
        props: dict[str, object] = {
            "id": eid,
            "type": label,
            "name": res.name[cluster],
            "aliases": aliases,
            "keys": sorted({compact_key(a) for a in aliases} | {cluster}),
            "paper_count": len(papers_of[cluster]),
            "introduced_count": len(introduced_by[cluster]),
        }
        if cluster in res.ambiguous:
            props["ambiguous"] = True
        if label == "Model":
            props["family"] = model_family(res.name[cluster])
        graph.add_node(Node(label, eid, props))

    for (head, rtype, tail), support in sorted(relation_support.items()):
        papers = sorted(support)
        graph.add_edge(Edge(rtype, head, tail, {
            "papers": papers,
            "support": len(papers),
            "evidence": [support[p] for p in papers],
        }))
    return graph
