"""Writes `SCHEMA_DIR/state.sqlite`: a store of an older schema, as the paperkg of that schema built it,
for `tests/graph/test_state.py`'s migration tests. Run it with that paperkg on the path, e.g. for
`schema5` (paperkg 9d64040; `schema4` was made by 07af58d, `schema6` by b3b00f8, `schema8` by b910eb9,
`schema12` by 03512eb):

    git worktree add /tmp/paperkg-9d64040 9d64040
    mkdir -p /tmp/pp && ln -sfn /tmp/paperkg-9d64040 /tmp/pp/paperkg
    cd /tmp/paperkg-9d64040 && PYTHONPATH=/tmp/pp:. python /path/to/make_store.py /path/to/schema5 5

The papers are `SCHEMA_DIR/papers.py`'s `PAPERS`.
"""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
import tempfile
from pathlib import Path

from paperkg.graph.corpus import Corpus
from paperkg.graph.records import PaperInput
from tests.api.conftest import _extraction
from tests.stores import write_corpus


def main(folder: Path, schema: int) -> None:
    spec = importlib.util.spec_from_file_location("golden_papers", folder / "papers.py")
    papers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(papers)
    corpus = Corpus()
    for pid, text, entities, relations, aliases in papers.PAPERS:
        entry, _ = corpus.add(PaperInput(pid, text, "test", 1, title=f"Paper {pid}", year=2025))
        entry.extraction = _extraction(pid, text, entities, relations, aliases)
    with tempfile.TemporaryDirectory() as tmp:
        write_corpus(Path(tmp), corpus).close()
        out = folder / "state.sqlite"
        out.unlink(missing_ok=True)
        with sqlite3.connect(Path(tmp) / "state.sqlite") as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == schema
            db.execute("VACUUM INTO ?", (str(out),))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), int(sys.argv[2]))
