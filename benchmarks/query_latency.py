"""Latency of every catalog query through the HTTP API, and requests/s under load (issue 5, item 6).

    python benchmarks/query_latency.py --store S                         # embedded store S
    python benchmarks/query_latency.py --neo4j bolt://127.0.0.1:7687     # a Neo4j already loaded
    python benchmarks/query_latency.py --store S --neo4j URI --load-neo4j   # copy S into Neo4j, run both
    python benchmarks/query_latency.py --store S --requests 200 --warmup 2 --json

Why it is measured this way:
- Through the API, not the runner: a user waits for `GET /queries/{name}` on a `paperkg serve` process
  (validation, store call, JSON encoding, Uvicorn), so the server is started as a subprocess on a
  free loopback port exactly as a user starts it, and driven over HTTP with a keep-alive httpx client.
- Not one cached case: each query runs its catalog example and, for entity parameters, a spread of
  real names from the graph — ranks spaced logarithmically from the most-mentioned entity to the
  least (Zipf-shaped data: the head is where the cost is, the tail is what most lookups hit), chosen
  by rank, so the same graph always gives the same requests. The names come from the store itself
  (or from Neo4j when no store is given), so embedded and Neo4j runs send identical requests.
- The embedded server runs with its answer cache off (`PAPERKG_ANSWER_CACHE_MB=0`): the requests
  cycle through a few paths per query, which it would otherwise answer from memory after the first,
  and these figures are about the queries (`throughput.py` measures the cache). Neo4j's answers are
  never kept (no build generation).
- Sequential latency (one request at a time) gives the per-query p50/p95/p99 that the targets are
  about; throughput is measured apart, with 32 concurrent connections cycling through every request
  of every query, because under load the numbers mix queuing with work.
- Targets (issue 5): at 100,000 abstracts p95 <= 50 ms embedded and <= 20 ms on Neo4j for every
  catalog query. PASS/FAIL is printed against them at any size; only the 100k run is the check.
- The machine is shared (2 cores, other engineers' jobs): the load average is recorded at the start
  and end of every phase, and the load generator itself competes with the server for the CPU.
  wrk (C, one thread per core) is preferred for that reason; the asyncio+httpx fallback costs more.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx

TARGET_MS = {"embedded": 50.0, "neo4j": 20.0}   # p95 at 100,000 abstracts (issue 5, item 6)
# Copies of graph.model's closed sets: paperkg is imported lazily, so that --help and --render work
# without it and a PYTHONPATH snapshot (see README) decides which code runs.
ENTITY_LABELS = ("Method", "Model", "Dataset", "Benchmark", "Metric", "Task")
RELATION_TYPES = ("EVALUATED_ON", "COMPARED_WITH", "USES", "ADDRESSES", "MEASURED_BY")
ROOT = Path(__file__).resolve().parent.parent
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

# Which entities make a meaningful argument for a query (labels, relation type, direction); the rest
# take any entity. A relation query asked about an entity without that relation only measures the
# lookup, so the pool is the entities that have it (all of the labels if none has).
POOLS: dict[str, tuple[tuple[str, ...], str | None, str | None]] = {
    "evaluated_on": (("Dataset", "Benchmark"), "EVALUATED_ON", "in"),
    "benchmarks_of": (("Method", "Model"), "EVALUATED_ON", "out"),
    "compared_with": (("Method", "Model"), "COMPARED_WITH", None),
    "neighbors": (ENTITY_LABELS, "*", None),
    "leaderboard": (("Dataset", "Benchmark"), None, None),
    "sota_over_time": (("Dataset", "Benchmark"), None, None),
    "results_of": (("Method", "Model"), None, None),
}
# two entity parameters of different kinds (a benchmark and a metric): no pairs drawn from one pool,
# only the example, when the graph has its names
EXAMPLE_ONLY = frozenset({"sota_over_time"})


def _log(message: str) -> None:
    """Progress on stderr, so stdout carries only the table or the JSON."""
    print(f"[latency] {message}", file=sys.stderr, flush=True)


def _loadavg() -> list[float]:
    """1/5/15-minute load average: on a shared machine no figure means anything without it."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


# ---------------------------------------------------------------------------------------------------
# What to ask: entities of the graph, and the requests built from them
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntityInfo:
    """One entity as the sampler sees it: enough to rank it and to know which queries fit it."""

    id: str
    type: str
    name: str
    papers: int
    relations: frozenset[tuple[str, str]] = frozenset()   # {(relation type, "out"|"in")}


@dataclass
class Universe:
    """The entities and collections requests are drawn from, plus where they were read from."""

    entities: list[EntityInfo]
    collections: list[str]
    source: str
    papers: list[tuple[str, int]] = field(default_factory=list)   # (paper id, entities it mentions)


def universe_from_store(path: Path) -> Universe:
    """Entities of an embedded store, read from its build state in this process: the lean rows
    streamed (`derive.lean_rows`), never the whole graph at once (a 1M-abstract store's graph would
    sit beside the server's)."""
    from paperkg.graph.derive import lean_rows
    from paperkg.graph.state import BuildState

    state = BuildState(path)
    rels: dict[str, set[tuple[str, str]]] = defaultdict(set)
    mentions: dict[str, int] = defaultdict(int)
    entities, collections, papers = [], [], []
    try:
        with state.snapshot() as db:
            nodes, edges = lean_rows(db)
            for etype, source, target, _ in edges:
                if etype in RELATION_TYPES:
                    rels[source].add((etype, "out"))
                    rels[target].add((etype, "in"))
                elif etype == "MENTIONS":
                    mentions[source] += 1
            for key, label, props in nodes:
                if label in ENTITY_LABELS:
                    name = str(props.get("name", props["id"]))
                    entities.append(EntityInfo(props["id"], label, name, int(props.get("paper_count", 0)),
                                               frozenset(rels.get(key, ()))))
                elif label == "Collection":
                    collections.append(str(props.get("name", props["id"])))
                elif label == "Paper":
                    papers.append((props["id"], mentions.get(key, 0)))
    finally:
        state.close()
    return Universe(entities, sorted(collections), f"embedded store {path}", papers)


