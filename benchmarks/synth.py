"""Deterministic synthetic corpus of ML abstracts for benchmarks, grown from the seed abstracts.

Why not just repeat the seeds? Repeating 278 abstracts keeps the graph at the seeds' few hundred
entities however large N gets, and deduplication folds repeats into one paper, so neither the graph
builder nor the stores would ever see the entity counts of a real corpus. Here every abstract is a new
recombination of seed sentences (an opening sentence, 3-8 middle sentences, a closing sentence) in which
the recognisable names (method acronyms such as `GRPO`, versioned models such as `Qwen3-8B`, datasets
and benchmarks such as `MATH500` or `CIFAR-10`) are slots. Each slot is filled from a growing vocabulary
drawn with a Pitman-Yor process (discount 0.6): popular names recur with a Zipf-like frequency and new
names keep appearing, so the number of distinct names grows like Heaps' law, roughly k * N^0.6, as in
real corpora. The first names of each kind are the seeds' own (so `GRPO` and `ImageNet` stay the
popular head); after them new names are minted to look like real ones: `GBPO` with its long form
`Group Balanced Policy Optimization (GBPO)`, `FlowMix`, `Zeta2.5-14B-Instruct`, `ORCA-Bench`,
`DelphiQA-7k`. The concentration of each kind is calibrated so that a corpus the size of the seeds has
about as many distinct names as the seeds have.

Output depends only on (seed, seed files) and is prefix-stable: the first 200 records of N=2000 are the
records of N=200. Only `random.Random` drives choices (never set or dict-of-str iteration order), so the
output is identical across processes and PYTHONHASHSEED values.

    python benchmarks/synth.py 100000 -o corpus.jsonl.gz [--seed 0]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import json
import math
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

SEEDS_DIR = Path(__file__).resolve().parent.parent / "examples" / "abstracts"
KINDS: tuple[str, ...] = ("method", "model", "data")
# Heaps exponent: distinct names ~ k * draws^DISCOUNT (a Pitman-Yor process's discount).
DISCOUNT = 0.6
# Sentences per abstract, 5-10 with a mode at 8: the seeds have 7.9 sentences of ~170 characters.
SENTENCE_COUNTS = (5, 6, 7, 7, 8, 8, 8, 9, 9, 10)

# ---------------------------------------------------------------------------------------------------
# Reading and cutting the seeds
# ---------------------------------------------------------------------------------------------------

_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "Fig.", "Eq.", "cf.", "resp.", "approx.", "etc.",
                  "U.S.", "Sec.", "No.")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")


def read_seed_abstracts(seeds_dir: Path = SEEDS_DIR) -> list[tuple[str, str]]:
    """(collection, abstract) pairs from the seed collection files, in a fixed order.

    Format of the example corpus: the first non-empty line is the collection name, every further
    non-empty line one abstract. Parsed here rather than through `paperkg.extract.readers` so that the
    generator does not change when the reader does."""
    pairs = []
    for path in sorted(Path(seeds_dir).glob("*.txt")):
        lines = [line.strip() for line in path.read_text(encoding="utf-8-sig").splitlines()]
        lines = [line for line in lines if line]
        if lines:
            pairs.extend((lines[0], line) for line in lines[1:])
    if not pairs:
        raise FileNotFoundError(f"no seed abstracts (*.txt) in {seeds_dir}")
    return pairs


def split_sentences(text: str) -> list[str]:
    """Sentences of an abstract: cut after . ! ? before a capital or digit, except after abbreviations."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        head = text[start:m.start()].rstrip("\"')]")
        if head.endswith(_ABBREVIATIONS) or re.search(r"\b[A-Z]\.$", head):
            continue
        out.append(text[start:m.start()].strip())
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


# ---------------------------------------------------------------------------------------------------
# Which seed tokens are names, and of which kind
# ---------------------------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    """Whitespace-separated word lists: long vocabularies stay readable as paragraphs."""
    return tuple(text.split())


# Name-shaped tokens: letters/digits joined by '.', '-' or '+', not inside URLs or paths.
_TOKEN = re.compile(r"(?<![\w./\-@])[A-Za-z][A-Za-z0-9]*(?:[.\-][A-Za-z0-9]+)*(?![\w/@]|\.[A-Za-z0-9])")

