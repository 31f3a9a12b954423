"""Names listed after a kind cue (`benchmarks such as ...`) and names with hyphenated suffixes
(`CIFAR100-LT`), through the real pipeline in both modes."""

from __future__ import annotations

import pytest

from paperkg.extract.pipeline import Extractor


@pytest.fixture(scope="module", params=["default", "rules"])
def extractor(request: pytest.FixtureRequest) -> Extractor:
    return Extractor(mode=request.param)


def types(extractor: Extractor, text: str) -> dict[str, str]:
    (ex,) = extractor.extract([("t", text)])
    for m in ex.mentions:
        assert ex.text[m.start:m.end] == m.text
    return {m.text: m.type for m in ex.mentions}


LISTED = [
    ("It outperforms prior work on balanced benchmarks such as ImageNet1K, COCO and V3DET.",
     {"ImageNet1K": "Benchmark", "COCO": "Benchmark", "V3DET": "Benchmark"}),
    ("We report results on datasets including MNIST, SVHN, and CelebA.",
     {"MNIST": "Dataset", "SVHN": "Dataset", "CelebA": "Dataset"}),
    ("We measure quality with metrics such as FID and CLIPScore.",
     {"FID": "Metric", "CLIPScore": "Metric"}),
    # a model name keeps its type inside any list; data under a task cue stays data
    ("We compare on benchmarks such as MATH500 using Qwen3-8B.",
     {"MATH500": "Benchmark", "Qwen3-8B": "Model"}),
    ("It solves complex tasks such as ImageNet 32x32.", {"ImageNet 32x32": "Dataset"}),
]


@pytest.mark.parametrize(("text", "expected"), LISTED)
def test_a_kind_cue_types_the_names_it_lists(extractor: Extractor, text: str,
                                            expected: dict[str, str]) -> None:
    found = types(extractor, text)
    for name, etype in expected.items():
        assert found.get(name) == etype, (name, found)


def test_the_list_ends_where_other_words_start(extractor: Extractor) -> None:
    found = types(extractor, "We evaluate on benchmarks such as COCO and then train GRPO with PPO.")
    assert found.get("COCO") == "Benchmark"
    assert found.get("GRPO") == "Method" and found.get("PPO") == "Method"


SUFFIXED = [
    ("We evaluate on CIFAR100-LT and Places-LT.", "CIFAR100-LT", None),
    ("We train with PPO-Clip on MuJoCo.", "PPO-Clip", None),
    ("Results on ImageNet-1K improve.", "ImageNet-1K", None),
    ("A GRPO-based recipe improves reasoning.", "GRPO", "GRPO-based"),     # lower-case suffix: not a name
    ("We propose RL-Inf, an estimator for online RL.", "RL-Inf", None),
]


@pytest.mark.parametrize(("text", "name", "absent"), SUFFIXED)
def test_hyphenated_suffix_is_part_of_the_name(extractor: Extractor, text: str, name: str,
                                               absent: str | None) -> None:
    found = types(extractor, text)
    assert name in found, found
    if absent:
        assert absent not in found
    if name == "RL-Inf":
        assert found[name] == "Method"
