"""Neo4j load throughput: a full save by `Neo4jStore` (what `build --neo4j` does into a new database),
Neo4j's own bulk importer on the files of `paperkg export neo4j-import`, and the cost of a small
change (a delta) into a big database against the same change into an empty one.

Why these three: a first load of a big graph is where online writes are slowest (issue 11.4: at
least 50,000 relationships/s for the 100k synthetic build), the offline importer is the ceiling
to compare with, and a daily build adds a few hundred abstracts to a big database, which must cost
what adding them to an empty one costs (issue 10.7).

The graph comes from one of:

    --synth N     N synthetic abstracts (benchmarks/synth.py), extracted (rules mode) and built
                  like `paperkg build` (default: 10,000)
    --store PATH  an existing embedded store
    --pickle FILE a pickled KnowledgeGraph (a cache of one of the above, written with --save-pickle)
    --hand N      a hand-made graph of N papers (no extraction: fastest to prepare)

Phases, in order (the target database is WIPED: refused unless it is empty or --wipe is given):

1. full save into the empty database (CREATE, `--workers` sessions, `--batch-size` rows a
   transaction): nodes/s, relationships/s of the relationship phase, the figures, end to end;
2. the same save again (the database now holds it: MERGE and stale check);
3. one MERGE per relationship in its own transaction, on a sample (`--sample`), extrapolated;
4. `--delta K`: the last K papers as a change: applied to the database holding the rest (about N)
   and, as a first change, to an empty database; seconds for each and their ratio (after one
   untimed change into an empty database, so both run with the statements already planned);
5. `--import`: `write_import_dir` and `tests/neo4j/server import` on a second engine (`--import-port`),
   the importer's own time from the engine's log; relationships/s and the ratio online / import.

    python benchmarks/neo4j_load.py --uri bolt://127.0.0.1:7687 --synth 100000 --wipe --delta 100 --import
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import neo4j

from paperkg.api.cli import exit_code
from paperkg.graph.errors import PaperkgError
from paperkg.graph.model import ENTITY_LABELS, Edge, KnowledgeGraph, Node, node_key
from paperkg.graph.neo4j_cypher import render
from paperkg.graph.neo4j_rows import Part
from paperkg.graph.neo4j_store import DEFAULT_BATCH_SIZE, DEFAULT_WORKERS, Neo4jStore
from paperkg.graph.store import GraphDelta

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def synthetic_graph(n: int, mode: str, seed: int = 0) -> tuple[KnowledgeGraph, str]:
    """N synthetic abstracts through the build pipeline (read, extract, resolve, build) into a temporary
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
        graph = store.export()
        store.close()
    return graph, f"{n:,} synthetic abstracts ({mode} extraction + build: {took:.0f} s)"


