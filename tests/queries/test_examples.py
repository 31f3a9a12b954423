"""Every catalog example returns rows on the example corpus (what `--list` promises a user)."""

from __future__ import annotations

from typing import Any

import pytest

from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named


@pytest.mark.parametrize("name", sorted(load_catalog()))
def test_example_returns_rows_on_the_seed(name: str, seed_store: Any) -> None:
    rows = run_named(seed_store, name, load_catalog()[name].example_params())
    assert rows, f"{name}'s example returns no rows on examples/abstracts: pick another example"
