"""README.md is executed: every command in its ```bash blocks runs, in order, in a fresh directory
holding the bundled examples, and shows what README says it shows (the way sqlite-utils checks its
documentation); then every ```python block runs as written, each in a fresh interpreter, in that
directory (on the store the commands built). A README command or example that prints nothing, or a
new one nobody checks, fails here."""

from __future__ import annotations

import ast
import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests import live
from tests.conftest import ROOT

README = ROOT / "README.md"

# Commands not run here, each with why. Kept small on purpose (asserted below): setting up the
# environment this test already runs in, the suite itself, and a Dask cluster on named hosts.
NOT_RUN = {
    "python3 -m venv .venv && . .venv/bin/activate": "the environment this test runs in",
    'pip install -e ".[dev]"': "the environment this test runs in",
    'pip install -e ".[dask]"': "installed by .[dev] already",
    "python -m pytest": "the suite this test is part of",
    "dask scheduler --port 8786": "a cluster on other machines (tests/extract/test_cluster.py runs one)",
    "dask worker tcp://HOST:8786 --nworkers 16 --nthreads 1": "HOST is a placeholder",
    "paperkg build papers.jsonl.gz --store S --dask tcp://HOST:8786": "HOST is a placeholder",
}


def readme_blocks(language: str) -> list[list[str]]:
    """The lines of each of README's ```language blocks, in order."""
    blocks: list[list[str]] = []
    inside = False
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = line.strip() == f"```{language}"
            if inside:
                blocks.append([])
            continue
        if inside:
            blocks[-1].append(line)
    return blocks


def readme_commands() -> list[str]:
    """Every command line of README's ```bash blocks, comments removed, in order."""
    return [re.sub(r"\s+#\s.*$", "", line).strip()      # `  # a comment` dropped
            for block in readme_blocks("bash") for line in block if line.strip()]


def table_rows(output: str) -> list[dict[str, str]]:
    """Rows of `paperkg query` output piped (TSV) or with --csv."""
    lines = output.splitlines()
    if lines and "\t" not in lines[0] and "," in lines[0]:
        return list(csv.DictReader(io.StringIO(output)))
    return [dict(zip(lines[0].split("\t"), line.split("\t"), strict=True)) for line in lines[1:]]


def check(command: str, proc: subprocess.CompletedProcess[str], cwd: Path) -> None:
    """What README says `command` shows."""
    assert proc.returncode == 0, (command, proc.stderr)
    args = shlex.split(command)[1:]
    if args[0] == "build":
        assert proc.stdout.startswith("read "), (command, proc.stdout)
        if args[1] == "examples/abstracts":      # "278 abstracts, 250 distinct papers"
            assert proc.stdout.startswith("read 278 records: 250 new papers"), proc.stdout
        if args[1] == "examples/arxiv":          # "300 arXiv machine-learning abstracts"
            assert proc.stdout.startswith("read 300 records: 300 new papers"), proc.stdout
    elif args[0] == "stats":
        counts = json.loads(proc.stdout)
        assert counts["nodes"]["Paper"] > 0 and counts["edges"]["MENTIONS"] > 0
    elif args[0] == "query":
        rows = table_rows(proc.stdout)
        assert rows, (command, proc.stdout, proc.stderr)
        if args[1] == "timeline":                # "papers per year"
            assert {r["year"] for r in rows} <= {"2024", "2025", "2026"}
            assert all(int(r["papers"]) > 0 for r in rows)
        if args[1] == "trending":                # "what grew in 2025-26"
            assert all(r["since"] == "2025" and int(r["growth"]) > 0 for r in rows)
    elif args[0] == "extract":                   # "--html OUT": one page, every abstract
        source, out = Path(args[1]), cwd / args[args.index("--html") + 1]
        lines = (cwd / source).read_text(encoding="utf-8").splitlines()
        abstracts = [line for line in lines if line.strip()][1:]       # after the collection name
        page = out.read_text(encoding="utf-8")
        assert proc.stdout == "" and f"wrote {len(abstracts)} abstracts" in proc.stderr, proc.stderr
        assert page.count("<!DOCTYPE html>") == 1 and page.count("<figure") == len(abstracts) > 0
        assert "<script" not in page and "Method" in page
    elif args[0] == "export":
        out = cwd / args[2]
        assert out.stat().st_size > 0 and re.search(r"wrote [1-9]\d* nodes and [1-9]\d* edges", proc.stderr)
        assert out.read_text(encoding="utf-8").startswith("<?xml")
    elif args[0] == "curate" and args[1] in ("merge", "retype", "drop", "import"):
        assert "recorded" in proc.stdout and "papers derived again" in proc.stdout, (command, proc.stdout)
    elif args[0] == "curate" and args[1] == "list":   # the three corrections above, each applying
        lines = proc.stdout.splitlines()
        assert len(lines) == 3 and all(line.endswith("\tapplies") for line in lines), proc.stdout
    elif args[0] == "curate" and args[1] == "export":
        lines = [json.loads(line) for line in (cwd / args[2]).read_text(encoding="utf-8").splitlines()]
        assert [(line["version"], line["op"]) for line in lines] == [(1, "merge"), (1, "retype"), (1, "drop")]
    elif args[0] == "review":
        rows = [line.split("\t") for line in proc.stdout.splitlines()]
        assert len(rows) == 5 and all(r[3].startswith("suggested: ") for r in rows), proc.stdout
    else:
        pytest.fail(f"README command {command!r} has no check: add one to tests/test_readme.py")


