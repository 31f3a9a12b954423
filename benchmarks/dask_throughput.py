"""Extraction throughput: local `--jobs 1`, `--jobs 2`, and a Dask cluster of two workers, in one run.

    python benchmarks/dask_throughput.py                      # default mode, 3,000 synthetic abstracts
    python benchmarks/dask_throughput.py --n 600              # a quick check (under a minute)
    python benchmarks/dask_throughput.py --json               # machine-readable
    python benchmarks/dask_throughput.py --markdown           # the README's projection table too

Why it is measured this way:
- The three passes extract the same texts in the same process run, one after the other, through
  `Extractor.extract` (the code `paperkg build --jobs N` and `--dask ADDRESS` run), with a bare
  `spacy.blank("en")` tokenizer pass before and after: the load of a shared machine moves, and the two
  tokenizer passes show how much.
- The cluster is started as a user would: `dask scheduler` and `dask worker --nworkers 2 --nthreads 1
  --preload paperkg.extract.pipeline` as separate processes on loopback. The preload imports spaCy and
  paperkg when a worker starts, as on a cluster that is already up; the `--jobs 2` pool gets the same
  from the parent it forks. Both then build the pipeline in every worker inside the timed pass, so the
  end-to-end figures compare like with like; `--jobs 1` builds it before (timed apart).
- Each pass reports its start-up (until the first abstract comes back: pipeline load in the workers
  and their first batch, which also warms spaCy's caches) apart from the steady rate after it, and
  its CPU seconds over every process involved (this one, the pool's children, the scheduler and the
  workers): CPU per abstract is what Dask's own work (scheduling, serialising, the client's event
  loop) would show in, whatever the load of the machine.
- The Dask overhead is judged on the end-to-end rates (issue 11.2: Dask within 20% of `--jobs 2`).
- The projection scales the measured per-core rate of the Dask pass (end-to-end abstracts/s per
  worker) linearly to 16 and 64 cores: on this machine the scheduler, the client and other users share
  the two cores with the workers, so the figure is conservative for workers on machines of their own.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import psutil

if __package__:
    from benchmarks.run import Timed, _git_state, make_corpus, tokenizer_pass
else:
    from run import Timed, _git_state, make_corpus, tokenizer_pass  # type: ignore[no-redef]

DASK_OVERHEAD_TARGET = 0.8     # Dask with 2 workers at >= 80% of --jobs 2 (within 20%)
PROJECTED = (1_000_000, 10_000_000)
CORES = (16, 64)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoopbackCluster:
    """`dask scheduler` + `dask worker` processes on 127.0.0.1, stopped on exit."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> LoopbackCluster:
        import distributed

        port = self.address.rsplit(":", 1)[1]
        self.procs.append(self._spawn("scheduler", "--host", "127.0.0.1", "--port", port))
        self.procs.append(self._spawn("worker", self.address, "--nworkers", str(self.workers),
                                      "--nthreads", "1", "--host", "127.0.0.1",
                                      "--preload", "paperkg.extract.pipeline"))
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                with distributed.Client(self.address, timeout="5s") as client:
                    if len(client.nthreads()) >= self.workers:
                        return self
            except OSError:
                pass
            time.sleep(1)
        self.__exit__()
        raise RuntimeError(f"the Dask cluster at {self.address} did not start within 180 s")

    @staticmethod
    def _spawn(*args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "dask", *args, "--no-dashboard"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)

    def cpu_seconds(self) -> float:
        """CPU seconds used so far by the scheduler, the nanny and the worker processes."""
        total = 0.0
        for proc in self.procs:
            try:
                root = psutil.Process(proc.pid)
                for p in [root, *root.children(recursive=True)]:
                    times = p.cpu_times()
                    total += times.user + times.system
            except psutil.Error:
                continue
        return total

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


def extraction_pass(texts: Sequence[str], mode: str, jobs: int, batch_size: int,
                    cluster: LoopbackCluster | None = None) -> dict[str, Any]:
    """`Extractor(...).extract` over every text: end-to-end rate, start-up, steady rate, CPU."""
    from paperkg.extract.pipeline import Extractor

    with Timed() as load:
        extractor = Extractor(mode=mode, n_process=jobs, batch_size=batch_size,
                              dask=cluster.address if cluster else None)
    cluster_cpu = cluster.cpu_seconds() if cluster else 0.0
    first = 0.0
    mentions = 0
    with Timed() as run:
        pairs = ((f"b{i}", text) for i, text in enumerate(texts))
        for i, ex in enumerate(extractor.extract(pairs)):
            if i == 0:
                first = time.perf_counter() - run._t0
            mentions += len(ex.mentions)
    cpu = run.cpu + ((cluster.cpu_seconds() - cluster_cpu) if cluster else 0.0)
    n = len(texts)
    steady = (n - 1) / (run.wall - first) if run.wall > first else 0.0
    return {"wall_s": round(run.wall, 2), "per_s": round(n / run.wall, 1),
            "startup_s": round(first, 2), "steady_per_s": round(steady, 1),
            "cpu_s": round(cpu, 2), "per_cpu_s": round(n / max(cpu, 1e-9), 1),
            "local_load_s": round(load.wall, 2), "mentions": mentions}


