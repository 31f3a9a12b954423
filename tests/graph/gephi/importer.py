"""Gephi's own importer (gephi-toolkit 0.10.1) as a test oracle: import a GraphML or GEXF file with
Gephi's default options and report what Gephi kept (standard library only; no pytest here).

`GephiImporter.find()` locates the single `gephi-toolkit-0.10.1-all.jar` in the local Maven
repository, fetching it with Maven when it is missing (`-Dtransitive=false`: the normal artifact's
transitive `net.java.dev:stax-utils` lives on a host that cannot be reached; the `all` jar bundles
everything), then compiles `GephiImport.java` once into a temporary directory. `.ci/run` fetches
the jar before the tests, so in CI this never has to.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ARTIFACT = "org.gephi:gephi-toolkit:0.10.1:jar:all"
SOURCE = Path(__file__).resolve().parent / "GephiImport.java"
_FETCH_TIMEOUT_S = 900
_RUN_TIMEOUT_S = 300


def _jar_path() -> Path:
    repo = os.environ.get("MAVEN_REPO_LOCAL") or str(Path.home() / ".m2" / "repository")
    return Path(repo) / "org/gephi/gephi-toolkit/0.10.1/gephi-toolkit-0.10.1-all.jar"


class GephiUnavailable(RuntimeError):
    """Java, javac or Maven is missing, or the jar could not be fetched or the program compiled."""


@dataclass(frozen=True)
class GephiImporter:
    jar: Path
    classes: Path

    @classmethod
    def find(cls) -> GephiImporter:
        for tool in ("java", "javac"):
            if shutil.which(tool) is None:
                raise GephiUnavailable(f"{tool} is not installed")
        jar = _jar_path()
        if not jar.is_file():
            if shutil.which("mvn") is None:
                raise GephiUnavailable(f"{jar} is missing and Maven is not installed to fetch it")
            fetched = subprocess.run(
                ["mvn", "-q", "-B", "dependency:get", f"-Dartifact={ARTIFACT}", "-Dtransitive=false"],
                capture_output=True, text=True, timeout=_FETCH_TIMEOUT_S, check=False)
            if fetched.returncode != 0 or not jar.is_file():
                raise GephiUnavailable(f"mvn could not fetch {ARTIFACT}: {fetched.stdout[-2000:]}")
        classes = Path(tempfile.mkdtemp(prefix="paperkg-gephi-"))
        compiled = subprocess.run(["javac", "-cp", str(jar), "-d", str(classes), str(SOURCE)],
                                  capture_output=True, text=True, timeout=_RUN_TIMEOUT_S, check=False)
        if compiled.returncode != 0:
            raise GephiUnavailable(f"javac failed: {compiled.stderr[-2000:]}")
        return cls(jar, classes)

    def import_file(self, path: Path) -> dict[str, Any]:
        """`{"nodes", "edges", "dynamic", "edge_kinds", "first", "issues"}` as Gephi saw the file
        (see GephiImport.java). The file's suffix picks Gephi's importer."""
        ran = subprocess.run(
            ["java", "-Djava.awt.headless=true", "-Xmx1g", "-cp", f"{self.jar}{os.pathsep}{self.classes}",
             "GephiImport", str(path)],
            capture_output=True, text=True, timeout=_RUN_TIMEOUT_S, check=False)
        if ran.returncode != 0:
            raise AssertionError(f"Gephi's importer failed on {path}: {ran.stderr[-3000:]}")
        return json.loads(ran.stdout.strip().splitlines()[-1])

    def close(self) -> None:
        shutil.rmtree(self.classes, ignore_errors=True)
