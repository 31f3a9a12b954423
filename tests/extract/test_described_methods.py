"""Unnamed methods a paper introduces become Method mentions (`described_methods.py`): which phrases,
trimmed how, and how the component adds one beside the mentions the scorer found."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Span

from paperkg.extract.described_methods import described_method
from paperkg.extract.doc_utils import FINAL

# sentences of real abstracts of the training gold, and the phrase gold hangs its relations off
CASES = [
    ("Motivated by these observations, we propose a two-stage pruning framework consisting of "
     "coarse and fine stages.", "two-stage pruning framework"),
    ("Using ImageNet and several other large-scale datasets, we propose a novel baseline method that "
     "fully exploits the data.", "baseline method"),
    ("In this work, we introduce the first training-free algorithm for online token budgets.",
     "training-free algorithm"),
    ("In this paper, we present a novel generative dataset distillation method that can be trained fast.",
     "generative dataset distillation method"),
    ("We propose an innovative active learning framework that mitigates the cost.",
     "active learning framework"),
    ("Built on this formulation, we propose a self-evolving framework with a fully automatic loop.",
     "self-evolving framework"),
    # names are the name rules' job; praise alone or a bare head is no method
    ("To this end, we introduce GReaTer, a novel prompt optimization method.", None),
    ("This paper introduces the Re-TASK framework for capability decomposition.", None),
    ("We propose a novel method for long-context retrieval.", None),
    ("We propose a simple yet effective approach.", None),
    ("Prior work proposed a two-stage pruning framework.", None),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_described_method(text: str, expected: str | None) -> None:
    found = described_method(text)
    assert (text[found[0]:found[1]] if found else None) == expected


def _doc_with_mentions(text: str, names: list[tuple[str, str, float]]) -> spacy.tokens.Doc:
    nlp = spacy.blank("en")
    doc = nlp(text)
    spans = []
    for name, label, _ in names:
        start = text.index(name)
        spans.append(doc.char_span(start, start + len(name), label=label))
    doc.spans[FINAL] = spans
    doc._.paperkg_confidence = [c for *_, c in names]
    return doc


def test_component_adds_the_phrase_in_document_order_with_its_confidence() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("paperkg_described_methods", config={"confidence": 0.42})
    text = ("Large language models struggle with long inputs. We propose a two-stage pruning framework for "
            "them and evaluate it on LongBench.")
    doc = nlp(_doc_with_mentions(text, [("Large language models", "Model", 0.9),
                                        ("LongBench", "Benchmark", 0.8)]))
    spans: list[Span] = list(doc.spans[FINAL])
    assert [(s.text, s.label_) for s in spans] == [
        ("Large language models", "Model"), ("two-stage pruning framework", "Method"),
        ("LongBench", "Benchmark")]
    assert doc._.paperkg_confidence == [0.9, 0.42, 0.8]


def test_component_keeps_a_mention_the_scorer_found() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("paperkg_described_methods")
    text = "We propose a two-stage pruning framework. The two-stage pruning framework is fast."
    doc = nlp(_doc_with_mentions(text, [("two-stage pruning framework", "Method", 0.7)]))
    assert [s.text for s in doc.spans[FINAL]] == ["two-stage pruning framework"]
    assert doc._.paperkg_confidence == [0.7]
