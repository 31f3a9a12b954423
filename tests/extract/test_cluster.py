"""Extraction on a real Dask cluster: a scheduler and two worker processes started as a user would
(`dask scheduler`, `dask worker`), on loopback. No mocks: the tasks run in those processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import distributed
import pytest
from click.testing import CliRunner

from paperkg.api.cli import main
from paperkg.extract.pipeline import Extractor
from paperkg.graph.errors import ClusterUnavailableError
from tests.live import free_port

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "abstracts"


def _dask(*args: str) -> subprocess.Popen:
    """`dask scheduler ...` / `dask worker ...` through this interpreter (the venv's Dask)."""
    return subprocess.Popen([sys.executable, "-m", "dask", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    sched = _dask("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    workers = _dask("worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                    "--host", "127.0.0.1")
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with distributed.Client(address, timeout="5s") as client:
                    if len(client.nthreads()) >= 2:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or sched.poll() is not None or workers.poll() is not None:
                pytest.fail("the Dask scheduler and two workers did not come up within 120 s")
            time.sleep(1)
        yield address
    finally:
        _stop(workers)
        _stop(sched)


def _extract_batch_tasks(address: str) -> int:
    """How many `extract_batch` tasks finished on the cluster: the scheduler's own transition log,
    not anything this process counted."""
    def count(dask_scheduler) -> int:  # runs inside the scheduler process
        return len({entry[0] for entry in dask_scheduler.transition_log
                    if str(entry[0]).startswith("extract_batch-") and entry[2] == "memory"})

    with distributed.Client(address, timeout="10s") as client:
        return client.run_on_scheduler(count)


def _export(store: Path) -> tuple[str, bytes]:
    runner = CliRunner()
    stats = runner.invoke(main, ["stats", "--json", "--store", str(store)])
    assert stats.exit_code == 0, stats.output
    graphml = runner.invoke(main, ["export", "graphml", "-", "--store", str(store)])
    assert graphml.exit_code == 0, graphml.output
    return stats.output, graphml.stdout_bytes


@pytest.mark.slow
def test_build_on_dask_equals_the_local_build(scheduler: str, tmp_path: Path) -> None:
    runner = CliRunner()
    before = _extract_batch_tasks(scheduler)
    local = runner.invoke(main, ["build", str(EXAMPLES), "--store", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    on_dask = runner.invoke(main, ["build", str(EXAMPLES), "--store", str(tmp_path / "dask"),
                                   "--dask", scheduler])
    assert on_dask.exit_code == 0, on_dask.output
    assert "250 papers in the store" in on_dask.output
    assert _export(tmp_path / "dask") == _export(tmp_path / "local")
    # 250 abstracts in batches of 64: the scheduler ran them, this process did not
    assert _extract_batch_tasks(scheduler) - before >= 4


def _seed_abstracts() -> list[tuple[str, str]]:
    pairs = []
    for path in sorted(EXAMPLES.glob("*.txt")):
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        pairs.extend((f"{path.stem}-{i}", text) for i, text in enumerate(lines[1:]))
    return pairs


@pytest.mark.slow
def test_a_worker_killed_mid_build_costs_a_retry_not_the_build(scheduler: str) -> None:
    pairs = _seed_abstracts()
    expected = list(Extractor(mode="rules").extract(pairs))
    with distributed.Client(scheduler, timeout="10s") as client:
        pids = sorted(client.run(os.getpid).values())
    results = Extractor(mode="rules", batch_size=4, dask=scheduler).extract(pairs)
    got = [next(results)]
    os.kill(pids[0], signal.SIGKILL)  # one worker process dies with batches in its hands
    got.extend(results)
    assert got == expected


def test_an_unreachable_scheduler_is_one_clear_error() -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(ClusterUnavailableError, match="cannot reach the Dask scheduler"):
        list(Extractor(mode="rules", dask=address).extract([("a", "We propose GRPO.")]))
