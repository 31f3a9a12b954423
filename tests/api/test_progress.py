"""`paperkg build` says what it does at once and shows a bar whose ETA is honest; `--quiet` and
non-terminals get no progress at all."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperkg.api.cli import new_bar, progress_bar
from tests.conftest import EXAMPLES


def test_the_eta_leaves_out_the_loading_and_follows_the_rate() -> None:
    """100 s of pipeline loading, then 1 s an abstract for 100 abstracts: from the first 10% on,
    the ETA is within 2x of the time really left (a clock started with the bar said ~990 s at 10%)."""
    now = [0.0]

    def abstracts() -> Iterator[int]:
        now[0] += 100.0
        for i in range(100):
            now[0] += 1.0
            yield i

    bar = new_bar(file=io.StringIO(), get_time=lambda: now[0])
    seen = []
    for done, _ in enumerate(progress_bar(abstracts(), 100, bar=bar)):
        if done >= 10:
            left = 100 - done
            eta = bar.tasks[0].time_remaining
            assert eta is not None and left / 2 <= eta <= left * 2, (done, eta)
            seen.append(done)
    assert len(seen) == 90 and bar.tasks[0].completed == 100


@pytest.fixture(scope="module")
def some_abstracts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = sorted(EXAMPLES.iterdir())[0].read_text(encoding="utf-8").splitlines()
    lines = [line for line in source if line.strip()]
    path = tmp_path_factory.mktemp("progress") / "some.txt"
    path.write_text("\n".join(lines[:31]) + "\n", encoding="utf-8")      # a name, then 30 lines
    return path


def build_with_stderr_on(terminal: bool, inputs: Path, store: Path, *extra: str) -> tuple[int, str, str]:
    """`paperkg build`, its stderr a terminal (a pseudo-terminal) or a pipe; exit code, stdout, stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")} | {"COLUMNS": "120"}
    args = [sys.executable, "-m", "paperkg.api.cli", "build", str(inputs), "--store", str(store), *extra]
    if not terminal:
        proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
        return proc.returncode, proc.stdout, proc.stderr
    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:                 # read as it comes: a full pty buffer would block the build
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=follower, env=env, timeout=300)
    os.close(follower)
    reader.join(10)
    os.close(leader)
    return proc.returncode, proc.stdout.decode(), b"".join(chunks).decode("utf-8", "replace")


def test_a_terminal_hears_of_the_loading_at_once_then_sees_the_bar(some_abstracts: Path,
                                                                  tmp_path: Path) -> None:
    code, out, err = build_with_stderr_on(True, some_abstracts, tmp_path / "store")
    assert code == 0, err
    first = re.match(r"paperkg: loading the extractor to extract (\d+) abstracts \.\.\.\r?\n", err)
    assert first, err[:200]
    n = first.group(1)
    assert f"{n}/{n}\x1b[0m abstracts" in err or f"{n}/{n} abstracts" in err, err[-300:]
    assert f"{n} extracted" in out


def test_quiet_and_pipes_get_no_progress(some_abstracts: Path, tmp_path: Path) -> None:
    code, out, err = build_with_stderr_on(True, some_abstracts, tmp_path / "quiet", "--quiet")
    assert (code, err) == (0, ""), err
    assert out.startswith("read ")
    code, out, err = build_with_stderr_on(False, some_abstracts, tmp_path / "piped")
    assert (code, err) == (0, ""), err
    assert out.startswith("read ")
