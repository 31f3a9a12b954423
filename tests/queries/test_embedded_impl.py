"""Each catalog query's embedded (Python) implementation on the hand-built tiny graph, with the rows
worked out by hand from `tests/queries/graphs.py::tiny_graph` (the same graph the Neo4j parity test
runs the Cypher on). Goes through `run_named`, so validation and normalisation are covered too."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.errors import StoreUnavailableError, UnknownEntityError
from paperkg.graph.state import BuildState
from paperkg.queries import embedded_impl, index_snapshot
from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named
from tests.queries.graphs import (
    ACC,
    DIFFPRIV,
    DYNPROG,
    GRPO,
    GSM8K,
    MATH,
    PPO,
    QWEN,
    REASONING,
    random_graph,
    tiny_graph,
)
from tests.queries.parity import GraphOnly, cases, compare

STORE = GraphOnly(tiny_graph())


def ent(eid: str, name: str, etype: str, papers: int, **extra: Any) -> dict[str, Any]:
    return {"id": eid, "name": name, "type": etype, "papers": papers, **extra}


def step(i: int, via: str | None, eid: str, etype: str, name: str) -> dict[str, Any]:
    return {"step": i, "via": via, "id": eid, "type": etype, "name": name}


NAMES = {GRPO: "GRPO", PPO: "PPO"}
RIDS = {("p1", 10): "r1", ("p1", 20): "r2", ("p3", 7): "r3", ("p4", 3): "r4", ("p2", 5): "r5",
        ("p1", 60): "r6", ("p1", 40): "r7"}


def _result_cols(paper: str, start: int, number: float, year: int | None, title: str | None,
                 value: str | None, unit: str, metric: str | None, direction: str) -> dict[str, Any]:
    return {"value": value or f"{number:g}%", "number": number, "unit": unit, "metric": metric,
            "direction": direction, "year": year, "paper": paper, "title": title,
            "evidence": f"sentence of {RIDS[(paper, start)]}", "result": f"result:{paper}:{start}"}


def board(paper: str, start: int, subject: str | None, number: float, year: int | None = None,
          title: str | None = None, *, benchmark: str = GSM8K, value: str | None = None, unit: str = "%",
          metric: str | None = "accuracy", metric_id: str | None = ACC, direction: str = "higher") -> dict:
    """A `leaderboard` row of a tiny-graph result (tests/queries/graphs.py)."""
    cols = _result_cols(paper, start, number, year, title, value, unit, metric, direction)
    return {"benchmark": benchmark, "subject": NAMES.get(subject or ""), "subject_id": subject,
            "subject_type": "Method" if subject else None, "value": cols["value"], "number": number,
            "unit": unit, "metric": metric, "metric_id": metric_id, "direction": direction, "year": year,
            "paper": paper, "title": title, "evidence": cols["evidence"], "result": cols["result"],
            "confidence": 0.8}


def result_of(paper: str, start: int, number: float, year: int | None = None, title: str | None = None, *,
              value: str | None = None, unit: str = "%", kind: str = "absolute", benchmark: str = "GSM8K",
              benchmark_id: str = GSM8K, metric: str | None = "accuracy", metric_id: str | None = ACC,
              baseline: str | None = None, baseline_id: str | None = None, direction: str = "higher") -> dict:
    """A `results_of` row of a tiny-graph result of GRPO."""
    cols = _result_cols(paper, start, number, year, title, value, unit, metric, direction)
    return {"subject": GRPO, "value": cols["value"], "number": number, "unit": unit, "kind": kind,
            "benchmark": benchmark, "benchmark_id": benchmark_id, "metric": metric, "metric_id": metric_id,
            "baseline": baseline, "baseline_id": baseline_id, "direction": direction, "year": year,
            "paper": paper, "title": title, "evidence": cols["evidence"], "result": cols["result"],
            "confidence": 0.8, "start": start}


def sota(year: int, paper: str, start: int, subject: str | None, number: float, title: str | None,
         record: bool, direction: str = "higher") -> dict:
    """A `sota_over_time` row of a tiny-graph result on GSM8K in accuracy."""
    cols = _result_cols(paper, start, number, year, title, None, "%", "accuracy", direction)
    return {"year": year, "value": cols["value"], "number": number, "unit": "%", "metric": "accuracy",
            "direction": direction, "subject": NAMES.get(subject or ""), "subject_id": subject,
            "paper": paper, "title": title, "evidence": cols["evidence"], "result": cols["result"],
            "record": record}


GRPO_ALIASES = ["GRPO", "Group Relative Policy Optimization"]
PPO_ALIASES = ["PPO", "Proximal Policy Optimization"]

QWEN_ROW = {"id": QWEN, "name": "Qwen3-8B", "family": "Qwen", "papers": 2, "first_year": None,
            "last_year": None}

CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    # entity_search: substring of any alias key, case/dash/space-insensitive; papers desc, name, id
    ("entity_search", {"q": "Policy-Opt"}, [
        {"id": GRPO, "name": "GRPO", "type": "Method", "aliases": GRPO_ALIASES, "papers": 3},
        {"id": PPO, "name": "PPO", "type": "Method", "aliases": PPO_ALIASES, "papers": 2}]),
    ("entity_search", {"q": "policy", "type": "Model"}, []),
    ("entity_search", {"q": "math"}, [
        {"id": MATH, "name": "MATH", "type": "Benchmark", "aliases": ["MATH"], "papers": 1},
        {"id": REASONING, "name": "mathematical reasoning", "type": "Task",
         "aliases": ["mathematical reasoning"], "papers": 1}]),
    ("entity_search", {"q": "math", "limit": "1"}, [
        {"id": MATH, "name": "MATH", "type": "Benchmark", "aliases": ["MATH"], "papers": 1}]),
    ("entity_search", {"q": "math", "offset": 1}, [
        {"id": REASONING, "name": "mathematical reasoning", "type": "Task",
         "aliases": ["mathematical reasoning"], "papers": 1}]),
    ("entity_search", {"q": "dp", "type": "method"}, [
        {"id": DIFFPRIV, "name": "differential privacy", "type": "Method",
         "aliases": ["DP", "differential privacy"], "papers": 1},
        {"id": DYNPROG, "name": "dynamic programming", "type": "Method",
         "aliases": ["DP", "dynamic programming"], "papers": 1}]),
    # entity: any alias; an acronym of two entities gives both
    ("entity", {"name": "group relative policy-optimization"}, [
        {"id": GRPO, "name": "GRPO", "type": "Method", "aliases": GRPO_ALIASES, "papers": 3,
         "introduced": 1, "family": None, "ambiguous": False, "first_year": 2025,
         "last_year": 2026, "confidence": 0.9}]),
    ("entity", {"name": "dp"}, [
        {"id": DIFFPRIV, "name": "differential privacy", "type": "Method",
         "aliases": ["DP", "differential privacy"], "papers": 1, "introduced": 1, "family": None,
         "ambiguous": False, "first_year": None,
         "last_year": None, "confidence": None},
        {"id": DYNPROG, "name": "dynamic programming", "type": "Method",
         "aliases": ["DP", "dynamic programming"], "papers": 1, "introduced": 0, "family": None,
         "ambiguous": False, "first_year": None,
         "last_year": None, "confidence": None}]),
    ("entity", {"name": "QWEN3 8b"}, [
        {"id": QWEN, "name": "Qwen3-8B", "type": "Model", "aliases": ["Qwen3 8B", "Qwen3-8B"], "papers": 2,
         "introduced": 0, "family": "Qwen", "ambiguous": False, "first_year": None,
         "last_year": None, "confidence": None}]),
    ("entity", {"name": "math"}, [
        {"id": MATH, "name": "MATH", "type": "Benchmark", "aliases": ["MATH"], "papers": 1,
         "introduced": 0, "family": None, "ambiguous": True, "first_year": None,
         "last_year": None, "confidence": None}]),
    # neighbors: support desc, relation, direction, name, id
    ("neighbors", {"name": "GRPO"}, [
        {"entity": GRPO, "relation": "COMPARED_WITH", "direction": "out", "id": PPO, "name": "PPO",
         "type": "Method", "support": 2, "confidence": 1.0},
        {"entity": GRPO, "relation": "EVALUATED_ON", "direction": "out", "id": GSM8K, "name": "GSM8K",
         "type": "Dataset", "support": 2, "confidence": 1.0},
        {"entity": GRPO, "relation": "COMPARED_WITH", "direction": "in", "id": PPO, "name": "PPO",
         "type": "Method", "support": 1, "confidence": 0.4},
        {"entity": GRPO, "relation": "EVALUATED_ON", "direction": "out", "id": MATH, "name": "MATH",
         "type": "Benchmark", "support": 1, "confidence": 1.0},
        {"entity": GRPO, "relation": "USES", "direction": "in", "id": QWEN, "name": "Qwen3-8B",
         "type": "Model", "support": 1, "confidence": 1.0}]),
    ("neighbors", {"name": "GRPO", "limit": 2}, [
        {"entity": GRPO, "relation": "COMPARED_WITH", "direction": "out", "id": PPO, "name": "PPO",
         "type": "Method", "support": 2, "confidence": 1.0},
        {"entity": GRPO, "relation": "EVALUATED_ON", "direction": "out", "id": GSM8K, "name": "GSM8K",
         "type": "Dataset", "support": 2, "confidence": 1.0}]),
    ("neighbors", {"name": "GRPO", "limit": 2, "offset": "3"}, [
        {"entity": GRPO, "relation": "EVALUATED_ON", "direction": "out", "id": MATH, "name": "MATH",
         "type": "Benchmark", "support": 1, "confidence": 1.0},
        {"entity": GRPO, "relation": "USES", "direction": "in", "id": QWEN, "name": "Qwen3-8B",
         "type": "Model", "support": 1, "confidence": 1.0}]),
    ("neighbors", {"name": "mathematical reasoning"}, []),
    # papers_mentioning: one row per paper, by id
    ("papers_mentioning", {"name": "grpo"}, [
        {"id": "p1", "title": "First", "year": 2025, "mentions": 2, "entities": [GRPO]},
        {"id": "p2", "title": None, "year": None, "mentions": 1, "entities": [GRPO]},
        {"id": "p3", "title": "Third", "year": None, "mentions": 1, "entities": [GRPO]}]),
    ("papers_mentioning", {"name": "DP"}, [
        {"id": "p2", "title": None, "year": None, "mentions": 1, "entities": [DYNPROG]},
        {"id": "p3", "title": "Third", "year": None, "mentions": 1, "entities": [DIFFPRIV]}]),
    # papers_with_all
    ("papers_with_all", {"names": "GRPO, accuracy"}, [
        {"id": "p1", "title": "First", "year": 2025}, {"id": "p2", "title": None, "year": None},
        {"id": "p3", "title": "Third", "year": None}]),
    ("papers_with_all", {"names": ["grpo", "Proximal Policy Optimization"]}, [
        {"id": "p1", "title": "First", "year": 2025}, {"id": "p3", "title": "Third", "year": None}]),
    ("papers_with_all", {"names": '["DP", "Qwen3-8B"]'}, [{"id": "p3", "title": "Third", "year": None}]),
    ("papers_with_all", {"names": ["GRPO", "mathematical reasoning"]}, []),
    # an ambiguous name after a rarer one; two entities both related to a third (Qwen3-8B), which
    # is no paper of theirs
    ("papers_with_all", {"names": ["Qwen3-8B", "DP"]}, [{"id": "p3", "title": "Third", "year": None}]),
    ("papers_with_all", {"names": ["GRPO", "GSM8K"]}, [
        {"id": "p1", "title": "First", "year": 2025}, {"id": "p2", "title": None, "year": None}]),
    # evaluated_on / benchmarks_of / compared_with
    ("evaluated_on", {"name": "gsm-8k"}, [
        {"dataset": GSM8K, "id": GRPO, "name": "GRPO", "type": "Method", "support": 2, "confidence": 1.0},
        {"dataset": GSM8K, "id": QWEN, "name": "Qwen3-8B", "type": "Model", "support": 1,
         "confidence": 1.0}]),
    ("evaluated_on", {"name": "GRPO"}, []),
    ("benchmarks_of", {"name": "GRPO"}, [
        {"entity": GRPO, "id": GSM8K, "name": "GSM8K", "type": "Dataset", "support": 2, "confidence": 1.0},
        {"entity": GRPO, "id": MATH, "name": "MATH", "type": "Benchmark", "support": 1, "confidence": 1.0}]),
    ("benchmarks_of", {"name": "Qwen3-8B"}, [
        {"entity": QWEN, "id": GSM8K, "name": "GSM8K", "type": "Dataset", "support": 1, "confidence": 1.0}]),
    ("compared_with", {"name": "GRPO"}, [
        {"entity": GRPO, "id": PPO, "name": "PPO", "type": "Method", "direction": "out", "support": 2,
         "confidence": 1.0},
        {"entity": GRPO, "id": PPO, "name": "PPO", "type": "Method", "direction": "in", "support": 1,
         "confidence": 0.4}]),
    ("compared_with", {"name": "PPO"}, [
        {"entity": PPO, "id": GRPO, "name": "GRPO", "type": "Method", "direction": "in", "support": 2,
         "confidence": 1.0},
        {"entity": PPO, "id": GRPO, "name": "GRPO", "type": "Method", "direction": "out", "support": 1,
         "confidence": 0.4}]),
    # min_confidence: the 0.4 comparison goes at any floor above it; a missing confidence is 1.0
    ("compared_with", {"name": "GRPO", "min_confidence": 0.5}, [
        {"entity": GRPO, "id": PPO, "name": "PPO", "type": "Method", "direction": "out", "support": 2,
         "confidence": 1.0}]),
    ("compared_with", {"name": "GRPO", "min_confidence": "0.4"}, [
        {"entity": GRPO, "id": PPO, "name": "PPO", "type": "Method", "direction": "out", "support": 2,
         "confidence": 1.0},
        {"entity": GRPO, "id": PPO, "name": "PPO", "type": "Method", "direction": "in", "support": 1,
         "confidence": 0.4}]),
    ("neighbors", {"name": "PPO", "min_confidence": 1}, [
        {"entity": PPO, "relation": "COMPARED_WITH", "direction": "in", "id": GRPO, "name": "GRPO",
         "type": "Method", "support": 2, "confidence": 1.0}]),
    ("evaluated_on", {"name": "GSM8K", "min_confidence": 1}, [
        {"dataset": GSM8K, "id": GRPO, "name": "GRPO", "type": "Method", "support": 2, "confidence": 1.0},
        {"dataset": GSM8K, "id": QWEN, "name": "Qwen3-8B", "type": "Model", "support": 1,
         "confidence": 1.0}]),
    # timeline: papers with a year only (p1 2025, p4 2026; p2, p3 have none)
    ("timeline", {"name": "GRPO"}, [{"year": 2025, "papers": 1}]),
    ("timeline", {"name": "mathematical reasoning"}, [{"year": 2026, "papers": 1}]),
    ("timeline", {"name": "DP"}, []),
    # trending: latest year 2026; recent 2026 vs before 2025 by default
    ("trending", {}, []),                                   # nothing reaches min_papers=2
    ("trending", {"min_papers": 1}, [
        {"id": REASONING, "name": "mathematical reasoning", "type": "Task", "recent": 1, "before": 0,
         "growth": 1, "since": 2026, "until": 2026}]),
    ("trending", {"since": 2025, "min_papers": 1, "type": "Method", "limit": 1}, [   # 2025-26 vs 2023-24
        {"id": GRPO, "name": "GRPO", "type": "Method", "recent": 1, "before": 0, "growth": 1,
         "since": 2025, "until": 2026}]),
    ("trending", {"since": 2027, "min_papers": 1}, []),     # after the latest year
    # top_entities
    ("top_entities", {"type": "Method", "limit": 3}, [
        ent(GRPO, "GRPO", "Method", 3, introduced=1), ent(PPO, "PPO", "Method", 2, introduced=0),
        ent(DIFFPRIV, "differential privacy", "Method", 1, introduced=1)]),
    ("top_entities", {"type": "METRIC"}, [ent(ACC, "accuracy", "Metric", 3, introduced=0)]),
    # family: by the family's name or any of its models' names, exactly (no substring)
    ("family", {"name": "qwen"}, [QWEN_ROW]),
    ("family", {"name": "QWEN 3-8b"}, [QWEN_ROW]),
    ("family", {"name": "Qwen", "offset": 1}, []),
    ("family", {"name": "Qwe"}, []),
    ("family", {"name": "GRPO"}, []),           # names a method: no family
    # cooccurring: papers desc, then name (upper case sorts before lower case, as in Neo4j)
    ("cooccurring", {"name": "GRPO"}, [
        {"entity": GRPO, **ent(ACC, "accuracy", "Metric", 3)},
        {"entity": GRPO, **ent(GSM8K, "GSM8K", "Dataset", 2)},
        {"entity": GRPO, **ent(PPO, "PPO", "Method", 2)},
        {"entity": GRPO, **ent(QWEN, "Qwen3-8B", "Model", 2)},
        {"entity": GRPO, **ent(MATH, "MATH", "Benchmark", 1)},
        {"entity": GRPO, **ent(DIFFPRIV, "differential privacy", "Method", 1)},
        {"entity": GRPO, **ent(DYNPROG, "dynamic programming", "Method", 1)}]),
    ("cooccurring", {"name": "GRPO", "type": "Method"}, [
        {"entity": GRPO, **ent(PPO, "PPO", "Method", 2)},
        {"entity": GRPO, **ent(DIFFPRIV, "differential privacy", "Method", 1)},
        {"entity": GRPO, **ent(DYNPROG, "dynamic programming", "Method", 1)}]),
    ("cooccurring", {"name": "GRPO", "limit": 2}, [
        {"entity": GRPO, **ent(ACC, "accuracy", "Metric", 3)},
        {"entity": GRPO, **ent(GSM8K, "GSM8K", "Dataset", 2)}]),
    # introduced_in: by collection name or id
    ("introduced_in", {"collection": "neurips-2026"}, [
        {"id": GRPO, "name": "GRPO", "type": "Method", "papers": 1, "paper": "p1"}]),
    ("introduced_in", {"collection": "collection:daily-papers"}, [
        {"id": DIFFPRIV, "name": "differential privacy", "type": "Method", "papers": 1, "paper": "p3"},
        {"id": REASONING, "name": "mathematical reasoning", "type": "Task", "papers": 1, "paper": "p4"}]),
    ("introduced_in", {"collection": "Nowhere"}, []),
    # shortest_path: smallest ids among the shortest chains, then smallest vias
    ("shortest_path", {"from": "GRPO", "to": "accuracy"}, [
        step(0, None, GRPO, "Method", "GRPO"), step(1, "-EVALUATED_ON->", GSM8K, "Dataset", "GSM8K"),
        step(2, "-MEASURED_BY->", ACC, "Metric", "accuracy")]),
    ("shortest_path", {"from": "GRPO", "to": "PPO"}, [
        step(0, None, GRPO, "Method", "GRPO"), step(1, "-COMPARED_WITH->", PPO, "Method", "PPO")]),
    ("shortest_path", {"from": "DP", "to": "qwen3 8b"}, [
        step(0, None, DIFFPRIV, "Method", "differential privacy"),
        step(1, "<-MENTIONS-", "p3", "Paper", "Third"),
        step(2, "-MENTIONS->", QWEN, "Model", "Qwen3-8B")]),
    ("shortest_path", {"from": "MATH", "to": "DP"}, [
        step(0, None, MATH, "Benchmark", "MATH"), step(1, "<-MENTIONS-", "p2", "Paper", "p2"),
        step(2, "-MENTIONS->", DYNPROG, "Method", "dynamic programming")]),
    ("shortest_path", {"from": "GRPO", "to": "mathematical reasoning"}, []),
    # paper: by its own id or a record id merged into it; entities by first mention, then id
    ("paper", {"id": "p3b"}, [{
        "id": "p3", "ids": ["p3", "p3b"], "title": "Third", "year": None, "authors": [], "url": None,
        "doi": "10.1000/third", "categories": ["cs.LG", "stat.ML"], "abstract": "a3", "sentence_starts": [0],
        "collections": ["Daily Papers"], "entities": [
            {"id": DIFFPRIV, "type": "Method", "name": "differential privacy", "count": 1, "introduced": True,
             "mentions": [{"sentence": 0, "start": 0, "end": 1, "surface": "x"}]},
            {"id": GRPO, "type": "Method", "name": "GRPO", "count": 1, "introduced": False,
             "mentions": [{"sentence": 0, "start": 0, "end": 1, "surface": "x"}]},
            {"id": PPO, "type": "Method", "name": "PPO", "count": 1, "introduced": False,
             "mentions": [{"sentence": 0, "start": 0, "end": 1, "surface": "x"}]},
            {"id": ACC, "type": "Metric", "name": "accuracy", "count": 2, "introduced": False,
             "mentions": [{"sentence": 0, "start": 0, "end": 1, "surface": "x"},
                          {"sentence": 0, "start": 1, "end": 2, "surface": "x"}]},
            {"id": QWEN, "type": "Model", "name": "Qwen3-8B", "count": 1, "introduced": False,
             "mentions": [{"sentence": 0, "start": 0, "end": 1, "surface": "x"}]}]}]),
    ("paper", {"id": "p9"}, []),
    ("shortest_path", {"from": "GRPO", "to": "grpo"}, []),
    # leaderboard: one row per (paper, subject), its best value; best first by the metric's direction
    ("leaderboard", {"benchmark": "gsm-8k"}, [
        board("p4", 3, None, 85.0, 2026), board("p3", 7, GRPO, 82.1, title="Third"),
        board("p1", 10, GRPO, 80.0, 2025, "First"), board("p1", 20, PPO, 75.5, 2025, "First")]),
    ("leaderboard", {"benchmark": "GSM8K", "direction": "LOWER", "limit": 2}, [
        board("p1", 20, PPO, 75.5, 2025, "First", direction="lower"),
        board("p1", 40, GRPO, 78.0, 2025, "First", direction="lower")]),
    ("leaderboard", {"benchmark": "GSM8K", "metric": "Accuracy", "offset": 1, "limit": 1}, [
        board("p3", 7, GRPO, 82.1, title="Third")]),
    ("leaderboard", {"benchmark": "GSM8K", "kind": "delta"}, [
        board("p2", 5, GRPO, 3.2, value="3.2 pp", unit="pp", metric=None, metric_id=None)]),
    ("leaderboard", {"benchmark": "MATH"}, [
        board("p1", 60, GRPO, 12.0, 2025, "First", benchmark=MATH, metric="error rate", metric_id=None,
              direction="lower")]),
    ("leaderboard", {"benchmark": "MATH", "metric": "accuracy"}, []),
    # results_of: every result of the subject, by paper and place in the abstract
    ("results_of", {"name": "Group Relative Policy Optimization"}, [
        result_of("p1", 10, 80.0, 2025, "First"), result_of("p1", 40, 78.0, 2025, "First"),
        result_of("p1", 60, 12.0, 2025, "First", benchmark="MATH", benchmark_id=MATH, metric="error rate",
                  metric_id=None, direction="lower"),
        result_of("p2", 5, 3.2, value="3.2 pp", unit="pp", kind="delta", metric=None, metric_id=None,
                  baseline="PPO", baseline_id=PPO),
        result_of("p3", 7, 82.1, title="Third")]),
    ("results_of", {"name": "qwen3-8b"}, []),
    # sota_over_time: the best of each dated year; record when it beats every earlier year
    ("sota_over_time", {"benchmark": "GSM8K", "metric": "accuracy"}, [
        sota(2025, "p1", 10, GRPO, 80.0, "First", True), sota(2026, "p4", 3, None, 85.0, None, True)]),
    ("sota_over_time", {"benchmark": "GSM8K", "metric": "accuracy", "direction": "lower"}, [
        sota(2025, "p1", 20, PPO, 75.5, "First", True, "lower"),
        sota(2026, "p4", 3, None, 85.0, None, False, "lower")]),
]


@pytest.mark.parametrize(("name", "params", "expected"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rows(name: str, params: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    assert run_named(STORE, name, params) == expected


def test_a_name_no_entity_has_is_refused_with_the_closest_names() -> None:
    with pytest.raises(UnknownEntityError, match="no entity named 'nothing like it'") as caught:
        run_named(STORE, "entity", {"name": "nothing like it"})
    assert caught.value.suggestions == []
    with pytest.raises(UnknownEntityError) as caught:
        run_named(STORE, "neighbors", {"name": "GRP0"})
    assert caught.value.suggestions[0] == "GRPO"


def test_every_catalog_query_has_an_implementation_and_a_case() -> None:
    assert set(embedded_impl.IMPLEMENTATIONS) == set(load_catalog())
    assert {c[0] for c in CASES} == set(load_catalog())


def test_columns_are_stable_even_without_rows() -> None:
    """Columns are the Cypher's RETURN names, in its order (compared with rows of the tiny graph)."""
    for name, query in load_catalog().items():
        try:
            rows = run_named(STORE, name, query.example_params())
        except UnknownEntityError:      # an example name this tiny graph lacks: no columns to check
            continue
        returned = query.cypher.rsplit("RETURN", 1)[1]
        for row in rows:
            positions = [returned.find(f" AS {col}") if f" AS {col}" in returned else returned.find(col)
                         for col in row]
            assert positions == sorted(positions) and -1 not in positions, (name, list(row))


