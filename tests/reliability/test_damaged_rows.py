"""A damaged derived row is named, refused by builds and repaired (issue 28, finding 7).

One truncated `nodes.props` row made every query and route fail while `build` exited 0 and
committed on top of it, and nothing could derive the graph again from the stored extractions. Now,
through real CLI runs on a real build of the arXiv example: `paperkg check` names the damaged rows,
reading the store names them too with the repair, a build refuses the store (exit 74) and leaves it
as it was, and `paperkg repair` derives the graph again, byte for byte the one the build made.
Damage to the source rows (the stored extractions) cannot be repaired: the repair says to rebuild.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}
    return subprocess.run([sys.executable, "-m", "paperkg.api.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    tmp = tmp_path_factory.mktemp("damage")
    store = tmp / "store"
    done = _run("build", str(ROOT / "examples" / "arxiv"), "--mode", "rules", "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert _run("export", "graphml", str(tmp / "ref.graphml"), "--store", str(store)).returncode == 0
    return store, (tmp / "ref.graphml").read_bytes()


def _truncate(db_file: Path, sql: str, table: str, key: str, column: str) -> str:
    db = sqlite3.connect(db_file)
    try:
        name, value = db.execute(sql).fetchone()
        db.execute(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (value[:len(value) // 2], name))
        db.commit()
    finally:
        db.close()
    return name


def test_damaged_derived_rows_are_named_refused_and_repaired(built, tmp_path):
    source, reference = built
    store = tmp_path / "store"
    shutil.copytree(source, store)
    db_file = store / "state.sqlite"
    node = _truncate(db_file, "SELECT key, props FROM nodes WHERE label = 'Method' ORDER BY key LIMIT 1",
                     "nodes", "key", "props")
    edge = _truncate(db_file, "SELECT id, props FROM edges WHERE type = 'USES' ORDER BY id LIMIT 1",
                     "edges", "id", "props")

    checked = _run("check", "--store", str(store))
    assert checked.returncode == 74, checked.stderr
    assert f"nodes.props of {node!r}" in checked.stderr and f"edges.props of {edge!r}" in checked.stderr
    assert "paperkg repair" in checked.stderr

    read = _run("stats", "--store", str(store))
    assert read.returncode == 74 and f"nodes.props of {node!r}" in read.stderr, read.stderr

    one = tmp_path / "one.jsonl"
    one.write_text('{"id": "new", "abstract": "We propose GRPO and evaluate it on GSM8K and MATH500."}\n')
    build = _run("build", str(one), "--mode", "rules", "--store", str(store))
    assert build.returncode == 74, build.stderr
    assert "paperkg repair" in build.stderr
    db = sqlite3.connect(db_file)
    try:    # nothing committed: the new paper is not there, the damage is as it was
        assert db.execute("SELECT count(*) FROM records WHERE id = 'new'").fetchone()[0] == 0
        assert not db.execute("SELECT json_valid(props) FROM nodes WHERE key = ?", (node,)).fetchone()[0]
    finally:
        db.close()

    repaired = _run("repair", "--store", str(store))
    assert repaired.returncode == 0, repaired.stderr
    assert _run("check", "--store", str(store)).returncode == 0
    out = tmp_path / "after.graphml"
    assert _run("export", "graphml", str(out), "--store", str(store)).returncode == 0
    assert out.read_bytes() == reference


def test_a_damaged_extraction_is_named_and_not_repaired(built, tmp_path):
    source, _ = built
    store = tmp_path / "store"
    shutil.copytree(source, store)
    paper = _truncate(store / "state.sqlite", "SELECT key, extraction FROM papers ORDER BY key LIMIT 1",
                      "papers", "key", "extraction")
    checked = _run("check", "--store", str(store))
    assert checked.returncode == 74 and f"papers.extraction of {paper!r}" in checked.stderr, checked.stderr
    assert "rebuild it" in checked.stderr
    repaired = _run("repair", "--store", str(store))
    assert repaired.returncode == 74 and "cannot be repaired" in repaired.stderr, repaired.stderr