def universe_from_neo4j(store: Any) -> Universe:
    """The same from a loaded Neo4j (when no embedded store is given)."""
    labels = "|".join(ENTITY_LABELS)
    rels = "|".join(RELATION_TYPES)
    rows = store.run_read(
        f"MATCH (e:{labels}) RETURN e.id AS id, e.type AS type, e.name AS name, e.paper_count AS papers, "
        f"[(e)-[r:{rels}]-() | [type(r), CASE WHEN startNode(r) = e THEN 'out' ELSE 'in' END]] AS rels",
        timeout=300)
    entities = [EntityInfo(r["id"], r["type"], r["name"] or r["id"], int(r["papers"] or 0),
                           frozenset((t, d) for t, d in r["rels"])) for r in rows]
    cols = store.run_read("MATCH (c:Collection) RETURN coalesce(c.name, c.id) AS name")
    papers = store.run_read("MATCH (p:Paper) RETURN p.id AS id, COUNT { (p)-[:MENTIONS]->() } AS n",
                            timeout=300)
    return Universe(entities, sorted(r["name"] for r in cols), f"Neo4j {store.uri}",
                    [(r["id"], int(r["n"])) for r in papers])


def log_spaced(items: Sequence[Any], k: int) -> list[Any]:
    """Up to k items at ranks spaced logarithmically from the first to the last (1, 4, 16, ... n):
    the popular head and the rare tail of a Zipf-shaped list, deterministically."""
    n = len(items)
    if n <= k:
        return list(items)
    if k <= 1:
        return list(items[:k])
    ranks = sorted({min(n, max(1, round(math.exp(math.log(n) * i / (k - 1))))) for i in range(k)})
    r = 1
    while len(ranks) < k:          # small n: rounding collides; fill with the first unused ranks
        if r not in ranks:
            ranks.append(r)
        r += 1
    return [items[i - 1] for i in sorted(ranks)]


def pool_for(query: str, universe: Universe) -> list[EntityInfo]:
    """Entities fit for `query`'s entity parameter, most-mentioned first (ties by id)."""
    labels, relation, direction = POOLS.get(query, (ENTITY_LABELS, None, None))
    fit = [e for e in universe.entities if e.type in labels]
    if relation:
        with_rel = [e for e in fit if any((relation in ("*", t)) and (direction in (None, d))
                                          for t, d in e.relations)]
        fit = with_rel or fit
    return sorted(fit, key=lambda e: (-e.papers, e.id))


@dataclass
class Variant:
    """One request of a query: its parameters, the GET path, and what the spread calls it."""

    label: str
    params: dict[str, Any]

    def path(self, query: str) -> str:
        """`/queries/NAME?...`: lists as JSON (a name may contain a comma), everything URL-quoted
        (so the path is plain ASCII, as the wrk script needs)."""
        flat = {k: json.dumps(v, ensure_ascii=False) if isinstance(v, list) else str(v)
                for k, v in self.params.items() if v is not None}
        return f"/queries/{quote(query)}" + (f"?{urlencode(flat, quote_via=quote)}" if flat else "")


