"""`paperkg export neo4j-import`: the files, and the seed store loaded by Neo4j's own importer
(`tests/neo4j/server import`, a second engine) answering exactly like the embedded store."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paperkg.graph.errors import BadInputError
from paperkg.graph.model import Edge, KnowledgeGraph, Node
from paperkg.graph.neo4j_cypher import schema_statements
from paperkg.graph.neo4j_import import ARRAY_DELIMITER, write_import_dir
from paperkg.graph.neo4j_store import Neo4jStore

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "neo4j" / "server"
# The importing engine runs beside the suite's (its own port and run directory).
IMPORT_PORT = os.environ.get("NEO4J_IMPORT_PORT", "7714")


def tiny() -> KnowledgeGraph:
    g = KnowledgeGraph()
    g.add_node(Node("Paper", "p1", {"id": "p1", "title": 'A "quoted", title; with\na line break',
                                    "year": 2024, "ids": ["p1", "arXiv:1"], "abstract": ""}))
    g.add_node(Node("Paper", "p2", {"id": "p2", "ids": ["p2"]}))
    g.add_node(Node("Method", "method:grpo", {"id": "method:grpo", "type": "Method", "name": "GRPO",
                                              "aliases": ["GRPO", "G;RPO"], "keys": ["grpo"],
                                              "paper_count": 2, "confidence": 0.5, "ambiguous": True}))
    g.add_edge(Edge("MENTIONS", "paper:p1", "method:grpo", {"count": 1, "starts": [0], "confidences": [1.0]}))
    g.add_edge(Edge("MENTIONS", "paper:p2", "method:grpo", {"count": 2, "starts": [0, 5],
                                                            "confidences": [0.25, 1]}))
    return g


def test_files_use_the_importer_header_format(tmp_path: Path) -> None:
    summary = write_import_dir(tiny(), tmp_path / "out", generation="g1")
    out = tmp_path / "out"
    assert summary.nodes == 3 + 1 and summary.relationships == 2   # + the marker; no co-mentions
    papers = (out / "nodes-Paper.csv").read_text(encoding="utf-8")
    header = papers.splitlines()[0]
    assert header == "id:ID(Paper),:LABEL,abstract:string,caption:string,ids:string[],title:string,year:long"
    # quotes doubled, the line break kept inside the quoted field, empty string quoted, absent empty
    assert '"A ""quoted"", title; with\na line break"' in papers
    assert '"p1","Paper","","A ""quoted""' in papers
    assert '"p2","Paper",,"p2","p2",,' in papers
    methods = (out / "nodes-Method.csv").read_text(encoding="utf-8").splitlines()
    assert methods[0] == ("id:ID(Method),:LABEL,aliases:string[],ambiguous:boolean,confidence:double,"
                          "keys:string[],keys_text:string,name:string,paper_count:long,type:string")
    d = ARRAY_DELIMITER
    assert methods[1].startswith(f'"method:grpo","Method{d}Entity","GRPO{d}G;RPO",true,0.5,')
    rels = (out / "rels-MENTIONS-Paper-Method.csv").read_text(encoding="utf-8").splitlines()
    assert rels[0] == ":START_ID(Paper),:END_ID(Method),:TYPE,confidences:double[],count:long,starts:long[]"
    assert rels[1] == '"p1","method:grpo",MENTIONS,"1.0",1,"0"'
    meta = (out / "nodes-PaperkgMeta.csv").read_text(encoding="utf-8")
    assert '"graph","PaperkgMeta"' in meta and '"g1"' in meta and '"complete"' in meta
    args = (out / "import.args").read_text(encoding="utf-8").splitlines()
    assert "--array-delimiter=U+001F" in args and "--multiline-fields=true" in args
    assert "--nodes=nodes-Paper.csv" in args and "--relationships=rels-MENTIONS-Paper-Method.csv" in args
    script = (out / "import.sh").read_text(encoding="utf-8")
    command = script[script.index("neo4j-admin"):].replace("\\\n", " ")
    assert shlex.split(command)[:5] == ["neo4j-admin", "database", "import", "full", "${1:-neo4j}"]
    assert shlex.split(command)[5:] == args
    schema = (out / "schema.cypher").read_text(encoding="utf-8")
    assert all(f"{s};" in schema for s in schema_statements())


def test_refuses_what_the_importer_would_misread(tmp_path: Path) -> None:
    g = tiny()
    g.nodes["method:grpo"].props["name"] = f"bad{ARRAY_DELIMITER}name"
    with pytest.raises(BadInputError, match="U\\+001F"):
        write_import_dir(g, tmp_path / "a")
    g = tiny()
    g.nodes["method:grpo"].props["mixed"] = "x"
    g.add_node(Node("Method", "method:ppo", {"id": "method:ppo", "mixed": 3}))
    with pytest.raises(BadInputError, match="mixed"):
        write_import_dir(g, tmp_path / "b")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "x").write_text("")
    with pytest.raises(BadInputError, match="not an empty directory"):
        write_import_dir(tiny(), tmp_path / "c")


# ---- the real importer ------------------------------------------------------------------------


def _server(action: str, *args: str, run_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NEO4J_PORT": IMPORT_PORT, "NEO4J_RUN_DIR": str(run_dir)}
    return subprocess.run(["bash", str(SERVER), action, *args], capture_output=True, text=True, env=env,
                          timeout=900, check=False)


@pytest.fixture(scope="module")
def imported(seed_store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jStore]:
    """The seed store exported by the CLI and loaded by `tests/neo4j/server import`."""
    out = tmp_path_factory.mktemp("neo4j-import") / "seed"
    run_dir = tmp_path_factory.mktemp("neo4j-import-run")
    proc = subprocess.run([sys.executable, "-m", "paperkg.api.cli", "export", "neo4j-import", str(out),
                           "--store", str(seed_store_path)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "import.sh" in proc.stderr
    started = _server("import", str(out), run_dir=run_dir)
    assert started.returncode == 0, started.stderr
    uri = started.stdout.strip().splitlines()[-1]
    store = Neo4jStore(uri, query_timeout=60)
    try:
        yield store
    finally:
        store.close()
        _server("stop", run_dir=run_dir)


@pytest.mark.neo4j
@pytest.mark.slow
def test_imported_seed_store_equals_the_embedded_store(imported: Neo4jStore, seed_store: Any) -> None:
    assert imported.stats() == seed_store.stats()
    exported = imported.export()
    assert exported.nodes == seed_store.graph().nodes
    assert exported.edges == seed_store.graph().edges
    assert imported.build_status()["state"] == "complete"
    labels = imported.run_read("MATCH (e:Entity) RETURN count(e) AS c")[0]["c"]
    assert labels == sum(seed_store.stats()["nodes"][label] for label in
                         ("Method", "Model", "Dataset", "Benchmark", "Metric", "Task"))


@pytest.mark.neo4j
@pytest.mark.slow
def test_imported_seed_store_answers_the_catalog_like_the_embedded_store(imported: Neo4jStore,
                                                                          seed_store: Any) -> None:
    from paperkg.queries.catalog import load_catalog
    from paperkg.queries.runner import run_named
    from tests.graph.results_gold import RESULT_QUERIES
    from tests.queries.parity import cases, compare

    for name, query in sorted(load_catalog().items()):
        if name in RESULT_QUERIES:     # examples of results the seed lacks; the cases below cover them
            continue
        params = query.example_params()
        assert run_named(imported, name, params) == run_named(seed_store, name, params), name
    problems = compare(seed_store, imported, cases(seed_store.graph(), seed=7, per_query=15))
    assert not problems, "\n".join(problems[:10])
