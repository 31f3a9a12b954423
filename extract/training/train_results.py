"""Train and measure the results classifier (`extract/results.py`, shipped as `model/results.json`).

    python -m paperkg.extract.training.train_results            # train on results_train, write the model
    python -m paperkg.extract.training.train_results --cv       # 5-fold CV (gold and predicted mentions)
    python -m paperkg.extract.training.train_results --cv --rules   # the same, rules instead of the model

Trained on the 560 abstracts of `results_train.jsonl` only (never `results_dev.jsonl`), over the numbers
`extract/numbers.py` reads and the refusals leave: each labelled with the kind of the gold result whose
value it is, or `none`. Mentions for features and linking come from the gold entities (`--entities gold`)
or from the shipped pipeline (`predicted`, the default for training, since that is what the model sees
at run time). Note that the shipped entity model was trained on these abstracts, so CV with predicted
mentions is optimistic on the entity side; `results_dev` through `paperkg extract` is the honest number.
CV folds are by abstract with a fixed seed; every fold retrains the classifier on the other four.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

from paperkg.extract import results as RS
from paperkg.extract.numbers import find_numbers
from paperkg.extract.training import data, sparse
from paperkg.extract.training.evaluate import load_scorer
from paperkg.graph.records import result_json

HERE = Path(__file__).resolve().parent
GOLD = HERE / "gold"
OUT = HERE.parent / "model" / RS.FILE_NAME
SEED = 13
EPOCHS = 20
L2 = 1e-4
LR = 0.2
THRESHOLD = 0.5


def _value_key(value: str) -> str:
    return re.sub(r"\s+", "", value.casefold())


def gold_inputs(records: list[dict]) -> list[dict]:
    """Per record: text, sentences and the gold entities as mentions (every occurrence of each
    surface, longest first, no overlaps), the gold aliases and the paper's own method."""
    from paperkg.extract.doc_utils import make_doc, sentence_spans
    from paperkg.extract.pipeline import build_nlp

    nlp = build_nlp("rules")
    out = []
    for rec in records:
        text = rec["abstract"]
        doc = nlp.get_pipe("sentencizer")(make_doc(nlp, text))
        sentences = [(s.start_char, s.end_char) for s in sentence_spans(doc)]
        taken: list[tuple[int, int]] = []
        mentions = []
        intro: set[tuple[int, int]] = set()
        for ent in sorted(rec.get("entities", []), key=lambda e: -len(e["text"])):
            for m in re.finditer(re.escape(ent["text"]), text):
                a, b = m.span()
                if any(x < b and a < y for x, y in taken):
                    continue
                if (a and text[a - 1].isalnum()) or (b < len(text) and text[b].isalnum()):
                    continue
                taken.append((a, b))
                mentions.append(RS.Ent(a, b, ent["type"], ent["text"]))
                if ent.get("introduced"):
                    intro.add((a, b))
        mentions.sort(key=lambda m: m.start)
        aliases = [tuple(p) for p in rec.get("aliases", [])]
        main = RS.main_method([], mentions, intro, aliases)
        out.append({"text": text, "sentences": sentences, "mentions": mentions, "aliases": aliases,
                    "main": main})
    return out


def predicted_inputs(records: list[dict]) -> list[dict]:
    """Per record: what the shipped default pipeline finds (mentions, aliases, its relations' head)."""
    from paperkg.extract.pipeline import Extractor

    out = []
    extractor = Extractor()
    for ex in extractor.extract((r["id"], r["abstract"]) for r in records):
        mentions = [RS.Ent(m.start, m.end, m.type, m.text) for m in ex.mentions]
        intro = {(m.start, m.end) for m in ex.mentions if m.introduced}
        rels = [[r.head, r.type, r.tail] for r in ex.relations]
        out.append({"text": ex.text, "sentences": ex.sentences, "mentions": mentions, "aliases": ex.aliases,
                    "main": RS.main_method(rels, mentions, intro, ex.aliases)})
    return out


def examples(inp: dict, rec: dict) -> list[tuple[list[str], int]]:
    """(features, label) of every number the refusals leave: the gold kind of the result whose value
    it is (each gold result claims one number, in text order), else `none`."""
    want: dict[str, list[str]] = {}
    for res in rec.get("results", []):
        want.setdefault(_value_key(res["value"]), []).append(res["kind"])
    text, sentences = inp["text"], inp["sentences"]
    mentions = sorted(inp["mentions"], key=lambda m: (m.start, -m.end))
    out = []
    for number in find_numbers(text):
        if RS.refused(text, number, mentions):
            continue
        sent = RS._sentence_of(sentences, number.start)
        feats = RS.features(text, number, sentences[sent] if sentences else (0, len(text)), mentions)
        kinds = want.get(_value_key(number.value))
        label = RS.LABELS.index(kinds.pop(0)) if kinds else 0
        out.append((feats, label))
    return out


