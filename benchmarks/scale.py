"""The store at scale (issue 10.6): build N synthetic abstracts with `paperkg build`, add K more, and
serve the result, each step a process of its own measured with `/usr/bin/time -v`.

    python benchmarks/scale.py --corpus synth-1m.jsonl --extractions extract-1m-rules.jsonl.gz \\
        --add add-1000.jsonl --store STORE [--steps prefill,build,add,serve] [--json]
    python benchmarks/scale.py prefill CORPUS EXTRACTIONS STORE     # the first step alone

Why it is measured this way:
- The extraction of N abstracts (hours at 1M in rules mode on this machine) is measured once, by the
  run that made `--extractions` (one `json.dumps(dataclasses.asdict(extraction))` line per record
  of `--corpus`, in corpus order: the format of `grow.py --cache`). So that the build does not run
  it a second time, the `prefill` step writes each extraction into the new store's `papers` table
  under its abstract's text key, with the rules extractor's fingerprint, exactly as a build stores
  one (`state.extraction_json`); it adds no record and derives nothing. It fails if an extraction
  is not of its record's abstract as `paperkg build` reads it, or of another extractor.
- `build` is then the real `paperkg build CORPUS --store STORE --mode rules`: it reads and dedupes
  every record, finds every paper already extracted by this extractor (so it extracts nothing and
  loads no model), derives the whole graph and commits, in one transaction. Its wall time and peak
  RSS are everything a build does except extraction; the extraction run's own figures are the rest.
- `add` is `paperkg build ADD --store STORE --mode rules` of K new abstracts, extraction included.
- `serve` is `query_latency.py --store STORE --engine-passes 0 --load-seconds 0`: `paperkg serve`
  started as a user starts it, time from process start to the first 200 of `/health` (the server
  loads and indexes the graph before it answers), its RSS at ready and its peak (`VmHWM`), then
  every catalog query's sequential p50/p95/p99. No in-process engine pass: it would load a second
  copy of the graph beside the server's.
- The load average is printed before and after every step (2 shared cores).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("prefill", "build", "grow", "add", "serve")


def _log(message: str) -> None:
    print(f"[scale] {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def prefill(corpus: Path, lines: Iterable[str], store: Path) -> dict[str, Any]:
    """Write the extractions `lines` (one per record of `corpus`, in order) into the store at
    `store`, made if need be (see the module doc)."""
    from paperkg.extract.readers import read_inputs
    from paperkg.extract.version import extractor_fingerprint
    from paperkg.graph.corpus import extraction_from_dict, text_key
    from paperkg.graph.state import DB_FILE, BuildState, extraction_json

    fingerprint = extractor_fingerprint("rules")
    BuildState(store, create=True).close()                      # the schema, as a first build makes it

    def fail(problem: object) -> None:
        raise SystemExit(f"input problem in {corpus}: {problem}")

    insert = "INSERT OR REPLACE INTO papers (key, extractor, extraction) VALUES (?, ?, ?)"
    db = sqlite3.connect(store / DB_FILE, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    n = 0
    started = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    rows = []
    for record, line in zip(read_inputs([str(corpus)], fail), lines, strict=True):
        ex = extraction_from_dict(json.loads(line))
        if ex.paper_id != record.id or ex.text != record.abstract:
            raise SystemExit(f"extraction {n + 1} is not the extraction of record {record.id!r} of {corpus}")
        ex.extractor = fingerprint
        rows.append((text_key(record.abstract), fingerprint, extraction_json(ex)))
        n += 1
        if len(rows) == 10_000:
            db.executemany(insert, rows)
            rows = []
    db.executemany(insert, rows)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return {"extractions": n, "fingerprint": fingerprint, "seconds": round(time.perf_counter() - started, 1)}


def _growing_gz_lines(path: Path) -> Iterator[str]:
    """The lines of a gzip file another process is still writing (complete lines only), waiting for
    more until the stream's end marker."""
    import zlib

    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = b""
    with open(path, "rb") as raw:
        while not inflate.eof:
            chunk = raw.read(1 << 20)
            if not chunk:
                time.sleep(5)
                continue
            pending += inflate.decompress(chunk)
            *done, pending = pending.split(b"\n")
            yield from (line.decode("utf-8") for line in done)
    if pending:
        yield pending.decode("utf-8")