def _fragment(name: str) -> str:
    """A search fragment from a real name: its first half (at least 3 characters)."""
    text = name.strip()
    return text[:max(3, len(text) // 2)].strip() or text


def plan(catalog: list[dict[str, Any]], universe: Universe, k: int) -> dict[str, list[Variant]]:
    """For each catalog query: its example, then up to k requests over real names of the graph."""
    plans: dict[str, list[Variant]] = {}
    known = {e.name.casefold() for e in universe.entities}
    for q in catalog:
        name = q["name"]
        example = {p["name"]: p["example"] for p in q["params"]}
        types = {p["name"]: p["type"] for p in q["params"]}
        required = {p["name"] for p in q["params"] if p["required"]}
        entity_params = [p for p, t in types.items() if t == "entity"]
        # an example naming an entity this graph lacks (`leaderboard`'s Gait3D on the seed store): a 404
        resolves = all(str(example[p]).casefold() in known
                       for p in entity_params if example.get(p) is not None)
        variants = [Variant("example", example)] if resolves else []
        if name in EXAMPLE_ONLY:
            if variants:
                plans[name] = variants
            continue
        required_entities = [p for p in entity_params if p in required]
        pool = pool_for(name, universe)
        picks = log_spaced(pool, k) if k > 0 else []
        rank = {e.id: i + 1 for i, e in enumerate(pool)}

        def tag(e: EntityInfo, rank: dict[str, int] = rank) -> str:
            return f"#{rank[e.id]} {e.name} ({e.papers}p)"

        others_optional = required <= set(entity_params)
        if others_optional and (len(entity_params) == 1 or len(required_entities) == 1):
            (param,) = required_entities if len(entity_params) > 1 else entity_params
            variants += [Variant(tag(e), {param: e.name}) for e in picks]
        elif len(entity_params) == 2 and others_optional and len(picks) >= 2:
            a, b = entity_params        # pairs of neighbouring ranks: head-head ... tail-tail, tail-head
            variants += [Variant(f"{tag(x)} -> {tag(y)}", {a: x.name, b: y.name})
                         for x, y in zip(picks, picks[1:] + picks[:1], strict=True)]
        elif list(types.values()) == ["entities"] and len(picks) >= 2:
            (param,) = types            # the most-mentioned entity with each other pick, both orders
            top = picks[0]
            for i, e in enumerate(picks[1:]):
                pair = [e, top] if i % 2 else [top, e]
                variants.append(Variant(" & ".join(tag(x) for x in pair), {param: [x.name for x in pair]}))
        elif types.get("q") == "search" and required <= {"q"}:
            seen: set[str] = set()
            for e in picks:
                frag = _fragment(e.name)
                if frag.casefold() not in seen:
                    seen.add(frag.casefold())
                    variants.append(Variant(f"'{frag}' (from {tag(e)})", {"q": frag}))
        elif not entity_params and len(required) == 1 and types[next(iter(required))] == "entity_type":
            (param,) = required
            variants += [Variant(label, {param: label}) for label in ENTITY_LABELS]
        elif not entity_params and len(required) == 1 and types[next(iter(required))] == "collection":
            (param,) = required
            variants += [Variant(c, {param: c}) for c in universe.collections]
        elif not entity_params and len(required) == 1 and types[next(iter(required))] == "paper":
            (param,) = required         # papers by how many entities they mention, most first
            ranked = sorted(universe.papers, key=lambda pm: (-pm[1], pm[0]))
            variants += [Variant(f"#{ranked.index(pm) + 1} {pm[0]} ({pm[1]} entities)", {param: pm[0]})
                         for pm in log_spaced(ranked, k)]
        if variants:
            plans[name] = variants
    return plans


# ---------------------------------------------------------------------------------------------------
# The server under test
# ---------------------------------------------------------------------------------------------------


def free_port() -> int:
    """A loopback port nobody listens on now (others run servers on this machine too)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss_mb(pid: int, field: str = "VmRSS") -> float | None:
    """Resident memory of the server (`VmHWM`: its peak so far): the embedded store holds the
    whole graph in the process."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return round(int(match.group(1)) / 1024, 1) if match else None


@contextlib.contextmanager
def serve(store_args: list[str], env: dict[str, str], log_path: Path, timeout: float,
          access_log: bool = True) -> Iterator[tuple[str, subprocess.Popen[bytes], float]]:
    """`paperkg serve` on a free loopback port; yields (base URL, process, seconds until /health
    answered 200, which includes loading the store). Stopped with SIGTERM (then KILL) on exit.
    With its access log by default: `failed_requests` reads it to name what failed under load."""
    port = free_port()
    cmd = [sys.executable, "-m", "paperkg.api.cli", "serve", *store_args,
           "--host", "127.0.0.1", "--port", str(port)] + (["--access-log"] if access_log else [])
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                env={**os.environ, **env}, cwd=ROOT)
    try:
        started = time.perf_counter()
        deadline = started + timeout
        last = "no answer"
        with httpx.Client(base_url=base, timeout=timeout) as client:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"paperkg serve exited with {proc.returncode}; see {log_path}")
                try:
                    response = client.get("/health")
                    if response.status_code == 200:
                        break
                    last = f"{response.status_code} {response.text[:200]}"
                except httpx.TransportError as err:
                    last = type(err).__name__
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"/health not 200 after {timeout:.0f} s ({last}); see {log_path}")
                time.sleep(0.2)
        yield base, proc, time.perf_counter() - started
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


# ---------------------------------------------------------------------------------------------------
# Sequential latency
# ---------------------------------------------------------------------------------------------------


def pct(values: Sequence[float], p: float) -> float:
    """Percentile p (0-100) by linear interpolation between closest ranks."""
    if not values:
        return float("nan")
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    x = (len(data) - 1) * p / 100
    lo = math.floor(x)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (x - lo)


def _summary(ms: Sequence[float]) -> dict[str, float | None]:
    """p50/p95/p99/mean/max in ms, None when there is nothing (so --json stays valid JSON)."""
    if not ms:
        return {"p50": None, "p95": None, "p99": None, "mean": None, "max": None}
    return {"p50": round(pct(ms, 50), 2), "p95": round(pct(ms, 95), 2), "p99": round(pct(ms, 99), 2),
            "mean": round(statistics.fmean(ms), 2), "max": round(max(ms), 2)}


def _num(value: float | None, width: int, digits: int = 1) -> str:
    """A right-aligned number, or `-` when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"{'-':>{width}}"
    return f"{value:>{width}.{digits}f}"


def measure_query(client: httpx.Client, query: str, variants: list[Variant], requests: int,
                  warmup: int, target_ms: float) -> dict[str, Any]:
    """`requests` sequential GETs cycling through the variants (after `warmup` untimed passes over
    them); latency is the wall time of the whole GET including reading the body."""
    paths = [v.path(query) for v in variants]
    errors: list[dict[str, Any]] = []
    rows: dict[int, int] = {}

    def get(i: int) -> float | None:
        t0 = time.perf_counter()
        try:
            response = client.get(paths[i])
        except httpx.HTTPError as err:
            errors.append({"path": paths[i], "error": f"{type(err).__name__}: {err}"})
            return None
        took = (time.perf_counter() - t0) * 1000
        if response.status_code != 200:
            errors.append({"path": paths[i], "status": response.status_code, "body": response.text[:300]})
            return None
        if i not in rows:
            rows[i] = len(response.json().get("items", []))
        return took

    for _ in range(warmup):
        for i in range(len(paths)):
            get(i)
    warm_errors = len(errors)
    per_variant: list[list[float]] = [[] for _ in paths]
    for n in range(requests):
        i = n % len(paths)
        took = get(i)
        if took is not None:
            per_variant[i].append(took)
    everything = [t for ts in per_variant for t in ts]
    summary = _summary(everything)
    worst = max(range(len(paths)), key=lambda i: pct(per_variant[i], 50) if per_variant[i] else -1.0)
    return {
        "query": query, "requests": requests, "ok": len(everything), **summary,
        "rows_example": rows.get(0), "rows_min": min(rows.values(), default=None),
        "rows_max": max(rows.values(), default=None),
        "errors": len(errors) - warm_errors, "warmup_errors": warm_errors, "error_samples": errors[:3],
        "target_ms": target_ms,
        "pass": bool(everything) and not errors and (summary["p95"] or 0.0) <= target_ms,
        "slowest_variant": {"label": variants[worst].label, "path": paths[worst],
                            **_summary(per_variant[worst]), "rows": rows.get(worst)},
        "variants": [{"label": v.label, "path": p, "n": len(ts), **_summary(ts), "rows": rows.get(i)}
                     for i, (v, p, ts) in enumerate(zip(variants, paths, per_variant, strict=True))],
    }


# ---------------------------------------------------------------------------------------------------
# Throughput
# ---------------------------------------------------------------------------------------------------

_WRK_SCRIPT = """
local paths = {%s}
local n = #paths
local counter = 0
local threads = 0
function setup(thread)
  thread:set("offset", threads * 7919)
  threads = threads + 1