def projection(per_core: float) -> list[dict[str, Any]]:
    """Hours to extract 1M and 10M abstracts on 16 and 64 cores at the measured per-core rate."""
    return [{"abstracts": n, "cores": c, "hours": round(n / (per_core * c) / 3600, 2)}
            for n in PROJECTED for c in CORES]


def run(args: argparse.Namespace) -> dict[str, Any]:
    corpus = make_corpus(args.n, args.seed, args.seeds_repeat)
    texts = corpus.texts
    load_start = [round(x, 2) for x in os.getloadavg()]
    tok_before = tokenizer_pass(texts)
    passes = {
        "jobs1": extraction_pass(texts, args.mode, 1, args.batch_size),
        "jobs2": extraction_pass(texts, args.mode, 2, args.batch_size),
    }
    with LoopbackCluster(2) as cluster:
        passes["dask2"] = extraction_pass(texts, args.mode, 1, args.batch_size, cluster)
    tok_after = tokenizer_pass(texts)
    tok = max(tok_before["per_s"], tok_after["per_s"])
    for p in passes.values():
        p["ratio_to_tokenizer"] = round(p["per_s"] / tok, 4)
    per_core = passes["dask2"]["per_s"] / 2
    return {
        "corpus": corpus.details, "n": len(texts), "mode": args.mode, "batch_size": args.batch_size,
        "code": _git_state(), "cpus": os.cpu_count(),
        "load": {"start": load_start, "end": [round(x, 2) for x in os.getloadavg()]},
        "tokenizer_per_s": [tok_before["per_s"], tok_after["per_s"]],
        "passes": passes,
        "dask_vs_jobs2": round(passes["dask2"]["per_s"] / passes["jobs2"]["per_s"], 3),
        "dask_vs_jobs2_steady": round(passes["dask2"]["steady_per_s"] / passes["jobs2"]["steady_per_s"], 3),
        "dask_vs_jobs2_per_cpu_s": round(passes["dask2"]["per_cpu_s"] / passes["jobs2"]["per_cpu_s"], 3),
        "jobs2_vs_jobs1": round(passes["jobs2"]["per_s"] / passes["jobs1"]["per_s"], 3),
        "dask_target": DASK_OVERHEAD_TARGET,
        "per_core_per_s": round(per_core, 1),
        "projection": projection(per_core),
    }


def markdown(result: dict[str, Any]) -> str:
    """The projection as the README's table."""
    rows = {(r["abstracts"], r["cores"]): r["hours"] for r in result["projection"]}
    lines = ["| abstracts | " + " | ".join(f"{c} cores" for c in CORES) + " |",
             "| --- | " + " | ".join("---" for _ in CORES) + " |"]
    for n in PROJECTED:
        cells = []
        for c in CORES:
            hours = rows[(n, c)]
            cells.append(f"{hours:.1f} h" if hours >= 1 else f"{hours * 60:.0f} min")
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _describe(corpus: dict[str, Any]) -> str:
    if "repeat" in corpus:
        return f"the {corpus['seeds']} seed abstracts x{corpus['repeat']}"
    return f"synthetic, seed {corpus.get('seed')}"


def render(result: dict[str, Any]) -> str:
    code = result["code"]
    lines = [f"corpus: {result['n']:,} abstracts ({_describe(result['corpus'])}), mode {result['mode']}, "
             f"batch size {result['batch_size']}",
             f"machine: {result['cpus']} CPUs, load avg (1/5/15 min) {result['load']['start']} at start, "
             f"{result['load']['end']} at end",
             f"code: commit {code.get('commit')}" + (f"; uncommitted: {', '.join(code['uncommitted'])}"
                                                     if code.get("uncommitted") else ""),
             f"bare tokenizer: {result['tokenizer_per_s']} abstracts/s (before, after)",
             "",
             "pass   abstracts/s  wall s  start-up s  steady/s   CPU s  per CPU-s  ratio to tokenizer"]
    for name, p in result["passes"].items():
        lines.append(f"{name:<6} {p['per_s']:>11.1f}  {p['wall_s']:>6.1f}  {p['startup_s']:>10.1f}  "
                     f"{p['steady_per_s']:>8.1f}  {p['cpu_s']:>6.1f}  {p['per_cpu_s']:>9.1f}  "
                     f"{p['ratio_to_tokenizer']:.4f}")
    verdict = "met" if result["dask_vs_jobs2"] >= result["dask_target"] else "MISSED"
    lines += ["",
              f"jobs2 / jobs1 = {result['jobs2_vs_jobs1']} (end to end)",
              f"dask2 / jobs2 = {result['dask_vs_jobs2']} end to end (target >= {result['dask_target']}: "
              f"{verdict}); steady {result['dask_vs_jobs2_steady']}; per CPU-second "
              f"{result['dask_vs_jobs2_per_cpu_s']}",
              f"per core (dask2 end to end / 2 workers): {result['per_core_per_s']} abstracts/s; projection:"]
    for row in result["projection"]:
        lines.append(f"  {row['abstracts']:>10,} abstracts on {row['cores']:>2} cores: {row['hours']} h")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=3000, help="synthetic abstracts (default 3000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds-repeat", type=int, metavar="R", help="the seed abstracts R times instead")
    parser.add_argument("--mode", choices=("default", "rules"), default="default")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="also print the README projection table")
    args = parser.parse_args(argv)
    result = run(args)
    print(json.dumps(result, indent=2) if args.json else render(result))
    if args.markdown:
        print()
        print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
