"""`import paperkg` as a notebook uses it, held to the CLI: the same stats, rows and extractions as the
`paperkg` command on the same store and input, a networkx graph with `paperkg stats`' counts, and no
spaCy loaded for reading a graph."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import paperkg
from paperkg.graph.errors import (
    InputNotFoundError,
    ParameterUsageError,
    UnknownEntityError,
    UnknownQueryError,
    UsageError,
)
from paperkg.graph.model import ENTITY_LABELS, RESULT_LINKS
from paperkg.graph.normalize import paper_id_for
from tests.api.test_cli import GOOD
from tests.api.test_cli import paperkg as cli


@pytest.fixture(scope="module")
def kg(seed_store_path: Path) -> Iterator[paperkg.PaperKG]:
    with paperkg.open(seed_store_path) as opened:
        yield opened


def test_networkx_has_the_nodes_and_edges_of_paperkg_stats(kg: paperkg.PaperKG,
                                                           seed_store_path: Path) -> None:
    proc = cli("stats", "--json", "--store", str(seed_store_path))
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)
    g = kg.networkx()
    assert Counter(label for _, label in g.nodes(data="label")) == Counter(
        {k: v for k, v in counts["nodes"].items() if v})
    assert Counter(key for _, _, key in g.edges(keys=True)) == Counter(
        {k: v for k, v in counts["edges"].items() if v})
    assert all(etype == key for _, _, key, etype in g.edges(keys=True, data="type"))
    grpo = g.nodes["method:group-relative-policy-optimization"]
    assert grpo["label"] == "Method" and grpo["name"] == "GRPO" and grpo["paper_count"] > 1
    assert "Group Relative Policy Optimization" in grpo["aliases"]
    source, target, props = next((u, v, p) for u, v, p in g.edges(data=True) if p["type"] == "EVALUATED_ON")
    assert g.nodes[source]["label"] in {"Method", "Model"}
    assert g.nodes[target]["label"] in {"Dataset", "Benchmark"}
    assert props["support"] == len(props["papers"]) == len(props["evidence"]) and 0 < props["confidence"] <= 1
    paper, _, mention = next((u, v, p) for u, v, p in g.edges(data=True) if p["type"] == "MENTIONS")
    assert g.nodes[paper]["label"] == "Paper" and mention["count"] == len(mention["starts"])
    g.nodes["method:group-relative-policy-optimization"]["name"] = "changed"     # the caller's own copy
    assert kg.networkx().nodes["method:group-relative-policy-optimization"]["name"] == "GRPO"
    assert kg.stats() == counts


def test_networkx_carries_the_results_with_the_counts_of_paperkg_stats(results_store_path: Path) -> None:
    """Issue 27's `Result` nodes and their REPORTS / ACHIEVED_BY / ON_BENCHMARK / IN_METRIC /
    AGAINST edges are in the networkx graph as in `paperkg stats`, linking what they should."""
    proc = cli("stats", "--json", "--store", str(results_store_path))
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)
    with paperkg.open(results_store_path) as kg:
        g = kg.networkx()
    labels = Counter(label for _, label in g.nodes(data="label"))
    types = Counter(key for _, _, key in g.edges(keys=True))
    assert labels == Counter({k: v for k, v in counts["nodes"].items() if v})
    assert types == Counter({k: v for k, v in counts["edges"].items() if v})
    assert labels["Result"] == types["REPORTS"] > 0
    assert all(types[t] > 0 for t in ("ACHIEVED_BY", "ON_BENCHMARK", "IN_METRIC", "AGAINST"))
    # a link ends at the entity its words resolve to, whose type is the graph's (an acronym a
    # paper writes for a metric may resolve to a method: tests/graph/test_curation splits one)
    for u, v, key in g.edges(keys=True):
        if key == "REPORTS":
            assert (g.nodes[u]["label"], g.nodes[v]["label"]) == ("Paper", "Result")
        elif key in RESULT_LINKS.values():
            assert g.nodes[u]["label"] == "Result" and g.nodes[v]["label"] in ENTITY_LABELS, (u, key, v)
    result = next(n for n, label in g.nodes(data="label") if label == "Result")
    assert {"id", "paper", "display", "kind", "evidence"} <= set(g.nodes[result])


def test_query_gives_the_rows_the_cli_prints(kg: paperkg.PaperKG, seed_store_path: Path) -> None:
    rows = kg.query("evaluated_on", name="MATH500", limit=5)
    proc = cli("query", "evaluated_on", "--param", "name=MATH500", "--param", "limit=5", "--json",
               "--store", str(seed_store_path))
    assert proc.returncode == 0, proc.stderr
    assert rows == json.loads(proc.stdout) and rows
    assert isinstance(rows, list) and rows.query == "evaluated_on" and rows.params == {"name": "MATH500",
                                                                                        "limit": 5}
    assert rows.columns == ["dataset", "id", "name", "type", "support", "confidence"]
    frame = rows.to_pandas()
    assert list(frame.columns) == rows.columns and len(frame) == len(rows)
    assert frame["dataset"].eq("benchmark:math500").all()


def test_entities_and_papers(kg: paperkg.PaperKG) -> None:
    grpo = kg.entity("group relative policy optimization")
    assert grpo["id"] == "method:group-relative-policy-optimization" and grpo["type"] == "Method"
    assert grpo["id"] in [e["id"] for e in kg.entities("policy opt", type="Method")]
    papers = kg.papers("GRPO", limit=3)
    assert len(papers) == 3 and all(grpo["id"] in p["entities"] for p in papers)
    paper = kg.paper(papers[0]["id"])
    assert any(e["id"] == grpo["id"] for e in paper["entities"]) and "GRPO" in paper["abstract"]
    assert kg.cypher("MATCH (m:Method {name: $name}) RETURN m.id AS id", name="GRPO") == [{"id": grpo["id"]}]


def test_errors_name_what_went_wrong(kg: paperkg.PaperKG, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnknownEntityError, match="did you mean 'GRPO'"):
        kg.query("papers_mentioning", name="GRPPO")
    with pytest.raises(UnknownQueryError, match="evaluated_on"):
        kg.query("evaluated_onn", name="MATH500")
    with pytest.raises(ParameterUsageError, match="unknown parameter 'nme'"):
        kg.query("evaluated_on", nme="MATH500")
    with pytest.raises(InputNotFoundError):
        paperkg.open(tmp_path / "no-store")
    monkeypatch.setenv("PAPERKG_NEO4J_PASSWORD_FILE", str(tmp_path / "no-file"))
    with pytest.raises(UsageError, match=r"cannot read the password file .*no-file"):
        paperkg.open("bolt://127.0.0.1:1")


def test_the_catalog_is_the_clis(kg: paperkg.PaperKG) -> None:
    proc = cli("query", "--list", "--json")
    assert proc.returncode == 0, proc.stderr
    assert kg.catalog() == json.loads(proc.stdout) and "evaluated_on" in [q["name"] for q in kg.catalog()]


def test_to_pandas_without_pandas_says_how_to_get_it(kg: paperkg.PaperKG,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"paperkg\[pandas\]"):
        kg.query("top_entities", type="Dataset").to_pandas()


def test_build_and_extract_do_what_the_cli_does(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in GOOD), encoding="utf-8")
    summary = paperkg.build([good], store=tmp_path / "lib", mode="rules")
    proc = cli("build", str(good), "--store", str(tmp_path / "cli"), "--mode", "rules", "--json")
    assert proc.returncode == 0, proc.stderr
    # the seconds spent on the serving index are a timing, the same only when both round to it alike
    timing = "serving_index"
    assert ({k: v for k, v in summary.to_json().items() if k != timing}
            == {k: v for k, v in json.loads(proc.stdout).items() if k != timing}) and summary.papers == 3
    assert timing in summary.to_json()
    with paperkg.open(tmp_path / "lib") as lib, paperkg.open(tmp_path / "cli") as made:
        assert lib.export() == made.export()

    extracted = paperkg.extract([r["abstract"] for r in GOOD], mode="rules")
    proc = cli("extract", str(good), "--mode", "rules")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [e.to_json() | {"id": r["id"]} for e, r in zip(extracted, GOOD, strict=True)] == lines
    assert extracted[0].paper_id == paper_id_for(GOOD[0]["abstract"])      # as a build names it
    assert paperkg.extract([("mine", GOOD[0]["abstract"])], mode="rules")[0].paper_id == "mine"


def test_problems_in_the_input_are_reported_and_counted(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(GOOD[0]) + "\n{not json\n", encoding="utf-8")
    seen: list[object] = []
    summary = paperkg.build(bad, store=tmp_path / "s", mode="rules", on_problem=seen.append)
    assert summary.papers == 1 and summary.errors == 1 and len(seen) == 1 and "bad.jsonl:2" in str(seen[0])


READ_ONLY = """
import sys, paperkg
kg = paperkg.open(sys.argv[1])
kg.stats(); kg.query("evaluated_on", name="MATH500"); kg.networkx(); kg.entity("GRPO")
assert "spacy" not in sys.modules, "reading a graph loaded spaCy"
import paperkg.graph.store, paperkg.queries.runner
print(sorted(n for n in paperkg.__all__))
"""


def test_reading_a_graph_never_imports_spacy(seed_store_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", READ_ONLY, str(seed_store_path)], capture_output=True,
                          text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.replace("'", '"')) == sorted(paperkg.__all__)
    assert all(hasattr(paperkg, name) for name in paperkg.__all__)


@pytest.mark.neo4j
def test_a_neo4j_graph_opened_by_uri_answers_as_the_embedded_one(kg: paperkg.PaperKG, neo4j_uri: str,
                                                                 neo4j_seed_store: object,
                                                                 tmp_path: Path) -> None:
    with paperkg.open(neo4j_uri) as remote:
        assert remote.kind == "neo4j" and remote.stats() == kg.stats()
        assert remote.query("evaluated_on", name="MATH500") == kg.query("evaluated_on", name="MATH500")
        assert remote.entity("GRPO") == kg.entity("GRPO")
        g, local = remote.networkx(), kg.networkx()
        assert sorted(g.nodes) == sorted(local.nodes)
        assert sorted(g.edges(keys=True)) == sorted(local.edges(keys=True))
        grpo = "method:group-relative-policy-optimization"
        assert g.nodes[grpo]["label"] == "Method" and g.nodes[grpo]["aliases"] == local.nodes[grpo]["aliases"]
    # a build into Neo4j as `paperkg build --neo4j URI --store DIR --replace-neo4j-graph` makes it
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in GOOD), encoding="utf-8")
    summary = paperkg.build(good, store=tmp_path / "state", neo4j=neo4j_uri, replace_neo4j_graph=True,
                            mode="rules")
    with paperkg.open(neo4j_uri, store=tmp_path / "state") as remote, \
            paperkg.open(tmp_path / "state") as state:
        assert remote.stats() == state.stats() == summary.stats and summary.papers == 3
        assert remote.store_dir == tmp_path / "state"
