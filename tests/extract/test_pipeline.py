"""The real extraction pipeline on short texts: acronyms, model names, LaTeX, dashes, `introduced`,
generic kinds, relations, long and empty texts, offsets and order."""

from __future__ import annotations

import warnings

import pytest

from paperkg.extract.pipeline import Extractor, build_nlp
from paperkg.graph.records import Extraction


@pytest.fixture(scope="module", params=["default", "rules"])
def extractor(request: pytest.FixtureRequest) -> Extractor:
    return Extractor(mode=request.param)


@pytest.fixture(scope="module")
def rules() -> Extractor:
    return Extractor(mode="rules")


def entities(ex: Extraction) -> dict[str, str]:
    return {m.text: m.type for m in ex.mentions}


def check_offsets(ex: Extraction) -> None:
    for m in ex.mentions:
        assert ex.text[m.start:m.end] == m.text
        start, end = ex.sentences[m.sentence]
        assert start <= m.start and m.end <= end, (m, ex.sentences[m.sentence])
    for a, b in zip(ex.sentences, ex.sentences[1:], strict=False):
        assert a[1] <= b[0]
    for r in ex.relations:
        assert 0 <= r.sentence < len(ex.sentences)


ACRONYMS = [
    ("We propose Reinforcement Learning with Verifiable Rewards (RLVR) for reasoning.",
     ("Reinforcement Learning with Verifiable Rewards", "RLVR")),
    ("Equilibrium propagation (EP) is an alternative to backpropagation.", ("Equilibrium propagation", "EP")),
    ("We train agents with Proximal Policy Optimization (PPO) in simulation.",
     ("Proximal Policy Optimization", "PPO")),
    ("Our Entropy Ratio Clipping (ERC) mechanism constrains updates.", ("Entropy Ratio Clipping", "ERC")),
    ("We study local differential privacy (LDP) for frequency estimation.",
     ("local differential privacy", "LDP")),
    # arXiv text: a parenthesis glued to the long form, and a long form glued to another name by `+`
    ("We introduce ScreenExplorer, a VLM trained via Group Relative Policy Optimization(GRPO) in real, "
     "dynamic, and open-ended GUI environments.", ("Group Relative Policy Optimization", "GRPO")),
]


@pytest.mark.parametrize(("text", "pair"), ACRONYMS)
def test_acronym_gives_both_mentions_and_alias(extractor: Extractor, text: str,
                                               pair: tuple[str, str]) -> None:
    ex = extractor.extract_text(text)
    check_offsets(ex)
    assert pair in ex.aliases
    found = entities(ex)
    assert pair[0] in found and pair[1] in found
    assert found[pair[0]] == found[pair[1]], "an acronym has the type of its long form"


def test_long_form_glued_to_another_name_by_plus(extractor: Extractor) -> None:
    """`SFT+Group Relative Policy Optimisation (GRPO)`: GRPO's long form starts after the `+`, so the
    corpus resolver joins GRPO there with its other spellings (the mention chosen may keep `SFT+`)."""
    ex = extractor.extract_text("We adopt a two-stage SFT+Group Relative Policy Optimisation (GRPO) "
                                "approach that aligns outputs.")
    assert ("Group Relative Policy Optimisation", "GRPO") in ex.aliases
    assert entities(ex).get("GRPO") == "Method"


AMBIGUOUS = [
    ("We solve the problem with dynamic programming (DP) in polynomial time.", "dynamic programming"),
    ("Training with differential privacy (DP) protects individual records.", "differential privacy"),
    ("We combine data-parallel (DP) training with pipelining on 64 GPUs.", "data-parallel"),
    ("Expert parallelism (EP) spreads experts over devices.", "Expert parallelism"),
]


@pytest.mark.parametrize(("text", "long_form"), AMBIGUOUS)
def test_ambiguous_acronym_resolved_per_abstract(rules: Extractor, text: str, long_form: str) -> None:
    ex = rules.extract_text(text)
    shorts = {short: long for long, short in ex.aliases}
    short = "EP" if "EP" in text else "DP"
    assert shorts.get(short) == long_form


