"""How long `paperkg serve` takes to be ready on a store, and the memory it then holds (issue 31.2).

    python benchmarks/serve_start.py --store S [--repeat 3] [--json]

Each repetition starts `paperkg serve` as a user does (`query_latency.serve`: a new process on a
free loopback port) and records:
- `ready_s`: from process start to the first 200 of `/health`, which the server answers once the
  catalog's index is loaded (imports included);
- `rss_ready_mb`: its RSS then; `cpu_ready_s`: the CPU time the server process had used by then
  (all its threads: the integrity check runs beside the load), which the neighbours' load on a
  shared machine changes far less than the wall time;
- `cypher_s` and `rss_cypher_mb`: when `/health` says the view user Cypher reads is built too (in the
  background, after ready), and the RSS then;
- `peak_mb`: the process's peak RSS (`VmHWM`) at the end.
The store's pages stay in the OS page cache between repetitions (the first one may read from disk:
its figure is shown apart in the spread).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

if __package__ in (None, ""):            # run as a file (python benchmarks/serve_start.py)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.query_latency import CLK_TCK, _cpu_ticks, _loadavg, _rss_mb, serve


def once(store: Path, log: Path) -> dict[str, Any]:
    with serve(["--store", str(store)], {}, log, 900, access_log=False) as (base, proc, ready_s):
        ticks = _cpu_ticks(proc.pid)
        result: dict[str, Any] = {"ready_s": round(ready_s, 2), "rss_ready_mb": _rss_mb(proc.pid),
                                  "cpu_ready_s": round((ticks or 0) / CLK_TCK, 2)}
        started = time.perf_counter()
        with httpx.Client(base_url=base, timeout=60) as client:
            while client.get("/health").json().get("cypher") == "loading":
                time.sleep(0.1)
        result["cypher_s"] = round(ready_s + time.perf_counter() - started, 2)
        result["rss_cypher_mb"] = _rss_mb(proc.pid)
        result["peak_mb"] = _rss_mb(proc.pid, "VmHWM")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    store = Path(args.store)
    log = Path(tempfile.mkdtemp(prefix="paperkg-serve-start-")) / "serve.log"
    runs = []
    for i in range(args.repeat):
        runs.append(once(store, log) | {"load_avg": _loadavg()})
        print(f"[serve_start] run {i + 1}: {runs[-1]}", file=sys.stderr, flush=True)
    summary = {k: {"median": statistics.median(r[k] for r in runs), "min": min(r[k] for r in runs),
                   "max": max(r[k] for r in runs)}
               for k in ("ready_s", "cpu_ready_s", "rss_ready_mb", "cypher_s", "rss_cypher_mb", "peak_mb")}
    result = {"store": str(store), "runs": runs, "summary": summary}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, s in summary.items():
            print(f"{key:<14} median {s['median']:>8} (min {s['min']}, max {s['max']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
