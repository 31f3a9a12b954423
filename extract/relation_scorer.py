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

import re

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import FINAL, doc_text, sentence_index
from paperkg.extract.lexicon.relations import COMPARE_RE, STRONG_COMPARE_RE, USE_RE, WE_RE
from paperkg.extract.mention_scorer import SparseSoftmax, calibrate
from paperkg.extract.relations import alias_map, extract_relations, rule_heads
from paperkg.extract.weights import LearnedWeights

FILE_NAME = "relations.json"
NONE = "NONE"
RELATION_LABELS = [NONE, "EVALUATED_ON", "COMPARED_WITH", "USES", "ADDRESSES", "MEASURED_BY"]


HEAD_LABELS = ["other", "head"]
_INTRO_VERB_RE = re.compile(r"\b(?:propos\w*|introduc\w*|present\w*|develop\w*|design\w*|call\w*|dub\w*|"
                            r"nam(?:e|ed)|term\w*)\b", re.I)


def head_candidates(doc: Doc) -> list[tuple[str, list[str]]]:
    """Every Method/Model entity of the abstract (named by its long form) with the features of being the
    paper's own method: the rules' pick and rank, introduced, defined with an acronym, how often, where
    and in which sentences (the authors speaking, an introducing verb) it is named, its words and shape."""
    mentions: list[Span] = list(doc.spans.get(FINAL, []))
    if not mentions:
        return []
    sents, sent_of = sentence_index(doc)
    text = doc_text(doc)
    aliases = doc._.paperkg_aliases or []
    introduced = {text[a:b] for a, b in doc._.paperkg_introduced or []}
    canon = alias_map(mentions, aliases, text)
    confidence = doc._.paperkg_confidence or [1.0] * len(mentions)
    by_text: dict[str, list[Span]] = {}
    types: dict[str, str] = {}
    best: dict[str, float] = {}
    for m, c in zip(mentions, confidence, strict=False):
        key = canon.get(m.text, m.text)
        by_text.setdefault(key, []).append(m)
        types.setdefault(key, m.label_)
        best[key] = max(best.get(key, 0.0), c)
    intro_keys = [canon.get(t, t) for t in dict.fromkeys(m.text for m in mentions if m.text in introduced)]
    ranked = rule_heads(mentions, by_text, types, intro_keys, canon, sents, sent_of)
    long_forms = set(canon.values())
    n_sents = max(len(sents), 1)
    out = []
    order = 0
    for key, spans in by_text.items():
        if types[key] not in ("Method", "Model"):
            continue
        forms = [*spans, *(m for short, long in canon.items() if long == key and short != key
                           for m in by_text.get(short, ()))]
        sent_ids = sorted({sent_of[m.start] for m in forms})
        words = key.split()
        rank = ranked.index(key) if key in ranked else -1
        feats = ["bias", "t=" + types[key], f"rank={min(rank, 2)}", f"intro={key in intro_keys}",
                 f"long={key in long_forms}", f"cnt={min(len(forms), 5)}", f"sents={min(len(sent_ids), 4)}",
                 f"first={min(sent_ids[0], 4)}", f"rel={min(int(4 * sent_ids[0] / n_sents), 3)}",
                 f"order={min(order, 4)}", f"nw={min(len(words), 5)}", "hw=" + words[-1].lower(),
                 f"conf={min(int(best[key] * 5), 4)}", f"rank_intro={min(rank, 2)}_{key in intro_keys}"]
        order += 1
        if key.isupper():
            feats.append("shape=upper")
        elif any(c.isupper() for c in key[1:]):
            feats.append("shape=mixed")
        elif key[:1].isupper():
            feats.append("shape=title")
        for i in sent_ids:
            sent_text = sents[i].text
            if WE_RE.search(sent_text):
                feats.append("we")
            if _INTRO_VERB_RE.search(sent_text):
                feats.append("introverb")
                if WE_RE.search(sent_text):
                    feats.append("we_introverb")
            if COMPARE_RE.search(sent_text):
                feats.append("cmp")
        m0 = forms[0]
        left = max(sents[sent_of[m0.start]].start, m0.start - 2)
        feats.extend("lw=" + t.lower_ for t in doc[left:m0.start])
        out.append((key, list(dict.fromkeys(feats))))
    return out


def choose_head(doc: Doc, model: SparseSoftmax | None) -> str | None:
    """The learned head chooser's pick (None without a model or candidates: the rules choose)."""
    if model is None:
        return None
    cands = head_candidates(doc)
    if not cands:
        return None
    probs = model.probabilities([f for _, f in cands])
    return cands[int(probs[:, HEAD_LABELS.index("head")].argmax())][0]


def relation_pairs(doc: Doc, heads: SparseSoftmax | None = None
                   ) -> tuple[str | None, list[tuple[str, list[str], list | None]]]:
    """The head and, for every other entity (named by its long form), its features and the rules'
    relation to it ([head, TYPE, tail, sentence], or None). `heads` is the learned head chooser."""
    mentions: list[Span] = list(doc.spans.get(FINAL, []))
    if not mentions:
        return None, []
    sents, sent_of = sentence_index(doc)
    text = doc_text(doc)
    aliases = doc._.paperkg_aliases or []
    introduced = {text[a:b] for a, b in doc._.paperkg_introduced or []}
    rules = extract_relations(doc, mentions, introduced, aliases, sents, sent_of, choose_head(doc, heads))
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


def score_relations(doc: Doc, model: SparseSoftmax, min_probability: float | None = None) -> list[list]:
    """The rules' relations the model gives at least `min_probability` (raw; default: the model's own
    `min_probability`, else all), each with the model's calibrated probability of it appended."""
    _head, pairs = relation_pairs(doc, model.heads)
    pairs = [p for p in pairs if p[2] is not None]
    if not pairs:
        return []
    if min_probability is None:
        min_probability = model.calibration.get("min_probability", 0.0)
    probs = model.probabilities([f for _, f, _ in pairs])
    table = model.calibration.get("relation")
    out = []
    for (_key, _feats, rule), row in zip(pairs, probs, strict=True):
        prob = float(row[model.labels.index(rule[1])])
        if prob >= min_probability:
            out.append([*rule, round(calibrate(prob, table), 4)])
    return out


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

