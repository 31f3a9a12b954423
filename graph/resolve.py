"""Entity resolution across the corpus: which mentions in which papers are one entity.

Pure functions over plain records. The rules, in order, for a mention in paper P:
1. an acronym P defines (`Long Form (LF)`) joins the cluster of its long form in P;
2. a name that is some cluster's long form joins it;
3. an acronym P does not define joins the one long form the corpus defines it with; if the corpus
   defines it with several genuinely different long forms, it joins the one defined with the
   mention's type (`MAE` as a Metric is mean absolute error, as a Method masked autoencoder), or,
   of several defined with that type, the one at least `DOMINANT_SHARE` of those definitions give
   (`GRPO`: 95% of 829 papers define it as group relative policy optimization, the rest as a dozen
   variants and other methods); if that leaves none or no such one (`DP` as a Method: differential
   privacy 78%, dynamic programming) the mention stays apart as the bare acronym, never merged
   blindly;
4. otherwise the name is its own cluster.
Names meet regardless of case, hyphens and spacing (`compact_key`). Each cluster takes the type most of
its mentions carry, so `GRPO` tagged Method in nine papers and Model in one is one node.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import islice

from paperkg.graph.curation import Rules, base_key
from paperkg.graph.normalize import compact_key, fold_dashes, id_name, latex_plain, name_key
from paperkg.graph.records import Extraction, Mention

# Type preference when votes tie: the more specific, named kinds first.
TYPE_ORDER = ("Model", "Benchmark", "Dataset", "Method", "Metric", "Task")

# Generic kinds that name no particular entity (GUIDELINE "not this" columns).
GENERIC = frozenset(compact_key(s) for s in (
    "LLM", "LLMs", "large language model", "large language models", "language model",
    "language models", "diffusion model", "diffusion models", "neural network", "neural networks",
    "deep neural networks", "vision-language models", "VLMs", "VLM", "MLLMs",
    "multimodal large language models",
    "foundation models", "transformers", "method", "methods", "approach", "framework", "model", "models",
    "algorithm", "algorithms", "benchmark", "benchmarks", "dataset", "datasets", "metric", "metrics",
    "machine learning", "deep learning", "reinforcement learning", "learning", "prediction", "tasks",
    "performance", "efficiency", "quality", "our method", "our approach", "our model", "baselines",
))

# Rule 3's share: an undefined acronym joins a long form that at least this share of the corpus's
# definitions of it (with the mention's type) give. At 209k real abstracts the bare `GRPO`, `LoRA`,
# `RAG`, `SFT`, `ASR`, `SAM` were second entities beside their long forms in the top 50 of their
# types, each with 93-99% of its definitions on one long form; `DP` (78%), `SSL` as a Method (89%:
# self- and semi-supervised learning) and `SAM` as a Method (67%) stay apart.
DOMINANT_SHARE = 0.9

_ACRONYM_RE = re.compile(r"^[A-Za-z0-9$\-]*[A-Z][A-Za-z0-9$\-]*$")
_SIMILAR = 0.85


def shown_name(names: Mapping[str, int]) -> str:
    """An entity's name (`names`: its surfaces -> times written): the most written, a long form before
    its acronym, a spelling without LaTeX styling before a styled one, the shortest, then the first;
    shown plain (`$\\textbf{TAPE}$` is `TAPE`); in the singular when the winner is a plural whose
    singular was written too (`ViTs` 13 times and `ViT` 12: `ViT`, as one names a method). An entity
    is called by its plural only when no paper wrote it in the singular."""
    best = min(names, key=lambda s: (-names[s], is_acronym(s), latex_plain(s) != s, len(latex_plain(s)), s))
    for suffix in ("es", "s"):
        if best.endswith(suffix) and best[:-len(suffix)] in names:
            return latex_plain(best[:-len(suffix)])
    return latex_plain(best)


def is_acronym(surface: str) -> bool:
    """Short, mostly upper-case, one token: `DP`, `RLVR`, `GRPO`, `mAP`."""
    s = surface.strip()
    if " " in s or len(s) > 12 or len(s) < 2:
        return False
    upper = sum(c.isupper() for c in s)
    return bool(_ACRONYM_RE.match(s)) and upper >= max(2, len(s) // 2)


def local_definitions(ex: Extraction) -> dict[str, str]:
    """Short key -> long key of the acronyms a paper defines (rule 1); of two definitions of one
    short form, the later."""
    local: dict[str, str] = {}
    for long, short in ex.aliases:
        lk, sk = compact_key(long), compact_key(short)
        if lk and sk and lk != sk and lk not in GENERIC:
            local[sk] = lk
    return local


def definition_types(ex: Extraction, local: dict[str, str]) -> dict[str, str]:
    """Short key -> the type the paper gives an acronym it defines (`local`): its long form's
    first mention's, else its own (none when neither is a mention)."""
    first: dict[str, str] = {}
    for m in ex.mentions:
        first.setdefault(compact_key(m.text), m.type)
    types = {sk: first.get(lk) or first.get(sk) for sk, lk in local.items()}
    return {sk: etype for sk, etype in types.items() if etype is not None}


