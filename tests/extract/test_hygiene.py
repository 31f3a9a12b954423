"""Real-text hygiene (issue 9 item 4): sizes, numbers, dimensions, versions, hardware, vendors and
modifiers alone are never entities, a span with a line break never is one, and the names around them
survive. Sentences are from the real arXiv abstracts in `shared/data/arxiv/abstracts.jsonl` (ids given)."""

from __future__ import annotations

import pytest

from paperkg.extract.hygiene import is_not_entity
from paperkg.extract.pipeline import Extractor


@pytest.mark.parametrize(("text", "never"), [
    *((t, True) for t in ("7B", "8B", "32B", "1.5T", "3.1 8B", "3.1-8B", "3D", "2D", "4D", "256x256", "v1.1",
                          "V2", "98%", "12", ".7315", "GPU", "GPUs", "CPU", "AMD", "NVIDIA", "YouTube", "PET",
                          "MRI", "E2E", "KV", "V-L", "KGs", "XL", "XXL", "AI-generated", "LLM-generated",
                          "AI-assisted",
                          "Group Relative Policy\nOptimization", "RL)-based post-training", "P(Y",
                          "OfficeHome~\\cite{tomm-ude}", "b]})\\sum_{t", "9.15x", "9.23x", "3.2×", "V_{0.5}",
                          "x_1", "reach state\u2212", "-based")),
    *((t, False) for t in ("GPT-4", "Llama-3.1-8B", "Mistral-7B", "T5", "R1", "o1", "3DGS", "D4RL",
                           "ResNet-50", "SDXL", "Stable Diffusion XL", "ImageNet 256x256", "CIFAR-10", "GRPO",
                           "model-free", "MATH500",
                           "Chain-of-Thought (CoT) distillation", "Claude 3.5~Sonnet")),
])
def test_is_not_entity(text: str, never: bool) -> None:
    assert is_not_entity(text) is never


@pytest.fixture(scope="module", params=["default", "rules"])
def extractor(request: pytest.FixtureRequest) -> Extractor:
    return Extractor(mode=request.param)


CASES = [
    # (arXiv id, sentence, surfaces never mentioned, surfaces that stay mentioned)
    ("2601.13590",
     "While GPT-4o-mini achieves near-complete robustness (98.6%) and Mistral 7B improves substantially "
     "(35.7% to 79.3%), Llama models remain highly susceptible.",
     {"7B"}, {"GPT-4o-mini"}),
    ("2602.13842",
     "To this end, a dataset of preoperative TAVI patients was collected, and 3D convolutional neural "
     "networks were trained on isotropic CT volumes.",
     {"3D", "CT"}, set()),
    ("2509.24526",
     "Empirically, CMT achieves state of the art two step FIDs: 1.97 on CIFAR-10, 1.32 on ImageNet 64x64, "
     "and 1.84 on ImageNet 512x512, while using up to 98% less training data and GPU time, compared to CMs.",
     {"GPU", "98%"}, {"CIFAR-10"}),
    ("2509.06794",
     "Experimental results on both AMD Ryzen AI NPU and Alveo FPGA devices demonstrate that Dato achieves "
     "high performance.",
     {"AMD", "NPU", "FPGA"}, set()),
    ("2401.16423",
     "Our objective is audio-visual synchronization with a focus on 'in-the-wild' videos, such as those "
     "on YouTube, where synchronization cues can be sparse.",
     {"YouTube"}, set()),
    ("2509.24739",
     "To the best of our knowledge, this is the first dataset to provide comprehensive PET/CT-report pairs "
     "in Vietnamese.",
     {"PET"}, set()),
    ("2410.13282",
     "To address this issue, we propose an end-to-end (E2E) method that integrates VAD and SER using "
     "Self-Supervised Learning (SSL) features.",
     {"E2E"}, {"Self-Supervised Learning"}),
    ("2406.07546",
     "Even the DALL-E 3 model could only achieve 48.92% on Commonsense-T2I, and the stable diffusion XL "
     "model only achieves 24.92% accuracy.",
     {"XL"}, set()),
    ("2604.17268", "AI-generated imagery has reached near-photorealistic fidelity.", {"AI-generated"}, set()),
    ("2507.20566",
     "Existing knowledge graphs (KGs) inevitably contain outdated or erroneous knowledge that needs to be "
     "removed from knowledge graph embedding (KGE) models.",
     {"KGs"}, {"KGE"}),
    ("2607.22869",
     "IMC-MCTS achieves 96x energy efficiency over a central processing unit (CPU) and 65x over an H100 "
     "graphics processing unit (GPU).",
     # (the learned default mode keeps the whole name `IMC-MCTS`, the rules `MCTS`: both are fine here)
     {"CPU", "GPU", "H100", "central processing unit", "graphics processing unit"}, set()),
    # a hard line break as arXiv metadata has them, passed to the extractor directly
    ("2402.03300",
     "We introduce Group Relative Policy\nOptimization (GRPO), a variant of Proximal Policy Optimization "
     "(PPO).",
     set(), {"PPO"}),
]


@pytest.mark.parametrize(("arxiv_id", "text", "never", "kept"), CASES, ids=[c[0] for c in CASES])
def test_real_sentences(extractor: Extractor, arxiv_id: str, text: str, never: set, kept: set) -> None:
    names = {m.text for m in extractor.extract_text(text, arxiv_id).mentions}
    assert not names & never, names
    assert kept <= names, names
    assert not any("\n" in n or "\r" in n for n in names)
