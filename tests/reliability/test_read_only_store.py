"""A store that cannot be written can still be read (issue 28, finding 4).

Readers (`stats`, `query`, `export`, `serve`) open the database read-only, so a store on a
read-only mount or on a full disk answers; only a build needs write access (and says so, exit 73).
Root writes through file permissions, so the read-only store here is a read-only bind mount and the
full disk a full tmpfs, each in a mount namespace of its own (`unshare -m`).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.mounts import ROOT, build_example_store, cli_env, paperkg


def _in_namespace(script: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                          env=cli_env(), timeout=timeout)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1)")
    tmp = tmp_path_factory.mktemp("ro")
    probe = _in_namespace(f"mount -t tmpfs -o size=1m tmpfs {shlex.quote(str(tmp))}")
    if probe.returncode != 0:
        pytest.skip(f"cannot mount here: {probe.stderr.strip()}")
    return build_example_store(tmp / "store")


def _read_only_mount(store: Path, mount: Path) -> str:
    mount.mkdir()
    src, dst = shlex.quote(str(store)), shlex.quote(str(mount))
    return f"mount --bind {src} {dst} && mount -o remount,ro,bind {dst}"


def _full_disk(store: Path, mount: Path) -> str:
    mount.mkdir()
    dst = shlex.quote(str(mount))
    return (f"mount -t tmpfs -o size=24m tmpfs {dst} && cp -r {shlex.quote(str(store))}/. {dst} && "
            f"(dd if=/dev/zero of={dst}/fill bs=64k 2>/dev/null; true)")


@pytest.mark.parametrize("setup", [_read_only_mount, _full_disk], ids=["read-only mount", "full disk"])
def test_stats_query_and_export_answer(store, tmp_path, setup):
    mount = tmp_path / "mnt"
    out = tmp_path / "out.graphml"
    steps = [setup(store, mount),
             paperkg("stats", "--json", "--store", str(mount)),
             paperkg("query", "top_entities", "--param", "type=Method", "--param", "limit=3", "--json",
                      "--store", str(mount)),
             paperkg("export", "graphml", str(out), "--store", str(mount))]
    done = _in_namespace(" && echo '#' && ".join(steps))
    assert done.returncode == 0, done.stderr
    stats, top = (json.loads(part) for part in done.stdout.split("#\n")[1:3])
    assert stats["nodes"]["Paper"] == 300
    assert len(top) == 3
    assert out.stat().st_size > 100_000


def test_a_build_into_a_read_only_store_says_it_cannot_write(store, tmp_path):
    mount = tmp_path / "mnt"
    done = _in_namespace(_read_only_mount(store, mount) + " && "
                         + paperkg("build", str(ROOT / "examples" / "abstracts"), "--mode", "rules",
                                    "--store", str(mount)))
    assert done.returncode == 73, done.stderr
    assert "cannot write the store" in done.stderr


def test_serve_answers_from_a_read_only_store(store, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mount = tmp_path / "mnt"
    base = f"http://127.0.0.1:{port}"
    client = (f"import json, time, urllib.request\n"
              f"for _ in range(600):\n"
              f"    try:\n"
              f"        urllib.request.urlopen('{base}/health', timeout=2); break\n"
              f"    except Exception: time.sleep(0.1)\n"
              f"for path in ('/health', '/stats', '/queries/top_entities?type=Method&limit=2'):\n"
              f"    with urllib.request.urlopen('{base}' + path, timeout=30) as r:\n"
              f"        print(r.status, json.dumps(json.load(r)))\n")
    script = " && ".join([
        _read_only_mount(store, mount),
        f"({paperkg('serve', '--port', str(port), '--store', str(mount))} >/dev/null "
        f"2>{tmp_path}/log & echo $! > {tmp_path}/pid)",
        shlex.join([sys.executable, "-c", client]),
    ]) + f"; rc=$?; kill $(cat {tmp_path}/pid); exit $rc"
    done = _in_namespace(script, timeout=180)
    log = (tmp_path / "log").read_text()
    assert done.returncode == 0, done.stderr[-2000:] + log[-2000:]
    lines = done.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["200"] * 3, done.stdout + log[-2000:]
    assert json.loads(lines[1].split(" ", 1)[1])["nodes"]["Paper"] == 300


def test_another_users_store_answers(store):
    """Run as `nobody` on root's store (a directory nobody may write): reads answer, a build says
    it cannot write. Needs a world-readable place and `setpriv`."""
    import tempfile

    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv(1) to run as another user")
    place = Path(tempfile.mkdtemp(prefix="paperkg-other-"))
    # `nobody` must reach this checkout and its environment: a clone in a `mktemp -d` folder (mode 700)
    # is closed to other users, so its closed ancestors are opened for traversal during the test only
    closed = {p: p.stat().st_mode for d in (ROOT, Path(sys.prefix)) for p in (d, *d.parents)
              if not p.stat().st_mode & 0o001}
    try:
        for p, mode in closed.items():
            p.chmod(mode | 0o001)
        place.chmod(0o755)
        shutil.copytree(store, place / "store")
        (place / "store").chmod(0o755)
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                  "paperkg.api.cli"]
        read = subprocess.run([*nobody, "stats", "--json", "--store", str(place / "store")],
                              capture_output=True, text=True, env=cli_env(), timeout=120, cwd=place)
        if "Permission denied" in read.stderr and "python" in read.stderr:
            pytest.skip("nobody cannot run this Python environment")
        assert read.returncode == 0, read.stderr
        assert json.loads(read.stdout)["nodes"]["Paper"] == 300
        write = subprocess.run([*nobody, "build", str(ROOT / "examples" / "abstracts"), "--mode", "rules",
                                "--store", str(place / "store")], capture_output=True, text=True,
                               env=cli_env(), timeout=120, cwd=place)
        assert write.returncode == 73 and "cannot write the store" in write.stderr, write.stderr
    finally:
        for p, mode in closed.items():
            p.chmod(mode)
        shutil.rmtree(place)