# real abstracts: a leading word the short form needs stays; one it does not need goes; no long form
# starts with a dash, and a stop word inside a hyphenated name does not cut it
LONG_FORMS = [
    ("Standard English. Named Entity Recognition (NER) models underperform on Malaysian English.",
     ("Named Entity Recognition", "NER")),
    ("Using domain-relevant documents improves results on a named-entity recognition (NER) problem.",
     ("named-entity recognition", "NER")),
    ("Scans were collected from The Cancer Imaging Archive (TCIA) for evaluation.",
     ("The Cancer Imaging Archive", "TCIA")),
    ("Novel view synthesis (NVS) from sparse satellite images remains hard.",
     ("Novel view synthesis", "NVS")),
    ("The method employs a Plug-and-Play Pruning Module (PPM) to predict token importance.",
     ("Plug-and-Play Pruning Module", "PPM")),
    ("We train Gated Recurrent Unit (GRU)-Recurrent Neural Network (RNN) models on the features.",
     ("Recurrent Neural Network", "RNN")),
    ("We propose a novel Dynamic Order Template (DOT) for sentiment analysis.",
     ("Dynamic Order Template", "DOT")),
    ("We present a method called Entropy Ratio Clipping (ERC) for stable updates.",
     ("Entropy Ratio Clipping", "ERC")),
    ("We fine-tune the Transformer (TF) baseline.", ("Transformer", "TF")),
    # LaTeX spacing before the parenthesis (examples/arxiv 2025 abstracts): a tie, a thin space
    ("short- and long-context benchmarks, as well as supervised fine-tuning~(SFT). We further propose",
     ("supervised fine-tuning", "SFT")),
    ("We train with Group Relative Policy Optimization\\,(GRPO) on math.",
     ("Group Relative Policy Optimization", "GRPO")),
]


def test_latex_spacing_changes_no_offset(rules: Extractor) -> None:
    """A tie or a thin space reads as a space, and every mention's offsets still index the text as
    written."""
    text = "We apply Direct Preference Optimization~(DPO) and report pass@1 on MATH500\\;(500 problems)."
    ex = rules.extract_text(text)
    assert ("Direct Preference Optimization", "DPO") in [tuple(a) for a in ex.aliases]
    check_offsets(ex)
    assert all(text[m.start:m.end] == m.text for m in ex.mentions)


@pytest.mark.parametrize(("text", "pair"), LONG_FORMS)
def test_long_form_keeps_the_words_its_short_form_needs(rules: Extractor, text: str,
                                                        pair: tuple[str, str]) -> None:
    ex = rules.extract_text(text)
    assert {short: long for long, short in ex.aliases}.get(pair[1]) == pair[0]


def test_acronym_without_definition_is_no_alias(rules: Extractor) -> None:
    ex = rules.extract_text("The DP baseline is strong. We report results on ImageNet.")
    assert ex.aliases == []
    assert entities(ex).get("ImageNet") == "Dataset"


MODELS = [
    ("We fine-tune Qwen2.5-7B-Instruct on math problems.", "Qwen2.5-7B-Instruct"),
    ("Experiments with LLaMA3.1-8B show gains.", "LLaMA3.1-8B"),
    ("We compare against GPT-4o and report win rates.", "GPT-4o"),
    ("DeepSeek-R1-Zero learns to reason without supervised data.", "DeepSeek-R1-Zero"),
    ("A ResNet-50 backbone is trained from scratch.", "ResNet-50"),
    ("Starting from Qwen3-8B, we apply our method.", "Qwen3-8B"),
    ("We distill into Llama-3.2-1B for deployment.", "Llama-3.2-1B"),
]


@pytest.mark.parametrize(("text", "name"), MODELS)
def test_versioned_model_names_keep_version_and_size(extractor: Extractor, text: str, name: str) -> None:
    ex = extractor.extract_text(text)
    check_offsets(ex)
    assert entities(ex).get(name) == "Model", entities(ex)


