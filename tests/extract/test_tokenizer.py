"""The finer tokenizer (`extract/tokenizer.py`): names glued to dashes, slashes, parentheses or LaTeX
become tokens of their own, so a span can end where the name ends. Sentences from real abstracts."""

from __future__ import annotations

import pytest
import spacy

from paperkg.extract.tokenizer import customize_tokenizer


@pytest.fixture(scope="module")
def nlp() -> spacy.language.Language:
    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    return nlp


@pytest.mark.parametrize(("text", "tokens"), [
    ("Qwen2.5-7B-Instruct", ["Qwen2.5", "-", "7B", "-", "Instruct"]),
    ("Policy Optimization(GRPO)", ["Policy", "Optimization", "(", "GRPO", ")"]),
    ("accuracy on MMLU.", ["accuracy", "on", "MMLU", "."]),
    ("a gated recurrent unit (GRU)-Recurrent Neural Network",
     ["a", "gated", "recurrent", "unit", "(", "GRU", ")", "-", "Recurrent", "Neural", "Network"]),
    ("reinforcement learning (RL)-based post-training",
     ["reinforcement", "learning", "(", "RL", ")", "-", "based", "post", "-", "training"]),
    ("on OfficeHome~\\cite{tomm-ude} and PACS~\\cite{pacs}.",
     ["on", "OfficeHome", "~", "\\cite{tomm", "-", "ude", "}", "and", "PACS", "~", "\\cite{pacs", "}", "."]),
    ("$Q$-learning", ["$", "Q", "$", "-", "learning"]),
])
def test_tokens(nlp: spacy.language.Language, text: str, tokens: list[str]) -> None:
    assert [t.text for t in nlp(text)] == tokens
