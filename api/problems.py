"""Every error the API returns, as RFC 9457 `application/problem+json`, from this one module.

Why one module: a client (and schemathesis) should meet one error shape whatever failed — the
project's own errors, FastAPI's request validation, Starlette's routing 404/405 and body-parse
errors, an over-large body, or a bug. The handlers are registered on Starlette's `HTTPException`
(not only FastAPI's subclass), otherwise routing errors escape as `{"detail": ...}`.

Status codes:
- `PaperkgError` subclasses map to a status, a title and a problem type here (`PROBLEMS`: 404 not
  found, 422 bad input, 403 refused Cypher, 503 store unavailable, ...); the classes themselves know
  nothing of HTTP.
- Request validation: 400 when the body is not JSON at all (a syntax error, like any other
  unparsable request), 422 when it parses but a value breaks the schema (wrong type, `limit` out of
  1–1000, unknown entity type) — the same 422 the project's `BadInputError` uses.
- Anything else: 500 with a fixed detail; the traceback goes to the log, never to the client.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from paperkg.graph.errors import (
    BadInputError,
    ClusterUnavailableError,
    InputNotFoundError,
    PaperkgError,
    QueryLimitError,
    QueryRefusedError,
    QueryTimeoutError,
    StoreUnavailableError,
    UnsupportedQueryError,
    UsageError,
)
from paperkg.graph.secrets import redact

log = logging.getLogger("paperkg.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"
# `type` URIs name the kind of problem without pretending to be a dereferenceable page.
TYPE_PREFIX = "urn:paperkg:problem:"
VALIDATION_TYPE = f"{TYPE_PREFIX}validation"
INTERNAL_TYPE = f"{TYPE_PREFIX}internal"
# Every 503 says when to come back (RFC 9110): a store that is down or busy is worth retrying.
DEFAULT_RETRY_AFTER = 5



@dataclass(frozen=True)
class ProblemKind:
    status: int
    title: str
    type: str        # the last part of the problem's `type` URI


# By error class; an error takes the entry of the first class in its MRO listed here, so a new
# subclass answers like its parent until it is given its own. Titles are in the style of the HTTP
# status phrases the `about:blank` problems carry ("Not Found", "Method Not Allowed"): every word
# capitalised but short function words (a, by, of, ...), so a client meets one style.
PROBLEMS: dict[type[PaperkgError], ProblemKind] = {
    QueryRefusedError: ProblemKind(403, "Query Refused", "query-refused"),
    QueryLimitError: ProblemKind(422, "Query Exceeds a Limit", "query-limit"),
    UnsupportedQueryError: ProblemKind(422, "Query Not Supported by the Embedded Store",
                                       "unsupported-query"),
    BadInputError: ProblemKind(422, "Unprocessable Input", "bad-input"),
    InputNotFoundError: ProblemKind(404, "Not Found", "not-found"),
    QueryTimeoutError: ProblemKind(503, "Query Timed Out", "query-timeout"),
    StoreUnavailableError: ProblemKind(503, "Store Unavailable", "store-unavailable"),
    ClusterUnavailableError: ProblemKind(503, "Cluster Unavailable", "cluster-unavailable"),
    UsageError: ProblemKind(400, "Bad Request", "bad-request"),
    PaperkgError: ProblemKind(500, "Internal Server Error", "error"),
}


def problem_kind(err: PaperkgError) -> ProblemKind:
    """Status, title and type of `err` (`PROBLEMS`, by the most specific class listed)."""
    return next(PROBLEMS[cls] for cls in type(err).__mro__ if cls in PROBLEMS)


class ProblemResponse(JSONResponse):
    media_type = PROBLEM_MEDIA_TYPE


def status_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def problem(
    status: int,
    *,
    title: str | None = None,
    detail: str | None = None,
    type_: str = "about:blank",
    instance: str | None = None,
    headers: dict[str, str] | None = None,
    **extensions: Any,
) -> ProblemResponse:
    """Build one problem response; `about:blank` problems are titled by the HTTP status phrase.
    Texts are redacted (`graph.secrets`): no credential reaches a client, whatever raised. A 503
    always carries `Retry-After`."""
    body: dict[str, Any] = {
        "type": type_,
        "title": redact(title or status_phrase(status)),
        "status": status,
        "detail": redact(detail or status_phrase(status)),
        "instance": instance,
    }
    body.update({k: redact(v) if isinstance(v, str) else v for k, v in extensions.items() if v is not None})
    if status == 503 and not any(k.lower() == "retry-after" for k in headers or ()):
        headers = {**(headers or {}), "Retry-After": str(DEFAULT_RETRY_AFTER)}
    return ProblemResponse(body, status_code=status, headers=headers)


def _instance(request: Request) -> str:
    """The path that failed (no query string: it may carry values the client would rather not echo)."""
    return request.url.path


async def paperkg_error_handler(request: Request, exc: Exception) -> ProblemResponse:
    assert isinstance(exc, PaperkgError)
    kind = problem_kind(exc)
    status = kind.status
    if status >= 500:
        log.warning("%s %s -> %d: %s", request.method, request.url.path, status, exc)
    retry_after = getattr(exc, "retry_after", None) or DEFAULT_RETRY_AFTER  # e.g. a timed-out query
    headers = {"Retry-After": str(retry_after)} if status == 503 else None
    return problem(status, title=kind.title, detail=exc.message, type_=TYPE_PREFIX + kind.type,
                   instance=_instance(request), hint=exc.hint, headers=headers,
                   suggestions=getattr(exc, "suggestions", None))


def _loc(loc: Any) -> list[str | int]:
    return [part if isinstance(part, int) else str(part) for part in (loc or ())]


async def validation_error_handler(request: Request, exc: Exception) -> ProblemResponse:
    """400 for a body that is not JSON, 422 for values that break the schema.

    Only `loc`, `msg` and `type` of each error are returned: pydantic's `input` and `ctx` can echo
    the whole (possibly huge or hostile) request and are not always JSON-serialisable.
    """
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": _loc(e.get("loc")), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in exc.errors()
    ]
    if any(e["type"] == "json_invalid" for e in errors):
        return problem(400, title="Malformed JSON", detail="the request body is not valid JSON",
                       type_=f"{TYPE_PREFIX}malformed-json", instance=_instance(request), errors=errors)
    summary = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors[:5])
    return problem(422, title="Invalid Request", detail=summary or "the request is invalid",
                   type_=VALIDATION_TYPE, instance=_instance(request), errors=errors)


async def http_exception_handler(request: Request, exc: Exception) -> ProblemResponse:
    """Routing 404/405, body-size 413 and Starlette's own errors; keeps headers such as `Allow`."""
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else None
    return problem(exc.status_code, detail=detail, instance=_instance(request),
                   headers=dict(exc.headers) if exc.headers else None)


