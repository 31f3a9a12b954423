"""Real text as the scale benchmark (issue 31.3): `paperkg build` on prefixes of `arxiv_large`, then add,
remove, serve start, latency and throughput on the biggest store, each step a process of its own
measured with `/usr/bin/time -v`; `--plot` draws time and memory against corpus size.

    python benchmarks/real_scale.py --corpus ../shared/data/arxiv_large/abstracts.jsonl.gz --work DIR \\
        --out benchmarks/real_scale.json [--sizes 25000,50000,100000,all] [--jobs 2] \\
        [--steps build,index,add,remove,serve,latency,throughput] [--store-of N]
    python benchmarks/real_scale.py --plot benchmarks/real_scale.json --svg benchmarks/real_scale.svg
    python benchmarks/real_scale.py --project benchmarks/real_scale.json [--papers 2500000 --cores 16,64]

Why it is measured this way:
- The corpus is real arXiv text (its vocabulary, name counts and abstract lengths are what a user's
  are), in its own order (by arXiv id, so by date): a prefix of N is the N oldest papers, as a store
  that grows over time holds. The last `--add` records are held out of every build: `add` puts them
  into the biggest store as the next day's papers, `remove` then takes `--remove` papers out again
  (spread over the store: every k-th id).
- `build` is `paperkg build PREFIX --store DIR/sN --jobs J` (or `--dask local`) into a new store:
  extraction, resolution, derivation and the commit, everything a user waits for; the serving index
  is then saved in the background, and `index_ready_s` says when it was there (from the command's
  start), which is when a server starts fast. `index` times saving it alone (in process,
  `api.build.save_serving_index`), for a store without a current one.
- `serve`, `latency` and `throughput` are `serve_start.py`, `query_latency.py` (sequential p50/p95/p99
  of every catalog query, no load phase) and `throughput.py` against that store.
- Results go into `--out` as they come, one entry per (step, size, jobs), a rerun replacing its
  entry: a run of hours keeps what it measured if stopped, and steps can be run apart. The load
  average is recorded around every step (2 shared cores).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):            # run as a file (python benchmarks/real_scale.py)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.scale import _load, timed

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("build", "repair", "index", "add", "remove", "serve", "latency", "throughput")


def _log(message: str) -> None:
    print(f"[real_scale] {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def _lines(corpus: Path) -> Iterator[str]:
    opener = gzip.open if corpus.suffix == ".gz" else open
    with opener(corpus, "rt", encoding="utf-8") as fh:
        yield from (line for line in fh if line.strip())


def prepare(corpus: Path, work: Path, sizes: list[int | None], add: int) -> tuple[dict[int, Path], Path, int]:
    """The prefix file of each size (None: every record but the held-out ones) and the held-out file,
    written once into `work`; the number of records in the corpus."""
    lines = list(_lines(corpus))
    total = len(lines) - add
    files: dict[int, Path] = {}
    for size in sizes:
        n = total if size is None else min(size, total)
        files[n] = work / f"first-{n}.jsonl"
        if not files[n].exists():
            files[n].write_text("".join(lines[:n]), encoding="utf-8")
    held = work / f"last-{add}.jsonl"
    if not held.exists():
        held.write_text("".join(lines[total:]), encoding="utf-8")
    return files, held, len(lines)


def _store_gb(store: Path) -> float:
    return round(sum(f.stat().st_size for f in store.iterdir() if f.is_file()) / 1e9, 2)


def _record(out: Path, entry: dict[str, Any]) -> None:
    """Add `entry` to the results file, replacing one of the same step, size and jobs."""
    entries = json.loads(out.read_text()) if out.exists() else []
    ident = (entry["step"], entry.get("papers"), entry.get("jobs"))
    entries = [e for e in entries if (e["step"], e.get("papers"), e.get("jobs")) != ident] + [entry]
    out.write_text(json.dumps(entries, indent=1) + "\n")


def _index_wait(store: Path, since: float, timeout: float = 900) -> float | None:
    """Seconds from `since` until the serving index the command left to the background is saved
    (None: not within `timeout`)."""
    from paperkg.graph.state import BuildState
    from paperkg.queries import index_snapshot

    state = BuildState(store, read_only=True)
    try:
        while index_snapshot.generation_of(store) != state.generation():
            if time.monotonic() - since > timeout:
                return None
            time.sleep(0.5)
    finally:
        state.close()
    return round(time.monotonic() - since, 1)


def _ids(path: Path, count: int, store: Path) -> list[str]:
    """`count` ids of `path` spread over it (every k-th) that the store holds now."""
    db = sqlite3.connect(f"file:{store / 'state.sqlite'}?mode=ro", uri=True)
    try:
        held = {row[0] for row in db.execute("SELECT id FROM records")}
    finally:
        db.close()
    ids = [i for i in (json.loads(line)["id"] for line in _lines(path)) if i in held]
    step = max(1, len(ids) // count)
    return ids[::step][:count]


def run(args: argparse.Namespace) -> None:
    work, out = args.work, args.out
    work.mkdir(parents=True, exist_ok=True)
    sizes = [None if s == "all" else int(s) for s in args.sizes.split(",")]
    files, held, total = prepare(args.corpus, work, sizes, args.add)
    paperkg, py = shutil.which("paperkg") or "paperkg", sys.executable
    steps = [s for s in args.steps.split(",") if s]
    jobs = "dask" if args.dask else str(args.jobs)
    extraction = ["--dask", "local"] if args.dask else ["--jobs", str(args.jobs)]
    biggest = max(files) if args.store_of is None else args.store_of
    common = {"cpus": os.cpu_count(), "corpus": str(args.corpus), "corpus_records": total}

    def store_of(n: int) -> Path:
        return work / f"s{n}"

    for n, prefix in sorted(files.items()):
        if "build" in steps:
            store = store_of(n) if jobs == "2" else work / f"s{n}-jobs{jobs}"
            if store.exists():
                shutil.rmtree(store)
            started = time.monotonic()
            r = timed(f"build {n}", [paperkg, "build", str(prefix), "--store", str(store), *extraction,
                                     "--quiet", "--json"], 0)
            _record(out, {"step": "build", "papers": n, "jobs": jobs, **common, **r,
                          "index_ready_s": _index_wait(store, started), "store_gb": _store_gb(store)})
            if jobs != "2":
                shutil.rmtree(store)
        if "repair" in steps:        # the build's serial part: derive and write, no extraction
            r = timed(f"repair {n}", [paperkg, "repair", "--store", str(store_of(n)), "--serving-index",
                                      "wait", "--json"], 0)
            _record(out, {"step": "repair", "papers": n, **common, **r})
        if "index" in steps:
            r = timed(f"index {n}", [py, "-m", "paperkg.queries.index_snapshot", str(store_of(n))], 0)
            _record(out, {"step": "index", "papers": n, **common, **r})
    store = store_of(biggest)
    if "add" in steps:
        started = time.monotonic()
        r = timed("add", [paperkg, "build", str(held), "--store", str(store), *extraction, "--quiet",
                          "--json"], 0)
        _record(out, {"step": "add", "papers": biggest, "added": args.add, "jobs": jobs, **common, **r,
                      "index_ready_s": _index_wait(store, started)})
    if "remove" in steps:
        ids = _ids(files[biggest], args.remove, store)
        started = time.monotonic()
        r = timed("remove", [paperkg, "remove", *ids, "--store", str(store), "--json"], 0)
        _record(out, {"step": "remove", "papers": biggest, "removed": len(ids), **common, **r,
                      "index_ready_s": _index_wait(store, started)})
    if "serve" in steps:
        r = timed("serve", [py, "benchmarks/serve_start.py", "--store", str(store), "--repeat",
                            str(args.repeat), "--json"], 0)
        _record(out, {"step": "serve", "papers": biggest, **common, **r, "store_gb": _store_gb(store)})
    if "latency" in steps:
        r = timed("latency", [py, "benchmarks/query_latency.py", "--store", str(store),
                              "--engine-passes", "0", "--load-seconds", "0", "--json"], 0, ok=(0, 3))
        _record(out, {"step": "latency", "papers": biggest, **common, **r})
    if "throughput" in steps:
        r = timed("throughput", [py, "benchmarks/throughput.py", "--store", str(store), "--seconds", "5",
                                 "--repeat", "1", "--json"], 0)
        _record(out, {"step": "throughput", "papers": biggest, **common, **r})


def plot(results: Path, svg: Path) -> None:
    """Build wall time and peak RSS and store size against corpus size (one line per jobs setting),
    the repair (the serial part), and serve start where measured."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    entries = json.loads(results.read_text())
    fig, (time_ax, mem_ax) = plt.subplots(1, 2, figsize=(10, 4))
    for jobs in sorted({e["jobs"] for e in entries if e["step"] == "build"}):
        rows = sorted((e for e in entries if e["step"] == "build" and e["jobs"] == jobs),
                      key=lambda e: e["papers"])
        xs = [e["papers"] / 1000 for e in rows]
        time_ax.plot(xs, [e["wall_s"] / 60 for e in rows], marker="o", label=f"build wall, jobs {jobs}")
        mem_ax.plot(xs, [e["peak_rss_gb"] for e in rows], marker="o", label=f"build peak RSS, jobs {jobs}")
        mem_ax.plot(xs, [e["store_gb"] for e in rows], marker="s", linestyle=":",
                    label=f"store size, jobs {jobs}")
    repairs = sorted((e for e in entries if e["step"] == "repair"), key=lambda e: e["papers"])
    if repairs:
        time_ax.plot([e["papers"] / 1000 for e in repairs], [e["wall_s"] / 60 for e in repairs], marker="s",
                     linestyle="--", label="repair (the serial part)")
    serve = sorted((e for e in entries if e["step"] == "serve"), key=lambda e: e["papers"])
    if serve:
        xs = [e["papers"] / 1000 for e in serve]
        time_ax.plot(xs, [e["output"]["summary"]["ready_s"]["median"] / 60 for e in serve], marker="^",
                     label="serve ready")
        mem_ax.plot(xs, [e["output"]["summary"]["rss_ready_mb"]["median"] / 1000 for e in serve], marker="^",
                    label="serve RSS at ready")
    time_ax.set(xlabel="real abstracts (thousands)", ylabel="minutes", title="time (2 cores)")
    mem_ax.set(xlabel="real abstracts (thousands)", ylabel="GB", title="memory and disk")
    for ax in (time_ax, mem_ax):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(svg, metadata={"Date": None})
    _log(f"wrote {svg}")


