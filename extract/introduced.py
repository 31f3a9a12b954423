"""Which mentions a paper presents as new (`introduced`): preceded in their sentence by an introduction
cue (`we propose`, `called`, `our`), or a new name first seen in `we propose ... X` or `X, a novel
method`; a short or long form inherits its partner's flag. Writes `doc._.paperkg_introduced`."""

from __future__ import annotations

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import FINAL, doc_text, sentence_index
from paperkg.extract.lexicon.intro import APPOSITIVE_RE, INTRO_RE, INTRO_VERB_RE, NOT_OURS_RE


class IntroductionMarker:
    """Pipeline component `paperkg_introduced` (after the resolver)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        sents, sent_of = sentence_index(doc)
        doc._.paperkg_introduced = detect_introduced(doc, list(doc.spans.get(FINAL, [])), sents, sent_of)
        return doc


def _introduced_later_in_sentence(left: str) -> bool:
    """`we propose a framework, X` but not `we propose X, which builds on Y`: no link word after the cue."""
    cues = list(INTRO_VERB_RE.finditer(left))
    return bool(cues) and not NOT_OURS_RE.search(left, cues[-1].end())


def has_intro_cue(text: str, start: int) -> bool:
    """An introduction cue (`we propose`, `called`, `our`) right before `start` in its sentence."""
    left = text[max(0, start - 120):start]
    cut = max(left.rfind(". "), left.rfind("; "))
    return bool(INTRO_RE.search(left[cut + 1:] if cut >= 0 else left))


def detect_introduced(doc: Doc, spans: list[Span], sents: list[Span], sent_of: list[int]) -> list[list[int]]:
    """[start_char, end_char] of the mentions presented as new."""
    out = []
    text = doc_text(doc)
    seen: set[str] = set()
    for s in spans:
        sent = sents[sent_of[s.start]]
        left = text[max(sent.start_char, s.start_char - 120):s.start_char]
        first = s.text not in seen
        seen.add(s.text)
        if s.kb_id_ == "intro" or INTRO_RE.search(left):
            out.append([s.start_char, s.end_char])
        elif first and s.kb_id_ in ("acro", "shape", "phrase") and s.label_ in ("Method", "Model") and (
                _introduced_later_in_sentence(text[sent.start_char:s.start_char])
                or APPOSITIVE_RE.match(text, s.end_char)):
            # a new name (no gazetteer entry) first seen in `we propose ... X` or in `X, a novel method`
            out.append([s.start_char, s.end_char])
    # a short/long form inherits the flag of its partner
    intro_texts = {text[a:b] for a, b in out}
    for long_text, short_text in doc._.paperkg_aliases or []:
        if long_text in intro_texts or short_text in intro_texts:
            intro_texts.update((long_text, short_text))
    return [[s.start_char, s.end_char] for s in spans if s.text in intro_texts]
