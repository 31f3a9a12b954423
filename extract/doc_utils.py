"""What every paperkg component shares: where results live on a Doc and per-Doc views read once.

Results live on the Doc as plain values, so that docs cross process boundaries with `n_process > 1`:
- `doc.spans["paperkg_cands"]`: candidate spans from rules, gazetteers and the phrase finder
  (label = entity type, or `LONG`/`SHORT` for acronym pairs; kb_id = the source);
- `doc.spans["paperkg"]`: the resolved mentions (label = entity type, kb_id = the source);
- `doc._.paperkg_aliases`: list of [long form, short form] surface pairs;
- `doc._.paperkg_typed`: {(start, end): (type, probability)} where the span typer is sure enough;
- `doc._.paperkg_scores`: {(start, end): probability} of the phrases the phrase finder proposed;
- `doc._.paperkg_confidence`: the probability of each resolved mention, in `doc.spans["paperkg"]` order;
- `doc._.paperkg_introduced`: list of [start_char, end_char] of mentions presented as new;
- `doc._.paperkg_relations`: list of [head, TYPE, tail, sentence index, probability];
- `doc._.paperkg_head`: the paper's own method as the relation component names it (a relation head), or None;
- `doc._.paperkg_results`: the numbers the abstract reports as results (`graph.records.ResultMention`
  each), filled by a results component when the pipeline has one, None otherwise.

Every extension is registered when any paperkg component is imported (spaCy imports them through the
`spacy_factories` entry points), so a user's own pipeline (`spacy.blank("en").add_pipe(...)`) has them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Span

from paperkg.graph.normalize import latex_spacing

CANDS = "paperkg_cands"
FINAL = "paperkg"

for _name in ("paperkg_aliases", "paperkg_introduced", "paperkg_relations", "paperkg_head", "paperkg_typed",
              "paperkg_scores", "paperkg_confidence", "paperkg_results"):
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=None)


def add_candidates(doc: Doc, spans: Iterable[Span]) -> None:
    """Append candidate spans after those of the components that ran before."""
    doc.spans[CANDS] = [*doc.spans.get(CANDS, ()), *spans]


def make_doc(nlp: Language, text: str) -> Doc:
    """The Doc of `text` (LaTeX spacing read as spaces, `latex_spacing`), remembering the text it was
    made from: spaCy's tokenizer is lossless, so this is `doc.text`, which spaCy would rebuild from a
    Token object per word (for the 1,156 benchmark abstracts, 6% of extraction time)."""
    text = latex_spacing(text)
    doc = nlp.make_doc(text)
    doc.user_data["paperkg_text"] = text
    return doc


def doc_text(doc: Doc) -> str:
    """`doc.text`, computed once per Doc (spaCy rebuilds it from the tokens on every access); the
    text itself when the Doc was made by `make_doc`."""
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
    """The sentences and every token's sentence index, computed once per Doc and shared by the
    components that need them (resolver, introductions, relations)."""
    cached = doc.user_data.get("paperkg_sents")
    if cached is None or len(cached[1]) != len(doc):
        sents = sentence_spans(doc)
        cached = (sents, token_sentence(doc, sents))
        doc.user_data["paperkg_sents"] = cached
    return cached


def token_sentence(doc: Doc, sents: list[Span]) -> list[int]:
    """Sentence index of every token."""
    out = [0] * len(doc)
    for i, sent in enumerate(sents):
        out[sent.start:sent.end] = [i] * (sent.end - sent.start)
    return out


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

    @classmethod
    def of(cls, doc: Doc) -> TokenView:
        """The view of `doc`, built once and shared by the components (typer, phrase finder)."""
        view = doc.user_data.get("paperkg_view")
        if view is None or len(view.lowers) != len(doc):
            view = cls(doc)
            doc.user_data["paperkg_view"] = view
        return view

    def surface(self, start: int, end: int) -> str:
        return self.text[self.starts[start]:self.starts[end - 1] + self.lengths[end - 1]]
