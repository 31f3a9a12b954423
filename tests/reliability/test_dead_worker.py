"""A `--jobs 2` build whose worker process is killed (issue 28, finding 1), as the OOM killer would:
the build must finish (its lost batch retried by fresh workers) with the graph of all its papers,
not sit at 0 % CPU holding the store's write lock, and the next build of the store must proceed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]
ARXIV = ROOT / "examples" / "arxiv" / "abstracts.jsonl"
N = 2400


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "paperkg.api.cli", *args]


def _corpus(path: Path, n: int, start: int = 0) -> Path:
    """`n` distinct abstracts: the arXiv sample's, each with a numbered sentence added."""
    base = [json.loads(line) for line in ARXIV.read_text().splitlines() if line.strip()]
    with path.open("w") as out:
        for i in range(start, start + n):
            record = base[i % len(base)]
            out.write(json.dumps({"id": f"w{i}", "abstract": f"{record['abstract']} Variant {i}."}) + "\n")
    return path


def _children(build: psutil.Process) -> list[psutil.Process]:
    """The build's extraction workers: forks of it (same command line), not helpers such as
    multiprocessing's resource tracker."""
    found = []
    for child in build.children():
        try:
            if child.cmdline() == build.cmdline():
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def _workers(build: psutil.Process, timeout: float) -> list[psutil.Process]:
    """The build's worker processes once both are extracting (have used CPU after loading)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = _children(build)
        if len(children) >= 2:
            try:
                if all(c.cpu_times().user > 1.0 for c in children):
                    return children
            except psutil.NoSuchProcess:
                pass
        time.sleep(0.1)
    raise AssertionError("the build never started two extracting workers")


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_killed_worker_costs_a_retry_not_a_hang(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "in.jsonl", N)
    store = tmp_path / "store"
    build = subprocess.Popen(_cmd("build", str(corpus), "--mode", "rules", "--jobs", "2", "--store",
                                  str(store), "--json"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                             start_new_session=True)
    try:
        victim = _workers(psutil.Process(build.pid), timeout=120)[0]
        victim.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        try:
            out, err = build.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail("the build hangs after one of its workers was killed")
    finally:
        _stop(build)
    assert build.returncode == 0, err
    assert "worker process died" in err
    summary = json.loads(out)
    assert summary["stats"]["nodes"]["Paper"] == N, summary
    assert time.monotonic() - killed < 240

    # the lock is free: the next build proceeds at once and adds its papers
    more = _corpus(tmp_path / "more.jsonl", 50, start=N)
    done = subprocess.run(_cmd("build", str(more), "--mode", "rules", "--store", str(store), "--json"),
                          capture_output=True, text=True, env=_env(), timeout=240)
    assert done.returncode == 0, done.stderr
    assert "waiting for another build" not in done.stderr
    assert json.loads(done.stdout)["stats"]["nodes"]["Paper"] == N + 50


def test_a_batch_that_keeps_killing_workers_stops_the_build_in_seconds(tmp_path: Path) -> None:
    """Every worker killed as soon as it starts (a machine out of memory): the build stops after
    three pools died under the same batches, with a message naming what to do, releases the store,
    and leaves it as it was (no build yet)."""
    corpus = _corpus(tmp_path / "in.jsonl", N)
    store = tmp_path / "store"
    build = subprocess.Popen(_cmd("build", str(corpus), "--mode", "rules", "--jobs", "2", "--store",
                                  str(store)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                             start_new_session=True)
    try:
        parent = psutil.Process(build.pid)
        deadline = time.monotonic() + 120
        while build.poll() is None and time.monotonic() < deadline:
            for child in _children(parent):
                with contextlib.suppress(psutil.NoSuchProcess):
                    child.send_signal(signal.SIGKILL)
            time.sleep(0.02)
        try:
            _, err = build.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("the build hangs after its workers were killed")
    finally:
        _stop(build)
    assert build.returncode == 69, err
    assert "died 3 times" in err and "fewer --jobs" in err
    done = subprocess.run(_cmd("build", str(_corpus(tmp_path / "small.jsonl", 20)), "--mode", "rules",
                               "--store", str(store), "--json"),
                          capture_output=True, text=True, env=_env(), timeout=240)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["stats"]["nodes"]["Paper"] == 20


def test_a_killed_build_leaves_no_workers_and_the_next_build_takes_over(tmp_path: Path) -> None:
    """The build process itself killed mid-extraction: its workers go with it (instead of waiting
    for work for ever, a pipeline each), and the next build takes the store over, saying so."""
    corpus = _corpus(tmp_path / "in.jsonl", N)
    store = tmp_path / "store"
    build = subprocess.Popen(_cmd("build", str(corpus), "--mode", "rules", "--jobs", "2", "--store",
                                  str(store)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                             start_new_session=True)
    workers: list[psutil.Process] = []
    try:
        workers = _workers(psutil.Process(build.pid), timeout=120)
        build.send_signal(signal.SIGKILL)
        build.wait()
        _, alive = psutil.wait_procs(workers, timeout=10)
        assert not alive, "the killed build's workers are still running"
    finally:
        for worker in workers:
            if worker.is_running():
                worker.kill()
        _stop(build)
    done = subprocess.run(_cmd("build", str(corpus), "--mode", "rules", "--store", str(store), "--json"),
                          capture_output=True, text=True, env=_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"by process {build.pid} stopped before it finished" in done.stderr
    assert "waiting for another build" not in done.stderr
    assert json.loads(done.stdout)["stats"]["nodes"]["Paper"] == N
