"""Server memory across hot reloads: does a rebuilt embedded store replace the old graph in memory,
or pile up beside it? (issue 13: 839 MB -> 1.64 -> 2.19 -> 2.77 GB over three rebuilds of a 20k
store, before the query index held its graph weakly.)

    python benchmarks/reload_memory.py --store STORE [--reloads 5]

Copies STORE to a temporary directory, opens it as the API does (`api.deps.StoreHolder`, which loads
the graph, builds the query index and freezes it for the collector), then `--reloads` times builds
one more (hand-made, already extracted) paper into it (a new generation of the build state), waits
for the background reload and prints the process's RSS. Flat figures mean the old graphs are freed.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import psutil

from paperkg.api.deps import StoreHolder
from paperkg.api.settings import Settings
from paperkg.graph.corpus import text_key
from paperkg.graph.records import Extraction, PaperInput
from paperkg.graph.state import BuildState


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 2**20


def add_paper(path: Path, n: int) -> None:
    """One build of one more paper, with an extraction made by hand (no spaCy in the benchmark)."""
    text = f"Reload benchmark paper {n} adds one abstract to the store."
    state = BuildState(path)
    try:
        with state.transaction() as tx:
            tx.add_record(PaperInput(f"reload{n}", text, "reload_memory", n))
            tx.set_extraction(text_key(text), Extraction(f"reload{n}", text, [(0, len(text))], [], [], [],
                                              extractor="reload"))
            tx.derive()
    finally:
        state.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", required=True, help="an embedded store directory (copied, not changed)")
    parser.add_argument("--reloads", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paperkg-reload-") as tmp:
        path = Path(tmp) / "store"
        shutil.copytree(args.store, path)
        holder = StoreHolder(Settings(store=str(path)))
        start = time.monotonic()
        holder.get()
        print(f"loaded: {rss_mb():8.0f} MB RSS  ({time.monotonic() - start:.1f} s)", flush=True)
        first = rss_mb()
        for n in range(1, args.reloads + 1):
            add_paper(path, n)
            start = time.monotonic()
            while True:
                holder.get()
                store = holder._store
                if holder._reloading is None and store is not None and holder._version == store.version():
                    break
                time.sleep(0.05)
            print(f"reload {n}: {rss_mb():8.0f} MB RSS  ({time.monotonic() - start:.1f} s)", flush=True)
        print(f"growth over {args.reloads} reloads: {rss_mb() - first:+.0f} MB "
              f"({rss_mb() / first:.2f}x the first load)")
        holder.close()


if __name__ == "__main__":
    main()
