"""The leaderboards of the benchmarks with the most results in a store, each row beside the sentence it
came from, for reading by hand (issue 27.6).

    python benchmarks/leaderboards.py --corpus ../shared/data/arxiv/abstracts.jsonl [--top 5] [--rows 10]
    python benchmarks/leaderboards.py --store S [--top 5] [--rows 10] [--json]

Why it is done this way: whether a leaderboard row is right (that subject reached that value on that
benchmark, in that metric, as an absolute score) is a judgement about its sentence, which no score of
the extractor's gold answers for the graph: the rows a user reads first are printed with their
evidence so that a person can check them. Benchmarks are ranked by how many absolute results are
linked to them; each board is the catalog's `leaderboard` query (its first `--rows` rows), as the API
and the explorer show it. With `--corpus`, the store is built first (`paperkg build`, default mode)
into a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def top_benchmarks(store: Any, top: int) -> list[tuple[str, str, int]]:
    """(id, name, absolute results) of the `top` benchmarks and datasets with the most results."""
    graph = store.graph()
    counts: Counter[str] = Counter()
    for edge in graph.edges.values():
        if edge.type == "ON_BENCHMARK" and graph.nodes[edge.source].props.get("kind") == "absolute":
            counts[edge.target] += 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return [(graph.nodes[k].props["id"], graph.nodes[k].props["name"], n) for k, n in ranked]


def boards(store_path: Path, top: int, rows: int) -> list[dict[str, Any]]:
    from paperkg.graph.embedded import EmbeddedStore
    from paperkg.queries.runner import run_named

    store = EmbeddedStore(store_path)
    try:
        out = []
        for bench_id, name, n in top_benchmarks(store, top):
            board = [r for r in run_named(store, "leaderboard", {"benchmark": name, "limit": 1000})
                     if r["benchmark"] == bench_id][:rows]
            out.append({"benchmark": bench_id, "name": name, "results": n, "rows": board})
        return out
    finally:
        store.close()


def render(result: list[dict[str, Any]]) -> str:
    lines = []
    for board in result:
        lines.append(f"## {board['name']} ({board['benchmark']}): {board['results']} absolute results")
        for i, r in enumerate(board["rows"], 1):
            subject, metric = r["subject"] or "(no subject)", r["metric"] or "(no metric)"
            lines.append(f"{i:>2}. {subject} | {r['value']} | {metric} | {r['paper']} {r['year'] or ''}")
            lines.append(f"    {r['evidence']}")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--store", type=Path, help="an embedded store")
    source.add_argument("--corpus", type=Path, help="abstracts to build a store of first (JSONL, ...)")
    parser.add_argument("--top", type=int, default=5, help="benchmarks, most results first (default 5)")
    parser.add_argument("--rows", type=int, default=10, help="rows of each board (default 10)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="paperkg-boards-") as tmp:
        store = args.store
        if store is None:
            store = Path(tmp) / "store"
            subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", str(args.corpus), "--store",
                            str(store), "--jobs", "2", "--quiet"], check=True, stdout=sys.stderr)
        result = boards(store, args.top, args.rows)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