end
function init(args)
  counter = offset or 0
end
function request()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% n) + 1])
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %%d, "duration_us": %%d, "connect": %%d, "read": %%d, "write": %%d, ' ..
    '"status": %%d, "timeout": %%d, "p50_us": %%d, "p95_us": %%d, "p99_us": %%d, "max_us": %%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max))
end
"""


def mix(plans: dict[str, list[Variant]]) -> list[str]:
    """Every request of every query, interleaved query by query, so each query weighs the same."""
    lists = [[v.path(q) for v in vs] for q, vs in plans.items()]
    out: list[str] = []
    for i in range(max((len(x) for x in lists), default=0)):
        out += [x[i % len(x)] for x in lists]
    return out


def load_wrk(base: str, paths: list[str], connections: int, seconds: float, timeout: float
             ) -> dict[str, Any]:
    """wrk with a Lua script cycling through `paths` (one thread per core, `connections` in all)."""
    threads = max(1, min(connections, os.cpu_count() or 1))
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(_WRK_SCRIPT % ", ".join(json.dumps(p) for p in paths))
        script = fh.name
    try:
        proc = subprocess.run(
            ["wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s",
             f"--timeout={max(1, round(timeout))}s", "-s", script, base],
            capture_output=True, text=True, timeout=seconds + timeout + 60, check=False)
    finally:
        os.unlink(script)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("WRKJSON ")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stderr.strip()[:300]}")
    w = json.loads(line.removeprefix("WRKJSON "))
    errors = w["connect"] + w["read"] + w["write"] + w["status"] + w["timeout"]
    return {"tool": "wrk", "threads": threads, "connections": connections,
            "seconds": round(w["duration_us"] / 1e6, 2), "requests": w["requests"],
            "req_per_s": round(w["requests"] / (w["duration_us"] / 1e6), 1),
            "errors": errors, "error_kinds": {k: w[k] for k in ("connect", "read", "write", "status",
                                                                 "timeout") if w[k]},
            "p50_ms": round(w["p50_us"] / 1000, 1), "p95_ms": round(w["p95_us"] / 1000, 1),
            "p99_ms": round(w["p99_us"] / 1000, 1), "max_ms": round(w["max_us"] / 1000, 1)}


def load_httpx(base: str, paths: list[str], connections: int, seconds: float, timeout: float,
               max_requests: int) -> dict[str, Any]:
    """Fallback without wrk: `connections` asyncio workers sharing one httpx pool of that size,
    bounded by time and by request count; loopback only."""

    async def run() -> dict[str, Any]:
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        latencies: list[float] = []
        kinds: dict[str, int] = defaultdict(int)
        counter = iter(range(max_requests))
        loop = asyncio.get_running_loop()
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client:
            started = loop.time()
            deadline = started + seconds

            async def worker() -> None:
                for i in counter:
                    if loop.time() > deadline:
                        return
                    t0 = loop.time()
                    try:
                        response = await client.get(paths[i % len(paths)])
                        await response.aread()
                        if response.status_code != 200:
                            kinds[f"status {response.status_code}"] += 1
                            continue
                    except httpx.HTTPError as err:
                        kinds[type(err).__name__] += 1
                        continue
                    latencies.append((loop.time() - t0) * 1000)

            await asyncio.gather(*(worker() for _ in range(connections)))
            elapsed = loop.time() - started
        done = len(latencies) + sum(kinds.values())
        q = _summary(latencies)
        return {"tool": "asyncio+httpx", "connections": connections, "seconds": round(elapsed, 2),
                "requests": done, "req_per_s": round(done / elapsed, 1), "errors": sum(kinds.values()),
                "error_kinds": dict(kinds), "p50_ms": q["p50"], "p95_ms": q["p95"], "p99_ms": q["p99"],
                "max_ms": q["max"]}

    return asyncio.run(run())


# ---------------------------------------------------------------------------------------------------
# Engine time: the same requests without HTTP, to split latency into engine work and the rest
# ---------------------------------------------------------------------------------------------------


def _catalog_params(query: str, raw: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The catalog query and the Cypher parameters the runner would pass for `raw`."""
    from paperkg.queries.runner import cypher_params, get_query, validate_params

    cq = get_query(query)
    return cq, cypher_params(cq, validate_params(cq, raw))


def _db_hits(plan: dict[str, Any] | None, key: str = "dbHits") -> int:
    """A PROFILE counter summed over the whole plan tree."""
    if not plan:
        return 0
    return int(plan.get(key) or 0) + sum(_db_hits(c, key) for c in plan.get("children") or ())


