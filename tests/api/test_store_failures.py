"""Store failures are named (issue 13.7): a full disk, an unwritable directory and a damaged store
each end a command with one line and a sysexits code (74, 73, 74), before extraction where the build
can tell; killed builds leave nothing behind that the next build keeps.

The disk and the read-only directory are real: small tmpfs mounts (root only; elsewhere these tests
skip, since permission bits do not stop root and nothing else makes a disk full on purpose)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperkg.graph.errors import StoreFullError
from paperkg.graph.records import PaperInput
from paperkg.graph.state import DB_FILE, BuildState
from tests.conftest import EXAMPLES

TEXT = "We propose Group Relative Policy Optimization (GRPO) and evaluate it on MATH500.\n"


def _paperkg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperkg.api.cli", *args], capture_output=True,
                          text=True, timeout=600)


def _one_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("paperkg: error: "), lines
    return lines[0]


@pytest.fixture
def mount(tmp_path: Path) -> Iterator:
    """`mount(size, read_only=False)` -> a fresh tmpfs directory; unmounted afterwards."""
    points: list[Path] = []

    def make(size: str, read_only: bool = False) -> Path:
        point = tmp_path / f"mnt{len(points)}"
        point.mkdir()
        options = f"size={size}" + (",ro" if read_only else "")
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): needs root")
        points.append(point)
        return point

    yield make
    for point in reversed(points):
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_a_full_disk_is_named_before_extraction(mount) -> None:
    disk = mount("1m")
    result = _paperkg("build", str(EXAMPLES), "--store", str(disk / "store"), "--mode", "rules")
    assert result.returncode == 74, result.stderr
    line = _one_line(result)
    assert "not enough space" in line and "nothing was extracted" in line
    assert BuildState(disk / "store").stats()["nodes"]["Paper"] == 0


def test_sqlite_full_mid_build_rolls_back_and_is_named(small_store_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "store"
    shutil.copytree(small_store_path, path)
    state = BuildState(path)
    before = state.stats()
    pages = state._db.execute("PRAGMA page_count").fetchone()[0]
    state._db.execute(f"PRAGMA max_page_count = {pages + 10}")    # SQLite's own "disk is full"
    with pytest.raises(StoreFullError, match="no space left"), state.transaction() as tx:
        for i in range(500):
            tx.add_record(PaperInput(f"big{i}", f"Paper {i} says " + "much " * 800, "test", i + 1))
    state.close()
    assert BuildState(path).stats() == before


def test_an_unwritable_directory_is_named_before_extraction(mount, tmp_path: Path) -> None:
    corpus = tmp_path / "one.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    read_only = mount("1m", read_only=True)
    result = _paperkg("build", str(corpus), "--store", str(read_only / "store"), "--mode", "rules")
    assert result.returncode == 73, result.stderr
    assert "cannot write the store" in _one_line(result)


def test_a_store_on_a_disk_made_read_only_is_named(mount, small_store_path: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "one.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    disk = mount("16m")
    shutil.copytree(small_store_path, disk / "store")
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    result = _paperkg("build", str(corpus), "--store", str(disk / "store"), "--mode", "rules")
    assert result.returncode == 73, result.stderr
    assert "cannot write the store" in _one_line(result)


def _damage(db: Path, offset: int) -> None:
    with open(db, "r+b") as fh:
        fh.seek(offset)
        fh.write(b"\xa5" * 2048)


@pytest.mark.parametrize(("offset", "words"), [(0, "damaged"), (3 * 4096, "damaged")],
                         ids=["header", "a b-tree page"])
def test_a_damaged_store_is_named_by_build_and_query(small_store_path: Path, tmp_path: Path,
                                                     offset: int, words: str) -> None:
    path = tmp_path / "store"
    shutil.copytree(small_store_path, path)
    _damage(path / DB_FILE, offset)
    corpus = tmp_path / "one.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    for args in (["build", str(corpus), "--mode", "rules"], ["query", "entity", "--param", "name=GRPO"],
                 ["stats"]):
        result = _paperkg(*args, "--store", str(path))
        assert result.returncode == 74, (args, result.stderr)
        line = _one_line(result)
        assert words in line and "rebuild it" in line, line
        assert "extracting" not in result.stderr


def test_a_build_removes_what_killed_builds_left(small_store_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "store"
    shutil.copytree(small_store_path, path)
    (path / ".graph-1234.tmp").write_bytes(b"\0" * 100_000)        # a killed pickle-era save
    # a killed build: its frames stay in the write-ahead log (no checkpoint, no commit)
    killer = subprocess.run([sys.executable, "-c", (
        "import os, sqlite3, sys\n"
        f"db = sqlite3.connect({str(path / DB_FILE)!r}, isolation_level=None)\n"
        "db.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "db.execute('BEGIN IMMEDIATE')\n"
        "db.executemany('INSERT INTO meta (key, value) VALUES (?, ?)',"
        " [(f'k{i}', 'x' * 3000) for i in range(2000)])\n"
        "os._exit(9)\n")], check=False)
    assert killer.returncode == 9
    wal = path / (DB_FILE + "-wal")
    assert wal.stat().st_size > 1_000_000
    corpus = tmp_path / "one.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    result = _paperkg("build", str(corpus), "--store", str(path), "--mode", "rules")
    assert result.returncode == 0, result.stderr
    assert not list(path.glob(".graph-*.tmp"))
    assert not wal.exists() or wal.stat().st_size == 0
    db = sqlite3.connect(path / DB_FILE)
    assert db.execute("SELECT count(*) FROM meta WHERE key LIKE 'k%'").fetchone()[0] == 0
    db.close()
