"""Real-text hygiene: surfaces that are never entities on their own (sizes, numbers, dimensions,
versions, hardware, vendors, modifiers) and spans holding a line break. The resolver drops such
candidates before choosing, so a longer name that contains one (`Llama-3.1-8B`, `3D Gaussian
Splatting`) still wins."""

from __future__ import annotations

from paperkg.extract.lexicon.hygiene import (
    EDGE_DASHES,
    LINE_BREAK_RE,
    MODIFIER_RE,
    NOT_ENTITIES,
    NOT_ENTITY_PHRASES,
    NOT_ENTITY_RE,
)


def is_not_entity(text: str) -> bool:
    """A size, number, dimension, version, hardware or vendor name or modifier alone, or a span with
    a line break, a LaTeX citation, unbalanced brackets (`RL)-based`, `P(Y`) or a dash at an end
    (`reach state−`): never an entity."""
    if LINE_BREAK_RE.search(text) or "\\cite" in text or "\\ref" in text:
        return True
    if text[:1] in EDGE_DASHES or text[-1:] in EDGE_DASHES:      # `reach state−`, `-based`: a fragment
        return True
    if any(text.count(a) != text.count(b) for a, b in ("()", "[]", "{}")):
        return True
    if text in NOT_ENTITIES or (text.endswith("s") and text[:-1] in NOT_ENTITIES):
        return True
    if text.lower().rstrip("s") in NOT_ENTITY_PHRASES:
        return True
    return bool(NOT_ENTITY_RE.match(text) or MODIFIER_RE.search(text))
