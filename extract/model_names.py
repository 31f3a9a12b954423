"""Versioned model names (`Qwen2.5-7B-Instruct`, `LLaMA3.1-8B`, `GPT-4o`, `ResNet-50`): a known family
with version and size parts, or any capitalised name with a size suffix (`Name-7B`). Source `model`."""

from __future__ import annotations

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import add_candidates, doc_text
from paperkg.extract.lexicon.models import MODEL_RE, SIZED_RE


class ModelNameMatcher:
    """Pipeline component `paperkg_model_names`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        add_candidates(doc, find_model_names(doc))
        return doc


def find_model_names(doc: Doc) -> list[Span]:
    """Model-name candidates of the text, a trailing period left out."""
    spans = []
    text = doc_text(doc)
    for rx in (MODEL_RE, SIZED_RE):
        for m in rx.finditer(text):
            name = m.group(0).rstrip(".")
            span = doc.char_span(m.start(), m.start() + len(name), label="Model", kb_id="model")
            if span is not None:
                spans.append(span)
    return spans
