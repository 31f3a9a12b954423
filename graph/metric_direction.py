"""Which way a metric is better, decided from its name: the word list `leaderboard` and
`sota_over_time` rank by (a user overrides it with their `direction` parameter).

A metric is lower-better when its name key (`normalize.name_key`: case folded, dashes and spaces as
one space) holds one of `LOWER_WORDS` as a word (a final plural folded: `errors`, `losses`) or one of
`LOWER_PHRASES` as consecutive words; else it is higher-better (accuracy, F1, BLEU, pass@1, success
rate, mAP, PSNR, ...), as most metrics abstracts report are. Words, not substrings: `FID` is
lower-better, `confidence` (which contains `fid`) is not. The decision is stored with each result
(`Result.direction`, `graph/build.py`), from the metric as its abstract writes it, so both stores rank
alike and Neo4j users see it.
"""

from __future__ import annotations

import re

from paperkg.graph.normalize import name_key

# Single words naming a quantity whose smaller values are better, singular (names are matched with a
# final plural folded: `FLOPs`, `losses`).
LOWER_WORDS: frozenset[str] = frozenset({
    # errors and losses
    "error", "err", "loss", "nll", "perplexity", "ppl", "wer", "cer", "ter", "eer", "ece", "fpr", "fnr",
    "mae", "mse", "rmse", "rmsle", "mape", "smape", "nmse", "mad", "epe", "ate", "rpe", "ade", "fde",
    "bpd", "bpc", "regret", "divergence", "kl", "deviation", "discrepancy", "distortion",
    # generative quality distances
    "fid", "fvd", "kid", "lpips", "chamfer", "emd", "hausdorff", "distance",
    # cost of running
    "latency", "runtime", "time", "delay", "memory", "flop", "mac", "cost", "energy",
    "overhead", "footprint",
    # failures
    "violation", "hallucination", "toxicity", "collision",
})
# Phrases whose words are not lower-better alone.
LOWER_PHRASES: tuple[tuple[str, ...], ...] = (
    ("miss", "rate"), ("false", "positive", "rate"), ("false", "negative", "rate"), ("failure", "rate"),
    ("bit", "per", "dim"), ("bit", "per", "character"),
)
HIGHER, LOWER = "higher", "lower"
DIRECTIONS: tuple[str, ...] = (HIGHER, LOWER)

_WORD = re.compile(r"[a-z0-9]+")


def _singular(word: str) -> str:
    if word.endswith("sses"):           # losses
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def metric_direction(metric: str | None) -> str:
    """`lower` when `metric` names a lower-better quantity (see the module doc), else `higher`."""
    if not metric:
        return HIGHER
    words = [_singular(w) for w in _WORD.findall(name_key(metric))]
    if any(w in LOWER_WORDS for w in words):
        return LOWER
    for phrase in LOWER_PHRASES:
        n = len(phrase)
        if any(tuple(words[i:i + n]) == phrase for i in range(len(words) - n + 1)):
            return LOWER
    return HIGHER
