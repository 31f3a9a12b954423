"""Every entity id of a store answers `GET /entities/{id}` with itself (issue 28.6), through the real app.

    paperkg build FIRST_20K.jsonl --store S --jobs 2
    python benchmarks/entity_ids.py S

Reads the ids from the store's `nodes` table (read-only), asks the app for each one (percent-encoded, as
the explorer does) and prints how many do not come back as themselves; exits 1 when one does not.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path
from urllib.parse import quote

from fastapi.testclient import TestClient

from paperkg.api.app import create_app
from paperkg.api.settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    args = parser.parse_args(argv)
    db = sqlite3.connect(f"file:{Path(args.store) / 'state.sqlite'}?mode=ro", uri=True)
    ids = [k for (k,) in db.execute("SELECT key FROM nodes WHERE label NOT IN ('Paper', 'Collection')")]
    db.close()
    bad: dict[str, int] = {}
    started = time.time()
    with TestClient(create_app(Settings(store=args.store))) as client:
        for eid in ids:
            answer = client.get(f"/entities/{quote(eid, safe='')}")
            if answer.status_code != 200 or answer.json().get("id") != eid:
                bad[eid] = answer.status_code
    print(f"{len(ids):,} entity ids, {len(bad)} not answering with themselves, {time.time() - started:.0f} s")
    for eid, status in list(bad.items())[:20]:
        print(f"  {eid}: {status}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
