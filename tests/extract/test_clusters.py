"""Word clusters from unlabelled text (`training/clusters.py`) and the scorer's cluster features."""

from __future__ import annotations

import spacy

from paperkg.extract.mention_scorer import cluster_features
from paperkg.extract.training.clusters import word_clusters

# phrasings of real arXiv abstracts: model names and tasks in the slots they take
SENTENCES = [
    "we fine-tune {m} on {t} and report accuracy",
    "experiments with {m} show gains on {t}",
    "{m} achieves strong results for {t} benchmarks",
    "we compare {m} against baselines in {t}",
]
MODELS = ["qwen", "llama", "mistral", "gemma"]
TASKS = ["segmentation", "detection", "captioning", "retrieval"]


def corpus() -> list[list[str]]:
    return [s.format(m=m, t=t).split() for s in SENTENCES for m in MODELS for t in TASKS]


def test_words_of_one_slot_share_a_cluster_and_runs_repeat() -> None:
    clusters = word_clusters(corpus(), sizes=(2, 4), min_count=2, dims=4)
    coarse = {w: clusters[w].split("|")[0] for w in MODELS + TASKS}
    assert len({coarse[m] for m in MODELS}) == 1
    assert len({coarse[t] for t in TASKS}) == 1
    assert coarse[MODELS[0]] != coarse[TASKS[0]]
    assert word_clusters(corpus(), sizes=(2, 4), min_count=2, dims=4) == clusters


def test_empty_corpus_has_no_clusters() -> None:
    assert word_clusters([], sizes=(2, 4)) == {}


def test_cluster_features_name_head_first_neighbours_and_inner_words() -> None:
    doc = spacy.blank("en")("we fine-tune Qwen on video object segmentation today")
    lowers = [t.lower_ for t in doc]
    clusters = {"video": "1|10", "object": "2|20", "segmentation": "3|30", "on": "4|40", "today": "5|50"}
    start, end = lowers.index("video"), lowers.index("segmentation") + 1
    feats = cluster_features(lowers, start, end, clusters)
    assert {"hc=3", "hcf=30", "fc=1", "fcf=10", "pc=4", "pcf=40", "nc=5", "ncf=50", "wc=2"} <= set(feats)
    # an unknown head or first word says so; an unknown neighbour says nothing
    feats = cluster_features(lowers, lowers.index("qwen"), lowers.index("qwen") + 1, clusters)
    assert "hc=unk" in feats and "fc=unk" in feats and "pc=4" not in feats and "nc=4" in feats