def _engine_summary(per_variant: list[list[float]], extra: list[dict[str, Any]] | None = None
                    ) -> dict[str, Any]:
    """Percentiles over all requests of a query, and per request (with `extra` figures)."""
    out: dict[str, Any] = _summary([t for ts in per_variant for t in ts])
    out["variants"] = [{**_summary(ts), **((extra or [])[i] if extra else {})}
                       for i, ts in enumerate(per_variant)]
    return out


def engine_times_embedded(path: Path, plans: dict[str, list[Variant]], passes: int) -> dict[str, Any]:
    """`run_named` in this process on the store (after its query index is built): what the
    embedded server's handler spends in the engine, without HTTP, validation aside."""
    from paperkg.graph.embedded import EmbeddedStore
    from paperkg.queries.runner import prepare, run_named

    store = EmbeddedStore(path)
    t0 = time.perf_counter()
    prepare(store)
    out: dict[str, Any] = {"prepare_s": round(time.perf_counter() - t0, 1), "queries": {}}
    for query, variants in plans.items():
        per_variant: list[list[float]] = [[] for _ in variants]
        cold: list[float] = []
        errors: list[str] = []
        for n in range(passes + 1):              # the first pass is cold (first calls): kept apart
            for i, v in enumerate(variants):
                t0 = time.perf_counter()
                try:
                    run_named(store, query, v.params)
                except Exception as err:  # others edit the tree while this runs: record, go on
                    errors.append(f"{v.label}: {type(err).__name__}: {err}"[:200])
                    continue
                took = (time.perf_counter() - t0) * 1000
                (per_variant[i] if n else cold).append(took)
        out["queries"][query] = {**_engine_summary(per_variant), "errors": len(errors),
                                 "error_samples": errors[:3],
                                 "cold_max": round(max(cold), 2) if cold else None,
                                 "cold_p50": round(pct(cold, 50), 2) if cold else None}
    store.close()
    del store
    gc.collect()
    return out


def engine_times_neo4j(args: argparse.Namespace, plans: dict[str, list[Variant]], passes: int
                       ) -> dict[str, Any]:
    """The catalog Cypher through the driver, timed by the server (`result_available_after` +
    `result_consumed_after`), and one PROFILE of each request for its database hits: how much of
    the API latency is Neo4j's own work, and which requests scan."""
    import neo4j

    auth = (args.neo4j_user or "neo4j", args.neo4j_password or "") if (
        args.neo4j_user or args.neo4j_password) else None
    out: dict[str, Any] = {"queries": {}}
    with neo4j.GraphDatabase.driver(args.neo4j, auth=auth) as driver, \
            driver.session(database=args.neo4j_database, default_access_mode=neo4j.READ_ACCESS) as session:
        for query, variants in plans.items():
            per_variant: list[list[float]] = [[] for _ in variants]
            extra: list[dict[str, Any]] = []
            errors: list[str] = []
            for i, v in enumerate(variants):
                try:
                    cq, params = _catalog_params(query, v.params)
                    result = session.run("PROFILE " + cq.cypher, params)
                    list(result)             # PROFILE stats exist only once the rows were pulled
                    summary = result.consume()
                    extra.append({"db_hits": _db_hits(summary.profile),
                                  "page_cache_misses": _db_hits(summary.profile, "pageCacheMisses")})
                    for _ in range(passes):
                        result = session.run(cq.cypher, params)
                        list(result)         # as the API does: every row, not a DISCARD
                        summary = result.consume()
                        per_variant[i].append(float((summary.result_available_after or 0)
                                                    + (summary.result_consumed_after or 0)))
                except Exception as err:  # a catalog edit mid-run, a timeout: record, go on
                    extra.append({"db_hits": 0, "page_cache_misses": 0})
                    errors.append(f"{v.label}: {type(err).__name__}: {err}"[:200])
            res = {**_engine_summary(per_variant, extra), "errors": len(errors),
                   "error_samples": errors[:3]}
            res["db_hits_max"] = max((e["db_hits"] for e in extra), default=0)
            res["page_cache_misses_max"] = max((e["page_cache_misses"] for e in extra), default=0)
            out["queries"][query] = res
    return out


def _cpu_ticks(pid: int) -> int | None:
    """utime + stime of a process (all its threads), in clock ticks."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


_ACCESS_RE = re.compile(r'"GET (\S+) HTTP/[\d.]+" (\d{3})')


def failed_requests(log_path: Path, offset: int) -> dict[str, int]:
    """Non-200 responses in the server's access log after `offset`, as {"STATUS PATH": count}: wrk
    counts errors but cannot say which request failed; Uvicorn's access log can."""
    counts: dict[str, int] = defaultdict(int)
    with open(log_path, "rb") as fh:
        fh.seek(offset)
        for line in fh.read().decode("utf-8", "replace").splitlines():
            match = _ACCESS_RE.search(line)
            if match and match.group(2) != "200":
                counts[f"{match.group(2)} {match.group(1)}"] += 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


# ---------------------------------------------------------------------------------------------------
# One backend, end to end
# ---------------------------------------------------------------------------------------------------


@dataclass
class Backend:
    """One store to serve: how `paperkg serve` is told about it, and the environment it needs
    (credentials go through the environment, not the process list)."""

    kind: str                       # "embedded" | "neo4j"
    where: str
    serve_args: list[str]
    env: dict[str, str] = field(default_factory=dict)


