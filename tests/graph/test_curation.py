"""Corrections (graph/curation.py) on the example corpus: they hold through later builds and
removals, travel as JSON Lines to a fresh store of the same input and give it the same graph, and a
correction naming what is gone is reported, not fatal."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from paperkg.api.build import build, remove, repair
from paperkg.graph import curation
from paperkg.graph.errors import BadInputError, UnknownEntityError
from paperkg.graph.model import ENTITY_LABELS
from paperkg.graph.state import DB_FILE, SCHEMA_VERSION, BuildState
from tests.conftest import EXAMPLES

SCHEMA6 = Path(__file__).parent / "golden" / "schema6"


def _fatal(problem: object) -> None:
    raise AssertionError(problem)


def _snapshot(path: Path) -> tuple[dict, dict]:
    state = BuildState(path, read_only=True)
    try:
        graph = state.graph()
    finally:
        state.close()
    return ({k: (n.label, n.props) for k, n in graph.nodes.items()},
            {k: (e.type, e.source, e.target, e.props) for k, e in graph.edges.items()})


def _assert_as_built(store: Path) -> None:
    """The store's graph is what a fresh build of its papers with its corrections makes."""
    from paperkg.graph.build import build_graph
    from tests.graph.test_incremental import _assert_same

    state = BuildState(store, read_only=True)
    try:
        with state.snapshot() as db:
            rules = curation.Rules.load(db)
        _assert_same(state.graph(), build_graph(state.corpus(), rules))
    finally:
        state.close()


def _entities(nodes: dict) -> dict[str, dict]:
    return {k: props for k, (label, props) in nodes.items() if label in ENTITY_LABELS}


def _apply(path: Path, *corrections: curation.Correction) -> curation.Applied:
    state = BuildState(path)
    try:
        return curation.apply(state, list(corrections))
    finally:
        state.close()