# Generic kinds, metrics, math, hardware, organisations and ambiguous acronyms (DP, EP, BP: several
# long forms in the seeds): left as they are, because real abstracts keep repeating them too.
_KEEP = frozenset(_words("""
AI ML NLP CV RL DRL MARL LLM LM VLM LVLM MLLM SLM LRM MLM DLM PLM GNN CNN RNN DNN NN LSTM MLP
KL GPU GPUs CPU TPU API SOTA OOD OoD IID ID MDP POMDP CMDP NP US U.S EU UK NVIDIA OpenAI GitHub arXiv
NeurIPS ICLR ICML CVPR QA DP EP BP MoE CoT SFT KV ERM SGD MCMC MLE MSE MAE ODE SDE PDE DNA RNA RKHS
PAC UCB CATE ATE RCT FID gFID IS BLEU ROUGE ROUGE-L BLEU-4 METEOR BERTScore ASR AUC AUROC HPS ECE MAP
mAP EMA JAX PyTorch TensorFlow GB MB TB FLOP FLOPs LaTeX TS VC VI II III IV XII IPM MMD PH AFT DM DMs
VAE VAEs GAN GANs MAB MABs CF DL LLMs LMs SSM EBM LQR MIL DS ML-guided
"""))

# Dataset and benchmark names of the seeds that no pattern below recognises.
_SEED_DATA = frozenset(_words("""
ImageNet ImageNet-LT ImageNet1K Tiny-ImageNet MNIST FEMNIST CIFAR CIFAR-10 CIFAR10 CIFAR-100
CIFAR100-LT D4RL Meta-World MIPLIB Sent140 MATH500 AIME AIME25 AIME2024 AMC GPQA MMMU GSM8k GSM8K
TheoremQA miniF2F ProofNet ARC-Easy MedQA MedPerturb WILDS COCO LVIS V3DET iNaturalist iNaturalist2018
Places-LT CelebA FFHQ AFHQv2 LAION ArtBench RewardBench UnpredictaBench T2I-CompBench GenEval2 MTEB
BrowseComp-Plus PlanCraft RoboDesk DeEscalWild Atari MuJoCo SQuAD GLUE SuperGLUE MMLU HumanEval MBPP
"""))
_DATA_PATTERN = re.compile(r"(Bench|QA|MNIST|CIFAR|ImageNet|GLUE|-LT)(\b|$)|^[A-Z]{3,}-?\d{2,}$")
_MODEL_PATTERN = re.compile(
    r"^(GPT|Qwen|LLaMA|Llama|Mistral|Mixtral|Gemma|Gemini|Claude|DeepSeek|Phi-|OLMo|OpenMoE|SDXL|SD\d|"
    r"ViT|CLIP|DINO|LLaVA|BERT|RoBERTa|T5|ResNet|OctoThinker|OpenVLThinker|Open-Reasoner)"
    r"|^[A-Z][A-Za-z]*-?\d+(\.\d+)?(-[A-Za-z0-9.]+)*-\d+(\.\d+)?[BM](-|$)"
)


def classify(token: str) -> str | None:
    """The slot kind of a seed token (`method`, `model`, `data`), or None to leave it as text."""
    if token in _KEEP or "_" in token or re.fullmatch(r"[A-Z]{2,3}\d{2}", token):  # citations: KE17
        return None
    if token in _SEED_DATA or _DATA_PATTERN.search(token):
        return "data"
    if _MODEL_PATTERN.search(token):
        return "model"
    if not token[0].isupper() or sum(c.isalpha() for c in token) < 2:
        return None
    if re.fullmatch(r"[A-Z]+s", token):  # plural acronyms are generic kinds: LLMs, PRMs, POMDPs
        return None
    if re.search(r"-(based|style|like|guided|empowered|backed|specific|free|aware|driven)$", token, re.I):
        return None
    # An acronym or CamelCase name: two capitals, or a capital and a digit; every hyphen part must look
    # like a name too, which drops English compounds such as Multi-Agent and Bradley-Terry.
    for part in token.split("-"):
        if not (sum(c.isupper() for c in part) >= 2 or part.isdigit() or
                (part[:1].isupper() and any(c.isdigit() for c in part))):
            return None
    return "method"


