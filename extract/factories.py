"""paperkg's spaCy components, registered in one place.

Each component is a small class whose behaviour is fixed by its constructor arguments; the work is done
by pure functions over `Doc`/`Span` that tests can call on `spacy.blank("en")` output.

Results live on the Doc:
- `doc.spans["paperkg_cands"]`: candidate spans from rules and gazetteers (label = entity type);
- `doc.ents`-independent final spans in `doc.spans["paperkg"]` (label = entity type);
- `doc._.paperkg_aliases`: list of (long form, short form) surface pairs;
- `doc._.paperkg_introduced`: list of [start_char, end_char] of mentions presented as new;
- `doc._.paperkg_relations`: list of [head, TYPE, tail, sentence index].
Only plain lists live in these attributes so that docs cross process boundaries with `n_process > 1`.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path

import numpy
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import compile_infix_regex, compile_suffix_regex

DATA_DIR = Path(__file__).parent / "data"
CANDS = "paperkg_cands"
FINAL = "paperkg"

for _name in ("paperkg_aliases", "paperkg_introduced", "paperkg_relations"):
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=None)

DASH_CHARS = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"


# --------------------------------------------------------------------------------------------
# Tokenizer: finer splits, so that names glued by dashes, slashes or `$` align with tokens.
# --------------------------------------------------------------------------------------------
def customize_tokenizer(nlp: Language) -> None:
    """Split on any dash between alphanumerics, on `/`, `$`, `=` and `+` inside words."""
    infixes = [*nlp.Defaults.infixes,
               rf"(?<=[0-9A-Za-z])[\-{DASH_CHARS}](?=[0-9A-Za-z$])",
               rf"(?<=[A-Za-z0-9$])[\-{DASH_CHARS}](?=[A-Za-z0-9])",
               r"[/$=+]",
               r"(?<=[A-Za-z])(?=\$)"]
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    # a sentence-final period after an upper-case or digit name (`GSM8K.`, `MMLU.`) is its own token
    suffixes = [*nlp.Defaults.suffixes, r"(?<=[A-Za-z0-9][A-Z0-9])\."]
    nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search


def doc_text(doc: Doc) -> str:
    """`doc.text`, computed once per Doc (spaCy rebuilds it from the tokens on every access)."""
    if not len(doc):
        return ""
    text = doc.user_data.get("paperkg_text")
    last = doc[-1]
    if text is None or len(text) != last.idx + len(last.text_with_ws):
        text = doc.text
        doc.user_data["paperkg_text"] = text
    return text


def sentence_spans(doc: Doc) -> list[Span]:
    """The sentences, or the whole doc when no sentencizer ran (read in one array call)."""
    n = len(doc)
    if not n:
        return [doc[:]]
    starts = [i for i in numpy.flatnonzero(doc.to_array("SENT_START") == 1).tolist() if i > 0]
    bounds = [0, *starts, n]
    return [doc[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def sentence_index(doc: Doc) -> tuple[list[Span], list[int]]:
    """The sentences and every token's sentence index, computed once per Doc by the resolver and
    shared by the steps that need them (introductions, list cues, relations)."""
    sents = sentence_spans(doc)
    return sents, token_sentence(doc, sents)


def token_sentence(doc: Doc, sents: list[Span]) -> list[int]:
    """Sentence index of every token."""
    out = [0] * len(doc)
    for i, sent in enumerate(sents):
        out[sent.start:sent.end] = [i] * (sent.end - sent.start)
    return out


# --------------------------------------------------------------------------------------------
# Schwartz–Hearst acronym detection
# --------------------------------------------------------------------------------------------
_SHORT_RE = re.compile(r"^[A-Za-z0-9][\w.+\-/&$\u2010-\u2015\u2212]{0,14}$")


def _is_short_form(text: str) -> bool:
    if not _SHORT_RE.match(text) or not any(c.isalpha() for c in text):
        return False
    if len(text.split()) > 2 or len(text) < 2:
        return False
    upper = sum(c.isupper() for c in text)
    return upper >= 1 and (upper >= 2 or any(c.isdigit() for c in text) or text[0].isupper())


def best_long_form(short: str, long_cand: str) -> int | None:
    """Schwartz & Hearst (2003): return the start index in `long_cand` of the long form, or None."""
    s = short.lower()
    lc = long_cand.lower()
    s_idx = len(s) - 1
    l_idx = len(lc) - 1
    while s_idx >= 0:
        c = s[s_idx]
        if not c.isalnum():
            s_idx -= 1
            continue
        while l_idx >= 0 and (lc[l_idx] != c or (s_idx == 0 and l_idx > 0 and lc[l_idx - 1].isalnum())):
            l_idx -= 1
        if l_idx < 0:
            return None
        l_idx -= 1
        s_idx -= 1
    start = lc.rfind(" ", 0, l_idx + 1) + 1
    return start


_FUNCTION_WORDS = {"with", "of", "for", "and", "the", "a", "an", "in", "on", "to", "via", "by", "from", "at"}


def initials_long_form(short: str, long_cand: str) -> int | None:
    """Start index of the shortest tail of `long_cand` whose word initials spell `short` exactly
    (function words skipped; hyphen parts counted as words or not), else None."""
    letters = "".join(c for c in short.lower() if c.isalpha())
    if len(letters) < 2:
        return None
    words = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", long_cand)]
    for k in range(1, min(len(words), len(letters) + 4) + 1):
        tail = words[-k:]
        if tail[0][1].lower() in _FUNCTION_WORDS:
            continue
        content = [w for _, w in tail if w.lower() not in _FUNCTION_WORDS]
        plain = "".join(w[0] for w in content if w[0].isalpha()).lower()
        parts = "".join(p[0] for w in content for p in re.split(rf"[\-{DASH_CHARS}]", w)
                        if p and p[0].isalpha()).lower()
        if letters in (plain, parts):
            return tail[0][0]
    return None


def find_acronyms(doc: Doc) -> list[tuple[Span, Span]]:
    """(long form span, short form span) pairs for `long form (SHORT)` in each sentence."""
    pairs: list[tuple[Span, Span]] = []
    for sent in sentence_spans(doc):
        for tok in sent:
            if tok.text != "(":
                continue
            # short form: tokens up to ')' (max 5 tokens) with no spaces inside ideally
            close = None
            for j in range(tok.i + 1, min(tok.i + 8, sent.end)):
                if doc[j].text == ")":
                    close = j
                    break
                if doc[j].text in {"(", ";", ","}:
                    break
            if close is None or close == tok.i + 1:
                continue
            short_span = doc[tok.i + 1:close]
            short = short_span.text
            # "(SHORT; ...)" or "(e.g. ...)" filtered above; drop trailing plural 's' for matching
            if not _is_short_form(short):
                continue
            match_short = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
            n_chars = sum(c.isalnum() for c in match_short)
            max_words = min(n_chars + 5, n_chars * 2)
            # candidate long form: words before "(" inside the sentence, stopping at punctuation
            start_i = tok.i
            words = 0
            while start_i > sent.start and words < max_words:
                prev = doc[start_i - 1]
                if prev.text in {"(", ")", ";", ":", ",", ".", "\"", "[", "]"} or (prev.text.lower() in {
                        "and", "or", "by", "with", "via", "the", "a", "an", "of"} and words >= n_chars):
                    break
                if prev.text in {"(", ")", ";", ":", ",", ".", "[", "]"}:
                    break
                start_i -= 1
                if not prev.is_punct:
                    words += 1
            if start_i == tok.i:
                continue
            cand = doc[start_i:tok.i]
            cand_text = cand.text
            rel = initials_long_form(match_short, cand_text)
            if rel is None:
                rel = best_long_form(match_short, cand_text)
            if rel is None:
                continue
            long_span = doc.char_span(cand.start_char + rel, cand.end_char, alignment_mode="expand")
            if long_span is None or len(long_span) == 0:
                continue
            # drop leading determiners/function words
            while len(long_span) > 1 and long_span[0].lower_ in _LEADING_DROP:
                long_span = long_span[1:]
            if len(long_span.text) <= len(short) or long_span.text.lower() == short.lower():
                continue
            pairs.append((long_span, short_span))
    pairs.extend(find_reverse_acronyms(doc, {s.start for _, s in pairs}))
    return pairs


def find_reverse_acronyms(doc: Doc, taken: set[int]) -> list[tuple[Span, Span]]:
    """`SHORT (Long Form Words)`, e.g. `MARBLE (Multi-Aspect Reward BaLancE)`."""
    pairs = []
    for tok in doc:
        if tok.text != "(" or tok.i == 0 or tok.i + 1 in taken:
            continue
        short_tok = doc[tok.i - 1]
        short = short_tok.text
        if not _is_short_form(short) or sum(c.isupper() for c in short) < 2:
            continue
        close = None
        for j in range(tok.i + 2, min(tok.i + 16, len(doc))):
            if doc[j].text == ")":
                close = j
                break
            if doc[j].text in {"(", ";", ",", "."}:
                break
        if close is None or close - tok.i < 3:
            continue
        content = doc[tok.i + 1:close]
        if not content[0].is_alpha or not content.text[0].isalpha():
            continue
        rel = initials_long_form(short, content.text)
        if rel != 0 and best_long_form(short, content.text) != 0:
            continue
        pairs.append((content, doc[tok.i - 1:tok.i]))
    return pairs


_LEADING_DROP = {"the", "a", "an", "our", "this", "these", "its", "their", "we", "new", "novel", "of",
                 "called", "named", "termed", "dubbed", "coined"}


# --------------------------------------------------------------------------------------------
# Model names by shape
# --------------------------------------------------------------------------------------------
MODEL_FAMILIES = (
    "GPT", "ChatGPT", "InstructGPT", "LLaMA", "Llama", "LLaMa", "LLAMA", "Qwen", "QwQ", "DeepSeek", "Mistral",
    "Mixtral", "Gemma", "Gemini", "Claude", "PaLM", "Phi", "T5", "Flan-T5", "BERT", "RoBERTa", "DeBERTa",
    "ALBERT", "DistilBERT", "ELECTRA", "XLNet", "BART", "OPT", "BLOOM", "Falcon", "Vicuna", "Alpaca",
    "OLMo", "OLMoE", "Pythia", "GPT-J", "GPT-NeoX", "StarCoder", "CodeLlama", "Code Llama", "InternLM",
    "InternVL", "Yi", "Baichuan", "ChatGLM", "GLM", "MiniCPM", "LLaVA", "BLIP", "BLIP-2", "CLIP", "SigLIP",
    "ViT", "DeiT", "Swin", "ResNet", "ResNeXt", "VGG", "EfficientNet", "MobileNet", "DenseNet", "Inception",
    "AlexNet", "ConvNeXt", "DINO", "DINOv2", "SAM", "Stable Diffusion", "SDXL", "DALL-E", "DALL·E", "Imagen",
    "Whisper", "wav2vec", "Wav2Vec2", "HuBERT", "Sora", "Kimi", "Grok", "o1", "o3", "o4-mini", "R1",
    "Seed", "Doubao", "Hunyuan", "ERNIE", "Nemotron", "Granite", "SmolLM", "TinyLlama", "Zephyr", "Orca",
    "WizardLM", "WizardMath", "MetaMath", "Mathstral", "DeepSeekMath", "Qwen-Math", "SD3", "SD3.5", "FLUX",
    "PixArt", "U-Net", "UNet", "YOLO", "YOLOv8", "DETR", "Mask R-CNN", "Faster R-CNN", "AlphaGo", "AlphaZero",
    "MuZero", "AlphaFold", "ESM", "GraphCast", "Chinchilla", "Gopher", "Galactica", "MPT", "Jamba", "Mamba",
)

_FAMILY_ALT = "|".join(sorted((re.escape(f) for f in MODEL_FAMILIES), key=len, reverse=True))
_D = f"[\\-{DASH_CHARS}]"
# family + version/size parts, e.g. Qwen2.5-7B-Instruct, LLaMA3.1-8B, GPT-4o, DeepSeek-R1-Zero, ResNet-50
MODEL_RE = re.compile(
    rf"(?<![\w\-])(?=[A-Zow])(?:{_FAMILY_ALT})"
    rf"(?:[0-9][0-9.]*[a-z]?|{_D}?v[0-9.]+)?"
    rf"(?:(?:{_D}|\s(?=\d+(?:\.\d+)?[BbMm]\b))(?:[0-9][0-9.]*[A-Za-z]{{0,2}}|[A-Z][A-Za-z0-9.]*|v[0-9.]+|mini|nano|turbo|base|large|small|medium|chat|instruct|distill|tiny|xl|xxl|it)\b)*"
    rf"(?![\w])"
)
# generic shape: Name-7B, Name2-8B-Instruct (size suffix marks a trained model)
SIZED_RE = re.compile(
    rf"(?<![\w\-])[A-Z][A-Za-z0-9.]*(?:{_D}[A-Za-z0-9.]+)*{_D}\d+(?:\.\d+)?[BM](?:{_D}[A-Za-z0-9.]+)*(?![\w])"
)


def find_model_names(doc: Doc) -> list[Span]:
    spans = []
    text = doc_text(doc)
    for rx in (MODEL_RE, SIZED_RE):
        for m in rx.finditer(text):
            name = m.group(0).rstrip(".")
            span = doc.char_span(m.start(), m.start() + len(name), label="Model", kb_id="model")
            if span is not None:
                spans.append(span)
    return spans


# names by shape: CamelCase, ALLCAPS, letters+digits (GUARD, GPPO, ImageNet, C51, weather2vec)
SHAPE_RE = re.compile(
    rf"(?<![\w\-$/@.])(?:[A-Z][a-z]*[A-Z]\w*|[A-Za-z]+\d[\w.]*[\w]|[A-Z]{{2,}}s?)"
    rf"(?:{_D}[A-Za-z0-9]+)*(?![\w\-/@]|\.\w)"
)
SHAPE_STOP = {
    "AAAI", "ACL", "AI", "AISTATS", "API", "APIs", "ASR", "AUC", "Anthropic", "CNNs", "CO2", "COLT",
    "COVID-19", "CPU", "CPUs", "CUDA", "CVPR", "DL", "DNA", "DNN", "DNNs", "DP", "DeepMind", "EMNLP",
    "EU", "FLOP", "FLOPs", "FPS", "GB", "GELU", "GNNs", "GPU", "GPUs", "GeLU", "GitHub", "Google",
    "HTTP", "HuggingFace", "ICLR", "ICML", "ID", "II", "IID", "III", "IJCAI", "IT", "IV", "IoT", "JAX",
    "JSON", "KB", "KDD", "KL", "LDP", "LLM", "LLMs", "LM", "LMs", "LRM", "LRMs", "MB", "MDP", "MDPs",
    "ML", "MLLM", "MLLMs", "MSE", "Meta", "Microsoft", "NLP", "NN", "NNs", "NP", "NVIDIA", "NeurIPS",
    "Nvidia", "OCR", "ODE", "ODEs", "OK", "OOD", "OoD", "OpenAI", "PC", "PCs", "PDE", "PDEs", "POMDPs",
    "PhD", "PyTorch", "Q&A", "QA", "RGB", "RGB-D", "RKHS", "RL", "RNA", "RNNs", "ROC", "ReLU", "SOTA",
    "SQL", "SSMs", "TB", "TFLOPs", "TPU", "TTS", "TV", "TensorFlow", "UK", "URL", "US", "USA", "VI",
    "VII", "VLM", "VLMs", "VQA", "XII", "arXiv",
}


_BENCH_NAME = re.compile(r"Bench|bench|Arena|Eval(?![a-z])|Gym(?![a-z])")
_DATA_NAME = re.compile(r"(?:Dataset|Corpus|DB)$")


def name_shape_type(name: str) -> str:
    """`UnpredictaBench`, `SWE-bench`, `AlpacaEval` are benchmarks; `...Dataset`, `...Corpus` data sets."""
    if _BENCH_NAME.search(name):
        return "Benchmark"
    if _DATA_NAME.search(name):
        return "Dataset"
    return "Method"


def find_name_shapes(doc: Doc) -> list[Span]:
    """Tokens shaped like names, as Method candidates (lowest-priority source `shape`)."""
    spans = []
    text = doc_text(doc)
    for m in SHAPE_RE.finditer(text):
        name = m.group(0)
        if name in SHAPE_STOP or name.rstrip("s") in SHAPE_STOP:
            continue
        if re.search(rf"{_D}(?:based|like|style|free|aware|level|specific|driven|guided|hard|"
                     rf"complete|minimal|approximating|derived|inspired|only|wise)$", name):
            continue
        left = text[max(0, m.start() - 30):m.start()]
        if "github" in left.lower() or "http" in left.lower() or "www." in left:
            continue
        span = doc.char_span(m.start(), m.end(), label=name_shape_type(name), kb_id="shape")
        if span is not None:
            spans.append(span)
    return spans


# --------------------------------------------------------------------------------------------
# Gazetteer
# --------------------------------------------------------------------------------------------
def load_gazetteer(path: Path) -> dict[str, list[str]]:
    """name -> type, from `name<TAB>type[<TAB>case]` lines; `#` comments."""
    out: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            out.setdefault(parts[1], []).append(parts[0])
    return out


class GazetteerMatcher:
    """Case-sensitive PhraseMatcher over curated names; labels are entity types."""

    def __init__(self, nlp: Language, name: str, path: str | None = None,
                 lower_types: Iterable[str] = ("Metric", "Task", "Method")) -> None:
        self.name = name
        gaz = load_gazetteer(Path(path) if path else DATA_DIR / "gazetteer.tsv")
        self.exact = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.lower = PhraseMatcher(nlp.vocab, attr="LOWER")
        lower_types = set(lower_types)
        tokenizer = nlp.tokenizer
        for etype, names in gaz.items():
            # phrases written in lower case (`knowledge distillation`) match any case; names with
            # capitals (`REINFORCE`, `ImageNet`) only as written, so that `reinforce` the verb is no name
            lower = [n for n in names if etype in lower_types and n == n.lower()]
            exact = [n for n in names if not (etype in lower_types and n == n.lower())]
            if lower:
                self.lower.add(etype, list(tokenizer.pipe(lower)))
            if exact:
                self.exact.add(etype, list(tokenizer.pipe(exact)))

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans[CANDS]) if CANDS in doc.spans else []
        for matcher, source in ((self.exact, "gaz_exact"), (self.lower, "gaz_lower")):
            for match_id, start, end in matcher(doc):
                spans.append(Span(doc, start, end, label=match_id, kb_id=source))
        doc.spans[CANDS] = spans
        return doc


# --------------------------------------------------------------------------------------------
# Components
# --------------------------------------------------------------------------------------------
class AcronymDetector:
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        pairs = find_acronyms(doc)
        spans = list(doc.spans[CANDS]) if CANDS in doc.spans else []
        aliases = []
        for long_span, short_span in pairs:
            spans.append(Span(doc, long_span.start, long_span.end, label="LONG", kb_id="acro"))
            spans.append(Span(doc, short_span.start, short_span.end, label="SHORT", kb_id="acro"))
            aliases.append([long_span.text, short_span.text])
        doc.spans[CANDS] = spans
        doc._.paperkg_aliases = aliases
        return doc


# -- names the paper introduces: `we propose X`, `we introduce a new X framework`, `called X` -----------
_INTRO_VERBS = {"propose", "introduce", "present", "develop", "design", "devise", "formulate", "construct",
                "build", "release", "curate", "proposes", "introduces", "presents", "develops"}
_INTRO_SUBJECTS = {"we", "paper", "work", "article", "study"}
_NAMING_CUES = {"called", "dubbed", "named", "termed", "coined"}
_INTRO_SKIP = {
    "a", "an", "and", "computationally", "easy-to-implement", "effective", "efficient", "elegant",
    "first", "flexible", "fully", "general", "generic", "highly", "lightweight", "new", "novel", "our",
    "plug-and-play", "powerful", "practical", "principled", "provably", "scalable", "simple",
    "simple-to-implement", "the", "theoretically", "three", "two", "unified", "versatile", "yet",
    "second", "third", "several", "multiple", "both", "single", "comprehensive", "systematic", "modular",
    "minimal", "surprisingly", "remarkably", "tractable", "rigorous", "complementary", "alternative",
}
_CONTAINERS = {
    "class", "collection", "extension", "family", "form", "generalization", "instance", "kind",
    "series", "set", "suite", "type", "variant", "version",
}
_GENERIC_HEADS = {
    "algorithm", "algorithms", "approach", "approaches", "architecture", "concept", "construction",
    "extension", "family", "formulation", "framework", "frameworks", "idea", "implementation",
    "library", "mechanism", "mechanisms", "method", "methodology", "methods", "model", "models",
    "module", "notion", "operation", "operations", "paradigm", "pipeline", "procedure", "protocol",
    "recipe", "scheme", "setting", "solution", "strategies", "strategy", "system", "technique",
    "techniques", "tool", "toolkit", "variant",
}
_PHRASE_STOP = {
    "(", ")", ",", "--", ".", ":", ";", "and", "are", "as", "at", "based", "because", "between", "by",
    "can", "for", "from", "in", "into", "is", "it", "its", "on", "or", "over", "than", "that", "these",
    "this", "through", "to", "under", "using", "via", "we", "when", "where", "whereby", "which",
    "while", "who", "whose", "with", "without", "–", "—",
}


_SHAPE_TOKEN = re.compile(r"^(?:[A-Z].*|.*[A-Z0-9$].*)$")


def _in_title_name(doc: Doc, i: int) -> bool:
    """A capitalised generic head after a capitalised word belongs to a name (`Generalist Value Models`)."""
    return doc[i].text[:1].isupper() and i > 0 and doc[i - 1].text[:1].isupper()


_INTRO_CUE_RE = re.compile(
    r"\b(?:(?:we|paper|work|article|study|also|then|further)\s+("
    + "|".join(sorted(_INTRO_VERBS)) + r")|(" + "|".join(sorted(_NAMING_CUES)) + r"))\b(?=\s)", re.I)


_NOT_NAME_WORDS = {
    "result", "results", "theory", "theories", "definition", "assumption", "analysis", "analyses",
    "example", "examples", "problem", "problems", "number", "bound", "bounds", "proof", "proofs",
    "guarantee", "guarantees", "insight", "insights", "such", "evaluate", "study", "studies", "way",
    "ways", "view", "perspective", "understanding", "finding", "findings", "evidence", "set", "series",
}


def _plausible_intro_name(span: Span, text: str) -> bool:
    """Drop clause fragments after an introduction cue (`theoretical results`, `six proxies`)."""
    first = span[0]
    if first.is_punct or first.like_num or first.is_digit:
        return False
    if any(t.lower_ in _NOT_NAME_WORDS for t in span) or any(c in span.text for c in "\"{}[]"):
        return False
    if " " in span.text or not span.text.islower():
        return True
    # one lower-case word: a hyphenated modifier (`end-to-end`) is no name; a plain word must recur
    word = span.text
    return "-" not in word and len(re.findall(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text)) >= 2


def find_introduced_names(doc: Doc) -> list[Span]:
    """The noun phrase after `we propose/introduce/...` (generic heads such as `framework` dropped),
    and the name after `called/dubbed/named`, as candidates of source `intro`."""
    spans = []
    n = len(doc)
    text = doc_text(doc)
    starts = None
    for match in _INTRO_CUE_RE.finditer(text):
        if starts is None:
            starts = doc.to_array("IDX").tolist()
        i = bisect.bisect_left(starts, match.end())  # first token after the cue
        low = (match.group(1) or match.group(2)).lower()
        while i < n and (doc[i].lower_ in _INTRO_SKIP or doc[i].text in {"\"", "'", "`", "*"}):
            i += 1
        if i + 1 < n and doc[i].lower_ in _CONTAINERS and doc[i + 1].lower_ == "of":
            i += 2
            while i < n and doc[i].lower_ in _INTRO_SKIP:
                i += 1
        start = i
        if start < n and doc[start].text.endswith("ing") and start + 1 < n and doc[start + 1].lower_ in {
                "the", "a", "an", "our", "each", "all"}:
            continue  # `we propose replacing the ...`: a clause, not a name
        while i < n and i - start < 8 and not doc[i].is_sent_start:
            glued = i > start and not doc[i - 1].whitespace_ and doc[i - 1].text in "-\u2010\u2011"
            if doc[i].lower_ in _PHRASE_STOP and not glued:
                break
            i += 1
            if doc[i - 1].lower_ in _GENERIC_HEADS and not _in_title_name(doc, i - 1):
                break  # `... framework` ends the phrase (`framework grounded in ...` is not part of it)
        end = i
        while end > start and ((doc[end - 1].lower_ in _GENERIC_HEADS and not _in_title_name(doc, end - 1))
                               or doc[end - 1].lower_ == "of" or doc[end - 1].is_punct):
            end -= 1
        if end <= start or all(t.lower_ in _GENERIC_HEADS | _INTRO_SKIP for t in doc[start:end]):
            continue
        if end < i and end - start == 1 and doc[start].is_lower and not _SHAPE_TOKEN.match(doc[start].text):
            continue  # `two complementary methods` -> `complementary`: an adjective, not a name
        if low in _NAMING_CUES and end - start > 4:
            continue
        span = doc[start:end]
        if not _plausible_intro_name(span, text):
            continue
        etype = type_from_head(span.text, introduced=True)
        if doc[end].lower_ in {"dataset", "corpus"} if end < n else False:
            etype = "Dataset"
        elif doc[end].lower_ in {"benchmark", "suite"} if end < n else False:
            etype = "Benchmark"
        elif doc[end].lower_ in {"metric", "measure", "score"} if end < n else False:
            etype = "Metric"
        spans.append(Span(doc, start, end, label=etype, kb_id="intro"))
    return spans


class ModelNameMatcher:
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans[CANDS]) if CANDS in doc.spans else []
        spans.extend(find_model_names(doc))
        spans.extend(find_name_shapes(doc))
        spans.extend(find_introduced_names(doc))
        doc.spans[CANDS] = spans
        return doc


# -- type of a long form from its head word -----------------------------------------------------
_HEAD_TYPES = {
    "Metric": {"accuracy", "error", "score", "rate", "distance", "divergence", "regret", "precision",
               "recall", "f1", "auc", "perplexity", "entropy", "ratio", "index", "coefficient", "cost"},
    "Task": {"prediction", "detection", "classification", "generation", "recognition", "segmentation",
             "estimation", "translation", "answering", "retrieval", "scheduling", "reasoning", "synthesis",
             "evaluation", "forecasting", "inference", "privacy", "summarization", "tracking", "planning",
             "control", "editing", "alignment", "navigation", "captioning", "completion", "parsing",
             "learning", "problem", "problems", "game", "games", "proving", "grounding", "attack", "attacks",
             "logistics", "pathology", "diagnosis", "discovery", "understanding"},
    "Benchmark": {"benchmark", "bench", "suite", "leaderboard", "environment", "environments", "challenge"},
    "Dataset": {"dataset", "corpus", "database"},
}


def type_from_head(text: str, introduced: bool = False) -> str:
    """Entity type of a (long-form) phrase from its last word; a phrase the paper introduces is not a Task."""
    words = re.split(rf"[\s\-{DASH_CHARS}]+", text.lower())
    head = words[-1] if words else ""
    for etype, heads in _HEAD_TYPES.items():
        if head in heads:
            return "Method" if etype == "Task" and introduced else etype
    return "Method"


GENERIC = {
    # properties and settings that papers abbreviate but that name no method, data set or task
    "out-of-distribution", "in-distribution", "out-of-domain", "in-domain", "ood", "iid", "i.i.d.",
    "independent and identically distributed", "latent variables", "lvs", "ground truth", "gt",
    "agents", "ai", "ai systems", "algorithm", "approach", "artificial intelligence", "benchmark",
    "benchmarks", "cnn", "cnns", "data", "deep learning", "deep learning models", "deep networks",
    "deep neural networks", "diffusion model", "diffusion models", "dl", "dnn", "dnns", "e.g.",
    "foundation model", "foundation models", "framework", "generative model", "generative models",
    "gnn", "gnns", "i.e.", "kl", "language agents", "language model", "language models",
    "large language model", "large language models", "large reasoning models", "llm", "llm agents",
    "llm-based", "llms", "lm", "lms", "lrm", "lrms", "machine learning", "machine learning models",
    "method", "ml", "ml models", "mllm", "mllms", "model", "multimodal large language models",
    "neural network", "neural networks", "nlp", "pre-trained language models",
    "pretrained language models", "rl-based", "rnn", "rnns",
    "small language models", "sota", "ssm", "ssms", "state-of-the-art",
    "vision language models", "vision-language models", "vlm", "vlms",
}

def _norm(text: str) -> str:
    return re.sub(rf"[\s\-{DASH_CHARS}]+", " ", text.lower()).strip()


_GENERIC_NORM = {_norm(g) for g in GENERIC}


# --------------------------------------------------------------------------------------------
# Learned span typer: which of the six types a rule-found span is (softmax regression, numpy-free)
# --------------------------------------------------------------------------------------------
TYPED_BY_TYPER = ("acro", "shape", "intro")


_DIGIT = re.compile(r"\d")


class TokenView:
    """Per-token strings of one Doc, read once (creating spaCy Token objects one by one is slow)."""

    def __init__(self, doc: Doc) -> None:
        from spacy.attrs import IDX, IS_PUNCT, IS_SPACE, LENGTH, LOWER

        self.text = doc_text(doc)
        arr = doc.to_array([LOWER, IDX, LENGTH, IS_PUNCT, IS_SPACE]).tolist() if len(doc) else []
        strings = doc.vocab.strings
        self.lowers = [strings[row[0]] for row in arr]
        self.starts = [row[1] for row in arr]
        self.lengths = [row[2] for row in arr]
        self.breaks = [bool(row[3] or row[4]) for row in arr]

    def surface(self, start: int, end: int) -> str:
        return self.text[self.starts[start]:self.starts[end - 1] + self.lengths[end - 1]]


def span_features(doc: Doc, start: int, end: int, view: TokenView | None = None) -> list[str]:
    """Sparse features of the span doc[start:end] for the typer: its words, head, shape, neighbours."""
    view = view or TokenView(doc)
    lowers = view.lowers
    words = lowers[start:end]
    surface = view.surface(start, end)
    head = words[-1]
    feats = ["bias", f"head={head}", f"first={words[0]}", f"suf3={head[-3:]}", f"len={min(len(words), 5)}"]
    feats += [f"w={w}" for w in words if w.isalnum()]
    if len(words) > 1:
        feats.append(f"head2={words[-2]}_{head}")
    rest = surface[1:]
    if surface.isupper():
        feats.append("shape=upper")
    elif rest != rest.lower():
        feats.append("shape=innercap")
    elif surface[:1].isupper():
        feats.append("shape=title")
    else:
        feats.append("shape=lower")
    if _DIGIT.search(surface):
        feats.append("shape=digit")
    n = len(lowers)
    for k, i in (("p1", start - 1), ("p2", start - 2), ("n1", end), ("n2", end + 1)):
        feats.append(f"{k}={lowers[i] if 0 <= i < n else '<s>'}")
    return feats


class SpanTyper:
    """Multinomial logistic regression over `span_features`, trained by `training/train_typer.py`."""

    def __init__(self, labels: list[str], weights: dict[str, list[float]]) -> None:
        self.labels = labels
        self.weights = weights
        self._matrix: numpy.ndarray | None = None
        self._rows: dict[str, int] = {}

    @classmethod
    def from_disk(cls, path: str | Path) -> SpanTyper:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return cls(data["labels"], data["weights"])

    def to_disk(self, path: str | Path) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"labels": self.labels, "weights": self.weights}, handle, separators=(",", ":"))

    def probabilities(self, feats: list[str]) -> list[float]:
        scores = [0.0] * len(self.labels)
        for f in feats:
            row = self.weights.get(f)
            if row is not None:
                for k, w in enumerate(row):
                    scores[k] += w
        top = max(scores)
        exps = [math.exp(x - top) for x in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def batch_probabilities(self, feature_lists: list[list[str]]) -> numpy.ndarray:
        """Probabilities for many instances at once: (n instances, n labels)."""
        if self._matrix is None:
            self._rows = {f: i for i, f in enumerate(self.weights)}
            rows_ = [*self.weights.values(), [0.0] * len(self.labels)]  # last row: unknown features
            self._matrix = numpy.array(rows_)
        rows = self._rows
        idx, starts = [], []
        get = rows.get
        for feats in feature_lists:
            starts.append(len(idx))
            found = [r for r in map(get, feats) if r is not None]
            idx.extend(found or (-1,))  # no known feature: the zero row at the end
        scores = numpy.add.reduceat(self._matrix[numpy.array(idx)], numpy.array(starts), axis=0)
        scores -= scores.max(axis=1, keepdims=True)
        probs = numpy.exp(scores)
        return probs / probs.sum(axis=1, keepdims=True)

    def predict(self, doc: Doc, start: int, end: int, view: TokenView | None = None) -> tuple[str, float]:
        probs = self.probabilities(span_features(doc, start, end, view))
        best = max(range(len(probs)), key=probs.__getitem__)
        return self.labels[best], probs[best]


# --------------------------------------------------------------------------------------------
# Learned phrase finder: stop-word-delimited chunks, their prefixes and suffixes, scored by a softmax
# regression with an `O` (no entity) label
# --------------------------------------------------------------------------------------------
_CHUNK_BREAK = frozenset(STOP_WORDS) | {
    "propose", "proposes", "proposed", "show", "shows", "shown", "achieve", "achieves", "achieving",
    "improve", "improves", "improving", "improved", "use", "uses", "using", "used", "based", "present",
    "presents", "introduce", "introduces", "demonstrate", "demonstrates", "novel", "new", "existing",
    "prior", "various", "several", "different", "leads", "lead", "enables", "enable", "allows", "allow",
    "yields", "provides", "provide", "require", "requires", "remains", "via", "outperforms", "outperform",
    "approach", "method", "framework", "methods", "approaches", "results", "performance", "paper", "work",
    "study", "effective", "efficient", "significantly", "challenging", "key", "e.g.", "i.e.", "et", "al",
}
_CHUNK_GLUE = {"-", "$", "+", "/", "\u2010", "\u2011", "\u2013", "^", "_", "{", "}"}
MAX_PHRASE = 6


def phrase_chunks(view: TokenView) -> list[tuple[int, int]]:
    """Maximal token runs without stop words or punctuation (hyphens, `$`, `/` glue words together)."""
    out = []
    start = None
    for i, low in enumerate(view.lowers):
        if low in _CHUNK_BREAK or (view.breaks[i] and low not in _CHUNK_GLUE):
            if start is not None:
                out.append((start, i))
            start = None
        elif start is None:
            start = i
    if start is not None:
        out.append((start, len(view.lowers)))
    return out


def phrase_candidates(chunk: tuple[int, int]) -> list[tuple[int, int]]:
    """The prefixes and suffixes (at most MAX_PHRASE tokens) of a chunk, the whole chunk included."""
    a, b = chunk
    cands = {(k, b) for k in range(a, b) if b - k <= MAX_PHRASE}
    cands |= {(a, k) for k in range(a + 1, b + 1) if k - a <= MAX_PHRASE}
    return sorted(cands)


def phrase_features(doc: Doc, start: int, end: int, chunk: tuple[int, int], view: TokenView) -> list[str]:
    feats = span_features(doc, start, end, view)
    feats.append("pos=" + ("full" if (start, end) == chunk else "suffix" if end == chunk[1] else "prefix"))
    surface = view.surface(start, end)
    feats.append(f"rep={min(view.text.count(surface), 3)}")
    if view.lowers[start] in _CHUNK_GLUE or view.lowers[end - 1] in _CHUNK_GLUE:
        feats.append("edge=glue")
    return feats


def find_learned_phrases(doc: Doc, model: SpanTyper, min_prob: float) -> list[Span]:
    """Non-overlapping phrases that are an entity with probability >= `min_prob` (1 - P(O)), typed by the
    most probable entity label; overlaps go to the more probable phrase."""
    view = TokenView(doc)
    chunks = phrase_chunks(view)
    cands = [(chunk, start, end) for chunk in chunks for start, end in phrase_candidates(chunk)]
    if not cands:
        return []
    probs = model.batch_probabilities([phrase_features(doc, s, e, c, view) for c, s, e in cands])
    none = model.labels.index("O")
    entity = 1.0 - probs[:, none]
    probs[:, none] = -1.0
    best = probs.argmax(axis=1)
    by_chunk: dict[tuple[int, int], list] = {}
    for k in numpy.flatnonzero(entity >= min_prob).tolist():
        chunk, start, end = cands[k]
        by_chunk.setdefault(chunk, []).append((entity[k], start, end, model.labels[best[k]]))
    spans = []
    for scored in by_chunk.values():
        taken: set[int] = set()
        for _prob, start, end, label in sorted(scored, reverse=True):
            if not taken.intersection(range(start, end)):
                taken.update(range(start, end))
                spans.append(Span(doc, start, end, label=label, kb_id="phrase"))
    return spans


# candidate sources, strongest first; a candidate is kept when it overlaps nothing kept before it
SOURCE_RANK = {"acro": 0, "model": 1, "gaz_exact": 2, "intro": 3, "gaz_lower": 4, "shape": 5, "ner": 6,
               "phrase": 7}


def _source_of(span: Span) -> str:
    return span.kb_id_ or "gaz_exact"


_EDGE_DROP = {
    "(", ")", ",", "-", ".", ":", ";", "a", "all", "an", "and", "any", "are", "as", "at", "based", "be",
    "both", "by", "can", "directly", "each", "for", "from", "in", "into", "is", "its", "new", "novel",
    "of", "on", "or", "our", "such", "than", "that", "the", "their", "these", "this", "those", "to",
    "under", "using", "via", "we", "which", "with",
}
_INSIDE_DROP = {
    ":", ";", "are", "be", "because", "can", "did", "do", "does", "had", "has", "have", "if", "is",
    "it", "may", "might", "must", "not", "our", "should", "show", "showed", "shows", "that", "they",
    "was", "we", "were", "when", "whereas", "which", "while", "will", "would",
}


def clean_ner_span(span: Span) -> Span | None:
    """Trim function words and punctuation off a predicted span's edges; drop it when it reads like a
    clause (a verb or pronoun inside) or nothing name-like is left."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and doc[start].lower_ in _EDGE_DROP:
        start += 1
    while end > start and doc[end - 1].lower_ in _EDGE_DROP:
        end -= 1
    if start >= end:
        return None
    if any(t.lower_ in _INSIDE_DROP for t in doc[start:end]):
        return None
    if doc[start:end].text.count("(") != doc[start:end].text.count(")"):
        return None
    if (end - start == 1 and doc[start].is_punct) or doc[start:end].text.isdigit():
        return None
    return Span(doc, start, end, label=span.label_, kb_id="ner")


