"""Who may talk to the server: the Host check (DNS rebinding) and the optional bearer token.

Both are plain ASGI middleware, so they run before routing: an unauthenticated client learns
nothing, not even which paths exist.

Host check: a page on `evil.example` whose name an attacker re-points at 127.0.0.1 can make a
victim's browser call a server bound to loopback, with `Host: evil.example`. Starlette's
`TrustedHostMiddleware` answers such requests 400. Which names are trusted:
- `PAPERKG_ALLOWED_HOSTS` when set (a comma-separated list; `*.example.org` patterns allowed);
- otherwise, on a server listening on a loopback address, only `localhost`, `127.0.0.1` and `::1`;
- otherwise (bound to a public address with no list) any name: `paperkg serve` warns about it.
The listening address comes from the ASGI scope's `server`, so a bare
`uvicorn --factory paperkg.api.app:create_app` is covered the same way as `paperkg serve`.

Token: with `PAPERKG_API_TOKEN` set, every request needs `Authorization: Bearer <token>` (401
otherwise), except the public paths: `/health` (for balancers), the explorer page `/` and its static
assets, and the API documentation (`/docs`, `/redoc`, `/openapi.json`: the schema is no secret, and
Swagger UI's "Authorize" button sends the token on the calls it makes). The data routes — queries,
Cypher, entities, papers, stats, export — are protected. The routes that write corrections
(`/corrections`, `/review`: `api/routers/corrections.py`) exist only on a server with a token.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from paperkg.api import problems

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
# Exact public paths, and public path prefixes (the explorer's assets and the docs' own assets).
PUBLIC_PATHS = frozenset({"/health", "/", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json",
                          "/favicon.ico"})
PUBLIC_PREFIXES = ("/static/", "/assets/", "/docs/", "/redoc/")


@functools.lru_cache(maxsize=256)
def is_loopback(host: str | None) -> bool:
    """Whether `host` (an address or `localhost`) is a loopback address. Cached: the Host check asks
    it of the listening address on every request, and parsing an address is not free."""
    if not host:
        return False
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class HostCheckMiddleware:
    """Starlette's `TrustedHostMiddleware` with the configured names, or with the loopback names
    when the server listens on loopback and none are configured (see the module docstring)."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str] | None = None) -> None:
        self.app = app
        self.configured = TrustedHostMiddleware(app, allowed_hosts=allowed_hosts) if allowed_hosts else None
        self.loopback = TrustedHostMiddleware(app, allowed_hosts=list(LOOPBACK_HOSTS))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.configured is not None:
            await self.configured(scope, receive, send)
            return
        server = scope.get("server")
        if scope["type"] in ("http", "websocket") and server and is_loopback(str(server[0])):
            await self.loopback(scope, receive, send)
            return
        await self.app(scope, receive, send)


class TokenAuthMiddleware:
    """401 problem+json, with `WWW-Authenticate: Bearer`, for requests to a protected path that lack
    the token. Compared in constant time; CORS preflights (`OPTIONS`) pass, browsers send no
    credentials with them."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "OPTIONS" or is_public(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get("authorization", "").encode()
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
            return
        detail = ("this server requires a bearer token" if not given
                  else "the bearer token is not the one this server accepts")
        response = problems.problem(
            401, title="Unauthorized", detail=detail, type_=f"{problems.TYPE_PREFIX}unauthorized",
            instance=scope.get("path"), headers={"WWW-Authenticate": 'Bearer realm="paperkg"'},
            hint="send `Authorization: Bearer <token>` with the token the server was started with "
                 "(PAPERKG_API_TOKEN)")
        await response(scope, receive, send)


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)
