"""A small, deterministic trainer for multinomial logistic regression over sparse binary features.

Mini-batch Adagrad with L2, in numpy only (no scipy or scikit-learn in the runtime environment), so
every shipped model can be rebuilt on 2 cores in seconds. Fixed seed -> identical weights.
"""

from __future__ import annotations

from collections import Counter

import numpy as np


def train_softmax(examples: list[tuple[list[str], int]], n_labels: int, *, epochs: int = 8,
                  l2: float = 1e-5, lr: float = 0.2, batch: int = 64, min_count: int = 1, seed: int = 13,
                  weights: list[float] | None = None) -> dict[str, list[float]]:
    """Feature -> weight row. `weights` (one per example) scales each example's loss."""
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
    n = len(rows)
    W = np.zeros((len(names), n_labels))
    H = np.full((len(names), n_labels), 1e-6)
    eye = np.eye(n_labels)
    rng = np.random.default_rng(seed)
    for _epoch in range(epochs):
        perm = rng.permutation(n)
        lens_p = lens[perm]
        ip = np.concatenate([[0], np.cumsum(lens_p)])
        pos = np.repeat(indptr[perm] - ip[:-1], lens_p) + np.arange(ip[-1])
        ind_p = indices[pos]
        y_p, w_p = y[perm], w_ex[perm]
        for a in range(0, n, batch):
            b = min(a + batch, n)
            lo, hi = ip[a], ip[b]
            b_idx = ind_p[lo:hi]
            seg = ip[a:b] - lo
            S = np.add.reduceat(W[b_idx], seg, axis=0)
            S -= S.max(axis=1, keepdims=True)
            P = np.exp(S)
            P /= P.sum(axis=1, keepdims=True)
            R = (P - eye[y_p[a:b]]) * w_p[a:b, None]
            owner = np.repeat(np.arange(b - a), lens_p[a:b])
            uniq, inv = np.unique(b_idx, return_inverse=True)
            G = np.empty((len(uniq), n_labels))
            Ro = R[owner]
            for k in range(n_labels):
                G[:, k] = np.bincount(inv, weights=Ro[:, k], minlength=len(uniq))
            G += l2 * W[uniq]
            H[uniq] += G * G
            W[uniq] -= lr * G / np.sqrt(H[uniq])
    return {f: [round(float(x), 4) for x in W[i]] for f, i in index.items() if np.abs(W[i]).max() >= 1e-3}


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