def spans_from_biluo_tags(doc: Doc) -> list[Span]:
    """Entity spans from BILUO tags that a tagger wrote into `token.tag_` (`B-Method`, `I-Method`,
    `L-Method`, `U-Task`, `O`); a run cut short by an unexpected tag ends where it was cut."""
    if not len(doc):
        return []
    strings = doc.vocab.strings
    tags = [strings[h] if h else "" for h in doc.to_array("TAG").tolist()]
    if not any(t[:2] in ("B-", "U-") for t in tags):
        return []
    spans = []
    i, n = 0, len(tags)
    while i < n:
        tag = tags[i]
        if tag.startswith("U-"):
            spans.append(Span(doc, i, i + 1, label=tag[2:]))
            i += 1
        elif tag.startswith("B-"):
            label = tag[2:]
            j = i + 1
            while j < n and tags[j] == "I-" + label:
                j += 1
            end = j + 1 if j < n and tags[j] == "L-" + label else j
            spans.append(Span(doc, i, end, label=label))
            i = end
        else:
            i += 1
    return spans


def collect_candidates(doc: Doc, phrases: SpanTyper | None = None, phrase_prob: float = 0.3) -> list[Span]:
    """Rule candidates (kb_id = source), learned phrases (`phrase`) and the NER's entities (`ner`)."""
    cands = list(doc.spans[CANDS]) if CANDS in doc.spans else []
    if phrases is not None:
        cands.extend(find_learned_phrases(doc, phrases, phrase_prob))
    predicted = list(doc.ents) or spans_from_biluo_tags(doc)
    if not predicted:
        return cands
    text = doc_text(doc)
    for ent in predicted:
        span = clean_ner_span(ent)
        if span is not None and ner_span_is_trusted(span, text):
            cands.append(span)
    return cands


