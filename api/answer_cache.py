"""The answers of one build, kept: a GET the server has answered under the same build generation is
sent again from memory, without the route, the query or the encoding running.

Why it is correct: the embedded store serves one build at a time and every build that changes
anything gets a new generation (`graph.state.BuildState.generation`, the value the `ETag` carries),
so an answer made under a generation is the answer for as long as that generation is served; the
cache is emptied when a rebuild is swapped in. Only what the `ETag` middleware tags is kept: 200
answers of the routes that read the graph (`/queries`, `/entities`, `/papers/`, `/stats`), looked up
by path and query string (no route reads a request header). A store read live (Neo4j) has no
generation: nothing of it is kept. It sits inside the token check and the `ETag` check, so a hit
is still authenticated and tagged, and outside the answer limit, so a refused answer is not kept.

Why it exists: on a large store a catalog query's own work (hundreds of rows built, typed and
encoded: a millisecond) is most of a request, and dashboards and the explorer ask the same few
queries again and again. Bounded by `PAPERKG_ANSWER_CACHE_MB` (0 turns it off), least recently used
first out; an answer larger than an eighth of it is never kept.
"""

from __future__ import annotations

from collections import OrderedDict

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paperkg.api.deps import StoreHolder
from paperkg.api.etag import TAGGED_PREFIXES

# What is kept of a response: its status line's headers and its body.
_Entry = tuple[list[tuple[bytes, bytes]], bytes]


class AnswerCache:
    """Least-recently-used answers of one generation, within `max_bytes` of keys and bodies."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.generation: str | None = None
        self.used = 0
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()

    def get(self, generation: str, key: bytes) -> _Entry | None:
        if generation != self.generation:
            self._clear(generation)
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry

    @property
    def max_entry(self) -> int:
        """The largest answer kept: an eighth of the budget."""
        return self.max_bytes // 8

    def put(self, generation: str, key: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        if generation != self.generation:
            self._clear(generation)
        size = _size(key, headers, body)
        if size > self.max_entry or key in self._entries:
            return
        self._entries[key] = (headers, body)
        self.used += size
        while self.used > self.max_bytes:
            old_key, (old_headers, old_body) = self._entries.popitem(last=False)
            self.used -= _size(old_key, old_headers, old_body)

    def __len__(self) -> int:
        return len(self._entries)

    def _clear(self, generation: str) -> None:
        self._entries.clear()
        self.used = 0
        self.generation = generation


def _size(key: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
    return len(key) + len(body) + sum(len(k) + len(v) for k, v in headers) + 200   # + the objects


class AnswerCacheMiddleware:
    def __init__(self, app: ASGIApp, holder: StoreHolder, max_bytes: int) -> None:
        self.app = app
        self.holder = holder
        self.cache = AnswerCache(max_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["method"] != "GET" or self.cache.max_bytes <= 0
                or not scope["path"].startswith(TAGGED_PREFIXES)):
            await self.app(scope, receive, send)
            return
        generation = self.holder.generation()
        if generation is None:
            await self.app(scope, receive, send)
            return
        key = scope["path"].encode() + b"?" + scope.get("query_string", b"")
        entry = self.cache.get(generation, key)
        if entry is not None:
            headers, body = entry
            await send({"type": "http.response.start", "status": 200, "headers": list(headers)})
            await send({"type": "http.response.body", "body": body})
            return
        kept: list[tuple[bytes, bytes]] | None = None
        chunks: list[bytes] = []
        size = 0

        async def keeping_send(message: Message) -> None:
            nonlocal kept, size
            if message["type"] == "http.response.start":
                if message["status"] == 200:
                    kept = list(message.get("headers", ()))
            elif message["type"] == "http.response.body" and kept is not None:
                body = message.get("body", b"")
                size += len(body)
                if size > self.cache.max_entry:
                    kept = None             # too large to keep: stop copying it
                else:
                    chunks.append(body)
                    # the whole answer, made under the generation it is kept for
                    if not message.get("more_body", False) and self.holder.generation() == generation:
                        self.cache.put(generation, key, kept, b"".join(chunks))
            await send(message)

        await self.app(scope, receive, keeping_send)