def resolve_undefined(key: str, targets: Mapping[str, Mapping[str, int]], etype: str | None) -> str:
    """Rule 3 for a mention of `key` typed `etype` in a paper that does not define it: `targets`
    maps each long form the corpus defines `key` with to how many papers define it so with each
    type ("" for a definition of no type). The one long form; else the one of the mention's type,
    or of several the one with `DOMINANT_SHARE` of their definitions of that type; else `key`
    itself (ambiguous, or defined nowhere). `etype` None weighs every definition (how a correction
    finds `key`)."""
    if len(targets) == 1:
        return next(iter(targets))
    counts = {long: sum(types.values()) if etype is None else types.get(etype, 0)
              for long, types in targets.items()}
    counts = {long: n for long, n in counts.items() if n > 0}
    if len(counts) == 1:
        return next(iter(counts))
    if not counts:
        return key
    top = max(counts, key=lambda long: (counts[long], long))
    return top if counts[top] >= DOMINANT_SHARE * sum(counts.values()) else key


@dataclass
class Resolution:
    """For every (paper id, surface) the cluster it belongs to, and what each cluster is."""

    cluster_of: dict[tuple[str, str], str] = field(default_factory=dict)
    label: dict[str, str] = field(default_factory=dict)
    name: dict[str, str] = field(default_factory=dict)
    canonical: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    curated: set[str] = field(default_factory=set)


# Words a long form's spelling varies in without naming something else (`from` / `with human feedback`).
_LINKING = frozenset({"a", "an", "and", "by", "for", "from", "in", "of", "on", "the", "to", "via", "with"})


def _initials(name: str) -> str:
    """Initials of the content words: `Reinforcement Learning from / with Human Feedback` share them."""
    return "".join(word[0] for word in name_key(name).split() if word not in _LINKING)


def _merge_similar(spelled: dict[str, str]) -> dict[str, str]:
    """Map each long-form key to a representative, merging near-identical spellings
    (`optimisation`/`optimization`) so spelling variants do not make an acronym look ambiguous.
    `spelled` maps each key to one surface; forms whose words start differently (`Group Relative
    ...` vs `Budget Relative ...`) are different things however similar the letters.

    Keys are taken shortest first and each joins the first earlier representative that is close
    enough. Only representatives with the same initials and at most 3 characters shorter can be,
    so each key is compared with its initials' bucket (kept in length order, cut with a bisection)
    instead of with every representative: comparing all pairs took 229 s for 8,000 long forms.
    `quick_ratio` bounds `ratio` from above, so it skips the exact comparison without changing the
    result; the matcher is built once per key (SequenceMatcher caches its second sequence)."""
    rep: dict[str, str] = {}
    buckets: dict[str, list[str]] = defaultdict(list)   # initials -> representatives, (len, key) order
    for key in sorted(spelled, key=lambda k: (len(k), k)):
        reps = buckets[_initials(spelled[key])]
        matcher = SequenceMatcher(None, "", key)
        for r in islice(reps, bisect_left(reps, len(key) - 3, key=len), None):
            matcher.set_seq1(r)
            if matcher.quick_ratio() >= _SIMILAR and matcher.ratio() >= _SIMILAR:
                rep[key] = r
                break
        else:
            reps.append(key)
            rep[key] = key
    return rep


