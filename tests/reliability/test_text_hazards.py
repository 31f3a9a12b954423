"""Text that attacks whoever reads the output (issue 28, finding 5 and 8), through real CLI runs:

- a record whose id is a spreadsheet formula (`=HYPERLINK(...)`) comes out of `--csv` and `--tsv`
  with a leading `'`, so a spreadsheet opens it as text; numbers stay numbers;
- ESC, NUL and C1 characters in a title or collection name are removed at read time with a
  warning, and any that reach a text output anyway (an abstract) are written escaped, so no raw
  control character reaches the terminal, TSV or CSV;
- an id holding control characters is refused with an error naming it (exit 65), so `p1\\x1b` and
  `p1` never become one node of the GEXF export without a word.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ABSTRACT = ("We propose Group Relative Policy Optimization (GRPO), a reinforcement learning method for "
            "language models, and evaluate GRPO on MATH500 and GSM8K where it outperforms PPO.")
FORMULA_ID = '=HYPERLINK("http://x","c")'
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paperkg.api.cli", *args], capture_output=True,
                          text=True, env=_env(), timeout=300)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    tmp = tmp_path_factory.mktemp("hazards")
    records = [
        {"id": FORMULA_ID, "abstract": ABSTRACT + " One.", "collection": "Sheet\u001b[2J Papers"},
        {"id": "p1", "abstract": ABSTRACT + " Two.", "title": "A title\u001b[2J\u0000\u009b"},
        {"id": "p1\u001b", "abstract": ABSTRACT + " Three."},
        {"id": "p2", "abstract": ABSTRACT + " Four \u001b[31mred\u001b[0m."},
    ]
    path = tmp / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = _run("build", str(path), "--mode", "rules", "--store", str(tmp / "store"))
    return tmp / "store", done


def test_read_time_controls_are_refused_in_ids_and_removed_from_names(store):
    path, build = store
    assert build.returncode == 65, build.stderr  # a record was refused
    assert "'id'" in build.stderr and "U+001B" in build.stderr and "record skipped" in build.stderr
    assert "removed from 'title'" in build.stderr
    assert "removed from 'collection'" in build.stderr
    stats = json.loads(_run("stats", "--json", "--store", str(path)).stdout)
    assert "\u001b" not in json.dumps(stats)
    title = json.loads(_run("query", "paper", "--param", "id=p1", "--json", "--store", str(path)).stdout)
    assert "A title" in json.dumps(title) and "\\u001b" not in json.dumps(title)


def test_ids_differing_in_control_characters_do_not_merge_in_gexf(store, tmp_path):
    path, _ = store
    out = tmp_path / "g.gexf"
    done = _run("export", "gexf", str(out), "--store", str(path))
    assert done.returncode == 0, done.stderr
    ids = re.findall(r'<node id="([^"]*)"', out.read_text())
    assert ids.count("paper:p1") == 1 and not [i for i in ids if RAW_CONTROLS.search(i)]
    papers = json.loads(_run("query", "--cypher", "MATCH (p:Paper) RETURN p.id AS id", "--json",
                             "--store", str(path)).stdout)
    assert sorted(r["id"] for r in papers) == sorted([FORMULA_ID, "p1", "p2"])


@pytest.mark.parametrize("fmt, delimiter", [("--csv", ","), ("--tsv", "\t")])
def test_formula_cells_open_as_text(store, fmt, delimiter):
    path, _ = store
    done = _run("query", "papers_mentioning", "--param", "name=GRPO", fmt, "--store", str(path))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout), delimiter=delimiter))
    ids = [r["id"] for r in rows]
    assert "'" + FORMULA_ID in ids and FORMULA_ID not in ids
    # every cell a spreadsheet would run as a formula is quoted; counts stay plain numbers
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), row
        assert all(r["mentions"].isdigit() for r in rows)


@pytest.mark.parametrize("fmt", ["--table", "--tsv", "--csv"])
def test_no_raw_control_character_reaches_a_text_output(store, fmt):
    path, _ = store
    done = _run("query", "paper", "--param", "id=p2", fmt, "--store", str(path))
    assert done.returncode == 0, done.stderr
    assert "red" in done.stdout
    assert not RAW_CONTROLS.search(done.stdout.replace("\r\n", "\n")), repr(done.stdout[:300])
    assert "\\x1b[31m" in done.stdout


def test_a_store_holding_ids_that_differ_in_control_characters_exports_them_apart(tmp_path):
    """A store built before readers refused such ids may hold `p1` and `p1<ESC>`: the GEXF export
    writes the control character escaped instead of dropping it, so Gephi sees two papers."""
    from tests.api.conftest import corpus_of
    from tests.stores import write_corpus

    text = "We train GRPO on GSM8K."
    papers = [(pid, f"{text} Paper {n}.", [("GRPO", "Method", False)], [], [])
              for n, pid in enumerate(["p1", "p1\u001b"])]
    write_corpus(tmp_path / "store", corpus_of(papers)).close()
    out = tmp_path / "g.gexf"
    done = _run("export", "gexf", str(out), "--store", str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    ids = re.findall(r'<node id="([^"]*)"', out.read_text())
    assert "paper:p1" in ids and "paper:p1\\x1b" in ids
    sources = re.findall(r'<edge id="[^"]*" source="([^"]*)"', out.read_text())
    assert {"paper:p1", "paper:p1\\x1b"} <= set(sources)
