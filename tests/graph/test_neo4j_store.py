"""Neo4jStore and the read-only guard against the real Neo4j engine (never a mock).

The engine comes from the session fixture `neo4j_uri` (tests/conftest.py: `NEO4J_URI`, or the suite
starts tests/neo4j/server). Community edition has one user database, so every test starts from an
empty `neo4j` database (`MATCH (n) DETACH DELETE n`) instead of a database of its own.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest
from neo4j import GraphDatabase

from paperkg.graph import cypher_guard
from paperkg.graph.corpus import Corpus
from paperkg.graph.errors import (
    BadInputError,
    GraphIncompleteError,
    QueryRefusedError,
    QueryTimeoutError,
    StoreUnavailableError,
    UsageError,
)
from paperkg.graph.graphml import write_graphml
from paperkg.graph.model import (
    EDGE_TYPES,
    ENTITY_LABELS,
    NODE_LABELS,
    Edge,
    KnowledgeGraph,
    Node,
    node_key,
    result_id,
)
from paperkg.graph.neo4j_cypher import (
    FULLTEXT_LISTS,
    MAX_TERM_BYTES,
    render,
    schema_index_names,
    schema_statements,
)
from paperkg.graph.neo4j_store import Neo4jStore
from paperkg.graph.records import Extraction, Mention, PaperInput, RelationMention
from paperkg.graph.store import GraphDelta, GraphStore, empty_stats, graph_stats

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]


# ---- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def driver(neo4j_uri: str) -> Iterator[neo4j.Driver]:
    with GraphDatabase.driver(neo4j_uri, notifications_min_severity="OFF") as drv:
        yield drv


@pytest.fixture
def clean(driver: neo4j.Driver) -> None:
    """An empty database (constraints stay: they are part of what save sets up anyway)."""
    driver.execute_query("MATCH (n) DETACH DELETE n")


@pytest.fixture
def store(neo4j_uri: str, clean: None) -> Iterator[Neo4jStore]:
    with Neo4jStore(neo4j_uri, batch_size=3) as st:  # small batches: every path sees several
        yield st


# ---- a small hand-built graph -----------------------------------------------------------------


def make_corpus(paper_ids: list[str]) -> Corpus:
    corpus = Corpus()
    for i, pid in enumerate(paper_ids):
        abstract = f"We propose Group Relative Policy Optimization (GRPO) number {i}. It uses PPO."
        corpus.add(PaperInput(pid, abstract, "test.jsonl", i + 1, collection="RL", title=f"Paper {i}",
                              year=2020 + i, authors=("A. Author", "B. Écrivain")))
    first = next(iter(corpus))
    first.extraction = Extraction(
        paper_id=first.id, text=first.abstract, sentences=[(0, 57), (58, 71)],
        mentions=[Mention("Group Relative Policy Optimization", "Method", 11, 45, 0, True),
                  Mention("GRPO", "Method", 47, 51, 0, True), Mention("PPO", "Method", 67, 70, 1)],
        aliases=[("Group Relative Policy Optimization", "GRPO")],
        relations=[RelationMention("GRPO", "USES", "PPO", 1)])
    return corpus


def make_graph(variant: int = 0) -> tuple[Corpus, KnowledgeGraph]:
    """Every label and edge type, list/int/float/bool/unicode properties, relations between different
    entity labels. `variant` 1 changes, adds and removes nodes, edges and properties."""
    papers = ["p1", "p2", "p3"] if variant == 0 else ["p1", "p3", "p4"]
    corpus = make_corpus(papers)
    g = KnowledgeGraph()
    for entry in corpus:
        props: dict[str, Any] = {"id": entry.id, "abstract": entry.abstract, "ids": entry.ids,
                                 "title": entry.first("title"), "year": entry.first("year"),
                                 "authors": list(entry.first("authors"))}  # type: ignore[arg-type]
        g.add_node(Node("Paper", entry.id, props))
    g.add_node(Node("Collection", "collection:rl", {"id": "collection:rl", "name": "RL", "paper_count": 3}))
    entities = {
        "Method": ["method:grpo", "method:ppo"],
        "Model": ["model:qwen3-8b"],
        "Dataset": ["dataset:gsm8k"],
        "Benchmark": ["benchmark:math500"],
        "Metric": ["metric:accuracy"],
        "Task": ["task:math-reasoning"],
    }
    if variant == 1:
        entities["Method"] = ["method:grpo", "method:dpo"]  # ppo gone, dpo new
    for label, ids in entities.items():
        for eid in ids:
            props = {"id": eid, "type": label, "name": eid.split(":")[1].upper(),
                     "aliases": [eid.split(":")[1], f"{eid.split(':')[1]}–ü"], "keys": [eid.split(":")[1]],
                     "paper_count": 2, "introduced_count": 1 if variant == 0 else 0, "score": 0.5}
            if label == "Model":
                props["family"] = "Qwen3"
            if eid == "method:grpo" and variant == 0:
                props["ambiguous"] = True  # dropped in variant 1: SET must remove it
            g.add_node(Node(label, eid, props))
    for pid in papers:
        pkey = node_key("Paper", pid)
        g.add_edge(Edge("IN_COLLECTION", pkey, "collection:rl"))
        g.add_edge(Edge("MENTIONS", pkey, "method:grpo", {
            "count": 2, "sentences": [0, 1], "starts": [11, 47], "ends": [45, 51],
            "surfaces": ["Group Relative Policy Optimization", "GRPO"]}))
    g.add_edge(Edge("INTRODUCES", node_key("Paper", papers[0]), "method:grpo", {"sentence": "We propose."}))
    relations = [("EVALUATED_ON", "model:qwen3-8b", "benchmark:math500"),
                 ("COMPARED_WITH", "method:grpo", entities["Method"][1]),
                 ("USES", "method:grpo", entities["Method"][1]),
                 ("ADDRESSES", "method:grpo", "task:math-reasoning"),
                 ("MEASURED_BY", "task:math-reasoning", "metric:accuracy"),
                 ("EVALUATED_ON", "model:qwen3-8b", "dataset:gsm8k")]
    if variant == 1:
        relations.remove(("EVALUATED_ON", "model:qwen3-8b", "dataset:gsm8k"))
    for rtype, head, tail in relations:
        support = papers[:2] if variant == 0 else papers[:3]
        g.add_edge(Edge(rtype, head, tail, {"papers": support, "support": len(support),
                                            "evidence": [f"sentence {p}" for p in support]}))
    # a result of the first paper with every link (its value changes in variant 1, its baseline too)
    rid = result_id(papers[0], 60)
    g.add_node(Node("Result", rid, {"id": rid, "paper": papers[0], "value": "45.2\\%", "display": "45.2%",
                                    "number": 45.2 + variant, "kind": "absolute", "unit": "%",
                                    "confidence": 0.75, "direction": "higher",
                                    "evidence": "It reaches 45.2%."}))
    g.add_edge(Edge("REPORTS", node_key("Paper", papers[0]), rid))
    for etype, target in (("ACHIEVED_BY", "method:grpo"), ("ON_BENCHMARK", "benchmark:math500"),
                          ("IN_METRIC", "metric:accuracy"), ("AGAINST", entities["Method"][1])):
        g.add_edge(Edge(etype, rid, target))
    return corpus, g


def counts(driver: neo4j.Driver) -> tuple[int, int]:
    """Nodes and relationships of the graph (the store's internal nodes, unconnected, not counted)."""
    records = driver.execute_query(
        "MATCH (n) WHERE NOT n:PaperkgMeta AND NOT n:PaperkgFigures AND NOT n:PaperkgCo "
        "WITH count(n) AS nodes "
        "MATCH ()-[r]->() RETURN nodes, count(r) AS rels").records
    return (records[0]["nodes"], records[0]["rels"]) if records else (0, 0)


def duplicates(driver: neo4j.Driver) -> int:
    node_dups = driver.execute_query(
        "MATCH (n) WITH labels(n) AS l, [coalesce(n.id, n.of), n.other] AS id, count(*) AS c WHERE c > 1 "
        "RETURN count(*) AS d"
    ).records[0]["d"]
    rel_dups = driver.execute_query(
        "MATCH (a)-[r]->(b) WITH a, b, type(r) AS t, count(*) AS c WHERE c > 1 RETURN count(*) AS d"
    ).records[0]["d"]
    return node_dups + rel_dups


def assert_stored(store: Neo4jStore, graph: KnowledgeGraph) -> None:
    assert store.stats() == graph_stats(graph)
    exported = store.export()
    assert exported.nodes == graph.nodes
    assert exported.edges == graph.edges


INTERNAL = ("PaperkgMeta", "PaperkgFigures", "PaperkgCo")


def assert_domain_only(driver: neo4j.Driver) -> None:
    """What a Neo4j user browsing the graph sees: every entity also labelled Entity (its keys joined
    in `keys_text`), Papers with a caption, no store internals on domain nodes, internal nodes
    connected to nothing."""
    records = driver.execute_query(
        "MATCH (n) WHERE NOT n:PaperkgMeta AND NOT n:PaperkgFigures AND NOT n:PaperkgCo "
        "RETURN labels(n) AS labels, properties(n) AS props").records
    for record in records:
        labels, props = set(record["labels"]), record["props"]
        if labels & set(ENTITY_LABELS):
            assert "Entity" in labels, labels
            assert props["keys_text"] == " ".join(props["keys"])
        if "Paper" in labels:
            assert props["caption"] == (props.get("title") or props["id"])
        assert not any(k.startswith("_") or k == "source_json" for k in props), props
    loose = driver.execute_query(
        "MATCH (n)--() WHERE n:PaperkgMeta OR n:PaperkgFigures OR n:PaperkgCo RETURN count(*) AS c").records
    assert loose[0]["c"] == 0


def _stored_figures(driver: neo4j.Driver) -> tuple[list[dict], list[dict]]:
    """Every stored figure: the co-mention entries and the collections' introduction lists."""
    co = driver.execute_query("MATCH (c:PaperkgCo) RETURN properties(c) AS p ORDER BY c.of, c.other").records
    intro = driver.execute_query(
        "MATCH (f:PaperkgFigures) RETURN f.of AS of, properties(f) AS p ORDER BY f.of").records
    return [dict(r) for r in co], [dict(r) for r in intro]


# ---- statements -------------------------------------------------------------------------------


def test_schema_has_a_constraint_for_every_label_and_the_fulltext_indexes() -> None:
    statements = schema_statements()
    assert len(statements) == len(NODE_LABELS) + 3 + 2 + 1 + len(ENTITY_LABELS) + 1 + 1 + 3 + 1
    for label in NODE_LABELS:
        assert any(f"(n:{label})" in s and "REQUIRE n.id IS UNIQUE" in s and "IF NOT EXISTS" in s
                   for s in statements)
    fulltext = [s for s in statements if s.startswith("CREATE FULLTEXT INDEX")]
    assert len(fulltext) == 2 and all("`fulltext.analyzer`: 'keyword'" in s for s in fulltext)
    assert any(f"(n:{'|'.join(ENTITY_LABELS)}) ON EACH [n.keys]" in s for s in fulltext)
    assert any("(n:Paper) ON EACH [n.ids]" in s for s in fulltext)
    assert schema_index_names() == {*(f"paperkg_{label.lower()}_id" for label in NODE_LABELS),
                                    "paperkg_entity_id", "paperkg_meta_id", "paperkg_figures_of",
                                    "paperkg_entity_keys", "paperkg_paper_ids", "paperkg_entity_keys_text",
                                    *(f"paperkg_{label.lower()}_paper_count" for label in ENTITY_LABELS),
                                    "paperkg_entity_paper_count", "paperkg_paper_year", "paperkg_co_pair",
                                    "paperkg_co_rank", "paperkg_co_top", "paperkg_model_family_key"}
    # a delta finds co-mention entries by pair; cooccurring and a cut's size read them by type and count
    assert any("(n:PaperkgCo) ON (n.of, n.other)" in s for s in statements)
    assert any("(n:PaperkgCo) ON (n.of, n.co_type, n.co_papers)" in s for s in statements)
    assert any("(n:PaperkgCo) ON (n.of, n.co_papers)" in s for s in statements)
    for label in ENTITY_LABELS:      # top_entities reads each entity label's paper_count in order
        assert any(s.startswith("CREATE RANGE INDEX") and f"(n:{label}) ON (n.paper_count)" in s
                   for s in statements)
    # trending reads every entity's, of any label, in order
    assert any(s.startswith("CREATE RANGE INDEX") and "(n:Entity) ON (n.paper_count)" in s
               for s in statements)
    # entity_search reads a fragment's entities from the trigram index over their joined keys
    assert ("CREATE TEXT INDEX paperkg_entity_keys_text IF NOT EXISTS FOR (n:Entity) ON (n.keys_text)"
            in statements)
    # the family query seeks a family's models by key
    assert any(s.startswith("CREATE RANGE INDEX") and "(n:Model) ON (n.family_key)" in s for s in statements)
    assert set(FULLTEXT_LISTS) == {*ENTITY_LABELS, "Paper"}


def test_render_only_accepts_the_closed_sets() -> None:
    assert ":Paper {id: row.id}" in render("merge_nodes", label="Paper")
    for bad in ("Person", "Paper) DETACH DELETE (n", "paper"):
        with pytest.raises(ValueError):
            render("merge_nodes", label=bad)
    with pytest.raises(ValueError):
        render("merge_edges", type="KNOWS", source_label="Paper", target_label="Method")
    with pytest.raises(ValueError):
        render("merge_edges", type="USES")  # missing labels


# ---- save / stats / export ------------------------------------------------------------------


def test_is_a_graph_store(store: Neo4jStore) -> None:
    assert isinstance(store, GraphStore)
    assert store.kind == "neo4j"


def test_empty_database(store: Neo4jStore) -> None:
    assert store.stats() == empty_stats()
    assert store.export() == KnowledgeGraph()


def test_save_then_stats_and_export_equal_the_input(store: Neo4jStore, driver: neo4j.Driver) -> None:
    _corpus, graph = make_graph()
    store.save_graph(graph)
    assert_stored(store, graph)
    # every label and type of the closed sets is exercised by the hand-built graph
    assert all(store.stats()["nodes"][label] > 0 for label in NODE_LABELS)
    assert all(store.stats()["edges"][etype] > 0 for etype in EDGE_TYPES)
    # ids are stored unprefixed; the constraints exist
    assert driver.execute_query("MATCH (p:Paper {id: 'p1'}) RETURN count(p) AS c").records[0]["c"] == 1
    constraints = driver.execute_query("SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type").records
    unique = {(r["labelsOrTypes"][0], r["properties"][0]) for r in constraints if "UNIQUE" in r["type"]}
    assert {(label, "id") for label in NODE_LABELS} <= unique


def test_graphml_from_neo4j_equals_graphml_from_the_graph(store: Neo4jStore) -> None:
    _corpus, graph = make_graph()
    store.save_graph(graph)
    ours, theirs = io.BytesIO(), io.BytesIO()
    write_graphml(store.export(), ours)
    write_graphml(graph, theirs)
    assert ours.getvalue() == theirs.getvalue()


def test_save_twice_changes_nothing(store: Neo4jStore, driver: neo4j.Driver) -> None:
    _corpus, graph = make_graph()
    store.save_graph(graph)
    before = (counts(driver), store.export())
    store.save_graph(graph)
    assert (counts(driver), store.export()) == before
    assert duplicates(driver) == 0
    assert_stored(store, graph)


def test_save_changed_graph_removes_stale_nodes_and_relationships(store: Neo4jStore,
                                                                  driver: neo4j.Driver) -> None:
    store.save_graph(make_graph(0)[1])
    _corpus, graph = make_graph(1)
    store.save_graph(graph)
    assert_stored(store, graph)
    assert counts(driver) == (len(graph.nodes), len(graph.edges))
    gone = driver.execute_query(
        "MATCH (n) WHERE n.id IN ['p2', 'method:ppo'] RETURN count(n) AS c").records[0]["c"]
    assert gone == 0
    # a property the new graph no longer has is gone, not left behind
    grpo = store.run_read("MATCH (m:Method {id: 'method:grpo'}) RETURN m")[0]["m"]
    assert "ambiguous" not in grpo
    assert sorted(r["id"] for r in store.run_read("MATCH (p:Paper) RETURN p.id AS id")) == ["p1", "p3", "p4"]


def test_save_removes_duplicates_and_foreign_relationships_of_paperkg_types(
        store: Neo4jStore, driver: neo4j.Driver) -> None:
    _corpus, graph = make_graph()
    store.save_graph(graph)
    # what a crashed concurrent writer or a hand edit could leave behind
    driver.execute_query("MATCH (a:Paper {id: 'p1'}), (b:Collection) CREATE (a)-[:IN_COLLECTION]->(b)")
    driver.execute_query("MATCH (a:Paper {id: 'p1'}), (b:Method {id: 'method:ppo'}) CREATE (a)-[:USES]->(b)")
    driver.execute_query("CREATE (:Method {id: 'method:orphan', name: 'orphan'})")
    driver.execute_query("CREATE (:Task)")  # no id at all
    store.save_graph(graph)
    assert_stored(store, graph)
    assert duplicates(driver) == 0


def test_save_leaves_nodes_outside_the_model_alone(store: Neo4jStore, driver: neo4j.Driver) -> None:
    driver.execute_query("CREATE (:Unrelated {id: 'x'})")
    _corpus, graph = make_graph()
    store.save_graph(graph)
    assert_stored(store, graph)
    assert driver.execute_query("MATCH (n:Unrelated) RETURN count(n) AS c").records[0]["c"] == 1
    driver.execute_query("MATCH (n:Unrelated) DETACH DELETE n")


def test_interrupted_save_then_resave_is_exact(store: Neo4jStore, driver: neo4j.Driver,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store.save_graph(make_graph(0)[1])
    _corpus, graph = make_graph(1)
    real = Neo4jStore._run_parts
    calls = {"n": 0}

    def failing(self: Neo4jStore, *args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] > 4:  # some nodes of the new graph are written, nothing else
            raise KeyboardInterrupt("interrupted mid-save")
        real(self, *args, **kwargs)

    monkeypatch.setattr(Neo4jStore, "_run_parts", failing)
    with pytest.raises(KeyboardInterrupt):
        store.save_graph(graph)
    monkeypatch.setattr(Neo4jStore, "_run_parts", real)
    with pytest.raises(GraphIncompleteError):   # a reader is not handed the half-done graph
        store.export()
    assert counts(driver) != (len(graph.nodes), len(graph.edges))  # really half-done
    assert store.build_status()["state"] == "interrupted" and store.synced_generation() is None
    store.save_graph(graph)
    assert_stored(store, graph)
    assert duplicates(driver) == 0
    assert counts(driver) == (len(graph.nodes), len(graph.edges))


def test_killed_save_then_resave_is_exact(neo4j_uri: str, store: Neo4jStore, driver: neo4j.Driver,
                                          tmp_path: Path) -> None:
    """A build process killed with SIGKILL midway: the next save completes with no duplicates."""
    script = tmp_path / "save.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from tests.graph.test_neo4j_store import big_graph
        from paperkg.graph.neo4j_store import Neo4jStore
        corpus, graph = big_graph()
        print("start", flush=True)
        Neo4jStore({neo4j_uri!r}, batch_size=20, lease_ttl=3.0).save_graph(graph)
        print("done", flush=True)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "start"
        deadline = time.monotonic() + 60
        while counts(driver)[0] < 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(30)
    partial = counts(driver)
    _corpus, graph = big_graph()
    assert partial[0] >= 200
    assert partial != (len(graph.nodes), len(graph.edges))  # killed before the end
    store.save_graph(graph)
    assert_stored(store, graph)
    assert duplicates(driver) == 0


def big_graph(papers: int = 600, methods: int = 150, prefix: str = "b") -> tuple[Corpus, KnowledgeGraph]:
    """A few thousand elements, so a save takes long enough to be killed midway; `prefix` names
    the papers (two prefixes: two different graphs sharing entities)."""
    corpus = Corpus()
    g = KnowledgeGraph()
    for i in range(papers):
        corpus.add(PaperInput(f"{prefix}{i:04d}", f"Synthetic abstract {prefix} number {i}.", "big", i + 1))
    for entry in corpus:
        g.add_node(Node("Paper", entry.id, {"id": entry.id, "abstract": entry.abstract, "ids": entry.ids}))
    for j in range(methods):
        mid = f"method:m{j}"
        g.add_node(Node("Method", mid, {"id": mid, "name": f"M{j}", "paper_count": 1}))
    for i in range(papers):
        for k in range(3):
            g.add_edge(Edge("MENTIONS", node_key("Paper", f"{prefix}{i:04d}"), f"method:m{(i + k) % methods}",
                            {"count": 1}))
    return corpus, g


def test_a_corpus_copy_left_by_an_older_paperkg_goes_with_the_next_save(store: Neo4jStore,
                                                                        driver: neo4j.Driver) -> None:
    """Neo4j holds the graph, not the corpus (issue 10.7, 12.7): an older paperkg kept each paper's
    corpus entry as `source_json` on its Paper node; the next save replaces every node whole."""
    _corpus, graph = make_graph()
    store.save_graph(graph)
    driver.execute_query("MATCH (p:Paper) SET p.source_json = '{}'")
    store.save_graph(graph)
    assert_domain_only(driver)
    left = driver.execute_query("MATCH (p:Paper) WHERE p.source_json IS NOT NULL RETURN count(p) AS c")
    assert left.records[0]["c"] == 0
    assert_stored(store, graph)


def test_save_checks_the_graph_before_touching_the_server() -> None:
    _corpus, graph = make_graph()
    graph.add_node(Node("Person", "x", {"id": "x"}))  # not a paperkg label
    with pytest.raises(ValueError, match="Person"):
        Neo4jStore("bolt://127.0.0.1:1").save_graph(graph)
    _corpus, graph = make_graph()
    graph.edges["KNOWS|paper:p1|paper:p2"] = Edge("KNOWS", "paper:p1", "paper:p2")
    with pytest.raises(ValueError, match="KNOWS"):
        Neo4jStore("bolt://127.0.0.1:1").save_graph(graph)


def test_unstorable_property_is_bad_input(store: Neo4jStore) -> None:
    _corpus, graph = make_graph()
    graph.nodes["method:grpo"].props["nested"] = {"a": 1}  # Neo4j stores no maps
    with pytest.raises(BadInputError, match="Neo4j refused"):
        store.save_graph(graph)


def test_run_read_returns_plain_rows(store: Neo4jStore) -> None:
    _corpus, graph = make_graph()
    store.save_graph(graph)
    rows = store.run_read(
        "MATCH (p:Paper {id: $id})-[r:MENTIONS]->(m) RETURN p.id AS id, r, m, [p, m] AS pair",
        {"id": "p1"})
    assert rows and rows[0]["id"] == "p1"
    assert rows[0]["r"]["count"] == 2 and rows[0]["m"]["id"] == "method:grpo"
    assert isinstance(rows[0]["pair"], list) and rows[0]["pair"][1]["id"] == "method:grpo"
    path = store.run_read("MATCH path = (:Paper {id: 'p1'})-[:INTRODUCES]->() RETURN path")[0]["path"]
    assert [n["id"] for n in path["nodes"]] == ["p1", "method:grpo"]
    assert path["relationships"][0]["sentence"] == "We propose."


def test_run_catalog_gives_run_read_rows_in_order(store: Neo4jStore) -> None:
    """One collected record, rebuilt into the same rows (columns, values, order) as `run_read`."""
    _corpus, graph = make_graph()
    store.save_graph(graph)
    text = ("MATCH (e:Method|Model|Dataset|Benchmark|Metric|Task) "
            "RETURN e.id AS id, e.aliases AS `odd name`, e AS node, [e.id, 1] AS pair, null AS nothing "
            "ORDER BY id DESC")
    rows = store.run_catalog(text)
    assert rows == store.run_read(text) and len(rows) == 7
    assert list(rows[0]) == ["id", "odd name", "node", "pair", "nothing"]
    assert rows[0]["node"]["id"] == rows[0]["id"]
    assert store.run_catalog("MATCH (n:Task {id: 'none'}) RETURN n.id AS id ORDER BY id") == []


# ---- full-text lookups ------------------------------------------------------------------------

LUCENE_KEYS = ["a", "ab", "gpt-4", "gpt4", "c++", "c+", "llama3.1", "$x", "a/b", "a:b", "f(x)", 'say"hi"',
               "back\\slash", "trail\\", "star*", "q?", "~tilde", "x^2", "[br]", "{c}", "!bang", "a&&b",
               "a||b", "and", "or", "not", "AND", "é-ü", "日本語", "a b", "-lead", "+plus", '"', "\\", "*",
               "?", "a*b", "1.5e-3", "x" * 300]


def test_fulltext_index_finds_each_list_element_exactly(store: Neo4jStore, driver: neo4j.Driver) -> None:
    """The engine indexes every element of a LIST<STRING> on its own, and `fulltext_term` finds
    exactly the elements equal to the key, whatever Lucene syntax it holds (no prefix, wildcard,
    boolean or fuzzy match)."""
    from paperkg.queries.params import fulltext_term

    store.ensure_schema()
    driver.execute_query("UNWIND range(0, size($keys) - 1) AS i "
                         "CREATE (:Task {id: 'task:ft' + i, keys: ['first' + i, $keys[i]]})",
                         keys=LUCENE_KEYS)
    lookup = ("CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $q) YIELD node "
              "RETURN node.id AS id ORDER BY id")
    for i, key in enumerate(LUCENE_KEYS):
        found = [r["id"] for r in store.run_read(lookup, {"q": fulltext_term(key)})]
        assert found == sorted(f"task:ft{j}" for j, k in enumerate(LUCENE_KEYS) if k == key), key
        assert [r["id"] for r in store.run_read(lookup, {"q": fulltext_term(f"first{i}")})] == [f"task:ft{i}"]


def test_save_refuses_a_term_the_fulltext_index_cannot_hold(store: Neo4jStore) -> None:
    """Over 32,766 UTF-8 bytes Lucene refuses the term and Neo4j 5.26 then fails the whole database,
    so the save refuses first (before connecting), and the names of one entity together (the TEXT
    index's `keys_text`) likewise; the longest term that fits is stored and found."""
    from paperkg.queries.params import fulltext_term

    _corpus, graph = make_graph()
    graph.nodes["method:grpo"].props["keys"] = ["grpo", "é" * (MAX_TERM_BYTES // 2 + 1)]
    with pytest.raises(BadInputError, match=r"Method 'method:grpo' has a name of 32768 bytes"):
        Neo4jStore("bolt://127.0.0.1:1").save_graph(graph)
    _corpus, graph = make_graph()
    graph.nodes[node_key("Paper", "p1")].props["ids"] = ["p1", "x" * (MAX_TERM_BYTES + 1)]
    with pytest.raises(BadInputError, match="Paper 'p1' has a record id of 32767 bytes"):
        Neo4jStore("bolt://127.0.0.1:1").save_graph(graph)
    _corpus, graph = make_graph()
    graph.nodes["method:grpo"].props["keys"] = ["grpo", "k" * (MAX_TERM_BYTES - 4)]   # joined: one over
    with pytest.raises(BadInputError, match=r"Method 'method:grpo' has names of 32767 bytes together"):
        Neo4jStore("bolt://127.0.0.1:1").save_graph(graph)
    _corpus, graph = make_graph()
    longest = "k" * MAX_TERM_BYTES
    graph.nodes["method:grpo"].props["keys"] = [longest]
    store.save_graph(graph)
    rows = store.run_read("CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $q) YIELD node "
                          "RETURN node.id AS id", {"q": fulltext_term(longest)})
    assert rows == [{"id": "method:grpo"}]


def test_a_database_without_the_indexes_gets_them_on_first_read(neo4j_uri: str, clean: None,
                                                                 driver: neo4j.Driver) -> None:
    """A database saved by an older paperkg has no full-text indexes: the first catalog read creates
    them and waits until they are online, so entity lookups work at once; an index dropped under a
    running store is recreated by the catalog query that misses it."""
    from paperkg.queries.runner import run_named

    _corpus, graph = make_graph()
    with Neo4jStore(neo4j_uri) as st:
        st.save_graph(graph)
    for name in ("paperkg_entity_keys", "paperkg_paper_ids"):
        driver.execute_query(f"DROP INDEX {name} IF EXISTS")
    with Neo4jStore(neo4j_uri) as st:
        assert run_named(st, "entity", {"name": "GRPO"})[0]["id"] == "method:grpo"
        assert run_named(st, "paper", {"id": "p2"})[0]["id"] == "p2"
        states = {r["name"]: r["state"] for r in driver.execute_query(
            "SHOW INDEXES YIELD name, state").records}
        assert all(states.get(name) == "ONLINE" for name in schema_index_names())
        driver.execute_query("DROP INDEX paperkg_entity_keys")   # gone under a running store:
        assert run_named(st, "entity", {"name": "GRPO"})[0]["id"] == "method:grpo"   # recreated


def test_entities_saved_without_keys_text_get_it_on_first_read(neo4j_uri: str, clean: None,
                                                               driver: neo4j.Driver) -> None:
    """A database saved by a paperkg older than the TEXT index: its entities lack `keys_text` and the
    index is missing; the first catalog read creates the index and fills `keys_text` in, so
    entity_search finds them before any rebuild; a save writes it, the export leaves it out."""
    from paperkg.queries.runner import run_named

    _corpus, graph = make_graph()
    with Neo4jStore(neo4j_uri) as st:
        st.save_graph(graph)
        assert st.export() == graph
    stored = {r["id"]: r["text"] for r in driver.execute_query(
        "MATCH (e:Entity) RETURN e.id AS id, e.keys_text AS text").records}
    assert stored == {n.id: " ".join(n.props["keys"]) for n in graph.nodes.values()
                      if n.label in ENTITY_LABELS}
    driver.execute_query("DROP INDEX paperkg_entity_keys_text")
    driver.execute_query("MATCH (e:Entity) REMOVE e.keys_text")
    with Neo4jStore(neo4j_uri) as st:
        assert [r["id"] for r in run_named(st, "entity_search", {"q": "rpo"})] == ["method:grpo"]
    assert driver.execute_query("MATCH (e:Entity) WHERE e.keys_text IS NULL RETURN count(*) AS n"
                                ).records[0]["n"] == 0


def test_a_merged_record_id_is_found_through_the_ids_index(store: Neo4jStore) -> None:
    from paperkg.queries.runner import run_named

    _corpus, graph = make_graph()
    graph.nodes[node_key("Paper", "p2")].props["ids"] = ["p2", "arXiv:2401.0001v2", "doi 10.1/x(y)"]
    store.save_graph(graph)
    for rid in ("arXiv:2401.0001v2", "doi 10.1/x(y)", "p2"):
        assert [r["id"] for r in run_named(store, "paper", {"id": rid})] == ["p2"]
    for rid in ("arXiv:2401.0001", "arxiv:2401.0001v2", "doi", "p"):
        assert run_named(store, "paper", {"id": rid}) == []


# ---- failures ---------------------------------------------------------------------------------


def test_unreachable_server_is_store_unavailable_quickly() -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError) as info:
        Neo4jStore("bolt://127.0.0.1:1").stats()
    assert time.monotonic() - started < 5
    message = str(info.value)
    assert "bolt://127.0.0.1:1" in message and "refused" in message.lower()
    assert "\n" not in message     # StoreUnavailableError: exit 69 / HTTP 503 (tests/api/test_error_maps.py)


@pytest.mark.parametrize("op", ["stats", "export", "save_graph", "run_user_cypher"])
def test_every_operation_maps_an_unreachable_server(op: str) -> None:
    st = Neo4jStore("bolt://127.0.0.1:1")
    calls = {"save_graph": lambda: st.save_graph(make_graph()[1]),
             "run_user_cypher": lambda: st.run_user_cypher("MATCH (n) RETURN n")}
    with pytest.raises(StoreUnavailableError):
        calls.get(op, getattr(st, op))()


def test_bad_uri_is_a_usage_error() -> None:
    for uri in ("localhost:7687", "http://localhost:7474", "bolt//x"):
        with pytest.raises(UsageError):
            Neo4jStore(uri).stats()


def test_missing_database_is_store_unavailable(neo4j_uri: str) -> None:
    with pytest.raises(StoreUnavailableError, match="no database 'nosuchdb'"):
        Neo4jStore(neo4j_uri, database="nosuchdb").stats()


def test_wrong_credentials_are_store_unavailable(neo4j_uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test engine runs without auth, so the server's AuthError is raised at the driver call
    where a real server raises it (connectivity check) to test the mapping."""
    st = Neo4jStore(neo4j_uri, user="neo4j", password="wrong")
    err = neo4j.exceptions.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Security.Unauthorized",
        message="The client is unauthorized due to authentication failure.")
    assert isinstance(err, neo4j.exceptions.AuthError)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise err

    monkeypatch.setattr(neo4j.Driver, "verify_connectivity", refuse)
    with pytest.raises(StoreUnavailableError) as info:
        st.stats()
    assert "credentials" in str(info.value) and "'neo4j'" in str(info.value)
    assert "wrong" not in str(info.value)  # never echo the password
    assert "\n" not in str(info.value)
    with pytest.raises(StoreUnavailableError, match="none were given"):
        Neo4jStore(neo4j_uri).stats()


def test_the_home_database_is_resolved_once(neo4j_uri: str, clean: None) -> None:
    with Neo4jStore(neo4j_uri) as st:
        assert st.database is None
        st.stats()
        assert st.database == "neo4j"


# ---- the read-only guard on the engine ---------------------------------------------------------

REFUSED = [
    "CREATE (n:Paper {id: 'evil'})",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n) SET n.title = 'pwned'",
    "MERGE (n:Method {id: 'method:evil'})",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "CALL dbms.components()",
    "CALL dbms.killQueries([])",
    "USE system SHOW USERS",
    "CREATE USER eve SET PASSWORD 'secret123'",
    "DROP CONSTRAINT paperkg_paper_id",
    "SHOW DATABASES",
    "MATCH (n) CALL { WITH n DETACH DELETE n } RETURN 1",
]


@pytest.mark.parametrize("text", REFUSED)
def test_guard_refuses_and_the_graph_is_unchanged(store: Neo4jStore, driver: neo4j.Driver, text: str) -> None:
    _corpus, graph = make_graph()
    store.save_graph(graph)
    before = (counts(driver), store.export())
    with pytest.raises(QueryRefusedError):
        store.run_user_cypher(text)
    assert (counts(driver), store.export()) == before
    users = driver.execute_query("SHOW USERS YIELD user", database_="system").records
    assert "eve" not in {r["user"] for r in users}


def test_guard_allows_reads(store: Neo4jStore) -> None:
    _corpus, graph = make_graph()
    store.save_graph(graph)
    rows = store.run_user_cypher("MATCH (p:Paper) RETURN p.id AS id ORDER BY id")
    assert [r["id"] for r in rows] == ["p1", "p2", "p3"]
    labels = {r["label"] for r in store.run_user_cypher("CALL db.labels()")}
    assert set(NODE_LABELS) <= labels
    assert store.run_user_cypher("CALL db.relationshipTypes() YIELD relationshipType RETURN count(*) AS c")
    rows = store.run_user_cypher("MATCH (m:Method) WHERE m.id = $id RETURN m.name AS name",
                                 {"id": "method:grpo"})
    assert rows == [{"name": "GRPO"}]
    rows = store.run_user_cypher("MATCH (p:Paper) WHERE p.title CONTAINS 'LOAD CSV' RETURN p")
    assert rows == []


def test_explain_layer_refuses_writes_even_if_the_scan_missed_them(
        store: Neo4jStore, driver: neo4j.Driver, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cypher_guard, "scan", lambda text: None)
    with driver.session(database="neo4j") as session:
        for text, why in (("CREATE (n:Paper {id: 'x'})", "writes"), ("MATCH (n) SET n.x = 1", "writes"),
                          ("CALL dbms.components()", "schema or the DBMS")):
            with pytest.raises(QueryRefusedError, match=why):
                cypher_guard.check_read_only(session, text)
        cypher_guard.check_read_only(session, "MATCH (n) RETURN n")
    # a driver works as the runner too
    with pytest.raises(QueryRefusedError):
        cypher_guard.check_read_only(driver, "CREATE (n)", database="neo4j")
    assert counts(driver) == (0, 0)


def test_read_access_mode_is_the_third_layer(driver: neo4j.Driver, clean: None) -> None:
    with driver.session(database="neo4j", default_access_mode=neo4j.READ_ACCESS) as session, \
            pytest.raises(neo4j.exceptions.ClientError, match="read access mode"):
        session.execute_read(lambda tx: tx.run("CREATE (n:Paper {id: 'x'})").consume())
    assert counts(driver) == (0, 0)


def test_guard_syntax_error_is_bad_input_with_neo4j_message(store: Neo4jStore) -> None:
    with pytest.raises(BadInputError) as info:
        store.run_user_cypher("MATCH (n) RETURN n LIMIT")
    assert not isinstance(info.value, QueryRefusedError)
    assert "Invalid input" in str(info.value)


def test_guard_timeout_is_bad_input(store: Neo4jStore) -> None:
    started = time.monotonic()
    with pytest.raises(BadInputError, match="time limit"):
        store.run_user_cypher("UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 3 RETURN count(*)",
                              timeout=0.5)
    assert time.monotonic() - started < 15


def test_guard_bad_parameters_are_bad_input(store: Neo4jStore) -> None:
    with pytest.raises(BadInputError):
        store.run_user_cypher("RETURN $x AS x", {"x": object()})
    with pytest.raises(BadInputError, match="parameter"):
        store.run_user_cypher("RETURN $x AS x")  # missing


def test_unicode_escape_cannot_smuggle_load_csv(store: Neo4jStore) -> None:
    # Neo4j decodes \u0027 before lexing, so this would be a LOAD CSV on the server
    text = "RETURN '\\u0027 AS a LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l //'"
    with pytest.raises(QueryRefusedError):
        store.run_user_cypher(text)


# ---- the example corpus, end to end ------------------------------------------------------------


@pytest.mark.slow
def test_seed_graph_in_neo4j_equals_the_embedded_store(neo4j_seed_store: Neo4jStore,
                                                       seed_store: Any) -> None:
    graph = seed_store.graph()
    assert neo4j_seed_store.stats() == seed_store.stats()
    neo4j_seed_store.save_graph(graph)  # twice: same counts
    assert neo4j_seed_store.stats() == seed_store.stats()
    ours, theirs = io.BytesIO(), io.BytesIO()
    write_graphml(neo4j_seed_store.export(), ours)
    write_graphml(graph, theirs)
    assert ours.getvalue() == theirs.getvalue()


# ---- precomputed figures (cooccurring, introduced_in) -------------------------------------------


def _without_papers(graph: KnowledgeGraph, drop: set[str]) -> KnowledgeGraph:
    """`graph` with the papers `drop` (node keys) and their edges removed."""
    out = KnowledgeGraph()
    for key, node in graph.nodes.items():
        if key not in drop:
            out.add_node(node)
    for edge in graph.edges.values():
        if edge.source not in drop and edge.target not in drop:
            out.add_edge(edge)
    return out


def _figure_rows(store: Neo4jStore, embedded: Any, graph: KnowledgeGraph, limit: int = 1000
                 ) -> list[tuple[str, dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]]:
    """(query, params, Neo4j rows, embedded rows) of cooccurring and introduced_in for every entity
    (with and without each type filter) and every collection."""
    from paperkg.queries.runner import run_named

    out = []
    for node in graph.nodes.values():
        if node.label in ENTITY_LABELS:
            for etype in (None, *ENTITY_LABELS):
                params = {"name": node.props["keys"][0], "type": etype, "limit": limit}
                out.append(("cooccurring", params, run_named(store, "cooccurring", params),
                            run_named(embedded, "cooccurring", params)))
        elif node.label == "Collection":
            params = {"collection": node.id, "limit": limit}
            out.append(("introduced_in", params, run_named(store, "introduced_in", params),
                        run_named(embedded, "introduced_in", params)))
    return out


def _assert_figures_right(store: Neo4jStore, graph: KnowledgeGraph, limit: int = 1000) -> None:
    from tests.queries.parity import GraphOnly

    rows = _figure_rows(store, GraphOnly(graph), graph, limit)
    assert any(mine for _, _, mine, _ in rows)        # the graph has co-mentions and introductions
    for query, params, mine, theirs in rows:
        assert mine == theirs, (query, params)


def test_figures_are_exact_after_resave_and_after_removing_papers(store: Neo4jStore,
                                                                  driver: neo4j.Driver) -> None:
    """The co-mention and introduction figures save writes are exactly the embedded store's rows
    after a first save, a re-save (which changes nothing) and a save that removes papers; they stay
    out of the exported graph."""
    from tests.queries.graphs import random_graph

    graph = random_graph(5, papers=40, entities=30, per_paper=5)
    store.save_graph(graph)
    _assert_figures_right(store, graph)
    assert_stored(store, graph)                       # export() and stats() hold no figures
    stored = _stored_figures(driver)
    assert stored[0] and stored[1]
    assert not driver.execute_query("MATCH (n)--() WHERE n:PaperkgFigures OR n:PaperkgCo RETURN 1").records
    store.save_graph(graph)
    assert _stored_figures(driver) == stored
    papers = sorted(k for k, n in graph.nodes.items() if n.label == "Paper")
    smaller = _without_papers(graph, set(papers[::2]))
    store.save_graph(smaller)
    _assert_figures_right(store, smaller)
    assert_stored(store, smaller)
    assert_domain_only(driver)


def test_figures_keep_the_top_overall_and_of_each_type(store: Neo4jStore,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """With the lists cut at 2 entries (overall and per type), every limit up to 2 with or without a
    type filter still gives the embedded store's rows: the cut is exact, not approximate."""
    from paperkg.graph import neo4j_figure_writer
    from tests.queries.graphs import random_graph

    monkeypatch.setattr(neo4j_figure_writer, "FIGURE_LIMIT", 2)
    graph = random_graph(8, papers=40, entities=30, per_paper=6)
    store.save_graph(graph)
    longest = "MATCH (c:PaperkgCo) WITH c.of AS of, c.co_type AS type, count(*) AS n RETURN max(n) AS n"
    assert store.run_read(longest)[0]["n"] == 2
    for limit in (1, 2):
        _assert_figures_right(store, graph, limit)


def test_catalog_timeout_is_a_503_store_error(store: Neo4jStore) -> None:
    """A catalog query the server stops at its time limit is QueryTimeoutError (HTTP 503, exit 69,
    with Retry-After), not bad input: the request was valid, the server could not answer in time."""
    started = time.monotonic()
    with pytest.raises(QueryTimeoutError) as info:
        store.run_catalog("UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 3 RETURN count(*) AS c",
                          timeout=0.5)
    assert time.monotonic() - started < 15
    err = info.value
    assert isinstance(err, StoreUnavailableError) and not isinstance(err, BadInputError)
    assert err.retry_after     # 503 with Retry-After, exit 69: tests/api/test_error_maps.py
    assert "time limit" in err.message and "retry" in (err.hint or "") and "narrow" in (err.hint or "")


# ---- Neo4j users' conventions ---------------------------------------------------------------------


def test_domain_nodes_carry_domain_properties_only(store: Neo4jStore, driver: neo4j.Driver) -> None:
    from tests.queries.graphs import random_graph

    _, graph = make_graph()
    store.save_graph(graph)
    assert_domain_only(driver)
    entities = driver.execute_query("MATCH (e:Entity) RETURN count(e) AS c").records[0]["c"]
    assert entities == sum(1 for n in graph.nodes.values() if n.label in ENTITY_LABELS)
    captions = {r["id"]: r["caption"] for r in driver.execute_query(
        "MATCH (p:Paper) RETURN p.id AS id, p.caption AS caption").records}
    assert captions == {"p1": "Paper 0", "p2": "Paper 1", "p3": "Paper 2"}
    store.save_graph(random_graph(3, papers=30, entities=20, per_paper=4))  # figures too
    assert_domain_only(driver)
    assert all(_stored_figures(driver))


# ---- deltas ---------------------------------------------------------------------------------------


def delta_between(old: KnowledgeGraph, new: KnowledgeGraph, base: str | None, generation: str
                  ) -> GraphDelta:
    """The change from `old` to `new` as the build state hands it over (graph/state.py)."""
    return GraphDelta(
        nodes=[n for k, n in new.nodes.items() if old.nodes.get(k) != n],
        edges=[e for k, e in new.edges.items() if old.edges.get(k) != e],
        deleted_nodes=[Node(n.label, n.id) for k, n in old.nodes.items() if k not in new.nodes],
        deleted_edges=[Edge(e.type, e.source, e.target) for k, e in old.edges.items() if k not in new.edges],
        generation=generation, base=base)


def _graph_sequence() -> list[KnowledgeGraph]:
    """Random graphs that grow, change and shrink (papers added, re-extracted, removed, entities
    renamed), each the previous one changed a little."""
    from tests.queries.graphs import random_graph

    full = random_graph(11, papers=60, entities=35, per_paper=5)
    papers = sorted(k for k, n in full.nodes.items() if n.label == "Paper")
    first = _without_papers(full, set(papers[40:]))
    grown = full
    renamed = KnowledgeGraph(dict(full.nodes), dict(full.edges))
    some = next(k for k, n in full.nodes.items() if n.label == "Method")
    node = renamed.nodes[some]
    renamed.nodes[some] = Node(node.label, node.id, {**node.props, "name": "Renamed Method"})
    shrunk = _without_papers(renamed, set(papers[::3]))
    return [first, grown, renamed, shrunk]


@pytest.mark.parametrize("atomic", [True, False])
def test_deltas_give_the_graph_a_full_save_gives(store: Neo4jStore, driver: neo4j.Driver, atomic: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each delta, applied on the generation it was made from, leaves exactly the new graph, its
    figures exactly the embedded store's, and the generation recorded; in one transaction or (a
    big delta) in marked batches."""
    from paperkg.graph import neo4j_delta

    if not atomic:
        monkeypatch.setattr(neo4j_delta, "ATOMIC_ROWS", 0)
    graphs = _graph_sequence()
    store.save_graph(graphs[0], generation="g0")
    assert store.synced_generation() == "g0"
    for i, (old, new) in enumerate(itertools.pairwise(graphs), start=1):
        store.apply(delta_between(old, new, f"g{i - 1}", f"g{i}"))
        assert store.synced_generation() == f"g{i}"
        assert store.build_status() == {"state": "complete", "generation": f"g{i}", "by": None}
        assert_stored(store, new)
        _assert_figures_right(store, new)
        assert duplicates(driver) == 0
    assert_domain_only(driver)


@pytest.mark.parametrize("limit", [2, 1000])
def test_a_delta_changes_the_figures_into_the_lists_a_full_save_computes(
        store: Neo4jStore, driver: neo4j.Driver, monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    """The figures a delta changes in place (graph/neo4j_figures.py) are, list for list, the ones a
    full save computes from the whole graph: with lists cut at 2 entries (entries growing past the
    cut, kept ones shrinking, a rename near it) and with uncut lists."""
    from paperkg.graph import neo4j_figure_writer

    monkeypatch.setattr(neo4j_figure_writer, "FIGURE_LIMIT", limit)
    graphs = _graph_sequence()
    store.save_graph(graphs[0], generation="g0")
    for i, (old, new) in enumerate(itertools.pairwise(graphs), start=1):
        store.apply(delta_between(old, new, f"g{i - 1}", f"g{i}"))
        changed = _stored_figures(driver)
        store.save_graph(new, generation=f"g{i}")
        assert changed == _stored_figures(driver), i


def test_a_delta_that_adds_papers_recomputes_no_figure_whole(
        store: Neo4jStore, driver: neo4j.Driver, monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding papers changes the stored lists by the difference only: nothing is recomputed from
    the whole neighbourhood (whose cost grows with the database), even with lists cut at 2."""
    from paperkg.graph import neo4j_figure_writer

    monkeypatch.setattr(neo4j_figure_writer, "FIGURE_LIMIT", 2)
    graphs = _graph_sequence()
    store.save_graph(graphs[0], generation="g0")
    recomputed: list[tuple[list[str], list[str]]] = []
    monkeypatch.setattr(Neo4jStore, "_figures", lambda self, tx, e, c: recomputed.append((e, c)))
    delta = delta_between(graphs[0], graphs[1], "g0", "g1")
    assert not delta.deleted_edges and not delta.deleted_nodes
    store.apply(delta)
    assert recomputed == []
    changed = _stored_figures(driver)
    monkeypatch.undo()
    monkeypatch.setattr(neo4j_figure_writer, "FIGURE_LIMIT", 2)
    store.save_graph(graphs[1], generation="g1")
    assert changed == _stored_figures(driver)


def test_a_delta_writes_only_what_changed(store: Neo4jStore, driver: neo4j.Driver) -> None:
    """Nodes and relationships the delta does not name are not rewritten (a mark set by hand on
    them survives; `SET n = row.props` would drop it)."""
    graphs = _graph_sequence()
    store.save_graph(graphs[0], generation="g0")
    delta = delta_between(graphs[0], graphs[1], "g0", "g1")
    named = {n.id for n in delta.nodes}
    driver.execute_query("MATCH (n) WHERE n.id IS NOT NULL SET n.mark = true")
    driver.execute_query("MATCH ()-[r]->() SET r.mark = true")
    store.apply(delta)
    marked = {r["id"] for r in driver.execute_query(
        "MATCH (n) WHERE n.mark AND n.id IS NOT NULL AND NOT n:PaperkgMeta RETURN n.id AS id").records}
    unnamed = {n.id for n in graphs[1].nodes.values()} - named
    assert unnamed and marked == unnamed
    rewritten = driver.execute_query("MATCH ()-[r]->() WHERE r.mark IS NULL RETURN count(r) AS c").records
    assert rewritten[0]["c"] == len(delta.edges)


def test_a_delta_on_another_generation_is_refused(store: Neo4jStore) -> None:
    graphs = _graph_sequence()
    store.save_graph(graphs[0], generation="g0")
    with pytest.raises(StoreUnavailableError, match="run the build again"):
        store.apply(delta_between(graphs[0], graphs[1], "other", "g1"))
    assert_stored(store, graphs[0])
    # a first delta (from nothing) applies only to an empty database
    with pytest.raises(StoreUnavailableError):
        store.apply(delta_between(KnowledgeGraph(), graphs[1], None, "g1"))


def test_a_database_with_the_old_figures_layout_is_rewritten_whole(store: Neo4jStore,
                                                                   driver: neo4j.Driver) -> None:
    """A database saved by a paperkg whose figures had another layout (one co-mention list per
    entity, no recorded format) is not in step: a build's delta is refused and its full save
    leaves the figures exact."""
    graphs = _graph_sequence()
    store.save_graph(graphs[0], generation="g0")
    driver.execute_query("MATCH (c:PaperkgCo) DELETE c")
    driver.execute_query("MATCH (m:PaperkgMeta {id: 'graph'}) REMOVE m.figures")
    assert store.synced_generation() is None
    with pytest.raises(StoreUnavailableError, match="run the build again"):
        store.apply(delta_between(graphs[0], graphs[1], "g0", "g1"))
    store.save_graph(graphs[1], generation="g1")
    assert store.synced_generation() == "g1"
    _assert_figures_right(store, graphs[1])


def test_a_first_delta_into_an_empty_database(store: Neo4jStore) -> None:
    graph = _graph_sequence()[0]
    store.apply(delta_between(KnowledgeGraph(), graph, None, "g1"))
    assert store.synced_generation() == "g1"
    assert_stored(store, graph)
    _assert_figures_right(store, graph)


# ---- concurrent builds, killed saves --------------------------------------------------------------


SAVER = """
import sys, time
sys.path.insert(0, {root!r})
from tests.graph.test_neo4j_store import big_graph
from paperkg.graph.neo4j_store import Neo4jStore
corpus, graph = big_graph(papers={papers}, prefix={prefix!r})
store = Neo4jStore({uri!r}, batch_size={batch}, lease_ttl={ttl},
                   on_wait=lambda m: print("waiting", m, flush=True))
print("start", flush=True)
store.save_graph(graph, generation={prefix!r})
print("done", flush=True)
"""


def kill_mid_save(proc: subprocess.Popen, store: Neo4jStore) -> None:
    """SIGKILL the saving process `proc` (a `_saver`) once `store` says its save is writing."""
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "start"
        deadline = time.monotonic() + 60
        while store.build_status()["state"] != "writing" and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(30)


def _saver(tmp_path: Path, uri: str, prefix: str, papers: int = 600, batch: int = 50,
           ttl: float = 30.0) -> subprocess.Popen:
    script = tmp_path / f"save-{prefix}.py"
    script.write_text(SAVER.format(root=str(ROOT), papers=papers, prefix=prefix, uri=uri, batch=batch,
                                   ttl=ttl))
    return subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_concurrent_builds_serialize(neo4j_uri: str, store: Neo4jStore, driver: neo4j.Driver,
                                     tmp_path: Path) -> None:
    """Two builds of different graphs (as from two --store directories) into one database at once:
    one waits for the other, and the database ends holding exactly the graph of the one that wrote
    last (no mixture, no orphans), marked complete with its generation."""
    first, second = _saver(tmp_path, neo4j_uri, "a"), _saver(tmp_path, neo4j_uri, "b")
    try:
        outputs = [proc.communicate(timeout=300)[0] for proc in (first, second)]
    finally:
        for proc in (first, second):
            proc.kill()
    assert all(out.strip().endswith("done") for out in outputs), outputs
    assert any("waiting another build is writing" in out for out in outputs), outputs
    last = store.synced_generation()
    assert last in ("a", "b")
    assert_stored(store, big_graph(prefix=last)[1])
    assert duplicates(driver) == 0


def test_killed_build_shows_interrupted_and_the_next_repairs(neo4j_uri: str, store: Neo4jStore,
                                                             driver: neo4j.Driver, tmp_path: Path) -> None:
    """SIGKILL mid-save: readers see "interrupted" (not a complete graph), the lease expires, the
    next build takes it after waiting and leaves exactly its graph."""
    store.save_graph(big_graph(papers=50, prefix="old")[1], generation="old")
    kill_mid_save(_saver(tmp_path, neo4j_uri, "a", ttl=3.0), store)
    assert store.build_status()["state"] in ("writing", "interrupted")
    assert store.synced_generation() is None
    time.sleep(3.5)
    assert store.build_status()["state"] == "interrupted"
    waits: list[str] = []
    with Neo4jStore(neo4j_uri, lease_ttl=3.0, on_wait=waits.append) as again:
        again.save_graph(big_graph(prefix="b")[1], generation="b")
    assert store.build_status()["state"] == "complete" and store.synced_generation() == "b"
    assert_stored(store, big_graph(prefix="b")[1])
    assert duplicates(driver) == 0


def test_a_held_lease_makes_the_next_build_wait(neo4j_uri: str, store: Neo4jStore) -> None:
    waits: list[str] = []
    other = Neo4jStore(neo4j_uri, lease_ttl=2.0, on_wait=waits.append)
    done = threading.Event()
    with store.lease():
        thread = threading.Thread(target=lambda: (other.save_graph(make_graph()[1]), done.set()))
        thread.start()
        time.sleep(1.5)
        assert not done.is_set() and waits and "waiting" in waits[0]
    thread.join(30)
    assert done.is_set()
    other.close()


# ---- bounded failures ------------------------------------------------------------------------------


def test_ping_reports_and_fails_fast(store: Neo4jStore) -> None:
    assert store.ping()["state"] in ("none", "complete")
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError):
        Neo4jStore("bolt://127.0.0.1:1").ping()
    assert time.monotonic() - started < 3


class FreezableProxy:
    """A TCP proxy to the engine that can stop forwarding (what a frozen server looks like to a
    client: connections stay open, nothing answers)."""

    def __init__(self, target: str) -> None:
        host, port = target.rpartition("/")[2].split(":")
        self.target = (host, int(port))
        self.frozen = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.uri = f"bolt://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                while self.frozen.is_set():
                    time.sleep(0.05)
                b.sendall(data)

    def close(self) -> None:
        self.listener.close()


def test_a_frozen_server_costs_a_request_its_timeout(neo4j_uri: str, store: Neo4jStore) -> None:
    store.save_graph(make_graph()[1])
    proxy = FreezableProxy(neo4j_uri)
    try:
        with Neo4jStore(proxy.uri, query_timeout=1.0) as st:
            assert st.run_catalog("MATCH (p:Paper) RETURN count(p) AS c")[0]["c"] == 3
            proxy.frozen.set()
            started = time.monotonic()
            with pytest.raises(StoreUnavailableError, match="did not answer"):
                st.run_catalog("MATCH (p:Paper) RETURN count(p) AS c")
            assert time.monotonic() - started < 1.0 + 3
            with pytest.raises(StoreUnavailableError):
                st.ping()
            assert time.monotonic() - started < 1.0 + 3 + 5
            proxy.frozen.clear()
    finally:
        proxy.close()


def test_a_query_over_the_transaction_memory_cap_says_so(store: Neo4jStore) -> None:
    """The test engine caps transaction memory (db.memory.transaction.max) like a deployment should;
    a query past it is refused with a message naming the limit, and the server keeps answering."""
    with pytest.raises(BadInputError, match=r"db\.memory\.transaction\.max"):
        store.run_user_cypher("UNWIND range(1, 20000000) AS i WITH collect(toString(i)) AS c "
                              "RETURN size(c) AS n")
    assert store.run_user_cypher("RETURN 1 AS one") == [{"one": 1}]