@pytest.fixture
def seed_copy(seed_store_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    return path


def test_corrections_hold_through_builds_and_removals_and_travel_to_a_fresh_store(
        seed_store_path: Path, tmp_path: Path) -> None:
    """The issue's check: merge, retype, drop on a store of three example files; add the fourth,
    remove a paper; the corrections hold, and their export imported into a fresh store of the same
    input (all four files, the paper removed) gives the same graph, node for node, edge for edge."""
    files = sorted(EXAMPLES.iterdir())
    store = tmp_path / "curated"
    build([str(f) for f in files[1:]], store, _fatal)
    applied = _apply(store, curation.validate("merge", "DPO", "RLHF"),
                     curation.validate("retype", "shapley value", "Metric"),
                     curation.validate("drop", "pruning"))
    # the papers of the entities they name are derived again, not the whole store's (231 papers)
    assert applied.changed and not applied.not_applying and 0 < applied.papers < 60
    before = _entities(_snapshot(store)[0])
    rlhf = before["method:reinforcement-learning-from-human-feedback"]
    assert rlhf["curated"] and {"DPO", "RLHF"} <= set(rlhf["aliases"])
    assert rlhf["name"] == "RLHF"             # the entity merged into keeps its name

    build([str(files[0])], store, _fatal)
    nodes, edges = _snapshot(store)
    victim = next(source for etype, source, target, _ in edges.values()
                  if etype == "MENTIONS" and target == "method:reinforcement-learning-from-human-feedback")
    victim_id = nodes[victim][1]["id"]
    summary = remove([victim_id], store)
    assert summary.removed == 1 and not summary.not_applying

    nodes, edges = _snapshot(store)
    entities = _entities(nodes)
    assert "method:direct-preference-optimization" not in entities
    assert "DPO" in entities["method:reinforcement-learning-from-human-feedback"]["aliases"]
    assert entities["metric:shapley-value"]["curated"] and "method:shapley-value" not in entities
    assert not [k for k, p in entities.items() if "pruning" in p["keys"]]
    gone = ("method:pruning", "method:direct-preference-optimization")
    assert not [e for e in edges.values() if e[2] in gone]

    exported = tmp_path / "corrections.jsonl"
    state = BuildState(store, read_only=True)
    with state.snapshot() as db:
        assert curation.write_jsonl(curation.load(db), exported) == 3
    state.close()
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert [(line["version"], line["op"]) for line in lines] == [(1, "merge"), (1, "retype"), (1, "drop")]

    fresh = tmp_path / "fresh"
    shutil.copytree(seed_store_path, fresh)
    remove([victim_id], fresh)
    state = BuildState(fresh)
    curation.apply(state, curation.read_jsonl(exported), strict=False)
    state.close()
    assert _snapshot(fresh) == (nodes, edges)


def test_a_correction_of_something_gone_is_listed_as_not_applying(seed_copy: Path, tmp_path: Path) -> None:
    lines = tmp_path / "c.jsonl"
    lines.write_text(json.dumps({"version": 1, "op": "drop", "name": "Frobnicated Transformer"}) + "\n"
                     + json.dumps({"version": 1, "op": "retype", "name": "GRPO", "type": "Model"}) + "\n")
    state = BuildState(seed_copy)
    applied = curation.apply(state, curation.read_jsonl(lines), strict=False)
    assert [s.correction.name for s in applied.not_applying] == ["Frobnicated Transformer"]
    assert "no paper mentions 'Frobnicated Transformer'" in applied.not_applying[0].reason
    statuses = curation.listing(state)
    state.close()
    assert [s.applies for s in statuses] == [False, True]
    assert "model:group-relative-policy-optimization" in _snapshot(seed_copy)[0]
    summary = build([str(EXAMPLES)], seed_copy, _fatal)          # nothing new: still reported
    assert summary.not_applying == ["drop 'Frobnicated Transformer': no paper mentions "
                                    "'Frobnicated Transformer' any more"]


def test_split_rename_and_undo(seed_copy: Path) -> None:
    """`POMDP` is a Task in nine mentions and a Method in one: split, each paper's mentions join
    the entity of their type; undo gives back the graph before."""
    original = _snapshot(seed_copy)
    assert "task:pomdp" in original[0] and "method:pomdp" not in original[0]
    _apply(seed_copy, curation.validate("split", "POMDP"),
           curation.validate("rename", "GRPO", "Group Relative PO"))
    entities = _entities(_snapshot(seed_copy)[0])
    assert entities["task:pomdp"]["curated"] and entities["method:pomdp"]["curated"]
    assert entities["method:pomdp"]["paper_count"] == 1
    grpo = entities["method:group-relative-policy-optimization"]
    assert grpo["name"] == "Group Relative PO" and "GRPO" in grpo["aliases"]
    assert "grouprelativepo" in grpo["keys"]            # queries find it by its new name
    state = BuildState(seed_copy)
    assert [c.op for c in curation.remove(state, "POMDP")] == ["split"]
    assert [c.op for c in curation.remove(state, "Group Relative PO")] == ["rename"]
    state.close()
    assert _snapshot(seed_copy) == original


def test_corrected_incremental_graph_is_build_graph_of_the_corpus_and_corrections(seed_copy: Path) -> None:
    """Corrections applied to a built store (re-deriving only what they touch) give the graph the
    whole-corpus derivation (`build_graph`, the specification) gives with the same corrections."""
    _apply(seed_copy, curation.validate("merge", "DPO", "RLHF"), curation.validate("drop", "pruning"),
           curation.validate("split", "POMDP"), curation.validate("retype", "MDP", "Task"),
           curation.validate("rename", "GRPO", "Group Relative PO"))
    _assert_as_built(seed_copy)


def test_repair_keeps_the_corrections(seed_copy: Path) -> None:
    """`paperkg repair` empties and derives every derived table again: the corrections are source data
    of the state, not derived, so the repaired graph is the corrected one."""
    _apply(seed_copy, curation.validate("merge", "DPO", "RLHF"), curation.validate("drop", "pruning"))
    corrected = _snapshot(seed_copy)
    repair(seed_copy)
    assert _snapshot(seed_copy) == corrected


@pytest.mark.parametrize(("op", "name", "value", "error", "says"), [
    ("merge", "GRPPO", "PPO", UnknownEntityError, "did you mean 'GRPO'"),
    ("merge", "GRPO", "Group Relative Policy Optimization", BadInputError, "one entity already"),
    ("rename", "GRPO", "PPO", BadInputError, "name of another entity"),
    ("split", "GRPO", None, BadInputError, "nothing to split"),
])
def test_bad_corrections_are_refused_with_what_to_do(seed_copy: Path, op: str, name: str, value: str | None,
                                                     error: type, says: str) -> None:
    from paperkg.queries.suggest import state_suggester

    state = BuildState(seed_copy)
    try:
        with pytest.raises(error, match=says):
            curation.apply(state, [curation.validate(op, name, value)], suggest=state_suggester(state))
        assert curation.listing(state) == []
    finally:
        state.close()


@pytest.mark.parametrize(("op", "name", "value", "says"), [
    ("retype", "GRPO", "Algorithm", "not an entity type"),
    ("rename", "GRPO", "bad\x1bname", "cannot be a name"),
    ("explode", "GRPO", None, "unknown correction"),
    ("merge", "GRPO", None, "needs 'into'"),
])
def test_malformed_corrections(op: str, name: str, value: str | None, says: str) -> None:
    with pytest.raises(BadInputError, match=says):
        curation.validate(op, name, value)


def test_a_bad_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"version": 1, "op": "drop", "name": "x y"}\n'
                    '{"version": 2, "op": "drop", "name": "z"}\n')
    with pytest.raises(BadInputError, match=r"c.jsonl:2: correction format version 2"):
        curation.read_jsonl(path)


