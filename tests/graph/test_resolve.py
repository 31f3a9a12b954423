"""Entity resolution on hand-made extractions (no spaCy): acronyms, ambiguity, votes, families."""

from __future__ import annotations

from difflib import SequenceMatcher

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperkg.graph.normalize import compact_key
from paperkg.graph.records import Extraction, Mention
from paperkg.graph.resolve import (
    _initials,
    _merge_similar,
    is_acronym,
    model_family,
    nested_mentions,
    resolve,
    resolve_undefined,
    shown_name,
)


def ex(pid: str, mentions: list[tuple[str, str]],
       aliases: list[tuple[str, str]] = ()) -> tuple[str, Extraction]:
    text = " ".join(t for t, _ in mentions)
    out, pos = [], 0
    for surface, etype in mentions:
        out.append(Mention(surface, etype, pos, pos + len(surface), 0))
        pos += len(surface) + 1
    return pid, Extraction(pid, text, [(0, len(text))], out, list(aliases), [])


def test_acronym_joins_long_form_defined_elsewhere() -> None:
    long = "Reinforcement Learning with Verifiable Rewards"
    res = resolve([
        ex("p1", [(long, "Method"), ("RLVR", "Method")], [(long, "RLVR")]),
        ex("p2", [("RLVR", "Method")]),
        ex("p3", [("reinforcement learning with verifiable rewards", "Method")]),
    ])
    clusters = {res.cluster_of[k] for k in [("p1", long), ("p1", "RLVR"), ("p2", "RLVR"),
                                             ("p3", "reinforcement learning with verifiable rewards")]}
    assert len(clusters) == 1
    cluster = clusters.pop()
    assert res.aliases[cluster] >= {"RLVR", long}


def test_ambiguous_acronym_is_resolved_per_paper_and_kept_apart_elsewhere() -> None:
    res = resolve([
        ex("a", [("dynamic programming", "Method"), ("DP", "Method")], [("dynamic programming", "DP")]),
        ex("b", [("differential privacy", "Method"), ("DP", "Method")], [("differential privacy", "DP")]),
        ex("c", [("DP", "Method")]),
    ])
    a, b, c = res.cluster_of[("a", "DP")], res.cluster_of[("b", "DP")], res.cluster_of[("c", "DP")]
    assert a == res.cluster_of[("a", "dynamic programming")]
    assert b == res.cluster_of[("b", "differential privacy")]
    assert len({a, b, c}) == 3
    assert c in res.ambiguous


def test_an_acronym_defined_several_ways_joins_the_long_form_of_its_type() -> None:
    """`MAE` is mean absolute error where papers measure with it and masked autoencoder where they
    train one: a bare `MAE` joins the long form defined with its type, and stays apart when no long
    form, or several, have it."""
    res = resolve([
        ex("a", [("mean absolute error", "Metric"), ("MAE", "Metric")], [("mean absolute error", "MAE")]),
        ex("b", [("masked autoencoder", "Method"), ("MAE", "Method")], [("masked autoencoder", "MAE")]),
        ex("c", [("MAE", "Metric")]),
        ex("d", [("MAE", "Method")]),
        ex("e", [("MAE", "Task")]),
    ])
    assert res.cluster_of[("c", "MAE")] == res.cluster_of[("a", "mean absolute error")]
    assert res.cluster_of[("d", "MAE")] == res.cluster_of[("b", "masked autoencoder")]
    assert res.cluster_of[("e", "MAE")] == compact_key("MAE") and compact_key("MAE") in res.ambiguous
    assert res.label[res.cluster_of[("c", "MAE")]] == "Metric"
    res = resolve([
        ex("a", [("mean absolute error", "Metric"), ("MAE", "Metric")], [("mean absolute error", "MAE")]),
        ex("b", [("maximum angular error", "Metric"), ("MAE", "Metric")], [("maximum angular error", "MAE")]),
        ex("c", [("MAE", "Metric")]),
    ])
    assert res.cluster_of[("c", "MAE")] == compact_key("MAE")