def ner_span_is_trusted(span: Span, text: str) -> bool:
    """The NER alone is noisy on this data (precision ~0.35 on held-out folds); keep its spans that
    look like names (capitals inside, digits) or that the abstract repeats (~0.6 precision)."""
    surface = span.text
    if any(c.isupper() for c in surface[1:]) or any(c.isdigit() for c in surface):
        return True
    return text.count(surface) >= 2


def is_generic(text: str) -> bool:
    """A generic kind or setting (`LLMs`, `diffusion models`, `out-of-distribution`), not an entity."""
    low = _norm(text)
    return low in _GENERIC_NORM or low.rstrip("s") in _GENERIC_NORM


def resolve_mentions(doc: Doc, typer: SpanTyper | None = None, min_prob: float = 0.8,
                     phrases: SpanTyper | None = None, phrase_prob: float = 0.3) -> list[Span]:
    """Pick non-overlapping typed spans from the candidates; type acronyms from their long forms;
    add every further occurrence of a found surface string; drop generic kinds. With a `typer`, spans
    that rules typed by guesswork (acronym long forms, name shapes, introduced phrases) take its type
    when it is at least `min_prob` sure."""
    text = doc_text(doc)
    # (rank, start, end, text, label, source) tuples: cheaper than Span objects
    cands = [(SOURCE_RANK.get(_source_of(s), 9), s.start, s.end, s.start_char, s.text, s.label_,
              _source_of(s)) for s in collect_candidates(doc, phrases, phrase_prob)]
    cands.sort(key=lambda c: (c[0], c[1] - c[2], c[1]))
    typed_by_text: dict[str, str] = {}
    for c in cands:
        if c[5] not in ("LONG", "SHORT") and c[6] not in ("shape", "ner", "phrase"):
            typed_by_text.setdefault(c[4], c[5])
    intro_long = {c[4] for c in cands if c[5] == "LONG" and has_intro_cue(text, c[3])}
    alias_type: dict[str, str] = {}
    long_spans = {c[4]: (c[1], c[2]) for c in cands if c[5] == "LONG"}
    view = TokenView(doc) if typer is not None else None
    for long_text, short_text in doc._.paperkg_aliases or []:
        # a short form defined here may mean something else elsewhere: type it by its long form only
        etype = typed_by_text.get(long_text)
        if etype is None and typer is not None and long_text in long_spans:
            label, prob = typer.predict(doc, *long_spans[long_text], view)
            etype = label if prob >= min_prob else None
        etype = etype or type_from_head(long_text, long_text in intro_long)
        alias_type[long_text] = etype
        alias_type[short_text] = etype
    taken = bytearray(len(doc))
    kept: list[tuple[int, int, str, str]] = []  # start, end, text, source
    surfaces: dict[str, str] = {}
    for _rank, start, end, _sc, span_text, label, source in cands:
        if any(taken[start:end]) or is_generic(span_text):
            continue
        if label in ("LONG", "SHORT"):
            label = alias_type.get(span_text, "Method")
        elif typer is not None and source in TYPED_BY_TYPER and span_text not in surfaces:
            guess, prob = typer.predict(doc, start, end, view)
            label = guess if prob >= min_prob else label
        taken[start:end] = b"\x01" * (end - start)
        kept.append((start, end, span_text, source))
        surfaces.setdefault(span_text, label)
    # every further occurrence of a kept surface is a mention too
    if surfaces:
        words = [t.text for t in doc]
        idx = doc.to_array("IDX").tolist()
        by_first: dict[str, list[tuple[int, str]]] = {}
        for start, end, span_text, _source in kept:
            key = words[start]
            entry = (end - start, span_text)
            if entry not in by_first.setdefault(key, []):
                by_first[key].append(entry)
        for entries in by_first.values():
            entries.sort(reverse=True)
        n = len(words)
        for i, word in enumerate(words):
            entries = by_first.get(word)
            if not entries or taken[i]:
                continue
            for length, surface in entries:
                end = i + length
                if end > n or any(taken[i:end]):
                    continue
                start_char, end_char = idx[i], idx[end - 1] + len(words[end - 1])
                if text[start_char:end_char] != surface:
                    continue
                if (start_char > 0 and (text[start_char - 1].isalnum() or text[start_char - 1] in "-_")) or (
                        end_char < len(text) and (text[end_char].isalnum() or text[end_char] in "-_")):
                    continue
                taken[i:end] = b"\x01" * length
                kept.append((i, end, surface, "copy"))
                break
    kept.sort()
    return [Span(doc, start, end, label=surfaces[span_text], kb_id=source)
            for start, end, span_text, source in kept]


