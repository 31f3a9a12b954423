"""Acronym definitions, `long form (SHORT)` and `SHORT (Long Form)`, after Schwartz & Hearst (2003),
the way scispaCy's `abbreviation.py` finds them: word initials first, then the letter-matching rule.

Adds `LONG`/`SHORT` candidates (source `acro`) and `doc._.paperkg_aliases`; the resolver types a pair
by its long form.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import CANDS, TokenView, sentence_spans
from paperkg.extract.lexicon.acronyms import (
    FUNCTION_WORDS,
    LEADING_DROP,
    LONG_FORM_BREAK,
    LONG_FORM_STOP_WORDS,
    REVERSE_LONG_BREAK,
    SHORT_FORM_BREAK,
    SHORT_RE,
)
from paperkg.extract.lexicon.tokenizer import DASH_CHARS


class AcronymDetector:
    """Pipeline component `paperkg_acronyms`."""

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


def is_short_form(text: str) -> bool:
    """Short, no spaces inside, with a capital and (two capitals, a digit or a leading capital)."""
    if not SHORT_RE.match(text) or not any(c.isalpha() for c in text):
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


def initials_long_form(short: str, long_cand: str) -> int | None:
    """Start index of the shortest tail of `long_cand` whose word initials spell `short` exactly
    (function words skipped; hyphen parts counted as words or not), else None."""
    letters = "".join(c for c in short.lower() if c.isalpha())
    if len(letters) < 2:
        return None
    words = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", long_cand)]
    for k in range(1, min(len(words), len(letters) + 4) + 1):
        tail = words[-k:]
        if tail[0][1].lower() in FUNCTION_WORDS:
            continue
        content = [w for _, w in tail if w.lower() not in FUNCTION_WORDS]
        plain = "".join(w[0] for w in content if w[0].isalpha()).lower()
        parts = "".join(p[0] for w in content for p in re.split(rf"[\-{DASH_CHARS}]", w)
                        if p and p[0].isalpha()).lower()
        if letters in (plain, parts):
            return tail[0][0]
    return None


def find_acronyms(doc: Doc) -> list[tuple[Span, Span]]:
    """(long form span, short form span) pairs for `long form (SHORT)` in each sentence."""
    pairs: list[tuple[Span, Span]] = []
    lowers = TokenView.of(doc).lowers        # brackets found without a spaCy Token per word
    for sent in sentence_spans(doc):
        for i in range(sent.start, sent.end):
            if lowers[i] != "(":
                continue
            tok = doc[i]
            # short form: tokens up to ')' (max 5 tokens) with no spaces inside ideally
            close = None
            for j in range(tok.i + 1, min(tok.i + 8, sent.end)):
                if doc[j].text == ")":
                    close = j
                    break
                if doc[j].text in SHORT_FORM_BREAK:
                    break
            if close is None or close == tok.i + 1:
                continue
            short_span = doc[tok.i + 1:close]
            short = short_span.text
            # "(SHORT; ...)" or "(e.g. ...)" filtered above; drop trailing plural 's' for matching
            if not is_short_form(short):
                continue
            match_short = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
            n_chars = sum(c.isalnum() for c in match_short)
            max_words = min(n_chars + 5, n_chars * 2)
            # candidate long form: words before "(" inside the sentence, stopping at punctuation
            start_i = tok.i
            words = 0
            while start_i > sent.start and words < max_words:
                prev = doc[start_i - 1]
                # a stop word inside a hyphenated name (`Plug-and-Play`) does not end it
                if prev.text in LONG_FORM_BREAK or (prev.text.lower() in LONG_FORM_STOP_WORDS
                                                    and words >= n_chars and prev.whitespace_):
                    break
                start_i -= 1
                if not prev.is_punct and not prev.is_space:
                    words += 1
            # a LaTeX thin space (`Optimization\\,(GRPO)`) reads as two spaces: a space token
            end_i = tok.i
            while end_i > start_i and doc[end_i - 1].is_space:
                end_i -= 1
            if start_i == end_i:
                continue
            cand = doc[start_i:end_i]
            cand_text = cand.text
            rel = initials_long_form(match_short, cand_text)
            if rel is None:
                rel = best_long_form(match_short, cand_text)
            if rel is None:
                continue
            long_span = doc.char_span(cand.start_char + rel, cand.end_char, alignment_mode="expand")
            if long_span is None or len(long_span) == 0:
                continue
            # `SFT+Group Relative Policy Optimisation (GRPO)`: the long form starts after the `+`
            glued = [t.i for t in long_span[:-1] if t.text in ("+", "/")]
            if glued and initials_long_form(match_short, doc[glued[-1] + 1:long_span.end].text) == 0:
                long_span = doc[glued[-1] + 1:long_span.end]
            long_span = drop_leading_words(long_span, match_short)
            if len(long_span.text) <= len(short) or long_span.text.lower() == short.lower():
                continue
            pairs.append((long_span, short_span))
    pairs.extend(find_reverse_acronyms(doc, {s.start for _, s in pairs}))
    return pairs


def drop_leading_words(long_span: Span, short: str) -> Span:
    """Drop leading determiners and naming words (`the`, `our`, `called`, ...) that the short form does not
    need: `The Cancer Imaging Archive (TCIA)`, `Named Entity Recognition (NER)` and `Novel view synthesis
    (NVS)` keep them, since their first letter is the short form's. A long form never starts with
    punctuation: not `-Entity Recognition` from `Named-Entity Recognition`, nor `-Recurrent Neural Network`
    from `(GRU)-Recurrent Neural Network (RNN)`."""
    while len(long_span) > 1 and (long_span[0].is_punct or long_span[0].lower_ in LEADING_DROP):
        rest = long_span[1:]
        if not long_span[0].is_punct and (rest[0].is_punct or best_long_form(short, rest.text) is None):
            break
        long_span = rest
    return long_span


def find_reverse_acronyms(doc: Doc, taken: set[int]) -> list[tuple[Span, Span]]:
    """`SHORT (Long Form Words)`, e.g. `MARBLE (Multi-Aspect Reward BaLancE)`."""
    pairs = []
    lowers = TokenView.of(doc).lowers          # no spaCy Token object per word just to find the brackets
    for i in (i for i, word in enumerate(lowers) if word == "("):
        if i == 0 or i + 1 in taken:
            continue
        tok = doc[i]
        short = doc[i - 1].text
        if not is_short_form(short) or sum(c.isupper() for c in short) < 2:
            continue
        close = None
        for j in range(tok.i + 2, min(tok.i + 16, len(doc))):
            if doc[j].text == ")":
                close = j
                break
            if doc[j].text in REVERSE_LONG_BREAK:
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