def grow(corpus: Path, extractions: Path, store: Path, chunk: int, nice: int) -> list[dict[str, Any]]:
    """The store of `corpus` made by successive builds of `chunk` records each, as a store fed every
    day grows: each chunk's extractions are prefilled, then `paperkg build CHUNK --store STORE`
    runs. `extractions` may still be being written (`NAME.part`, renamed to NAME when complete):
    each chunk waits for its lines, so building overlaps the extraction run."""
    from itertools import islice

    part = extractions.with_name(extractions.name + ".part")
    source = part if not extractions.exists() and part.exists() else extractions
    paperkg = shutil.which("paperkg") or "paperkg"
    out: list[dict[str, Any]] = []
    chunk_file = store.parent / f"{store.name}-chunk.jsonl"
    with open(corpus, encoding="utf-8") as records:
        lines = _growing_gz_lines(source)
        while raw := list(islice(records, chunk)):
            chunk_file.write_text("".join(raw), encoding="utf-8")
            step: dict[str, Any] = {"from": sum(r["records"] for r in out), "records": len(raw),
                                    "load_start": _load()}
            step["prefill"] = prefill(chunk_file, islice(lines, len(raw)), store)
            step["build"] = timed(f"build of records {step['from']:,}+{len(raw):,}",
                                  [paperkg, "build", str(chunk_file), "--store", str(store),
                                   "--mode", "rules", "--json"], nice)
            out.append(step)
    chunk_file.unlink()
    return out


def _time_v(stderr: str) -> dict[str, Any]:
    """Wall seconds, peak RSS and CPU of a `/usr/bin/time -v` run."""
    out: dict[str, Any] = {}
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", stderr)
    user = re.search(r"User time \(seconds\): ([\d.]+)", stderr)
    system = re.search(r"System time \(seconds\): ([\d.]+)", stderr)
    if rss:
        out["peak_rss_gb"] = round(int(rss.group(1)) / 1e6, 2)
    if wall:
        seconds = 0.0
        for part in wall.group(1).split(":"):
            seconds = seconds * 60 + float(part)
        out["wall_s"] = round(seconds, 1)
    if user and system:
        out["cpu_s"] = round(float(user.group(1)) + float(system.group(1)), 1)
    return out