def test_index_is_cached_per_graph_object() -> None:
    g = STORE.networkx()
    assert embedded_impl.index_for(g) is embedded_impl.index_for(g)
    other = GraphOnly(tiny_graph()).networkx()
    assert embedded_impl.index_for(other) is not embedded_impl.index_for(g)


def test_shortest_path_is_bounded_by_six_steps() -> None:
    """A chain of 4 papers between two entities is 8 steps: beyond the Cypher's `*..6`."""
    from paperkg.graph.model import Edge, KnowledgeGraph, Node, node_key

    g = KnowledgeGraph()
    names = [f"e{i}" for i in range(5)]
    for i, n in enumerate(names):
        g.add_node(Node("Method", f"method:{n}", {"id": f"method:{n}", "type": "Method", "name": n,
                                                  "aliases": [n], "keys": [n], "paper_count": 2,
                                                  "introduced_count": 0}))
        if i:
            pid = f"p{i}"
            g.add_node(Node("Paper", pid, {"id": pid, "abstract": "x", "ids": [pid]}))
            for target in (f"method:{names[i - 1]}", f"method:{n}"):
                g.add_edge(Edge("MENTIONS", node_key("Paper", pid), target, {"count": 1}))
    store = GraphOnly(g)
    assert len(run_named(store, "shortest_path", {"from": "e0", "to": "e3"})) == 7
    assert run_named(store, "shortest_path", {"from": "e0", "to": "e4"}) == []


