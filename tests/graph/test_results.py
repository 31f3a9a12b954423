"""Results in the graph (issue 27): each result a paper reports is a `Result` node of that paper,
linked to the entities its surfaces resolve to, kept by the build state, removed with its paper, and
carried by the exports. Real abstracts with their gold results (`tests/graph/results_gold.py`)."""

from __future__ import annotations

import shutil
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

from paperkg.graph.build import build_graph
from paperkg.graph.corpus import Corpus
from paperkg.graph.gexf import first_years, write_gexf
from paperkg.graph.graphml import write_graphml
from paperkg.graph.model import RESULT_LINKS, result_id
from paperkg.graph.records import ResultMention
from paperkg.graph.state import DB_FILE, SCHEMA_VERSION, BuildState
from tests.graph.golden.schema6.papers import PAPERS as PAPERS6
from tests.graph.results_gold import gold_corpus, gold_records
from tests.stores import add_entry, write_corpus

SCHEMA6 = Path(__file__).parent / "golden" / "schema6"
TRACKLET = "2508.02143"     # `TrackletGait achieves ... 77.8 and 80.4 rank-1 accuracy on the Gait3D and GREW`


def _record(pid: str) -> dict:
    return next(r for r in gold_records() if r["id"] == pid)


def test_each_gold_result_is_a_result_of_its_paper_linked_to_the_entities_it_names() -> None:
    graph = build_graph(gold_corpus([_record(TRACKLET)]))
    results = {n.id: n.props for n in graph.nodes.values() if n.label == "Result"}
    text = _record(TRACKLET)["abstract"]
    first, second = result_id(TRACKLET, text.index("77.8")), result_id(TRACKLET, text.index("80.4"))
    assert sorted(results) == sorted([first, second])
    props = results[first]
    assert (props["value"], props["display"], props["number"], props["kind"]) == (
        "77.8", "77.8", 77.8, "absolute")
    assert (props["paper"], props["year"], props["benchmark"], props["metric"]) == (
        TRACKLET, 2025, "Gait3D", "rank-1 accuracy")
    assert props["evidence"].startswith("TrackletGait achieves state-of-the-art results, with 77.8")
    assert text[props["start"]:props["end"]] == "77.8"
    links = {(e.type, e.source, e.target) for e in graph.edges.values() if e.source in (first, second)
             or e.target in (first, second)}
    assert links == {
        ("REPORTS", f"paper:{TRACKLET}", first), ("REPORTS", f"paper:{TRACKLET}", second),
        ("ACHIEVED_BY", first, "method:trackletgait"), ("ACHIEVED_BY", second, "method:trackletgait"),
        ("ON_BENCHMARK", first, "dataset:gait3d"), ("ON_BENCHMARK", second, "dataset:grew"),
        ("IN_METRIC", first, "metric:rank-1-accuracy"), ("IN_METRIC", second, "metric:rank-1-accuracy"),
    }


def test_a_surface_that_names_no_entity_leaves_its_link_out() -> None:
    record = _record(TRACKLET)
    corpus = gold_corpus([record])
    extraction = corpus.papers[next(iter(corpus.papers))].extraction
    assert extraction is not None
    start = record["abstract"].index("77.8")
    extraction.results = [ResultMention("77.8", "absolute", start, start + 4, 6, "77.8", 77.8,
                                        benchmark="Gait3D", metric="top-1 precision", subject="TRACKLETGAIT")]
    graph = build_graph(corpus)
    rid = result_id(TRACKLET, start)
    links = {e.type: e.target for e in graph.edges.values() if e.source == rid}
    # `TRACKLETGAIT` meets `TrackletGait` by name key; no entity is named `top-1 precision`
    assert links == {"ACHIEVED_BY": "method:trackletgait", "ON_BENCHMARK": "dataset:gait3d"}
    assert graph.nodes[rid].props["metric"] == "top-1 precision"


def test_every_link_type_occurs_in_the_gold_and_each_points_at_an_entity() -> None:
    graph = build_graph(gold_corpus())
    types = {e.type for e in graph.edges.values()}
    assert {"REPORTS", *RESULT_LINKS.values()} <= types
    for edge in graph.edges.values():
        if edge.type in RESULT_LINKS.values():
            assert graph.nodes[edge.source].label == "Result"
            assert graph.nodes[edge.target].label not in ("Paper", "Collection", "Result")


def test_removing_a_paper_removes_its_results_and_the_delta_says_so(tmp_path: Path) -> None:
    corpus = gold_corpus(list(gold_records()[:6]))
    write_corpus(tmp_path, corpus).close()
    state = BuildState(tmp_path)
    before = state.graph()
    ours = {k for k, n in before.nodes.items() if n.label == "Result" and n.props["paper"] == TRACKLET}
    assert len(ours) == 2
    with state.transaction() as tx:
        assert tx.remove([TRACKLET]) == []
        delta = tx.derive(for_target=True)
    after = state.graph()
    state.close()
    assert not ours & set(after.nodes)
    assert {n.key for n in delta.deleted_nodes if n.label == "Result"} == ours
    assert not [e for e in after.edges.values() if e.source in ours or e.target in ours]
    left = corpus_without(corpus, TRACKLET)
    assert after.nodes.keys() == build_graph(left).nodes.keys()


