"""User Cypher where it can be stopped: a forked worker with a deadline, a memory budget and an
answer budget.

Why a process: grand-cypher runs in pure Python and holds the GIL, so a thread running it cannot be
interrupted, and a query such as three MATCH clauses over unrelated labels builds a cartesian
product that grew a server to 11 GB and ran on after its client left. A forked child shares the
loaded graph copy-on-write (no reload, ~ms to fork), and can be killed:
- at the deadline (`Bounds.timeout`): SIGKILL, answered as `QueryTimeoutError` (HTTP 503, exit 69);
- when the caller says the client went away (`cancelled()`, polled while waiting);
- beyond its memory budget: the child's address space is capped at what it inherited plus
  `Bounds.memory_bytes` (RLIMIT_AS), so a runaway allocation is a MemoryError in the child, answered
  as `QueryLimitError` (422) naming the budget, never swap or the OOM killer in the server.
The child sends back at most `Bounds.max_rows` rows and `Bounds.max_bytes` bytes of JSON: beyond
that the answer is cut at a row boundary and flagged `truncated`; a single row larger than the byte
budget is refused (422) rather than cut mid-value. Sizes are counted while walking each row, so a
40-byte `RETURN range(1, 20000000)` stops after the first 16 MB instead of encoding 169 MB.

At most `Bounds.workers` queries run at once (a semaphore, not a queue): more get
`StoreUnavailableError` (503, `Retry-After`), so a flood cannot fork the machine out of memory.

On Neo4j the same worker runs the store's guarded query: the child drops the parent's connections
(`forget_connections`) and opens its own, so a huge record is decoded in the child, not the server,
and a frozen server costs the deadline. Linux/macOS only (fork).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from paperkg.graph import errors as errors_module
from paperkg.graph.errors import PaperkgError, QueryLimitError, QueryTimeoutError, StoreUnavailableError

Row = dict[str, Any]
MIB = 1024 * 1024
_POLL = 0.2         # seconds between checks of the deadline and of `cancelled`


@dataclass(frozen=True)
class Bounds:
    timeout: float = 10.0
    memory_bytes: int = 1024 * MIB
    max_rows: int = 10_000
    max_bytes: int = 16 * MIB
    workers: int = 2


@dataclass(frozen=True)
class Answer:
    rows: list[Row]
    truncated: bool


class ClientGone(Exception):
    """The caller stopped waiting (the HTTP client disconnected): the worker was killed."""


_slots_lock = threading.Lock()
_running = 0


@contextlib.contextmanager
def _slot(limit: int) -> Any:
    global _running
    with _slots_lock:
        if _running >= limit:
            err = StoreUnavailableError(f"{_running} Cypher queries are already running, the most this "
                                        "server runs at once", "retry in a moment")
            err.retry_after = 2  # type: ignore[attr-defined]
            raise err
        _running += 1
    try:
        yield
    finally:
        with _slots_lock:
            _running -= 1


def json_size(value: Any, budget: int) -> int:
    """Bytes of `value` as compact JSON, counted only until they pass `budget` (then any number
    above it is returned): cheap on huge values."""
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, int | float):
        return len(repr(value))
    if isinstance(value, str):
        return len(value) + 2 if value.isascii() else len(json.dumps(value, ensure_ascii=False).encode())
    total = 2
    if isinstance(value, Mapping):
        for k, v in value.items():
            total += len(str(k)) + 4 + json_size(v, budget - total)
            if total > budget:
                return total
        return total
    if isinstance(value, list | tuple):
        for v in value:
            total += 1 + json_size(v, budget - total)
            if total > budget:
                return total
        return total
    return len(str(value)) + 2


_encode = msgspec.json.Encoder().encode


def row_size(row: Row, budget: int) -> int:
    """Bytes of `row` as compact JSON: msgspec's count (in C: `json_size`'s walk over each value in
    Python took ten times as long), else `json_size`'s for what msgspec does not encode."""
    try:
        return len(_encode(row))
    except (TypeError, ValueError, OverflowError, msgspec.MsgspecError):
        return json_size(row, budget)