_INTRO_RE = re.compile(
    r"\b(?:we\s+(?:propose|introduce|present|develop|design|call|name|term|dub|release|construct|build|curate)"
    r"(?:\s+(?:a|an|the))?(?:\s+(?:new|novel|simple|general|unified|effective|efficient|principled|"
    r"lightweight|scalable|first))*|called|dubbed|named|termed|coined|our)\s*$",
    re.I)


_INTRO_VERB_RE = re.compile(r"\bwe\s+(?:\w+\s+)?(?:propose|introduce|present|develop|design|devise|call|name|"
                            r"term|dub)\b", re.I)
_APPOSITIVE_RE = re.compile(
    r"\s*(?:\([^()]{1,80}\))?\s*[,:]\s*(?:a|an|the|our)\s+(?:[\w-]+\s+){0,4}?(?:method|framework|approach|"
    r"algorithm|model|technique|strategy|mechanism|architecture|system|pipeline|paradigm|procedure|"
    r"recipe|scheme|module|agent|family|suite|benchmark|dataset)\b", re.I)


_NOT_OURS_RE = re.compile(r"\b(?:which|that|based|builds?|built|using|uses?|with|via|than|compared|"
                          r"such as|including|like|extends?|extending|against|unlike|instead)\b", re.I)


def _introduced_later_in_sentence(left: str) -> bool:
    """`we propose a framework, X` but not `we propose X, which builds on Y`: no link word after the cue."""
    cues = list(_INTRO_VERB_RE.finditer(left))
    return bool(cues) and not _NOT_OURS_RE.search(left, cues[-1].end())


