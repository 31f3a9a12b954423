"""A running server answers from a store rebuilt under it, without a restart and without waiting."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.settings import Settings
from paperkg.graph.records import PaperInput
from paperkg.graph.state import DB_FILE, BuildState
from paperkg.queries import embedded_impl, index_snapshot
from tests.api.conftest import add_paper, build_store
from tests.stores import store_generation


def _papers(client: TestClient) -> int:
    response = client.get("/stats")
    assert response.status_code == 200
    return response.json()["nodes"]["Paper"]


def _wait_for(condition, what: str, timeout_s: float = 60.0) -> None:
    """Poll until `condition()`: the reload runs in a thread, so the test waits for an event,
    bounded only so that a broken reload fails instead of hanging."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_rebuild_is_served_without_a_restart(tmp_path: Path) -> None:
    build_store(tmp_path).close()
    with TestClient(create_app(Settings(store=str(tmp_path)))) as client:
        before = _papers(client)
        writer = BuildState(tmp_path)
        with writer.transaction() as tx:
            tx.add_record(PaperInput("late", "A paper added while the server runs.", "test", 1))
            tx.derive()
        writer.close()
        _wait_for(lambda: _papers(client) == before + 1, "the rebuilt store to be served")
        assert client.get("/papers/late").status_code == 200


def test_a_store_that_fails_to_load_leaves_the_old_one_serving(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    build_store(tmp_path).close()
    with caplog.at_level("WARNING", logger="paperkg.api"), \
            TestClient(create_app(Settings(store=str(tmp_path)))) as client:
        before = _papers(client)
        broken = tmp_path / "broken.tmp"
        broken.write_bytes(b"not a database" * 100)
        os.replace(broken, tmp_path / DB_FILE)
        _wait_for(lambda: _papers(client) == before and "could not be loaded" in caplog.text,
                  "the failed reload to be logged")
        for _ in range(20):
            assert _papers(client) == before
        assert caplog.text.count("could not be loaded") == 1   # one attempt per version on disk


def test_a_store_served_without_its_saved_index_gets_one_for_the_next_start(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store with no saved index of its build (written without one here, as one an older paperkg
    built or a correction changed) is served from an index derived at start, and the server has
    one saved, by a real background process, for its build and for a rebuild loaded under it: the
    next start reads it and derives nothing."""
    build_store(tmp_path).close()
    assert index_snapshot.generation_of(tmp_path) is None
    with caplog.at_level("INFO", logger="paperkg.api"), \
            TestClient(create_app(Settings(store=str(tmp_path)))) as client:
        before = _papers(client)
        _wait_for(lambda: index_snapshot.generation_of(tmp_path) == store_generation(tmp_path),
                  "the index of the served build to be saved", timeout_s=120)
        assert "saving it in the background" in caplog.text
        add_paper(tmp_path, "late", "A paper added while the server runs.")
        _wait_for(lambda: _papers(client) == before + 1, "the rebuilt store to be served")
        _wait_for(lambda: index_snapshot.generation_of(tmp_path) == store_generation(tmp_path),
                  "the index of the rebuild to be saved", timeout_s=120)

    def derive(*args: object, **kwargs: object) -> None:
        raise AssertionError("the index was derived from the rows")

    monkeypatch.setattr(embedded_impl.Index, "from_rows", derive)
    monkeypatch.setattr(index_snapshot, "save_in_background", derive)
    with TestClient(create_app(Settings(store=str(tmp_path)))) as client:
        assert _papers(client) == before + 1
        assert client.get("/papers/late").status_code == 200


def test_a_read_only_store_without_its_saved_index_is_served_and_says_why_none_is_saved(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """No save is started into a directory this server cannot write (this suite runs as root, which
    writes anywhere: the directory's answer is given here)."""
    from paperkg.api import deps

    build_store(tmp_path).close()

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a save was started into a read-only store")

    monkeypatch.setattr(index_snapshot, "save_in_background", refused)
    monkeypatch.setattr(deps.os, "access", lambda path, mode: Path(path) != tmp_path)
    with caplog.at_level("INFO", logger="paperkg.api"), \
            TestClient(create_app(Settings(store=str(tmp_path)))) as client:
        assert _papers(client) > 0
    assert "its directory is read-only" in caplog.text
    assert index_snapshot.generation_of(tmp_path) is None
