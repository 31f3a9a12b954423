"""Extraction throughput: local `--jobs 1`, `--jobs 2`, and a Dask cluster of two workers, in one run.

    python benchmarks/dask_throughput.py --seeds-repeat 20            # default mode, the seeds x20
    python benchmarks/dask_throughput.py --n 5000 --mode rules --json

Why it is measured this way:
- The three passes extract the same texts in the same process run, one after the other, with a bare
  `spacy.blank("en")` tokenizer pass before and after (the load of a shared machine moves; the ratios
  to the tokenizer show how much).
- The cluster is started as a user would: `dask scheduler` and `dask worker --nworkers 2 --nthreads 1`
  as separate processes on loopback, and the extraction goes through `Extractor(dask=ADDRESS)`, the
  code `paperkg build --dask` runs. Both the `--jobs 2` pool and the Dask workers load the pipeline
  inside the timed pass, so their figures are comparable; `--jobs 1` loads it before.
- The projection scales the measured per-core rate of the Dask pass (abstracts/s per worker) linearly
  to 16 and 64 cores; on one machine the scheduler and the writer share the two cores with the workers,
  so this is conservative for workers on machines of their own.
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

if __package__:
    from benchmarks.run import extraction_pass, make_corpus, tokenizer_pass
else:
    from run import extraction_pass, make_corpus, tokenizer_pass  # type: ignore[no-redef]

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
                                      "--nthreads", "1", "--host", "127.0.0.1"))
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

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


def projection(per_core: float) -> list[dict[str, Any]]:
    """Hours to extract 1M and 10M abstracts on 16 and 64 cores at the measured per-core rate."""
    return [{"abstracts": n, "cores": c, "hours": round(n / (per_core * c) / 3600, 2)}
            for n in PROJECTED for c in CORES]


def run(args: argparse.Namespace) -> dict[str, Any]:
    corpus = make_corpus(args.n, args.seed, args.seeds_repeat)
    texts = corpus.texts
    tok_before = tokenizer_pass(texts)
    passes = {
        "jobs1": extraction_pass(texts, args.mode, 1, args.batch_size),
        "jobs2": extraction_pass(texts, args.mode, 2, args.batch_size),
    }
    with LoopbackCluster(2) as cluster:
        passes["dask2"] = extraction_pass(texts, args.mode, 1, args.batch_size, dask=cluster.address)
    tok_after = tokenizer_pass(texts)
    tok = max(tok_before["per_s"], tok_after["per_s"])
    per_core = passes["dask2"]["per_s"] / 2
    return {
        "corpus": corpus.details, "mode": args.mode, "load": [round(x, 2) for x in os.getloadavg()],
        "tokenizer_per_s": [tok_before["per_s"], tok_after["per_s"]],
        "passes": {k: {"per_s": v["per_s"], "wall_s": v["wall_s"],
                       "ratio_to_tokenizer": round(v["per_s"] / tok, 4)} for k, v in passes.items()},
        "dask_vs_jobs2": round(passes["dask2"]["per_s"] / passes["jobs2"]["per_s"], 3),
        "dask_target": DASK_OVERHEAD_TARGET,
        "per_core_per_s": round(per_core, 1),
        "projection": projection(per_core),
    }


def render(result: dict[str, Any]) -> str:
    lines = [f"corpus: {result['corpus']['n']} abstracts, mode {result['mode']}, load {result['load']}",
             f"bare tokenizer: {result['tokenizer_per_s']} abstracts/s (before, after)",
             "pass      abstracts/s  wall s  ratio to tokenizer"]
    for name, p in result["passes"].items():
        lines.append(f"{name:<9} {p['per_s']:>11.1f}  {p['wall_s']:>6.1f}  {p['ratio_to_tokenizer']:.4f}")
    verdict = "ok" if result["dask_vs_jobs2"] >= result["dask_target"] else "MISSED"
    lines.append(f"dask2 / jobs2 = {result['dask_vs_jobs2']} (target >= {result['dask_target']}: {verdict})")
    lines.append(f"per core (dask): {result['per_core_per_s']} abstracts/s; projection:")
    for row in result["projection"]:
        lines.append(f"  {row['abstracts']:>10,} abstracts on {row['cores']:>2} cores: {row['hours']} h")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000, help="synthetic abstracts (default 5000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds-repeat", type=int, metavar="R", help="the seed abstracts R times instead")
    parser.add_argument("--mode", choices=("default", "rules"), default="default")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args)
    print(json.dumps(result, indent=2) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