def run_backend(backend: Backend, plans: dict[str, list[Variant]], args: argparse.Namespace,
                log_path: Path) -> dict[str, Any]:
    """Start the server, time every query sequentially, then load it; the result dict of one run."""
    target = TARGET_MS[backend.kind]
    result: dict[str, Any] = {"backend": backend.kind, "where": backend.where, "target_p95_ms": target,
                              "load_avg": {"start": _loadavg()}}
    if args.engine_passes > 0:
        _log(f"{backend.kind}: engine times without HTTP, {args.engine_passes} passes")
        t0 = time.perf_counter()
        if backend.kind == "embedded":
            result["engine"] = engine_times_embedded(Path(args.store), plans, args.engine_passes)
        else:
            result["engine"] = engine_times_neo4j(args, plans, args.engine_passes)
        result["engine"]["passes"] = args.engine_passes
        result["engine"]["seconds"] = round(time.perf_counter() - t0, 1)
        result["load_avg"]["after_engine"] = _loadavg()
    _log(f"{backend.kind}: starting paperkg serve ({backend.where}); log {log_path}")
    with serve(backend.serve_args, backend.env, log_path, args.health_timeout) as (base, proc, ready_s):
        ready_at = time.perf_counter()
        result["ready_s"] = round(ready_s, 1)
        result["server_rss_mb_ready"] = _rss_mb(proc.pid)
        with httpx.Client(base_url=base, timeout=args.request_timeout) as client:
            # The embedded store is ready for the catalog before the graph user Cypher reads is built
            # (in the background); latencies are measured once that is done too.
            while client.get("/health").json().get("cypher") == "loading":
                time.sleep(0.2)
            result["cypher_ready_s"] = round(ready_s + time.perf_counter() - ready_at, 1)
            result["server_rss_mb_cypher_ready"] = _rss_mb(proc.pid)
            stats = client.get("/stats")
            stats.raise_for_status()
            result["graph"] = stats.json()
            result["queries"] = []
            for name, variants in plans.items():
                _log(f"{backend.kind}: {name} ({len(variants)} variants, {args.requests} requests)")
                cpu0 = _cpu_ticks(proc.pid)
                measured = measure_query(client, name, variants, args.requests, args.warmup, target)
                cpu1 = _cpu_ticks(proc.pid)
                if cpu0 is not None and cpu1 is not None:   # warm-up requests included
                    sent = args.requests + args.warmup * len(variants)
                    measured["server_cpu_ms_per_request"] = round(
                        (cpu1 - cpu0) * 1000 / CLK_TCK / sent, 2)
                result["queries"].append(measured)
        result["load_avg"]["after_latency"] = _loadavg()
        result["server_rss_mb"] = _rss_mb(proc.pid)
        if args.load_seconds > 0:
            paths = mix(plans)
            tool = args.load_generator
            if tool == "auto":
                tool = "wrk" if shutil.which("wrk") else "httpx"
            _log(f"{backend.kind}: throughput, {tool}, {args.connections} connections, "
                 f"{args.load_seconds:.0f} s over {len(paths)} request paths")
            before = _loadavg()
            log_offset = log_path.stat().st_size
            if tool == "wrk":
                tp = load_wrk(base, paths, args.connections, args.load_seconds, args.request_timeout)
            else:
                tp = load_httpx(base, paths, args.connections, args.load_seconds, args.request_timeout,
                                args.max_load_requests)
            tp["paths"] = len(paths)
            tp["failed_requests"] = failed_requests(log_path, log_offset)
            tp["load_avg"] = {"start": before, "end": _loadavg()}
            with httpx.Client(base_url=base, timeout=args.request_timeout) as client:
                tp["healthy_after"] = client.get("/health").status_code == 200
            result["throughput"] = tp
        result["server_rss_mb_end"] = _rss_mb(proc.pid)
        result["server_peak_rss_mb"] = _rss_mb(proc.pid, "VmHWM")
    result["load_avg"]["end"] = _loadavg()
    return result


# ---------------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------------


def _graph_line(stats: dict[str, Any]) -> str:
    """The graph's size as the server reports it (`/stats`), so a table cannot be read against the
    wrong graph."""
    nodes, edges = stats.get("nodes", {}), stats.get("edges", {})
    entities = sum(v for k, v in nodes.items() if k in ENTITY_LABELS)
    return (f"graph: {nodes.get('Paper', 0):,} papers, {entities:,} entities, "
            f"{edges.get('MENTIONS', 0):,} MENTIONS, "
            f"{sum(edges.get(t, 0) for t in RELATION_TYPES):,} relations, {sum(edges.values()):,} edges")


