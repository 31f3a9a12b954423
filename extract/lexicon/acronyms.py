"""Schwartz–Hearst acronym definitions: what a short form looks like and which words a long form drops."""

import re

SHORT_RE = re.compile(r"^[A-Za-z0-9][\w.+\-/&$\u2010-\u2015\u2212]{0,14}$")
FUNCTION_WORDS = {"with", "of", "for", "and", "the", "a", "an", "in", "on", "to", "via", "by", "from", "at"}
# tokens that end the long-form candidate before `(`
LONG_FORM_BREAK = {"(", ")", ";", ":", ",", ".", "\"", "[", "]"}
LONG_FORM_STOP_WORDS = {"and", "or", "by", "with", "via", "the", "a", "an", "of"}
# what may not come between `(` and `)` of a short form
SHORT_FORM_BREAK = {"(", ";", ","}
REVERSE_LONG_BREAK = {"(", ";", ",", "."}
LEADING_DROP = {"the", "a", "an", "our", "this", "these", "its", "their", "we", "new", "novel", "of",
                "called", "named", "termed", "dubbed", "coined"}