def corpus_without(corpus: Corpus, pid: str) -> Corpus:
    out = Corpus()
    for entry in corpus:
        if pid not in entry.ids:
            out.papers[entry.key] = entry
            for rid in entry.ids:
                out.by_id[rid] = entry.key
    return out


_NODE_ROWS = "SELECT key, json_remove(props, '$.years', '$.papers_per_year') FROM nodes"


def test_a_schema_6_store_gives_its_extractions_their_results_list(tmp_path: Path) -> None:
    """Schema 6 (a store paperkg b3b00f8 built, `golden/schema6`) stored extractions without
    results. Opening it gives each its empty list and changes no graph row; once the papers are
    extracted again (with results), the graph is the one a fresh build makes."""
    import json

    shutil.copy(SCHEMA6 / "state.sqlite", tmp_path / DB_FILE)
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        old_rows = sorted(db.execute(_NODE_ROWS))
    state = BuildState(tmp_path)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 14
        stored = [json.loads(e) for (e,) in db.execute("SELECT extraction FROM papers")]
        assert len(stored) == len(PAPERS6) and all(e["results"] == [] for e in stored)
        assert sorted(db.execute(_NODE_ROWS)) == old_rows     # but each entity's papers by year
        # every paper: schema 13's name keys read through LaTeX styling (test_state.py)
        assert db.execute("SELECT count(*) FROM pending_derive").fetchone()[0] == len(PAPERS6)
    corpus = gold_corpus([_record(pid) for pid, *_ in PAPERS6])
    with state.transaction() as tx:
        for entry in corpus:
            add_entry(tx, entry)
        tx.derive()
    graph, held = state.graph(), state.corpus()
    state.close()
    assert all(entry.extraction is not None and entry.extraction.results for entry in held)
    fresh = build_graph(held)
    assert graph.nodes == fresh.nodes and graph.edges == fresh.edges
    assert sum(n.label == "Result" for n in graph.nodes.values()) == sum(
        len(_record(pid)["results"]) for pid, *_ in PAPERS6)


def test_graphml_and_gexf_carry_the_results(tmp_path: Path) -> None:
    graph = build_graph(gold_corpus([_record(TRACKLET)]))
    rid = result_id(TRACKLET, _record(TRACKLET)["abstract"].index("77.8"))
    write_graphml(graph, tmp_path / "g.graphml")
    g = "{http://graphml.graphdrawing.org/xmlns}"
    root = ET.parse(tmp_path / "g.graphml").getroot()
    keys = {k.get("id"): k.get("attr.name") for k in root.iter(g + "key")}
    nodes = {}
    for node in root.iter(g + "node"):
        data = {keys[d.get("key")]: d.text for d in node.iter(g + "data")}
        nodes[data["kg_id"]] = data
    assert nodes[rid]["type"] == "Result" and nodes[rid]["label"] == "77.8 rank-1 accuracy"
    assert (nodes[rid]["value"], nodes[rid]["number"], nodes[rid]["benchmark"]) == ("77.8", "77.8", "Gait3D")
    kinds = [e.get("label") for e in root.iter(g + "edge")]
    assert {"REPORTS", "ACHIEVED_BY", "ON_BENCHMARK", "IN_METRIC"} <= set(kinds)

    write_gexf(graph, tmp_path / "g.gexf")
    node_years, edge_years = first_years(graph)
    assert node_years[rid] == 2025
    assert edge_years[f"ON_BENCHMARK|{rid}|dataset:gait3d"] == 2025
    assert rid in (tmp_path / "g.gexf").read_text(encoding="utf-8")


def test_the_bulk_import_files_carry_the_results(tmp_path: Path) -> None:
    """`paperkg export neo4j-import`: one typed column per result property, one file per link."""
    from paperkg.graph.neo4j_import import write_import_dir

    write_import_dir(build_graph(gold_corpus()), tmp_path)
    header = (tmp_path / "nodes-Result.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("id:ID(Result),:LABEL,")
    for column in ("number:double", "year:long", "value:string", "evidence:string", "start:long"):
        assert column in header.split(","), column
    files = {p.name for p in tmp_path.iterdir()}
    assert {"rels-REPORTS-Paper-Result.csv", "rels-ON_BENCHMARK-Result-Dataset.csv",
            "rels-IN_METRIC-Result-Metric.csv", "rels-AGAINST-Result-Method.csv"} <= files