def has_intro_cue(text: str, start: int) -> bool:
    """An introduction cue (`we propose`, `called`, `our`) right before `start` in its sentence."""
    left = text[max(0, start - 120):start]
    cut = max(left.rfind(". "), left.rfind("; "))
    return bool(_INTRO_RE.search(left[cut + 1:] if cut >= 0 else left))


def detect_introduced(doc: Doc, spans: list[Span], sents: list[Span], sent_of: list[int]) -> list[list[int]]:
    """Mentions presented as new: preceded (within their sentence) by an introduction cue."""
    out = []
    text = doc_text(doc)
    seen: set[str] = set()
    for s in spans:
        sent = sents[sent_of[s.start]]
        left = text[max(sent.start_char, s.start_char - 120):s.start_char]
        first = s.text not in seen
        seen.add(s.text)
        if s.kb_id_ == "intro" or _INTRO_RE.search(left):
            out.append([s.start_char, s.end_char])
        elif first and s.kb_id_ in ("acro", "shape", "phrase") and s.label_ in ("Method", "Model") and (
                _introduced_later_in_sentence(text[sent.start_char:s.start_char])
                or _APPOSITIVE_RE.match(text, s.end_char)):
            # a new name (no gazetteer entry) first seen in `we propose ... X` or in `X, a novel method`
            out.append([s.start_char, s.end_char])
    # a short/long form inherits the flag of its partner
    intro_texts = {text[a:b] for a, b in out}
    for long_text, short_text in doc._.paperkg_aliases or []:
        if long_text in intro_texts or short_text in intro_texts:
            intro_texts.update((long_text, short_text))
    return [[s.start_char, s.end_char] for s in spans if s.text in intro_texts]


