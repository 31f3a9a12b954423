"""Property-based tests over the OpenAPI schema: whatever schemathesis sends, no 5xx and every
response matches its documented schema, on the embedded store and on Neo4j.

Bounded (a few dozen examples per operation) and derandomized, so a run is repeatable and fast
enough for every CI run; a failure prints the request to replay.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import content_type_conformance, not_a_server_error, status_code_conformance
from schemathesis.specs.openapi.checks import response_schema_conformance

from paperkg.api.app import create_app
from paperkg.api.deps import get_store
from paperkg.api.settings import Settings
from paperkg.graph.embedded import EmbeddedStore

MAX_EXAMPLES = 40
# The two the suite must pass, plus two that keep the schema honest about statuses and media types
# (every error documented, as problem+json).
CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance]


# Apps and schemas are made at import (as `@schema.parametrize()` needs) — which is safe because
# `create_app` opens nothing; each test then points the app's `get_store` at its fixture's store.
# (`schemathesis.pytest.from_fixture` would be the tidier way, but schemathesis 4.32 fails under
# pytest 9 with "'Function' object has no attribute '_nodeid'".)
embedded_app = create_app(Settings(max_body_bytes=64 * 1024))
neo4j_app = create_app(Settings(max_body_bytes=64 * 1024))
embedded = schemathesis.openapi.from_asgi("/openapi.json", embedded_app)
neo4j = schemathesis.openapi.from_asgi("/openapi.json", neo4j_app)


def _settings():  # type: ignore[no-untyped-def]
    return settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


@embedded.parametrize()
@_settings()
def test_api_embedded(case: schemathesis.Case, small_store: EmbeddedStore) -> None:
    embedded_app.dependency_overrides[get_store] = lambda: small_store
    case.call_and_validate(checks=CHECKS)


@pytest.mark.neo4j
@neo4j.parametrize()
@_settings()
def test_api_neo4j(case: schemathesis.Case, neo4j_small_store: object) -> None:
    neo4j_app.dependency_overrides[get_store] = lambda: neo4j_small_store
    case.call_and_validate(checks=CHECKS)
