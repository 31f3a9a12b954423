"""Data flows one way: reader -> extract -> graph -> queries -> api. Every import in every module
(at the top or inside a function) is read with `ast`, so a back-edge added anywhere fails here,
not in a review."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the Neo4j store is one module per job (graph/neo4j_store.py composes them)
NEO4J_JOBS = ("store", "connection", "cypher", "lease", "schema", "rows", "delta", "full", "figure_writer",
              "reader", "queries")
STORES = ("paperkg.graph.store", "paperkg.graph.embedded", "paperkg.graph.state",
          *(f"paperkg.graph.neo4j_{job}" for job in NEO4J_JOBS))


def _imports(path: Path, source: str | None = None) -> set[str]:
    """Every module `path` (or `source`, as if it were at `path`) imports, relative imports made
    absolute."""
    package = "paperkg." + ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _modules(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "node_modules" not in p.parts)


def _hits(imports: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(i for i in imports if any(i == p or i.startswith(p + ".") for p in prefixes))


@pytest.mark.parametrize(("package", "forbidden"), [
    ("graph", ("paperkg.extract", "paperkg.queries", "paperkg.api", "spacy")),
    ("queries", ("paperkg.extract", "paperkg.api", "spacy")),
    ("extract", ("paperkg.queries", "paperkg.api", *STORES)),
    ("api", ("spacy",)),
])
def test_no_package_imports_a_later_layer(package: str, forbidden: tuple[str, ...]) -> None:
    wrong = {str(p.relative_to(ROOT)): hits for p in _modules(package)
             if (hits := _hits(_imports(p), forbidden))}
    assert not wrong, wrong


def test_one_build_module_imports_both_the_extractor_and_the_build_state() -> None:
    both = [str(p.relative_to(ROOT)) for p in _modules("api")
            if _hits(_imports(p), ("paperkg.extract",)) and _hits(_imports(p), STORES)]
    assert both == ["api/build.py"]


@pytest.mark.parametrize(("source", "module"), [
    ("def f():\n    from ..extract import pipeline\n", "paperkg.extract.pipeline"),
    ("from . import embedded\n", "paperkg.graph.embedded"),
    ("import paperkg.api.cli as cli\n", "paperkg.api.cli"),
])
def test_the_import_reader_sees_relative_and_nested_imports(source: str, module: str) -> None:
    """The checks above can fail: an import inside a function, relative or absolute, is found."""
    assert module in _imports(ROOT / "graph" / "probe.py", source)