def _name_suffix_end(doc: Doc, end: int, limit: int) -> int:
    """Where a name continues past `end` as `-LT`, `-Clip`, `-1K` written without spaces."""
    while (end + 1 < limit and doc[end].text == "-" and not doc[end - 1].whitespace_
           and not doc[end].whitespace_ and doc[end + 1].text.isalnum()
           and (doc[end + 1].text[0].isupper() or doc[end + 1].text[0].isdigit())):
        end += 2
        while end < limit and not doc[end - 1].whitespace_ and doc[end].text.isalnum():
            end += 1
    return end


def extend_name_suffixes(doc: Doc, spans: list[Span]) -> list[Span]:
    """`CIFAR100-LT` and `PPO-Clip` are names of their own, not `CIFAR100` and `PPO` followed by
    noise: a found name takes in a hyphenated suffix that starts with a capital or a digit (never
    `-based` or `-style`), up to the next found name. Data, models and metrics keep their type
    (`ROUGE-L`, `FID-50K`); a task name with a suffix (`RL-Inf`) names a method."""
    out: list[Span] = []
    for i, span in enumerate(spans):
        limit = spans[i + 1].start if i + 1 < len(spans) else len(doc)
        end = _name_suffix_end(doc, span.end, limit)
        if end == span.end:
            out.append(span)
            continue
        label = "Method" if span.label_ == "Task" else span.label_
        out.append(Span(doc, span.start, end, label=label, kb_id=span.kb_id))
    return out


