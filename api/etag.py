"""Conditional GET: the answers of one build carry an `ETag`, and a client that sends it back in
`If-None-Match` gets `304 Not Modified` without the query running again.

Why the build generation: the embedded store serves one build at a time, and every build that
changes anything gets a new random generation (`graph.state.BuildState.generation`), so "same
generation" means "same graph", in every worker process of a server and across restarts. The tag
also carries a digest of the paperkg version and the server's settings, since an upgraded server
or another answer limit may answer the same URL differently from the same graph.

Only the data routes that read the graph (`/queries`, `/entities`, `/papers`, `/stats`) and only
their 200 answers are tagged; `/health` changes without a build, the explorer's files have their
own validators (Starlette's `StaticFiles`), and a store read live (Neo4j) has no generation: its
answers carry no tag. The check runs after the token check (this middleware sits inside it), so a
304 tells an unauthenticated client nothing.
"""

from __future__ import annotations

import hashlib

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperkg.api.deps import StoreHolder

TAGGED_PREFIXES = ("/queries", "/entities", "/papers/", "/stats")


def salt_of(*parts: str) -> str:
    """A short digest of what besides the graph decides an answer (version, settings)."""
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12]


def matches(if_none_match: bytes, etag: bytes) -> bool:
    """RFC 9110 13.1.2: `*`, or any listed tag equal to `etag` under weak comparison."""
    text = if_none_match.strip()
    if text == b"*":
        return True
    return any(tag.strip().removeprefix(b"W/") == etag for tag in text.split(b","))


class ETagMiddleware:
    def __init__(self, app: ASGIApp, holder: StoreHolder, salt: str) -> None:
        self.app = app
        self.holder = holder
        self.salt = salt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["method"] not in ("GET", "HEAD")
                or not scope["path"].startswith(TAGGED_PREFIXES)):
            await self.app(scope, receive, send)
            return
        self.holder.current()       # the rebuild check `get_store` makes, which a 304 skips
        generation = self.holder.generation()
        if generation is None:
            await self.app(scope, receive, send)
            return
        etag = f'"{generation}.{self.salt}"'.encode()
        for name, value in scope["headers"]:
            if name == b"if-none-match" and matches(value, etag):
                await send({"type": "http.response.start", "status": 304, "headers": [(b"etag", etag)]})
                await send({"type": "http.response.body", "body": b""})
                return

        async def tagged_send(message: Message) -> None:
            # a reload swapped the build in during this request: its answer may be of either
            if (message["type"] == "http.response.start" and message["status"] == 200
                    and self.holder.generation() == generation):
                message["headers"] = [*message.get("headers", ()), (b"etag", etag)]
            await send(message)

        await self.app(scope, receive, tagged_send)
