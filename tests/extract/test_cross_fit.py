"""Cross-fitted marks (`training/train_mentions.cross_fit_mark`, `training/build.Settings.cross_fit`):
the head chooser and the relation model learn from mentions each abstract got from a mention model
that never saw its gold, as they meet them on new text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperkg.extract.training import build, cv
from paperkg.extract.training import train_mentions as T

GOLD = Path(build.__file__).resolve().parent / "gold"


def records() -> list[dict]:
    """Twelve real training abstracts of two collections (the folds are drawn within each)."""
    out = []
    for name in ("train.jsonl", "arxiv_train.jsonl"):
        with open(GOLD / name, encoding="utf-8") as fh:
            out += [{**json.loads(line), "collection": name} for _, line in zip(range(6), fh, strict=False)]
    return out


def test_each_doc_is_marked_once_by_a_model_that_did_not_train_on_it(monkeypatch: pytest.MonkeyPatch) -> None:
    recs = records()
    docs = T.rule_docs(T.rule_nlp(), [r["abstract"] for r in recs])
    trained_on: list[set[str]] = []
    marked: dict[str, int] = {}

    def train(docs_, records_, **_kwargs):
        trained_on.append({r["id"] for r in records_})
        return len(trained_on) - 1

    def mark(docs_, model, *_args, **_kwargs):
        for doc in docs_:
            rid = recs[docs.index(doc)]["id"]
            assert rid not in trained_on[model], f"{rid} marked by a model trained on its gold"
            assert rid not in marked, f"{rid} marked twice"
            marked[rid] = model

    monkeypatch.setattr(T, "train", train)
    monkeypatch.setattr(T, "mark", mark)
    T.cross_fit_mark(docs, recs, 3, 13, 0.4, 0.1)
    assert set(marked) == {r["id"] for r in recs}
    assert len(trained_on) == 3
    for model, ids in enumerate(trained_on):
        held = {rid for rid, m in marked.items() if m == model}
        assert ids | held == set(marked) and not ids & held
    assert sorted(sorted(recs[i]["id"] for i in held) for held in cv.folds(recs, 3, 13)) == sorted(
        sorted(rid for rid, m in marked.items() if m == model) for model in range(3))


def test_relations_learn_from_cross_fitted_marks_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    recs = records()
    docs = T.rule_docs(T.rule_nlp(), [r["abstract"] for r in recs])
    calls: list[str] = []
    monkeypatch.setattr(T, "train", lambda *_a, **_k: "model")
    monkeypatch.setattr(T, "mark", lambda *_a, **_k: calls.append("in-sample"))
    monkeypatch.setattr(T, "cross_fit_mark", lambda *_a, **_k: calls.append("cross-fit"))
    monkeypatch.setattr(T, "train_relations", lambda *_a, **_k: type("R", (), {"calibration": {}})())
    build.train_models(docs, recs, build.Settings(), None)
    build.train_models(docs, recs, build.Settings(cross_fit=True), None)
    build.train_models(docs, recs, build.Settings(cross_fit=True), None, marked_docs=docs)
    assert calls == ["in-sample", "cross-fit"]
