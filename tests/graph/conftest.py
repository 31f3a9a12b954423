"""Fixtures of the graph tests: Gephi's own importer."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from paperkg.graph.embedded import EmbeddedStore
from tests.conftest import ROOT
from tests.graph.gephi.importer import GephiImporter, GephiUnavailable

ARXIV_EXAMPLE = ROOT / "examples" / "arxiv"


@pytest.fixture(scope="session")
def gephi() -> Iterator[GephiImporter]:
    """Gephi's importer; skipped locally without Java/Maven, a failure in CI (`.ci/run` fetches the
    jar, so it is always there)."""
    try:
        importer = GephiImporter.find()
    except GephiUnavailable as err:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but Gephi's importer is unavailable: {err}")
        pytest.skip(f"Gephi's importer is unavailable: {err}")
    yield importer
    importer.close()


@pytest.fixture(scope="session")
def arxiv_example_store(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedStore:
    """The shipped arXiv example (examples/arxiv, 300 records with titles and years), built once."""
    from paperkg.extract.ingest import ingest

    path = tmp_path_factory.mktemp("arxiv-example-store")
    store = EmbeddedStore(path, create=True)
    problems: list[object] = []
    ingest([str(ARXIV_EXAMPLE)], store, problems.append)
    store.close()
    assert not problems, problems[:3]
    return EmbeddedStore(path)
