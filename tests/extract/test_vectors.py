"""Subword vectors and the word classes they give (`training/vectors.py`), on a real floret model of
`test_clusters`' small corpus of abstract-like sentences."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from paperkg.extract.training import representations
from paperkg.extract.training.vectors import (
    CLASSES_FILE,
    EXTENDED_FILE,
    MODEL_FILE,
    build,
    extend_classes,
    vector_classes,
)
from tests.extract.test_clusters import corpus


def test_a_word_without_a_class_takes_the_nearest_class_centroid() -> None:
    words = ["qwen", "llama", "segmentation", "detection", "qwen3", "tracking"]
    vectors = np.array([[1, 0.1], [1, -0.1], [0.1, 1], [-0.1, 1], [0.9, 0.2], [0.2, 0.8]], dtype=np.float32)
    known = {"qwen": "0|5", "llama": "0|5", "segmentation": "1|7", "detection": "2|7"}
    out = extend_classes(words, vectors, known)
    assert out["qwen3"] == "0|5"
    assert out["tracking"].split("|")[1] == "7"
    assert {w: out[w] for w in known} == known


def test_vector_classes_group_words_by_direction() -> None:
    words = ["a", "b", "c", "d"]
    vectors = np.array([[1, 0], [2, 0.1], [0, 1], [0.1, 3]], dtype=np.float32)
    classes = vector_classes(words, vectors, sizes=(1, 2))
    fine = {w: classes[w].split("|")[1] for w in words}
    assert fine["a"] == fine["b"] != fine["c"] == fine["d"]
    assert vector_classes(words, vectors, sizes=(1, 2)) == classes


def test_build_trains_floret_and_writes_both_maps(tmp_path: Path) -> None:
    path = tmp_path / "abstracts.jsonl"
    lines = [" ".join(words) for words in corpus()] * 3
    path.write_text("".join(json.dumps({"abstract": line}) + "\n" for line in lines), encoding="utf-8")
    known = {"qwen": "0|1", "llama": "0|1", "segmentation": "1|2", "detection": "1|2"}
    counts = build(path, tmp_path / "out", texts=["Mixtral-8x7B does tracking."], known=known)
    assert (tmp_path / "out" / MODEL_FILE).exists()
    classes = representations.read_map(tmp_path / "out" / CLASSES_FILE)
    extended = representations.read_map(tmp_path / "out" / EXTENDED_FILE)
    # every corpus word and every word of the texts has a class, the known ones keep theirs
    assert {"mistral", "captioning", "mixtral", "tracking"} <= set(classes) == set(extended)
    assert {w: extended[w] for w in known} == known
    assert counts["words"] == len(classes)
