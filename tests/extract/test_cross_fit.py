"""Cross-fitted marks (`training/train_mentions.cross_fit_mark`, `training/build.Settings.cross_fit`):
the head chooser and the relation model learn from mentions each abstract got from a mention model
that never saw its gold, as they meet them on new text."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

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
    docs, marked_docs = [object() for _ in recs], [object() for _ in recs]
    calls: list[str] = []
    learned_from: list[list] = []

    def train_relations(docs_, *_args, **_kwargs):
        learned_from.append(docs_)
        return type("R", (), {"calibration": {}})()

    monkeypatch.setattr(T, "train", lambda *_a, **_k: "model")
    monkeypatch.setattr(T, "mark", lambda *_a, **_k: calls.append("in-sample"))
    monkeypatch.setattr(T, "cross_fit_mark", lambda *_a, **_k: calls.append("cross-fit"))
    monkeypatch.setattr(T, "train_relations", train_relations)
    build.train_models(docs, recs, build.Settings(), None)
    build.train_models(docs, recs, build.Settings(cross_fit=True), None)
    build.train_models(docs, recs, build.Settings(cross_fit=True), None, marked_docs=marked_docs)
    assert calls == ["in-sample", "cross-fit"]
    assert [d is docs for d in learned_from] == [True, True, False] and learned_from[2] is marked_docs


def test_out_of_fold_relation_models_learn_only_from_other_folds_marked_without_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    recs = records()
    docs = [SimpleNamespace(rid=rec["id"]) for rec in recs]
    trained_on: list[set[str]] = []
    marked_by: dict[str, int] = {}
    relation_folds: list[set[str]] = []

    def train(_docs, records_, **_kwargs):
        trained_on.append({r["id"] for r in records_})
        return len(trained_on) - 1

    def mark(docs_, model, *_args, **_kwargs):
        for doc in docs_:
            assert doc.rid not in marked_by and doc.rid not in trained_on[model]
            marked_by[doc.rid] = model

    def train_relations(docs_, records_, **_kwargs):
        assert all(d.rid in marked_by for d in docs_), "a relation model learned from an unmarked doc"
        relation_folds.append({d.rid for d in docs_})
        return type("R", (), {"calibration": {}})()

    monkeypatch.setattr(T, "train", train)
    monkeypatch.setattr(T, "mark", mark)
    monkeypatch.setattr(T, "train_relations", train_relations)
    monkeypatch.setattr(build, "_entity_instances", lambda *_a: None)
    monkeypatch.setattr(build, "_relation_instances", lambda *_a: None)
    build.out_of_fold(docs, recs, build.Settings(cross_fit=True), None, {}, k=3)
    assert set(marked_by) == {r["id"] for r in recs} and len(relation_folds) == 3
    for held, learned in zip(cv.folds(recs, 3, 13), relation_folds, strict=True):
        assert learned == {r["id"] for r in recs} - {recs[i]["id"] for i in held}
