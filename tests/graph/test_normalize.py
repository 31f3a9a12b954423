"""Name keys: which spellings are one entity. Cases from the 2,500 real arXiv abstracts' top lists."""

from __future__ import annotations

import pytest

from paperkg.graph.normalize import compact_key, latex_plain, slug

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
    # LaTeX styling, as the 2,500 arXiv abstracts write names (2601.02314 `\textit{Chain-of-Thought} (CoT)`)
    ("\\textit{Chain-of-Thought}", "Chain-of-Thought"),
    ("$\\textbf{TAPE}$", "TAPE"),
    ("\\textbf{M}ulti-\\textbf{V}iew \\textbf{A}ttention \\textbf{N}etworks", "Multi-View Attention Network"),
    ("$\\textit{Meta Ranking}$", "Meta Ranking"),
    ("$k$-NN", "k-NN"),
    # a long form cut from `\\textit{Difficulty-Aware Contrastive Regularization (DACR)}`: its styling open
    ("\\textit{Difficulty-Aware Contrastive Regularization", "Difficulty-Aware Contrastive Regularization"),
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
    ("$\\mathcal{L}$", "L"),                # a symbol's font is part of it
]


@pytest.mark.parametrize(("a", "b"), ONE_ENTITY)
def test_plural_and_score_spellings_share_a_key(a: str, b: str) -> None:
    assert compact_key(a) == compact_key(b)


@pytest.mark.parametrize(("a", "b"), APART)
def test_names_that_only_look_plural_keep_their_key(a: str, b: str) -> None:
    assert compact_key(a) != compact_key(b)


def test_styled_names_get_plain_ids() -> None:
    styled = "\\textbf{M}ulti-\\textbf{V}iew \\textbf{A}ttention \\textbf{N}etworks"
    assert slug(styled) == "multi-view-attention-networks"
    assert latex_plain("$\\textit{Meta Ranking}$") == "Meta Ranking"
    assert latex_plain("V_{0.5}") == "V_{0.5}"
    assert latex_plain("Optimization\\,(GRPO)") == "Optimization\\,(GRPO)"   # spacing: `latex_spacing`