def test_a_schema_6_store_gains_the_corrections_table_and_keeps_its_graph(tmp_path: Path) -> None:
    """Schema 6 (paperkg b3b00f8, `golden/schema6`) had no corrections: opening it adds their table.
    Its graph stays, but for the ids schema 9 made from the key's folds (`vision transformers`, written
    so alone, is `method:vision-transformer` now) and the papers by year schema 10 gave each entity:
    the next build is what a fresh build makes."""
    shutil.copy(SCHEMA6 / DB_FILE, tmp_path / DB_FILE)
    before = _snapshot_raw(tmp_path / DB_FILE)
    state = BuildState(tmp_path)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 14
        assert db.execute("SELECT count(*) FROM corrections").fetchone()[0] == 0
    with state.transaction() as tx:
        tx.derive()
    state.close()
    after = _snapshot_raw(tmp_path / DB_FILE)
    renamed = {"method:vision-transformers": "method:vision-transformer",
               "metric:carbon-emissions": "metric:carbon-emission"}
    assert {k for k, _ in before[0]} - {k for k, _ in after[0]} == set(renamed)
    assert {k for k, _ in after[0]} - {k for k, _ in before[0]} == set(renamed.values())
    # schema 10 gave each entity its papers by year; nothing else of a row changed
    unchanged = [row for row in before[0] if row[0] not in renamed]
    assert unchanged == [(key, _without_years(props)) for key, props in after[0]
                         if key not in renamed.values()]
    _assert_as_built(tmp_path)
    _apply(tmp_path, curation.validate("retype", "Random Tracklet Sampling", "Model"))
    assert "model:random-tracklet-sampling" in _snapshot(tmp_path)[0]


def _without_years(props: str) -> str:
    data = json.loads(props)
    data.pop("years", None)
    data.pop("papers_per_year", None)
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _snapshot_raw(db_file: Path) -> tuple[list, list]:
    with sqlite3.connect(db_file) as db:
        return (sorted(db.execute("SELECT key, props FROM nodes")),
                sorted(db.execute("SELECT id, props FROM edges")))


