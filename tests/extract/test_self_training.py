"""Self-training rows (`training/train_mentions.pseudo_instances`): only the scorer's confident
predictions on unlabelled abstracts become training rows."""

from __future__ import annotations

from paperkg.extract.mention_scorer import SparseSoftmax
from paperkg.extract.training.train_mentions import (
    LABELS,
    SelfTrain,
    pseudo_instances,
    rule_nlp,
    unlabelled_rows,
)

TASK = LABELS.index("Task")


def row(label: int, score: float) -> list[float]:
    out = [0.0] * len(LABELS)
    out[label] = score
    return out


# P(entity) = 1 - P(O): about 1, about 0, and 0.74 (neither sure)
MODEL = SparseSoftmax(LABELS, {"sure_task": row(TASK, 9.0), "sure_o": row(0, 9.0),
                               "unsure": [a + b for a, b in zip(row(0, 1.0), row(TASK, 1.0), strict=True)]})


def test_confident_entities_take_their_type_confident_non_entities_o_the_rest_nothing() -> None:
    unlabelled = [[["sure_task"], ["sure_o"], ["unsure"]], []]
    rows = pseudo_instances(unlabelled, MODEL, SelfTrain(high=0.8, low=0.05, negatives=1.0), seed=13)
    assert rows == [(["sure_task"], TASK), (["sure_o"], 0)]
    rows = pseudo_instances(unlabelled, MODEL, SelfTrain(high=0.8, low=0.05, negatives=0.0), seed=13)
    assert rows == [(["sure_task"], TASK)]


def test_unlabelled_rows_are_the_candidates_features_of_each_doc() -> None:
    docs = list(rule_nlp().pipe(["We propose Adaptive Margin Tuning (AMT) for image segmentation.", ""]))
    rows = unlabelled_rows(docs, None, None)
    assert len(rows) == 2 and rows[1] == []
    assert any("surf=adaptive margin tuning" in feats for feats in rows[0])
