"""What adding a few abstracts costs as the store grows (issue 10.3 and its check): K new abstracts
added to a store of N against the same K added to an empty store, timed in one run, and whether the
grown store equals a build of everything at once.

    python benchmarks/grow.py --n 50000 --add 100 --mode rules --jobs 2 [--cache DIR]

Why it is measured this way:
- The K abstracts are the N+1st to N+Kth of the synthetic corpus (benchmarks/synth.py, seed 0), so
  they meet the same popular names as the N before them: the case where a store that rewrites what
  popular entities and relations hold gets slower with every day's feed.
- Both adds run `paperkg.api.build.build`, what `paperkg build` runs, in this one process: model
  loading, extraction of the K, derivation, writing, commit. The empty-store add runs before and
  after the big one; the ratio divides by the faster of the two (the conservative choice on a shared
  machine), and the load average is printed beside it.
- "Equals a build of everything": a fresh store gets all N+K records and the grown store's
  extractions in one transaction (the build's own write path, without extracting 50k abstracts a
  second time), and its graph and stats are compared with the grown store's. `--spec` also compares
  with `graph.build.build_graph` of the whole corpus, the specification of the derived graph.
- The base store of N is set-up, not measured: its records and their extractions go into a new
  store in one transaction (what a build does after extracting). Extracting N abstracts is most of
  the run, so `--cache DIR` keeps the extractions (JSON lines, with the extractor's fingerprint) and
  the next run with the same N, mode and extractor reuses them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

if __package__:  # `python -m benchmarks.grow` from the repository root
    from benchmarks import synth
else:  # `python benchmarks/grow.py`: this folder is sys.path[0]
    import synth  # type: ignore[no-redef]

from paperkg.api.build import BuildSummary, build
from paperkg.extract.readers import read_inputs
from paperkg.extract.version import extractor_fingerprint
from paperkg.graph.corpus import extraction_from_dict, text_key
from paperkg.graph.records import PaperInput
from paperkg.graph.state import BuildState
from paperkg.graph.store import graph_stats


def _log(message: str) -> None:
    print(f"[grow] {message}", file=sys.stderr, flush=True)


def _fail(problem: object) -> None:
    raise SystemExit(f"input problem in the benchmark corpus: {problem}")


def timed_build(files: list[Path], store: Path, mode: str, jobs: int) -> dict[str, Any]:
    """`api.build.build` of `files` into `store`: wall seconds in all and of extraction alone."""
    marks: dict[str, float] = {}

    def progress(items: Iterable, total: int) -> Iterator:
        marks["extract_start"] = time.perf_counter()
        yield from items
        marks["extract_end"] = time.perf_counter()

    started = time.perf_counter()
    summary: BuildSummary = build([str(f) for f in files], store, _fail, mode=mode, n_process=jobs,
                                  progress=progress)
    wall = time.perf_counter() - started
    extract = marks.get("extract_end", started) - marks.get("extract_start", started)
    return {"wall_s": round(wall, 3), "extract_s": round(extract, 3),
            "rest_s": round(wall - extract, 3), "papers": summary.papers,
            "extracted": summary.extracted}


def base_store(base_file: Path, store: Path, mode: str, jobs: int, cache: Path | None) -> dict[str, Any]:
    """The store of the records in `base_file`, extracted (or read from `cache`), in one transaction."""
    inputs = list(read_inputs([str(base_file)], _fail))
    fingerprint = extractor_fingerprint(mode)
    cached = cache / f"extractions-{len(inputs)}-{fingerprint.replace(':', '-')}.jsonl.gz" if cache else None
    out: dict[str, Any] = {}
    started = time.perf_counter()
    if cached is not None and cached.exists():
        with gzip.open(cached, "rt", encoding="utf-8") as fh:
            extractions = [extraction_from_dict(json.loads(line)) for line in fh]
        out["extractions"] = f"read from {cached}"
    else:
        from paperkg.extract.pipeline import Extractor

        extractions = list(Extractor(mode=mode, n_process=jobs).extract((r.id, r.abstract) for r in inputs))
        out["extract_s"] = round(time.perf_counter() - started, 1)
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(cached, "wt", encoding="utf-8") as fh:
                for ex in extractions:
                    fh.write(json.dumps(asdict(ex), ensure_ascii=False) + "\n")
    started = time.perf_counter()
    state = BuildState(store, create=True)
    try:
        with state.transaction() as tx:
            for record, ex in zip(inputs, extractions, strict=True):
                tx.add_record(record)
                ex.extractor = fingerprint
                tx.set_extraction(text_key(record.abstract), ex)
            tx.derive()
    finally:
        state.close()
    out["derive_s"] = round(time.perf_counter() - started, 1)
    return out


def one_shot_copy(grown: Path, fresh: Path) -> None:
    """A store of every record of `grown`, with its extractions, made in one transaction."""
    source = BuildState(grown)
    corpus = source.corpus()
    source.close()
    state = BuildState(fresh, create=True)
    try:
        with state.transaction() as tx:
            for entry in corpus:
                for meta in entry.records.values():
                    tx.add_record(PaperInput(meta.id, meta.abstract, "grow", 1, collection=meta.collection,
                                             title=meta.title, year=meta.year, authors=meta.authors,
                                             url=meta.url, doi=meta.doi, categories=meta.categories))
                if entry.extraction is not None:
                    tx.set_extraction(entry.key, entry.extraction)
            tx.derive()
    finally:
        state.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50_000, help="abstracts in the big store (default 50000)")
    parser.add_argument("--add", type=int, default=100, help="abstracts added (default 100)")
    parser.add_argument("--mode", choices=("default", "rules"), default="rules")
    parser.add_argument("--jobs", type=int, default=2, help="extraction processes for the base store")
    parser.add_argument("--cache", type=Path, help="keep (and reuse) the extractions of the N here")
    parser.add_argument("--spec", action="store_true", help="also compare with build_graph of everything")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()

    result: dict[str, Any] = {"n": args.n, "add": args.add, "mode": args.mode,
                              "load_start": list(os.getloadavg())}
    with tempfile.TemporaryDirectory(prefix="paperkg-grow-") as tmp:
        work = Path(tmp)
        records = list(synth.generate(args.n + args.add, seed=0))
        base_file, add_file = work / "base.jsonl", work / "add.jsonl"
        with open(base_file, "w", encoding="utf-8") as out:
            synth.write_jsonl(iter(records[:args.n]), out)
        with open(add_file, "w", encoding="utf-8") as out:
            synth.write_jsonl(iter(records[args.n:]), out)
        del records

        _log(f"the base store of {args.n:,} ({args.mode} mode)")
        grown = work / "grown"
        result["base"] = base_store(base_file, grown, args.mode, args.jobs, args.cache)

        _log(f"adding {args.add} to an empty store")
        empty1 = timed_build([add_file], work / "empty1", args.mode, 1)
        _log(f"adding {args.add} to the store of {args.n:,}")
        big = timed_build([add_file], grown, args.mode, 1)
        _log(f"adding {args.add} to an empty store again")
        empty2 = timed_build([add_file], work / "empty2", args.mode, 1)
        fastest = min(empty1["wall_s"], empty2["wall_s"])
        result.update(empty=[empty1, empty2], big=big, ratio=round(big["wall_s"] / fastest, 3),
                      load_end=list(os.getloadavg()))

        _log("one-shot build of everything, for the comparison")
        started = time.perf_counter()
        one_shot_copy(grown, work / "everything")
        result["one_shot_s"] = round(time.perf_counter() - started, 1)
        a, b = BuildState(grown), BuildState(work / "everything")
        grown_graph, everything = a.graph(), b.graph()
        result["equal_graph"] = (grown_graph.nodes, grown_graph.edges) == (everything.nodes, everything.edges)
        result["equal_stats"] = a.stats() == b.stats() == graph_stats(grown_graph)
        if args.spec:
            from paperkg.graph.build import build_graph

            spec = build_graph(a.corpus())
            result["equal_spec"] = (grown_graph.nodes, grown_graph.edges) == (spec.nodes, spec.edges)
        result["graph"] = {"nodes": len(grown_graph.nodes), "edges": len(grown_graph.edges)}
        result["store_mb"] = round(sum(f.stat().st_size for f in grown.iterdir()) / 1e6, 1)
        a.close()
        b.close()

    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"add {args.add} abstracts ({args.mode} mode): to an empty store "
              f"{empty1['wall_s']:.2f} s / {empty2['wall_s']:.2f} s, to the store of {args.n:,} "
              f"{big['wall_s']:.2f} s (extraction {big['extract_s']:.2f} s, the rest {big['rest_s']:.2f} s)")
        load = f"{result['load_start'][0]:.1f} -> {result['load_end'][0]:.1f}"
        print(f"ratio {result['ratio']:.2f} (target <= 2.5); load average {load}")
        print(f"grown store equals a one-shot build of all {args.n + args.add:,}: graph "
              f"{result['equal_graph']}, stats {result['equal_stats']}"
              + (f", build_graph {result['equal_spec']}" if args.spec else ""))
        print(f"graph {result['graph']['nodes']:,} nodes, {result['graph']['edges']:,} edges; "
              f"store {result['store_mb']:,} MB")
        print(f"base store: {result['base']}")
    ok = result["equal_graph"] and result["equal_stats"] and result.get("equal_spec", True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
