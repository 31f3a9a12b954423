"""Load throughput into Neo4j: batched `UNWIND $rows ... MERGE` (what Neo4jStore.save does) versus one
`MERGE` per relationship in its own transaction (the naive way), in relationships per second.

Why measure both: one transaction per row pays a network round trip, a query-cache lookup and a
commit (a log flush) for every relationship; batching amortises all three over thousands of rows. The
numbers justify the default batch size and tell users what a build into Neo4j costs.

The graph to load comes from one of:

    --synth N     N synthetic abstracts (benchmarks/synth.py), extracted and built like `paperkg build`
                  (default: 10,000 abstracts, rules-only extraction)
    --store PATH  an existing embedded store (`EmbeddedStore(PATH).export()`)
    --hand N      a hand-made graph of N papers (no extraction: fastest to prepare)

The per-row path runs on a sample (`--sample`, default 1,000 relationships) and is extrapolated to
the whole graph; the output says so. The target database is WIPED (all nodes and relationships), so
the script refuses a non-empty database unless `--wipe` is given.

    python benchmarks/neo4j_load.py --uri bolt://127.0.0.1:7687 --synth 10000 [--batch-size 5000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import neo4j

from paperkg.api.cli import exit_code
from paperkg.graph.corpus import Corpus
from paperkg.graph.errors import PaperkgError
from paperkg.graph.model import Edge, KnowledgeGraph, Node, node_key
from paperkg.graph.neo4j_store import DEFAULT_BATCH_SIZE, Neo4jStore, Part, render

HERE = Path(__file__).resolve().parent


def synthetic_graph(n: int, mode: str, seed: int = 0) -> tuple[Corpus, KnowledgeGraph, str]:
    """N synthetic abstracts through the real ingest (read, extract, resolve, build) into a temporary
    embedded store, so the graph has the shape a real `paperkg build` gives."""
    sys.path.insert(0, str(HERE))
    import synth  # benchmarks/synth.py

    from paperkg.api.build import build
    from paperkg.graph.embedded import EmbeddedStore

    with tempfile.TemporaryDirectory(prefix="paperkg-bench-") as tmp:
        corpus_file = Path(tmp) / "corpus.jsonl"
        with open(corpus_file, "w", encoding="utf-8") as out:
            synth.write_jsonl(synth.generate(n, seed=seed), out)
        started = time.perf_counter()
        build([str(corpus_file)], Path(tmp) / "store", lambda problem: None, mode=mode)
        took = time.perf_counter() - started
        store = EmbeddedStore(Path(tmp) / "store")
        corpus, graph = store.state.corpus(), store.export()
        store.close()
    return corpus, graph, f"{n:,} synthetic abstracts ({mode} extraction + build: {took:.0f} s)"


def store_graph(path: Path) -> tuple[Corpus, KnowledgeGraph, str]:
    from paperkg.graph.embedded import EmbeddedStore

    store = EmbeddedStore(path)
    return store.state.corpus(), store.export(), f"embedded store {path}"


def hand_graph(papers: int, seed: int = 0) -> tuple[Corpus, KnowledgeGraph, str]:
    """Papers, entities (about one per 3 papers) and edges with the model's property shapes: 5 MENTIONS
    and 1 INTRODUCES per paper, relations between entities. No corpus entries (load_corpus stays empty)."""
    rng = random.Random(seed)
    g = KnowledgeGraph()
    labels = ("Method", "Model", "Dataset", "Benchmark", "Metric", "Task")
    entities: list[Node] = []
    for i in range(max(6, papers // 3)):
        label = labels[i % len(labels)]
        eid = f"{label.lower()}:e{i}"
        node = Node(label, eid, {"id": eid, "type": label, "name": f"E{i}", "aliases": [f"E{i}"],
                                 "keys": [f"e{i}"], "paper_count": 1, "introduced_count": 0})
        g.add_node(node)
        entities.append(node)
    g.add_node(Node("Collection", "collection:synthetic",
                    {"id": "collection:synthetic", "name": "synthetic", "paper_count": papers}))
    for p in range(papers):
        pid = f"s{p:07d}"
        g.add_node(Node("Paper", pid, {"id": pid, "abstract": f"Synthetic abstract {p}. " * 8, "ids": [pid]}))
        pkey = node_key("Paper", pid)
        g.add_edge(Edge("IN_COLLECTION", pkey, "collection:synthetic"))
        for k, ent in enumerate(rng.sample(entities, 5)):
            g.add_edge(Edge("MENTIONS", pkey, ent.key, {"count": 1, "sentences": [k], "starts": [0],
                                                        "ends": [3], "surfaces": [ent.props["name"]]}))
            if k == 0:
                g.add_edge(Edge("INTRODUCES", pkey, ent.key, {"sentence": "We propose E."}))
    for _ in range(papers):
        head, tail = rng.sample(entities, 2)
        g.add_edge(Edge(rng.choice(("USES", "COMPARED_WITH", "EVALUATED_ON")), head.key, tail.key,
                        {"papers": ["s0000000"], "support": 1, "evidence": ["E uses F."]}))
    return Corpus(), g, f"hand-made graph of {papers:,} papers"


class TimedStore(Neo4jStore):
    """Neo4jStore that adds up the time spent in node and in relationship batches."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spent = {"nodes": 0.0, "relationships": 0.0}

    def _write_batch(self, session: neo4j.Session, parts: list[Part]) -> None:
        started = time.perf_counter()
        super()._write_batch(session, parts)
        took = time.perf_counter() - started
        total = sum(len(p.rows) for p in parts) or 1
        for part in parts:  # a transaction can hold the last nodes and the first relationships
            kind = "relationships" if part.what.endswith("relationships") else "nodes"
            self.spent[kind] += took * len(part.rows) / total


