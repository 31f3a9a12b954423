"""Corpus -> KnowledgeGraph: papers, collections, resolved entities, mentions and relations."""

from __future__ import annotations

import math
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
    # per relation: supporting paper -> (evidence sentence, the paper's best confidence for it)
    relation_support: dict[tuple[str, str, str], dict[str, tuple[str, float]]] = defaultdict(dict)
    confidence_of: dict[str, float] = defaultdict(float)
    year_of = {e.id: e.first("year") for e in corpus}

    for pid, ex in extracted:
        pkey = node_key("Paper", pid)
        year = year_of.get(pid)
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
            confidences = [round(m.confidence, 4) for m in mentions]
            confidence_of[cluster] = max(confidence_of[cluster], *confidences)
            mention_props: dict[str, object] = {
                "count": len(mentions),
                "sentences": [m.sentence for m in mentions],
                "starts": [m.start for m in mentions],
                "ends": [m.end for m in mentions],
                "surfaces": [m.text for m in mentions],
                "confidences": confidences,
                "confidence": max(confidences),
            }
            if year:
                mention_props["year"] = year
            graph.add_edge(Edge("MENTIONS", pkey, eid, mention_props))
            intro = [m for m in mentions if m.introduced]
            if intro:
                introduced_by[cluster].add(pid)
                intro_props: dict[str, object] = {"sentence": intro[0].sentence}
                if year:
                    intro_props["year"] = year
                graph.add_edge(Edge("INTRODUCES", pkey, eid, intro_props))
        for rel in ex.relations:
            if rel.type not in RELATION_TYPES:
                continue
            head = res.cluster_of.get((pid, rel.head))
            tail = res.cluster_of.get((pid, rel.tail))
            if head is None or tail is None or head == tail:
                continue
            support = relation_support[(ids[head], rel.type, ids[tail])]
            confidence = round(rel.confidence, 4)
            if pid not in support:
                sentence = ex.sentence_text(rel.sentence) if rel.sentence < len(ex.sentences) else ""
                support[pid] = (sentence, confidence)
            elif confidence > support[pid][1]:
                support[pid] = (support[pid][0], confidence)

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
            "confidence": confidence_of[cluster],
        }
        years = [y for y in (year_of.get(p) for p in papers_of[cluster]) if y]
        if years:
            props["first_year"], props["last_year"] = min(years), max(years)
        if cluster in res.ambiguous:
            props["ambiguous"] = True
        if label == "Model":
            props["family"] = model_family(res.name[cluster])
        graph.add_node(Node(label, eid, props))

    for (head, rtype, tail), support in sorted(relation_support.items()):
        papers = sorted(support)
        confidences = [support[p][1] for p in papers]
        relation_props: dict[str, object] = {
            "papers": papers,
            "support": len(papers),
            "evidence": [support[p][0] for p in papers],
            "confidences": confidences,
            # independent supporting papers: the relation holds unless every one of them is wrong
            "confidence": round(1 - math.prod(1 - c for c in confidences), 4),
        }
        years = [y for y in (year_of.get(p) for p in papers) if y]
        if years:
            relation_props["first_year"] = min(years)
        graph.add_edge(Edge(rtype, head, tail, relation_props))
    return graph
