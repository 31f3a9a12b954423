"""The FastAPI application: `create_app(settings)` wires settings, the store, routers and errors.

Importing this module, or calling `create_app`, opens nothing: the store is opened and prepared for
queries when the app starts (the lifespan, see `deps.StoreHolder.warm_up`), so the first request does
not pay for loading it, and closed at shutdown; a store that cannot be opened at startup is opened by
the first request that needs it. It also never imports spaCy, so the server starts in a process that
has no extraction model.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperkg.api import problems
from paperkg.api.answer_cache import AnswerCacheMiddleware
from paperkg.api.deps import StoreHolder, get_store
from paperkg.api.etag import ETagMiddleware, salt_of
from paperkg.api.models import Problem
from paperkg.api.routers import corrections, cypher, entities, export, health, papers, queries, stats, ui
from paperkg.api.security import HostCheckMiddleware, TokenAuthMiddleware, is_public
from paperkg.api.settings import Settings
from paperkg.graph.errors import QueryLimitError
from paperkg.graph.secrets import install_log_redaction, register_secret

# What an answer's envelope (`query`, `params`, paging fields) may add to rows held to the answer
# limit before the whole answer counts as beyond it (`AnswerLimitMiddleware`).
ENVELOPE_BYTES = 64 * 1024


def _version() -> str:
    try:
        return version("paperkg")
    except PackageNotFoundError:
        return "0+unknown"


class BodyTooLarge(StarletteHTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body exceeds {limit} bytes")


class BodyLimitMiddleware:
    """413 for request bodies beyond `max_bytes`, whether or not they declare a Content-Length.

    A declared length over the limit is refused before anything is read. A chunked (or lying) body
    is counted as the route reads it and refused as soon as it passes the limit, so the server
    never buffers more than the limit. Written here rather than using FastAPI's own `max_body_size`
    because older FastAPI releases (which pyproject allows) lack it and Starlette's answers plain
    text; raising an `HTTPException` from `receive` lets the one problem handler answer.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            response = problems.problem(413, detail=f"the request body exceeds {self.max_bytes} bytes",
                                        instance=scope.get("path"), headers={"Connection": "close"})
            await response(scope, receive, send)
            return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        await self.app(scope, limited_receive, send)


class AnswerLimitMiddleware:
    """A 422 instead of any JSON answer beyond `max_bytes` (`PAPERKG_MAX_ANSWER_BYTES`, plus
    ENVELOPE_BYTES for the envelope around rows cut to the limit), on every route.

    The query routes cut their rows to fit (`truncated`); an answer that is one object (a paper
    with a 20 MB abstract) cannot be cut without changing what it says, so, as for a single row
    beyond the limit of a query, the client is told which limit it met. Checked on the response's
    declared length, before any of its body is sent. Exports (GraphML, GEXF) are files, not
    answers, and are not held to it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = False

        async def limited_send(message: Message) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and self._over(message):
                refused = True
                kind = problems.problem_kind(QueryLimitError(""))
                limit = self.max_bytes
                response = problems.problem(
                    kind.status, title=kind.title, type_=problems.TYPE_PREFIX + kind.type,
                    detail=f"the answer is larger than the answer limit of "
                           f"{limit // 2**20 or limit} {'MiB' if limit >= 2**20 else 'bytes'} "
                           "(PAPERKG_MAX_ANSWER_BYTES)",
                    hint="ask for less (a smaller limit), or have the server's operator raise "
                         "PAPERKG_MAX_ANSWER_BYTES; `paperkg query` on the store has no such limit",
                    instance=scope.get("path"))
                await response(scope, receive, send)
                return
            if refused:         # the body of the answer that was refused
                return
            await send(message)

        await self.app(scope, receive, limited_send)

    def _over(self, message: Message) -> bool:
        if message.get("status") != 200:
            return False
        headers = dict(message.get("headers", ()))
        if not headers.get(b"content-type", b"").startswith(b"application/json"):
            return False
        try:
            return int(headers.get(b"content-length", b"0")) > self.max_bytes + ENVELOPE_BYTES
        except ValueError:
            return False


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new app; `settings` default to `PAPERKG_*` environment variables."""
    settings = settings or Settings()
    holder = StoreHolder(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Open the store before serving (uvicorn accepts no request until startup ends), in a thread
        # so the loop still handles signals meanwhile; skipped when tests swap the store out.
        if get_store not in app.dependency_overrides:
            await asyncio.to_thread(holder.warm_up)
        yield
        holder.close()

    app = FastAPI(
        title="paperkg",
        version=_version(),
        description=(
            "A knowledge graph of ML research from paper abstracts: named Cypher queries, entity and "
            "paper lookups, read-only Cypher and a GraphML export. Every error is "
            "`application/problem+json` (RFC 9457)."
        ),
        lifespan=lifespan,
        # FastAPI's own pages load their scripts from CDNs; `ui` serves vendored copies instead.
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.store_holder = holder

    problems.install(app)
    install_log_redaction()
    register_secret(settings.password())
    register_secret(settings.token())
    # Added innermost first: a request meets the Host check, CORS, the token, the body limit, the
    # ETag check (a 304 needs the token, and a 422 for an answer too large carries no tag), then
    # the answers kept of this build (only what passed the answer limit is kept).
    app.add_middleware(AnswerLimitMiddleware, max_bytes=settings.max_answer_bytes)
    app.add_middleware(AnswerCacheMiddleware, holder=holder, max_bytes=settings.answer_cache_mb * 2**20)
    app.add_middleware(ETagMiddleware, holder=holder, salt=salt_of(_version(), settings.model_dump_json()))
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    if settings.token():
        app.add_middleware(TokenAuthMiddleware, token=settings.token())
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST"],
            allow_headers=["Content-Type", "Accept", "Authorization"],
        )
    app.add_middleware(HostCheckMiddleware, allowed_hosts=settings.allowed_hosts or None)

    routers = [health.router, stats.router, queries.router, entities.build_router(settings),
               papers.router, export.router, ui.router]
    if settings.raw_cypher:
        routers.append(cypher.router)
    if settings.token():             # they write the store: only on a server that asks for a token
        routers.append(corrections.router)
    for router in routers:
        app.include_router(router)
    app.mount("/static", ui.static_files(), name="static")

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description,
                                 routes=app.routes)
            components = schema.setdefault("components", {})
            components.setdefault("schemas", {}).update(_component_schemas(Problem))
            if settings.token():
                # Swagger UI's "Authorize" button, and the truth for clients: data routes need it.
                components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
                for path, item in schema.get("paths", {}).items():
                    if not is_public(path):
                        for operation in item.values():
                            operation["security"] = [{"bearer": []}]
                            operation.setdefault("responses", {}).update(problems.problem_responses(401))
            app.openapi_schema = problems.rewrite_openapi(schema)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _component_schemas(model: type[Problem]) -> dict[str, Any]:
    """`model`'s schema and the schemas it refers to, as OpenAPI components."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    return {model.__name__: schema, **defs}