def resolve(extractions: Iterable[tuple[str, Extraction]], rules: Rules | None = None) -> Resolution:
    """Resolve all mentions of all papers at once; `extractions` yields (paper id, extraction).
    `rules`: the user's corrections (graph/curation.py), applied to each mention's cluster."""
    papers = [(pid, ex) for pid, ex in extractions]
    local_long: dict[str, dict[str, str]] = {}   # paper -> short key -> long key
    local_type: dict[str, dict[str, str]] = {}   # paper -> short key -> the type it defines it with
    defined: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    long_keys: set[str] = set()
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    for pid, ex in papers:
        for m in ex.mentions:
            spellings[compact_key(m.text)][m.text] += 1
        for long, _short in ex.aliases:
            spellings[compact_key(long)][long] += 1
        local = local_long[pid] = local_definitions(ex)
        long_keys.update(local.values())
        local_type[pid] = definition_types(ex, local)
    rep = _merge_similar({k: min(spellings[k]) for k in long_keys})
    for pid, local in local_long.items():
        for sk, lk in local.items():
            local[sk] = rep[lk]
            defined[sk][rep[lk]][local_type[pid].get(sk) or ""] += 1

    res = Resolution()
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    long_set = set(rep.values())
    rules = rules or Rules([])

    def cluster_of_key(key: str) -> str:          # as `derive.Derivation.cluster_of_key`
        if base_key(key) != key:
            return key
        return rep.get(key) or resolve_undefined(key, defined.get(key, {}), None)

    rules.bind(cluster_of_key)
    for pid, ex in papers:
        local = local_long[pid]
        for m in ex.mentions:
            key = compact_key(m.text)
            if not key or key in GENERIC:
                continue
            if key in local:
                cluster = local[key]
            elif key in rep:
                cluster = rep[key]
            elif key in defined and key not in long_set:
                cluster = resolve_undefined(key, defined[key], m.type)
                if len(defined[key]) > 1:
                    res.ambiguous.add(key)
            else:
                cluster = key
            if rules:
                corrected = rules.correct(cluster, m.type)
                if corrected is None:
                    continue
                cluster = corrected
            res.cluster_of[(pid, m.text)] = cluster
            votes[cluster][m.type] += 1
            surfaces[cluster][m.text] += 1
    for cluster, counter in votes.items():
        best = max(counter.values())
        res.label[cluster] = rules.types.get(cluster) or next(t for t in TYPE_ORDER if counter.get(t) == best)
        names = surfaces[cluster]
        res.name[cluster] = rules.names.get(cluster) or shown_name(names)
        res.aliases[cluster] = set(names) | {res.name[cluster]}
        # The id comes from one fixed spelling of the cluster key, whichever paper came first.
        key = base_key(cluster)
        res.canonical[cluster] = id_name(spellings.get(key, {}), key)
        if rules.is_curated(cluster):
            res.curated.add(cluster)
    return res


# Separators inside a name: `Tiny-ImageNet` is `Tiny` + `ImageNet`, `LLaMA3.1-8B-Instruct` is
# `LLaMA3.1` + `8B` + `Instruct`.
_NAME_TOKEN_RE = re.compile(r"[^\s\-_/]+")
_NESTED_MAX_WORDS = 6


def _name_tokens(surface: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _NAME_TOKEN_RE.finditer(fold_dashes(surface))]


def _named_token(token: str) -> bool:
    """`ImageNet`, `CIFAR`, `10`, `Qwen3`, `8B` name something; `Tiny`, `Policy`, `learning` do not."""
    return any(c.isdigit() for c in token) or any(c.isupper() for c in token[1:])


def _inner_runs(tokens: list[tuple[str, int, int]], model: bool = False) -> Iterable[tuple[int, int]]:
    """Every run `tokens[i:j]` strictly inside a name that may name something on its own: at most
    `_NESTED_MAX_WORDS` tokens, ending on a named token, not starting on a version (`4o` in `GPT-4o`,
    `8B`, `1K`: fragments, never names), and in a model's name (`model`) not its family before a
    version (`GPT` in `GPT-4o`, `Qwen2.5` in `Qwen2.5-7B`: a family is the `family` property, not a
    mention). One generator for the build and the incremental derivation, so both look up exactly
    the same inner names."""
    for i in range(len(tokens)):
        if i > 0 and tokens[i][0][:1].isdigit():
            continue
        for j in range(i + 1, min(len(tokens), i + _NESTED_MAX_WORDS) + 1):
            if j - i == len(tokens):
                continue
            if not _named_token(tokens[j - 1][0]):
                break
            if model and i == 0 and j < len(tokens) and tokens[j][0][:1].isdigit():
                continue
            yield i, j


def modifier_acronym(spelling: str, after: str | None) -> bool:
    """Whether an inner run spelled `spelling`, followed in its name by the token `after` (None at
    the end), is a short acronym that starts another name rather than names something in it: two
    letters before a capitalised or name-like part (`MS` in `MS COCO` and `MS-Q2P`, `MT` in
    `MT-Bench`, `SR` in `SR-CTC`), three before a name-like one (`CVC` in `CVC-ClinicDB`, `PCR` in
    `PCR-CA`). Such a run is a word of the other name's initials, and two or three capitals mean
    many things: the corpus lookup gave every `MS COCO` and `MS MARCO` to the one paper's `MS`,
    mechanical search, and `MT-Bench` to machine translation (README, "The graph", says how often).
    Before a plain word (`RL-based`, `AR decoding`, `PPO-Clip`) or at the end of the name
    (`VLA-RL`, `DP-SGD`, `Multi-Meta-RAG`) it is the acronym itself and counts as a bare one would.
    A paper that writes the acronym alone counts it anywhere in the name."""
    if after is None or len(spelling) > 3 or not (spelling.isascii() and spelling.isalpha()):
        return False
    return _named_token(after) or (len(spelling) <= 2 and after[:1].isupper())


