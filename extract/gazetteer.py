"""Curated and mined names (`data/gazetteer.tsv`) matched with spaCy's PhraseMatcher: names with capitals
only as written (source `gaz_exact`: `REINFORCE`, not the verb), lower-case task, metric and method phrases
in any case (`gaz_lower`).

Like spaCy's `span_ruler`, the component saves its entries with the pipeline (`to_disk`) and reads them
back (`from_disk`), so a saved pipeline needs no file outside its directory.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import CANDS

DATA_DIR = Path(__file__).parent / "data"
FILE_NAME = "gazetteer.tsv"


def load_gazetteer(path: Path) -> dict[str, list[str]]:
    """type -> names, from `name<TAB>type[<TAB>case]` lines; `#` comments."""
    out: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            out.setdefault(parts[1], []).append(parts[0])
    return out


class GazetteerMatcher:
    """Pipeline component `paperkg_gazetteer`: labels are entity types."""

    def __init__(self, nlp: Language, name: str, *, path: str | None = None,
                 lower_types: Iterable[str] = ("Metric", "Task", "Method")) -> None:
        self.name = name
        self.vocab = nlp.vocab
        self.tokenizer = nlp.tokenizer
        self.lower_types = set(lower_types)
        self.path = Path(path) if path else DATA_DIR / FILE_NAME
        self.exact: PhraseMatcher | None = None  # built on first use: `spacy.load` reads entries once
        self.lower: PhraseMatcher | None = None

    def _load(self, path: Path) -> None:
        self.path = path
        gaz = load_gazetteer(path)
        self.exact = PhraseMatcher(self.vocab, attr="ORTH")
        self.lower = PhraseMatcher(self.vocab, attr="LOWER")
        for etype, names in gaz.items():
            # phrases written in lower case (`knowledge distillation`) match any case; names with
            # capitals (`REINFORCE`, `ImageNet`) only as written, so that `reinforce` the verb is no name
            lower = [n for n in names if etype in self.lower_types and n == n.lower()]
            exact = [n for n in names if not (etype in self.lower_types and n == n.lower())]
            if lower:
                self.lower.add(etype, self._pattern_docs(lower))
            if exact:
                self.exact.add(etype, self._pattern_docs(exact))

    def _pattern_docs(self, names: list[str]) -> list[Doc]:
        """The names tokenized without entering the tokenizer's cache. spaCy's tokenizer caches at
        most `max_cache_size` (10,000) text chunks and never evicts one: the gazetteer's 12k names,
        tokenized before the first abstract, filled it, and every abstract's words were then
        tokenized from scratch (the tokenizer ran 3x slower inside the pipeline than alone)."""
        size = self.tokenizer.max_cache_size
        self.tokenizer.max_cache_size = 0
        try:
            return list(self.tokenizer.pipe(names))
        finally:
            self.tokenizer.max_cache_size = size

    def __call__(self, doc: Doc) -> Doc:
        if self.exact is None:
            self._load(self.path)
        spans = list(doc.spans[CANDS]) if CANDS in doc.spans else []
        for matcher, source in ((self.exact, "gaz_exact"), (self.lower, "gaz_lower")):
            for match_id, start, end in matcher(doc):
                spans.append(Span(doc, start, end, label=match_id, kb_id=source))
        doc.spans[CANDS] = spans
        return doc

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if self.path.resolve() != (path / FILE_NAME).resolve():
            shutil.copyfile(self.path, path / FILE_NAME)

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> GazetteerMatcher:
        self._load(Path(path) / FILE_NAME)
        return self
