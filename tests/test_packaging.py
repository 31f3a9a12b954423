"""What a non-editable install (a wheel) holds: setuptools copies only the packages pyproject lists, so a
package folder missing there works in the editable checkout and is absent for users (api/routers was:
`paperkg serve` failed from a wheel). And `import paperkg`, which every `import paperkg.graph` runs
first, stays an empty shell that loads nothing."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.conftest import ROOT


def _package_dirs() -> dict[str, str]:
    """Every listed package and the folder setuptools takes it from."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    mapped: dict[str, str] = config["package-dir"]
    out = {}
    for package in config["packages"]:
        parent = max((p for p in mapped if package == p or package.startswith(p + ".")), key=len)
        out[package] = "/".join([mapped[parent], *package[len(parent):].split(".")[1:]])
    return out


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    listed = set(_package_dirs().values())
    folders = {str(p.parent.relative_to(ROOT)) for top in ("graph", "extract", "queries", "api")
               for p in (ROOT / top).rglob("__init__.py") if "node_modules" not in p.parts}
    assert folders == listed


def test_import_paperkg_loads_nothing_else() -> None:
    code = ("import sys, paperkg, paperkg.graph.model; "
            "print(sorted(m for m in sys.modules if m.startswith(('paperkg', 'spacy', 'networkx'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    loaded = out.stdout
    assert "spacy" not in loaded and "paperkg.api" not in loaded and "paperkg.extract" not in loaded, loaded