def inner_mentions(ex: Extraction, cluster: Callable[[str], str | None],
                   unique: Callable[[str], str | None],
                   label: Callable[[str], str]) -> list[tuple[str, Mention]]:
    """One paper's mentions of named entities inside its longer names (`nested_mentions` says which
    count), as (cluster, mention) pairs. `cluster` maps a spelling of this paper to its cluster,
    `unique` a spelling to the one cluster the corpus has for it (None when none or several):
    the full build reads both from its resolution, the incremental derivation from the state, and
    this one loop keeps the two paths giving the same mentions."""
    seen: set[tuple[str, int]] = set()
    out: list[tuple[str, Mention]] = []
    for m in ex.mentions:
        outer = cluster(m.text)
        tokens = _name_tokens(m.text)
        if outer is None or len(tokens) < 2:
            continue
        for i, j in _inner_runs(tokens, m.type == "Model"):
            start, end = m.start + tokens[i][1], m.start + tokens[j - 1][2]
            surface = ex.text[start:end]
            inner = cluster(surface)
            if inner is None:
                spelling = "".join(t for t, _, _ in tokens[i:j])
                if modifier_acronym(spelling, tokens[j][0] if j < len(tokens) else None):
                    continue
                inner = unique(spelling)
                if inner is None:
                    continue
            if inner == outer or (inner, start) in seen:
                continue
            seen.add((inner, start))
            out.append((inner, Mention(surface, label(inner), start, end, m.sentence,
                                       confidence=m.confidence)))
    return out


def nested_mentions(extractions: Iterable[tuple[str, Extraction]],
                    res: Resolution) -> dict[str, list[tuple[str, Mention]]]:
    """Mentions of a named entity inside a longer name: per paper, (cluster, mention) pairs.

    A paper that writes only `Tiny-ImageNet`, `ImageNet 64x64` or `LLaMA3.1-8B-Instruct` names
    `ImageNet` or `LLaMA3.1-8B` all the same, and a user asking for the papers that mention ImageNet
    expects it among them. The inner name counts only when every word of it is name-like (so
    `Policy Optimization` inside `Group Relative Policy Optimization` does not), when it matches an
    existing entity's spelling, case included but dashes and spaces aside (`CIFAR100` in
    `CIFAR100-LT` is `CIFAR-100`; `Math` in `Qwen2.5-Math-7B` is not the `MATH` benchmark), and
    when that spelling means one entity: what the paper itself resolved it to, else the one
    unambiguous cluster the corpus has for it, unless it is a short acronym starting another name
    (`modifier_acronym`). The spellings are the ones papers wrote (`cluster_of`), not a shown name
    no paper wrote (`TAPE` of `$\\textbf{TAPE}$`, `ViT` of `ViTs`): what the incremental derivation
    looks up (`derive.Derivation._summary`).
    """
    by_spelling: dict[str, set[str]] = defaultdict(set)
    for cluster, surface in {(c, text) for (_pid, text), c in res.cluster_of.items()}:
        if cluster in res.ambiguous:
            continue
        tokens = [t for t, _, _ in _name_tokens(surface)]
        if tokens and all(_named_token(t) for t in tokens):
            by_spelling["".join(tokens)].add(cluster)

    def unique(spelling: str) -> str | None:
        candidates = by_spelling.get(spelling, ())
        return next(iter(candidates)) if len(candidates) == 1 else None

    found: dict[str, list[tuple[str, Mention]]] = {}
    for pid, ex in extractions:
        out = inner_mentions(ex, lambda text, pid=pid: res.cluster_of.get((pid, text)), unique,
                             res.label.__getitem__)
        if out:
            found[pid] = out
    return found


_FAMILY_SPLIT = re.compile(r"[-_\s]?(?=\d)|-(?=[A-Za-z]\d)|[-_\s](?=[a-z])")


def model_family(name: str) -> str:
    """`Qwen2.5-7B-Instruct` -> `Qwen`, `LLaMA3.1-8B` -> `LLaMA`, `DeepSeek-R1-Zero` -> `DeepSeek`,
    `GPT-4o` -> `GPT`; a name with no version part is its own family."""
    head = _FAMILY_SPLIT.split(name.strip(), maxsplit=1)[0].strip(" -_.")
    return head if len(head) >= 2 else name.strip()
