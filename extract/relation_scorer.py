"""Learned relation scorer: for the paper's own method (the head) and every other entity of the abstract, a
softmax regression gives the probability of each relation (or none).

The rules in `relations.py` hang a relation off the head by the tail's type and a few sentence cues;
their answer is one feature among others here (the tail's type, whether it shares a sentence with the
head and the words between them there, comparison / use cues in those sentences, the words just before
the tail, how often and where it is named, whether it is introduced too, the mention scorer's confidence
in it). Pairs are formed with the two likeliest heads of the learned head chooser, so relations of a
second method of the paper (or of the right head when the chooser's first pick is wrong) can be found.
Trained on gold relations over the mentions the pipeline found. 5-fold CV chose `union`: the rules'
relations off the first head stay (each with the model's probability of it) when the chooser is sure
enough of that head (`head_floor`), and every other pair whose
likeliest relation the model gives >= `min_probability` is added; letting the model alone decide
(`model`) or filtering the rules' relations by it did not pay (extract/README.md). Writes
`doc._.paperkg_relations` as [head, TYPE, tail, sentence, probability] and `doc._.paperkg_head`.
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


def sentence_cues(doc: Doc, sents: list[Span]) -> list[tuple[bool, bool, bool, bool, bool]]:
    """Per sentence: (comparison, strong comparison, use, authors speaking, introducing verb) cue found;
    searched once per Doc, since every head candidate and every (head, tail) pair asks of the same
    few sentences."""
    cached = doc.user_data.get("paperkg_sent_cues")
    if cached is None or len(cached) != len(sents):
        text = doc_text(doc)
        texts = [text[sent.start_char:sent.end_char] for sent in sents]
        cached = [(bool(COMPARE_RE.search(t)), bool(STRONG_COMPARE_RE.search(t)), bool(USE_RE.search(t)),
                   bool(WE_RE.search(t)), bool(_INTRO_VERB_RE.search(t))) for t in texts]
        doc.user_data["paperkg_sent_cues"] = cached
    return cached


def head_candidates(doc: Doc) -> list[tuple[str, list[str]]]:
    """Every Method/Model entity of the abstract (named by its long form) with the features of being the
    paper's own method: the rules' pick and rank, introduced, defined with an acronym, how often, where
    and in which sentences (the authors speaking, an introducing verb) it is named, its words and shape."""
    mentions: list[Span] = list(doc.spans.get(FINAL, []))
    if not mentions:
        return []
    sents, sent_of = sentence_index(doc)
    cues = sentence_cues(doc, sents)
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
            cmp, _, _, we, introverb = cues[i]
            if we:
                feats.append("we")
            if introverb:
                feats.append("introverb")
                if we:
                    feats.append("we_introverb")
            if cmp:
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


def ranked_heads(doc: Doc, model: SparseSoftmax | None, k: int) -> list[tuple[str, float]]:
    """The `k` likeliest heads by the learned head chooser, each with its P(head)."""
    if model is None:
        return []
    cands = head_candidates(doc)
    if not cands:
        return []
    probs = model.probabilities([f for _, f in cands])[:, HEAD_LABELS.index("head")]
    order = sorted(range(len(cands)), key=lambda i: (-probs[i], i))[:k]
    return [(cands[i][0], float(probs[i])) for i in order]


def _between(doc: Doc, a: Span, b: Span) -> list[str]:
    """The words between two mentions of one sentence (at most three from either end), their distance
    and order: what a relation between the two is said with (`X outperforms Y`, `X on Y`)."""
    first, second = (a, b) if a.start <= b.start else (b, a)
    words = [t.lower_ for t in doc[first.end:second.start]]
    if len(words) > 6:
        words = words[:3] + words[-3:]
    gap = second.start - first.end
    dist = "0" if gap <= 0 else "1-3" if gap <= 3 else "4-8" if gap <= 8 else "far"
    order = "tail_first" if b is first else "head_first"
    return ["bw=" + w for w in words] + ["dist=" + dist, "order=" + order]


def relation_pairs(doc: Doc, heads: SparseSoftmax | None = None, k: int = 1, rich: bool = False,
                   ranked: list[tuple[str, float]] | None = None
                   ) -> list[tuple[str, str, list[str], list | None]]:
    """(head, tail, features, the rules' relation [head, TYPE, tail, sentence] or None) for each of the
    `k` likeliest heads (the learned chooser's, or `ranked` when the caller has them already; the rules'
    head without a chooser) and every other entity of the abstract (all named by their long forms).
    `rich` adds the head's rank and probability and the words between head and tail where they share a
    sentence (for the model deciding)."""
    mentions: list[Span] = list(doc.spans.get(FINAL, []))
    if not mentions:
        return []
    sents, sent_of = sentence_index(doc)
    cues = sentence_cues(doc, sents)
    text = doc_text(doc)
    aliases = doc._.paperkg_aliases or []
    introduced = {text[a:b] for a, b in doc._.paperkg_introduced or []}
    canon = alias_map(mentions, aliases, text)
    confidence = doc._.paperkg_confidence or [1.0] * len(mentions)
    by_key: dict[str, list[tuple[Span, float]]] = {}
    for m, c in zip(mentions, confidence, strict=False):
        by_key.setdefault(canon.get(m.text, m.text), []).append((m, c))
    intro_keys = {canon.get(t, t) for t in introduced}
    n_sents = len(sents)
    if ranked is None:
        ranked = ranked_heads(doc, heads, k)
    ranked = ranked or [(None, 1.0)]
    out = []
    for rank, (chosen, p_head) in enumerate(ranked):
        rules = extract_relations(doc, mentions, introduced, aliases, sents, sent_of, chosen)
        if not rules:
            continue
        head = rules[0][0]
        rule_rows = {r[2]: r for r in rules}
        head_forms = [m for m, _ in by_key.get(head, [])]
        head_forms += [m for short, long in canon.items() if long == head and short != head
                       for m, _ in by_key.get(short, [])]
        head_sents = {sent_of[m.start] for m in head_forms}
        ht = head_forms[0].label_ if head_forms else "none"
        hp = f"hp={min(int(p_head * 5), 4)}"
        for key, spans in by_key.items():
            if key == head:
                continue
            tt = spans[0][0].label_
            rule_row = rule_rows.get(key)
            rule = rule_row[1] if rule_row else "none"
            tail_sents = {sent_of[m.start] for m, _ in spans}
            shared = head_sents & tail_sents
            feats = ["bias", "tt=" + tt, "rule=" + rule, f"tt_rule={tt}_{rule}",
                     f"shared={min(len(shared), 2)}", f"tt_shared={tt}_{bool(shared)}",
                     f"cnt={min(len(spans), 3)}", f"intro={key in intro_keys}",
                     f"tt_intro={tt}_{key in intro_keys}",
                     f"conf={min(int(max(c for _, c in spans) * 5), 4)}"]
            if rich:
                feats += [f"hr={rank}", hp, f"hr_tt={rank}_{tt}", f"{hp}_{tt}", f"ht_tt={ht}_{tt}",
                          f"hr_rule={rank}_{rule}"]
            first = min(tail_sents)
            feats.append("where=" + ("first" if first == 0 else "last" if first == n_sents - 1 else "mid"))
            for i in sorted(tail_sents):
                cmp, scmp, use, we, _ = cues[i]
                tag = "sh" if i in shared else "ot"
                if cmp:
                    feats.append(f"cmp_{tag}_{tt}")
                if scmp:
                    feats.append(f"scmp_{tag}_{tt}")
                if use:
                    feats.append(f"use_{tag}_{tt}")
                if we:
                    feats.append(f"we_{tag}_{tt}")
            m0 = spans[0][0]
            left = [t.lower_ for t in doc[max(sents[sent_of[m0.start]].start, m0.start - 3):m0.start]]
            feats.extend(f"lw_{tt}={w}" for w in left)
            feats.append(f"th={m0[-1].lower_}")
            if rich and shared:
                pairs = [(h, m) for h in head_forms for m, _ in spans if sent_of[h.start] == sent_of[m.start]]
                h, m = min(pairs, key=lambda p: abs(p[0].start - p[1].start))
                feats.extend(f"{f}_{tt}" for f in _between(doc, h, m))
            out.append((head, key, list(dict.fromkeys(feats)), rule_row))
    return out


def score_relations(doc: Doc, model: SparseSoftmax, min_probability: float | None = None) -> list[list]:
    """[head, TYPE, tail, sentence, probability] rows (see `scored_relations`)."""
    return scored_relations(doc, model, min_probability)[0]


def scored_relations(doc: Doc, model: SparseSoftmax, min_probability: float | None = None
                     ) -> tuple[list[list], str | None]:
    """[head, TYPE, tail, sentence, probability] rows. With `decide` in the model's calibration the model
    decides over the pairs of its `heads_k` likeliest heads: each pair's likeliest relation, kept at raw
    probability >= `min_probability`; under `union` the rules' relations off the first head are kept
    whatever the model says, but only when the chooser gives that head P(head) >= `head_floor`: relations
    off a wrong head are almost all wrong (out of fold, F1 0.02 vs 0.43), and a doubtful head's rules
    relations must then pass the model like any other pair (5-fold CV: 0.284 -> 0.294 at 0.5).
    Otherwise the rules decide: their relations the model gives at least `min_probability` (raw;
    default: the model's own, else all). The probability appended is calibrated.

    Also the paper's own method as the results read it: the head of the first relation that the union
    keeps whatever the model says or that has raw probability >= the calibration's
    `main_min_probability` (default: `min_probability`). A cut-off
    low enough to add relations is too low to name the method a result falls back on (extract/README.md,
    "The union's cut-off"), so the two are set apart."""
    cal = model.calibration
    decide = cal.get("decide")
    ranked = ranked_heads(doc, model.heads, int(cal.get("heads_k", 1)))
    sure_head = not ranked or ranked[0][1] >= cal.get("head_floor", 0.0)
    pairs = relation_pairs(doc, rich=bool(decide), ranked=ranked)
    if not decide:
        pairs = [p for p in pairs if p[3] is not None]
    if not pairs:
        return [], None
    if min_probability is None:
        min_probability = cal.get("min_probability", 0.0)
    main_probability = cal.get("main_min_probability", min_probability)
    main = None
    probs = model.probabilities([p[2] for p in pairs])
    table = cal.get("relation")
    none = model.labels.index(NONE)
    out = []
    seen: set[tuple[str, str]] = set()
    top = pairs[0][0]
    for (head, tail, _feats, rule), row in zip(pairs, probs, strict=True):
        keep_rule = decide == "union" and rule is not None and head == top and sure_head
        repeated = False
        if decide and not keep_rule:
            typed = row.copy()
            typed[none] = -1.0
            label = model.labels[int(typed.argmax())]
            repeated = (head, tail) in seen or (tail, head) in seen
            rel = None
        else:
            rel = rule
            label = rule[1]
        prob = float(row[model.labels.index(label)])
        # before the repeat check: a pair the lower cut-off kept must not hide, in reverse, the first
        # relation the main cut-off would keep (so `main` is what the main cut-off alone would give)
        if main is None and (prob >= main_probability or keep_rule):
            main = head if rel is None else rel[0]
        if not repeated and (prob >= min_probability or keep_rule):
            if rel is None:
                rel = [head, label, tail, rule[3] if rule is not None else _first_sentence(doc, tail)]
            seen.add((head, tail))
            out.append([*rel, round(calibrate(prob, table), 4)])
    return out, main


def _first_sentence(doc: Doc, key: str) -> int:
    """The sentence an entity (named by its key) is first named in."""
    _sents, sent_of = sentence_index(doc)
    for m in doc.spans.get(FINAL, []):
        if m.text == key:
            return sent_of[m.start]
    return 0


class RelationScorer(LearnedWeights):
    """Pipeline component `paperkg_relation_scorer` (default mode, in place of `paperkg_relations`)."""

    weights_class = SparseSoftmax
    weights_file = FILE_NAME

    def __init__(self, name: str, *, path: str | None = None) -> None:
        self.name = name
        self.model = SparseSoftmax.from_disk(path) if path else None

    def __call__(self, doc: Doc) -> Doc:
        if self.model is None:
            doc._.paperkg_relations, doc._.paperkg_head = [], None
            return doc
        doc._.paperkg_relations, doc._.paperkg_head = scored_relations(doc, self.model)
        return doc