async def unhandled_error_handler(request: Request, exc: Exception) -> ProblemResponse:
    """Last resort: log the traceback for the operator, tell the client only that it failed."""
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem(500, title="Internal Server Error",
                   detail="the server failed to answer this request; the error was logged",
                   type_=INTERNAL_TYPE, instance=_instance(request))


def install(app: FastAPI) -> None:
    """Register every handler on `app` (Starlette routes `Exception` to its outermost middleware)."""
    app.add_exception_handler(PaperkgError, paperkg_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_exception_handler)
    app.add_exception_handler(Exception, unhandled_error_handler)


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries declaring problem+json for the given statuses of a route."""
    return {
        status: {"description": status_phrase(status), "content": {PROBLEM_MEDIA_TYPE: {"schema": _REF}}}
        for status in statuses
    }


_REF = {"$ref": "#/components/schemas/Problem"}


def rewrite_openapi(schema: dict[str, Any]) -> dict[str, Any]:
    """Make the generated schema tell the truth about errors.

    FastAPI documents every 422 as `application/json` `HTTPValidationError`; this API answers with
    `application/problem+json` `Problem`, so every error response (4xx/5xx) is rewritten to that and
    FastAPI's unused validation schemas are dropped.
    """
    for path_item in schema.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict):
                continue
            for status, response in operation.get("responses", {}).items():
                if str(status)[:1] in ("4", "5"):
                    response["content"] = {PROBLEM_MEDIA_TYPE: {"schema": _REF}}
    components = schema.get("components", {}).get("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    return schema
