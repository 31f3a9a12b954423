"""The build job: read records, extract what is new, re-derive the graph, save it atomically.

It lives in `extract/` because it drives the spaCy pipeline; `graph/` stays free of spaCy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from paperkg.extract.readers import Problem, read_inputs
from paperkg.extract.version import extractor_fingerprint
from paperkg.graph.build import build_graph
from paperkg.graph.store import GraphStore


@dataclass
class BuildSummary:
    records: int = 0
    new_papers: int = 0
    extracted: int = 0
    reextracted: int = 0
    papers: int = 0
    saved: bool = False
    errors: int = 0
    warnings: int = 0
    stats: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "records": self.records, "new_papers": self.new_papers, "extracted": self.extracted,
            "reextracted": self.reextracted,
            "papers": self.papers, "saved": self.saved, "errors": self.errors,
            "warnings": self.warnings, "stats": self.stats,
        }


def ingest(
    paths: Sequence[str],
    store: GraphStore,
    report: Callable[[Problem], None],
    *,
    mode: str = "default",
    n_process: int = 1,
    dask: str | None = None,
    progress: Callable[[Iterable, int], Iterable] | None = None,
) -> BuildSummary:
    """Add the papers in `paths` to `store`. Bad records are reported and skipped; the store is
    written once, at the end, and only if something changed. With `dask` (a scheduler address or
    `local`) the new papers are extracted on that cluster; everything else happens here."""
    summary = BuildSummary()

    def counted(problem: Problem) -> None:
        if problem.severity == "error":
            summary.errors += 1
        else:
            summary.warnings += 1
        report(problem)

    corpus = store.load_corpus()
    before = len(corpus)
    changed = False
    for record in read_inputs(paths, counted):
        summary.records += 1
        try:
            _, record_changed = corpus.add(record)
        except ValueError as err:
            counted(Problem(record.source, record.line, str(err), "error"))
            continue
        changed |= record_changed
    summary.new_papers = len(corpus) - before

    fingerprint = extractor_fingerprint(mode)
    todo = [entry for entry in corpus if entry.needs_extraction(fingerprint)]
    summary.reextracted = sum(1 for entry in todo if entry.extraction is not None)
    if todo:
        from paperkg.extract.pipeline import Extractor

        extractor = Extractor(mode=mode, n_process=n_process, dask=dask)
        results = extractor.extract((entry.id, entry.abstract) for entry in todo)
        pairs = zip(todo, results, strict=True)
        for entry, extraction in (progress(pairs, len(todo)) if progress else pairs):
            extraction.extractor = fingerprint
            entry.extraction = extraction
            summary.extracted += 1
    if changed or todo:
        graph = build_graph(corpus)
        store.save(corpus, graph)
        summary.saved = True
    summary.papers = len(corpus)
    summary.stats = store.stats()
    return summary
