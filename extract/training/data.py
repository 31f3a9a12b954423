"""Training data for the NER: gold seed abstracts and (optionally) SciERC / TDMSci mapped to our types.

Gold records list entity surfaces without offsets; every whole-word occurrence of each surface in the
abstract becomes a span, overlaps resolved longest-first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

SCIERC_MAP = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
TDMSCI_MAP = {"TASK": "Task", "DATASET": "Dataset", "METRIC": "Metric"}


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def gold_char_spans(text: str, entities: list[dict]) -> list[tuple[int, int, str]]:
    """All whole-word occurrences of each gold surface, as (start, end, type)."""
    out = []
    for ent in entities:
        surface = ent["text"]
        if not surface:
            continue
        pattern = rf"(?<![\w]){re.escape(surface)}(?![\w])"
        for m in re.finditer(pattern, text):
            out.append((m.start(), m.end(), ent["type"]))
    return out


def gold_doc(nlp: Language, record: dict) -> tuple[Doc, int]:
    """A Doc with `ents` set from a gold record; returns (doc, number of spans that did not align)."""
    doc = nlp.make_doc(record["abstract"])
    spans = []
    missed = 0
    for start, end, etype in gold_char_spans(record["abstract"], record.get("entities", [])):
        span = doc.char_span(start, end, label=etype)
        if span is None:
            missed += 1
            continue
        spans.append(span)
    doc.ents = filter_spans(spans)
    return doc, missed


def scierc_docs(nlp: Language, path: Path) -> list[Doc]:
    """SciERC JSON (token lists, inclusive doc-level offsets) as Docs with our types."""
    docs = []
    for rec in read_jsonl(path):
        words = [w for sent in rec["sentences"] for w in sent]
        spaces = [True] * len(words)
        doc = Doc(nlp.vocab, words=words, spaces=spaces)
        spans = []
        for sent_ner in rec["ner"]:
            for start, end, label in sent_ner:
                etype = SCIERC_MAP.get(label)
                if etype:
                    spans.append(Span(doc, start, end + 1, label=etype))
        doc.ents = filter_spans(spans)
        # re-tokenize with our tokenizer so that training sees the run-time token boundaries
        redoc = nlp.make_doc(doc.text)
        respans = [redoc.char_span(s.start_char, s.end_char, label=s.label_) for s in doc.ents]
        redoc.ents = filter_spans([s for s in respans if s is not None])
        docs.append(redoc)
    return docs


def tdmsci_docs(nlp: Language, path: Path) -> list[Doc]:
    """TDMSci CoNLL (token, offset, BIO) sentences as Docs."""
    docs = []
    block: list[list[str]] = []
    lines = [*path.read_text(encoding="utf-8").splitlines(), ""]
    for line in lines:
        if line.strip():
            block.append(line.split("\t"))
            continue
        if not block:
            continue
        words = [b[0] for b in block]
        tags = [b[-1] for b in block]
        doc = Doc(nlp.vocab, words=words, spaces=[True] * len(words))
        spans = []
        i = 0
        while i < len(tags):
            if tags[i].startswith("B-"):
                label = TDMSCI_MAP[tags[i][2:]]
                j = i + 1
                while j < len(tags) and tags[j] == "I-" + tags[i][2:]:
                    j += 1
                spans.append(Span(doc, i, j, label=label))
                i = j
            else:
                i += 1
        redoc = nlp.make_doc(doc.text)
        respans = [redoc.char_span(s.start_char, s.end_char, label=s.label_) for s in spans]
        redoc.ents = filter_spans([s for s in respans if s is not None])
        docs.append(redoc)
        block = []
    return docs


def sample_abstracts(path: Path, n: int, seed: int = 13) -> list[str]:
    """`n` abstracts drawn at random (fixed seed) from a JSON Lines corpus, gzip or not, in corpus order:
    the corpus is sorted by arXiv id, so its first `n` would all come from one month."""
    import gzip
    import random

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        lines = [line for line in fh if line.strip()]
    chosen = sorted(random.Random(seed).sample(range(len(lines)), min(n, len(lines))))
    return [json.loads(lines[i])["abstract"] for i in chosen]
