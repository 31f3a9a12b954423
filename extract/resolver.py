"""The mention resolver: one typed, non-overlapping set of mentions from all candidates.

Candidates are taken strongest source first (acronyms > model names > gazetteer names > introduced
phrases > gazetteer phrases > shapes > NER if any > learned phrases); a candidate is kept when it overlaps
nothing kept before it. Acronyms take the type of their long form, generic kinds (`LLMs`, `diffusion
models`) and what is never an entity alone (`7B`, `GPU`, a span with a line break: `hygiene.py`) are
dropped, the span typer's confident types (`doc._.paperkg_typed`) replace the guesses of
rules, and every further occurrence of a kept surface is a mention too. Two rules then adjust the chosen
spans: hyphenated name suffixes (`CIFAR100-LT`) and names listed after a kind cue (`benchmarks such as`).
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import CANDS, FINAL, doc_text, sentence_index
from paperkg.extract.head_types import is_generic, type_from_head
from paperkg.extract.hygiene import is_not_entity
from paperkg.extract.introduced import has_intro_cue
from paperkg.extract.lexicon.resolver import (
    LIST_CUE_RE,
    LIST_GAP_RE,
    LIST_KEEPS,
    LIST_KINDS,
    SOURCE_RANK,
    TYPED_BY_TYPER,
)
from paperkg.extract.ner_spans import ner_candidates


class MentionResolver:
    """Pipeline component `paperkg_resolver`: writes `doc.spans["paperkg"]`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        sents, sent_of = sentence_index(doc)
        final = resolve_mentions(doc)
        final = retype_listed(doc, extend_name_suffixes(doc, final), sents, sent_of)
        doc.spans[FINAL] = final
        if doc._.paperkg_aliases is None:
            doc._.paperkg_aliases = []
        return doc


def _source_of(span: Span) -> str:
    return span.kb_id_ or "gaz_exact"


def collect_candidates(doc: Doc) -> list[Span]:
    """Rule and phrase-finder candidates (kb_id = source) and the NER's entities (`ner`)."""
    cands = list(doc.spans[CANDS]) if CANDS in doc.spans else []
    cands.extend(ner_candidates(doc))
    return cands


def resolve_mentions(doc: Doc) -> list[Span]:
    """Pick non-overlapping typed spans from the candidates; type acronyms from their long forms;
    add every further occurrence of a found surface string; drop generic kinds. Spans that rules typed
    by guesswork (acronym long forms, name shapes, introduced phrases) take the typer's type where it
    was sure (`doc._.paperkg_typed`)."""
    text = doc_text(doc)
    typed = doc._.paperkg_typed or {}
    # (rank, start, end, text, label, source) tuples: cheaper than Span objects
    cands = [(SOURCE_RANK.get(_source_of(s), 9), s.start, s.end, s.start_char, s.text, s.label_,
              _source_of(s)) for s in collect_candidates(doc)]
    cands.sort(key=lambda c: (c[0], c[1] - c[2], c[1]))
    typed_by_text: dict[str, str] = {}
    for c in cands:
        if c[5] not in ("LONG", "SHORT") and c[6] not in ("shape", "ner", "phrase"):
            typed_by_text.setdefault(c[4], c[5])
    intro_long = {c[4] for c in cands if c[5] == "LONG" and has_intro_cue(text, c[3])}
    alias_type: dict[str, str] = {}
    long_spans = {c[4]: (c[1], c[2]) for c in cands if c[5] == "LONG"}
    for long_text, short_text in doc._.paperkg_aliases or []:
        # a short form defined here may mean something else elsewhere: type it by its long form only
        etype = typed_by_text.get(long_text)
        if etype is None and long_text in long_spans:
            etype = typed.get(long_spans[long_text], (None, 0.0))[0]
        etype = etype or type_from_head(long_text, long_text in intro_long)
        alias_type[long_text] = etype
        alias_type[short_text] = etype
    taken = bytearray(len(doc))
    kept: list[tuple[int, int, str, str]] = []  # start, end, text, source
    surfaces: dict[str, str] = {}
    for _rank, start, end, _sc, span_text, label, source in cands:
        if any(taken[start:end]) or is_generic(span_text) or is_not_entity(span_text):
            continue
        if label in ("LONG", "SHORT"):
            label = alias_type.get(span_text, "Method")
        elif source in TYPED_BY_TYPER and span_text not in surfaces and (start, end) in typed:
            label = typed[start, end][0]
        taken[start:end] = b"\x01" * (end - start)
        kept.append((start, end, span_text, source))
        surfaces.setdefault(span_text, label)
    if surfaces:
        kept.extend(further_occurrences(doc, kept, taken))
    kept.sort()
    return [Span(doc, start, end, label=surfaces[span_text], kb_id=source)
            for start, end, span_text, source in kept]


