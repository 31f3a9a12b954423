"""Corrections from Python (`kg.merge`, `kg.retype`, `kg.drop`, ..., `kg.review`) on a copy of the
example store, held to the CLI: what the handle answers next is the corrected graph (queries and
networkx), `kg.corrections()` is `paperkg curate list --json`, and the exported corrections
imported into a fresh store of the same input give the same graph."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

import paperkg
from paperkg.graph.errors import (
    BadInputError,
    InputNotFoundError,
    NotFoundError,
    UnknownEntityError,
    UsageError,
)
from tests.api.test_cli import paperkg as cli

DPO, RLHF = "method:direct-preference-optimization", "method:reinforcement-learning-from-human-feedback"


@pytest.fixture
def store(seed_store_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    return path


def test_merge_retype_drop_show_in_queries_and_networkx_and_travel(store: Path, seed_store_path: Path,
                                                                    tmp_path: Path) -> None:
    with paperkg.open(store) as kg:
        dpo_papers = {p["id"] for p in kg.papers("DPO", limit=1000)}
        assert kg.entity("DPO")["id"] == DPO and kg.networkx().has_node(DPO)      # loaded before

        merged = kg.merge("DPO", "RLHF")
        assert merged.changed and [c.describe() for c in merged.corrections] == ["merge 'DPO' into 'RLHF'"]
        assert not merged.not_applying and 0 < merged.papers < 60
        retyped = kg.retype("shapley value", "metric")       # types are taken in any case
        assert [c.value for c in retyped.corrections] == ["Metric"]
        kg.drop("pruning")

        # the handle answers from the corrected graph, not the one it had loaded
        assert kg.entity("DPO")["id"] == RLHF
        assert dpo_papers <= {p["id"] for p in kg.papers("RLHF", limit=1000)}
        assert kg.entity("shapley value")["type"] == "Metric"
        with pytest.raises(UnknownEntityError):
            kg.entity("pruning")
        g = kg.networkx()
        assert not g.has_node(DPO) and g.nodes[RLHF]["curated"] and "DPO" in g.nodes[RLHF]["aliases"]
        assert g.nodes[RLHF]["name"] == "RLHF"
        assert g.nodes["metric:shapley-value"]["label"] == "Metric" and not g.has_node("method:shapley-value")
        assert not [n for n, keys in g.nodes(data="keys") if keys and "pruning" in keys]
        stats = json.loads(cli("stats", "--json", "--store", str(store)).stdout)
        assert Counter(label for _, label in g.nodes(data="label")) == Counter(
            {k: v for k, v in stats["nodes"].items() if v}) and kg.stats() == stats

        # `curate list --json` and `curate export` say the same
        listed = cli("curate", "list", "--json", "--store", str(store))
        assert listed.returncode == 0, listed.stderr
        assert [s.to_json() for s in kg.corrections()] == json.loads(listed.stdout)
        assert [(s.correction.op, s.applies) for s in kg.corrections()] == [
            ("merge", True), ("retype", True), ("drop", True)]
        exported = tmp_path / "corrections.jsonl"
        assert kg.export_corrections(exported) == 3
        assert cli("curate", "export", str(tmp_path / "cli.jsonl"), "--store", str(store)).returncode == 0
        assert exported.read_text() == (tmp_path / "cli.jsonl").read_text()
        corrected = kg.export()

    fresh = tmp_path / "fresh"
    shutil.copytree(seed_store_path, fresh)
    with paperkg.open(fresh) as other:
        imported = other.import_corrections(exported)
        assert len(imported.corrections) == 3 and not imported.not_applying
        assert other.export() == corrected


def test_rename_split_undo(store: Path) -> None:
    with paperkg.open(store) as kg:
        original = kg.export()
        kg.rename("GRPO", "Group-Relative PO")
        assert kg.entity("GRPO")["name"] == "Group-Relative PO"
        kg.split("POMDP")                      # a Task in nine mentions, a Method in one
        assert {e["type"] for e in kg.query("entity", name="POMDP")} == {"Task", "Method"}
        assert [c.op for c in kg.undo("POMDP")] == ["split"]
        assert [c.op for c in kg.undo("GRPO")] == ["rename"]
        assert kg.corrections() == [] and kg.export() == original
        with pytest.raises(NotFoundError, match="no correction of 'GRPO'"):
            kg.undo("GRPO")


def test_errors_are_the_clis(store: Path, tmp_path: Path) -> None:
    with paperkg.open(store) as kg:
        with pytest.raises(UnknownEntityError, match="did you mean 'GRPO'"):
            kg.merge("GRPPO", "PPO")
        with pytest.raises(BadInputError, match="not an entity type"):
            kg.retype("GRPO", "Algorithm")
        with pytest.raises(BadInputError, match="one entity already"):
            kg.merge("GRPO", "Group Relative Policy Optimization")
        with pytest.raises(NotFoundError, match="no corrections file"):
            kg.import_corrections(tmp_path / "none.jsonl")
        assert kg.corrections() == []
    # a Neo4j graph's corrections are kept in the --store directory of its builds; reading them
    # needs no connection, and a directory without a build state says which one to give
    with paperkg.open("bolt://127.0.0.1:1", store=tmp_path / "elsewhere") as remote, \
            pytest.raises(InputNotFoundError, match=r"no paperkg store at .*elsewhere: the corrections of "
                                                    r"the Neo4j graph at bolt://127\.0\.0\.1:1"):
        remote.corrections()
    proc = cli("curate", "list", "--store", str(tmp_path / "elsewhere"), "--neo4j", "bolt://127.0.0.1:1")
    assert proc.returncode != 0 and "the corrections of the Neo4j graph at bolt://127.0.0.1:1" in proc.stderr


def test_review_and_accept(store: Path) -> None:
    with paperkg.open(store) as kg:
        items = kg.review(limit=5)
        proc = cli("review", "--limit", "5", "--json", "--store", str(store))
        assert proc.returncode == 0, proc.stderr
        assert [item.to_json() for item in items] == json.loads(proc.stdout) and items
        applied = kg.accept(items[0])
        assert [c.op for c in applied.corrections] == [items[0].suggestion.op] and applied.changed
        assert items[0].subject not in [e.id for i in kg.review(limit=50) for e in i.entities]
        with pytest.raises(UsageError, match="between 1 and 1000"):
            kg.review(limit=0)


@pytest.mark.neo4j
def test_a_neo4j_graph_is_corrected_through_the_build_state_of_its_builds(
        neo4j_uri: str, seed_store_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`paperkg.open(URI, store=DIR)`: the corrections are kept in DIR and reach Neo4j through the
    handle's own connection, as `paperkg curate ... --store DIR --neo4j URI`; without a build state
    where the rule looks (`./paperkg-store`) they say which directory to give."""
    from tests.conftest import EXAMPLES

    state = tmp_path / "state"
    shutil.copytree(seed_store_path, state)
    # bring the database in step with this state, as `paperkg build --neo4j URI --store DIR` does
    paperkg.build(EXAMPLES, store=state, neo4j=neo4j_uri, replace_neo4j_graph=True)
    with paperkg.open(neo4j_uri, store=state) as remote:
        assert remote.merge("DPO", "RLHF").changed
        remote.retype("Shapley value", "Metric")
        assert remote.entity("DPO")["id"] == RLHF and remote.entity("Shapley value")["type"] == "Metric"
        with paperkg.open(state) as local:
            assert remote.stats() == local.stats() and remote.export() == local.export()
            assert [s.to_json() for s in remote.corrections()] == [s.to_json() for s in local.corrections()]
        assert [c.op for c in remote.undo("DPO")] == ["merge"]
        assert remote.entity("DPO")["id"] == DPO

    monkeypatch.chdir(tmp_path)
    with paperkg.open(neo4j_uri) as remote, \
            pytest.raises(InputNotFoundError, match=r"no paperkg store at paperkg-store: the corrections"):
        remote.drop("GRPO")
