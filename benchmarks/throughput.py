"""Requests/s of `paperkg serve` against a bare FastAPI app on the same machine, in one run (issue 31).

    python benchmarks/throughput.py                         # the seed store, built into a temp dir
    python benchmarks/throughput.py --store S --seconds 5 --repeat 3 --workers 1,2 --json

Why it is measured this way:
- Ratios, not absolute figures: the machine is shared (2 cores, other agents' jobs), so an absolute
  requests/s says as much about the neighbours as about paperkg. The bare app (`bare_app.py`: one
  async route) runs under the same Uvicorn, in the same venv, with the same worker count and no
  access log (paperkg serve's default), and is loaded in the same repetition as each paperkg
  workload; each ratio divides by the bare figure of its own repetition.
- Three workloads on paperkg: `/health` (the framework plus paperkg's middleware and store check),
  one catalog query (`papers_mentioning?name=GRPO` by default), and the mixed catalog load of
  `query_latency.py` (every catalog query, its example and real names of the graph, interleaved).
- wrk (C, one thread per core, `--connections` in all, 32 by default), each run `--seconds` long,
  the whole round repeated `--repeat` times: the table gives the median and the spread (min-max).
- Targets (issue 31): /health >= 0.7 of the bare app, the query >= 0.35, the mix >= 0.3, no errors,
  p99 <= 100 ms. PASS/FAIL is printed against them.
- The answer cache (`api/answer_cache.py`) on and off, one server each: with it on, a path asked
  again under the same build is sent from memory (every path is asked once before the rounds, so
  the rounds measure answers kept); with it off (`PAPERKG_ANSWER_CACHE_MB=0`) every request runs
  its query, encodes its rows and so on: the cost of a question not asked before.
- The rounds start once user Cypher's view is built (`/health` says `cypher: ready`): the thread
  building it after start would otherwise take the GIL from the first rounds.
- Memory of the server's processes (the master and its workers) after the load: RSS summed, and
  PSS summed (pages shared between workers counted once, in shares), since `--workers N` opens the
  store in every worker.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import psutil

if not __package__:  # `python benchmarks/throughput.py`: the repository root makes `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.query_latency import (
    ROOT,
    _loadavg,
    free_port,
    load_wrk,
    mix,
    plan,
    serve,
    universe_from_store,
)

TARGETS = {"health": 0.7, "query": 0.35, "mixed": 0.3}
TARGET_P99_MS = 100.0


def _log(message: str) -> None:
    print(f"[throughput] {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def bare(workers: int, log_path: Path, timeout: float = 60) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`uvicorn benchmarks.bare_app:app` on a free loopback port, as paperkg serve runs Uvicorn."""
    port = free_port()
    cmd = [sys.executable, "-m", "uvicorn", "benchmarks.bare_app:app", "--host", "127.0.0.1",
           "--port", str(port), "--no-access-log", "--log-level", "warning"]
    if workers > 1:
        cmd += ["--workers", str(workers)]
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=ROOT)
    try:
        deadline = time.perf_counter() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the bare app exited with {proc.returncode}; see {log_path}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(base + "/health", timeout=5).status_code == 200:
                    break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"the bare app did not answer in {timeout:.0f} s; see {log_path}")
            time.sleep(0.2)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def memory_mb(pid: int) -> dict[str, float]:
    """RSS and PSS of a process and its children, summed, in MiB."""
    procs = [psutil.Process(pid)]
    procs += procs[0].children(recursive=True)
    rss = pss = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            info = p.memory_full_info()
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
    return {"processes": len(procs), "rss_mb": round(rss / 2**20, 1), "pss_mb": round(pss / 2**20, 1)}


def check_paths(base: str, paths: Sequence[str]) -> None:
    """Every path answers 200 once before the load, so an error count means load, not a bad path."""
    with httpx.Client(base_url=base, timeout=60) as client:
        for path in dict.fromkeys(paths):
            response = client.get(path)
            if response.status_code != 200:
                raise RuntimeError(f"{path} answered {response.status_code}: {response.text[:200]}")


def seed_store(workdir: Path) -> Path:
    """The README's seed store, built from the bundled examples."""
    store = workdir / "seed-store"
    _log(f"building the seed store into {store}")
    subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", str(ROOT / "examples" / "abstracts"),
                    "--store", str(store), "-q"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return store


def spread(values: Sequence[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3)}


def cypher_ready(base: str, timeout: float = 600) -> float:
    """Seconds until /health says user Cypher's view is built: the server builds it in a thread
    after it is ready, and that thread would take the GIL from the first rounds' requests."""
    started = time.perf_counter()
    with httpx.Client(base_url=base, timeout=30) as client:
        while client.get("/health").json().get("cypher") != "ready":
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"user Cypher's view not built after {timeout:.0f} s")
            time.sleep(0.2)
    return time.perf_counter() - started


