"""Train and measure the results linker (`extract/result_links.py`, shipped as `model/results.json`).

    python -m paperkg.extract.training.train_results            # train on results_train, write the model
    python -m paperkg.extract.training.train_results --cv       # 5-fold CV (gold and predicted mentions)
    python -m paperkg.extract.training.train_results --cv --rules   # the same, rules instead of the model

Trained on the 560 abstracts of `results_train.jsonl` only (never `results_dev.jsonl`): every number
`extract/numbers.py` reads and the refusals leave whose value a gold result has (each gold result claims
one number, in text order) gives one row per (role, candidate name), labelled 1 when the gold names that
candidate. Mentions come from the gold entities (`--entities gold`, the linking alone) or from the
default pipeline (`predicted`; training always uses these, since that is what the linker sees at run
time). The shipped entity model was trained on these abstracts, so CV with predicted mentions is
optimistic on the entity side; `results_dev` through `paperkg extract` is the honest number. CV folds
are by abstract with a fixed seed; every fold retrains the linker on the other four.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

from paperkg.extract import result_links as L
from paperkg.extract import results as RS
from paperkg.extract.numbers import find_numbers
from paperkg.extract.training import data, sparse
from paperkg.extract.training.evaluate import load_scorer
from paperkg.graph.records import result_json

HERE = Path(__file__).resolve().parent
GOLD = HERE / "gold"
OUT = HERE.parent / "model" / L.FILE_NAME
SEED = 13
EPOCHS = 20
L2 = 1e-4
LR = 0.2
LINK_THRESHOLDS = {"subject": 0.1, "benchmark": 0.5, "metric": 0.4}


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
        main = RS.main_method(None, mentions, intro, aliases)
        out.append({"text": text, "sentences": sentences, "mentions": mentions, "aliases": aliases,
                    "main": main})
    return out


def predicted_inputs(records: list[dict], model_dir: Path | None = None) -> list[dict]:
    """Per record: what the default pipeline finds (mentions, aliases, the paper's method as its
    relation component names it) with the entity and relation models of `model_dir` (the shipped ones
    by default)."""
    from paperkg.extract.doc_utils import make_doc
    from paperkg.extract.pipeline import build_nlp, doc_to_extraction

    out = []
    nlp = build_nlp("default", ner_path="none", model_dir=model_dir)
    docs = ((make_doc(nlp, r["abstract"]), r["id"]) for r in records)
    for doc, paper_id in nlp.pipe(docs, as_tuples=True):
        ex = doc_to_extraction(doc, paper_id)
        mentions = [RS.Ent(m.start, m.end, m.type, m.text) for m in ex.mentions]
        intro = {(m.start, m.end) for m in ex.mentions if m.introduced}
        out.append({"text": ex.text, "sentences": ex.sentences, "mentions": mentions, "aliases": ex.aliases,
                    "main": RS.main_method(doc._.paperkg_head, mentions, intro, ex.aliases)})
    return out


def _matched(inp: dict, rec: dict) -> list[tuple[object, dict | None]]:
    """Every number the refusals leave, with the gold result whose value it is (each gold result
    claims one number, in text order) or None."""
    want: dict[str, list[dict]] = {}
    for res in rec.get("results", []):
        want.setdefault(_value_key(res["value"]), []).append(res)
    mentions = sorted(inp["mentions"], key=lambda m: (m.start, -m.end))
    out = []
    for number in find_numbers(inp["text"]):
        if RS.refused(inp["text"], number, mentions):
            continue
        golds = want.get(_value_key(number.value))
        out.append((number, golds.pop(0) if golds else None))
    return out


def link_examples(inp: dict, rec: dict) -> list[tuple[list[str], int]]:
    """(features, label) per (gold-matched number, candidate, role): 1 when the gold names it."""
    text, sentences = inp["text"], inp["sentences"]
    mentions = sorted(inp["mentions"], key=lambda m: (m.start, -m.end))
    canon = {short: long for long, short in inp["aliases"]}
    matched = [(n, g) for n, g in _matched(inp, rec) if g]
    out = []
    for number, gold in matched:
        bounds = sentences[RS._sentence_of(sentences, number.start)] if sentences else (0, len(text))
        same = [n for n, _ in matched if RS._sentence_of(sentences, n.start) == RS._sentence_of(
            sentences, number.start)]
        rule = RS.link(text, number, gold["kind"], bounds, mentions, same, inp["main"], canon)
        others = [n.start for n, _ in matched if n is not number]
        for role in L.ROLES:
            cands = L.candidates(mentions, role, canon)
            ranks = L.nearness(sentences, number, cands)
            target = _norm(gold.get(role))
            for name, occs in cands.items():
                feats = L.pair_features(text, sentences, number, gold["kind"], role, name, occs, len(cands),
                                        others, inp["main"], rule.get(role), ranks.get(name, 0))
                out.append((feats, int(_norm(name) == target)))
    return out


def _norm(value: str | None) -> str | None:
    if value is None:
        return None
    return re.sub(r"[\u2010-\u2014\u2212\-\s]+", " ", value.casefold()).strip(" .,;:")


def train(inputs: list[dict], records: list[dict], seed: int = SEED) -> L.Linker:
    """The linker trained on `records`."""
    pairs = [ex for inp, rec in zip(inputs, records, strict=True) for ex in link_examples(inp, rec)]
    weights = sparse.train_softmax(pairs, 2, epochs=EPOCHS, l2=L2, lr=LR, seed=seed, min_count=2)
    return L.Linker(weights, dict(LINK_THRESHOLDS), {"trained_on": "results_train.jsonl", "seed": seed,
                                                      "epochs": EPOCHS, "l2": L2, "lr": LR})


def predict(inputs: list[dict], records: list[dict], model: L.Linker | None) -> dict[str, dict]:
    """`paperkg extract`-shaped lines (id and results) for the records."""
    out = {}
    for inp, rec in zip(inputs, records, strict=True):
        found = RS.find_results(inp["text"], inp["sentences"], inp["mentions"], inp["aliases"], inp["main"],
                                model)
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
        model = None if rules else train([inputs[i] for i in rest], [records[i] for i in rest], seed)
        preds = predict([inputs[i] for i in held], [records[i] for i in held], model)
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
    """Leaderboard rows (predicted results with a subject and a benchmark): how many, and how many are
    wrong, strictly (no gold result of the abstract has the same value, kind, subject, benchmark and
    metric) and as a row reads (none has the same value, subject and benchmark), over all kinds and
    over the absolute scores a default `leaderboard` shows."""
    scorer = load_scorer()
    rows = wrong = loose = absolute = absolute_loose = 0
    for rec in records:
        gold = scorer.result_sets(rec)[0]
        gold_rows = {(v, s, b) for v, _k, s, b, _m in gold}
        for res in preds.get(rec["id"], {}).get("results", []):
            if res["subject"] and res["benchmark"]:
                rows += 1
                row = scorer.result_sets({"results": [res]})[0]
                (v, _k, s, b, _m), = row
                wrong += not (row & gold)
                loose += (v, s, b) not in gold_rows
                if res["kind"] == "absolute":
                    absolute += 1
                    absolute_loose += (v, s, b) not in gold_rows
    return {"rows": rows, "wrong": wrong, "error": round(wrong / rows, 3) if rows else 0.0,
            "wrong_value_subject_benchmark": loose, "row_error": round(loose / rows, 3) if rows else 0.0,
            "absolute_rows": absolute,
            "absolute_row_error": round(absolute_loose / absolute, 3) if absolute else 0.0}


def train_and_write(gold: Path = GOLD, out: Path = OUT) -> L.Linker:
    """Train the linker on `results_train.jsonl` over the mentions the models beside `out` find, and
    write it to `out` (what `python -m paperkg.extract.training` runs after the entity models)."""
    records = data.read_jsonl(gold / "results_train.jsonl")
    model = train(predicted_inputs(records, out.parent), records)
    model.to_disk(out)
    print(f"results linker: {len(model.weights)} features -> {out}", file=sys.stderr)
    return model


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
        train_and_write(Path(args.gold), Path(args.out))
        return
    kinds = ("gold", "predicted") if args.entities == "both" else (args.entities,)
    for kind in kinds:
        inputs = gold_inputs(records) if kind == "gold" else predicted_inputs(records)
        result = cross_validate(inputs, records, args.rules)
        print(json.dumps({"entities": kind, "rules": args.rules, **result}, indent=1))


if __name__ == "__main__":
    main()
