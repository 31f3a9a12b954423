"""`paperkg query` output a person and a program can trust: CSV through the csv module, unquoted
TSV with backslash escapes, JSON,
JSON lines, a table; "did you mean" for mistyped query and parameter names; `--list --json` with
defaults and ranges."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from paperkg.api.cli import main
from paperkg.api.output import cell, write_rows

NASTY_ROWS = [
    {"name": "a, b", "n": 1, "tags": ["x", "y"], "ok": True, "none": None},
    {"name": 'say "hi"\tthere', "n": 2.5, "tags": [], "ok": False, "none": None},
    {"name": "two\nlines", "n": -3, "tags": {"k": "v"}, "ok": None, "none": None},
]


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_csv_cells_survive_delimiters_quotes_and_line_breaks() -> None:
    out = io.StringIO()
    write_rows(NASTY_ROWS, "csv", out)
    back = list(csv.reader(io.StringIO(out.getvalue())))
    assert back[0] == ["name", "n", "tags", "ok", "none"]
    assert back[1:] == [[cell(row[c]) for c in back[0]] for row in NASTY_ROWS]
    assert back[3][0] == "two\nlines" and back[2][0] == 'say "hi"\tthere'


_TSV_UNESCAPE = re.compile(r"\\(.)")


def read_tsv(text: str) -> list[list[str]]:
    """TSV as `cut` sees it: a row a line, a cell a tab, then the four escapes undone."""
    names = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
    return [[_TSV_UNESCAPE.sub(lambda m: names[m.group(1)], f) for f in line.split("\t")]
            for line in text.split("\n")[:-1]]


def test_tsv_is_a_row_a_line_and_never_quoted() -> None:
    """Piped output (TSV) is read by tools that know no quoting: list cells are plain JSON, a tab or
    line break inside a cell is escaped, and every cell comes back exactly."""
    rows = [*NASTY_ROWS, {"name": "back\\slash\r", "n": 0, "tags": ["method:grpo", 'a"b'], "ok": True}]
    out = io.StringIO()
    write_rows(rows, "tsv", out)
    text = out.getvalue()
    assert text.count("\n") == len(rows) + 1
    assert all(line.count("\t") == 4 for line in text.splitlines())
    assert '\t["x", "y"]\t' in text and '""' not in text
    back = read_tsv(text)
    assert back[0] == ["name", "n", "tags", "ok", "none"]
    assert back[1:] == [[cell(row.get(c)) for c in back[0]] for row in rows]


@pytest.mark.parametrize(("value", "text"), [
    (None, ""), (True, "true"), (False, "false"), (3, "3"), (2.5, "2.5"), ("a|b", "a|b"),
    (["x", 1], '["x", 1]'), ({"k": None}, '{"k": null}'), ("数据", "数据"),
])
def test_cell(value: Any, text: str) -> None:
    assert cell(value) == text


def test_json_and_json_lines() -> None:
    whole, lines = io.StringIO(), io.StringIO()
    write_rows(NASTY_ROWS, "json", whole)
    write_rows(NASTY_ROWS, "nl", lines)
    assert json.loads(whole.getvalue()) == NASTY_ROWS
    assert [json.loads(line) for line in lines.getvalue().splitlines()] == NASTY_ROWS


def test_table_is_aligned_and_takes_names_literally() -> None:
    out = io.StringIO()
    write_rows([{"name": "[CLS]{pool}", "papers": 12}, {"name": "GRPO", "papers": 3}], "table", out)
    lines = out.getvalue().splitlines()
    assert "[CLS]{pool}" in out.getvalue()            # not taken for rich markup
    assert lines[0].split() == ["name", "papers"], lines
    assert lines[-1].rstrip().endswith(" 3") and len({len(line.rstrip()) for line in lines[2:]}) == 1


@pytest.mark.parametrize("fmt", ["--csv", "--tsv", "--json", "--nl", "--table"])
def test_every_format_gives_the_same_rows(small_store_path: Path, fmt: str) -> None:
    args = ["query", "neighbors", "--param", "name=GRPO", "--store", str(small_store_path)]
    expected = json.loads(run(*args, "--json").output)
    assert len(expected) == 4          # PPO, GSM8K, MATH500, Qwen3-8B (tests/api/conftest.py)
    output = run(*args, fmt).output
    if fmt in ("--csv", "--tsv"):
        table = list(csv.reader(io.StringIO(output))) if fmt == "--csv" else read_tsv(output)
        rows = [dict(zip(table[0], line, strict=True)) for line in table[1:]]
        assert rows == [{k: cell(v) for k, v in row.items()} for row in expected]
    elif fmt == "--nl":
        assert [json.loads(line) for line in output.splitlines()] == expected
    elif fmt == "--table":
        assert all(row["name"] in output for row in expected)
    else:
        assert json.loads(output) == expected


def test_default_is_tsv_when_piped(small_store_path: Path) -> None:
    output = run("query", "entity", "--param", "name=GRPO", "--store", str(small_store_path)).output
    assert output.splitlines()[0].split("\t")[:3] == ["id", "name", "type"]


@pytest.mark.parametrize(("args", "words"), [
    (["query", "papers_mentionning", "--param", "name=GRPO"], ["did you mean 'papers_mentioning'?"]),
    (["query", "Neighbours", "--param", "name=GRPO"], ["did you mean 'neighbors'?"]),
    (["query", "neighbors", "--param", "name=GRPO", "--param", "limt=3"],
     ["unknown parameter 'limt'", "did you mean 'limit'?"]),
    (["query", "neighbors", "--param", "name=GRPO", "--param", "confidence=0.5"],
     ["did you mean 'min_confidence'?"]),
    (["query", "nothing_close_at_all_here"], ["no catalog query named"]),
])
def test_did_you_mean(small_store_path: Path, args: list[str], words: list[str]) -> None:
    result = CliRunner().invoke(main, [*args, "--store", str(small_store_path)])
    assert result.exit_code == 2, result.output     # a usage error, like click's own
    for word in words:
        assert word in result.output
    if "nothing_close" in args[1]:
        assert "did you mean" not in result.output


def test_list_json_shows_defaults_and_ranges() -> None:
    catalog = json.loads(run("query", "--list", "--json").output)
    params = {q["name"]: {p["name"]: p for p in q["params"]} for q in catalog}
    assert params["neighbors"]["min_confidence"]["default"] == 0.0
    floor = params["neighbors"]["min_confidence"]
    assert (floor["min"], floor["max"]) == (0, 1)
    assert params["trending"]["since"]["default"] is None and params["trending"]["since"]["max"] == 9999
    text = run("query", "--list").output
    assert "neighbors(name, limit?=50 (1..1000), offset?=0 (0..100000), min_confidence?=0.0 (0..1))" in text


@pytest.mark.parametrize("args", [
    ["query", "no_such_query"],                                  # unknown query
    ["query", "entity", "--param", "nam=GRPO"],                  # unknown parameter
    ["query", "entity"],                                         # missing parameter
    ["query", "entity", "--param", "name"],                      # --param without =
    ["query", "entity", "--no-such-option"],                     # click's own
])
def test_every_usage_error_exits_with_one_code(small_store_path: Path, args: list[str]) -> None:
    result = CliRunner().invoke(main, [*args, "--store", str(small_store_path)])
    assert result.exit_code == 2, result.output


def test_help_documents_the_exit_codes() -> None:
    text = run("--help").output
    assert "Exit codes:" in text
    assert "2   usage error: unknown command, option, query or parameter name" in text
    assert "66  input file or store not found, or an entity name the graph does not hold" in text
