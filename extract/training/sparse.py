"""Small, deterministic trainers for multinomial logistic regression over sparse binary features, and
for a softmax over one tanh hidden layer of them (the mention scorer's, `train_mlp`).

Mini-batch Adagrad with L2, in numpy only (no scipy or scikit-learn in the runtime environment), so
every shipped model can be rebuilt on 2 cores in seconds. Fixed seed -> identical weights.
"""

from __future__ import annotations

from collections import Counter

import numpy as np


def _indexed(examples: list[tuple[list[str], int]], min_count: int, weights: list[float] | None):
    """Feature names seen in at least `min_count` examples, and the examples as flat index arrays
    (those with no kept feature dropped): (names, indices, indptr, lengths, labels, example weights)."""
    counts = Counter(f for feats, _ in examples for f in set(feats))
    names = sorted(f for f, c in counts.items() if c >= min_count)
    index = {f: i for i, f in enumerate(names)}
    rows = [sorted({index[f] for f in feats if f in index}) for feats, _ in examples]
    keep = [i for i, r in enumerate(rows) if r]
    rows = [rows[i] for i in keep]
    y = np.array([examples[i][1] for i in keep])
    w_ex = np.array([weights[i] for i in keep]) if weights is not None else np.ones(len(keep))
    lens = np.array([len(r) for r in rows])
    indptr = np.concatenate([[0], np.cumsum(lens)])
    indices = np.array([i for r in rows for i in r], dtype=np.int64)
    return names, indices, indptr, lens, y, w_ex


def _batches(indices: np.ndarray, indptr: np.ndarray, lens: np.ndarray, y: np.ndarray, w_ex: np.ndarray,
             epochs: int, batch: int, rng: np.random.Generator):
    """Per mini-batch of a fresh permutation each epoch: (feature indices, segment starts, each index's
    example within the batch, labels, example weights)."""
    n = len(lens)
    for _epoch in range(epochs):
        perm = rng.permutation(n)
        lens_p = lens[perm]
        ip = np.concatenate([[0], np.cumsum(lens_p)])
        pos = np.repeat(indptr[perm] - ip[:-1], lens_p) + np.arange(ip[-1])
        ind_p = indices[pos]
        y_p, w_p = y[perm], w_ex[perm]
        for a in range(0, n, batch):
            b = min(a + batch, n)
            lo = ip[a]
            owner = np.repeat(np.arange(b - a), lens_p[a:b])
            yield ind_p[lo:ip[b]], ip[a:b] - lo, owner, y_p[a:b], w_p[a:b]


def _rows_of(names: list[str], W: np.ndarray) -> dict[str, list[float]]:
    return {f: [round(float(x), 4) for x in W[i]] for i, f in enumerate(names) if np.abs(W[i]).max() >= 1e-3}


def train_softmax(examples: list[tuple[list[str], int]], n_labels: int, *, epochs: int = 8,
                  l2: float = 1e-5, lr: float = 0.2, batch: int = 64, min_count: int = 1, seed: int = 13,
                  weights: list[float] | None = None) -> dict[str, list[float]]:
    """Feature -> weight row. `weights` (one per example) scales each example's loss."""
    names, indices, indptr, lens, y, w_ex = _indexed(examples, min_count, weights)
    W = np.zeros((len(names), n_labels))
    H = np.full((len(names), n_labels), 1e-6)
    eye = np.eye(n_labels)
    rng = np.random.default_rng(seed)
    for b_idx, seg, owner, y_b, w_b in _batches(indices, indptr, lens, y, w_ex, epochs, batch, rng):
        S = np.add.reduceat(W[b_idx], seg, axis=0)
        S -= S.max(axis=1, keepdims=True)
        P = np.exp(S)
        P /= P.sum(axis=1, keepdims=True)
        R = (P - eye[y_b]) * w_b[:, None]
        uniq, inv = np.unique(b_idx, return_inverse=True)
        G = np.empty((len(uniq), n_labels))
        Ro = R[owner]
        for k in range(n_labels):
            G[:, k] = np.bincount(inv, weights=Ro[:, k], minlength=len(uniq))
        G += l2 * W[uniq]
        H[uniq] += G * G
        W[uniq] -= lr * G / np.sqrt(H[uniq])
    return _rows_of(names, W)


def train_mlp(examples: list[tuple[list[str], int]], n_labels: int, *, hidden: int = 32, epochs: int = 8,
              l2: float = 1e-5, lr: float = 0.2, batch: int = 64, min_count: int = 1, seed: int = 13,
              weights: list[float] | None = None) -> tuple[dict[str, list[float]], list[list[float]]]:
    """One tanh hidden layer over the same sparse features: (feature -> `hidden`-wide row, the output
    layer as `hidden` + 1 rows of `n_labels`, the last its bias). Feature rows start at zero and the
    output layer random, so the first steps are the linear model's through a fixed projection."""
    names, indices, indptr, lens, y, w_ex = _indexed(examples, min_count, weights)
    rng = np.random.default_rng(seed)
    W = np.zeros((len(names), hidden))
    H = np.full((len(names), hidden), 1e-6)
    V = rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden + 1, n_labels))
    HV = np.full(V.shape, 1e-6)
    eye = np.eye(n_labels)
    for b_idx, seg, owner, y_b, w_b in _batches(indices, indptr, lens, y, w_ex, epochs, batch, rng):
        A = np.tanh(np.add.reduceat(W[b_idx], seg, axis=0))
        S = A @ V[:-1] + V[-1]
        S -= S.max(axis=1, keepdims=True)
        P = np.exp(S)
        P /= P.sum(axis=1, keepdims=True)
        R = (P - eye[y_b]) * w_b[:, None]
        GV = np.vstack([A.T @ R, R.sum(axis=0)]) + l2 * V
        dZ = (R @ V[:-1].T) * (1.0 - A * A)
        order = np.argsort(b_idx, kind="stable")
        sorted_idx = b_idx[order]
        first = np.flatnonzero(np.r_[True, sorted_idx[1:] != sorted_idx[:-1]])
        uniq = sorted_idx[first]
        G = np.add.reduceat(dZ[owner[order]], first, axis=0) + l2 * W[uniq]
        H[uniq] += G * G
        W[uniq] -= lr * G / np.sqrt(H[uniq])
        HV += GV * GV
        V -= lr * GV / np.sqrt(HV)
    return _rows_of(names, W), [[round(float(x), 4) for x in row] for row in V]


def isotonic(xs: list[float], ys: list[int], knots: int = 20) -> list[list[float]]:
    """Pool-adjacent-violators fit of P(correct | raw probability), as at most `knots` [raw, calibrated]
    points (monotone, for numpy.interp at run time)."""
    order = np.argsort(xs, kind="stable")
    x = np.asarray(xs, dtype=float)[order]
    y = np.asarray(ys, dtype=float)[order]
    blocks: list[list[float]] = []  # [sum y, count, min x, max x]
    for xi, yi in zip(x, y, strict=True):
        blocks.append([yi, 1.0, xi, xi])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            s, c, _lo, hi = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
            blocks[-1][3] = hi
    points = [[(b[2] + b[3]) / 2, b[0] / b[1]] for b in blocks]
    if len(points) > knots:
        step = len(points) / knots
        points = [points[int(i * step)] for i in range(knots)] + [points[-1]]
    return [[round(px, 4), round(py, 4)] for px, py in points]
