"""Names a paper introduces: the noun phrase after `we propose/introduce/...` (generic heads such as
`framework` dropped) and the name after `called/dubbed/named`, as candidates of source `intro`."""

from __future__ import annotations

import bisect
import re

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import add_candidates, doc_text
from paperkg.extract.head_types import type_from_head
from paperkg.extract.lexicon.intro import (
    CONTAINERS,
    GENERIC_HEADS,
    INTRO_CUE_RE,
    INTRO_SKIP,
    NAMING_CUES,
    NOT_NAME_WORDS,
    PHRASE_STOP,
    SHAPE_TOKEN,
)


class IntroducedNameFinder:
    """Pipeline component `paperkg_intro_names`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        add_candidates(doc, find_introduced_names(doc))
        return doc


def _in_title_name(doc: Doc, i: int) -> bool:
    """A capitalised generic head after a capitalised word belongs to a name (`Generalist Value Models`)."""
    return doc[i].text[:1].isupper() and i > 0 and doc[i - 1].text[:1].isupper()


def plausible_intro_name(span: Span, text: str) -> bool:
    """Drop clause fragments after an introduction cue (`theoretical results`, `six proxies`)."""
    first = span[0]
    if first.is_punct or first.like_num or first.is_digit:
        return False
    if any(t.lower_ in NOT_NAME_WORDS for t in span) or any(c in span.text for c in "\"{}[]"):
        return False
    if " " in span.text or not span.text.islower():
        return True
    # one lower-case word: a hyphenated modifier (`end-to-end`) is no name; a plain word must recur
    word = span.text
    return "-" not in word and len(re.findall(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text)) >= 2


def find_introduced_names(doc: Doc) -> list[Span]:
    """The phrase after each introduction cue, typed by its head word or the kind word after it."""
    spans = []
    n = len(doc)
    text = doc_text(doc)
    starts = None
    for match in INTRO_CUE_RE.finditer(text):
        if starts is None:
            starts = doc.to_array("IDX").tolist()
        i = bisect.bisect_left(starts, match.end())  # first token after the cue
        low = (match.group(1) or match.group(2)).lower()
        while i < n and (doc[i].lower_ in INTRO_SKIP or doc[i].text in {"\"", "'", "`", "*"}):
            i += 1
        if i + 1 < n and doc[i].lower_ in CONTAINERS and doc[i + 1].lower_ == "of":
            i += 2
            while i < n and doc[i].lower_ in INTRO_SKIP:
                i += 1
        start = i
        if start < n and doc[start].text.endswith("ing") and start + 1 < n and doc[start + 1].lower_ in {
                "the", "a", "an", "our", "each", "all"}:
            continue  # `we propose replacing the ...`: a clause, not a name
        while i < n and i - start < 8 and not doc[i].is_sent_start:
            glued = i > start and not doc[i - 1].whitespace_ and doc[i - 1].text in "-\u2010\u2011"
            if doc[i].lower_ in PHRASE_STOP and not glued:
                break
            i += 1
            if doc[i - 1].lower_ in GENERIC_HEADS and not _in_title_name(doc, i - 1):
                break  # `... framework` ends the phrase (`framework grounded in ...` is not part of it)
        end = i
        while end > start and ((doc[end - 1].lower_ in GENERIC_HEADS and not _in_title_name(doc, end - 1))
                               or doc[end - 1].lower_ == "of" or doc[end - 1].is_punct):
            end -= 1
        if end <= start or all(t.lower_ in GENERIC_HEADS | INTRO_SKIP for t in doc[start:end]):
            continue
        if end < i and end - start == 1 and doc[start].is_lower and not SHAPE_TOKEN.match(doc[start].text):
            continue  # `two complementary methods` -> `complementary`: an adjective, not a name
        if low in NAMING_CUES and end - start > 4:
            continue
        span = doc[start:end]
        if not plausible_intro_name(span, text):
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
