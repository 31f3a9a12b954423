"""Tokenizer customisation: finer splits, so that names glued by dashes, slashes or `$` align with tokens.

The rules are compiled into the tokenizer's own prefix/suffix/infix searches, so `nlp.to_disk` saves
them with the pipeline and `spacy.load` restores them.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.util import compile_infix_regex, compile_suffix_regex

from paperkg.extract.lexicon.tokenizer import INFIXES, SUFFIXES


def customize_tokenizer(nlp: Language) -> None:
    """Split on any dash between alphanumerics, on `/`, `$`, `=` and `+` inside words, and before a
    sentence-final period after an upper-case or digit name (`GSM8K.`)."""
    nlp.tokenizer.infix_finditer = compile_infix_regex([*nlp.Defaults.infixes, *INFIXES]).finditer
    nlp.tokenizer.suffix_search = compile_suffix_regex([*nlp.Defaults.suffixes, *SUFFIXES]).search