def test_spelling_variants_of_a_long_form_do_not_make_an_acronym_ambiguous() -> None:
    res = resolve([
        ex("a", [("Group Relative Policy Optimization", "Method")],
           [("Group Relative Policy Optimization", "GRPO")]),
        ex("b", [("group relative policy optimisation", "Method")],
           [("group relative policy optimisation", "GRPO")]),
        ex("c", [("GRPO", "Method")]),
    ])
    assert res.cluster_of[("c", "GRPO")] == res.cluster_of[("a", "Group Relative Policy Optimization")]
    assert not res.ambiguous


def test_long_forms_differing_in_a_linking_word_are_one_entity() -> None:
    """arXiv abstracts spell RLHF's long form `from` and `with human feedback`: one node, not three."""
    res = resolve([
        ex("a", [("Reinforcement Learning from Human Feedback", "Method"), ("RLHF", "Method")],
           [("Reinforcement Learning from Human Feedback", "RLHF")]),
        ex("b", [("Reinforcement Learning with Human Feedback", "Method"), ("RLHF", "Method")],
           [("Reinforcement Learning with Human Feedback", "RLHF")]),
        ex("c", [("RLHF", "Method")]),
        ex("d", [("reinforcement learning from implicit human feedback", "Method"), ("RLIHF", "Method")],
           [("reinforcement learning from implicit human feedback", "RLIHF")]),
    ])
    rlhf = {res.cluster_of[k] for k in [("a", "RLHF"), ("b", "RLHF"), ("c", "RLHF"),
                                         ("b", "Reinforcement Learning with Human Feedback")]}
    assert len(rlhf) == 1
    assert res.cluster_of[("d", "RLIHF")] not in rlhf
    assert not res.ambiguous


@pytest.mark.parametrize(("variants", "same"), [
    (["LLaMA3.1-8B", "llama3.1 8b", "LLaMA3.1‑8B", "LLaMA 3.1-8B"], True),
    (["LLaMA3.1-8B", "LLaMA3-8B"], False),
    (["Qwen3-8B", "Qwen3-14B"], False),
    (["CIFAR-10", "cifar10", "CIFAR 10"], True),
])
def test_names_meet_regardless_of_case_hyphens_spacing(variants: list[str], same: bool) -> None:
    res = resolve([ex(f"p{i}", [(v, "Model")]) for i, v in enumerate(variants)])
    clusters = {res.cluster_of[(f"p{i}", v)] for i, v in enumerate(variants)}
    assert (len(clusters) == 1) is same


def test_type_is_the_majority_vote_and_generic_kinds_are_dropped() -> None:
    res = resolve([ex(f"p{i}", [("GRPO", "Method"), ("LLMs", "Model")]) for i in range(3)]
                  + [ex("p9", [("GRPO", "Model")])])
    cluster = res.cluster_of[("p9", "GRPO")]
    assert res.label[cluster] == "Method"
    assert ("p0", "LLMs") not in res.cluster_of


@pytest.mark.parametrize(("name", "family"), [
    ("Qwen2.5-7B-Instruct", "Qwen"), ("LLaMA3.1-8B", "LLaMA"), ("DeepSeek-R1-Zero", "DeepSeek"),
    ("GPT-4o", "GPT"), ("ResNet-50", "ResNet"), ("BERT", "BERT"), ("Stable Diffusion", "Stable Diffusion"),
    ("T5", "T5"),
])
def test_model_family(name: str, family: str) -> None:
    assert model_family(name) == family


@pytest.mark.parametrize(("surface", "expected"), [
    ("DP", True), ("RLVR", True), ("mAP", True), ("Transformer", False), ("deep learning", False),
])
def test_is_acronym(surface: str, expected: bool) -> None:
    assert is_acronym(surface) is expected


def test_similar_letters_with_different_words_stay_apart() -> None:
    res = resolve([
        ex("a", [("Group Relative Policy Optimization", "Method")],
           [("Group Relative Policy Optimization", "GRPO")]),
        ex("b", [("Budget Relative Policy Optimization", "Method")],
           [("Budget Relative Policy Optimization", "BRPO")]),
    ])
    assert (res.cluster_of[("a", "Group Relative Policy Optimization")]
            != res.cluster_of[("b", "Budget Relative Policy Optimization")])


