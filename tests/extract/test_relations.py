"""Relations through the real pipeline on short texts: which sentence cues link the paper's method
(the head) to the other mentions, and how the head is named."""

from __future__ import annotations

import math

import pytest

from paperkg.extract.doc_utils import FINAL
from paperkg.extract.mention_scorer import SparseSoftmax
from paperkg.extract.pipeline import Extractor, build_nlp
from paperkg.extract.relation_scorer import (
    HEAD_LABELS,
    RELATION_LABELS,
    choose_head,
    head_candidates,
    relation_pairs,
    score_relations,
    scored_relations,
)
from paperkg.extract.relations import alias_map


@pytest.fixture(scope="module", params=["default", "rules"])
def extractor(request: pytest.FixtureRequest) -> Extractor:
    return Extractor(mode=request.param)


AMT = "Adaptive Margin Tuning"
PPO = "Proximal Policy Optimization"

# (text, triples that must be there, triples that must not)
CASES = [
    pytest.param(
        f"We propose {AMT} (AMT) for robotic control. AMT outperforms {PPO} (PPO) on MuJoCo.",
        [(AMT, "COMPARED_WITH", PPO), (AMT, "EVALUATED_ON", "MuJoCo")],
        [(AMT, "USES", PPO), ("AMT", "COMPARED_WITH", "PPO")],
        id="outperforms-and-on-benchmark-long-forms"),
    pytest.param(
        "We introduce Gradient-Reweighted Advantage (GRAIL), a token-wise advantage reweighting method. "
        "GRAIL outperforms GRPO on GSM8K.",
        [("Gradient-Reweighted Advantage", "COMPARED_WITH", "GRPO"),
         ("Gradient-Reweighted Advantage", "EVALUATED_ON", "GSM8K")],
        [("Gradient-Reweighted Advantage", "USES", "GRAIL"), ("GRAIL", "COMPARED_WITH", "GRPO")],
        id="parenthesised-name-without-letter-match-is-the-same-entity"),
    pytest.param(
        "We propose curriculum learning for reasoning. Specifically, we introduce distribution-level "
        "curriculum learning, which uses GRPO, and evaluate it on MATH500.",
        [("distribution-level curriculum learning", "USES", "GRPO"),
         ("distribution-level curriculum learning", "EVALUATED_ON", "MATH500")],
        [("curriculum learning", "EVALUATED_ON", "MATH500")],
        id="longer-introduced-variant-is-the-head"),
    pytest.param(
        f"Earlier detectors were scored by BLEU. We propose {AMT} (AMT), which improves accuracy on GSM8K.",
        [(AMT, "MEASURED_BY", "accuracy"), (AMT, "EVALUATED_ON", "GSM8K")],
        [],
        id="metric-of-background-sentence"),
    pytest.param(
        f"We propose {AMT} (AMT). Unlike existing methods, we build on {PPO} (PPO).",
        [(AMT, "USES", PPO)],
        [(AMT, "COMPARED_WITH", PPO)],
        id="weak-comparison-word-with-use-cue-is-uses"),
    pytest.param(
        f"We propose {AMT} (AMT) for machine translation. AMT is measured by BLEU and compared to the "
        "Transformer.",
        [(AMT, "ADDRESSES", "machine translation"), (AMT, "MEASURED_BY", "BLEU"),
         (AMT, "COMPARED_WITH", "Transformer")],
        [],
        id="task-metric-and-compared-to"),
]


@pytest.mark.parametrize(("text", "present", "absent"), CASES)
def test_relations_from_sentence_cues(extractor: Extractor, text: str, present: list[tuple[str, str, str]],
                                      absent: list[tuple[str, str, str]]) -> None:
    ex = extractor.extract_text(text)
    rels = {tuple(r) for r in ex.to_json()["relations"]}
    for triple in present:
        assert triple in rels, (triple, rels)
    for triple in absent:
        assert triple not in rels, (triple, rels)
    for r in ex.relations:  # every relation keeps the sentence it came from, and names both ends there
        assert 0 <= r.sentence < len(ex.sentences)


def test_metric_of_a_background_sentence_is_not_the_heads_by_rule_and_less_sure_by_the_model() -> None:
    """The rules never link a metric named only where neither the head nor `we` is; the learned union
    (gold links most metrics to the paper's method) may add it, but less sure than the head's own."""
    text = f"Earlier detectors were scored by BLEU. We propose {AMT} (AMT), which improves accuracy on GSM8K."
    rules = {tuple(r[:3]) for r in Extractor(mode="rules").extract_text(text).to_json()["relations"]}
    assert (AMT, "MEASURED_BY", "BLEU") not in rules
    found = {(r.tail, r.type): r.confidence for r in Extractor(mode="default").extract_text(text).relations}
    if ("BLEU", "MEASURED_BY") in found:
        assert found["BLEU", "MEASURED_BY"] < found["accuracy", "MEASURED_BY"]


