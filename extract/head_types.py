"""Entity types of phrases from their head word, and the generic kinds that are no entity.

Shared by the candidate sources (introduced phrases) and the resolver (acronym long forms).
"""

from __future__ import annotations

import re

from paperkg.extract.lexicon.tokenizer import DASH_CHARS
from paperkg.extract.lexicon.types import GENERIC, HEAD_TYPES


def type_from_head(text: str, introduced: bool = False) -> str:
    """Entity type of a (long-form) phrase from its last word; a phrase the paper introduces is not a Task."""
    words = re.split(rf"[\s\-{DASH_CHARS}]+", text.lower())
    head = words[-1] if words else ""
    for etype, heads in HEAD_TYPES.items():
        if head in heads:
            return "Method" if etype == "Task" and introduced else etype
    return "Method"


def norm(text: str) -> str:
    """Lower case, dashes and runs of whitespace as one space: the key generic kinds are compared by."""
    return re.sub(rf"[\s\-{DASH_CHARS}]+", " ", text.lower()).strip()


_GENERIC_NORM = {norm(g) for g in GENERIC}
# `norm` without its spaces, and without the trailing `s`s `is_generic` also accepts: a text can only be
# generic when its lower case without whitespace and hyphens is one of these, a test two C calls make
_GENERIC_SQUEEZED = {g.replace(" ", "").rstrip("s") for g in _GENERIC_NORM}


def is_generic(text: str) -> bool:
    """A generic kind or setting (`LLMs`, `diffusion models`, `out-of-distribution`), not an entity."""
    squeezed = "".join(text.lower().split()).replace("-", "")
    if squeezed.isascii() and squeezed.rstrip("s") not in _GENERIC_SQUEEZED:
        return False  # (other dashes than `-` are not ASCII)
    low = norm(text)
    return low in _GENERIC_NORM or low.rstrip("s") in _GENERIC_NORM