def test_entity_search_scan_gives_the_same_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Common fragments are answered by scanning entities in rank order instead of the key index:
    both ways must give the same rows."""
    from tests.queries.parity import cases

    graph = random_graph(8, papers=200, entities=150)
    store = GraphOnly(graph)
    todo = [(n, p) for n, p in cases(graph, seed=8, per_query=60) if n == "entity_search"]
    todo += [("entity_search", {"q": q, "type": t, "limit": 5}) for q in "aeiou" for t in (None, "Method")]
    expected = [run_named(store, n, p) for n, p in todo]
    assert any(expected)
    monkeypatch.setattr(embedded_impl, "_SEARCH_CAP", 0)
    assert [run_named(store, n, p) for n, p in todo] == expected


def test_a_leaderboard_compares_values_within_one_metric_and_unit() -> None:
    """A throughput of 138 tok/s on GSM8K is no better than its accuracies in %: it comes after them,
    in a group of its own, however large the number."""
    from tests.queries.graphs import _result

    graph = tiny_graph()
    _result(graph, "r8", "p2", 30, 138.0, "absolute", {"ACHIEVED_BY": PPO, "ON_BENCHMARK": GSM8K},
            unit="tok/s", display="138 tok/s", value="138 tok/s", metric="throughput")
    rows = run_named(GraphOnly(graph), "leaderboard", {"benchmark": "GSM8K"})
    assert [(r["result"], r["unit"], r["metric"]) for r in rows] == [
        ("result:p4:3", "%", "accuracy"), ("result:p3:7", "%", "accuracy"), ("result:p1:10", "%", "accuracy"),
        ("result:p1:20", "%", "accuracy"), ("result:p2:30", "tok/s", "throughput")]


def test_remembered_results_are_not_shared_with_callers() -> None:
    first = run_named(STORE, "introduced_in", {"collection": "Daily Papers"})
    first[0]["papers"] = 99
    assert run_named(STORE, "introduced_in", {"collection": "Daily Papers"})[0]["papers"] == 1


def test_a_store_answers_the_catalog_from_its_rows_without_a_networkx_view(seed_store_path: Path,
                                                                         tmp_path: Path) -> None:
    """`paperkg serve` is ready once the index is built from the store's rows (a store without a
    saved index: `queries.index_snapshot`); the networkx view (user Cypher's) comes after. Both
    indexes give the same answers, and the view built afterwards holds the node props the index
    holds, not copies."""
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    (path / index_snapshot.FILE).unlink()
    store = EmbeddedStore(path)
    try:
        rows_index = embedded_impl.index_of(store)
        assert store.networkx_loaded() is None and embedded_impl.index_of(store) is rows_index
        graph_view = GraphOnly(store.graph())
        assert compare(store, graph_view, cases(store.graph(), seed=11, per_query=15)) == []
        assert store.networkx_loaded() is None
        g = store.networkx()
        assert g.number_of_edges() == sum(store.stats()["edges"].values())
        assert all(g.nodes[n] is rows_index.props[n] for n in rows_index.props)
        assert embedded_impl.index_for(g) is not rows_index
    finally:
        store.close()


@pytest.mark.parametrize("saved", [True, False], ids=["saved-index", "derived-index"])
def test_a_view_of_a_store_rebuilt_after_its_index_is_refused(seed_store_path: Path, tmp_path: Path,
                                                              saved: bool) -> None:
    """The networkx view built after the index must be of the index's build: a rebuild in between
    is a 503 to retry (a server loads the new build meanwhile), not a mix of two builds; the index
    loaded from the build's file (`queries.index_snapshot`) or derived from the rows alike."""
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    if not saved:
        (path / index_snapshot.FILE).unlink()
    store = EmbeddedStore(path)
    try:
        embedded_impl.index_of(store)
        with BuildState(path).transaction() as tx:
            assert tx.remove([next(iter(store.state.corpus())).ids[0]]) == []
            tx.derive()
        with pytest.raises(StoreUnavailableError, match="rebuilt after its graph was loaded"):
            store.networkx()
    finally:
        store.close()


FAMILY_PAPERS = [
    ("f1", "Qwen3-8B beats GPT-4o.", [("Qwen3-8B", "Model", False), ("GPT-4o", "Model", False)], [], []),
    ("f2", "Qwen3-8B and Qwen2.5-7B.", [("Qwen3-8B", "Model", False), ("Qwen2.5-7B", "Model", False)],
     [], []),
]


def test_family_on_a_built_store(tmp_path: Path) -> None:
    """The builder stores each model's `family_key`, the incremental derivation too: a family is
    found by its own name or a model's, and a model a later build adds joins it."""
    from paperkg.graph.embedded import EmbeddedStore
    from tests.api.conftest import corpus_of
    from tests.stores import add_entry, write_corpus

    def row(name: str, family: str, papers: int) -> dict[str, Any]:
        return {"id": f"model:{name.lower()}", "name": name, "family": family, "papers": papers,
                "first_year": 2025, "last_year": 2025}

    store = write_corpus(tmp_path, corpus_of(FAMILY_PAPERS))
    try:
        qwen = [row("Qwen3-8B", "Qwen", 2), row("Qwen2.5-7B", "Qwen", 1)]
        assert run_named(store, "family", {"name": "QWEN"}) == qwen
        assert run_named(store, "family", {"name": "qwen2.5 7b"}) == qwen
        assert run_named(store, "family", {"name": "Qwen", "limit": 1, "offset": 1}) == qwen[1:]
        assert run_named(store, "family", {"name": "gpt-4o"}) == [row("GPT-4o", "GPT", 1)]
        assert run_named(store, "family", {"name": "Qwen3"}) == []     # neither a family nor a model
    finally:
        store.close()
    state = BuildState(tmp_path)
    try:
        with state.transaction() as tx:
            for entry in corpus_of([("f3", "Qwen2-72B.", [("Qwen2-72B", "Model", False)], [], [])]):
                add_entry(tx, entry)
            tx.derive()
    finally:
        state.close()
    store = EmbeddedStore(tmp_path)
    try:
        assert run_named(store, "family", {"name": "Qwen"}) == [qwen[0], row("Qwen2-72B", "Qwen", 1), qwen[1]]
    finally:
        store.close()
