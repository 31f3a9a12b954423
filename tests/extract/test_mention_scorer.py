"""The mention scorer's compiled features against their definition, on real abstracts.

`candidate_features` (strings) is what training reads; `candidate_scores` computes the same sums from
per-word vectors. If the two drift apart, the shipped model scores text with features it was not
trained on, so every score of every candidate of real abstracts is compared."""

from __future__ import annotations

import json
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.language import Language

from paperkg.extract import mention_scorer as M
from paperkg.extract.doc_utils import TokenView
from paperkg.extract.head_types import is_generic, norm
from paperkg.extract.lexicon.types import GENERIC
from paperkg.extract.phrases import phrase_candidates, phrase_chunks
from paperkg.extract.pipeline import build_nlp
from paperkg.graph.records import ENTITY_TYPES

ROOT = Path(__file__).resolve().parents[2]

# shapes the compiled path treats apart: a span at either end of the text, parentheses, glue, a
# line break, a word holding `_` (the `head2=` pairs), a name longer than a phrase
EDGE_TEXTS = [
    "GRPO",
    "(GRPO) improves Qwen2.5-7B-Instruct on GSM8K.",
    "We fine-tune LLaMA (a model) and report accuracy_at_k on MMLU-Pro + GSM8K / MATH",
    "Reinforcement Learning with Verifiable Rewards from Human Feedback Signals At Scale (RLVRHF) works.\n"
    "A second line: ResNet-50 on ImageNet-1k.",
    "snake_case_name beats foo_bar baz_ on (ImageNet)",
]


def real_texts() -> list[str]:
    files = sorted((ROOT / "examples" / "abstracts").glob("*.txt"))
    texts = [p.read_text(encoding="utf-8")[:6000] for p in files]
    with (ROOT / "examples" / "arxiv" / "abstracts.jsonl").open(encoding="utf-8") as fh:
        texts += [json.loads(line)["abstract"] for line in list(fh)[:40]]
    return texts + EDGE_TEXTS


@pytest.fixture(scope="module")
def scored_docs() -> tuple[Language, list[spacy.tokens.Doc]]:
    """The default pipeline and real docs as the mention scorer receives them (rules ran)."""
    nlp = build_nlp("default")
    names = nlp.pipe_names
    docs = list(nlp.pipe(real_texts(), disable=names[names.index("paperkg_mentions"):]))
    return nlp, docs


def shipped_model(nlp: Language) -> M.SparseSoftmax:
    return nlp.get_pipe("paperkg_mentions").model


def with_hidden_layer(model: M.SparseSoftmax) -> M.SparseSoftmax:
    """The model's rows read as a hidden layer as wide as they are, under a random output layer: the
    compiled path must apply the layer after summing, as `scores` does."""
    width = model._matrix.shape[1]
    output = numpy.random.default_rng(0).normal(0.0, 1.0, (width + 1, len(model.labels)))
    return M.SparseSoftmax(model.labels, model.weights, lexicon=model.lexicon, clusters=model.clusters,
                           output=output)


@pytest.mark.parametrize(("part", "outside"), [("joint", True), ("joint", False), ("typer", True),
                                               ("hidden", True)],
                         ids=["lexicon+clusters", "no lexicon or clusters", "typer", "hidden layer"])
def test_compiled_scores_equal_the_string_features(scored_docs: tuple, part: str, outside: bool) -> None:
    nlp, docs = scored_docs
    model = {"joint": shipped_model(nlp), "typer": shipped_model(nlp).typer,
             "hidden": with_hidden_layer(shipped_model(nlp).typer)}[part]
    if not outside:  # the features skip word classes and outside kinds: so must the compiled path
        model = M.SparseSoftmax(model.labels, model.weights, output=model.output)
    checked = 0
    for doc in docs:
        view = TokenView.of(doc)
        cands, feats = M.features_of(doc, model)
        if not cands:
            continue
        expected = model.scores(feats)
        got = M.candidate_scores(doc, model, cands, view)
        assert got.shape == expected.shape
        assert numpy.abs(got - expected).max() < 1e-9, doc.text[:80]
        checked += len(cands)
    assert checked > 5000


