"""Text keys that decide identity: which abstracts are the same paper, which names the same entity."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping

# Hyphen-like characters that writers and PDF converters use interchangeably with "-".
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d"
_DASH_TABLE = str.maketrans({c: "-" for c in DASHES})
_SPACE_RE = re.compile(r"\s+")
_NAME_SEP_RE = re.compile(r"[\s\-_]+")
_SLUG_RE = re.compile(r"[^a-z0-9.]+")


def fold_dashes(text: str) -> str:
    return text.translate(_DASH_TABLE)


def drop_format_chars(text: str) -> str:
    """Remove zero-width spaces, joiners, soft hyphens, BOMs (Unicode category Cf).

    ASCII holds no Cf character, and most names and abstracts are ASCII: those skip the scan."""
    if text.isascii():
        return text
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def _written(text: str) -> str:
    """Text as every key reads it: NFKC, one hyphen for every dash, no format characters."""
    return drop_format_chars(fold_dashes(unicodedata.normalize("NFKC", text)))


def paper_text_key(text: str) -> str:
    """Two abstracts with the same key are one paper (NFKC, dashes, format chars, spaces, case)."""
    return _SPACE_RE.sub(" ", _written(text)).strip().casefold()


def paper_id_for(text: str) -> str:
    """Default paper id: the first 12 hex digits of the SHA-1 of the stripped abstract as read."""
    return hashlib.sha1(text.strip().encode("utf-8")).hexdigest()[:12]


# LaTeX styling written around a name or its letters in arXiv abstracts: `\textit{Chain-of-Thought}`,
# `$\textbf{TAPE}$`, `\textbf{M}ulti-\textbf{V}iew`: the name is the text inside.
_STYLES = (r"\\(?:textbf|textit|textsc|texttt|textrm|textsf|textup|textnormal|emph|mathrm|mathbf|mathit|"
           r"mathsf|mathtt|text)")
_LATEX_STYLE = re.compile(_STYLES + r"\s*\{([^{}]*)\}")
# a styling left open in a name cut from a longer styled phrase: `\textit{Difficulty-Aware Contrastive
# Regularization` of `\textit{Difficulty-Aware Contrastive Regularization (DACR)}`
_LATEX_STYLE_OPEN = re.compile(_STYLES + r"\s*\{")


def latex_plain(text: str) -> str:
    """`text` without LaTeX text styling and math delimiters: `$\textit{Meta Ranking}$` is `Meta
    Ranking`, so a name's key, id and shown name do not depend on how the abstract styled it (a styled
    long form gave `CoT` a second entity, `method:textit-chain-of-thought-8a198365`)."""
    if "\\" not in text and "$" not in text:
        return text
    previous = None
    while previous != text:
        previous, text = text, _LATEX_STYLE.sub(r"\1", text)
    text = _LATEX_STYLE_OPEN.sub("", text).replace("$", "")
    if "}" not in text:
        return text
    kept, depth = [], 0        # a `}` that closes nothing in the name (its opener was cut off) goes
    for ch in text:
        if ch == "}" and depth == 0:
            continue
        depth += (ch == "{") - (ch == "}")
        kept.append(ch)
    return "".join(kept)


@functools.lru_cache(maxsize=1 << 17)
def name_key(name: str) -> str:
    """Entity-name key: case, hyphens, underscores, spacing and LaTeX styling do not distinguish names.

    `LLaMA3.1-8B`, `llama3.1 8b` and `LLaMA3.1‑8B` share a key; `LLaMA3.1-8B` and `LLaMA3-8B` do not.
    Cached: resolution asks for the key of every mention, and names recur across papers.
    """
    return _NAME_SEP_RE.sub(" ", _written(latex_plain(name)).casefold()).strip(" .,;:")


# A last word that ends in `s` but is no plural (`loss`, `corpus`, `analysis`, `bias`, `series`).
_NOT_PLURAL = ("ss", "us", "is", "ys", "as", "'s")
_UNCHANGED_PLURALS = frozenset({"series", "species", "news", "physics", "mathematics", "statistics",
                                "economics", "robotics", "dynamics", "genomics", "graphics", "kinetics",
                                "semantics", "linguistics", "diagnostics", "analytics", "ethics",
                                "optics", "logistics", "mechanics", "electronics", "informatics"})
_ES_PLURAL = ("ches", "shes", "sses", "xes", "zes")
_SCORE_WORDS = frozenset({"score", "scores"})


def singular(word: str, written: str = "") -> str:
    """The singular of a name's last word as a key sees it (`word` lower case, `written` as the name
    has it): `mechanisms` -> `mechanism`, `strategies` -> `strategy`, `patches` -> `patch`, and an
    acronym's `s` (`VAEs`, `LoRAs`, `LLMs`) always; `VITS`, `loss`, `corpus`, `bias`, `series`, `robotics`
    and words of three letters or fewer (`gas`, `ms`) stay. A key, not English: it only has to map a
    name's singular and plural to one string without joining two names."""
    if len(written) >= 3 and written.endswith("s") and written[-2].isupper():
        return word[:-1]
    if written.isupper():       # `VITS`, `MOS`, `GPS`: an acronym ending in S is no plural
        return word
    if len(word) < 4 or not word.endswith("s") or word.endswith(_NOT_PLURAL) or word in _UNCHANGED_PLURALS:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(_ES_PLURAL):
        return word[:-2]
    return word[:-1]