def further_occurrences(doc: Doc, kept: list[tuple[int, int, str, str]],
                        taken: bytearray) -> list[tuple[int, int, str, str]]:
    """Every further occurrence of a kept surface, as a whole word and not overlapping `taken`
    (marked in `taken`), longest surface first: source `copy`."""
    text = doc_text(doc)
    words = [t.text for t in doc]
    idx = doc.to_array("IDX").tolist()
    by_first: dict[str, list[tuple[int, str]]] = {}
    for start, end, span_text, _source in kept:
        key = words[start]
        entry = (end - start, span_text)
        if entry not in by_first.setdefault(key, []):
            by_first[key].append(entry)
    for entries in by_first.values():
        entries.sort(reverse=True)
    out = []
    n = len(words)
    for i, word in enumerate(words):
        entries = by_first.get(word)
        if not entries or taken[i]:
            continue
        for length, surface in entries:
            end = i + length
            if end > n or any(taken[i:end]):
                continue
            start_char, end_char = idx[i], idx[end - 1] + len(words[end - 1])
            if text[start_char:end_char] != surface:
                continue
            if (start_char > 0 and (text[start_char - 1].isalnum() or text[start_char - 1] in "-_")) or (
                    end_char < len(text) and (text[end_char].isalnum() or text[end_char] in "-_")):
                continue
            taken[i:end] = b"\x01" * length
            out.append((i, end, surface, "copy"))
            break
    return out


def _name_suffix_end(doc: Doc, end: int, limit: int) -> int:
    """Where a name continues past `end` as `-LT`, `-Clip`, `-1K` written without spaces."""
    while (end + 1 < limit and doc[end].text == "-" and not doc[end - 1].whitespace_
           and not doc[end].whitespace_ and doc[end + 1].text.isalnum()
           and (doc[end + 1].text[0].isupper() or doc[end + 1].text[0].isdigit())):
        end += 2
        while end < limit and not doc[end - 1].whitespace_ and doc[end].text.isalnum():
            end += 1
    return end


def extend_name_suffixes(doc: Doc, spans: list[Span]) -> list[Span]:
    """`CIFAR100-LT` and `PPO-Clip` are names of their own, not `CIFAR100` and `PPO` followed by
    noise: a found name takes in a hyphenated suffix that starts with a capital or a digit (never
    `-based` or `-style`), up to the next found name. Data, models and metrics keep their type
    (`ROUGE-L`, `FID-50K`); a task name with a suffix (`RL-Inf`) names a method."""
    out: list[Span] = []
    for i, span in enumerate(spans):
        limit = spans[i + 1].start if i + 1 < len(spans) else len(doc)
        end = _name_suffix_end(doc, span.end, limit)
        if end == span.end:
            out.append(span)
            continue
        label = "Method" if span.label_ == "Task" else span.label_
        out.append(Span(doc, span.start, end, label=label, kb_id=span.kb_id))
    return out


def retype_listed(doc: Doc, spans: list[Span], sents: list[Span], sent_of: list[int]) -> list[Span]:
    """Names listed after `benchmarks such as`, `datasets including`, `metrics:` or `tasks like` are of
    that kind, whatever the name alone suggested (`ImageNet1K, COCO and V3DET` after `benchmarks such
    as` are benchmarks, not methods). The list runs while only commas, `and` and `or` separate the
    names (see `LIST_KEEPS` for the types a cue leaves alone). The new type applies to
    every occurrence of the surface, so one name keeps one type in the abstract."""
    text = doc_text(doc)
    retyped: dict[str, str] = {}
    kind: str | None = None
    prev_end, prev_sent = 0, -1
    for span in spans:
        sent = sent_of[span.start]
        if sent != prev_sent:
            kind, prev_end = None, sents[sent].start_char
        gap = text[prev_end:span.start_char]
        cue = LIST_CUE_RE.search(gap)
        if cue:
            kind = LIST_KINDS[cue.group(1).lower()]
        elif kind is not None and not LIST_GAP_RE.match(gap):
            kind = None
        if kind is not None and span.label_ not in LIST_KEEPS[kind] and span.label_ != kind:
            retyped.setdefault(span.text, kind)
        prev_end, prev_sent = span.end_char, sent
    if not retyped:
        return spans
    return [Span(doc, s.start, s.end, label=retyped.get(s.text, s.label_), kb_id=s.kb_id) for s in spans]
