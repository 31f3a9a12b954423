"""Sentence boundaries (`extract/sentences.py`): spaCy's sentencizer, without the ends it finds in
citations and after abbreviations. Sentences from real abstracts (arXiv ids in the comments)."""

from __future__ import annotations

import pytest
import spacy
from spacy.pipeline import Sentencizer

from paperkg.extract.sentences import SentenceSplitter, join_false_starts
from paperkg.extract.tokenizer import customize_tokenizer


@pytest.fixture(scope="module")
def nlp() -> spacy.language.Language:
    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    nlp.add_pipe("paperkg_sentences", name="sentencizer")
    return nlp


ONE_SENTENCE = [
    # 2603.01896 (results_train): the benchmark of `87%` was cut off from it
    "For code question answering on RubberDuckBench Mohammad et al. (2026), semi-formal reasoning "
    "achieves 87% accuracy.",
    # 2402.00041, 2402.01173, 2402.09129, 2402.05188: citations
    "In a computational study, we benchmark the DRI against the Hybrid Genetic Search (HGS) of Vidal et "
    "al. (2013).",
    "The existing embedding model (Wang et al., 2022) only achieves an AUC of 0.51.",
    "This includes adverse selection (Milionis et al. 2022).",
    "This motivates the pioneering work of Liang et al. [35] that uses an LLM to translate commands.",
    # 2402.00034, 2402.00707, 2402.01476: abbreviations before a lower-case word
    "Prior studies focus on failure instance (disk, node, and switch, etc.) prediction.",
    "Its application to text generation is challenging since any i.i.d. assumptions are not realistic.",
    "The SVGP pair induced by the singular vectors from KSVD w.r.t. the attention kernel fully "
    "characterizes the asymmetry.",
]

SENTENCES = [
    # real ends stay ends: a capital after a name's period, after `et al.`, after `etc.`
    ["IM boosts performance on AlpacaEval 1.0 by over 100%.", "We identify two key factors."],
    ["This was proposed by Vidal et al.", "We extend it to GRPO."],
    ["We test images, text, etc.", "Results are mixed."],
    ["GMPO-7B outperforms GRPO on MATH500.", "Code is available."],
    # a lower-case name after a plain word's period starts a sentence
    ["It aims to enhance diagnostic capabilities.", "medIKAL assigns weighted importance to entities."],
    # an enumeration's sentence starts at its bracket (spaCy's kept the bracket with the sentence
    # before: `... methods. (` and `2) The integration ...`)
    ["It surpasses speech assessment methods.", "(2) The integration of text helps."],
    ["What are the properties?", "(a) Interpretable: it explains itself."],
]


@pytest.mark.parametrize("text", ONE_SENTENCE)
def test_a_citation_or_an_abbreviation_does_not_end_a_sentence(nlp: spacy.language.Language,
                                                               text: str) -> None:
    assert [s.text for s in nlp(text).sents] == [text]
    assert len(list(Sentencizer()(nlp.make_doc(text)).sents)) > 1     # spaCy's alone cuts it


@pytest.mark.parametrize("sentences", SENTENCES)
def test_real_ends_stay(nlp: spacy.language.Language, sentences: list[str]) -> None:
    assert [s.text for s in nlp(" ".join(sentences)).sents] == sentences


@pytest.mark.parametrize(("words", "starts", "expected"), [
    (["al", ".", "(", "2013", ")", "."], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0]),
    (["al", ".", ",", "2022", ")"], [1, 0, 0, 1, 0], [1, 0, 0, 0, 0]),
    (["al", ".", "2022", ")"], [1, 0, 1, 0], [1, 0, 0, 0]),
    (["al", ".", "We"], [1, 0, 1], [1, 0, 1]),
    (["GSM8K", ".", "2", ")", "The"], [1, 0, 1, 0, 0], [1, 0, 1, 0, 0]),   # an enumeration starts
    (["w.r.t", ".", "the"], [1, 0, 1], [1, 0, 0]),
    (["ones", ".", "(", "2", ")"], [1, 0, 0, 1, 0], [1, 0, 1, 0, 0]),       # moved onto the bracket
    (["al", ".", "[", "35", "]"], [1, 0, 0, 1, 0], [1, 0, 0, 0, 0]),
    (["ie", ".", "a", "step"], [1, 0, 1, 0], [1, 0, 0, 0]),
    (["1", ".", "deliberate"], [1, 0, 1], [1, 0, 0]),
    (["cost", ".", "our", "code"], [1, 0, 1, 0], [1, 0, 1, 0]),             # a plain word's period
    (["of", "0.87", ".", "70", "%"], [1, 0, 0, 1, 0], [1, 0, 0, 1, 0]),     # a decimal's
    (["summer", "?", '"', "unaddressed"], [1, 0, 0, 1], [1, 0, 0, 0]),
    (["Qwen2.5", ".", "mT5", "fails"], [1, 0, 1, 0], [1, 0, 1, 0]),        # a version, no abbreviation
    (["!", "hello"], [1, 1], [1, 0]),                                       # the first start stays
    (["(", "x"], [1, 1], [1, 0]),
])
def test_join_false_starts(words: list[str], starts: list[int], expected: list[int]) -> None:
    assert join_false_starts(words, [bool(s) for s in starts]) == [bool(e) for e in expected]


def test_the_extractor_uses_it_under_the_sentencizers_name() -> None:
    from paperkg.extract.pipeline import build_nlp

    assert isinstance(build_nlp("rules").get_pipe("sentencizer"), SentenceSplitter)
