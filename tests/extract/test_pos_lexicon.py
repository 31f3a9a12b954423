"""The part-of-speech lexicon of UD English EWT (`training/pos_lexicon.py`) and the scorer's tag features."""

from __future__ import annotations

from collections import Counter

import spacy

from paperkg.extract.mention_scorer import pos_features, pos_of
from paperkg.extract.training.pos_lexicon import _tag

LEXICON = {"we": "PRON", "propose": "VERB", "a": "DET", "graph": "NOUN", "neural": "ADJ",
           "network": "NOUN", "for": "ADP", "~ion": "NOUN"}


def test_tag_is_the_most_frequent_or_the_two_most_frequent_when_ambiguous() -> None:
    assert _tag(Counter({"NOUN": 9, "VERB": 1})) == "NOUN"
    assert _tag(Counter({"VERB": 6, "NOUN": 4})) == "NOUN/VERB"
    assert _tag(Counter({"PROPN": 2})) == "PROPN"


def test_unknown_words_take_their_suffix_tag_names_and_numbers_are_x() -> None:
    assert pos_of("network", LEXICON) == "NOUN"
    assert pos_of("segmentation", LEXICON) == "NOUN"
    assert pos_of("GRPO".lower(), LEXICON) == "X"
    assert pos_of("50k", LEXICON) == "X"


def test_pos_features_name_the_span_edges_and_its_neighbours() -> None:
    lowers = [t.lower_ for t in spacy.blank("en")("we propose a graph neural network for segmentation")]
    start, end = lowers.index("graph"), lowers.index("network") + 1
    feats = pos_features(lowers, start, end, LEXICON)
    assert {"uf=NOUN", "uh=NOUN", "up=DET", "un=ADP", "useq=NOUN_ADJ_NOUN", "uhn=NOUN_ADP",
            "upf=DET_NOUN"} == set(feats)
    feats = pos_features(lowers, lowers.index("segmentation"), len(lowers), LEXICON)
    assert "un=<s>" in feats and "up=ADP" in feats