def test_corrections_move_the_links_of_results_and_the_result_queries_follow(results_store_path: Path,
                                                                             tmp_path: Path) -> None:
    """A `Result` links to the entities its surfaces name (ACHIEVED_BY, ON_BENCHMARK, IN_METRIC,
    AGAINST): merging its subject, retyping its benchmark (a new id), dropping its baseline or
    splitting its metric's acronym moves or removes the link as the entity goes, `leaderboard` and
    `results_of` follow, and the graph is the whole-corpus derivation's with the same corrections."""
    from paperkg.graph.embedded import EmbeddedStore
    from paperkg.graph.model import RESULT_LINKS
    from paperkg.queries.runner import run_named

    store = tmp_path / "results"
    shutil.copytree(results_store_path, store)

    def ask(query: str, /, **params: object) -> list[dict]:
        opened = EmbeddedStore(store)
        try:
            return run_named(opened, query, params)
        finally:
            opened.close()

    board = {"benchmark": "Gait3D", "metric": "rank-1 accuracy"}
    before = ask("leaderboard", **board)
    assert {"method:gaitset", "method:gaitbase"} <= {r["subject_id"] for r in before}
    assert {r["benchmark"] for r in before} == {"dataset:gait3d"}
    gaitset = ask("results_of", name="GaitSet")
    gaitbase = ask("results_of", name="GaitBase")
    def links(edges: dict) -> Counter:
        return Counter(e[0] for e in edges.values() if e[0] in ("REPORTS", *RESULT_LINKS.values()))

    links_before = links(_snapshot(store)[1])

    _apply(store, curation.validate("merge", "GaitSet", "GaitBase"),
           curation.validate("retype", "Gait3D", "Benchmark"))
    nodes, edges = _snapshot(store)
    assert "method:gaitset" not in nodes and "dataset:gait3d" not in nodes
    assert links(edges) == links_before and len(links_before) == 5       # links moved, none lost
    assert all(source in nodes and target in nodes for _, source, target, _ in edges.values())

    def moved(row: dict) -> dict:
        if row["subject_id"] == "method:gaitset":
            row = {**row, "subject_id": "method:gaitbase", "subject": "GaitBase"}
        return {**row, "benchmark": "benchmark:gait3d"}

    assert ask("leaderboard", **board) == [moved(r) for r in before]
    after = ask("results_of", name="GaitBase")
    assert ask("results_of", name="GaitSet") == after          # the old name is an alias now
    assert sorted(r["result"] for r in after) == sorted(r["result"] for r in gaitset + gaitbase)
    assert {r["subject"] for r in after} == {"method:gaitbase"}
    assert {r["benchmark_id"] for r in after if r["benchmark"] == "Gait3D"} == {"benchmark:gait3d"}

    # a dropped entity takes its links with it; the results stay, with the words they wrote
    against = [(s, t) for etype, s, t, _ in edges.values() if etype == "AGAINST"]
    target = sorted(t for _, t in against)[0]
    dropped = [s for s, t in against if t == target]
    _apply(store, curation.validate("drop", target))
    nodes, edges = _snapshot(store)
    assert target not in nodes and not [e for e in edges.values() if target in (e[1], e[2])]
    assert links(edges) == links_before - Counter({"AGAINST": len(dropped)})
    assert all(nodes[r][1]["baseline"] for r in dropped)

    # `MAE` is a Metric in one paper (mean absolute error, no long form) and the Masked Autoencoder
    # elsewhere: that paper's result has no IN_METRIC link while `MAE` names a Method (a metric link
    # ends at a Metric only), and gets one once a split gives the metric its own entity
    mae = [key for key, (label, props) in nodes.items()
           if label == "Result" and props.get("metric") == "MAE"]
    assert mae and not [s for etype, s, _t, _ in edges.values() if etype == "IN_METRIC" and s in mae]
    _apply(store, curation.validate("split", "MAE"))
    nodes, edges = _snapshot(store)
    moved_to = {t for etype, s, t, _ in edges.values() if etype == "IN_METRIC" and s in mae}
    assert [nodes[t][0] for t in moved_to] == ["Metric"] and nodes[next(iter(moved_to))][1]["name"] == "MAE"

    _assert_as_built(store)