def test_a_comparison_between_two_other_methods_is_not_the_heads_by_rule_and_unlikely_by_the_model() -> None:
    """A comparison made before the paper's method is named is between two other methods: the rules never
    link the head to either; the learned union may add such a pair, but with a calibrated confidence
    below one half and below the head's own task (so `min_confidence` 0.5 drops it)."""
    text = (f"In prior work, {PPO} (PPO) outperforms Trust Region Policy Optimization (TRPO) on Atari. "
            f"We propose {AMT} (AMT) for robotic control.")
    others = {(AMT, "COMPARED_WITH", "Trust Region Policy Optimization"), (AMT, "COMPARED_WITH", PPO),
              (AMT, "USES", "Trust Region Policy Optimization"), (AMT, "USES", PPO)}
    rules = {tuple(r[:3]) for r in Extractor(mode="rules").extract_text(text).to_json()["relations"]}
    assert not rules & others
    found = {(r.head, r.type, r.tail): r.confidence
             for r in Extractor(mode="default").extract_text(text).relations}
    own = found[AMT, "ADDRESSES", "robotic control"]
    for triple in others & set(found):
        assert found[triple] < min(0.5, own), (triple, found)


def test_relation_sentence_is_the_cue_sentence(extractor: Extractor) -> None:
    text = f"We propose {AMT} (AMT). It is fast. In experiments, AMT outperforms {PPO} (PPO)."
    ex = extractor.extract_text(text)
    (rel,) = [r for r in ex.relations if r.type == "COMPARED_WITH"]
    assert rel.tail == PPO
    assert "outperforms" in ex.sentence_text(rel.sentence)


@pytest.mark.parametrize(("text", "short", "long"), [
    ("Probabilistic circuits (PCs) are tractable models. We scale PC learning.", "PC",
     "Probabilistic circuits"),
    ("Process reward models (PRM) score steps. PRMs are costly.", "PRMs", "Process reward models"),
])
def test_alias_map_folds_singular_and_plural_short_forms(text: str, short: str, long: str) -> None:
    doc = build_nlp("rules")(text)
    mentions = list(doc.spans[FINAL])
    assert alias_map(mentions, doc._.paperkg_aliases, text).get(short) == long


HEAD_TEXT = (f"Prior work trains agents with {PPO} (PPO). We propose {AMT} (AMT) for robotic control. "
             "AMT outperforms PPO on MuJoCo.")


def test_head_candidates_are_the_methods_named_by_their_long_forms() -> None:
    doc = build_nlp("rules")(HEAD_TEXT)
    cands = dict(head_candidates(doc))
    assert set(cands) == {PPO, AMT}
    assert "intro=True" in cands[AMT] and "intro=False" in cands[PPO]
    assert "rank=0" in cands[AMT] and "we_introverb" in cands[AMT]
    assert "long=True" in cands[PPO] and "cnt=3" in cands[PPO]


def test_learned_head_chooser_decides_the_head_the_relations_hang_off() -> None:
    doc = build_nlp("rules")(HEAD_TEXT)
    rules = score_relations(doc, SparseSoftmax(RELATION_LABELS, {}))
    assert {r[0] for r in rules} == {AMT}
    # a chooser that (wrongly) trusts a method named before the authors speak picks PPO
    contrary = SparseSoftmax(HEAD_LABELS, {"first=0": [0.0, 5.0]})
    assert choose_head(doc, contrary) == PPO
    found = score_relations(doc, SparseSoftmax(RELATION_LABELS, {}, heads=contrary))
    assert found and {r[0] for r in found} == {PPO}
    assert [PPO, "EVALUATED_ON", "MuJoCo"] in [r[:3] for r in found]
    assert choose_head(doc, None) is None


def test_relation_scorer_cut_off_drops_unlikely_relations() -> None:
    doc = build_nlp("rules")(HEAD_TEXT)
    model = SparseSoftmax(RELATION_LABELS, {"tt=Benchmark": [5.0, -5.0, 0, 0, 0, 0]})
    kept = {tuple(r[1:3]) for r in score_relations(doc, model, 0.3)}
    assert ("EVALUATED_ON", "MuJoCo") not in kept
    assert ("EVALUATED_ON", "MuJoCo") in {tuple(r[1:3]) for r in score_relations(doc, model, 0.0)}


UNION_TEXT = HEAD_TEXT + " Earlier detectors were scored by BLEU."