# Versions and tiers written after a space, from real abstracts (2512.16899 and the arXiv corpus); the
# rules alone found only the family (`Gemini`), a wrong boundary and a wrong entity.
SPACED_MODELS = [
    ("The latest Gemini 3 Pro attains 75-80% accuracy.", ["Gemini 3 Pro"]),
    ("Our results show that even the best performing LLM, Claude 3.5 Sonnet, can only fully solve 18% of "
     "the games.", ["Claude 3.5 Sonnet"]),
    ("Our approach fine-tunes a smaller Llama 3.1 8B Instruct model by distilling knowledge from a quantized "
     "Llama 3.1 405B Instruct teacher model.", ["Llama 3.1 8B Instruct", "Llama 3.1 405B Instruct"]),
    ("We compare Claude Sonnet 4.6, DeepSeek V3 and Mistral Large.",
     ["Claude Sonnet 4.6", "DeepSeek V3", "Mistral Large"]),
    ("We run BERT 5 times with 12 layers and GPT 4 of 10 times.", ["BERT", "GPT"]),
    ("Baselines include Llama 3.", ["Llama 3"]),
    # a score, share, multiplier, fraction or size list after a name is not its version (arXiv abstracts)
    ("RankE improves both simultaneously (FID 15.21, CLIP 33.76 on MS-COCO 30K).", ["CLIP"]),
    ("Models differ (PDS: Qwen 0.907, Mistral 0.729 on the Kashmir subset).", ["Qwen", "Mistral"]),
    ("The feature extractor is the dominant factor (ResNet50 0.566 versus 0.61).", ["ResNet50"]),
    ("Outputs were 85\\% male for ImageFX and Grok 86.6\\% male.", ["Grok"]),
    ("Experiments with Llama3 8/70B and Mixtral 8*7B models show the same trend.", ["Llama3", "Mixtral"]),
    ("Across 13 tasks, GPT-5 Thinking solves 7/13 and o3 6/13.", ["GPT-5 Thinking", "o3"]),
    ("We prompt the GPT-2 Large Language Model (LLM) with attack logs.", ["GPT-2"]),
    ("The detector uses Faster R-CNN ResNet50 V1 features.", ["Faster R-CNN", "ResNet50 V1"]),
    ("We study Claude 3.5/3.7 Sonnet and Llama 2/3 baselines.", ["Claude 3.5", "Llama 2"]),
    ("Claude 3 Opus scores 86 on MMLU, ahead of Claude 3 Opus 71 in our rerun with a BERT 12-layered judge.",
     ["Claude 3 Opus", "BERT"]),
    ("We prompt the Gemini Large Vision Language Model and VGG 19.", ["Gemini", "VGG 19"]),
]


@pytest.mark.parametrize(("text", "names"), SPACED_MODELS)
def test_model_versions_after_a_space_are_part_of_the_name(rules: Extractor, text: str,
                                                           names: list[str]) -> None:
    ex = rules.extract_text(text)
    check_offsets(ex)
    assert sorted(n for n, t in entities(ex).items() if t == "Model") == sorted(names)


NAMED = [
    ("We optimise the policy with GRPO and compare with PPO and DQN.",
     {"GRPO": "Method", "PPO": "Method", "DQN": "Method"}),
    ("Experiments on CIFAR-10 and ImageNet show gains over prior work.",
     {"CIFAR-10": "Dataset", "ImageNet": "Dataset"}),
    ("We report accuracy on MATH500 and GSM8K.", {"MATH500": "Benchmark", "GSM8K": "Benchmark"}),
    ("Offline agents are evaluated on D4RL locomotion tasks.", {"D4RL": "Benchmark"}),
    ("Aligning models with RLHF remains costly.", {"RLHF": "Method"}),
]


@pytest.mark.parametrize(("text", "expected"), NAMED)
def test_well_known_names(extractor: Extractor, text: str, expected: dict[str, str]) -> None:
    found = entities(extractor.extract_text(text))
    for name, etype in expected.items():
        assert found.get(name) == etype, (name, found)


def test_latex_q_learning_is_kept_as_written(extractor: Extractor) -> None:
    text = "We analyse decentralized $Q$-learning in Markov potential games."
    ex = extractor.extract_text(text)
    check_offsets(ex)
    assert any("$Q$-learning" in m.text for m in ex.mentions), entities(ex)


@pytest.mark.parametrize("dash", ["\u2010", "\u2011", "\u2013", "\u2212"])
def test_unicode_dashes_in_names(extractor: Extractor, dash: str) -> None:
    name = f"Qwen2.5{dash}7B{dash}Instruct"
    text = f"We fine{dash}tune {name} and reach state{dash}of{dash}the{dash}art results on CIFAR{dash}10."
    ex = extractor.extract_text(text)
    check_offsets(ex)
    found = entities(ex)
    assert found.get(name) == "Model", found
    assert f"CIFAR{dash}10" in found
    assert not any("state" in t for t in found)


INTRODUCED = [
    ("We propose Group Filtered Policy Optimization (GFPO), a simple method.", "GFPO", True),
    ("We introduce Token Filtering Networks (TFN) for long documents.", "TFN", True),
    ("Our approach, dubbed FlowRL, matches reward distributions.", "FlowRL", True),
    ("We use Proximal Policy Optimization (PPO) to train the agent.", "PPO", False),
    ("Prior work relies on Direct Preference Optimization (DPO).", "DPO", False),
]


