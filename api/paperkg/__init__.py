"""paperkg from Python: open a built graph, ask it the catalog's queries, take it to networkx and
pandas, build and extract as the CLI does, and use the extractor as a spaCy pipeline.

    import paperkg

    kg = paperkg.open("paperkg-store")              # or a Neo4j URI: paperkg.open("bolt://host:7687")
    kg.stats()
    kg.query("evaluated_on", name="MATH500").to_pandas()
    g = kg.networkx()                               # nx.MultiDiGraph
    paperkg.build(["more.jsonl"], store="paperkg-store")
    paperkg.extract(["We propose Foo, evaluated on MATH500."])
    nlp = paperkg.load_pipeline()                   # a spaCy Language

This module is installed as the top-level `paperkg` package (pyproject maps it from api/paperkg/).
Every `import paperkg.graph` (or `.extract`, ...) runs it first, so it imports nothing: each name is
loaded on first use (PEP 562), and opening a store or running a query never imports spaCy. The
implementations live in their layers: `paperkg.api.library` (opening, queries, builds) and
`paperkg.extract` (the extractor, spaCy).

`paperkg.extract` is both the extractor's package and the function the CLI's `paperkg extract` is:
a submodule import makes the package the `extract` attribute of `paperkg`, so the package itself is
callable (`paperkg.extract(texts)` is `paperkg.extract.pipeline.extract_texts(texts)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paperkg.api.library import BuildSummary, PaperKG, Rows, build, open
    from paperkg.extract.pipeline import extract_texts as extract
    from paperkg.extract.pipeline import load_pipeline
    from paperkg.graph.records import Extraction

__all__ = [
    "BuildSummary",
    "Extraction",
    "PaperKG",
    "Rows",
    "__version__",
    "build",
    "extract",
    "load_pipeline",
    "open",
]

_LIBRARY = ("BuildSummary", "PaperKG", "Rows", "build", "open")


def __getattr__(name: str) -> Any:
    if name in _LIBRARY:
        from paperkg.api import library

        return getattr(library, name)
    if name == "extract":
        from importlib import import_module

        return import_module("paperkg.extract")      # callable: see the module docstring
    if name == "load_pipeline":
        from paperkg.extract.pipeline import load_pipeline

        return load_pipeline
    if name == "Extraction":
        from paperkg.graph.records import Extraction

        return Extraction
    if name == "__version__":
        from importlib.metadata import version

        return version("paperkg")
    raise AttributeError(f"module 'paperkg' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