def test_the_not_run_list_is_small_and_every_entry_is_in_readme() -> None:
    commands = readme_commands()
    assert len(NOT_RUN) <= 7
    assert [c for c in NOT_RUN if c not in commands] == []


def test_every_readme_command_shows_what_readme_says(tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}
    ran = []
    commands = readme_commands()
    for command in commands:
        if command in NOT_RUN:
            continue
        args = shlex.split(command)
        assert args[0] == "paperkg", f"README command {command!r} is neither run here nor in NOT_RUN"
        if args[1] == "serve":             # started as README says, asked for its pages, stopped
            store = str(tmp_path / "paperkg-store")           # the default store, as README runs it
            with live.serve(["--store", store], tmp_path / "serve.log") as (base, _):
                for page in ("/", "/docs", "/health"):
                    assert httpx.get(base + page, timeout=10).status_code == 200, page
            ran.append(command)
            continue
        proc = subprocess.run([sys.executable, "-m", "paperkg.api.cli", *args[1:]], cwd=tmp_path,
                              capture_output=True, text=True, env=env, timeout=600)
        check(command, proc, tmp_path)
        ran.append(command)
    assert len(ran) == len(commands) - len(NOT_RUN) >= 12, ran
    examples = readme_blocks("python")
    for code in ("\n".join(block) for block in examples):
        proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=600)
        assert proc.returncode == 0, (code, proc.stderr)
        check_example(code, proc.stdout.splitlines(), tmp_path, env)
    assert len(examples) == 3


def check_example(code: str, out: list[str], cwd: Path, env: dict[str, str]) -> None:
    """What README's Python examples print."""
    if "kg.merge(" in code:
        # after README's `curate` commands: their three corrections, then the example's
        papers, changed = out[0].split()
        assert int(papers) > 0 and changed == "True"
        assert out[1] == "method:ppo federated learning Model"
        assert ast.literal_eval(out[2])[3:] == ["merge 'PPO-clip' into 'PPO'",
                                                 "rename 'FL' to 'federated learning'",
                                                 "retype 'Vision Transformer' as Model"]
        assert out[3] == "6" and len((cwd / "my-corrections.jsonl").read_text().splitlines()) == 6
        assert out[4].split()[0] in {"low_confidence", "acronym_types", "plural_case"}
        listed = subprocess.run([sys.executable, "-m", "paperkg.api.cli", "curate", "list", "--json"],
                                cwd=cwd, capture_output=True, text=True, env=env, check=True)
        assert [line["op"] for line in json.loads(listed.stdout)][3:] == ["merge", "rename"]    # undone
    elif 'paperkg.open("paperkg-store")' in code:
        stats = subprocess.run([sys.executable, "-m", "paperkg.api.cli", "stats", "--json"], cwd=cwd,
                               capture_output=True, text=True, env=env, check=True)
        counts = json.loads(stats.stdout)
        assert out[0] == str(counts["nodes"]["Paper"]) == "250"
        grpo = "method:group-relative-policy-optimization ['GRPO', 'Group Relative Policy Optimization'] "
        assert any(line.startswith(grpo) for line in out), out
        # "an nx.MultiDiGraph of the whole graph": the counts of `paperkg stats`
        assert f"{sum(counts['nodes'].values())} {sum(counts['edges'].values())}" in out
        assert int(out[-1]) > 1                     # communities
    elif "paperkg.load_pipeline()" in code:
        assert out[0].startswith("[('Group Relative Policy Optimization', 'Method'), ('GRPO', 'Method')")
        assert out[1] == "[['Group Relative Policy Optimization', 'GRPO']]"
        assert "'EVALUATED_ON', 'MATH500'" in out[2]
        assert "GRPO" in (cwd / "grpo.html").read_text(encoding="utf-8")
        assert out[3] == "True" and out[4] == "[['Low-Rank Adaptation', 'LoRA']]"
        assert "'text': 'LoRA', 'type': 'Method'" in out[5]
    else:
        pytest.fail(f"README example has no check: add one to tests/test_readme.py\n{code}")
