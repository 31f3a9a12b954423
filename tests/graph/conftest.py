"""Fixtures of the graph tests: Gephi's own importer."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.graph.gephi.importer import GephiImporter, GephiUnavailable


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

