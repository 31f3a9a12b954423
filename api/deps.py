"""The dependency the routes share: the app's one store.

The store is a dependency (`get_store`) rather than a global so that tests swap it with
`app.dependency_overrides[get_store]`, and so that nothing connects at import or `create_app` time:
the store is opened when the app starts (`StoreHolder.warm_up`, from the lifespan), or failing that
on the first request that needs it, and closed when the app shuts down.
"""

from __future__ import annotations

import concurrent.futures
import functools
import gc
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from paperkg.api.settings import Settings
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.errors import InputNotFoundError, StoreUnavailableError
from paperkg.graph.store import GraphStore, GraphView, open_store
from paperkg.queries import embedded_impl, index_snapshot
from paperkg.queries.runner import prepare

log = logging.getLogger("paperkg.api")
HEALTH_TIMEOUT = 1.0    # seconds /health waits for the store's answer
# How often a request may look for a rebuilt store (`StoreHolder.current`): the look is a `stat` and
# an SQLite read, a tenth of a /health request's time when every request paid it; a rebuild is loaded
# in the background anyway, so seeing it half a second later changes nothing a client can tell.
RELOAD_CHECK_SECONDS = 0.5
_T = TypeVar("_T")


class StoreHolder:
    """Opens the store once, on first use, swaps in a rebuilt one, and closes it on shutdown.

    Sync routes run in a thread pool, so two first requests may race: a lock makes one of them open
    the store. A failed open is not cached — the next request tries again (a store may be built, or
    Neo4j come up, after the server started).

    The embedded store reads its file once, so a `paperkg build` into it while the server runs would
    go unseen until a restart. Requests compare the file's `version()` with the one loaded, at most
    every RELOAD_CHECK_SECONDS (a `stat` and one SQLite read); on a change a background thread loads
    the new graph while the old one keeps answering, then swaps it in, so no request waits for the
    ~30 s load of a 100k graph (both are in memory for that while). A file that fails to load is
    logged once and the old graph stays.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._store: GraphStore | None = None
        self._version: object | None = None
        self._reloading: object | None = None   # the version being loaded, or that failed to load
        self._lock = threading.Lock()
        self._ping: concurrent.futures.Future[None] | None = None
        self._checked = 0.0     # time.monotonic() of the last look for a rebuild

    def get(self) -> GraphStore:
        """The store, opened now if it is not yet (which may take long: call it from a thread)."""
        store = self.current()
        if store is not None:
            return store
        with self._lock:
            if self._store is None:
                self._store, self._version = self._open()
            return self._store

    def current(self) -> GraphStore | None:
        """The store if it is open (None otherwise), starting a reload when it was rebuilt on disk;
        never blocks on a load, so the event loop may call it."""
        store = self._store
        if store is not None:
            now = time.monotonic()
            if now - self._checked >= RELOAD_CHECK_SECONDS:
                self._checked = now
                self._reload_if_rebuilt(store)
        return store

    def generation(self) -> str | None:
        """The build generation of the store served now (`BuildState.generation`), None for stores
        read live (Neo4j) or not open: what `ETag` names (`api.app.ETagMiddleware`)."""
        version = self._version
        if self._store is None or not isinstance(version, tuple) or len(version) != 2:
            return None
        return version[1] if isinstance(version[1], str) else None

    def _reload_if_rebuilt(self, store: GraphStore) -> None:
        version = store.version()
        if version is None or version == self._version or version == self._reloading:
            return
        with self._lock:
            if self._store is not store or version == self._reloading:
                return
            self._reloading = version
        threading.Thread(target=self._reload, args=(store,), name="paperkg-store-reload", daemon=True).start()

    def _reload(self, old: GraphStore) -> None:
        try:
            new, version = self._open()
        except Exception as err:  # keep serving the graph already loaded; a later build tries again
            log.warning("the store changed on disk but could not be loaded; still serving the old one: %s",
                        err)
            return
        with self._lock:
            if self._store is not old:      # closed, or swapped meanwhile
                new.close()
                return
            self._store, self._version, self._reloading = new, version, None
        _release(old)
        log.info("store reloaded after a rebuild")

    def _open(self) -> tuple[GraphStore, object | None]:
        s = self._settings
        try:
            store = open_store(s.store, s.neo4j_uri, s.neo4j_user, s.password(), s.neo4j_database)
        except InputNotFoundError as err:
            # A missing store is the server's problem, not the requested resource's: a client must
            # not read "404" as "that entity does not exist".
            raise StoreUnavailableError(err.message, err.hint) from err
        # taken before the load: a build that lands during it shows as a newer version afterwards
        version = store.version()
        try:
            # Build the embedded store's query indexes once, here under the lock, rather than in
            # whichever concurrent first requests get there (on Neo4j: the index check).
            prepare(store)
        except BaseException:
            store.close()
            raise
        _save_index_if_derived(store)
        # The loaded graph and its index (~10 million objects at 100k abstracts) live as long as the
        # server. Left to the cyclic collector, every full collection walks them all: a ~6 s stall of
        # whichever request triggers it (seen at 100k). Freezing moves what exists now out of its
        # reach; reference counting still frees these objects if they are ever dropped.
        gc.freeze()
        if isinstance(store, GraphView):
            threading.Thread(target=_warm_networkx, args=(store,), name="paperkg-cypher-view",
                             daemon=True).start()
        return store, version

    def ping(self, store: GraphStore, timeout: float = HEALTH_TIMEOUT) -> None:
        """Check that `store` answers now (its `ping`, for stores that have one): raises
        StoreUnavailableError when it does not, or not within `timeout` seconds (a frozen server).
        One ping runs at a time; concurrent callers wait for the same one, so a flood of health
        checks against a hung server starts one ping, not one thread each."""
        ping = getattr(store, "ping", None)
        if ping is None:
            return
        with self._lock:
            future = self._ping
            if future is None or future.done():
                future = self._ping = concurrent.futures.Future()
                threading.Thread(target=_run_into, args=(ping, future), name="paperkg-ping",
                                 daemon=True).start()
        try:
            future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise StoreUnavailableError(f"the store did not answer within {timeout:g} s",
                                        "the server may be overloaded or frozen; retry later") from None

    def warm_up(self) -> None:
        """Open the store and prepare it for queries now, at startup: the embedded store's
        query index takes seconds at 100k abstracts, and Neo4j's index check a round trip,
        which would otherwise all land on the first request. Never raises: a store that is missing or
        unreachable at startup is logged, the server still starts (the catalog, health and docs need
        no store), and the first request that needs it tries again and answers 503 with the reason."""
        try:
            self.get()
        except Exception as err:  # any failure here is retried, and surfaced, per request
            log.warning("store not ready at startup (the first request will try again): %s", err)

    def close(self) -> None:
        with self._lock:
            store, self._store, self._reloading = self._store, None, None
        if store is not None:
            store.close()


def _release(store: GraphStore) -> None:
    """Let reference counting free a swapped-out graph and its query index.

    `gc.freeze()` (see `_open`) puts the loaded graph out of the cyclic collector's reach, so any
    reference cycle in it would keep it alive for good: networkx caches its edge and degree views on
    the graph (`G.edges` is a view holding `G`), which is such a cycle. Dropping those cached views
    breaks it (a request still using the old graph just builds them again, outside the frozen set);
    the index holds no reference to its graph (`queries.embedded_impl.Index`). A view for user
    Cypher not built yet is not built for this."""
    if not isinstance(store, GraphView):
        return
    loaded = getattr(store, "networkx_loaded", None)
    graph = loaded() if loaded is not None else store.networkx()
    if graph is None:
        return
    for name in [k for k, v in vars(graph).items() if getattr(v, "_graph", None) is graph]:
        del vars(graph)[name]


def _save_index_if_derived(store: GraphStore) -> None:
    """When this load (a start or a reload) derived an embedded store's index because no whole saved
    one of its build was there (built by an older paperkg, changed by a correction since, the file
    damaged), start the save a build does (`index_snapshot.save_in_background`), so that the next
    start, or the next worker's, reads it. The save runs in its own low-priority process, not in this
    one, where encoding a big index would hold up requests. Never raises: the store is loaded and
    served either way."""
    if not isinstance(store, EmbeddedStore):
        return
    try:
        if embedded_impl.index_of(store).from_file or store.state.generation() is None:
            return
        if not os.access(store.path, os.W_OK):
            log.info("%s has no saved serving index of its build, and its directory is read-only: "
                     "it is derived at every start until a build saves one", store.path)
            return
        log.info("%s has no saved serving index of its build: derived it here, and saving it in the "
                 "background for the next start", store.path)
        index_snapshot.save_in_background(store.path)
    except Exception as err:    # the index is loaded; only the next start's time is at stake
        log.warning("the serving index of %s could not be saved for the next start: %s", store.path, err)


def _warm_networkx(store: GraphView) -> None:
    """Build the embedded store's networkx view, which only user Cypher reads, once the catalog is
    ready (`EmbeddedStore.view_rows`): /health turns ready without it, and a /cypher request that
    comes first waits for this build rather than start its own. The load freezes what it made
    (`graph.store.collector_paused`)."""
    try:
        store.networkx()
    except Exception as err:   # a rebuild or a closed store: the next /cypher request says why
        log.info("the view for user Cypher was not built: %s", err)


def _run_into(fn: Callable[[], object], future: concurrent.futures.Future[None]) -> None:
    try:
        fn()
    except BaseException as err:
        future.set_exception(err)
    else:
        future.set_result(None)


async def get_store(request: Request) -> GraphStore:
    """The app's store (override this in tests). Async, so a request that finds it open (all but
    the first after a failed start) takes no trip through the thread pool for it."""
    holder: StoreHolder = request.app.state.store_holder
    store = holder.current()
    if store is not None:
        return store
    return await run_in_threadpool(holder.get)


async def call(store: GraphStore, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """`fn(*args, **kwargs)` for a route about `store`: run right here, on the event loop, when the
    store holds its graph in this process (embedded: a catalog query is milliseconds of Python
    holding the GIL, so a worker thread buys no parallelism, and the hop there and back was a third
    of a request's time); in the thread pool for a store that waits on a network (Neo4j), so the
    loop serves other requests meanwhile."""
    if _in_process(type(store)):
        return fn(*args, **kwargs)
    return await run_in_threadpool(fn, *args, **kwargs)


@functools.lru_cache(maxsize=32)
def _in_process(kind: type) -> bool:
    """Whether stores of class `kind` are `GraphView`s (a protocol check walks the class: once per
    class, not per request)."""
    return issubclass(kind, GraphView)
