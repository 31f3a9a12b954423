"""`paperkg serve` as a user starts it, for the tests that need a real process: a free port, the CLI
through this interpreter, a clean `PAPERKG_` environment, and a stop by SIGINT (then SIGKILL) so no
server outlives its test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve(args: list[str], log: Path, env: dict[str, str] | None = None, *, until_ok: bool = True
          ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`paperkg serve ARGS` on a free port with `env` added; its base URL and process once /health
    answers (200 with `until_ok`, any status without: a server whose Neo4j is down says 503)."""
    port = free_port()
    full = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")} | (env or {})
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "paperkg.api.cli", "serve", *args,
                                 "--host", "127.0.0.1", "--port", str(port)],
                                stdout=out, stderr=subprocess.STDOUT, env=full)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"paperkg serve exited with {proc.returncode}:\n{log.read_text()}")
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200 or not until_ok:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"paperkg serve did not come up in 60 s:\n{log.read_text()}")
            time.sleep(0.2)
        yield base, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
