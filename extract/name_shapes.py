"""Tokens shaped like names (CamelCase, ALLCAPS, letters with digits: `GRPO`, `ImageNet`, `C51`), the
weakest rule source (`shape`): typed by what the name says of itself, else Method."""

from __future__ import annotations

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import add_candidates, doc_text
from paperkg.extract.lexicon.shapes import (
    BENCH_NAME_RE,
    DATA_NAME_RE,
    MODIFIER_SUFFIX_RE,
    SHAPE_RE,
    SHAPE_STOP,
)


class NameShapeMatcher:
    """Pipeline component `paperkg_name_shapes`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        add_candidates(doc, find_name_shapes(doc))
        return doc


def name_shape_type(name: str) -> str:
    """`UnpredictaBench`, `SWE-bench`, `AlpacaEval` are benchmarks; `...Dataset`, `...Corpus` data sets."""
    if BENCH_NAME_RE.search(name):
        return "Benchmark"
    if DATA_NAME_RE.search(name):
        return "Dataset"
    return "Method"


def find_name_shapes(doc: Doc) -> list[Span]:
    """Name-shaped tokens, except stop-listed abbreviations, modifiers (`GRPO-based`) and URL parts."""
    spans = []
    text = doc_text(doc)
    for m in SHAPE_RE.finditer(text):
        name = m.group(0)
        if name in SHAPE_STOP or name.rstrip("s") in SHAPE_STOP:
            continue
        if MODIFIER_SUFFIX_RE.search(name):
            continue
        left = text[max(0, m.start() - 30):m.start()]
        if "github" in left.lower() or "http" in left.lower() or "www." in left:
            continue
        span = doc.char_span(m.start(), m.end(), label=name_shape_type(name), kb_id="shape")
        if span is not None:
            spans.append(span)
    return spans