@pytest.mark.parametrize(("outer", "inner", "expected"), [
    ("Tiny-ImageNet", "ImageNet", "ImageNet"),
    ("ImageNet 64x64", "ImageNet", "ImageNet"),
    ("ImageNet\u2011LT", "ImageNet", "ImageNet"),          # non-breaking hyphen
    ("LLaMA3.1-8B-Instruct", "LLaMA3.1-8B", "LLaMA3.1-8B"),
    ("CIFAR-10-C", "CIFAR-10", "CIFAR-10"),
    ("CIFAR100-LT", "CIFAR-100", "CIFAR100"),                # spelled without the dash
    ("CIFAR-100", "CIFAR-10", None),                       # a different number is a different name
    ("ImageNet1K", "ImageNet", None),                      # no word boundary
    ("Qwen2.5-Math-7B", "MATH", None),                     # case differs: not the MATH benchmark
    ("Group Relative Policy Optimization", "Policy Optimization", None),  # plain words name nothing
    # a short acronym found by the corpus lookup names what the name is a kind of only at its end
    ("VLA-RL", "RL", "RL"),
    ("Projected DP-SGD", "SGD", "SGD"),
    ("Multi-Meta-RAG", "RAG", "RAG"),
    ("MCTS-UCB", "MCTS", "MCTS"),                          # four letters: a name, wherever it stands
    ("PPO-Clip", "PPO", "PPO"),                            # before a plain word: the acronym itself
    ("RL-based calibration", "RL", "RL"),
    ("MS COCO", "MS", None),                               # starts another name: not mechanical search
    ("MT-Bench", "MT", None),
    ("CVC-ClinicDB", "CVC", None),
])
def test_named_entity_inside_a_longer_name(outer: str, inner: str, expected: str | None) -> None:
    papers = [ex("a", [(outer, "Dataset")]), ex("b", [(inner, "Dataset")])]
    res = resolve(papers)
    found = nested_mentions(papers, res)
    got = [(cluster, m) for cluster, m in found.get("a", [])]
    if expected is None:
        assert got == []
        return
    assert len(got) == 1
    cluster, mention = got[0]
    assert cluster == res.cluster_of[("b", inner)]
    text = papers[0][1].text
    assert mention.text == text[mention.start:mention.end] == expected
    assert not mention.introduced


def test_nested_name_follows_the_papers_own_resolution_and_skips_ambiguous_acronyms() -> None:
    papers = [
        ex("a", [("dynamic programming", "Method"), ("DP", "Method"), ("distributional DP", "Method")],
           [("dynamic programming", "DP")]),
        ex("b", [("differential privacy", "Method"), ("DP", "Method")], [("differential privacy", "DP")]),
        ex("c", [("DP-SGD", "Method")]),
    ]
    res = resolve(papers)
    found = nested_mentions(papers, res)
    assert [c for c, _ in found["a"]] == [res.cluster_of[("a", "dynamic programming")]]
    assert "c" not in found           # DP means two things in this corpus and paper c does not say which


def test_a_paper_that_resolves_a_short_acronym_itself_counts_it_anywhere_in_a_name() -> None:
    papers = [ex("a", [("reinforcement learning", "Method"), ("RL", "Method"), ("RL-Prompt", "Method")],
                 [("reinforcement learning", "RL")]),
              ex("b", [("RL-Prompt", "Method")])]
    res = resolve(papers)
    found = nested_mentions(papers, res)
    assert [(c, m.text) for c, m in found["a"]] == [(res.cluster_of[("a", "RL")], "RL")]
    assert "b" not in found           # paper b never says RL: `RL-Prompt` there starts a name


