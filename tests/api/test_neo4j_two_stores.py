"""Two --store directories building into one Neo4j database: the second refuses to replace the
first's graph (it would drop every paper only the first state holds), says what happened and what
to do, and replaces it only with --replace-neo4j-graph. Real engine, real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import neo4j
import pytest

pytestmark = pytest.mark.neo4j

FIRST = [{"id": "a1", "abstract": "We propose GRPO and evaluate it on GSM8K."}]
SECOND = [{"id": "b1", "abstract": "We study PPO on MATH500 and compare it with DPO."}]


def _build(tmp_path: Path, name: str, records: list[dict], uri: str, *flags: str
           ) -> subprocess.CompletedProcess[str]:
    data = tmp_path / f"{name}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}
    return subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", str(data), "--mode", "rules",
                           "--store", str(tmp_path / name), "--neo4j", uri, *flags],
                          capture_output=True, text=True, timeout=300, env=env)


def _papers(uri: str) -> list[str]:
    with neo4j.GraphDatabase.driver(uri) as driver:
        return sorted(r["id"] for r in driver.execute_query("MATCH (p:Paper) RETURN p.id AS id").records)


def test_a_second_store_refuses_to_replace_the_graph_of_the_first(neo4j_uri: str, tmp_path: Path) -> None:
    with neo4j.GraphDatabase.driver(neo4j_uri) as driver:   # what other modules left there
        driver.execute_query("MATCH (n) DETACH DELETE n")
    assert _build(tmp_path, "first", FIRST, neo4j_uri).returncode == 0
    assert _papers(neo4j_uri) == ["a1"]

    refused = _build(tmp_path, "second", SECOND, neo4j_uri)
    assert refused.returncode == 2, refused.stderr
    message = refused.stderr
    assert "another build state" in message and str(tmp_path / "first") in message, message
    assert str(tmp_path / "second") in message and "--replace-neo4j-graph" in message, message
    assert "--store" in message, message
    assert _papers(neo4j_uri) == ["a1"]          # nothing written

    again = _build(tmp_path, "first", FIRST, neo4j_uri)          # its own state: fine
    assert again.returncode == 0, again.stderr

    replaced = _build(tmp_path, "second", SECOND, neo4j_uri, "--replace-neo4j-graph")
    assert replaced.returncode == 0, replaced.stderr
    assert _papers(neo4j_uri) == ["b1"]
    back = _build(tmp_path, "first", FIRST, neo4j_uri)           # now the first is the other one
    assert back.returncode == 2 and str(tmp_path / "second") in back.stderr, back.stderr
    assert _papers(neo4j_uri) == ["b1"]
