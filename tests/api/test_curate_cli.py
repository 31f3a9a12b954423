"""`paperkg curate ...` and `paperkg review` as a user runs them: real processes on a copy of the
example store, exit codes and messages for bad names, the JSON Lines round trip, accepting a review
item."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from tests.api.test_cli import paperkg


@pytest.fixture
def store(seed_store_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    return path


def _entity(store: Path, name: str) -> dict | None:
    proc = paperkg("query", "entity", "--param", f"name={name}", "--json", "--store", str(store))
    return json.loads(proc.stdout)[0] if proc.returncode == 0 else None


def test_unknown_and_ambiguous_names_say_what_to_do(store: Path) -> None:
    proc = paperkg("curate", "drop", "GRPPO", "--store", str(store))
    assert proc.returncode == 66
    assert "no entity named 'GRPPO' (did you mean 'GRPO'" in proc.stderr and "Traceback" not in proc.stderr
    proc = paperkg("curate", "retype", "GRPO", "Algorithm", "--store", str(store))
    assert proc.returncode == 65 and "'Algorithm' is not an entity type" in proc.stderr
    proc = paperkg("curate", "list", "--json", "--store", str(store))
    assert proc.returncode == 0 and json.loads(proc.stdout) == []


def test_a_name_of_several_entities_lists_their_ids(store: Path) -> None:
    """`EP` is equilibrium propagation in one paper and expert parallelism in another: the message
    names both ids, and an id names one."""
    proc = paperkg("curate", "drop", "EP", "--store", str(store))
    assert proc.returncode == 65
    assert "method:equilibrium-propagation" in proc.stderr and "method:expert-parallelism" in proc.stderr
    proc = paperkg("curate", "drop", "method:expert-parallelism", "--store", str(store))
    assert proc.returncode == 0, proc.stderr
    assert _entity(store, "EP")["id"] == "method:equilibrium-propagation"


def test_export_import_round_trip_and_list(store: Path, seed_store_path: Path, tmp_path: Path) -> None:
    for args in (("merge", "DPO", "RLHF"), ("rename", "PPO", "Proximal Policy Optimization"),
                 ("retype", "shapley value", "metric")):
        proc = paperkg("curate", *args, "--store", str(store))
        assert proc.returncode == 0 and "recorded" in proc.stdout, proc.stderr
    out = tmp_path / "corrections.jsonl"
    assert paperkg("curate", "export", str(out), "--store", str(store)).returncode == 0
    other = tmp_path / "other"
    shutil.copytree(seed_store_path, other)
    proc = paperkg("curate", "import", str(out), "--store", str(other))
    assert proc.returncode == 0 and proc.stdout.count("recorded") == 3, proc.stderr
    for name in ("DPO", "PPO", "Shapley value"):
        assert _entity(other, name) == _entity(store, name)
    assert _entity(other, "DPO")["name"] == "RLHF"
    assert _entity(other, "Proximal Policy Optimization")["name"] == "Proximal Policy Optimization"
    assert _entity(other, "Shapley value")["type"] == "Metric"
    listed = json.loads(paperkg("curate", "list", "--json", "--store", str(other)).stdout)
    assert [(c["op"], c["applies"]) for c in listed] == [("merge", True), ("rename", True), ("retype", True)]
    proc = paperkg("curate", "undo", "DPO", "--store", str(other))
    assert proc.returncode == 0 and "taken back" in proc.stdout
    assert _entity(other, "DPO")["name"] == "DPO"


def test_accepting_a_review_item_records_its_correction(store: Path) -> None:
    proc = paperkg("review", "--json", "--store", str(store))
    items = json.loads(proc.stdout)
    assert items and all(i["weight"] >= j["weight"] for i, j in itertools.pairwise(items))
    first = items[0]
    proc = paperkg("review", "--accept", "1", "--store", str(store))
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(paperkg("curate", "list", "--json", "--store", str(store)).stdout)
    suggestion = first["suggestion"]
    assert [(c["op"], c["name"]) for c in listed] == [(suggestion["op"], suggestion["name"])]
    again = json.loads(paperkg("review", "--json", "--store", str(store)).stdout)
    assert first["entities"] not in [i["entities"] for i in again]


def test_a_build_warns_about_corrections_that_no_longer_apply(store: Path, tmp_path: Path) -> None:
    lines = tmp_path / "c.jsonl"
    lines.write_text(json.dumps({"version": 1, "op": "drop", "name": "Frobnicated Transformer"}) + "\n")
    proc = paperkg("curate", "import", str(lines), "--store", str(store))
    assert proc.returncode == 0
    assert "does not apply: no paper mentions 'Frobnicated Transformer'" in proc.stderr
    listed = paperkg("curate", "list", "--store", str(store)).stdout
    assert "does not apply" in listed
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "more-1", "abstract": "We compare GRPO with PPO on MATH500."}) + "\n")
    proc = paperkg("build", str(more), "--store", str(store), "--mode", "rules")   # re-extracts all, too
    assert proc.returncode == 0 and "re-extracted 250 papers" in proc.stdout
    assert "correction drop 'Frobnicated Transformer': no paper mentions" in proc.stderr