@pytest.mark.parametrize(("names", "shown"), [
    # the counts of the 2,500-abstract arXiv build
    ({"Vision Transformer": 10, "ViT": 12, "Vision Transformers": 6, "ViTs": 13,
      "vision transformer": 3}, "ViT"),
    ({"convolutional neural networks": 5, "Convolutional Neural Networks": 9,
      "convolutional neural network": 5, "Convolutional Neural Network": 3}, "Convolutional Neural Network"),
    ({"domain shifts": 4, "domain shift": 2}, "domain shift"),
    ({"adapters": 3}, "adapters"),                               # never written in the singular
    ({"PEFT": 21, "parameter-efficient fine-tuning": 14}, "PEFT"),   # the most written, as before
    ({"DP": 5, "Diffusion Policy": 5}, "Diffusion Policy"),          # a tie: the long form
    ({"Large Language Models": 10, "large language models": 9, "large language model": 2},
     "Large Language Models"),                                    # its own singular never written
])
def test_the_name_shown_is_the_most_written_with_plurals_counted_for_their_singular(
        names: dict[str, int], shown: str) -> None:
    assert shown_name(names) == shown


def _merge_similar_pairwise(spelled: dict[str, str]) -> dict[str, str]:
    """The definition `_merge_similar` must keep: every key against every earlier representative."""
    rep: dict[str, str] = {}
    reps: list[str] = []
    for key in sorted(spelled, key=lambda k: (len(k), k)):
        for r in reps:
            if (abs(len(r) - len(key)) <= 3 and _initials(spelled[r]) == _initials(spelled[key])
                    and SequenceMatcher(None, r, key).ratio() >= 0.85):
                rep[key] = r
                break
        else:
            reps.append(key)
            rep[key] = key
    return rep


# Long forms built from few words and letters, so that shared initials, near-equal lengths and
# one-letter spelling variants (`optimisation`/`optimization`) are common, as are chains of them.
_WORDS = st.sampled_from(["policy", "optimization", "optimisation", "optimizer", "group", "relative",
                          "gradient", "gradients", "grad", "learning", "learner", "relational",
                          "propagation", "privacy", "programming", "p", "po", "g"])
_LONG_FORMS = st.lists(st.lists(_WORDS, min_size=1, max_size=4).map(" ".join), max_size=40)


@given(_LONG_FORMS)
@settings(max_examples=300, deadline=None)
def test_bucketed_merge_equals_pairwise_definition(forms: list[str]) -> None:
    spelled = {compact_key(f): f for f in forms}
    assert _merge_similar(spelled) == _merge_similar_pairwise(spelled)


# Rule 3 with counts, shaped after the definitions of `GRPO` and `DP` in 209k real arXiv abstracts
# (long forms as their representatives' keys, papers defining each so per type).
_GRPO = {"grouprelativepolicyoptimization": {"Method": 790, "Task": 2}, "grouprobustpreferenceoptimization":
         {"Method": 5}, "generalizedrewardpolicyoptimization": {"Method": 3}, "grpos": {"": 1}}
_DP = {"differentialprivacy": {"Method": 281, "Task": 37}, "dynamicprogramming": {"Method": 20},
       "dataparallelism": {"Method": 12}, "diffusionpolicy": {"Method": 47, "Model": 2}}


@pytest.mark.parametrize(("key", "targets", "etype", "expected"), [
    ("grpo", _GRPO, "Method", "grouprelativepolicyoptimization"),   # 790 of 798 Method definitions
    ("grpo", _GRPO, "Task", "grouprelativepolicyoptimization"),     # the one Task definition's long form
    ("grpo", _GRPO, "Dataset", "grpo"),                             # no definition of that type
    ("grpo", _GRPO, None, "grouprelativepolicyoptimization"),       # every definition weighs: 792 of 801
    ("dp", _DP, "Method", "dp"),                                    # 281 of 360: not nine in ten
    ("dp", _DP, "Model", "diffusionpolicy"),
    ("dp", _DP, None, "dp"),
    ("ab", {"a": {"Method": 9}, "b": {"Method": 1}}, "Method", "a"),   # exactly the share
    ("ab", {"a": {"Method": 8}, "b": {"Method": 1}}, "Method", "ab"),
    ("ab", {"a": {"": 3}}, "Metric", "a"),                             # one long form, whatever the types
])
def test_an_undefined_acronym_joins_the_long_form_most_definitions_give(
        key: str, targets: dict, etype: str | None, expected: str) -> None:
    assert resolve_undefined(key, targets, etype) == expected