@functools.lru_cache(maxsize=1 << 17)
def spaced_key(name: str) -> str:
    """`name_key` with the folds of `compact_key` (the last word singular, a metric's trailing
    `score` dropped), words still apart: `attention mechanisms` is `attention mechanism`, `F1-score`
    is `f1`. An entity's id is made from it (`id_name`)."""
    words = name_key(name).split(" ")
    written = _NAME_SEP_RE.split(_written(latex_plain(name)).strip(" .,;:"))
    if len(words) > 1 and words[-1] in _SCORE_WORDS and len(written) > 1 and _short_name(written[-2]):
        words.pop()
        written.pop()
    words[-1] = singular(words[-1], written[-1] if len(written) == len(words) else "")
    return " ".join(words)


@functools.lru_cache(maxsize=1 << 17)
def compact_key(name: str) -> str:
    """`name_key` without separators, so `Qwen3 8B`, `Qwen3-8B` and `Qwen38B`-style joins meet; the
    last word singular (`attention mechanisms` is `attention mechanism`, `VAEs` is `VAE`), and a
    trailing `score` after a capitalised or numbered name dropped (`F1-score` is `F1`, `BLEU score`
    is `BLEU`; `Inception Score` stays). Cached: every mention of every build asks for it."""
    return spaced_key(name).replace(" ", "")


def id_name(spellings: Mapping[str, int], key: str) -> str:
    """The name an entity's id is made from: its key's spelling written most often (`spellings`:
    surface -> times written), counted by its folds (`spaced_key`: `Accuracy` and `accuracies` are
    `accuracy`), ties to the first. Folded, because the fold depends on case: `Androids` has the key
    `android` and `ANDROIDS` (an acronym's S) the key `androids`, and the spellings as written gave
    both the id `dataset:androids`, two entities whose rows took each other's place. Most written,
    because the first by name key let one broken spelling name an entity: `ac-curacy`, written once
    in 209k abstracts, named the `accuracy` of 21,839 papers `metric:ac-curacy`."""
    counts: Counter[str] = Counter()
    for surface, n in spellings.items():
        counts[spaced_key(surface)] += n
    return min(counts, key=lambda folded: (-counts[folded], folded)) if counts else key


def _short_name(written: str) -> bool:
    """`F1`, `BLEU`, `ROUGE-L`'s `L`, `mIoU` name a metric on their own; `Inception`, `quality` do not."""
    return any(c.isdigit() for c in written) or sum(c.isupper() for c in written) >= 2 or written.isupper()


def slug(text: str) -> str:
    """A URL- and NMTOKEN-safe rendering of a key; lossy keys get a short hash so ids stay unique."""
    key = name_key(text)
    base = _SLUG_RE.sub("-", key).strip("-.")
    if not base or base.replace("-", " ") != key:
        digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:8]
        base = f"{base}-{digest}" if base else digest
    return base


# LaTeX spacing written into arXiv abstracts: `fine-tuning~(SFT)`, `Optimization\\,(GRPO)`, `a\\ b`.
_LATEX_TIE = re.compile(r"(?<![\s/~\\])~(?![\s~/])")
_LATEX_SPACE = re.compile(r"(?<!\\)\\[,;:! >]")


def latex_spacing(text: str) -> str:
    """`text` with LaTeX's spacing commands as spaces of the same length (a tie `~` between words is
    one space, `\\,` `\\;` `\\:` `\\!` `\\ ` two), so they change no token, name or definition and
    every offset into the text as written still holds. A `~` at a word's start (`~60%`) or in a url
    (`/~user`) stays."""
    if "~" not in text and "\\" not in text:
        return text
    return _LATEX_SPACE.sub("  ", _LATEX_TIE.sub(" ", text))
