"""Find or start the Neo4j engine used by the tests (standard library only).

``ensure_neo4j()`` returns a Bolt URI (no auth):

* ``NEO4J_URI`` set in the environment -> that URI, nothing is started;
* otherwise ``tests/neo4j/server start`` (embedded Neo4j 5.26 Community, built with Maven on first
  use) -> its URI; the engine is stopped at interpreter exit if this process started it;
* it cannot start -> ``None`` locally (callers skip), but ``RuntimeError`` when ``CI`` is set,
  because a skipped Neo4j suite in CI must count as a failure.

The result is cached for the process. No pytest fixtures here: conftest wires this in.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import threading
import warnings
from pathlib import Path

SERVER = Path(__file__).resolve().parent / "neo4j" / "server"

# First use builds the engine with Maven (downloads ~125 MB of jars once) and the JVM start is
# slow on a busy 2-core machine; the script bounds its own wait (NEO4J_START_TIMEOUT, 180 s).
_START_TIMEOUT_S = float(os.environ.get("NEO4J_ENSURE_TIMEOUT", "900"))
_STOP_TIMEOUT_S = 60.0

_lock = threading.Lock()
_cached: tuple[str | None] | None = None


def _in_ci() -> bool:
    value = os.environ.get("CI", "").strip().lower()
    return value not in ("", "0", "false", "no")


def _run(action: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SERVER), action],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _stop() -> None:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        _run("stop", _STOP_TIMEOUT_S)


def _uri_from(stdout: str) -> str | None:
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("bolt://"):
            return line
    return None


def _start() -> str:
    """Start (or reuse) the local engine; return its URI or raise RuntimeError."""
    if not SERVER.is_file():
        raise RuntimeError(f"{SERVER} is missing")
    try:
        status = _run("status", 30)
        already_running = status.returncode == 0 and _uri_from(status.stdout) is not None
        if already_running:
            # Someone else started it (another session or process): use it, leave it running.
            return _uri_from(status.stdout)  # type: ignore[return-value]
        proc = _run("start", _START_TIMEOUT_S)
    except FileNotFoundError as exc:
        raise RuntimeError(f"cannot run {SERVER}: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        _stop()
        raise RuntimeError(f"{SERVER} start timed out after {exc.timeout:.0f}s") from exc
    except OSError as exc:
        raise RuntimeError(f"cannot run {SERVER}: {exc}") from exc

    uri = _uri_from(proc.stdout)
    if proc.returncode != 0 or uri is None:
        detail = (proc.stderr or proc.stdout or "").strip()
        raise RuntimeError(
            f"{SERVER} start failed (exit {proc.returncode}):\n{detail[-4000:]}"
        )
    atexit.register(_stop)
    return uri


def ensure_neo4j() -> str | None:
    """Return a Bolt URI for the test Neo4j, starting the local engine if needed.

    Returns None when it cannot start and CI is not set; raises RuntimeError when CI is set.
    """
    global _cached
    env_uri = os.environ.get("NEO4J_URI", "").strip()
    if env_uri:
        return env_uri
    with _lock:
        if _cached is not None:
            if _cached[0] is None and _in_ci():
                raise RuntimeError("Neo4j test engine could not start (see earlier error)")
            return _cached[0]
        try:
            uri: str | None = _start()
        except RuntimeError as exc:
            _cached = (None,)
            if _in_ci():
                raise
            warnings.warn(f"Neo4j test engine unavailable: {exc}", RuntimeWarning, stacklevel=2)
            return None
        _cached = (uri,)
        return uri


if __name__ == "__main__":  # manual check: python tests/neo4j_engine.py
    import sys

    result = ensure_neo4j()
    print(result)
    sys.exit(0 if result else 1)