_LIST_KINDS = {"benchmark": "Benchmark", "dataset": "Dataset", "task": "Task", "metric": "Metric"}
_LIST_CUE_RE = re.compile(r"\b(benchmark|dataset|task|metric)s?\s*(?:\([^()]*\))?\s*,?\s*"
                          r"(?:such as|including|like|namely|e\.g\.,?|i\.e\.,?|:)\s*\(?\s*$", re.I)
# Types a list cue does not override: model names' shape is surer than any list, and `tasks such as
# ImageNet 32x32` lists data under a task cue more often than not.
_LIST_KEEPS = {"Benchmark": {"Model"}, "Dataset": {"Model"}, "Metric": {"Model"},
               "Task": {"Model", "Dataset", "Benchmark"}}
_LIST_GAP_RE = re.compile(r"^\s*(?:,|,?\s*(?:and|or))?\s*(?:,\s*)?$")


def retype_listed(doc: Doc, spans: list[Span], sents: list[Span], sent_of: list[int]) -> list[Span]:
    """Names listed after `benchmarks such as`, `datasets including`, `metrics:` or `tasks like` are of
    that kind, whatever the name alone suggested (`ImageNet1K, COCO and V3DET` after `benchmarks such
    as` are benchmarks, not methods). The list runs while only commas, `and` and `or` separate the
    names (see `_LIST_KEEPS` for the types a cue leaves alone). The new type applies to
    every occurrence of the surface, so one name keeps one type in the abstract."""
    text = doc_text(doc)
    retyped: dict[str, str] = {}
    kind: str | None = None
    prev_end, prev_sent = 0, -1
    for span in spans:
        sent = sent_of[span.start]
        if sent != prev_sent:
            kind, prev_end = None, sents[sent].start_char
        gap = text[prev_end:span.start_char]
        cue = _LIST_CUE_RE.search(gap)
        if cue:
            kind = _LIST_KINDS[cue.group(1).lower()]
        elif kind is not None and not _LIST_GAP_RE.match(gap):
            kind = None
        if kind is not None and span.label_ not in _LIST_KEEPS[kind] and span.label_ != kind:
            retyped.setdefault(span.text, kind)
        prev_end, prev_sent = span.end_char, sent
    if not retyped:
        return spans
    return [Span(doc, s.start, s.end, label=retyped.get(s.text, s.label_), kb_id=s.kb_id) for s in spans]


class MentionResolver:
    def __init__(self, name: str, typer: str | None = None, min_prob: float = 0.8, phrases: str | None = None,
                 phrase_prob: float = 0.3) -> None:
        self.name = name
        self.typer = SpanTyper.from_disk(typer) if typer else None
        self.min_prob = min_prob
        self.phrases = SpanTyper.from_disk(phrases) if phrases else None
        self.phrase_prob = phrase_prob

    def __call__(self, doc: Doc) -> Doc:
        sents, sent_of = sentence_index(doc)
        final = resolve_mentions(doc, self.typer, self.min_prob, self.phrases, self.phrase_prob)
        final = retype_listed(doc, extend_name_suffixes(doc, final), sents, sent_of)
        doc.spans[FINAL] = final
        doc._.paperkg_introduced = detect_introduced(doc, final, sents, sent_of)
        if doc._.paperkg_aliases is None:
            doc._.paperkg_aliases = []
        text = doc_text(doc)
        introduced = {text[a:b] for a, b in doc._.paperkg_introduced}
        doc._.paperkg_relations = extract_relations(doc, final, introduced, doc._.paperkg_aliases,
                                                    sents, sent_of)
        return doc


