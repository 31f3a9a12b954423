"""Sentence boundaries: spaCy's rule-based sentencizer, less the ends it finds inside citations and
after abbreviations.

The sentencizer ends a sentence at every `.` (and `!`, `?`) token. Abstracts cite (`Vidal et al.
(2013)`, `(Wang et al., 2022)`) and abbreviate (`w.r.t. the kernel`, `i.i.d. data`, `etc.) predict`):
about one abstract in thirty had a sentence cut there, and what is read per sentence (a result's
benchmark and subject, relations, introductions) lost its context: `For code question answering on
RubberDuckBench Mohammad et al. (2026), semi-formal reasoning achieves 87% accuracy.` became two
sentences, the second `2026), semi-formal reasoning achieves 87% accuracy.`, with no benchmark in it.
It also kept the bracket of an enumeration with the sentence before (`... methods. (` and `2) The
integration ...`): such a sentence now starts at its bracket.

`paperkg_sentences` is the sentencizer with `join_false_starts` applied to its predictions; the
extractor adds it under the name `sentencizer`, where spaCy's was. A lower-case word after a plain
word's period still starts a sentence (`... capabilities. medIKAL assigns ...`).
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.pipeline import Sentencizer
from spacy.tokens import Doc

from paperkg.extract.lexicon.sentences import (
    ABBREVIATIONS,
    BRACKETS,
    CONTINUATIONS,
    DOTTED_RE,
    ENDS,
    SEPARATORS,
)

_KEEP, _JOIN, _TO_BRACKET = range(3)


def join_false_starts(words: Sequence[str], starts: Sequence[bool]) -> list[bool]:
    """`starts` (a sentence starts at token i) without the starts that continue the sentence before,
    and with a start after an opening bracket that follows a sentence's end moved onto the bracket."""
    out = list(starts)
    for i in [i for i, start in enumerate(out) if start and i > 0]:
        verdict = _verdict(words, i)
        if verdict != _KEEP:
            out[i] = False
        if verdict == _TO_BRACKET:
            out[i - 1] = True
    return out


def _abbreviation(word: str) -> bool:
    """Whether a period after `word` belongs to it (`al.`, `w.r.t.`, a list's `1.`)."""
    return (word.lower() in ABBREVIATIONS or DOTTED_RE.fullmatch(word) is not None
            or (word.isdigit() and len(word) <= 2))


def _ends(words: Sequence[str], i: int) -> bool:
    """Whether token i (`.`, `?`, `!`) ends a sentence rather than an abbreviation."""
    return words[i] in ENDS and not (words[i] == "." and i >= 1 and _abbreviation(words[i - 1]))


def _verdict(words: Sequence[str], i: int) -> int:
    word, before = words[i], words[i - 1]
    if before in BRACKETS:
        return _TO_BRACKET if i >= 2 and _ends(words, i - 2) else _JOIN
    if before in SEPARATORS or word in CONTINUATIONS:
        return _JOIN
    if before == ".":
        return _JOIN if not _ends(words, i - 1) and not word[:1].isupper() else _KEEP
    return _JOIN if word[:1].islower() else _KEEP


class _Words(Sequence[str]):
    """A Doc's token texts, read only where asked (near the few sentence starts): making every Token
    of a Doc costs more than the sentencizer itself."""

    def __init__(self, doc: Doc) -> None:
        self._doc = doc

    def __len__(self) -> int:
        return len(self._doc)

    def __getitem__(self, i: int) -> str:  # type: ignore[override]  # (ints only: no slices asked)
        return self._doc[i].text


class SentenceSplitter(Sentencizer):
    """spaCy's `Sentencizer` whose predictions go through `join_false_starts`."""

    def predict(self, docs: Sequence[Doc]) -> list[list[bool]]:
        guesses = super().predict(docs)
        return [join_false_starts(_Words(doc), guess) for doc, guess in zip(docs, guesses, strict=True)]
