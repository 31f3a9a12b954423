"""Candidates from an optional trained NER (`doc.ents`) or BILUO tagger (`token.tag_`), source `ner`.

No NER is shipped (see README); when one is trained into `model/ner`, its spans are trimmed and only
the name-like or repeated ones are kept, below all rule sources.
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import doc_text
from paperkg.extract.lexicon.resolver import EDGE_DROP, INSIDE_DROP


def clean_ner_span(span: Span) -> Span | None:
    """Trim function words and punctuation off a predicted span's edges; drop it when it reads like a
    clause (a verb or pronoun inside) or nothing name-like is left."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and doc[start].lower_ in EDGE_DROP:
        start += 1
    while end > start and doc[end - 1].lower_ in EDGE_DROP:
        end -= 1
    if start >= end:
        return None
    if any(t.lower_ in INSIDE_DROP for t in doc[start:end]):
        return None
    if doc[start:end].text.count("(") != doc[start:end].text.count(")"):
        return None
    if (end - start == 1 and doc[start].is_punct) or doc[start:end].text.isdigit():
        return None
    return Span(doc, start, end, label=span.label_, kb_id="ner")


def spans_from_biluo_tags(doc: Doc) -> list[Span]:
    """Entity spans from BILUO tags that a tagger wrote into `token.tag_` (`B-Method`, `I-Method`,
    `L-Method`, `U-Task`, `O`); a run cut short by an unexpected tag ends where it was cut."""
    if not len(doc):
        return []
    strings = doc.vocab.strings
    tags = [strings[h] if h else "" for h in doc.to_array("TAG").tolist()]
    if not any(t[:2] in ("B-", "U-") for t in tags):
        return []
    spans = []
    i, n = 0, len(tags)
    while i < n:
        tag = tags[i]
        if tag.startswith("U-"):
            spans.append(Span(doc, i, i + 1, label=tag[2:]))
            i += 1
        elif tag.startswith("B-"):
            label = tag[2:]
            j = i + 1
            while j < n and tags[j] == "I-" + label:
                j += 1
            end = j + 1 if j < n and tags[j] == "L-" + label else j
            spans.append(Span(doc, i, end, label=label))
            i = end
        else:
            i += 1
    return spans


def ner_span_is_trusted(span: Span, text: str) -> bool:
    """The NER alone is noisy on this data (precision ~0.35 on held-out folds); keep its spans that
    look like names (capitals inside, digits) or that the abstract repeats (~0.6 precision)."""
    surface = span.text
    if any(c.isupper() for c in surface[1:]) or any(c.isdigit() for c in surface):
        return True
    return text.count(surface) >= 2


def ner_candidates(doc: Doc) -> list[Span]:
    """The trusted, cleaned spans of the NER or tagger that ran before (none when none ran)."""
    predicted = list(doc.ents) or spans_from_biluo_tags(doc)
    if not predicted:
        return []
    text = doc_text(doc)
    out = []
    for ent in predicted:
        span = clean_ner_span(ent)
        if span is not None and ner_span_is_trusted(span, text):
            out.append(span)
    return out
