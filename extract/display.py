"""Extractions shown with displaCy's span view (`paperkg extract --html OUT`).

An `Extraction` is plain data (it crosses process boundaries with `--jobs`), so the page is made from
it rather than from the pipeline's Docs: each abstract is tokenized again with paperkg's tokenizer
(the extractor's tokens, so every mention's offsets fall on token edges) and its mentions become the
`doc.spans["paperkg"]` a live pipeline leaves (label = entity type), with its reported results, when
the extractor found any, as `Result` spans. A Doc from `load_pipeline()` renders the same way:

    displacy.render(doc, style="span", options={"spans_key": "paperkg"})

The abstracts and ids are anyone's text: displaCy escapes every token; the title (the paper id) is
escaped here, since displaCy inserts titles as they are. The page has no script.
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Iterable

import spacy
from spacy import displacy
from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import FINAL, make_doc
from paperkg.extract.tokenizer import customize_tokenizer
from paperkg.graph.records import Extraction

RESULT = "Result"
# displaCy's colours per label (Okabe-Ito, readable for colour-blind readers); labels it does not
# know get its default grey
COLORS = {"Method": "#E69F00", "Model": "#56B4E9", "Dataset": "#009E73", "Benchmark": "#F0E442",
          "Metric": "#CC79A7", "Task": "#D55E00", RESULT: "#999999"}
OPTIONS = {"spans_key": FINAL, "colors": COLORS}


def extraction_doc(nlp: spacy.language.Language, extraction: Extraction) -> Doc:
    """A Doc of the extraction's abstract whose `spans["paperkg"]` are its mentions (and results),
    titled with its paper id (escaped)."""
    doc = make_doc(nlp, extraction.text)
    spans: list[Span] = []
    seen: set[tuple[int, int, str]] = set()
    marks = [(m.start, m.end, m.type) for m in extraction.mentions]
    marks += [(r.start, r.end, RESULT) for r in extraction.results]
    for start, end, label in sorted(marks):
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is not None and (span.start, span.end, label) not in seen:
            seen.add((span.start, span.end, label))
            spans.append(span)
    doc.spans[FINAL] = spans
    doc.user_data["title"] = html.escape(extraction.paper_id)
    return doc


def render_page(extractions: Iterable[Extraction]) -> str:
    """One HTML page with every extraction's abstract and its spans, in order."""
    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    docs = [extraction_doc(nlp, e) for e in extractions]
    with warnings.catch_warnings():     # W117, once per abstract with no entity: shown as it is
        warnings.filterwarnings("ignore", message=r"\[W117\]")
        return displacy.render(docs, style="span", page=True, options=OPTIONS, jupyter=False)