WIPE_NODES = "MATCH (n) WITH n LIMIT 20000 DETACH DELETE n RETURN count(*) AS c"


def wipe(driver: neo4j.Driver, database: str | None, statement: str = WIPE_NODES) -> None:
    """Delete in batches until nothing is left (one huge DETACH DELETE holds it all in memory)."""
    while True:
        records = driver.execute_query(statement, database_=database).records
        if not records or records[0]["c"] == 0:
            return


def per_row(driver: neo4j.Driver, database: str | None, graph: KnowledgeGraph, sample: list[Edge]
            ) -> float:
    """Seconds to MERGE the sample one relationship per transaction (auto-commit `execute_query`)."""
    started = time.perf_counter()
    for edge in sample:
        source, target = graph.nodes[edge.source], graph.nodes[edge.target]
        text = render("merge_one_edge", type=edge.type, source_label=source.label,
                      target_label=target.label)
        driver.execute_query(text, {"source": source.id, "target": target.id, "props": edge.props},
                             database_=database)
    return time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", default=os.environ.get("NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--user", default=os.environ.get("PAPERKG_NEO4J_USER"))
    parser.add_argument("--password", default=os.environ.get("PAPERKG_NEO4J_PASSWORD"))
    parser.add_argument("--database", default=os.environ.get("PAPERKG_NEO4J_DATABASE"))
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--synth", type=int, metavar="N", help="N synthetic abstracts (default 10000)")
    source.add_argument("--store", type=Path, metavar="PATH", help="an embedded store to load")
    source.add_argument("--hand", type=int, metavar="N", help="a hand-made graph of N papers")
    parser.add_argument("--mode", default="rules", help="extraction mode for --synth (default rules)")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--sample", type=int, default=1000, help="relationships for the per-row path")
    parser.add_argument("--wipe", action="store_true", help="allow wiping a non-empty database")
    args = parser.parse_args(argv)

    if args.store:
        corpus, graph, what = store_graph(args.store)
    elif args.hand:
        corpus, graph, what = hand_graph(args.hand)
    else:
        corpus, graph, what = synthetic_graph(args.synth or 10_000, args.mode)
    rels, nodes = len(graph.edges), len(graph.nodes)
    print(f"graph: {what}: {nodes:,} nodes, {rels:,} relationships")

    store = TimedStore(args.uri, args.user, args.password, args.database, batch_size=args.batch_size)
    try:
        store.stats()  # connects, resolves the database; one clear line if the server is not there
        driver = store._connect()
        db = store.database
        existing = driver.execute_query("MATCH (n) RETURN count(n) AS c", database_=db).records[0]["c"]
        if existing and not args.wipe:
            print(f"refusing: database {db!r} at {args.uri} holds {existing:,} nodes; "
                  "pass --wipe to delete them", file=sys.stderr)
            return 2
        wipe(driver, db)
        store.ensure_schema()

        started = time.perf_counter()
        store.save(corpus, graph)
        total = time.perf_counter() - started
        spent = store.spent
        print(f"batched (UNWIND, {args.batch_size:,} rows per transaction):")
        print(f"  nodes          {nodes:>10,} in {spent['nodes']:7.2f} s = "
              f"{nodes / max(spent['nodes'], 1e-9):>10,.0f} nodes/s")
        print(f"  relationships  {rels:>10,} in {spent['relationships']:7.2f} s = "
              f"{rels / max(spent['relationships'], 1e-9):>10,.0f} relationships/s")
        print(f"  whole save     {total:7.2f} s (schema, nodes, relationships, stale check) = "
              f"{rels / total:,.0f} relationships/s end to end")

        started = time.perf_counter()
        store.save(corpus, graph)
        print(f"  re-save of the unchanged graph: {time.perf_counter() - started:.2f} s")

        # Per row: remove the relationships, keep the nodes, MERGE a sample one per transaction.
        edges = sorted(graph.edges.values(), key=lambda e: e.id)
        sample = random.Random(0).sample(edges, min(args.sample, len(edges)))
        wipe(driver, db, "MATCH ()-[r]->() WITH r LIMIT 20000 DELETE r RETURN count(*) AS c")
        took = per_row(driver, db, graph, sample)
        rate = len(sample) / took
        print(f"one MERGE per relationship, one transaction each (sample of {len(sample):,}, "
              "extrapolated):")
        print(f"  relationships  {len(sample):>10,} in {took:7.2f} s = {rate:>10,.0f} relationships/s"
              f"  -> {rels:,} would take ~{rels / rate:,.0f} s")
        batched = rels / max(spent["relationships"], 1e-9)
        print(f"batched is {batched / rate:,.0f}x faster for relationships")
        store.save(corpus, graph)  # leave the full graph behind, exactly
        return 0
    except PaperkgError as err:
        print(f"neo4j_load: {err}", file=sys.stderr)
        return exit_code(err)
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
