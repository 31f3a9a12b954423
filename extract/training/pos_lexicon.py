"""A word -> part-of-speech lexicon from UD English EWT: a noun-phrase boundary signal for the mention
scorer at the cost of one dictionary look-up per word (no tagger runs at extraction time).

    python -m paperkg.extract.training.pos_lexicon [--shared ../shared]   # prints coverage samples

Candidate spans are chunk prefixes and suffixes; whether a span starts at a determiner or adjective,
ends at a noun or runs into a verb is most of what separates `graph neural network` from
`graph neural network achieves`. No tagger can be downloaded and a trained one would slow extraction
(issue 9.7), so each lower-cased word of the treebank's training part gets its most frequent UPOS tag,
or its two most frequent (`NOUN/VERB`) when the first covers less than 3/4 of its occurrences; words the
treebank lacks fall back to the tag of their three-letter suffix (`-ion`, `-ize`), stored as `~ion`.
UD English EWT is CC BY-SA 4.0 (`data/external/ud_english_ewt/LICENSE.txt`); `data/README.md` credits it.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

TRAIN = Path("data") / "external" / "ud_english_ewt" / "en_ewt-ud-train.conllu"
MIN_SUFFIX_WORDS = 20


def _tag(counts: Counter) -> str:
    (top, n), *rest = [*counts.most_common(2), ("", 0)]
    if n >= 0.75 * sum(counts.values()) or not rest[0][0]:
        return top
    return "/".join(sorted((top, rest[0][0])))


def build(shared: Path) -> dict[str, str]:
    """Lower-cased word (or `~` + suffix) -> UPOS tag(s), from the treebank's training sentences."""
    words: dict[str, Counter] = {}
    with (shared / TRAIN).open(encoding="utf-8") as fh:
        for line in fh:
            if not line or line[0] in "#\n":
                continue
            cols = line.rstrip("\n").split("\t")
            if not cols[0].isdigit():
                continue
            words.setdefault(cols[1].lower(), Counter())[cols[3]] += 1
    out = {w: _tag(c) for w, c in sorted(words.items())}
    suffixes: dict[str, Counter] = {}
    for w, c in words.items():
        if len(w) > 4 and w.isalpha():
            suffixes.setdefault("~" + w[-3:], Counter()).update({t: 1 for t in c})
    out.update({s: _tag(c) for s, c in sorted(suffixes.items()) if sum(c.values()) >= MIN_SUFFIX_WORDS})
    return out


def main(argv: list[str] | None = None) -> None:
    from paperkg.extract.mention_scorer import pos_of
    from paperkg.extract.training import cv, data

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=cv.SHARED)
    args = parser.parse_args(argv)
    lexicon = build(Path(args.shared))
    words = [w.lower() for r in data.read_jsonl(Path(args.shared) / "gold" / "arxiv_train.jsonl")
             for w in r["abstract"].split()]
    known = sum(w in lexicon for w in words)
    print(f"{len(lexicon)} entries; {known / len(words):.3f} of arXiv training words known")
    for w in ("graph", "neural", "network", "learning", "segmentation", "achieves", "the", "robust"):
        print(w, pos_of(w, lexicon))


if __name__ == "__main__":
    main()
