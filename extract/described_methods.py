"""Unnamed methods a paper introduces: `we propose a two-stage pruning framework` makes `two-stage pruning
framework` a Method mention when the mention scorer found no mention of that text.

Gold hangs a third of its relation heads on the paper's own method, and when that method has no name it
is a descriptive phrase the learned scorer rarely keeps, so the relation head chooser had no candidate for
it (extract/README.md, "Relations that find their head"). A phrase with a capitalised word is left to the
name rules. Runs after `paperkg_mentions` and before `paperkg_introduced`, which marks the phrase
introduced by its `we propose` cue. Writes into `doc.spans["paperkg"]` and `doc._.paperkg_confidence`.
"""

from __future__ import annotations

from spacy.tokens import Doc

from paperkg.extract.doc_utils import FINAL, doc_text
from paperkg.extract.lexicon.described import DESCRIBED_RE, PRAISE

# the share of added phrases gold marks as an entity, out of fold (extract/README.md)
DEFAULT_CONFIDENCE = 0.5
# the mention's source (`Span.kb_id_`), as the scorer's mentions carry theirs
SOURCE = "described"


def described_method(text: str) -> tuple[int, int] | None:
    """Character offsets of the first unnamed method the abstract introduces, praise words left out;
    None when there is none or it has a capitalised word or fewer than two words once trimmed."""
    for match in DESCRIBED_RE.finditer(text):
        start, end = match.span(1)
        words = match.group(1).split()
        while words and words[0].lower() in PRAISE:
            start = text.index(words[1], start + len(words[0])) if len(words) > 1 else end
            words = words[1:]
        if len(words) < 2 or any(w[:1].isupper() for w in words):
            continue
        return start, end
    return None


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def add_described_method(doc: Doc, confidence: float) -> None:
    """Add the described method to the doc's mentions (kept in document order, their confidences too)."""
    text = doc_text(doc)
    found = described_method(text)
    if found is None:
        return
    span = doc.char_span(found[0], found[1], label="Method", kb_id=SOURCE)
    mentions = list(doc.spans.get(FINAL, []))
    if span is None or any(_key(m.text) == _key(span.text) for m in mentions):
        return
    scores = list(doc._.paperkg_confidence or [1.0] * len(mentions))
    pairs = sorted([*zip(mentions, scores, strict=True), (span, confidence)],
                   key=lambda p: (p[0].start, p[0].end))
    doc.spans[FINAL] = [m for m, _ in pairs]
    doc._.paperkg_confidence = [c for _, c in pairs]


class DescribedMethods:
    """Pipeline component `paperkg_described_methods` (default mode, after `paperkg_mentions`)."""

    def __init__(self, name: str, *, confidence: float) -> None:
        self.name = name
        self.confidence = confidence

    def __call__(self, doc: Doc) -> Doc:
        add_described_method(doc, self.confidence)
        return doc