def render(result: dict[str, Any]) -> str:
    """The readable tables, one per backend."""
    m = result["machine"]
    lines = [f"paperkg query latency through the HTTP API; requests per query {result['requests']}, "
             f"warm-up passes {result['warmup']}, names per entity query up to {result['names']}",
             f"machine: {m['cpus']} CPUs, load avg (1/5/15 min) {m['load_start']} at start, "
             f"{m['load_end']} at end; Python {m['python']}"]
    for key, when in (("git", "at start"), ("git_end", "at end")):
        git = m.get(key) or {}
        if git:
            if git.get("code_dir"):
                lines.append(f"code {when}: snapshot {git['code_dir']} of commit {git.get('commit')}")
            else:
                lines.append(f"code {when}: commit {git.get('commit')}; uncommitted in api/ graph/ "
                             f"queries/: {', '.join(git.get('uncommitted') or []) or 'none'}")
    lines.append(f"request names sampled from {result['names_from']}")
    if result.get("neo4j_load"):
        nl = result["neo4j_load"]
        lines.append(f"loaded the embedded graph into Neo4j in {nl['seconds']:.1f} s "
                     f"({nl['nodes']:,} nodes, {nl['edges']:,} edges)")
    for run in result["runs"]:
        target = run["target_p95_ms"]
        neo = run["backend"] == "neo4j"
        lines += ["", f"== {run['backend']} ({run['where']}), ready in {run['ready_s']} s "
                      f"(user Cypher's graph in {run.get('cypher_ready_s')} s), "
                      f"server RSS {run.get('server_rss_mb_ready')} MB at ready, "
                      f"{run.get('server_rss_mb')} MB after the latency runs, peak "
                      f"{run.get('server_peak_rss_mb')} MB",
                  _graph_line(run["graph"]),
                  f"load avg: start {run['load_avg']['start']}, after engine "
                  f"{run['load_avg'].get('after_engine', '-')}, after latency "
                  f"{run['load_avg']['after_latency']}, end {run['load_avg']['end']}",
                  "p50/p95/p99: ms through HTTP, one request at a time; eng50/eng95: the same requests "
                  "without HTTP, "
                  + ("server-side Cypher time; hits: most db hits of one request (PROFILE)"
                     if neo else "run_named in-process, warm; cold: slowest first call of a request")
                  + "; cpu: paperkg serve CPU ms per request",
                  f"{'query':<18}{'p50':>7}{'p95':>7}{'p99':>7}{'eng50':>7}{'eng95':>7}"
                  + (f"{'hits':>9}" if neo else f"{'cold':>7}")
                  + f"{'cpu':>6}{'rows ex':>8}{'rows':>9}{'err':>4}  p95<={target:g}  "
                  "slowest request (its p50)"]
        engine = (run.get("engine") or {}).get("queries", {})
        for q in run["queries"]:
            lo, hi = q["rows_min"], q["rows_max"]
            rows = f"{lo}-{hi}" if lo != hi else str(hi)
            verdict = "PASS" if q["pass"] else "FAIL"
            sv = q["slowest_variant"]
            eng = engine.get(q["query"], {})
            cpu = q.get("server_cpu_ms_per_request")
            lines.append(
                f"{q['query']:<18}{_num(q['p50'], 7)}{_num(q['p95'], 7)}{_num(q['p99'], 7)}"
                f"{_num(eng.get('p50'), 7)}{_num(eng.get('p95'), 7)}"
                + (f"{eng.get('db_hits_max', 0):>9,}" if neo else _num(eng.get("cold_max"), 7))
                + f"{_num(cpu, 6)}{q['rows_example'] if q['rows_example'] is not None else '-':>8}{rows:>9}"
                f"{q['errors']:>4}  {verdict:<8}  {sv['label'][:48]} ({_num(sv['p50'], 0)})")
        failed = [q["query"] for q in run["queries"] if not q["pass"]]
        lines.append(f"{len(run['queries']) - len(failed)}/{len(run['queries'])} queries meet p95 <= "
                     f"{target:g} ms" + (f"; FAIL: {', '.join(failed)}" if failed else ""))
        for q in run["queries"]:
            for e in q["error_samples"]:
                lines.append(f"  error in {q['query']}: {json.dumps(e)[:240]}")
            for e in engine.get(q["query"], {}).get("error_samples", []):
                lines.append(f"  engine-phase error in {q['query']}: {e}")
        tp = run.get("throughput")
        if tp:
            kinds = ", ".join(f"{k} {v}" for k, v in tp["error_kinds"].items())
            lines.append(f"throughput ({tp['tool']}, {tp['connections']} connections, {tp['seconds']} s, "
                         f"mix of {tp['paths']} paths over all queries): {tp['req_per_s']:,.1f} req/s, "
                         f"{tp['requests']:,} requests, {tp['errors']} errors{f' ({kinds})' if kinds else ''}"
                         f" -> {'0 errors: PASS' if tp['errors'] == 0 else 'errors: FAIL'}")
            lines.append(f"  under load: p50 {tp['p50_ms']} ms, p95 {tp['p95_ms']} ms, "
                         f"p99 {tp['p99_ms']} ms, max {tp['max_ms']} ms; "
                         f"load avg {tp['load_avg']['start']} -> "
                         f"{tp['load_avg']['end']}; healthy after: {tp['healthy_after']}")
            for what, count in list((tp.get("failed_requests") or {}).items())[:5]:
                lines.append(f"  failed under load (server log): {count} x {what}")
    return "\n".join(lines)


def _code_dir() -> Path:
    """Where `paperkg` is imported from (with symlinks resolved): the editable checkout normally, a
    snapshot when PYTHONPATH points at a shim package (to measure one commit while others edit)."""
    import paperkg.queries

    return Path(paperkg.queries.__file__).resolve().parent.parent


def _git_state() -> dict[str, Any]:
    """HEAD and the uncommitted files the server runs: others change them while this runs."""
    code = _code_dir()
    if code != ROOT:
        commit = code / "COMMIT"
        return {"code_dir": str(code),
                "commit": commit.read_text().strip()[:12] if commit.exists() else "unknown",
                "uncommitted": []}
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--", "api", "graph", "queries"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return {}
    return {"commit": head, "uncommitted": [line[3:] for line in status]}


# ---------------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------------


def _neo4j_store(args: argparse.Namespace) -> Any:
    """A `Neo4jStore` from the command line (imported late: see ENTITY_LABELS)."""
    from paperkg.graph.neo4j_store import Neo4jStore

    return Neo4jStore(args.neo4j, args.neo4j_user, args.neo4j_password, args.neo4j_database)


