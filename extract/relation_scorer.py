"""Learned relation scorer: for the paper's own method (the head the relation rules choose) and every
other entity of the abstract, a softmax regression gives the probability of each relation (or none);
each relation the rules state carries the model's probability of it as its confidence.

The rules in `relations.py` hang a relation off the head by the tail's type and a few sentence cues;
their answer is one feature among others here (the tail's type, whether it shares a sentence with the
head, comparison / use cues in those sentences, the words just before the tail, how often and where it is
named, whether it is introduced too, the mention scorer's confidence in it). Trained on gold relations
over the mentions the pipeline found, so it learns which rule answers to trust. Deciding relations by the
model's argmax instead of the rules was measured too (5-fold CV) and did not beat the rules, so the rules
decide and the model scores. Writes `doc._.paperkg_relations` as [head, TYPE, tail, sentence, probability].
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import FINAL, doc_text, sentence_index
from paperkg.extract.lexicon.relations import COMPARE_RE, STRONG_COMPARE_RE, USE_RE, WE_RE
from paperkg.extract.mention_scorer import SparseSoftmax, calibrate
from paperkg.extract.relations import alias_map, extract_relations
from paperkg.extract.weights import LearnedWeights

FILE_NAME = "relations.json"
NONE = "NONE"
RELATION_LABELS = [NONE, "EVALUATED_ON", "COMPARED_WITH", "USES", "ADDRESSES", "MEASURED_BY"]


def relation_pairs(doc: Doc) -> tuple[str | None, list[tuple[str, list[str], list | None]]]:
    """The head and, for every other entity (named by its long form), its features and the rules'
    relation to it ([head, TYPE, tail, sentence], or None)."""
    mentions: list[Span] = list(doc.spans.get(FINAL, []))
    if not mentions:
        return None, []
    sents, sent_of = sentence_index(doc)
    text = doc_text(doc)
    aliases = doc._.paperkg_aliases or []
    introduced = {text[a:b] for a, b in doc._.paperkg_introduced or []}
    rules = extract_relations(doc, mentions, introduced, aliases, sents, sent_of)
    if not rules:
        return None, []
    head = rules[0][0]
    rule_rows = {r[2]: r for r in rules}
    rule_of = {r[2]: r[1] for r in rules}
    canon = alias_map(mentions, aliases, text)
    confidence = doc._.paperkg_confidence or [1.0] * len(mentions)
    by_key: dict[str, list[tuple[Span, float]]] = {}
    for m, c in zip(mentions, confidence, strict=False):
        by_key.setdefault(canon.get(m.text, m.text), []).append((m, c))
    head_sents = {sent_of[m.start] for m, _ in by_key.get(head, [])}
    head_sents |= {sent_of[m.start] for short, long in canon.items() if long == head
                   for m, _ in by_key.get(short, [])}
    intro_keys = {canon.get(t, t) for t in introduced}
    n_sents = len(sents)
    out = []
    for key, spans in by_key.items():
        if key == head:
            continue
        tt = spans[0][0].label_
        rule = rule_of.get(key, "none")
        tail_sents = {sent_of[m.start] for m, _ in spans}
        shared = head_sents & tail_sents
        feats = ["bias", "tt=" + tt, "rule=" + rule, f"tt_rule={tt}_{rule}", f"shared={min(len(shared), 2)}",
                 f"tt_shared={tt}_{bool(shared)}", f"cnt={min(len(spans), 3)}", f"intro={key in intro_keys}",
                 f"tt_intro={tt}_{key in intro_keys}",
                 f"conf={min(int(max(c for _, c in spans) * 5), 4)}"]
        first = min(tail_sents)
        feats.append("where=" + ("first" if first == 0 else "last" if first == n_sents - 1 else "mid"))
        for i in sorted(tail_sents):
            sent_text = sents[i].text
            tag = "sh" if i in shared else "ot"
            if COMPARE_RE.search(sent_text):
                feats.append(f"cmp_{tag}_{tt}")
            if STRONG_COMPARE_RE.search(sent_text):
                feats.append(f"scmp_{tag}_{tt}")
            if USE_RE.search(sent_text):
                feats.append(f"use_{tag}_{tt}")
            if WE_RE.search(sent_text):
                feats.append(f"we_{tag}_{tt}")
        m0 = spans[0][0]
        left = [t.lower_ for t in doc[max(sents[sent_of[m0.start]].start, m0.start - 3):m0.start]]
        feats.extend(f"lw_{tt}={w}" for w in left)
        feats.append(f"th={m0[-1].lower_}")
        out.append((key, feats, rule_rows.get(key)))
    return head, out


def score_relations(doc: Doc, model: SparseSoftmax) -> list[list]:
    """The rules' relations, each with the model's (calibrated) probability of it appended."""
    _head, pairs = relation_pairs(doc)
    pairs = [p for p in pairs if p[2] is not None]
    if not pairs:
        return []
    probs = model.probabilities([f for _, f, _ in pairs])
    table = model.calibration.get("relation")
    return [[*rule, round(calibrate(float(row[model.labels.index(rule[1])]), table), 4)]
            for (_key, _feats, rule), row in zip(pairs, probs, strict=True)]


class RelationScorer(LearnedWeights):
    """Pipeline component `paperkg_relation_scorer` (default mode, in place of `paperkg_relations`)."""

    weights_class = SparseSoftmax
    weights_file = FILE_NAME

    def __init__(self, name: str, *, path: str | None = None) -> None:
        self.name = name
        self.model = SparseSoftmax.from_disk(path) if path else None

    def __call__(self, doc: Doc) -> Doc:
        if self.model is None:
            doc._.paperkg_relations = []
            return doc
        doc._.paperkg_relations = score_relations(doc, self.model)
        return doc

