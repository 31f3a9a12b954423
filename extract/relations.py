"""Relations from sentence cues, hung off the paper's own method.

The head is the paper's own method: the introduced Method/Model (a longer introduced variant beats the
name it extends, an acronym-defined long form and frequent mentions win), else the first method in a
`we`/`our` sentence, named by its long form. Tails are the other mentions: tasks (`ADDRESSES`), data and
benchmarks (`EVALUATED_ON`), metrics (`MEASURED_BY`, when named with the head or `we`/`our`), and other
methods (`COMPARED_WITH` / `USES` by the cues of the sentences they share with the head). Writes
`doc._.paperkg_relations` as [head, TYPE, tail, sentence index], and the first one's head as
`doc._.paperkg_head`.
"""

from __future__ import annotations

import itertools

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import FINAL, doc_text, sentence_index
from paperkg.extract.lexicon.relations import (
    COMPARE_RE,
    PAREN_NAME_RE,
    STRONG_COMPARE_RE,
    TAIL_RELATION,
    USE_RE,
    WE_RE,
)


class RelationExtractor:
    """Pipeline component `paperkg_relations` (after `paperkg_introduced`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        sents, sent_of = sentence_index(doc)
        text = doc_text(doc)
        introduced = {text[a:b] for a, b in doc._.paperkg_introduced or []}
        relations = extract_relations(doc, list(doc.spans.get(FINAL, [])), introduced,
                                      doc._.paperkg_aliases or [], sents, sent_of)
        doc._.paperkg_relations = relations
        doc._.paperkg_head = relations[0][0] if relations else None
        return doc


def alias_map(mentions: list[Span], aliases: list[tuple[str, str]], text: str) -> dict[str, str]:
    """Short form -> long form, for naming an entity once in relations: the detected acronym pairs,
    `Long Name (NAME)` where both are method/model mentions and NAME is one word (an acronym the
    letter rules missed, `Gradient-Reweighted Advantage (GRAIL)`), and the singular or plural of a
    short form (`PC` for `PCs`)."""
    canon: dict[str, str] = {}
    for long_text, short_text in aliases:
        canon.setdefault(short_text, long_text)
    for prev, cur in itertools.pairwise(mentions):
        if (prev.label_ in ("Method", "Model") and cur.label_ in ("Method", "Model") and len(cur) == 1
                and len(prev) > 1 and cur.text not in canon and prev.text not in canon
                and text[cur.end_char:cur.end_char + 1] == ")"
                and PAREN_NAME_RE.fullmatch(text[prev.end_char:cur.start_char])):
            canon[cur.text] = prev.text
    for short_text, long_text in list(canon.items()):
        other = short_text[:-1] if short_text.endswith("s") else short_text + "s"
        canon.setdefault(other, long_text)
    return canon


def extract_relations(doc: Doc, mentions: list[Span], introduced: set[str],
                      aliases: list[tuple[str, str]], sents: list[Span], sent_of: list[int],
                      head: str | None = None) -> list[list]:
    """[head, TYPE, tail, sentence] triples from the mentions of one abstract.

    The head is the paper's own method (the first introduced Method/Model, long form preferred) unless
    `head` names it (the learned head chooser's pick, a key of `alias_map`'s naming); tails are the other
    mentions, typed by their entity type and, for methods, by the cues of the sentences they share with
    the head or with `we`/`our`."""
    if not mentions:
        return []
    text = doc_text(doc)
    canon = alias_map(mentions, aliases, text)
    by_text: dict[str, list[Span]] = {}
    types: dict[str, str] = {}
    for m in mentions:
        key = canon.get(m.text, m.text)
        by_text.setdefault(key, []).append(m)
        types.setdefault(key, m.label_)
    intro_keys = [canon.get(t, t) for t in dict.fromkeys(
        m.text for m in mentions if m.text in introduced)]
    heads = [head] if head in by_text else rule_heads(mentions, by_text, types, intro_keys, canon, sents,
                                                        sent_of)
    if not heads:
        return []
    head = heads[0]
    head_sents = {sent_of[m.start] for m in by_text[head]}
    # other forms of the head (its acronym) count as the head in sentences
    for short_text, long_text in canon.items():
        if long_text == head and short_text in by_text:
            head_sents |= {sent_of[m.start] for m in by_text[short_text]}
    out = []
    for key, spans in by_text.items():
        if key == head:
            continue
        rel = TAIL_RELATION.get(types[key])
        sent = sent_of[spans[0].start]
        if rel == "MEASURED_BY" and not any(
                sent_of[m.start] in head_sents or WE_RE.search(sents[sent_of[m.start]].text) for m in spans):
            rel = None
        elif rel is None and key in intro_keys:
            rel = "USES"
        elif rel is None:
            rel, sent = method_relation(spans, head_sents, sents, sent_of, text)
        if rel:
            out.append([head, rel, key, sent])
    return out


def rule_heads(mentions: list[Span], by_text: dict[str, list[Span]], types: dict[str, str],
               intro_keys: list[str], canon: dict[str, str], sents: list[Span],
               sent_of: list[int]) -> list[str]:
    """The rules' candidates for the paper's own method, best first."""
    heads = [k for k in intro_keys if types.get(k) in ("Method", "Model")]
    # `curriculum learning` and `distribution-level curriculum learning` both introduced: the variant
    variants = [k for k in heads if not any(o.lower().endswith(" " + k.lower()) for o in heads)]
    heads = variants or heads
    if len(heads) > 1:
        # the paper's main contribution: defined with an acronym, then mentioned most often
        long_forms = set(canon.values())

        def weight(key: str) -> tuple[int, int]:
            count = len(by_text[key]) + sum(len(by_text.get(sh, ())) for sh, lg in canon.items() if lg == key)
            return (2 * (key in long_forms) + min(count, 4), -by_text[key][0].start)

        heads = sorted(heads, key=weight, reverse=True)
    if not heads:
        # no introduced method: the first method named in a sentence where the authors speak
        for m in mentions:
            key = canon.get(m.text, m.text)
            if types.get(key) in ("Method", "Model") and WE_RE.search(sents[sent_of[m.start]].text):
                heads = [key]
                break
    return heads


def method_relation(spans: list[Span], head_sents: set[int], sents: list[Span], sent_of: list[int],
                     text: str) -> tuple[str | None, int]:
    """COMPARED_WITH or USES (or nothing) between the head and another method, from the sentences of
    the method's mentions: a comparison cue counts where the head or `we`/`our` is in the sentence (a
    comparison elsewhere is between two other methods); a use cue or a shared sentence gives USES."""
    compared = used = None
    foreign_comparison = False
    for s in spans:
        i = sent_of[s.start]
        sent_text = text[sents[i].start_char:sents[i].end_char]
        left = text[sents[i].start_char:s.start_char]
        strong = STRONG_COMPARE_RE.search(sent_text)
        if COMPARE_RE.search(left) or strong:
            if i in head_sents or (strong and WE_RE.search(sent_text)):
                compared = i if compared is None else compared
            elif not WE_RE.search(sent_text):
                foreign_comparison = True
            elif used is None and USE_RE.search(left):
                used = i
        elif used is None and (i in head_sents or USE_RE.search(left)):
            used = i
    if compared is not None:
        return "COMPARED_WITH", compared
    if foreign_comparison:
        return None, sent_of[spans[0].start]
    if used is not None:
        return "USES", used
    return None, sent_of[spans[0].start]
