"""Neo4j going away while a live `paperkg serve` uses it: stopped (a loopback relay in front of the
engine is shut, so the shared test engine keeps running for other tests) and frozen (SIGSTOP of the
engine process itself, then SIGCONT)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from tests.reliability.test_live_server import serve


class Relay:
    """TCP relay 127.0.0.1:port -> the engine; `stop()` closes it and every connection through it."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.running:
                client.close()
                return
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        self.running = False
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)   # wakes the blocked accept() (close does not)
        self.listener.close()
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
                s.close()


def _engine(uri: str) -> tuple[tuple[str, int], int]:
    port = int(uri.rsplit(":", 1)[1])
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid:
            return ("127.0.0.1", port), conn.pid
    raise AssertionError(f"no process listens on {port}")


@pytest.fixture
def relayed_server(neo4j_seed_store: object, neo4j_uri: str, tmp_path: Path
                   ) -> Iterator[tuple[str, Relay, int]]:
    target, pid = _engine(neo4j_uri)
    relay = Relay(target)
    with serve(tmp_path, env={"PAPERKG_NEO4J_URI": f"bolt://127.0.0.1:{relay.port}"}) as (base, _, _):
        yield base, relay, pid
    relay.stop()


def _timed(call: object) -> tuple[httpx.Response, float]:
    start = time.monotonic()
    response = call()  # type: ignore[operator]
    return response, time.monotonic() - start


def test_neo4j_stopped_while_serving(relayed_server: tuple[str, Relay, int]) -> None:
    base, relay, _ = relayed_server
    assert httpx.get(f"{base}/health", timeout=10).status_code == 200
    assert httpx.get(f"{base}/stats", timeout=30).status_code == 200
    relay.stop()
    health, seconds = _timed(lambda: httpx.get(f"{base}/health", timeout=30))
    assert health.status_code == 503 and health.headers["retry-after"] and seconds < 2
    # Connection failures are answered within the store's bounded connect + read retry (3 s + 1 s):
    # every kind of route, user Cypher included, is a 503 with Retry-After in under 5 s.
    for method, path, body in (("GET", "/stats", None), ("GET", "/queries/top_entities?type=Method", None),
                               ("GET", "/entities?q=gr", None), ("GET", "/papers/p1", None),
                               ("POST", "/cypher", {"query": "MATCH (n:Method) RETURN n.id AS id LIMIT 1"})):
        start = time.monotonic()
        response = httpx.request(method, f"{base}{path}", json=body, timeout=30)
        seconds = time.monotonic() - start
        assert response.status_code == 503 and response.headers["retry-after"], (path, response.text)
        assert seconds < 5, f"{path} took {seconds:.1f} s with Neo4j stopped"
    health, seconds = _timed(lambda: httpx.get(f"{base}/health", timeout=30))
    assert health.status_code == 503 and seconds < 2


def test_neo4j_frozen_while_serving(relayed_server: tuple[str, Relay, int]) -> None:
    base, _, pid = relayed_server
    assert httpx.get(f"{base}/health", timeout=10).status_code == 200
    os.kill(pid, signal.SIGSTOP)
    try:
        health, seconds = _timed(lambda: httpx.get(f"{base}/health", timeout=30))
        assert health.status_code == 503 and health.headers["retry-after"] and seconds < 2
        cypher, seconds = _timed(lambda: httpx.post(f"{base}/cypher", json={"query": "MATCH (n:Method) "
                                                    "RETURN n.id AS id LIMIT 1"}, timeout=60))
        assert cypher.status_code == 503 and cypher.headers["retry-after"] and seconds < 15
        # a catalog query costs its timeout (10 s) and the client deadline's grace, not minutes
        stats, seconds = _timed(lambda: httpx.get(f"{base}/queries/top_entities?type=Method", timeout=60))
        assert stats.status_code == 503 and stats.headers["retry-after"] and seconds < 15, seconds
    finally:
        os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + 60
    while httpx.get(f"{base}/health", timeout=30).status_code != 200:
        assert time.monotonic() < deadline, "the server did not recover after SIGCONT"
        time.sleep(0.5)
    assert httpx.get(f"{base}/stats", timeout=30).status_code == 200
