"""Writes `state.sqlite` here: a store of schema 5, as paperkg 9d64040 built it, for
`tests/graph/test_state.py`'s migration test. Run it with that paperkg on the path:

    git worktree add /tmp/paperkg-9d64040 9d64040
    mkdir -p /tmp/pp && ln -sfn /tmp/paperkg-9d64040 /tmp/pp/paperkg
    cd /tmp/paperkg-9d64040 && PYTHONPATH=/tmp/pp:. python /path/to/make_store.py

Schema 5 kept plurals apart (`attention mechanisms`, `attention mechanism`) and counted `GPT` and `4o`
inside every `GPT-4o`.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

from paperkg.graph.corpus import Corpus
from paperkg.graph.records import PaperInput
from tests.api.conftest import _extraction
from tests.stores import write_corpus

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from papers import PAPERS  # noqa: E402


def main() -> None:
    corpus = Corpus()
    for pid, text, entities, relations, aliases in PAPERS:
        entry, _ = corpus.add(PaperInput(pid, text, "test", 1, title=f"Paper {pid}", year=2025))
        entry.extraction = _extraction(pid, text, entities, relations, aliases)
    with tempfile.TemporaryDirectory() as tmp:
        write_corpus(Path(tmp), corpus).close()
        out = HERE / "state.sqlite"
        out.unlink(missing_ok=True)
        with sqlite3.connect(Path(tmp) / "state.sqlite") as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == 5
            db.execute("VACUUM INTO ?", (str(out),))


if __name__ == "__main__":
    main()