def timed(name: str, cmd: list[str], nice: int, ok: tuple[int, ...] = (0,)) -> dict[str, Any]:
    """`cmd` under `/usr/bin/time -v` (at `nice`), its stdout, the load average around it; exit
    codes other than `ok` stop the run."""
    full = ["/usr/bin/time", "-v", *(["nice", "-n", str(nice)] if nice else []), *cmd]
    _log(f"{name}: {' '.join(full)}")
    load_start = _load()
    proc = subprocess.run(full, cwd=ROOT, capture_output=True, text=True)
    result: dict[str, Any] = {"command": " ".join(cmd), "nice": nice, "load_start": load_start,
                              "load_end": _load(), "exit": proc.returncode, **_time_v(proc.stderr)}
    if proc.returncode not in ok:
        tail = "\n".join(proc.stderr.splitlines()[-30:])
        raise SystemExit(f"{name} failed with exit {proc.returncode}:\n{tail}")
    try:
        result["output"] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        result["output"] = proc.stdout.strip()[-2000:]
    _log(f"{name}: {result.get('wall_s')} s, peak RSS {result.get('peak_rss_gb')} GB, "
         f"load {load_start[0]} -> {result['load_end'][0]}")
    return result


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "prefill":
        one = argparse.ArgumentParser(prog="scale.py prefill")
        one.add_argument("corpus", type=Path)
        one.add_argument("extractions", type=Path)
        one.add_argument("store", type=Path)
        a = one.parse_args(sys.argv[2:])
        with gzip.open(a.extractions, "rt", encoding="utf-8") as lines:
            print(json.dumps(prefill(a.corpus, lines, a.store)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="the N abstracts (JSONL)")
    parser.add_argument("--extractions", type=Path, help="their rules-mode extractions (gz JSONL)")
    parser.add_argument("--add", type=Path, help="the K abstracts added afterwards (JSONL)")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, of {', '.join(STEPS)}")
    parser.add_argument("--chunk", type=int, default=100_000, help="records per build of the grow step")
    parser.add_argument("--nice", type=int, default=0, help="run the steps at this niceness")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    if set(steps) - set(STEPS):
        parser.error(f"unknown steps: {sorted(set(steps) - set(STEPS))}")
    paperkg = shutil.which("paperkg") or "paperkg"
    py = sys.executable
    result: dict[str, Any] = {"corpus": str(args.corpus), "store": str(args.store), "cpus": os.cpu_count()}
    if "prefill" in steps:
        if args.extractions is None:
            parser.error("prefill needs --extractions")
        result["prefill"] = timed("prefill", [py, "benchmarks/scale.py", "prefill", str(args.corpus),
                                              str(args.extractions), str(args.store)], args.nice)
    if "grow" in steps:
        if args.extractions is None:
            parser.error("grow needs --extractions")
        result["grow"] = grow(args.corpus, args.extractions, args.store, args.chunk, args.nice)
        builds = [g["build"] for g in result["grow"]]
        result["grow_total"] = {"builds": len(builds), "wall_s": round(sum(b["wall_s"] for b in builds), 1),
                                "prefill_s": round(sum(g["prefill"]["seconds"] for g in result["grow"]), 1),
                                "peak_rss_gb": max(b["peak_rss_gb"] for b in builds)}
    if "build" in steps:
        result["build"] = timed("build", [paperkg, "build", str(args.corpus), "--store", str(args.store),
                                          "--mode", "rules", "--json"], args.nice)
    if "add" in steps:
        if args.add is None:
            parser.error("add needs --add")
        result["add"] = timed("add", [paperkg, "build", str(args.add), "--store", str(args.store),
                                      "--mode", "rules", "--json"], args.nice)
    result["store_gb"] = round(sum(f.stat().st_size for f in args.store.glob("state.sqlite*")) / 1e9, 2)
    if "serve" in steps:
        result["serve"] = timed("serve", [py, "benchmarks/query_latency.py", "--store", str(args.store),
                                          "--engine-passes", "0", "--load-seconds", "0", "--json"], args.nice,
                                ok=(0, 3))                          # 3: a query missed its target
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for g in result.get("grow", []):
            b = g["build"]
            print(f"grow: records {g['from']:,}+{g['records']:,}: prefill {g['prefill']['seconds']} s, build "
                  f"{b.get('wall_s')} s wall, {b.get('cpu_s')} s CPU, peak RSS {b.get('peak_rss_gb')} GB, "
                  f"load {b['load_start'][0]} -> {b['load_end'][0]}")
        if "grow_total" in result:
            print(f"grow total: {result['grow_total']}")
        for step in STEPS:
            if step in result and step != "grow":
                r = result[step]
                print(f"{step}: {r.get('wall_s')} s wall, {r.get('cpu_s')} s CPU, peak RSS "
                      f"{r.get('peak_rss_gb')} GB, load {r['load_start'][0]} -> {r['load_end'][0]}: "
                      f"{r['command']}")
        if "serve" in result:
            for run in result["serve"]["output"]["runs"]:
                print(f"serve: ready {run['ready_s']} s, RSS at ready {run.get('server_rss_mb_ready')} MB, "
                      f"user Cypher's graph at {run.get('cypher_ready_s')} s "
                      f"({run.get('server_rss_mb_cypher_ready')} MB), "
                      f"peak {run.get('server_peak_rss_mb')} MB")
                for q in run["queries"]:
                    print(f"  {q['query']:<20} p95 {q['p95']:>8.1f} ms  {'PASS' if q['pass'] else 'FAIL'}")
        print(f"store {result['store_gb']} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
