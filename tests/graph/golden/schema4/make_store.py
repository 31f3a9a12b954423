"""Writes `state.sqlite` here: a store of schema 4, as paperkg 07af58d built it, for
`tests/graph/test_state.py`'s migration test. Run it with that paperkg on the path:

    git worktree add /tmp/paperkg-07af58d 07af58d
    mkdir -p /tmp/pp && ln -sfn /tmp/paperkg-07af58d /tmp/pp/paperkg
    cd /tmp/paperkg-07af58d && PYTHONPATH=/tmp/pp:. python /path/to/make_store.py

Schema 4 resolved a bare acronym defined several ways to the bare acronym, whatever its type.
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
            assert db.execute("PRAGMA user_version").fetchone()[0] == 4
            db.execute("VACUUM INTO ?", (str(out),))


if __name__ == "__main__":
    main()