def _long_form_start(words: Sequence[str], acronym: str) -> int | None:
    """Schwartz-Hearst: index of the first word of the long form that `acronym` abbreviates.

    `words` are the words right before the parenthesis. Characters of the acronym are matched right to
    left through the words; the first character must start a word."""
    letters = [c.lower() for c in acronym if c.isalnum()]
    text = " ".join(words).lower()
    si, li = len(letters) - 1, len(text) - 1
    while si >= 0:
        c = letters[si]
        while li >= 0 and (text[li] != c or (si == 0 and li > 0 and text[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return None
        si -= 1
        li -= 1
    start_char = li + 1
    return text[:start_char].count(" ")


@dataclass
class Slot:
    """A place in a seed sentence for a name of `kind`; `key` is the seed name it replaces (so that
    one seed name in one generated abstract always becomes the same new name); `define` renders the
    long form and the acronym in parentheses."""

    kind: str
    key: str
    define: bool = False


Template = tuple[str | Slot, ...]


def make_template(sentence: str, kinds: dict[str, str], long_forms: dict[str, str]) -> Template:
    """Cut a seed sentence into text and slots. Fills `kinds` (token -> kind) and `long_forms`."""
    parts: list[str | Slot] = []
    pos = 0
    for m in _TOKEN.finditer(sentence):
        token = m.group()
        kind = kinds.get(token) if token in kinds else classify(token)
        if kind is None:
            continue
        kinds[token] = kind
        start, define = m.start(), False
        if (kind == "method" and sentence[m.start() - 1:m.start()] == "("
                and sentence[m.end():m.end() + 1] == ")"):
            before = sentence[pos:m.start() - 1].rstrip()
            words = before.split(" ")[-(len(token) + 4):]
            first = _long_form_start(words, token)
            if first is not None and len(words) - first >= 2:
                long_form = " ".join(words[first:])
                start = len(before) - len(long_form) + pos
                long_forms.setdefault(token, long_form)
                define = True
        if define:
            parts.append(sentence[pos:start])
            parts.append(Slot(kind, token, True))
            pos = m.end() + 1  # past the closing parenthesis
        else:
            parts.append(sentence[pos:m.start()])
            parts.append(Slot(kind, token))
            pos = m.end()
    parts.append(sentence[pos:])
    return tuple(p for p in parts if p != "")


# ---------------------------------------------------------------------------------------------------
# Minting new names that look like real ones
# ---------------------------------------------------------------------------------------------------

_MODIFIERS = _words("""Adaptive Balanced Bounded Causal Clipped Conservative Contrastive Curriculum Decoupled
Dense Distributional Dual Dynamic Efficient Ensemble Entropic Federated Gated Global Gradient-Free Group
Hierarchical Hybrid Implicit Incremental Iterative Kernel Latent Local Low-Rank Masked Meta Momentum
Multi-Scale Multi-Step Neural Off-Policy Offline Online Optimistic Ordinal Partial Progressive Proximal
Quantized Randomized Recurrent Regularized Relative Residual Robust Scalable Selective Self-Supervised
Semi-Supervised Sequential Sparse Spectral Stochastic Structured Temporal Token-Level Trust-Region
Uncertainty-Aware Unified Variational Weighted""")
_SUBJECTS = _words("""Advantage Attention Belief Calibration Confidence Consistency Contrast Critic Curvature
Diffusion Distribution Energy Entropy Evidence Expert Feature Flow Gradient Graph Kernel Language Memory
Mixture Policy Preference Prompt Prototype Quantile Reasoning Representation Retrieval Reward Risk Route
Sample Score Skill State Token Trajectory Transport Uncertainty Value Verifier Vision World""")
_HEADS = _words("""Optimization Learning Distillation Alignment Fine-Tuning Search Sampling Estimation
Regularization Routing Matching Training Decoding Pruning Adaptation Network Transformer Aggregation
Planning Editing Compression Exploration Inference Shaping Tuning Attention Propagation Merging
Refinement Encoding""")
_PREFIXES = _words("""
Fed Flow Opt Pro De Meta Dist Dyn Hyper Graph Auto Self Co Uni Omni Sparse Quant Mix Diff
Cal Vera Tri Neo Syn Gen Mem Rank Step Path Lumi Tok Ada Scal Prox Reason Bridge""")
_SUFFIXES = _words("""RL Dist Net Former Diff Prox GAN Align PO Tune Mix Gen Match Route Shap Flow Edit Prune
Search Merge Plan Guard Critic Zero Boost Fuse""")
_SYLLABLES = _words("""ka lo ze vi ra no tu mi sa qe xo ly da re fi go hu ne pa to ve si ma ro lu ti be ca
dor an el is or ul""")
_FAMILIES = _words("""Zeta Velox Kestrel Lyra Orin Tessera Quill Marlo Sable Corvid Halcyon Brio Nerio Aster
Calix Dorado Elara Fennec Galena Ibex Juno Kairo Lumen Meridian Nimbus Onyx Pavo Quasar Rhea Solace
Taurin Umbra Vesper Wren Xylo Yara Zephyr Auric Boreal Cirro""")
_SIZES = _words("0.5B 1B 1.5B 2B 3B 4B 7B 8B 9B 13B 14B 27B 32B 34B 70B 72B 110M 350M")
_MODEL_SUFFIXES = ("", "", "", "", "-Instruct", "-Instruct", "-Chat", "-Base", "-Math", "-Coder", "-VL")
_VERSIONS = ("1", "1.5", "2", "2.5", "3", "3.1", "3.5", "4", "4.1", "5")
_DATA_WORDS = _words("""Delphi Atlas Pinnacle Summit Arcadia Helix Nova Vista Quartz Tundra Mosaic Prism Echo
Cortex Sphinx Beacon Harbor Lattice Meadow Oracle Pioneer Ridge Sentinel Vertex Willow Cascade Ember
Fjord Glacier Horizon""")
_DATA_DOMAINS = _words("""
Math Code Proof Logic Vision Med Bio Chem Legal Fin Geo Robo Web Tool Agent Chart Doc
Table Video Audio Speech Sci Story Dialog Plan Nav Game Mol Protein Graph""")


def _fold(name: str) -> str:
    """Names that only differ in case, hyphens or spaces count as taken: the graph merges them."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())


@dataclass
class Name:
    """A vocabulary entry: the surface name, its long form if it has one, and for models the family."""

    name: str
    long_form: str | None = None
    family: str | None = None


@dataclass
class _Family:
    name: str
    sep: str
    versions: list[str] = field(default_factory=list)


class Minter:
    """Makes new, unused names. All choices come from the caller's `random.Random`."""

    def __init__(self, rng: random.Random, taken: set[str]) -> None:
        self.rng = rng
        self.taken = taken
        self.families: list[_Family] = []
        self.family_uses: list[int] = []
        self.family_words = 0

    def _free(self, name: str) -> bool:
        key = _fold(name)
        if key in self.taken or len(key) < 2:
            return False
        self.taken.add(key)
        return True

    def _word(self) -> str:
        n = self.rng.choice((2, 2, 3))
        return "".join(self.rng.choice(_SYLLABLES) for _ in range(n)).capitalize()

    def method(self) -> Name:
        """An acronym with its long form (`Group Balanced Policy Optimization`, `GBPO`), a mixed-case
        acronym (`GraBPO`), or a portmanteau without long form (`FlowMix`)."""
        rng = self.rng
        for attempt in range(40):
            roll = rng.random()
            if roll < 0.72:
                words = [*rng.sample(_MODIFIERS, rng.choice((1, 1, 2))), rng.choice(_SUBJECTS),
                         rng.choice(_HEADS)]
                if rng.random() < 0.35:
                    words.pop(0)
                parts = [p for w in words for p in w.split("-")]
                acronym = "".join(p[0].upper() for p in parts)
                if rng.random() < 0.15 or attempt > 20:  # LoRA-style: more letters of a word
                    i = 0 if attempt <= 20 else rng.randrange(len(parts))
                    acronym = acronym[:i + 1] + parts[i][1:rng.choice((2, 3))].lower() + acronym[i + 1:]
                if len(acronym) >= 3 and self._free(acronym):
                    return Name(acronym, " ".join(words))
            else:
                name = rng.choice(_PREFIXES) + rng.choice(_SUFFIXES)
                if attempt > 10:
                    name = self._word()[:4] + rng.choice(_SUFFIXES)
                if rng.random() < 0.2:
                    name += rng.choice(("-2", "++", "-X", "v2", "-Lite"))
                if self._free(name):
                    return Name(name)
        while True:  # vocabularies of millions of names end here
            name = self._word()[:3].upper() + rng.choice(_SUFFIXES)
            if self._free(name):
                return Name(name)

    def _family(self) -> _Family:
        """Families follow their own Pitman-Yor draw (discount 0.5), so new models often extend old
        families (`Zeta2.5-7B` after `Zeta2-7B`), as Qwen and LLaMA do, while new families still appear."""
        rng = self.rng
        total, k = sum(self.family_uses), len(self.families)
        if k and rng.random() * (total + 3.0) >= 3.0 + 0.5 * k:
            i = rng.choices(range(k), weights=[u - 0.5 for u in self.family_uses])[0]
            self.family_uses[i] += 1
            return self.families[i]
        while True:
            self.family_words += 1
            base = (_FAMILIES[self.family_words - 1] if self.family_words <= len(_FAMILIES)
                    else self._word())
            style = rng.random()
            if style < 0.12:
                base = base.upper()
            elif style < 0.24:
                base += "LM"
            if self._free(base):
                break
        fam = _Family(base, rng.choice(("", "-")))
        self.families.append(fam)
        self.family_uses.append(1)
        return fam

    def model(self) -> Name:
        """A versioned model name: `Zeta2.5-14B-Instruct`, `Kestrel-3-7B`, `QUILL-4`."""
        rng = self.rng
        while True:
            fam = self._family()
            if not fam.versions or (len(fam.versions) < len(_VERSIONS)
                                    and rng.random() < 0.3 / len(fam.versions)):
                fam.versions.append(_VERSIONS[len(fam.versions)])
            version = rng.choice(fam.versions)
            size = "-" + rng.choice(_SIZES) if rng.random() < 0.8 else ""
            name = f"{fam.name}{fam.sep}{version}{size}{rng.choice(_MODEL_SUFFIXES) if size else ''}"
            if self._free(name):
                return Name(name, family=fam.name)

    def data(self) -> Name:
        """A dataset or benchmark name: `ORCA-Bench`, `DelphiQA-7k`, `TIVAR-100`, `LOGIC800`, `MedArena`."""
        rng = self.rng
        while True:
            word = rng.choice(_DATA_WORDS) if rng.random() < 0.6 else self._word()
            dom = rng.choice(_DATA_DOMAINS)
            acr = word[:rng.choice((3, 4, 5))].upper()
            shape = rng.randrange(10)
            name = (
                f"{acr}-Bench" if shape == 0 else
                f"{word}{dom}Bench" if shape == 1 else
                f"{word}QA" if shape == 2 else
                f"{word}QA-{rng.choice((1, 2, 5, 7, 10, 50))}k" if shape == 3 else
                f"{acr}-{rng.choice((10, 20, 100, 200, 1000))}" if shape == 4 else
                f"{acr}{rng.choice((100, 300, 500, 800))}" if shape == 5 else
                f"{word}Net" if shape == 6 else
                f"{dom}{word}-Eval" if shape == 7 else
                f"{dom}Arena-{word}" if shape == 8 else
                f"{word}-{dom}-Hard"
            )
            if self._free(name):
                return Name(name)


# ---------------------------------------------------------------------------------------------------
# The Pitman-Yor vocabulary and the generator
# ---------------------------------------------------------------------------------------------------


def expected_distinct(draws: float, theta: float, discount: float = DISCOUNT) -> float:
    """E[distinct names] after `draws` draws of a Pitman-Yor(discount, theta) process."""
    if draws <= 0:
        return 0.0
    # theta/d * ((theta+d)_n / (theta)_n - 1), with rising factorials (x)_n = Gamma(x+n) / Gamma(x)
    log_ratio = (math.lgamma(theta + draws + discount) + math.lgamma(theta)
                 - math.lgamma(theta + discount) - math.lgamma(theta + draws))
    return theta / discount * (math.exp(log_ratio) - 1)


def calibrate_theta(draws: int, distinct: int, discount: float = DISCOUNT) -> float:
    """The concentration for which `draws` draws give `distinct` names on average (bisection)."""
    if distinct <= 1 or draws <= distinct:
        return 1.0 if distinct <= 1 else 1e4
    lo, hi = 1e-3, 1e6
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        if expected_distinct(draws, mid, discount) < distinct:
            lo = mid
        else:
            hi = mid
    return lo


class Vocabulary:
    """One kind's names, drawn with a Pitman-Yor process: a new name with probability
    (theta + d*K) / (n + theta), else an old one with probability proportional to (uses - d)."""

    def __init__(self, rng: random.Random, theta: float, fresh: Iterator[Name]) -> None:
        self.rng = rng
        self.theta = theta
        self.fresh = fresh  # seed names first, then minted ones
        self.names: list[Name] = []
        self.uses: list[int] = []
        self.draws: list[int] = []  # one entry per draw: a uniform pick is proportional to uses

    def draw(self) -> Name:
        n, k = len(self.draws), len(self.names)
        if n == 0 or self.rng.random() * (n + self.theta) < self.theta + DISCOUNT * k:
            self.names.append(next(self.fresh))
            self.uses.append(0)
            i = k
        else:
            while True:  # rejection turns "proportional to uses" into "proportional to uses - d"
                i = self.draws[int(self.rng.random() * n)]
                if self.rng.random() * self.uses[i] >= DISCOUNT:
                    break
        self.uses[i] += 1
        self.draws.append(i)
        return self.names[i]


@dataclass
class _Sentence:
    template: Template
    source: int  # index of the seed abstract
    plain: str | None = None  # the text when there is no slot (most sentences): no rendering needed

    def __post_init__(self) -> None:
        if not any(isinstance(p, Slot) for p in self.template):
            self.plain = "".join(p for p in self.template if isinstance(p, str))


@dataclass(frozen=True)
class SeedModel:
    """What the generator learns from the seed files: sentence pools with slots, the seeds' names per
    kind (most frequent first), their long forms, the names minting must avoid, and each kind's
    calibrated concentration. Parsed once per seed directory and shared: it is never mutated."""

    collections: tuple[str, ...]
    openers: tuple[_Sentence, ...]
    middles: tuple[_Sentence, ...]
    closers: tuple[_Sentence, ...]
    seed_names: dict[str, tuple[str, ...]]
    long_forms: dict[str, str]
    taken: frozenset[str]
    theta: dict[str, float]
    # middle sentences that define a method acronym (`long form (ACR)`), with that slot's key
    definers: tuple[tuple[_Sentence, str], ...] = ()


def _mean_keys(pool: Sequence[_Sentence], kind: str) -> float:
    return sum(len({p.key for p in s.template if isinstance(p, Slot) and p.kind == kind})
               for s in pool) / max(1, len(pool))


@functools.lru_cache(maxsize=4)
def load_seed_model(seeds_dir: Path = SEEDS_DIR) -> SeedModel:
    """Cut the seed abstracts into sentence templates and calibrate the vocabularies."""
    abstracts = read_seed_abstracts(seeds_dir)
    kinds: dict[str, str] = {}
    long_forms: dict[str, str] = {}
    pools: tuple[list[_Sentence], list[_Sentence], list[_Sentence]] = ([], [], [])
    seed_counts: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    for index, (_, text) in enumerate(abstracts):
        sentences = split_sentences(text)
        used: dict[str, str] = {}
        for pos, sentence in enumerate(sentences):
            item = _Sentence(make_template(sentence, kinds, long_forms), index)
            for part in item.template:
                if isinstance(part, Slot):
                    used[part.key] = part.kind
            pools[0 if pos == 0 else 2 if pos == len(sentences) - 1 else 1].append(item)
        for key, kind in used.items():
            seed_counts[kind][key] += 1
    openers, middles, closers = pools
    seed_names = {k: tuple(sorted(c, key=lambda t, c=c: (-c[t], t))) for k, c in seed_counts.items()}
    # Anchor: a corpus of as many records as the seeds shows about as many distinct names of each kind
    # as the seeds do; beyond that the discount sets the growth. A generated record draws once per
    # distinct seed name in its picked sentences, more often than a seed abstract, which repeats its
    # own names from sentence to sentence.
    n_middles = sum(SENTENCE_COUNTS) / len(SENTENCE_COUNTS) - 2
    theta = {}
    for kind in KINDS:
        per_record = (_mean_keys(openers, kind) + n_middles * _mean_keys(middles, kind)
                      + _mean_keys(closers, kind))
        theta[kind] = calibrate_theta(round(per_record * len(abstracts)), len(seed_names[kind]))
    taken = frozenset(_fold(token) for _, text in abstracts for token in _TOKEN.findall(text)
                      if any(c.isupper() for c in token))
    definers = tuple((s, p.key) for s in middles for p in s.template
                     if isinstance(p, Slot) and p.define and p.kind == "method")
    return SeedModel(tuple(c for c, _ in abstracts), tuple(openers), tuple(middles), tuple(closers),
                     seed_names, long_forms, taken, theta, definers)


class SyntheticCorpus:
    """The generator. `records(n)` streams records; `vocabulary` and `stats()` say what was used.

    `new_acronyms`: every abstract also defines an acronym no other abstract uses (a seed sentence
    that defines one, as its second sentence, with a freshly minted `Long Form (LF)`), so N abstracts
    hold at least N distinct long forms: the worst case for cross-paper acronym resolution, which
    compares long forms with each other. Another corpus than the default one for the same seed."""

    def __init__(self, seed: int = 0, seeds_dir: Path = SEEDS_DIR, *, new_acronyms: bool = False) -> None:
        self.seed = seed
        self.new_acronyms = new_acronyms
        self.rng = random.Random(f"paperkg-synth:{seed}")
        self.model = load_seed_model(Path(seeds_dir))
        self.minter = Minter(self.rng, set(self.model.taken))
        self.vocabulary = {kind: Vocabulary(self.rng, self.model.theta[kind], self._fresh(kind))
                           for kind in KINDS}
        self.count = 0

    def _fresh(self, kind: str) -> Iterator[Name]:
        for name in self.model.seed_names[kind]:
            yield Name(name, self.model.long_forms.get(name))
        mint = getattr(self.minter, kind)
        while True:
            yield mint()

    def _render(self, template: Template, chosen: dict[str, Name], defined: set[str]) -> str:
        out: list[str] = []
        for part in template:
            if isinstance(part, str):
                out.append(part)
                continue
            name = chosen.get(part.key)
            if name is None:
                name = chosen[part.key] = self.vocabulary[part.kind].draw()
            if part.define and name.long_form and name.name not in defined:
                defined.add(name.name)
                lf = name.long_form
                if not out:  # at the start of a sentence (seed long forms may be lower case)
                    lf = lf[0].upper() + lf[1:]
                elif self.rng.random() < 0.25:
                    lf = lf.lower()
                out.append(f"{lf} ({name.name})")
            else:
                out.append(name.name)
        return "".join(out)

    def record(self) -> dict[str, str]:
        """The next abstract: an opener, 3-8 middle sentences and a closer, names filled in."""
        rand = self.rng.random  # int(rand() * n) rather than choice(): a third of the run time
        k = SENTENCE_COUNTS[int(rand() * len(SENTENCE_COUNTS))]
        model = self.model
        middles, n_mid = model.middles, len(model.middles)
        opener = model.openers[int(rand() * len(model.openers))]
        picked = [opener, *(middles[int(rand() * n_mid)] for _ in range(k - 2)),
                  model.closers[int(rand() * len(model.closers))]]
        chosen: dict[str, Name] = {}
        defined: set[str] = set()
        if self.new_acronyms and model.definers:
            definer, key = model.definers[int(rand() * len(model.definers))]
            picked.insert(1, definer)
            chosen[key] = self._fresh_acronym()
        text = " ".join(s.plain if s.plain is not None else self._render(s.template, chosen, defined)
                        for s in picked)
        self.count += 1
        return {"id": f"synth-{self.seed}-{self.count:07d}", "abstract": text,
                "collection": model.collections[opener.source]}

    def _fresh_acronym(self) -> Name:
        """A minted method name with a long form, never drawn from (or added to) the vocabulary."""
        while True:
            name = self.minter.method()
            if name.long_form:
                return name

    def records(self, n: int) -> Iterator[dict[str, str]]:
        """`n` further records (a fresh `SyntheticCorpus` starts at record 1)."""
        for _ in range(n):
            yield self.record()

    def stats(self) -> dict[str, dict[str, int]]:
        """Distinct names used so far, per kind: all, and minted (not from the seeds)."""
        out = {}
        for kind, vocab in self.vocabulary.items():
            seeds = len(self.model.seed_names[kind])
            out[kind] = {"distinct": len(vocab.names), "minted": max(0, len(vocab.names) - seeds),
                         "draws": len(vocab.draws)}
        return out


def generate(n: int, seed: int = 0, seeds_dir: Path = SEEDS_DIR, *,
             new_acronyms: bool = False) -> Iterator[dict[str, str]]:
    """`n` synthetic abstracts as JSONL-ready `{"id", "abstract", "collection"}` records."""
    if n < 0:
        raise ValueError("n must be >= 0")
    return SyntheticCorpus(seed, seeds_dir, new_acronyms=new_acronyms).records(n)


def write_jsonl(records: Iterator[dict[str, str]], out: TextIO) -> int:
    """Write records one JSON object per line; returns how many."""
    count = 0
    for rec in records:
        out.write(json.dumps(rec, ensure_ascii=False))
        out.write("\n")
        count += 1
    return count


def open_output(path: str) -> TextIO:
    """stdout for `-`; gzip for `.gz`: zero timestamp (equal corpora, equal bytes) and level 1 (level 6
    takes twice as long as generating the text, for a file that is read once)."""
    if path == "-":
        return sys.stdout
    if path.endswith(".gz"):
        raw = open(path, "wb")  # noqa: SIM115 - closed through the wrapper
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=1)
        return _ClosingText(gz, raw)
    return open(path, "w", encoding="utf-8", newline="\n")


class _ClosingText(io.TextIOWrapper):
    """A text wrapper over a GzipFile that also closes the underlying file (GzipFile does not)."""

    def __init__(self, gz: gzip.GzipFile, raw: io.BufferedWriter) -> None:
        super().__init__(gz, encoding="utf-8", newline="\n")
        self._raw = raw

    def close(self) -> None:
        super().close()
        self._raw.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write N synthetic ML abstracts as JSON Lines.")
    parser.add_argument("n", type=int, help="number of abstracts")
    parser.add_argument("-o", "--output", default="-", help="out.jsonl, out.jsonl.gz or - (stdout)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--seeds-dir", type=Path, default=SEEDS_DIR, help="seed collection files")
    parser.add_argument("--new-acronyms", action="store_true",
                        help="every abstract also defines an acronym of its own (resolution's worst case)")
    args = parser.parse_args(argv)
    if args.n < 0:
        parser.error("N must be >= 0")
    started = time.perf_counter()
    corpus = SyntheticCorpus(args.seed, args.seeds_dir, new_acronyms=args.new_acronyms)
    out = open_output(args.output)
    try:
        count = write_jsonl(corpus.records(args.n), out)
    finally:
        if out is not sys.stdout:
            out.close()
    took = time.perf_counter() - started
    names = ", ".join(f"{k} {v['distinct']:,} ({v['minted']:,} minted)" for k, v in corpus.stats().items())
    print(f"{count:,} abstracts in {took:.1f}s; distinct names: {names}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