def run_workers(store: Path, workers: int, cache: bool, workloads: dict[str, list[str]],
                args: argparse.Namespace, logdir: Path) -> dict[str, Any]:
    """Both servers up side by side; `args.repeat` rounds of bare /health then each paperkg workload.
    `cache` False serves with `PAPERKG_ANSWER_CACHE_MB=0`: every request runs its query."""
    serve_args = ["--store", str(store)] + (["--workers", str(workers)] if workers > 1 else [])
    result: dict[str, Any] = {"workers": workers, "cache": cache, "rounds": []}
    env = {} if cache else {"PAPERKG_ANSWER_CACHE_MB": "0"}
    tag = f"{workers}-{'cache' if cache else 'nocache'}"
    paperkg = serve(serve_args, env, logdir / f"serve-{tag}.log", 600, access_log=False)
    with bare(workers, logdir / f"bare-{tag}.log") as (bare_base, bare_proc), \
            paperkg as (base, proc, ready_s):
        result["ready_s"] = round(ready_s, 2)
        result["memory_ready"] = memory_mb(proc.pid)
        result["cypher_ready_s"] = round(cypher_ready(base), 2)
        for paths in workloads.values():
            check_paths(base, paths)
        for round_no in range(args.repeat):
            row: dict[str, Any] = {"load_avg": _loadavg()}
            _log(f"workers={workers} cache={cache} round {round_no + 1}/{args.repeat}: bare /health")
            row["bare"] = load_wrk(bare_base, ["/health"], args.connections, args.seconds, 30)
            for name, paths in workloads.items():
                _log(f"workers={workers} cache={cache} round {round_no + 1}/{args.repeat}: paperkg {name}")
                row[name] = load_wrk(base, paths, args.connections, args.seconds, 30)
                row[name]["ratio"] = round(row[name]["req_per_s"] / row["bare"]["req_per_s"], 3)
            result["rounds"].append(row)
        result["memory_loaded"] = memory_mb(proc.pid)
        result["bare_memory"] = memory_mb(bare_proc.pid)
    rounds = result["rounds"]
    result["summary"] = {"bare": {"req_per_s": spread([r["bare"]["req_per_s"] for r in rounds])}}
    for name in workloads:
        runs = [r[name] for r in rounds]
        result["summary"][name] = {
            "req_per_s": spread([r["req_per_s"] for r in runs]),
            "ratio": spread([r["ratio"] for r in runs]),
            "p99_ms": spread([r["p99_ms"] for r in runs]),
            "errors": sum(r["errors"] for r in runs),
        }
        s = result["summary"][name]
        s["pass"] = (s["ratio"]["median"] >= TARGETS[name] and s["errors"] == 0
                     and s["p99_ms"]["max"] <= TARGET_P99_MS)
    return result


def render(result: dict[str, Any]) -> str:
    lines = [f"store: {result['store']}   query: {result['query']}   mix: {result['mix_paths']} paths   "
             f"{result['connections']} connections, {result['seconds']:g} s x {result['repeat']} rounds",
             f"load average start {result['load_start']} end {result['load_end']}"]
    for run in result["runs"]:
        s = run["summary"]
        lines.append("")
        lines.append(f"workers={run['workers']}  answer cache {'on' if run['cache'] else 'off'}  "
                     f"ready in {run['ready_s']} s (user Cypher +{run['cypher_ready_s']} s)  "
                     f"memory after load: {run['memory_loaded']['rss_mb']} MiB RSS, "
                     f"{run['memory_loaded']['pss_mb']} MiB PSS over {run['memory_loaded']['processes']} "
                     f"processes (bare app {run['bare_memory']['rss_mb']} MiB RSS)")
        lines.append(f"{'workload':<10} {'req/s median (min-max)':>26} {'ratio median (min-max)':>26} "
                     f"{'p99 ms (min-max)':>20} {'errors':>7}  target")
        b = s["bare"]["req_per_s"]
        lines.append(f"{'bare':<10} {b['median']:>10.0f} ({b['min']:.0f}-{b['max']:.0f})".ljust(38))
        for name in TARGETS:
            w = s[name]
            r, p = w["req_per_s"], w["ratio"]
            p99 = w["p99_ms"]
            lines.append(f"{name:<10} {r['median']:>10.0f} ({r['min']:.0f}-{r['max']:.0f})".ljust(38)
                         + f"{p['median']:>12.2f} ({p['min']:.2f}-{p['max']:.2f})".ljust(27)
                         + f"{p99['median']:>8.1f} ({p99['min']:.1f}-{p99['max']:.1f})".ljust(21)
                         + f"{w['errors']:>7}  >= {TARGETS[name]} "
                         + ("PASS" if w["pass"] else "FAIL"))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", metavar="PATH", help="embedded store (default: the seed store, built "
                        "from examples/abstracts into a temp dir)")
    parser.add_argument("--query", default="/queries/papers_mentioning?name=GRPO",
                        help="the one catalog query's path (default: papers_mentioning GRPO)")
    parser.add_argument("--names", type=int, default=8, help="real names per query in the mix (default 8)")
    parser.add_argument("--seconds", type=float, default=5, help="seconds per wrk run (default 5)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", default="1", help="comma list of worker counts (default 1)")
    parser.add_argument("--cache", default="on,off", help="answer cache on, off or both, one server "
                        "each (default on,off; off: PAPERKG_ANSWER_CACHE_MB=0, every request runs its query)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not shutil.which("wrk"):
        parser.error("wrk is not installed")
    workers = [int(w) for w in args.workers.split(",")]

    from paperkg.queries.catalog import catalog_json

    logdir = Path(tempfile.mkdtemp(prefix="paperkg-throughput-"))
    store = Path(args.store) if args.store else seed_store(logdir)
    plans = plan(catalog_json(), universe_from_store(store), args.names)
    workloads = {"health": ["/health"], "query": [args.query], "mixed": mix(plans)}
    result: dict[str, Any] = {
        "store": str(store), "query": args.query, "mix_paths": len(workloads["mixed"]),
        "connections": args.connections, "seconds": args.seconds, "repeat": args.repeat,
        "cpus": os.cpu_count(), "load_start": _loadavg(), "logs": str(logdir), "runs": []}
    caches = [{"on": True, "off": False}[c.strip()] for c in args.cache.split(",")]
    for n in workers:
        for cache in caches:
            result["runs"].append(run_workers(store, n, cache, workloads, args, logdir))
    result["load_end"] = _loadavg()
    print(json.dumps(result, indent=2) if args.json else render(result))
    return 0 if all(run["summary"][w]["pass"] for run in result["runs"] for w in TARGETS) else 3


if __name__ == "__main__":
    sys.exit(main())