def load_neo4j(args: argparse.Namespace) -> dict[str, Any]:
    """Copy the embedded store's graph into the Neo4j at --neo4j (Neo4jStore.save makes the
    database equal to it, deleting what the graph does not have)."""
    from paperkg.graph.embedded import EmbeddedStore

    store = EmbeddedStore(Path(args.store))
    graph = store.graph()
    _log(f"loading {len(graph.nodes):,} nodes and {len(graph.edges):,} edges into {args.neo4j}")
    neo = _neo4j_store(args)
    try:
        t0 = time.perf_counter()
        neo.save_graph(graph)
        took = time.perf_counter() - t0
    finally:
        neo.close()
    out = {"seconds": round(took, 1), "nodes": len(graph.nodes), "edges": len(graph.edges)}
    _log(f"loaded into Neo4j in {took:.1f} s")
    del graph, store
    gc.collect()
    return out


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", metavar="PATH", help="embedded store directory to serve")
    parser.add_argument("--neo4j", metavar="URI", help="Neo4j to serve (already loaded, or --load-neo4j)")
    parser.add_argument("--neo4j-user", default=os.environ.get("PAPERKG_NEO4J_USER"))
    parser.add_argument("--neo4j-password", default=os.environ.get("PAPERKG_NEO4J_PASSWORD"))
    parser.add_argument("--neo4j-database", default=os.environ.get("PAPERKG_NEO4J_DATABASE"))
    parser.add_argument("--load-neo4j", action="store_true",
                        help="first copy the --store graph into --neo4j (replaces its contents)")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per query (default 200)")
    parser.add_argument("--warmup", type=int, nargs="?", const=3, default=1, metavar="PASSES",
                        help="untimed passes over each query's requests first (default 1; bare flag: 3)")
    parser.add_argument("--names", type=int, default=8,
                        help="real entity names (or pairs) per entity-parameter query (default 8)")
    parser.add_argument("--queries", help="comma-separated catalog query names (default: all)")
    parser.add_argument("--connections", type=int, default=32, help="load-test connections (default 32)")
    parser.add_argument("--load-seconds", type=float, default=20,
                        help="load-test duration per backend, 0 to skip (default 20)")
    parser.add_argument("--load-generator", choices=("auto", "wrk", "httpx"), default="auto")
    parser.add_argument("--max-load-requests", type=int, default=200_000,
                        help="request bound of the httpx load loop (default 200000)")
    parser.add_argument("--request-timeout", type=float, default=30.0)
    parser.add_argument("--health-timeout", type=float, default=600.0,
                        help="seconds to wait for the server's /health (store loading included)")
    parser.add_argument("--engine-passes", type=int, default=5,
                        help="timed passes over every request without HTTP, for the engine-time "
                             "columns (default 5, 0 to skip)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--render", metavar="FILE", help="print the tables of a saved --json result")
    args = parser.parse_args(argv)
    if args.render:
        out(render(json.loads(Path(args.render).read_text(encoding="utf-8"))))
        return 0
    if not args.store and not args.neo4j:
        parser.error("give --store PATH and/or --neo4j URI")
    if args.load_neo4j and not (args.store and args.neo4j):
        parser.error("--load-neo4j needs both --store and --neo4j")
    if args.requests < 1 or args.warmup < 0 or args.names < 0 or args.connections < 1:
        parser.error("--requests and --connections must be >= 1, --warmup and --names >= 0")
    if args.store and not (Path(args.store) / "state.sqlite").exists():
        parser.error(f"no paperkg store at {args.store}")

    from paperkg.graph.errors import PaperkgError
    from paperkg.queries.catalog import catalog_json

    catalog = catalog_json()
    if args.queries:
        wanted = {q.strip() for q in args.queries.split(",") if q.strip()}
        unknown = wanted - {q["name"] for q in catalog}
        if unknown:
            parser.error(f"unknown queries: {', '.join(sorted(unknown))}")
        catalog = [q for q in catalog if q["name"] in wanted]

    result: dict[str, Any] = {
        "requests": args.requests, "warmup": args.warmup, "names": args.names,
        "machine": {"cpus": os.cpu_count(), "load_start": _loadavg(), "python": platform.python_version(),
                    "git": _git_state()},
        "runs": [],
    }
    try:
        if args.load_neo4j:
            result["neo4j_load"] = load_neo4j(args)
        if args.store:
            universe = universe_from_store(Path(args.store))
        else:
            neo = _neo4j_store(args)
            try:
                universe = universe_from_neo4j(neo)
            finally:
                neo.close()
        result["names_from"] = universe.source
        plans = plan(catalog, universe, args.names)
        del universe
        gc.collect()
        result["plans"] = {q: [{"label": v.label, "path": v.path(q)} for v in vs] for q, vs in plans.items()}

        backends: list[Backend] = []
        if args.store:
            backends.append(Backend("embedded", f"--store {args.store}", ["--store", str(args.store)],
                                    {"PAPERKG_ANSWER_CACHE_MB": "0"}))
        if args.neo4j:
            env = {k: v for k, v in (("PAPERKG_NEO4J_USER", args.neo4j_user),
                                     ("PAPERKG_NEO4J_PASSWORD", args.neo4j_password),
                                     ("PAPERKG_NEO4J_DATABASE", args.neo4j_database)) if v}
            backends.append(Backend("neo4j", args.neo4j, ["--neo4j", args.neo4j], env))
        logdir = Path(tempfile.mkdtemp(prefix="paperkg-latency-"))
        for backend in backends:
            result["runs"].append(run_backend(backend, plans, args, logdir / f"serve-{backend.kind}.log"))
        result["server_logs"] = str(logdir)
    except (RuntimeError, OSError, httpx.HTTPError, PaperkgError) as err:
        print(f"query_latency: failed: {err}", file=sys.stderr)
        return 1
    result["machine"]["load_end"] = _loadavg()
    result["machine"]["git_end"] = _git_state()
    out(json.dumps(result, indent=2) if args.json else render(result))
    failed = any(not q["pass"] for run in result["runs"] for q in run["queries"]) or any(
        run.get("throughput", {}).get("errors") for run in result["runs"])
    return 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