def hand_graph(papers: int, seed: int = 0) -> tuple[KnowledgeGraph, str]:
    """Papers, entities (about one per 3 papers) and edges with the model's property shapes: 5 MENTIONS
    and 1 INTRODUCES per paper, relations between entities."""
    rng = random.Random(seed)
    g = KnowledgeGraph()
    entities: list[Node] = []
    for i in range(max(6, papers // 3)):
        label = ENTITY_LABELS[i % len(ENTITY_LABELS)]
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
    return g, f"hand-made graph of {papers:,} papers"


def engine_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) the engine process `pid` has used so far (0 without a pid)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TimedStore(Neo4jStore):
    """Neo4jStore that notes when the node and relationship phases of a full save start and end, with
    the CPU time of this process (all its threads) and of the engine (`engine_pid`) at each mark."""

    def __init__(self, *args: Any, engine_pid: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.engine_pid = engine_pid
        self.marks: dict[str, float] = {}
        self.cpu: dict[str, tuple[float, float]] = {}

    def _concurrently(self, parts: list[Part], found: dict | None = None) -> None:
        phase = "nodes" if found is not None else "relationships"
        self.marks[phase] = time.perf_counter()
        self.cpu[phase] = (time.process_time(), engine_cpu(self.engine_pid))
        super()._concurrently(parts, found)
        self.marks[f"{phase}_end"] = time.perf_counter()
        self.cpu[f"{phase}_end"] = (time.process_time(), engine_cpu(self.engine_pid))


WIPE_RELATIONSHIPS = "MATCH ()-[r]->() WITH r LIMIT 10000 DELETE r RETURN count(*) AS c"
WIPE_NODES = "MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c"


def wipe(driver: neo4j.Driver, database: str | None, nodes: bool = True) -> None:
    """Delete in batches until nothing is left (relationships first: a popular entity's DETACH
    DELETE would hold 15k relationships, and the engine caps each transaction's memory)."""
    for statement in (WIPE_RELATIONSHIPS, WIPE_NODES) if nodes else (WIPE_RELATIONSHIPS,):
        while True:
            records = driver.execute_query(statement, database_=database).records
            if not records or records[0]["c"] == 0:
                break


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


def split_last(graph: KnowledgeGraph, k: int) -> tuple[KnowledgeGraph, GraphDelta, GraphDelta]:
    """(the graph without its last `k` papers, the change adding them back, the same papers' own
    subgraph as a first change into an empty database). The change carries the papers, their edges
    and, whole, every entity and collection they touch (a build re-sends those: their counts change)."""
    papers = sorted(key for key, node in graph.nodes.items() if node.label == "Paper")[-k:]
    new = set(papers)
    edges = [e for e in graph.edges.values() if e.source in new]
    touched = {e.target for e in edges}
    kept_edges = {i: e for i, e in graph.edges.items() if e.source not in new}
    used = {e.source for e in kept_edges.values()} | {e.target for e in kept_edges.values()}
    base = KnowledgeGraph({key: n for key, n in graph.nodes.items()
                           if key not in new and (graph.nodes[key].label == "Paper" or key in used)},
                          kept_edges)
    nodes = [graph.nodes[key] for key in sorted(new | touched)]
    # relations between touched entities that the base lacks come with the change too
    relations = [e for i, e in graph.edges.items() if i not in kept_edges and e.source not in new]
    change = GraphDelta(nodes=nodes, edges=edges + relations, generation="plus", base="base")
    alone = GraphDelta(nodes=nodes, edges=edges, generation="alone", base=None)
    return base, change, alone


def import_path(graph: KnowledgeGraph, port: int) -> tuple[float, float]:
    """(seconds writing the import files, seconds of Neo4j's importer) on a second test engine."""
    from paperkg.graph.neo4j_import import write_import_dir

    with tempfile.TemporaryDirectory(prefix="paperkg-import-") as tmp:
        out, run_dir = Path(tmp) / "import", Path(tmp) / "run"
        started = time.perf_counter()
        write_import_dir(graph, out, generation="imported")
        written = time.perf_counter() - started
        env = {**os.environ, "NEO4J_PORT": str(port), "NEO4J_RUN_DIR": str(run_dir)}
        server = ROOT / "tests" / "neo4j" / "server"
        try:
            proc = subprocess.run(["bash", str(server), "import", str(out)], env=env, capture_output=True,
                                  text=True, timeout=3600, check=False)
            log = (run_dir / "neo4j.log").read_text(encoding="utf-8", errors="replace")
            if proc.returncode != 0:
                raise RuntimeError(f"import failed: {proc.stderr[-2000:]}")
            took = re.search(r"^IMPORTED in (\d+) ms$", log, re.M)
            if took is None:
                raise RuntimeError("the engine's log has no IMPORTED line")
            return written, int(took.group(1)) / 1000
        finally:
            subprocess.run(["bash", str(server), "stop"], env=env, capture_output=True, timeout=120,
                           check=False)


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
    source.add_argument("--pickle", type=Path, metavar="FILE", help="a pickled KnowledgeGraph")
    source.add_argument("--hand", type=int, metavar="N", help="a hand-made graph of N papers")
    parser.add_argument("--save-pickle", type=Path, metavar="FILE", help="keep the graph for later runs")
    parser.add_argument("--mode", default="rules", help="extraction mode for --synth (default rules)")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    parser.add_argument("--sample", type=int, default=1000, help="per-row sample (0: skip)")
    parser.add_argument("--delta", type=int, default=0, metavar="K", help="time a change of K papers")
    parser.add_argument("--import", dest="import_", action="store_true", help="time the bulk importer")
    parser.add_argument("--import-port", type=int, default=int(os.environ.get("NEO4J_IMPORT_PORT", 7714)))
    parser.add_argument("--wipe", action="store_true", help="allow wiping a non-empty database")
    parser.add_argument("--engine-pid", type=int, metavar="PID",
                        help="the engine's process (local), to report its CPU per relationship")
    args = parser.parse_args(argv)

    if args.store:
        from paperkg.graph.embedded import EmbeddedStore

        graph, what = EmbeddedStore(args.store).export(), f"embedded store {args.store}"
    elif args.pickle:
        with open(args.pickle, "rb") as fh:
            graph, what = pickle.load(fh), f"graph {args.pickle}"
    elif args.hand:
        graph, what = hand_graph(args.hand)
    else:
        graph, what = synthetic_graph(args.synth or 10_000, args.mode)
    if args.save_pickle:
        with open(args.save_pickle, "wb") as fh:
            pickle.dump(graph, fh, protocol=pickle.HIGHEST_PROTOCOL)
    rels, nodes = len(graph.edges), len(graph.nodes)
    print(f"graph: {what}: {nodes:,} nodes, {rels:,} relationships")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")

    store = TimedStore(args.uri, args.user, args.password, args.database, batch_size=args.batch_size,
                       workers=args.workers, engine_pid=args.engine_pid)
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
        store.save_graph(graph, generation="full")
        total = time.perf_counter() - started
        marks = store.marks
        prep_s = marks["nodes"] - started
        node_s = marks["nodes_end"] - marks["nodes"]
        rel_s = marks["relationships_end"] - marks["relationships"]
        online = rels / rel_s
        print(f"full save into the empty database ({args.batch_size:,} rows a transaction, "
              f"{args.workers} session(s)):")
        print(f"  rows, lease, schema {prep_s:7.2f} s (the delta checked and turned into parameter rows)")
        print(f"  nodes          {nodes:>10,} in {node_s:7.2f} s = {nodes / node_s:>10,.0f} nodes/s")
        print(f"  relationships  {rels:>10,} in {rel_s:7.2f} s = {online:>10,.0f} relationships/s "
              f"(from {marks['nodes_end'] - started:.2f} s: "
              f"{marks['relationships'] - marks['nodes_end']:.2f} s grouping the rows)")
        cpu = store.cpu
        client_us = (cpu["relationships_end"][0] - cpu["relationships"][0]) / rels * 1e6
        line = f"  relationship phase CPU per relationship: client {client_us:.1f} us"
        if args.engine_pid:
            engine_us = (cpu["relationships_end"][1] - cpu["relationships"][1]) / rels * 1e6
            cores = os.cpu_count() or 1
            line += (f", engine {engine_us:.1f} us: on {cores} idle cores at most "
                     f"{cores / (client_us + engine_us) * 1e6:,.0f} relationships/s")
        print(line)
        print(f"  indexes, figures, marker {total - (marks['relationships_end'] - started):7.2f} s")
        print(f"  whole save     {total:7.2f} s = {rels / total:,.0f} relationships/s end to end")

        started = time.perf_counter()
        store.save_graph(graph, generation="full")
        print(f"  the same save again (MERGE, stale check, figures): {time.perf_counter() - started:.2f} s")

        if args.sample:
            edges = sorted(graph.edges.values(), key=lambda e: e.id)
            sample = random.Random(0).sample(edges, min(args.sample, len(edges)))
            wipe(driver, db, nodes=False)
            took = per_row(driver, db, graph, sample)
            rate = len(sample) / took
            print(f"one MERGE per relationship, one transaction each (sample of {len(sample):,}): "
                  f"{rate:,.0f} relationships/s -> {rels:,} would take ~{rels / rate:,.0f} s; "
                  f"the full save is {online / rate:,.0f}x faster")

        if args.delta:
            base, change, alone = split_last(graph, args.delta)
            # Warm-up: the same change into an empty database first, untimed, so that neither timed
            # change pays for the engine planning its statements (the plan cache keeps them).
            wipe(driver, db)
            store.apply(alone)
            wipe(driver, db)
            store.save_graph(base, generation="base")
            started = time.perf_counter()
            store.apply(change)
            big = time.perf_counter() - started
            wipe(driver, db)
            started = time.perf_counter()
            store.apply(alone)
            small = time.perf_counter() - started
            rows = len(change.nodes) + len(change.edges)
            print(f"a change of {args.delta} papers ({rows:,} rows): into the database holding "
                  f"{len(base.nodes):,} nodes {big:.2f} s, into an empty one {small:.2f} s "
                  f"(ratio {big / small:.2f}; load average {os.getloadavg()[0]:.1f})")

        if args.import_:
            written, imported = import_path(graph, args.import_port)
            print(f"bulk import: files written in {written:.2f} s; neo4j-admin database import "
                  f"{imported:.2f} s = {rels / imported:,.0f} relationships/s; online full save "
                  f"{online:,.0f} relationships/s = {online / (rels / imported):.2f}x the importer "
                  f"(end to end {rels / total:,.0f}/s vs {rels / (imported + written):,.0f}/s "
                  "with writing the files)")
        print(f"machine: load average {os.getloadavg()[0]:.1f} at end")
        return 0
    except PaperkgError as err:
        print(f"neo4j_load: {err}", file=sys.stderr)
        return exit_code(err)
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