def capped(rows: Iterable[Row], max_rows: int, max_bytes: int) -> Answer:
    """The rows within both budgets, and whether any were left out. One row over the byte budget
    on its own is a QueryLimitError (it cannot be cut without changing its value)."""
    kept: list[Row] = []
    used = 2
    for row in rows:
        if len(kept) >= max_rows:
            return Answer(kept, True)
        size = row_size(row, max_bytes)
        if size > max_bytes:
            raise QueryLimitError(f"one row of the answer is larger than the answer limit of "
                                  f"{max_bytes // MIB or max_bytes} {'MiB' if max_bytes >= MIB else 'bytes'}",
                                  "return fewer or smaller values per row (size(), a slice, LIMIT)")
        if used + size + 1 > max_bytes:
            return Answer(kept, True)
        used += size + 1
        kept.append(row)
    return Answer(kept, False)


def _vm_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * resource.getpagesize()


def _child(write_fd: int, work: Callable[[], Iterable[Row]], bounds: Bounds) -> None:
    """Runs in the forked child; never returns (os._exit): no atexit, no flush of inherited files,
    no close of the parent's sockets."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        # A native library that runs out of the budget may abort with a dump on stderr (the Neo4j
        # driver's Rust codec does): not the server's log.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        with contextlib.suppress(OSError, ValueError):
            limit = _vm_bytes() + bounds.memory_bytes
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            answer = capped(work(), bounds.max_rows, bounds.max_bytes)
            payload: dict[str, Any] = {"ok": True, "rows": answer.rows, "truncated": answer.truncated}
        except MemoryError:
            payload = {"ok": False, "class": "QueryLimitError",
                       "message": f"the query needed more than its memory budget of "
                                  f"{bounds.memory_bytes // MIB} MiB",
                       "hint": "add a LIMIT, or make the MATCH more selective (MATCH clauses over "
                               "unrelated labels multiply)"}
        except PaperkgError as err:
            payload = {"ok": False, "class": type(err).__name__, "message": err.message, "hint": err.hint,
                       "retry_after": getattr(err, "retry_after", None)}
        data = json.dumps(payload, ensure_ascii=False, allow_nan=False, default=str).encode()
        view = memoryview(data)
        while view:
            written = os.write(write_fd, view)
            view = view[written:]
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def run_in_worker(work: Callable[[], Iterable[Row]], bounds: Bounds,
                  cancelled: Callable[[], bool] | None = None) -> Answer:
    """`work()`'s rows, computed in a forked child within `bounds` (see the module docstring).
    Errors of the project's classes raised in the child are raised again here."""
    with _slot(bounds.workers):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(read_fd)
            _child(write_fd, work, bounds)
        os.close(write_fd)
        try:
            data = _collect(pid, read_fd, bounds, cancelled)
        finally:
            os.close(read_fd)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return _decode(data, bounds)


def _collect(pid: int, fd: int, bounds: Bounds, cancelled: Callable[[], bool] | None) -> bytes:
    deadline = time.monotonic() + bounds.timeout
    chunks: list[bytes] = []
    received = 0
    ceiling = bounds.max_bytes * 2 + MIB      # rows within budget plus JSON framing, never more
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise QueryTimeoutError(f"the query was stopped after its time limit of {bounds.timeout:g} s",
                                    "add a LIMIT or make the MATCH more selective, then retry")
        if cancelled is not None and cancelled():
            raise ClientGone
        ready, _, _ = select.select([fd], [], [], min(_POLL, left))
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        received += len(chunk)
        if received > ceiling:
            raise QueryLimitError(f"the answer exceeds the limit of {bounds.max_bytes // MIB} MiB")
        chunks.append(chunk)


def _decode(data: bytes, bounds: Bounds) -> Answer:
    if not data:
        # Nothing but the budget kills a worker before it answers (a native allocation failing
        # aborts the process instead of raising MemoryError).
        raise QueryLimitError(f"the query stopped without an answer: it most likely needed more than "
                              f"its memory budget of {bounds.memory_bytes // MIB} MiB",
                              "add a LIMIT, return fewer or smaller values, or make the MATCH more selective")
    payload = json.loads(data)
    if payload["ok"]:
        return Answer(payload["rows"], bool(payload["truncated"]))
    cls = getattr(errors_module, payload["class"], None)
    if not (isinstance(cls, type) and issubclass(cls, PaperkgError)):
        cls = PaperkgError
    err = cls(payload["message"], payload.get("hint"))
    if payload.get("retry_after"):
        err.retry_after = payload["retry_after"]  # type: ignore[attr-defined]
    raise err
