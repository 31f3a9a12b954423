"""Name keys: which spellings are one entity. Cases from the 2,500 real arXiv abstracts' top lists."""

from __future__ import annotations

import pytest

from paperkg.graph.normalize import compact_key

ONE_ENTITY = [
    ("attention mechanisms", "attention mechanism"),
    ("success rates", "success rate"),
    ("VAEs", "VAE"),
    ("LoRAs", "LoRA"),
    ("LLMs", "LLM"),
    ("NeRFs", "NeRF"),
    ("error rates", "error rate"),
    ("F1-score", "F1"),
    ("F1 scores", "F1"),
    ("BLEU score", "BLEU"),
    ("ROUGE-L score", "ROUGE-L"),
    ("reasoning strategies", "reasoning strategy"),
    ("image patches", "image patch"),
    ("Diffusion Models", "diffusion model"),
    ("Qwen3-8B", "qwen3 8b"),
]

APART = [
    ("Inception Score", "Inception"),      # a metric named after a model
    ("bias", "bia"),
    ("loss", "los"),
    ("corpus", "corpu"),
    ("analysis", "analysi"),
    ("time series", "time serie"),
    ("robotics", "robotic"),
    ("FPS", "FP"),                         # an acronym ending in S is no plural
    ("VITS", "ViT"),                       # a speech model, not vision transformers
    ("gas", "ga"),
    ("GPT-4o", "GPT"),
    ("AIME 2024", "AIME 2025"),
]


@pytest.mark.parametrize(("a", "b"), ONE_ENTITY)
def test_plural_and_score_spellings_share_a_key(a: str, b: str) -> None:
    assert compact_key(a) == compact_key(b)


@pytest.mark.parametrize(("a", "b"), APART)
def test_names_that_only_look_plural_keep_their_key(a: str, b: str) -> None:
    assert compact_key(a) != compact_key(b)