def _fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares line (intercept, slope) through `points`."""
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / var if var else my / mx
    return my - slope * mx, slope


def _power(points: list[tuple[float, float]]) -> tuple[float, float]:
    """(a, b) of the power law y = a * x**b fitted through `points` (a line in log-log)."""
    intercept, slope = _fit([(math.log(x), math.log(y)) for x, y in points])
    return math.exp(intercept), slope


def project(results: Path, papers: int, cores: list[int]) -> None:
    """A projection of a full build of `papers` abstracts on `cores` cores from the measured sizes:
    extraction CPU (build CPU less the serial part, per abstract, at the biggest size) spread over the
    cores as on a Dask cluster, plus the serial part (`repair`: derive and write on one core, which
    grows faster than the corpus: a power law fitted through the sizes) and the memory and store size
    (lines through the sizes)."""
    entries = json.loads(results.read_text())
    builds = {e["papers"]: e for e in entries if e["step"] == "build" and e.get("jobs") == "2"}
    repairs = {e["papers"]: e for e in entries if e["step"] == "repair"}
    sizes = sorted(set(builds) & set(repairs))
    if not sizes:
        raise SystemExit("no size has both a build (jobs 2) and a repair")

    def serial(n: int) -> float:
        index = repairs[n]["output"].get("serving_index") if isinstance(repairs[n]["output"], dict) else None
        return repairs[n]["wall_s"] - (index if isinstance(index, float) else 0.0)

    biggest = sizes[-1]
    extraction_cpu = (builds[biggest]["cpu_s"] - repairs[biggest]["cpu_s"]) / biggest
    serial_law = _power([(n, serial(n)) for n in sizes])
    rss_line = _fit([(n, builds[n]["peak_rss_gb"]) for n in sizes])
    store_line = _fit([(n, builds[n]["store_gb"]) for n in sizes])
    print(f"measured sizes {sizes}; extraction {extraction_cpu * 1000:.2f} ms CPU an abstract "
          f"(at {biggest:,}); serial part {', '.join(f'{serial(n):.0f} s at {n:,}' for n in sizes)}: "
          f"~ N^{serial_law[1]:.2f}")
    serial_s = serial_law[0] * papers ** serial_law[1]
    for c in cores:
        extraction_s = papers * extraction_cpu / c
        print(f"{papers:,} abstracts on {c} cores: ~{(extraction_s + serial_s) / 3600:.1f} h (extraction "
              f"{extraction_s / 3600:.1f} h + serial {serial_s / 3600:.1f} h); build peak RSS "
              f"~{rss_line[0] + rss_line[1] * papers:.0f} GB, "
              f"store ~{store_line[0] + store_line[1] * papers:.0f} GB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="JSONL (or .jsonl.gz) of real abstracts, in date order")
    parser.add_argument("--work", type=Path, help="directory for the prefixes and the stores")
    parser.add_argument("--out", type=Path, help="results JSON (entries added or replaced)")
    parser.add_argument("--sizes", default="25000,50000,100000,all")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dask", action="store_true", help="extract on `--dask local` instead of --jobs")
    parser.add_argument("--add", type=int, default=1000, help="records held out, then added")
    parser.add_argument("--remove", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3, help="serve starts")
    parser.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, of {', '.join(STEPS)}")
    parser.add_argument("--store-of", type=int,
                        help="the size whose store add/remove/serve use (default: the biggest)")
    parser.add_argument("--plot", type=Path, help="draw this results file (needs matplotlib)")
    parser.add_argument("--svg", type=Path, default=ROOT / "benchmarks" / "real_scale.svg")
    parser.add_argument("--project", type=Path, help="project a results file to --papers on --cores")
    parser.add_argument("--papers", type=int, default=2_500_000)
    parser.add_argument("--cores", default="16,64")
    args = parser.parse_args()
    if args.plot:
        plot(args.plot, args.svg)
        return 0
    if args.project:
        project(args.project, args.papers, [int(c) for c in args.cores.split(",")])
        return 0
    if not (args.corpus and args.work and args.out):
        parser.error("--corpus, --work and --out are needed (or --plot)")
    _log(f"load {_load()}")
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