@Language.factory("paperkg_acronyms")
def make_acronyms(nlp: Language, name: str) -> AcronymDetector:
    return AcronymDetector(name)


@Language.factory("paperkg_model_names")
def make_model_names(nlp: Language, name: str) -> ModelNameMatcher:
    return ModelNameMatcher(name)


@Language.factory("paperkg_gazetteer", default_config={"path": None})
def make_gazetteer(nlp: Language, name: str, path: str | None) -> GazetteerMatcher:
    return GazetteerMatcher(nlp, name, path)


@Language.factory("paperkg_resolver",
                  default_config={"typer": None, "min_prob": 0.8, "phrases": None, "phrase_prob": 0.3})
def make_resolver(nlp: Language, name: str, typer: str | None, min_prob: float, phrases: str | None,
                  phrase_prob: float) -> MentionResolver:
    return MentionResolver(name, typer, min_prob, phrases, phrase_prob)


# --------------------------------------------------------------------------------------------
# Relations from sentence cues
# --------------------------------------------------------------------------------------------
_COMPARE_RE = re.compile(
    r"\b(?:outperform\w*|surpass\w*|exceed\w*|beat\w*|compar\w*|better than|superior to|than|versus|vs\.?|"
    r"baselines?|over|against|relative to|unlike|instead of|rather than|improv\w+ (?:up)?on|existing|prior|"
    r"previous|conventional|traditional|standard|alternative)\b", re.I)
_USE_RE = re.compile(
    r"\b(?:us(?:e|es|ing|ed)|build\w* (?:on|upon)|buil[dt] on|based on|extend\w*|combin\w*|integrat\w*|"
    r"incorporat\w*|leverag\w*|employ\w*|adopt\w*|via|through|with|apply\w*|appl(?:y|ies|ied)|"
    r"inspired by|relies on|rely on|equipp\w*|augment\w*)\b", re.I)
_EVAL_RE = re.compile(r"\b(?:on|across|evaluat\w*|experiments?|benchmarks?|results?|test\w*)\b", re.I)

_STRONG_COMPARE_RE = re.compile(r"\b(?:outperform\w*|surpass\w*|compared (?:to|with)|better than)\b", re.I)
_WE_RE = re.compile(r"\b(?:we|our|this (?:paper|work|article))\b", re.I)
TAIL_RELATION = {"Task": "ADDRESSES", "Metric": "MEASURED_BY", "Dataset": "EVALUATED_ON",
                 "Benchmark": "EVALUATED_ON"}


_PAREN_NAME_RE = re.compile(r"\s*\(\s*$")


def alias_map(mentions: list[Span], aliases: list[tuple[str, str]], text: str) -> dict[str, str]:
    """Short form -> long form, for naming an entity once in relations: the detected acronym pairs,
    `Long Name (NAME)` where both are method/model mentions and NAME is one word (an acronym the
    letter rules missed, `Gradient-Reweighted Advantage (GRAIL)`), and the singular or plural of a
    short form (`PC` for `PCs`)."""
    canon: dict[str, str] = {}
    for long_text, short_text in aliases:
        canon.setdefault(short_text, long_text)
    for prev, cur in itertools.pairwise(mentions):
        if (prev.label_ in ("Method", "Model") and cur.label_ in ("Method", "Model") and len(cur) == 1
                and len(prev) > 1 and cur.text not in canon and prev.text not in canon
                and text[cur.end_char:cur.end_char + 1] == ")"
                and _PAREN_NAME_RE.fullmatch(text[prev.end_char:cur.start_char])):
            canon[cur.text] = prev.text
    for short_text, long_text in list(canon.items()):
        other = short_text[:-1] if short_text.endswith("s") else short_text + "s"
        canon.setdefault(other, long_text)
    return canon


def extract_relations(doc: Doc, mentions: list[Span], introduced: set[str],
                      aliases: list[tuple[str, str]], sents: list[Span], sent_of: list[int]) -> list[list]:
    """[head, TYPE, tail, sentence] triples from the mentions of one abstract.

    The head is the paper's own method (the first introduced Method/Model, long form preferred);
    tails are the other mentions, typed by their entity type and, for methods, by the cues of the
    sentences they share with the head or with `we`/`our`."""
    if not mentions:
        return []
    text = doc_text(doc)
    canon = alias_map(mentions, aliases, text)
    by_text: dict[str, list[Span]] = {}
    types: dict[str, str] = {}
    for m in mentions:
        key = canon.get(m.text, m.text)
        by_text.setdefault(key, []).append(m)
        types.setdefault(key, m.label_)
    intro_keys = [canon.get(t, t) for t in dict.fromkeys(
        m.text for m in mentions if m.text in introduced)]
    heads = [k for k in intro_keys if types.get(k) in ("Method", "Model")]
    # `curriculum learning` and `distribution-level curriculum learning` both introduced: the variant
    variants = [k for k in heads if not any(o.lower().endswith(" " + k.lower()) for o in heads)]
    heads = variants or heads
    if len(heads) > 1:
        # the paper's main contribution: defined with an acronym, then mentioned most often
        long_forms = set(canon.values())

        def weight(key: str) -> tuple[int, int]:
            count = len(by_text[key]) + sum(len(by_text.get(sh, ())) for sh, lg in canon.items() if lg == key)
            return (2 * (key in long_forms) + min(count, 4), -by_text[key][0].start)

        heads = sorted(heads, key=weight, reverse=True)
    if not heads:
        # no introduced method: the first method named in a sentence where the authors speak
        for m in mentions:
            key = canon.get(m.text, m.text)
            if types.get(key) in ("Method", "Model") and _WE_RE.search(sents[sent_of[m.start]].text):
                heads = [key]
                break
    if not heads:
        return []
    head = heads[0]
    head_sents = {sent_of[m.start] for m in by_text[head]}
    # other forms of the head (its acronym) count as the head in sentences
    for short_text, long_text in canon.items():
        if long_text == head and short_text in by_text:
            head_sents |= {sent_of[m.start] for m in by_text[short_text]}
    out = []
    for key, spans in by_text.items():
        if key == head:
            continue
        rel = TAIL_RELATION.get(types[key])
        sent = sent_of[spans[0].start]
        if rel == "MEASURED_BY" and not any(
                sent_of[m.start] in head_sents or _WE_RE.search(sents[sent_of[m.start]].text) for m in spans):
            rel = None
        elif rel is None and key in intro_keys:
            rel = "USES"
        elif rel is None:
            rel, sent = _method_relation(spans, head_sents, sents, sent_of, text)
        if rel:
            out.append([head, rel, key, sent])
    return out


def _method_relation(spans: list[Span], head_sents: set[int], sents: list[Span], sent_of: list[int],
                     text: str) -> tuple[str | None, int]:
    """COMPARED_WITH or USES (or nothing) between the head and another method, from the sentences of
    the method's mentions: a comparison cue counts where the head or `we`/`our` is in the sentence (a
    comparison elsewhere is between two other methods); a use cue or a shared sentence gives USES."""
    compared = used = None
    foreign_comparison = False
    for s in spans:
        i = sent_of[s.start]
        sent_text = sents[i].text
        left = text[sents[i].start_char:s.start_char]
        strong = _STRONG_COMPARE_RE.search(sent_text)
        if _COMPARE_RE.search(left) or strong:
            if i in head_sents or (strong and _WE_RE.search(sent_text)):
                compared = i if compared is None else compared
            elif not _WE_RE.search(sent_text):
                foreign_comparison = True
            elif used is None and _USE_RE.search(left):
                used = i
        elif used is None and (i in head_sents or _USE_RE.search(left)):
            used = i
    if compared is not None:
        return "COMPARED_WITH", compared
    if foreign_comparison:
        return None, sent_of[spans[0].start]
    if used is not None:
        return "USES", used
    return None, sent_of[spans[0].start]
