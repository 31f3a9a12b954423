"""The numpy trainers of `training/sparse.py`: what the hidden layer adds over the linear softmax, and
that a fixed seed gives the same weights."""

from __future__ import annotations

import numpy

from paperkg.extract.mention_scorer import SparseSoftmax
from paperkg.extract.training.sparse import train_mlp, train_softmax

# label = a XOR b: no linear model of the features `a`, `b` and a bias gets all four cases right
XOR = [(["bias"], 0), (["bias", "a"], 1), (["bias", "b"], 1), (["bias", "a", "b"], 0)]
CASES = [feats for feats, _ in XOR]


def predicted(model: SparseSoftmax) -> list[int]:
    return model.probabilities(CASES).argmax(axis=1).tolist()


def test_the_hidden_layer_learns_what_a_linear_model_cannot() -> None:
    examples = XOR * 200
    linear = SparseSoftmax(["no", "yes"], train_softmax(examples, 2, epochs=20))
    assert predicted(linear) != [0, 1, 1, 0]
    rows, output = train_mlp(examples, 2, hidden=16, epochs=20, lr=0.5)
    model = SparseSoftmax(["no", "yes"], rows, output=output)
    assert predicted(model) == [0, 1, 1, 0]
    assert numpy.all(model.probabilities(CASES).max(axis=1) > 0.9)


def test_a_seed_fixes_the_hidden_layers_weights() -> None:
    examples = XOR * 50
    assert train_mlp(examples, 2, hidden=4, seed=3) == train_mlp(examples, 2, hidden=4, seed=3)
    assert train_mlp(examples, 2, hidden=4, seed=3) != train_mlp(examples, 2, hidden=4, seed=4)