@pytest.mark.parametrize(("text", "name", "flag"), INTRODUCED)
def test_introduced_flag(extractor: Extractor, text: str, name: str, flag: bool) -> None:
    ex = extractor.extract_text(text)
    flags = {m.text: m.introduced for m in ex.mentions}
    assert name in flags, flags
    assert flags[name] is flag


def test_propose_vs_use_in_one_abstract(extractor: Extractor) -> None:
    text = ("We propose Adaptive Margin Tuning (AMT), which builds on Proximal Policy Optimization (PPO). "
            "AMT outperforms PPO on MuJoCo.")
    out = extractor.extract_text(text).to_json()
    flags = {e["text"]: e["introduced"] for e in out["entities"]}
    assert flags.get("AMT") is True and flags.get("Adaptive Margin Tuning") is True
    assert flags.get("PPO") is False
    rels = {tuple(r) for r in out["relations"]}
    assert ("Adaptive Margin Tuning", "COMPARED_WITH", "Proximal Policy Optimization") in rels, rels
    assert ("Adaptive Margin Tuning", "EVALUATED_ON", "MuJoCo") in rels, rels


@pytest.mark.parametrize("text", [
    "Large language models (LLMs) are widely used.",
    "Diffusion models and neural networks are generic kinds.",
    "Vision-language models (VLMs) describe images.",
])
def test_generic_kinds_are_not_entities(extractor: Extractor, text: str) -> None:
    found = {t.lower() for t in entities(extractor.extract_text(text))}
    assert not found & {"llms", "large language models", "diffusion models", "neural networks",
                        "vision-language models", "vlms"}, found


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "(", "()"])
def test_empty_and_degenerate_texts(extractor: Extractor, text: str) -> None:
    ex = extractor.extract_text(text, paper_id="p0")
    assert ex.paper_id == "p0"
    assert ex.mentions == [] and ex.relations == [] and ex.aliases == []
    assert ex.to_json()["entities"] == []


def test_extract_keeps_order_and_ids(rules: Extractor) -> None:
    papers = [(f"p{i}", f"Paper {i} evaluates GRPO on GSM8K.") for i in range(5)] + [("empty", "")]
    out = list(rules.extract(papers))
    assert [ex.paper_id for ex in out] == [p for p, _ in papers]
    for ex, (_, text) in zip(out, papers, strict=True):
        assert ex.text == text
        check_offsets(ex)


def test_long_text_is_split_with_a_warning_and_offsets_shift(rules: Extractor) -> None:
    sentence = "We evaluate GRPO on GSM8K with Qwen3-8B. "
    text = sentence * 2000  # 84,000 chars
    small = Extractor(mode="rules")
    small.limit = 5_000
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ex = small.extract_text(text, paper_id="long")
    assert any("chunks" in str(w.message) for w in caught)
    assert ex.text == text
    check_offsets(ex)
    grpo = [m for m in ex.mentions if m.text == "GRPO"]
    assert len(grpo) == 2000
    assert grpo[-1].start == text.rfind("GRPO")


def test_text_longer_than_spacy_max_length_does_not_crash(rules: Extractor) -> None:
    nlp_max = build_nlp("rules").max_length
    text = ("We apply PPO to Atari. " * (nlp_max // 23 + 10)).strip()
    assert len(text) > nlp_max
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = rules.extract_text(text, paper_id="huge")
    assert ex.text == text
    assert ex.mentions[-1].end <= len(text)
    assert ex.mentions[-1].text == text[ex.mentions[-1].start:ex.mentions[-1].end]


def test_to_json_is_the_extract_line(extractor: Extractor) -> None:
    text = "We propose FlowRL. FlowRL outperforms GRPO on MATH500."
    line = extractor.extract_text(text, paper_id="abc").to_json()
    assert line["id"] == "abc"
    for ent in line["entities"]:
        assert text[ent["start"]:ent["end"]] == ent["text"]
        assert ent["type"] in {"Method", "Model", "Dataset", "Benchmark", "Metric", "Task"}


def test_two_processes_give_the_same_result() -> None:
    papers = [(str(i), t) for i, (t, _) in enumerate(ACRONYMS + MODELS)]
    one = [ex.to_json() for ex in Extractor(mode="rules").extract(papers)]
    two = [ex.to_json() for ex in Extractor(mode="rules", n_process=2, batch_size=2).extract(papers)]
    assert one == two


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(ValueError):
        build_nlp("fast")
