"""The reliability battery reuses the API fixtures (the small hand-made store)."""

from tests.api.conftest import small_store, small_store_path  # noqa: F401