def test_new_words_after_the_cache_is_full_still_score_the_same(scored_docs: tuple,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    nlp, docs = scored_docs
    model = M.SparseSoftmax(shipped_model(nlp).labels, shipped_model(nlp).weights,
                            clusters=shipped_model(nlp).clusters, output=shipped_model(nlp).output)
    monkeypatch.setattr(M, "_CACHE_LIMIT", 50)  # the word table is emptied and refilled many times
    for doc in docs[:8]:
        cands, feats = M.features_of(doc, model)
        got = M.candidate_scores(doc, model, cands, TokenView.of(doc))
        assert numpy.abs(got - model.scores(feats)).max() < 1e-9


def test_candidates_are_the_rule_spans_then_each_chunk_prefix_and_suffix(scored_docs: tuple) -> None:
    _nlp, docs = scored_docs
    for doc in docs:
        view = TokenView.of(doc)
        cands = M.candidates(doc, view)
        phrase_keys = [key for chunk in phrase_chunks(view) for key in phrase_candidates(chunk)]
        rules = {key for key in cands if cands[key]["sources"]}
        assert [k for k in cands if k not in rules] == [k for k in phrase_keys if k not in rules]
        for chunk in phrase_chunks(view):
            for start, end in phrase_candidates(chunk):
                pos = "full" if (start, end) == chunk else "suffix" if end == chunk[1] else "prefix"
                assert cands[(start, end)]["pos"] == pos


@pytest.mark.parametrize(("text", "generic"), [
    ("LLMs", True), ("large language models", True), ("Large  Language\nModels", True),
    ("diffusion\u00a0models", True), ("out\u2013of\u2013distribution", True),
    ("out - of - distribution", True),
    ("foundation modelss", True), ("Deep\u3000Learning", True), ("GRPO", False), ("ImageNet", False),
    ("language modelling", False), ("large language model agents", False), ("", False),
])
def test_is_generic_is_the_normalised_comparison(text: str, generic: bool) -> None:
    low = norm(text)
    defined = low in {norm(g) for g in GENERIC} or low.rstrip("s") in {norm(g) for g in GENERIC}
    assert is_generic(text) is generic is defined


def _row(labels: list[str], label: str, score: float) -> list[float]:
    return [score if x == label else 0.0 for x in labels]


JOINT_LABELS = [M.LABELS_O, *ENTITY_TYPES]
VQA = "surf=visual question answering"
# every candidate is `O` unless it is `visual question answering`, which the joint model calls a Method
JOINT = {"bias": _row(JOINT_LABELS, M.LABELS_O, 4.0), VQA: _row(JOINT_LABELS, "Method", 9.0)}


@pytest.mark.parametrize(("typer", "label"), [
    (None, "Method"),                                                        # the joint model's type
    ({VQA: _row(ENTITY_TYPES, "Task", 3.0)}, "Task"),                         # the typer's
    ({VQA: _row(ENTITY_TYPES, "Method", 3.0)}, "Method"),
    ({"bias": _row(ENTITY_TYPES, "Metric", 1.0), VQA: _row(ENTITY_TYPES, "Task", 3.0)}, "Task"),
    ({"bias": _row(ENTITY_TYPES, "Metric", 5.0), VQA: _row(ENTITY_TYPES, "Task", 3.0)}, "Metric"),
])
def test_the_typer_chooses_the_type_and_the_joint_model_whether_it_is_one(
        scored_docs: tuple, typer: dict | None, label: str) -> None:
    nlp, _ = scored_docs
    names = nlp.pipe_names
    doc = nlp("We study visual question answering with a new model.",
              disable=names[names.index("paperkg_mentions"):])
    base = M.SparseSoftmax(JOINT_LABELS, JOINT)
    model = M.SparseSoftmax(JOINT_LABELS, JOINT, typer=typer and M.SparseSoftmax(ENTITY_TYPES, typer))
    spans, confidence = M.decode(doc, model, 0.5)
    assert [(s.text, s.label_) for s in spans] == [("visual question answering", label)]
    assert confidence == M.decode(doc, base, 0.5)[1]   # P(entity) is the joint model's either way


def test_a_nested_typer_is_saved_and_shares_its_parents_lexicon_and_clusters(tmp_path: Path) -> None:
    typer = M.SparseSoftmax(ENTITY_TYPES, {VQA: _row(ENTITY_TYPES, "Task", 3.0)})
    model = M.SparseSoftmax(JOINT_LABELS, JOINT, lexicon={"vqa": "Task"}, clusters={"visual": "c1"},
                            typer=typer)
    model.to_disk(tmp_path / "m.json")
    back = M.SparseSoftmax.from_disk(tmp_path / "m.json")
    assert (back.typer.labels, back.typer.weights) == (list(ENTITY_TYPES), typer.weights)
    assert (back.typer.lexicon, back.typer.clusters) == ({"vqa": "Task"}, {"visual": "c1"})
    assert "lexicon" not in json.loads((tmp_path / "m.json").read_text())["typer"]


def test_a_hidden_layer_is_saved_packed_and_scores_as_before(tmp_path: Path) -> None:
    rng = numpy.random.default_rng(1)
    weights = {VQA: rng.normal(0.0, 0.3, 16).tolist(), "bias": rng.normal(0.0, 0.3, 16).tolist()}
    model = M.SparseSoftmax(JOINT_LABELS, weights, output=rng.normal(0.0, 1.0, (17, len(JOINT_LABELS))))
    model.to_disk(tmp_path / "m.json")
    saved = json.loads((tmp_path / "m.json").read_text())
    assert saved["weights"] is None and saved["packed"]["features"] == [VQA, "bias"]
    back = M.SparseSoftmax.from_disk(tmp_path / "m.json")
    feats = [[VQA, "bias"], ["bias"], ["never seen"]]
    assert numpy.abs(back.scores(feats) - model.scores(feats)).max() < 1e-2   # float16 rows
    assert back.scores(feats).argmax(axis=1).tolist() == model.scores(feats).argmax(axis=1).tolist()