def test_union_keeps_the_rules_relations_and_adds_the_pairs_the_model_is_sure_of() -> None:
    doc = build_nlp("rules")(UNION_TEXT)
    weights = {"rule=none": [-5.0, 0, 0, 0, 0, 5.0], "rule=COMPARED_WITH": [5.0, 0, 0, 0, 0, 0]}
    union = SparseSoftmax(RELATION_LABELS, weights, calibration={"decide": "union", "heads_k": 1})
    found = {tuple(r[:3]) for r in score_relations(doc, union)}
    assert (AMT, "COMPARED_WITH", PPO) in found      # the rules' relation, though the model says none
    assert (AMT, "MEASURED_BY", "BLEU") in found     # no rule: the model's sure pair
    assert (AMT, "MEASURED_BY", "BLEU") not in {tuple(r[:3]) for r in score_relations(doc, union, 0.99)}
    model = SparseSoftmax(RELATION_LABELS, weights, calibration={"decide": "model", "heads_k": 1})
    decided = {tuple(r[:3]) for r in score_relations(doc, model, 0.5)}
    assert (AMT, "COMPARED_WITH", PPO) not in decided and (AMT, "MEASURED_BY", "BLEU") in decided


def test_pairs_of_the_second_likeliest_head_carry_its_rank() -> None:
    doc = build_nlp("rules")(UNION_TEXT)
    chooser = SparseSoftmax(HEAD_LABELS, {"intro=True": [0.0, 2.0]})
    pairs = relation_pairs(doc, chooser, k=2, rich=True)
    assert {h for h, *_ in pairs} == {AMT, PPO}
    assert all(("hr=0" in f) == (h == AMT) for h, _t, f, _r in pairs)
    # the model says no pair off the second head holds: only the first head's relations remain
    weights = {"hr=1": [20.0, 0, 0, 0, 0, 0], "rule=none": [-5.0, 0, 0, 5.0, 0, 0]}
    union = SparseSoftmax(RELATION_LABELS, weights, heads=chooser,
                          calibration={"decide": "union", "heads_k": 2})
    assert {r[0] for r in score_relations(doc, union, 0.5)} == {AMT}


@pytest.mark.parametrize(("p_head", "floor", "kept"), [
    pytest.param(0.88, 0.5, True, id="sure-head-keeps-the-rules-relations"),
    pytest.param(0.12, 0.5, False, id="doubtful-head-rules-relations-must-pass-the-model"),
    pytest.param(0.12, 0.0, True, id="no-floor-keeps-them-whatever-the-head"),
])
def test_rules_relations_are_kept_whatever_the_model_says_only_off_a_likely_head(
        p_head: float, floor: float, kept: bool) -> None:
    """Union keeps the rules' relations off the first head unscored, but relations off a wrong head are
    almost all wrong: below `head_floor` they need the model's own probability like any other pair."""
    doc = build_nlp("rules")(UNION_TEXT)
    # a chooser whose likeliest head (AMT, introduced) has P(head) = p_head; PPO stays below it
    bias = math.log(p_head / (1.0 - p_head))
    chooser = SparseSoftmax(HEAD_LABELS, {"intro=True": [0.0, bias], "intro=False": [0.0, bias - 3.0]})
    # the model says no relation holds for any pair
    weights = {"bias": [20.0, 0, 0, 0, 0, 0]}
    union = SparseSoftmax(RELATION_LABELS, weights, heads=chooser,
                          calibration={"decide": "union", "heads_k": 1, "head_floor": floor})
    found = {tuple(r[:3]) for r in score_relations(doc, union, 0.6)}
    assert ((AMT, "COMPARED_WITH", PPO) in found) == kept
    assert ((AMT, "EVALUATED_ON", "MuJoCo") in found) == kept


def test_the_papers_method_needs_its_own_cut_off_not_the_relations_one() -> None:
    """A pair the model gives 0.5 passes the relations' cut-off (0.4) but names no paper's method
    under `main_min_probability` 0.6: the method a result falls back on stays unnamed (None), while
    the same rows under a main cut-off of 0.4 name their first head."""
    doc = build_nlp("rules")(UNION_TEXT)
    # every pair: COMPARED_WITH at exp(ln 5) / (exp(ln 5) + 5) = 0.5; no head is sure enough for the rules'
    # relations to stand unscored
    weights = {"bias": [0.0, 0.0, math.log(5.0), 0.0, 0.0, 0.0]}
    chooser = SparseSoftmax(HEAD_LABELS, {"intro=True": [0.0, 2.0]})
    calibration = {"decide": "union", "heads_k": 1, "head_floor": 1.0, "min_probability": 0.4}
    strict = SparseSoftmax(RELATION_LABELS, weights, heads=chooser,
                           calibration={**calibration, "main_min_probability": 0.6})
    rows, main = scored_relations(doc, strict)
    assert rows and {r[1] for r in rows} == {"COMPARED_WITH"} and {r[0] for r in rows} == {AMT}
    assert main is None
    loose = SparseSoftmax(RELATION_LABELS, weights, heads=chooser, calibration=calibration)
    assert scored_relations(doc, loose) == (rows, rows[0][0])
    assert score_relations(doc, loose) == rows


@pytest.mark.parametrize("mode", ["rules", "default"])
def test_the_pipeline_names_the_papers_method(mode: str) -> None:
    doc = build_nlp(mode)(HEAD_TEXT)
    assert doc._.paperkg_relations and doc._.paperkg_head == AMT
