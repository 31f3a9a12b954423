"""Configuration of the HTTP API, from arguments or `PAPERKG_*` environment variables.

`paperkg serve` builds a `Settings` from its options (which already read the same variables), so the
CLI and a bare `uvicorn --factory paperkg.api.app:create_app` agree on names and defaults.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from paperkg.graph.store import DEFAULT_STORE

# The hard bounds the API promises in its OpenAPI schema; settings may only narrow them.
LIMIT_MIN = 1
LIMIT_MAX = 1000


class Settings(BaseSettings):
    """Everything the app needs to know before its first request; nothing here connects anywhere."""

    model_config = SettingsConfigDict(env_prefix="PAPERKG_", extra="ignore", frozen=True)

    store: str = Field(DEFAULT_STORE, description="Embedded store directory (ignored when neo4j_uri is set).")
    neo4j_uri: str | None = Field(None, description="Use this Neo4j server instead of the embedded store.")
    neo4j_user: str | None = None
    # A secret so that it never shows in a repr, a log line or an error page.
    neo4j_password: SecretStr | None = None
    neo4j_database: str | None = None
    # NoDecode: accept a comma-separated list in the environment as well as a JSON array.
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Origins allowed by CORS; empty (the default) turns CORS off."
    )
    max_body_bytes: int = Field(1024 * 1024, ge=0, description="Request bodies beyond this get 413.")
    default_limit: int = Field(50, ge=LIMIT_MIN, le=LIMIT_MAX, description="Page size when none is asked.")
    max_limit: int = Field(LIMIT_MAX, ge=LIMIT_MIN, le=LIMIT_MAX, description="Largest page size accepted.")

    # Access control (see api/security.py): all off by default, for a server on loopback.
    api_token: SecretStr | None = Field(None, description=(
        "When set, every route but /health, the explorer page and the docs needs "
        "`Authorization: Bearer <token>`."))
    raw_cypher: bool = Field(True, description="Serve POST /cypher (`off` removes the route).")
    allowed_hosts: Annotated[list[str] | None, NoDecode] = Field(None, description=(
        "Host header names accepted (comma-separated); unset: only localhost/127.0.0.1/::1 on a "
        "loopback-bound server, any name otherwise."))
    # Bounds on user Cypher (run in a worker process, see queries/bounded.py) and on every answer.
    cypher_timeout: float = Field(10.0, gt=0, le=600, description="Seconds a user Cypher query may run.")
    cypher_memory_mb: int = Field(1024, ge=64, description="Memory a user Cypher worker may add (MiB).")
    cypher_workers: int = Field(2, ge=1, le=64, description="User Cypher queries run at once; more get 503.")
    max_answer_rows: int = Field(10_000, ge=1, description="Rows of user Cypher beyond this are cut "
                                 "(`truncated: true`).")
    max_answer_bytes: int = Field(16 * 1024 * 1024, ge=100, description=(
        "JSON bytes of an answer beyond this are cut (`truncated: true`); one row larger is a 422."))
    answer_cache_mb: int = Field(64, ge=0, description=(
        "Memory for answers kept per build (`api/answer_cache.py`): a GET asked again under the same "
        "build is answered without running its query. 0 keeps none."))

    @field_validator("cors_origins", "allowed_hosts", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                import json

                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("neo4j_uri", "neo4j_user", "neo4j_database", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        """An empty environment variable means "not set", as it does for the CLI's options."""
        return None if value == "" else value

    @model_validator(mode="after")
    def _default_within_max(self) -> Settings:
        if self.default_limit > self.max_limit:
            raise ValueError(f"default_limit ({self.default_limit}) exceeds max_limit ({self.max_limit})")
        return self

    def token(self) -> str | None:
        """The API token in clear, only for the comparison."""
        return self.api_token.get_secret_value() if self.api_token else None

    def password(self) -> str | None:
        """The Neo4j password in clear, only for the driver."""
        return self.neo4j_password.get_secret_value() if self.neo4j_password else None
