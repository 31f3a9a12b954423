"""What the tests of stores on special mounts (read-only, a full tmpfs) share: the CLI as a shell
command for `unshare -m sh -c`, its environment, and the real store they mount."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARXIV = ROOT / "examples" / "arxiv" / "abstracts.jsonl"


def cli_env() -> dict[str, str]:
    """The environment without the session's `PAPERKG_` settings."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}


def paperkg(*args: str) -> str:
    """`paperkg ARGS` as one shell command line."""
    return shlex.join([sys.executable, "-m", "paperkg.api.cli", *args])


def build_example_store(store: Path) -> Path:
    """The 300 bundled arXiv abstracts built in rules mode into `store`."""
    done = subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", str(ARXIV), "--mode", "rules",
                           "--store", str(store)], capture_output=True, text=True, env=cli_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    return store