def train(inputs: list[dict], records: list[dict], seed: int = SEED) -> dict[str, list[float]]:
    rows = [ex for inp, rec in zip(inputs, records, strict=True) for ex in examples(inp, rec)]
    return sparse.train_softmax(rows, len(RS.LABELS), epochs=EPOCHS, l2=L2, lr=LR, seed=seed, min_count=2)


def predict(inputs: list[dict], records: list[dict], weights: dict | None,
            threshold: float = THRESHOLD) -> dict[str, dict]:
    """`paperkg extract`-shaped lines (id and results) for the records."""
    out = {}
    for inp, rec in zip(inputs, records, strict=True):
        found = RS.find_results(inp["text"], inp["sentences"], inp["mentions"], inp["aliases"], inp["main"],
                                weights, threshold)
        out[rec["id"]] = {"id": rec["id"], "results": [result_json(r) for r in found]}
    return out


def folds(n: int, k: int = 5, seed: int = SEED) -> list[list[int]]:
    idx = list(range(n))
    random.Random(seed).shuffle(idx)
    return [sorted(idx[j::k]) for j in range(k)]


def cross_validate(inputs: list[dict], records: list[dict], rules: bool, k: int = 5,
                   seed: int = SEED) -> dict:
    """Out-of-fold scores (pooled) and the spread of per-fold F1s."""
    scorer = load_scorer()
    pooled: dict[str, dict] = {}
    per_fold = []
    for held in folds(len(records), k, seed):
        held_set = set(held)
        rest = [i for i in range(len(records)) if i not in held_set]
        weights = None if rules else train([inputs[i] for i in rest], [records[i] for i in rest], seed)
        preds = predict([inputs[i] for i in held], [records[i] for i in held], weights)
        pooled.update(preds)
        gold = {records[i]["id"]: records[i] for i in held}
        per_fold.append(_result_scores(scorer.score(gold, preds)))
    gold = {r["id"]: r for r in records}
    return {"pooled": _result_scores(scorer.score(gold, pooled)),
            "folds": {key: [f[key]["f1"] for f in per_fold] for key in per_fold[0]},
            "rows": _row_error(records, pooled)}


def _result_scores(scores: dict) -> dict:
    return {key: val for key, val in scores.items() if key.startswith("results.")}


def _row_error(records: list[dict], preds: dict[str, dict]) -> dict:
    """Leaderboard rows (predicted results with a subject and a benchmark): how many, how many wrong
    (no gold result of the abstract has the same value, kind, subject, benchmark and metric)."""
    scorer = load_scorer()
    rows = wrong = 0
    for rec in records:
        gold = scorer.result_sets(rec)[0]
        for res in preds.get(rec["id"], {}).get("results", []):
            if res["subject"] and res["benchmark"]:
                rows += 1
                single = scorer.result_sets({"results": [res]})[0]
                wrong += not (single & gold)
    return {"rows": rows, "wrong": wrong, "error": round(wrong / rows, 3) if rows else 0.0}


def write_model(weights: dict, path: Path = OUT) -> None:
    meta = {"trained_on": "results_train.jsonl", "seed": SEED, "epochs": EPOCHS, "l2": L2, "lr": LR}
    path.write_text(json.dumps({"labels": list(RS.LABELS), "threshold": THRESHOLD, "meta": meta,
                                "weights": {f: [round(w, 5) for w in row] for f, row in sorted(weights.items())}},
                               separators=(",", ":")) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", default=str(GOLD))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--cv", action="store_true", help="5-fold CV instead of training the shipped model")
    parser.add_argument("--rules", action="store_true", help="with --cv: the rules, no learned model")
    parser.add_argument("--entities", choices=("gold", "predicted", "both"), default="both",
                        help="with --cv: which mentions to link to")
    args = parser.parse_args(argv)
    records = data.read_jsonl(Path(args.gold) / "results_train.jsonl")
    if not args.cv:
        weights = train(predicted_inputs(records), records)
        write_model(weights, Path(args.out))
        print(f"results classifier: {len(weights)} features -> {args.out}", file=sys.stderr)
        return
    kinds = ("gold", "predicted") if args.entities == "both" else (args.entities,)
    for kind in kinds:
        inputs = gold_inputs(records) if kind == "gold" else predicted_inputs(records)
        result = cross_validate(inputs, records, args.rules)
        print(json.dumps({"entities": kind, "rules": args.rules, **result}, indent=1))


if __name__ == "__main__":
    main()
